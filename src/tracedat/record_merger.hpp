#pragma once
// The records of a trace.dat in the order trace-cmd report prints them: every CPU of every
// buffer is a stream read page by page with libtraceevent's kbuffer; the stream whose next
// record has the smallest timestamp goes next, ties going to the earlier buffer, then the
// lower CPU. Records are filled in place: no allocation per record.
#include <traceevent/event-parse.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tracedat/reader.hpp"

struct kbuffer;

namespace sonde::tracedat {

class RecordMerger {
 public:
  explicit RecordMerger(const TraceDatReader& reader);
  ~RecordMerger();
  RecordMerger(const RecordMerger&) = delete;
  RecordMerger& operator=(const RecordMerger&) = delete;

  // The next record, valid until the following call; nullptr at the end. `buffer` gets the
  // index of the record's buffer in reader.buffers().
  const tep_record* next(size_t& buffer);
  // Pages that could not be read (corrupt headers or events), as one line each.
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  struct Stream;
  bool load_page(Stream& stream);
  bool peek(Stream& stream);

  const TraceDatReader& reader_;
  size_t long_size_ = 8;  // bytes of the page header's commit word
  std::vector<std::unique_ptr<Stream>> streams_;
  Stream* pending_ = nullptr;  // the stream whose record was returned last, advanced on next()
  std::vector<std::string> problems_;
};

}  // namespace sonde::tracedat
