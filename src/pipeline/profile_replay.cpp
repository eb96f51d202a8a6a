#include "pipeline/profile_replay.hpp"

#include <linux/perf_event.h>

#include "pipeline/script_run.hpp"

namespace sonde::pipeline {

ProfileReplay::ProfileReplay(session::Session opened, const output::ScriptSymbolOptions& options,
                             std::string_view progress)
    : session(std::move(opened)),
      symbols(options),
      unwinder([this](const session::Dso& dso) { return symbols.elf_path(dso); }, kernel_max_stack()) {
  session.show_progress(std::string(progress));
  bool dwarf = false;
  for (const auto& event : session.reader().attrs().events())
    dwarf |= (event.attr.sample_type & PERF_SAMPLE_STACK_USER) != 0;
  if (dwarf) session.set_unwinder(&unwinder);
  session.set_locate_callchains(false);
}

Result<std::unique_ptr<ProfileReplay>> open_profile_replay(const std::string& input,
                                                           const output::ScriptSymbolOptions& options,
                                                           Diagnostics& diagnostics,
                                                           std::string_view progress) {
  auto session = session::Session::open(input, diagnostics);
  if (!session) return tl::unexpected(session.error());
  return std::make_unique<ProfileReplay>(std::move(*session), options, progress);
}

}  // namespace sonde::pipeline
