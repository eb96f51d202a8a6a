// libFuzzer target for the probe grammars (src/probe/): one input is a line of text, read as
// `sonde probe` reads its arguments: a probe definition ([[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFFS|
// %return|;PTN] [ARG ...], SRC:ALN, %sdt_PROVIDER:NAME), a lone argument (NAME=VAR->field[1]:TYPE,
// $retval, +8(%di)), a --line range (FUNC[@SRC][:START[-END|+COUNT]]), an SDT note's argument
// ("-4@%edi", "8@-8(%rbp,%rax,4)") turned into a uprobe fetch-arg, and a lazy-line pattern
// matched against the input's second half. Errors are expected; crashes and hangs are not, and
// a definition that parses names its function, file, address or SDT event.
#include <cstdint>
#include <string>

#include "fuzz_input.hpp"
#include "probe/event_names.hpp"
#include "probe/probe_resolver.hpp"
#include "probe/probe_spec.hpp"
#include "probe/sdt_notes.hpp"

using namespace sonde;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  if (auto spec = probe::parse_probe_spec(text)) {
    const probe::ProbePoint& point = spec->point;
    fuzz::require(spec->sdt || !point.function.empty() || !point.file.empty() || point.address.has_value(),
                  "probe_spec", "a probe point with neither function, file nor address");
    for (const probe::ProbeArg& arg : spec->args) (void)probe::field_name(arg);
    if (!point.function.empty()) (void)probe::base_event_name(point.function);
  }
  if (auto arg = probe::parse_probe_arg(text)) (void)probe::field_name(*arg);
  (void)probe::parse_line_range(text);
  (void)probe::is_event_name(text);
  (void)probe::is_glob_pattern(text);
  (void)probe::default_user_group(text);
  std::string why;
  (void)probe::sdt_argument_to_fetcharg(text, &why);
  size_t half = text.size() / 2;
  (void)probe::lazy_match(text.substr(0, half), text.substr(half));
  return 0;
}
