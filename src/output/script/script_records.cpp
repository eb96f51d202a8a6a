#include "output/script/script_records.hpp"

#include <sys/mman.h>

#include "format/build_ids.hpp"
#include "format/perf_format.hpp"
#include "perfdata/kernel_records.hpp"

namespace sonde::output {

std::string_view perf_record_name(uint32_t type) {
  switch (type) {
    case perfdata::PERF_RECORD_HEADER_ATTR:
      return "ATTR";
    case perfdata::PERF_RECORD_HEADER_EVENT_TYPE:
      return "EVENT_TYPE";
    case perfdata::PERF_RECORD_HEADER_TRACING_DATA:
      return "TRACING_DATA";
    case perfdata::PERF_RECORD_HEADER_BUILD_ID:
      return "BUILD_ID";
    case perfdata::PERF_RECORD_HEADER_FEATURE:
      return "FEATURE";
    default:
      return perfdata::record_type_name(type);
  }
}

namespace {

void append_mmap_range(fmt::memory_buffer& out, uint64_t addr, uint64_t len, uint64_t pgoff) {
  out.push_back('[');
  append_c_alt_hex(out, addr);
  out.push_back('(');
  append_c_alt_hex(out, len);
  out.append(std::string_view(") @ "));
  append_c_alt_hex(out, pgoff);
}

void append_prot(fmt::memory_buffer& out, uint32_t prot, uint32_t flags) {
  out.push_back(prot & PROT_READ ? 'r' : '-');
  out.push_back(prot & PROT_WRITE ? 'w' : '-');
  out.push_back(prot & PROT_EXEC ? 'x' : '-');
  out.push_back(flags & MAP_SHARED ? 's' : 'p');
}

}  // namespace

void append_text_poke_text(const perfdata::TextPokeRecord& poke, std::string_view symbol_offset,
                           fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  fmt::format_to(it, " {:x} {} old len {} new len {}\n", poke.addr, symbol_offset, poke.old_bytes.size(),
                 poke.new_bytes.size());
  auto lines = [&](std::string_view label, Bytes bytes) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (i % 16 == 0) fmt::format_to(it, "            {} bytes:", label);
      fmt::format_to(it, " {:02x}", bytes[i]);
      if (i % 16 == 15 || i + 1 == bytes.size()) out.push_back('\n');
    }
  };
  lines("Old", poke.old_bytes);
  lines("New", poke.new_bytes);
}

void append_record_text(const perfdata::RecordView& record, fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  fmt::format_to(it, "PERF_RECORD_{}", perf_record_name(record.type()));
  switch (record.type()) {
    case PERF_RECORD_COMM:
      if (auto comm = perfdata::CommRecord::decode(record)) {
        fmt::format_to(it, "{}: {}:{}/{}\n", comm->exec ? " exec" : "", comm->comm,
                       static_cast<int32_t>(comm->pid), static_cast<int32_t>(comm->tid));
        return;
      }
      break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      if (auto task = perfdata::ForkExitRecord::decode(record)) {
        fmt::format_to(it, "({}:{}):({}:{})\n", static_cast<int32_t>(task->pid),
                       static_cast<int32_t>(task->tid), static_cast<int32_t>(task->ppid),
                       static_cast<int32_t>(task->ptid));
        return;
      }
      break;
    case PERF_RECORD_MMAP:
      if (auto mmap = perfdata::MmapRecord::decode(record)) {
        fmt::format_to(it, " {}/{}: ", static_cast<int32_t>(mmap->pid), static_cast<int32_t>(mmap->tid));
        append_mmap_range(out, mmap->addr, mmap->len, mmap->pgoff);
        fmt::format_to(fmt::appender(out), "]: {} {}\n",
                       (record.misc() & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x', mmap->filename);
        return;
      }
      break;
    case PERF_RECORD_MMAP2:
      if (auto mmap = perfdata::Mmap2Record::decode(record)) {
        fmt::format_to(it, " {}/{}: ", static_cast<int32_t>(mmap->pid), static_cast<int32_t>(mmap->tid));
        append_mmap_range(out, mmap->addr, mmap->len, mmap->pgoff);
        if (mmap->has_build_id) {
          out.append(std::string_view(" <"));
          out.append(std::string_view(
              format::build_id_hex(std::span<const uint8_t>(mmap->build_id, mmap->build_id_size))));
          out.push_back('>');
        } else {
          fmt::format_to(fmt::appender(out), " {:02x}:{:02x} {} {}", mmap->maj, mmap->min, mmap->ino,
                         mmap->ino_generation);
        }
        out.append(std::string_view("]: "));
        append_prot(out, mmap->prot, mmap->flags);
        fmt::format_to(fmt::appender(out), " {}\n", mmap->filename);
        return;
      }
      break;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      if (auto sw = perfdata::SwitchRecord::decode(record)) {
        std::string_view in_out = !sw->out ? "IN         " : !sw->preempt ? "OUT        " : "OUT preempt";
        if (!sw->cpu_wide) {
          fmt::format_to(it, " {}\n", in_out);
        } else {
          fmt::format_to(it, " {}  {} pid/tid: {:5}/{:<5}\n", in_out, sw->out ? "next" : "prev",
                         static_cast<int32_t>(sw->next_prev_pid), static_cast<int32_t>(sw->next_prev_tid));
        }
        return;
      }
      break;
    case PERF_RECORD_LOST:
      if (auto lost = perfdata::LostRecord::decode(record)) {
        fmt::format_to(it, " lost {}\n", lost->lost);
        return;
      }
      break;
    case PERF_RECORD_NAMESPACES:
      if (auto namespaces = perfdata::NamespacesRecord::decode(record)) {
        // perf's names by index, four to a line.
        static constexpr const char* kNames[] = {"net", "uts", "ipc", "pid", "user", "mnt", "cgroup"};
        const auto& links = namespaces->links;
        fmt::format_to(it, " {}/{} - nr_namespaces: {}\n\t\t[", static_cast<int32_t>(namespaces->pid),
                       static_cast<int32_t>(namespaces->tid), links.size());
        for (size_t i = 0; i < links.size(); ++i) {
          if (i && i % 4 == 0) out.append(std::string_view("\n\t\t "));
          fmt::format_to(fmt::appender(out), "{}/{}: {}/{:#x}{}", i,
                         i < std::size(kNames) ? kNames[i] : "UNKNOWN", links[i].first, links[i].second,
                         i + 1 != links.size() ? ", " : "]\n");
        }
        if (links.empty()) out.append(std::string_view("\n"));
        return;
      }
      break;
    case PERF_RECORD_CGROUP:
      if (auto cgroup = perfdata::CgroupRecord::decode(record)) {
        fmt::format_to(it, " cgroup: {} {}\n", cgroup->id, cgroup->path);
        return;
      }
      break;
    case PERF_RECORD_KSYMBOL:
      if (auto ksym = perfdata::KsymbolRecord::decode(record)) {
        fmt::format_to(it, " addr {:x} len {} type {} flags {:#x} name {}\n", ksym->addr, ksym->len,
                       ksym->ksym_type, ksym->flags, ksym->name);
        return;
      }
      break;
    case PERF_RECORD_BPF_EVENT:
      if (auto bpf = perfdata::BpfEventRecord::decode(record)) {
        fmt::format_to(it, " type {}, flags {}, id {}\n", bpf->type, bpf->flags, bpf->id);
        return;
      }
      break;
    default:
      break;
  }
  out.push_back('\n');
}

}  // namespace sonde::output
