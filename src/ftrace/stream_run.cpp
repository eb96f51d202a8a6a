#include "ftrace/stream_run.hpp"

#include "ftrace/buffer_stats.hpp"
#include "ftrace/trace_metadata.hpp"
#include "ftrace/traced_command.hpp"

namespace sonde::ftrace {

namespace {
// How long events may wait in the buffer before they are printed.
constexpr int kRoundMilliseconds = 100;
}  // namespace

Result<int> stream_ftrace(capture::BlockedSignals& signals, const TracingRequest& request,
                          const std::vector<std::string>& command, Diagnostics& diagnostics,
                          const std::function<void(LocalTep&, const LiveEvent&)>& on_event) {
  auto traced = TracedCommand::prepare(command);
  if (!traced) return tl::unexpected(traced.error());
  auto session = TracingSession::set_up(request, diagnostics);
  if (!session) return tl::unexpected(session.error());
  const Instance& instance = (*session)->instance();
  auto cpus = buffer_cpus(instance);
  if (!cpus) return tl::unexpected(cpus.error());
  // Tracing starts before the formatting handle is built (kallsyms takes a moment to parse):
  // the buffers hold what happens meanwhile.
  if (auto started = (*session)->start(); !started) return tl::unexpected(started.error());
  auto metadata = read_trace_metadata(instance, (*session)->events(), *cpus);
  if (!metadata) return tl::unexpected(metadata.error());
  auto tep = LocalTep::build(*metadata, instance.root() + "/saved_cmdlines");
  if (!tep) return tl::unexpected(tep.error());
  auto reader = LiveReader::open(instance, *cpus, metadata->page_size);
  if (!reader) return tl::unexpected(reader.error());

  auto deliver = [&](const LiveEvent& event) { on_event(**tep, event); };
  auto stop_signal = traced->start(signals);
  if (!stop_signal) return tl::unexpected(stop_signal.error());
  while (stop_signal->number == 0) {
    if (auto round = (*reader)->read_round(kRoundMilliseconds, deliver); !round)
      return tl::unexpected(round.error());
    if (traced->ended()) break;
    auto received = signals.poll();
    if (capture::is_stop_request(received.number)) *stop_signal = received;
  }
  (*session)->stop();
  int status = traced->finish(*stop_signal);
  // What the buffers still hold after tracing stopped.
  if (auto round = (*reader)->read_round(0, deliver); !round) return tl::unexpected(round.error());
  reader->reset();
  auto failures = (*session)->tear_down();
  if (!failures.empty()) return tl::unexpected(failures.front());
  return status;
}

}  // namespace sonde::ftrace
