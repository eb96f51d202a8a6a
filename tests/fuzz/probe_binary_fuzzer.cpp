// libFuzzer target for what `sonde probe -x BINARY` reads from a binary (src/probe/): one input
// is an ELF file. It is opened as probe opens a target (ELF, symbols, DWARF found in the file
// itself: no debug directories, no debuginfod); its SDT notes are read and each turned into
// uprobe fetch-args and file offsets (USDT); then up to four of its functions are probed as
// `sonde probe -x BIN -V FUNC` and `probe -x BIN 'FUNC VAR...'` do: the probe resolver finds each
// function's sites (inline instances too), lists the variables in scope at each, and converts
// every one into a fetch-arg through its DWARF location expression, its type, and a member of
// it; and `probe -L FUNC` lists its source lines. Damaged notes, DWARF and symbols must end in
// errors, never a crash or a hang.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_input.hpp"
#include "probe/event_names.hpp"
#include "probe/line_listing.hpp"
#include "probe/probe_binary.hpp"
#include "probe/probe_resolver.hpp"
#include "probe/probe_spec.hpp"
#include "probe/sdt_notes.hpp"
#include "probe/variable_fetch.hpp"
#include "symbols/symbolizer.hpp"

using namespace sonde;

namespace {

void probe_function(probe::ProbeBinary& binary, const std::string& function, bool retprobe) {
  auto spec = probe::parse_probe_spec(retprobe ? function + "%return $retval" : function);
  if (!spec) return;
  auto probes = probe::resolve_user_probe(binary, *spec, {true, 16, false});
  if (!probes) return;
  Dwarf* dwarf = binary.dwarf();
  for (const probe::ResolvedProbe& resolved : *probes) {
    probe::FetchScope scope;
    scope.binary = &binary;
    scope.pc = resolved.vaddr;
    scope.retprobe = resolved.retprobe;
    if (dwarf && resolved.scope && dwarf_offdie(dwarf, resolved.scope, &scope.function))
      scope.has_function = true;
    std::vector<probe::ScopeVariable> variables = probe::scope_variables(scope, true);
    size_t converted = 0;
    for (const probe::ScopeVariable& variable : variables) {
      if (++converted > 8) break;
      for (std::string text : {variable.name, variable.name + ":string", variable.name + "->next",
                               variable.name + "[1]", "NAME=" + variable.name + ":x32"}) {
        auto arg = probe::parse_probe_arg(text);
        if (arg) (void)probe::convert_probe_arg(*arg, scope);
      }
    }
  }
  if (auto range = probe::parse_line_range(function)) (void)probe::list_source_lines(binary, *range, "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = fuzz::as_named_file(data, size, "sonde-probe-binary-fuzz");
  if (path.empty()) return 0;
  symbols::SymbolizerOptions options;
  options.debuginfod = false;
  options.debug_root = "/nonexistent-sonde-fuzz";
  options.buildid_dir = "/nonexistent-sonde-fuzz";
  auto opened = probe::ProbeBinary::open(path, options);
  if (!opened) return 0;
  probe::ProbeBinary& binary = **opened;
  Elf* elf = binary.image().elf();
  if (auto notes = probe::read_sdt_notes(elf)) {
    for (const probe::SdtNote& note : *notes) {
      (void)probe::sdt_fetchargs(note);
      (void)probe::sdt_probe_file_offset(elf, note);
      (void)probe::semaphore_file_offset(elf, note);
      (void)probe::sdt_event_group(note);
    }
  }
  std::vector<std::string> functions;
  for (const symbols::RawSymbol& symbol : binary.function_symbols()) {
    if (functions.size() == 4) break;
    // The program's own functions, not the C runtime's (_start, frame_dummy, *_tm_clones).
    if (symbol.name.empty() || symbol.name[0] == '_' || symbol.name == "frame_dummy" ||
        symbol.name.ends_with("_tm_clones") || !probe::is_event_name(probe::base_event_name(symbol.name)))
      continue;
    functions.push_back(symbol.name);
  }
  for (size_t i = 0; i < functions.size(); ++i) probe_function(binary, functions[i], i == 3);
  return 0;
}
