#include "pipeline/annotate_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "analysis/annotate/annotate_samples.hpp"
#include "analysis/annotate/objdump_listing.hpp"
#include "analysis/annotate/perf_annotation.hpp"
#include "base/strings.hpp"
#include "session/session.hpp"
#include "symbols/dwarf_info.hpp"
#include "symbols/elf_image.hpp"

namespace sonde::pipeline {

namespace {

// A DSO's code and DWARF, opened once for all of its symbols.
struct DsoCode {
  std::optional<symbols::ElfImage> code;
  std::optional<symbols::ElfImage> debug;  // a separate debug file, when there is one
  std::unique_ptr<symbols::DwarfInfo> dwarf;
  analysis::AddressNamer namer;  // objdump's names for branch targets and data addresses
  std::string error;             // why there is no code
};

DsoCode open_code(symbols::Symbolizer& symbolizer, const session::Dso& dso) {
  DsoCode out;
  std::string path = symbolizer.elf_path(dso);
  if (path.empty()) {
    out.error = dso.is_kernel() ? "no vmlinux file was found (pass one with -k/--vmlinux)"
                : dso.kind == session::DsoKind::jit_map
                    ? fmt::format("a JIT's code is in no file ('{}' only names it)", dso.long_name)
                    : fmt::format("'{}' was not found", dso.long_name);
    return out;
  }
  auto code = symbols::ElfImage::open(path);
  if (!code) {
    out.error = code.error().message;
    return out;
  }
  out.code = std::move(*code);
  std::string debug_path = symbolizer.debug_path(dso);
  // (the symbolizer's choice: a compressed debug file's inflated copy in sonde's cache)
  if (!debug_path.empty() && debug_path != path)
    if (auto debug = symbols::ElfImage::open(debug_path)) out.debug = std::move(*debug);
  out.dwarf = symbols::DwarfInfo::open(out.debug ? out.debug->elf() : out.code->elf());
  if (!out.dwarf && out.debug) out.dwarf = symbols::DwarfInfo::open(out.code->elf());
  out.namer = analysis::objdump_namer(*out.code, out.debug ? &*out.debug : nullptr);
  return out;
}

bool listed(const std::vector<std::string>& names, const std::string& a, const std::string& b = "") {
  return names.empty() || std::find(names.begin(), names.end(), a) != names.end() ||
         (!b.empty() && std::find(names.begin(), names.end(), b) != names.end());
}

}  // namespace

Result<void> annotate(std::FILE* out, const AnnotateOptions& options, Diagnostics& diagnostics) {
  auto session = session::Session::open(options.input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  session->set_locate_callchains(false);  // only each sample's own address counts
  symbols::Symbolizer symbolizer(options.symbolizer);
  analysis::AnnotateSamples samples(*session, symbolizer);
  if (auto processed = session->process(samples); !processed) return tl::unexpected(processed.error());
  std::vector<analysis::AnnotatedEvent> events = samples.finish();

  std::unordered_map<const session::Dso*, DsoCode> code_of;
  std::set<const session::Dso*> warned;
  output::AnnotatePrinter printer(out, options.layout);
  for (const analysis::AnnotatedEvent& event : events) {
    for (const analysis::AnnotatedSymbol& entry : event.symbols) {
      const session::Dso& dso = *entry.dso;
      if (!listed(options.symbols, entry.symbol->name) ||
          !listed(options.dsos, dso.short_name, dso.long_name))
        continue;
      if (options.percent_limit > 0 && event.total.period > 0 &&
          100.0 * static_cast<double>(entry.total.period) / static_cast<double>(event.total.period) <
              options.percent_limit)
        continue;
      auto found = code_of.find(&dso);
      if (found == code_of.end()) found = code_of.emplace(&dso, open_code(symbolizer, dso)).first;
      DsoCode& code = found->second;
      if (!code.code) {
        if (warned.insert(&dso).second)
          diagnostics.warningf("cannot annotate {} (in {}): {}", entry.symbol->name, dso.short_name,
                               code.error);
        continue;
      }
      analysis::ListedFunction function{entry.symbol->name, entry.symbol->start,
                                        entry.symbol->start + entry.symbol->size};
      auto listing =
          analysis::objdump_listing(*code.code, code.dwarf.get(), function, code.namer, options.style);
      if (!listing) {
        diagnostics.warningf("cannot annotate {}: {}", entry.symbol->name, listing.error().message);
        continue;
      }
      analysis::PerfAnnotation annotation =
          analysis::perf_annotation(listing->lines, entry.symbol->start, entry.symbol->size, entry.hits,
                                    listing->decoded_end - entry.symbol->start);
      auto srcline = [&](uint64_t address) -> std::string {
        if (!code.dwarf) return "";
        auto where = code.dwarf->line(address);
        if (!where || where->file.empty()) return "";
        return fmt::format(
            "{}:{}", options.full_paths ? where->file : std::string(path_basename(where->file)), where->line);
      };
      printer.print(annotation,
                    options.full_paths ? dso.long_name : std::string(path_basename(dso.long_name)),
                    dso.long_name, event.name, event.total, srcline);
    }
  }
  return {};
}

}  // namespace sonde::pipeline
