#include "pipeline/mem_run.hpp"

#include <linux/perf_event.h>
#include <unistd.h>

#include <algorithm>

#include "base/output_stream.hpp"
#include "session/session.hpp"
#include "symbols/symbolizer.hpp"

namespace sonde::pipeline {

namespace {

class MemDumpPass : public session::SessionVisitor {
 public:
  MemDumpPass(const MemDumpRunOptions& options, OutputStream& out, Diagnostics& diagnostics)
      : options_(options),
        out_(out),
        printer_(options.dump),
        symbolizer_(symbols::SymbolizerOptions{}, &diagnostics) {}

  void on_sample(const session::SampleEvent& sample) override {
    const perfdata::Sample& s = sample.sample;
    if (!options_.cpus.empty() &&
        std::find(options_.cpus.begin(), options_.cpus.end(), static_cast<int>(s.cpu)) == options_.cpus.end())
      return;
    output::MemDumpRow row;
    row.pid = static_cast<int32_t>(s.pid);
    row.tid = static_cast<int32_t>(s.tid);
    row.ip = s.ip;
    row.addr = s.addr;
    row.phys_addr = s.phys_addr;
    row.data_page_size = s.data_page_size;
    row.weight = s.weight;
    row.data_src = s.data_src;
    const symbols::Symbol* symbol = nullptr;
    if (!sample.callchain.empty()) {
      const session::Location& at = sample.callchain.front();
      if (at.dso != nullptr) {
        row.dso = at.dso->long_name;
        symbol = symbolizer_.find(*at.dso, at.dso_address);
        if (symbol != nullptr) row.symbol = symbol->name;
      }
    }
    if (options_.hide_unresolved && symbol == nullptr) return;
    printer_.append(row, text_);
    if (text_.size() > (1 << 16)) (void)flush();  // a failure stays in status_ and ends the run
  }

  Result<void> begin() { return write(printer_.header()); }
  Result<void> flush() {
    auto written = write(text_);
    text_.clear();
    return written;
  }

 private:
  Result<void> write(const std::string& text) {
    if (!status_) return status_;
    status_ = out_.write(text.data(), text.size());
    return status_;
  }

  const MemDumpRunOptions& options_;
  OutputStream& out_;
  output::MemDumpPrinter printer_;
  symbols::Symbolizer symbolizer_;
  std::string text_;
  Result<void> status_;
};

}  // namespace

Result<void> run_mem_dump(const MemDumpRunOptions& options, Diagnostics& diagnostics) {
  auto session = session::Session::open(options.input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  if (!options.cpus.empty())
    for (const auto& event : session->reader().attrs().events())
      if (!(event.attr.sample_type & PERF_SAMPLE_CPU))
        return failf("{}'s samples do not say their CPU (record with --sample-cpu or -a); remove -C",
                     options.input);
  OutputStream out(STDOUT_FILENO, false, "stdout");
  MemDumpPass pass(options, out, diagnostics);
  if (auto begun = pass.begin(); !begun) return begun;
  session->set_locate_callchains(true);
  if (auto processed = session->process(pass); !processed) return tl::unexpected(processed.error());
  if (auto flushed = pass.flush(); !flushed) return flushed;
  return out.flush();
}

}  // namespace sonde::pipeline
