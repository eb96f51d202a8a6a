#pragma once
// One reader thread per CPU moving whole ring-buffer pages from per_cpu/cpuN/trace_pipe_raw
// into a file per CPU with splice(2), so the data never passes through sonde's memory; at the
// end each reader drains what is left, the last partial page included.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/error.hpp"
#include "base/unique_fd.hpp"
#include "ftrace/instance.hpp"

namespace sonde::ftrace {

struct CpuCapture {
  int cpu = 0;
  std::string path;    // the file of whole pages
  uint64_t bytes = 0;  // its size
  std::optional<Error> error;
  bool out_of_space = false;  // the disk filled: the file holds the whole pages written before
  // Where the file system allows it the file has no name (path is /proc/self/fd/N), so a run
  // killed outright leaves nothing behind; it lasts while a copy of this descriptor does.
  std::shared_ptr<UniqueFd> anonymous;
};

class RawCapture {
 public:
  // Opens every CPU's trace_pipe_raw and starts the readers, which write files without a name
  // in `<prefix>`'s directory, or `<prefix>cpuN` files where it cannot make those.
  static Result<std::unique_ptr<RawCapture>> start(const Instance& instance, const std::vector<int>& cpus,
                                                   const std::string& prefix, size_t page_size);
  // Removes the page files too, unless keep_files() was called.
  ~RawCapture();
  // Tells the readers to drain the buffers and end (tracing should be off by then); waits for them.
  std::vector<CpuCapture> finish();
  // The page files outlive this (the caller copies them into a trace.dat and removes them).
  void keep_files() { keep_files_ = true; }
  // A reader found the disk full and stopped (its file keeps the whole pages it wrote): the run
  // should end, as nothing more can be kept.
  bool out_of_space() const { return out_of_space_; }

 private:
  struct Reader {
    CpuCapture capture;
    UniqueFd raw, out, pipe_read, pipe_write;
    size_t pipe_size = 0;
    bool out_is_anonymous = false;  // `out` has no name: the capture keeps the descriptor
    std::thread thread;
  };
  RawCapture() = default;
  void run(Reader& reader);
  Result<void> move_full_pages(Reader& reader);
  Result<void> drain(Reader& reader);
  void keep_whole_pages(Reader& reader);

  std::vector<std::unique_ptr<Reader>> readers_;
  UniqueFd stop_event_;  // an eventfd the readers poll with their buffer
  size_t page_size_ = 4096;
  bool finished_ = false;
  bool keep_files_ = false;
  std::atomic<bool> out_of_space_ = false;
};

}  // namespace sonde::ftrace
