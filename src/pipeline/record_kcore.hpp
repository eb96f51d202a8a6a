#pragma once
// record --kcore: the recording becomes a directory, as perf 6.1 writes it — DIR/data (the
// perf.data file) and DIR/kcore_dir/ with the kernel's code copied from /proc/kcore beside
// kallsyms and modules (kernel/kcore_copy) — and one more event records where the kernel patches
// its own text while it runs (TEXT_POKE records, and KSYMBOL for code it adds).
#include <string>

#include "base/error.hpp"
#include "events/event_spec.hpp"

namespace sonde::pipeline {

// Fails with perf's reason ("kcore is not readable") before anything is written.
Result<void> check_kcore_readable();

// Makes DIR for a new recording, the previous one (a file or perf's directory) kept as DIR.old as
// perf keeps it; returns the path of the perf.data file inside, DIR/data.
Result<std::string> make_recording_directory(const std::string& directory);

// Copies the kernel's code into DIR/kcore_dir (after the events are open, as perf does).
Result<void> copy_kcore_into(const std::string& directory);

// perf's "dummy:u" of --kcore: every CPU's TEXT_POKE and KSYMBOL records, from the start.
events::EventSpec text_poke_event();

}  // namespace sonde::pipeline
