#include "pipeline/trace_symbols.hpp"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <cstring>

#include "capture/record_sideband.hpp"
#include "format/record_view.hpp"
#include "kernel/bpf/syscall_trace_event.h"
#include "session/side_band.hpp"
#include "symbols/unwound_frames.hpp"

namespace sonde::pipeline {

namespace {

perf_event_attr tracking_attr(bool from_exec, bool data_maps) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  attr.sample_id_all = 1;
  attr.mmap = attr.mmap2 = attr.comm = attr.comm_exec = attr.task = 1;
  attr.mmap_data = data_maps ? 1 : 0;
  attr.inherit = 1;
  attr.disabled = 1;
  attr.enable_on_exec = from_exec ? 1 : 0;
  return attr;
}

}  // namespace

TraceSymbols::~TraceSymbols() = default;

Result<std::unique_ptr<TraceSymbols>> TraceSymbols::open(const capture::SamplingTarget& target,
                                                         bool from_exec, bool data_maps) {
  std::unique_ptr<TraceSymbols> symbols(new TraceSymbols());
  perf_event_attr attr = tracking_attr(from_exec, data_maps);
  auto session = capture::SamplingSession::open({attr}, {""}, target, 64);
  if (!session) return tl::unexpected(session.error().with_context("following the traced tasks' maps"));
  symbols->capture_.emplace(std::move(*session));
  // The kernel's maps and those of tasks that exist already, as a recording starts with them.
  auto synthesized = capture::synthesize_record_sideband(attr, target, data_maps);
  if (!synthesized) return tl::unexpected(synthesized.error());
  session::apply_side_band_records(symbols->machine_, *synthesized, symbols->stats_);
  symbols->symbolizer_ = std::make_unique<symbols::Symbolizer>(symbols::SymbolizerOptions{});
  return symbols;
}

Result<void> TraceSymbols::enable() { return capture_->enable(); }

void TraceSymbols::update() {
  capture_->drain([this](const void* data, size_t size) {
    if (size >= sizeof(perf_event_header))
      session::apply_side_band(machine_, perfdata::record_view_at(data, size), stats_);
  });
}

AddressPlace TraceSymbols::place(pid_t pid, pid_t tid, uint64_t address, bool kernel) {
  AddressPlace place;
  place.kernel = kernel;
  session::Thread& thread = machine_.thread(pid, tid);
  session::Location location =
      machine_.locate(thread, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, address);
  if (location.dso == nullptr) return place;
  place.dso = location.dso;
  place.dso_address = location.dso_address;
  if (location.map != nullptr) {
    place.map_offset = address - location.map->start;
    place.executable = (location.map->prot & 4) != 0;
  }
  place.symbol = symbolizer_->find(*location.dso, location.dso_address);
  if (place.symbol != nullptr) place.symbol_offset = location.dso_address - place.symbol->start;
  return place;
}

std::vector<TraceSymbols::Frame> TraceSymbols::unwind(pid_t pid, pid_t tid, std::span<const uint64_t> regs,
                                                      std::span<const uint8_t> stack) {
  std::vector<Frame> frames;
  if (regs.size() < SONDE_TRACE_DWARF_REGS) return frames;
  if (!unwinder_)
    unwinder_ = std::make_unique<unwind::DwarfUnwinder>(
        [this](const session::Dso& dso) { return symbolizer_->elf_path(dso); });
  // The registers as perf_event dumps them: bits ax..ip (0-8) and r8..r15 (16-23), in bit order.
  perfdata::Sample sample;
  sample.pid = static_cast<uint32_t>(pid);
  sample.tid = static_cast<uint32_t>(tid);
  sample.regs_user.abi = PERF_SAMPLE_REGS_ABI_64;
  sample.regs_user.mask = 0x1ffull | (0xffull << 16);
  sample.regs_user.values.bytes =
      Bytes(reinterpret_cast<const uint8_t*>(regs.data()), SONDE_TRACE_DWARF_REGS * 8);
  sample.stack_user = stack;
  sample.stack_user_dyn_size = stack.size();
  sample.ip = regs[8];
  session::Thread& thread = machine_.thread(pid, tid);
  std::vector<session::Location> locations;
  unwinder_->unwind(machine_, thread, sample, locations);
  for (const session::Location& location : locations) {
    AddressPlace where = place(pid, tid, location.ip, false);
    auto names = location.dso != nullptr
                     ? symbols::unwound_frames(*symbolizer_, *location.dso, location.dso_address)
                     : std::vector<symbols::UnwoundFrame>{};
    if (names.empty()) {
      frames.push_back({where, "", false});
      continue;
    }
    for (auto& name : names) frames.push_back({where, std::move(name.function), name.inlined});
  }
  return frames;
}

}  // namespace sonde::pipeline
