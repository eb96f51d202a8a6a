#include "session/side_band.hpp"

#include <cstring>

#include "format/build_ids.hpp"
#include "perfdata/kernel_records.hpp"

namespace sonde::session {

namespace {

constexpr uint32_t kProtExec = 4;  // PROT_EXEC: MMAP records only announce executable maps

}  // namespace

void apply_side_band(Machine& machine, const perfdata::RecordView& record, SessionStats& stats) {
  switch (record.type()) {
    case PERF_RECORD_COMM:
      if (auto comm = perfdata::CommRecord::decode(record)) machine.apply_comm(*comm);
      break;
    case PERF_RECORD_FORK:
      if (auto fork = perfdata::ForkExitRecord::decode(record)) machine.apply_fork(*fork);
      break;
    case PERF_RECORD_EXIT:
      if (auto exit = perfdata::ForkExitRecord::decode(record)) machine.apply_exit(*exit);
      break;
    case PERF_RECORD_MMAP:
      if (auto mmap = perfdata::MmapRecord::decode(record)) {
        machine.apply_mmap(static_cast<int32_t>(mmap->pid), static_cast<int32_t>(mmap->tid), mmap->addr,
                           mmap->len, mmap->pgoff, mmap->filename, kProtExec, 0, record.cpumode(), {});
      }
      break;
    case PERF_RECORD_MMAP2:
      if (auto mmap = perfdata::Mmap2Record::decode(record)) {
        std::string build_id =
            mmap->has_build_id
                ? format::build_id_hex(std::span<const uint8_t>(mmap->build_id, mmap->build_id_size))
                : std::string();
        machine.apply_mmap(static_cast<int32_t>(mmap->pid), static_cast<int32_t>(mmap->tid), mmap->addr,
                           mmap->len, mmap->pgoff, mmap->filename, mmap->prot, mmap->flags, record.cpumode(),
                           build_id, mmap->has_build_id ? 0 : mmap->ino);
      }
      break;
    case PERF_RECORD_LOST:
      if (auto lost = perfdata::LostRecord::decode(record)) stats.lost_events += lost->lost;
      break;
    case PERF_RECORD_LOST_SAMPLES:
      if (auto lost = perfdata::LostSamplesRecord::decode(record)) stats.lost_samples += lost->lost;
      break;
    default:
      break;
  }
}

void apply_side_band_records(Machine& machine, std::string_view records, SessionStats& stats) {
  while (records.size() >= sizeof(perf_event_header)) {
    perf_event_header header;
    std::memcpy(&header, records.data(), sizeof header);
    if (header.size < sizeof header || header.size > records.size()) break;
    apply_side_band(machine, perfdata::record_view_at(records.data(), header.size), stats);
    records.remove_prefix(header.size);
  }
}

}  // namespace sonde::session
