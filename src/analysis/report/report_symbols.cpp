// The report's FrameResolver over the symbols layer: each distinct location is asked once.
#include "analysis/report/report_run.hpp"
#include "symbols/symbolizer.hpp"
#include "symbols/unwound_frames.hpp"

namespace sonde::analysis {

namespace {

class SymbolizerResolver : public FrameResolver {
 public:
  SymbolizerResolver(symbols::SymbolizerOptions options, Diagnostics* notes)
      : symbolizer_(std::move(options), notes) {}

  std::optional<Symbol> symbol(const session::Dso& dso, uint64_t address) override {
    const symbols::Symbol* found = symbolizer_.find(dso, address);
    if (!found) return std::nullopt;
    return Symbol{found->start, found->name};
  }
  std::string srcline(const session::Dso& dso, uint64_t address) override {
    return symbolizer_.srcline(dso, address);
  }
  std::vector<UnwoundName> unwound_frames(const session::Dso& dso, uint64_t address) override {
    std::vector<UnwoundName> names;
    for (symbols::UnwoundFrame& frame : symbols::unwound_frames(symbolizer_, dso, address))
      names.push_back({std::move(frame.function), std::move(frame.srcline), frame.inlined});
    return names;
  }
  uint64_t symbol_address(const session::Dso& dso, uint64_t address) override {
    return symbolizer_.elf_address(dso, address);
  }
  void prefetch_kernel_symbols() override { symbolizer_.prefetch_kernel_symbols(); }

 private:
  symbols::Symbolizer symbolizer_;
};

}  // namespace

symbols::SymbolizerOptions symbolizer_options(const ReportRequest& request) {
  symbols::SymbolizerOptions options;
  options.symfs = request.symfs;
  if (!request.kallsyms.empty()) options.kallsyms = request.kallsyms;
  options.vmlinux = request.vmlinux;
  options.demangle = request.demangle;
  options.full_source_path = request.full_source_path;
  return options;
}

std::unique_ptr<FrameResolver> make_frame_resolver(const ReportRequest& request, Diagnostics* notes) {
  return std::make_unique<SymbolizerResolver>(symbolizer_options(request), notes);
}

}  // namespace sonde::analysis
