#pragma once
// perf script -D (--dump-raw-trace): every record as perf 6.1 dumps it (where it sits in the
// file, its bytes in hex, its CPU and time, its type and what perf reads in it), with the
// script's own lines in between. perf dumps its own records (types 64 and up) as it reads them
// and the kernel's as the ordered replay delivers them; the session hands records over at those
// same two moments, so this printer wraps the script printer and keeps perf's interleaving.
#include <string>

#include "analysis/script/script_filter.hpp"
#include "output/script/script_printer.hpp"
#include "session/session.hpp"

namespace sonde::output {

class RawDumpPrinter final : public session::SessionVisitor {
 public:
  // `file_label` is what perf prints after '@': the input's path, or "pipe" for a pipe-mode
  // stream. `filter` says which samples the script would drop before looking them up (perf
  // prints their thread and DSO lines only for the others). `next` prints the script lines;
  // `script_shows_lost`: --show-lost-events, whose handler replaces the one that dumps LOST.
  // `symbols` names the kernel addresses of TEXT_POKE records.
  RawDumpPrinter(session::Session& session, ScriptSymbols& symbols, std::string file_label,
                 const analysis::ScriptFilter& filter, bool script_shows_lost, ScriptOutput& out,
                 session::SessionVisitor& next);

  // In file order (--dump-unsorted-raw-trace) perf has no handler for FINISHED_ROUND and says so.
  void set_file_order() { file_order_ = true; }
  // report -D: perf report's handlers (it reads READ records; THREAD_MAP and CPU_MAP it does not).
  void set_report_handlers() { report_handlers_ = true; }

  void on_sample(const session::SampleEvent& sample) override;
  Result<void> on_record(const perfdata::RecordView& record, const perfdata::EventAttr* attr,
                         const perfdata::SampleId& id) override;

 private:
  bool file_order_ = false;
  bool report_handlers_ = false;
  struct Stamp {
    bool known = false;  // false: perf's "-1 -1" (its events carry no sample_id)
    uint32_t cpu = 0;
    uint64_t time = 0;
  };
  void append_head(const perfdata::RecordView& record, const Stamp& stamp);
  void append_sample(const session::SampleEvent& sample);
  void append_user_record(const perfdata::RecordView& record);
  void append_kernel_record(const perfdata::RecordView& record, const perfdata::SampleId& id,
                            const perfdata::EventAttr* reading);

  session::Session& session_;
  ScriptSymbols& symbols_;
  std::string file_label_;
  const analysis::ScriptFilter& filter_;
  bool script_shows_lost_;
  uint64_t combined_ = 0;      // the known events' sample types ORed (perf's combined type)
  size_t combined_count_ = 0;  // how many events combined_ covers
  ScriptOutput& out_;
  session::SessionVisitor& next_;
};

// The label perf prints after '@' in a dump: "pipe" for a pipe-mode stream, else the path.
std::string raw_dump_file_label(const std::string& path, bool is_pipe);

}  // namespace sonde::output
