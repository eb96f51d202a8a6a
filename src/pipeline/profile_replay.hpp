#pragma once
// The replay the profile writers share (data convert's pprof, speedscope, Chrome and Firefox
// outputs; report --html): frames named as report names them, DWARF-unwound user frames
// included, the raw callchains placed by the writer itself (ProfileLocations).
#include <memory>
#include <string>
#include <string_view>

#include "base/diagnostics.hpp"
#include "base/error.hpp"
#include "output/script/script_symbols.hpp"
#include "session/session.hpp"
#include "unwind/dwarf_unwinder.hpp"

namespace sonde::pipeline {

struct ProfileReplay {
  ProfileReplay(session::Session opened, const output::ScriptSymbolOptions& options,
                std::string_view progress);
  session::Session session;
  output::ScriptSymbols symbols;
  unwind::DwarfUnwinder unwinder;
};

// `progress` labels the progress line shown on a terminal ("Converting").
Result<std::unique_ptr<ProfileReplay>> open_profile_replay(const std::string& input,
                                                           const output::ScriptSymbolOptions& options,
                                                           Diagnostics& diagnostics,
                                                           std::string_view progress);

}  // namespace sonde::pipeline
