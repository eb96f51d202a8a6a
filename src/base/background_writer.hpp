#pragma once
// Writes an OutputStream's bytes on a thread of its own, so that a converter formats the next
// megabyte while the kernel copies the last one into the page cache (for a multi-gigabyte JSON
// file that copy is as long as the formatting). Buffers go over whole; the queue is bounded, so
// memory stays at a few buffers. With one CPU the writes happen in put().
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "base/output_stream.hpp"

namespace sonde {

class BackgroundWriter {
 public:
  explicit BackgroundWriter(OutputStream& out);
  ~BackgroundWriter();  // waits for what was put, as finish() does, and drops its status
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Queues `buffer`'s bytes; it comes back empty, with spare storage. Fails with the first
  // write error met so far (later buffers are dropped then).
  Result<void> put(std::string& buffer);
  // Waits until every queued byte is written and the stream flushed.
  Result<void> finish();

 private:
  void run();

  OutputStream& out_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<std::string> queued_;
  std::vector<std::string> spare_;
  Result<void> status_;
  bool closing_ = false, finished_ = false;
  std::thread thread_;  // last: starts once the members it uses exist
};

}  // namespace sonde
