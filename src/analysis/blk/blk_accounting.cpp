#include "analysis/blk/blk_accounting.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <list>

namespace sonde::analysis {

using format::BlkTrace;

namespace {

void add_amount(BlkAmount& into, const BlkAmount& from) {
  into.count += from.count;
  into.kib += from.kib;
  into.bytes += from.bytes;
}

void count_bytes(BlkAmount& amount, uint32_t bytes) {
  ++amount.count;
  amount.kib += bytes >> 10;
  amount.bytes += bytes & 1023;
}

// A requeue takes its bytes back from the dispatched amount, below zero if it must (as blkparse).
void uncount_bytes(BlkAmount& amount, uint32_t bytes) {
  amount.kib -= bytes >> 10;
  amount.bytes -= bytes & 1023;
}

// blkparse 1.2 merges and prints only plain messages; one with a cgroup id (the 0x100 flag newer
// kernels set) is read past like the other notes.
bool is_message(uint32_t action) {
  return action == (format::blk_category(format::kBlkNotify) | format::kBlkNoteMessage);
}

}  // namespace

void BlkIoStats::add(const BlkIoStats& other) {
  for (int w = 0; w < 2; ++w) {
    add_amount(queued[w], other.queued[w]);
    add_amount(dispatched[w], other.dispatched[w]);
    add_amount(completed[w], other.completed[w]);
    add_amount(merged[w], other.merged[w]);
    requeued[w] += other.requeued[w];
    add_amount(queued_pc[w], other.queued_pc[w]);
    add_amount(dispatched_pc[w], other.dispatched_pc[w]);
    requeued_pc[w] += other.requeued_pc[w];
    completed_pc[w] += other.completed_pc[w];
  }
  io_unplugs += other.io_unplugs;
  timer_unplugs += other.timer_unplugs;
}

bool BlkIoStats::has_pc() const {
  for (int w = 0; w < 2; ++w)
    if (queued_pc[w].count || dispatched_pc[w].count || requeued_pc[w] || completed_pc[w]) return true;
  return false;
}

void BlkAccounting::learn_name(uint32_t pid, std::string_view comm) {
  names_.try_emplace(pid, comm.substr(0, comm.find('\0')));
}

size_t BlkAccounting::add_input(std::string label) {
  inputs_.emplace_back().summary.label = std::move(label);
  return inputs_.size() - 1;
}

BlkCpuSummary& BlkAccounting::cpu_summary(InputState& input, int cpu) {
  if (static_cast<size_t>(cpu) >= input.cpus.size()) input.cpus.resize(cpu + 1);
  auto& slot = input.cpus[cpu];
  if (!slot) {
    slot.emplace();
    slot->cpu = cpu;
  }
  return *slot;
}

std::optional<BlkParsedTrace> BlkAccounting::account(size_t input_index, int cpu, const BlkTrace& trace,
                                                     uint64_t time) {
  InputState& input = inputs_[input_index];
  BlkInputSummary& summary = input.summary;
  BlkCpuSummary& cpu_stats = cpu_summary(input, cpu);
  ++cpu_stats.records;
  summary.last_time = time;
  if (!blk_trace_is_printed(trace)) return std::nullopt;
  if (!summary.any_printed) {
    summary.any_printed = true;
    summary.first_time = time;
  }
  ++summary.events;

  BlkIoStats& stats = cpu_stats.stats;
  int w = (trace.action & format::blk_category(format::kBlkWrite)) ? 1 : 0;
  auto depth_up = [&] {
    ++input.depth[w];
    summary.max_depth[w] = std::max(summary.max_depth[w], input.depth[w]);
  };
  auto depth_down = [&] {
    if (input.depth[w] > 0) --input.depth[w];
  };
  uint32_t action = trace.action_number();
  if (is_message(trace.action)) {
    // printed as a message; no counter
  } else if (trace.action & format::blk_category(format::kBlkPc)) {
    switch (action) {
      case format::kBlkQueueAction:
        ++stats.queued_pc[w].count;
        // blkparse adds a PC read's KiB to the plain reads' queued KiB.
        (w ? stats.queued_pc[1].kib : stats.queued[0].kib) += trace.bytes >> 10;
        stats.queued_pc[w].bytes += trace.bytes & 1023;
        break;
      case format::kBlkIssueAction:
        count_bytes(stats.dispatched_pc[w], trace.bytes);
        depth_up();
        break;
      case format::kBlkCompleteAction:
        ++stats.completed_pc[w];
        depth_down();
        break;
      case format::kBlkRequeueAction:
        ++stats.requeued_pc[w];
        uncount_bytes(stats.dispatched_pc[w], trace.bytes);
        depth_down();
        break;
      default:
        break;
    }
  } else {
    switch (action) {
      case format::kBlkQueueAction:
        count_bytes(stats.queued[w], trace.bytes);
        break;
      case format::kBlkBackMerge:
      case format::kBlkFrontMerge:
        count_bytes(stats.merged[w], trace.bytes);
        break;
      case format::kBlkIssueAction:
        count_bytes(stats.dispatched[w], trace.bytes);
        depth_up();
        break;
      case format::kBlkCompleteAction:
        depth_down();
        count_bytes(stats.completed[w], trace.bytes);
        break;
      case format::kBlkRequeueAction:
        depth_down();
        ++stats.requeued[w];
        uncount_bytes(stats.dispatched[w], trace.bytes);
        break;
      case format::kBlkUnplugIo:
        ++stats.io_unplugs;
        break;
      case format::kBlkUnplugTimer:
        ++stats.timer_unplugs;
        break;
      case format::kBlkDriverDataAction:
        saw_driver_data_ = true;
        break;
      default:
        break;
    }
  }
  std::optional<std::string_view> name;
  if (auto found = names_.find(trace.pid); found != names_.end()) name = found->second;
  return BlkParsedTrace{trace, cpu, time, name};
}

BlkParseResult BlkAccounting::result() const {
  BlkParseResult result;
  result.saw_driver_data = saw_driver_data_;
  for (const InputState& input : inputs_) {
    BlkInputSummary summary = input.summary;
    for (const auto& cpu : input.cpus)
      if (cpu && cpu->records) summary.cpus.push_back(*cpu);
    result.inputs.push_back(std::move(summary));
  }
  return result;
}

Result<bool> BlkTraceList::next(BlkTrace& trace) {
  if (next_ >= traces_.size()) return false;
  trace = std::move(traces_[next_++]);
  return true;
}

namespace {

struct BlkStream {
  size_t input = 0;
  int cpu = 0;
  BlkTraceSource* source = nullptr;
  BlkTrace head;
  uint64_t head_time() const { return head.time; }
};

// blkparse's ordered list of streams: one earlier than the head goes first; otherwise after the
// last stream whose head is earlier, so equal times keep the order they came in behind the head.
void insert_stream(std::list<BlkStream>& streams, std::list<BlkStream>::iterator stream,
                   std::list<BlkStream>& from) {
  uint64_t time = stream->head_time();
  if (streams.empty() || time < streams.front().head_time()) {
    streams.splice(streams.begin(), from, stream);
    return;
  }
  auto at = streams.begin();
  while (std::next(at) != streams.end() && std::next(at)->head_time() < time) ++at;
  streams.splice(std::next(at), from, stream);
}

// Moves the stream to its next trace to merge: names learned from process notes on the way, other
// notes but messages read past, a trace filed under another CPU dropped (blkparse's complaint).
Result<bool> advance(BlkStream& stream, BlkAccounting& accounting, const BlkWarning& on_warning) {
  while (true) {
    auto got = stream.source->next(stream.head);
    if (!got || !*got) return got;
    const BlkTrace& trace = stream.head;
    if (trace.is_note() && !is_message(trace.action)) {
      if (trace.action == (format::blk_category(format::kBlkNotify) | format::kBlkNoteProcess))
        accounting.learn_name(trace.pid, trace.pdu);
      continue;
    }
    if (trace.cpu != static_cast<uint32_t>(stream.cpu)) {
      on_warning(fmt::format("cpu {} trace info has error cpu {}", stream.cpu, trace.cpu));
      continue;
    }
    return true;
  }
}

}  // namespace

Result<BlkParseResult> parse_blk_inputs(std::vector<BlkInput>& inputs,
                                        const std::function<void(const BlkParsedTrace&)>& on_trace,
                                        const BlkWarning& on_warning) {
  BlkAccounting accounting(on_warning);
  std::list<BlkStream> streams, pending;
  for (size_t i = 0; i < inputs.size(); ++i) {
    accounting.add_input(inputs[i].label);
    for (size_t cpu = 0; cpu < inputs[i].cpus.size(); ++cpu) {
      if (!inputs[i].cpus[cpu]) continue;
      pending.push_back(BlkStream{i, static_cast<int>(cpu), inputs[i].cpus[cpu].get(), {}});
      auto primed = advance(pending.back(), accounting, on_warning);
      if (!primed) return tl::unexpected(primed.error());
      if (*primed)
        insert_stream(streams, std::prev(pending.end()), pending);
      else
        pending.pop_back();
    }
  }
  uint64_t genesis = streams.empty() ? 0 : streams.front().head_time();
  while (!streams.empty()) {
    BlkStream& head = streams.front();
    if (auto printed = accounting.account(head.input, head.cpu, head.head, head.head.time - genesis))
      on_trace(*printed);
    auto more = advance(head, accounting, on_warning);
    if (!more) return tl::unexpected(more.error());
    if (!*more) {
      streams.pop_front();
      continue;
    }
    if (streams.size() > 1 && head.head_time() > std::next(streams.begin())->head_time()) {
      pending.splice(pending.end(), streams, streams.begin());  // out, then in at its place
      insert_stream(streams, std::prev(pending.end()), pending);
    }
  }
  return accounting.result();
}

}  // namespace sonde::analysis
