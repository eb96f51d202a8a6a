#pragma once
// A kernel side-band record (COMM, FORK, EXIT, MMAP, MMAP2, LOST) applied to a Machine: how a
// file's replay and a live trace's capture of the traced tasks keep their threads and maps.
#include <string_view>

#include "format/record_view.hpp"
#include "session/machine.hpp"
#include "session/session.hpp"

namespace sonde::session {

void apply_side_band(Machine& machine, const perfdata::RecordView& record, SessionStats& stats);
// Every record of `records`, kernel format back to back (a synthesized side-band), applied in turn.
void apply_side_band_records(Machine& machine, std::string_view records, SessionStats& stats);

}  // namespace sonde::session
