#pragma once
// A kernel side-band record (COMM, FORK, EXIT, MMAP, MMAP2, LOST) applied to a Machine: how a
// file's replay and a live trace's capture of the traced tasks keep their threads and maps.
#include "format/record_view.hpp"
#include "session/machine.hpp"
#include "session/session.hpp"

namespace sonde::session {

void apply_side_band(Machine& machine, const perfdata::RecordView& record, SessionStats& stats);

}  // namespace sonde::session
