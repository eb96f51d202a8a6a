#include "output/perf_header.hpp"

#include <sys/stat.h>

#include <ctime>
#include <string_view>
#include <utility>

#include "format/perf_format.hpp"
#include "kernel/cpus.hpp"
#include "output/script/script_records.hpp"
#include "perfdata/perf_records.hpp"

namespace sonde::output {

namespace {

// perf's name for a clock id (its -k table's first name).
const char* clock_name(uint32_t clockid) {
  switch (clockid) {
    case CLOCK_MONOTONIC:
      return "monotonic";
    case CLOCK_MONOTONIC_RAW:
      return "monotonic_raw";
    case CLOCK_REALTIME:
      return "realtime";
    case CLOCK_BOOTTIME:
      return "boottime";
    case CLOCK_TAI:
      return "tai";
    default:
      return "(unknown)";
  }
}

// CLOCK_DATA: the clock and the reference point tying it to the wall clock, as perf prints them.
template <typename It>
void print_clock_data(const perfdata::ClockData& clock, It it) {
  auto tod_sec = static_cast<time_t>(clock.tod_ns / 1000000000u);
  auto tod_usec = (clock.tod_ns % 1000000000u) / 1000;
  std::tm local{};
  ::localtime_r(&tod_sec, &local);
  char date[64];
  std::strftime(date, sizeof date, "%F %T", &local);
  fmt::format_to(it, "# clockid: {} ({})\n", clock_name(clock.clockid), clock.clockid);
  fmt::format_to(it, "# reference time: {}.{:06} = {}.{:06} (TOD) = {}.{:09} ({})\n", date, tod_usec, tod_sec,
                 tod_usec, clock.clockid_ns / 1000000000u, clock.clockid_ns % 1000000000u,
                 clock_name(clock.clockid));
}

using BitNames = std::initializer_list<std::pair<uint64_t, std::string_view>>;

void append_bits(fmt::memory_buffer& out, uint64_t value, BitNames names) {
  bool first = true;
  for (const auto& [bit, name] : names) {
    if (!(value & bit)) continue;
    if (!first) out.push_back('|');
    out.append(name);
    first = false;
  }
}

std::string usec_time(uint64_t ns) {
  return fmt::format("{}.{:06}", ns / 1000000000ull, ns % 1000000000ull / 1000);
}

// perf's unit_number__scnprintf: divided by 1024 while more than 2 KiB of the unit remain.
std::string unit_number(uint64_t n) {
  const char units[] = "BKMG";
  int unit = 0;
  while (n / 1024 > 1 && unit < 3) {
    n /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", n, units[unit]);
}

// A kernel CPU list ("0-1", "0,2-3") as perf reprints it after reading it into a map.
std::string reprinted_cpu_list(const std::string& text) {
  auto cpus = kernel::parse_cpu_list(text);
  if (!cpus) return text;
  return perfdata::cpu_list_text(std::vector<int32_t>(cpus->begin(), cpus->end()));
}

void append_cpu_topology(const perfdata::CpuTopology& topology, fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  for (const std::string& cpus : topology.package_cpus) fmt::format_to(it, "# sibling sockets : {}\n", cpus);
  for (const std::string& cpus : topology.die_cpus) fmt::format_to(it, "# sibling dies    : {}\n", cpus);
  for (const std::string& cpus : topology.core_cpus) fmt::format_to(it, "# sibling threads : {}\n", cpus);
  bool dies = !topology.die_cpus.empty();
  if (topology.cpus.empty()) {
    out.append(dies ? std::string_view("# Core ID, Die ID and Socket ID information is not available\n")
                    : std::string_view("# Core ID and Socket ID information is not available\n"));
    return;
  }
  for (size_t cpu = 0; cpu < topology.cpus.size(); ++cpu) {
    // perf keeps the ids as int: an offline CPU's -1 prints as -1.
    const auto& ids = topology.cpus[cpu];
    if (dies)
      fmt::format_to(it, "# CPU {}: Core ID {}, Die ID {}, Socket ID {}\n", cpu,
                     static_cast<int32_t>(ids.core_id), static_cast<int32_t>(ids.die_id),
                     static_cast<int32_t>(ids.socket_id));
    else
      fmt::format_to(it, "# CPU {}: Core ID {}, Socket ID {}\n", cpu, static_cast<int32_t>(ids.core_id),
                     static_cast<int32_t>(ids.socket_id));
  }
}

void append_memory_topology(const perfdata::MemoryTopology& topology, fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  fmt::format_to(it, "# memory nodes (nr {}, block size {:#x}):\n", topology.nodes.size(),
                 topology.block_size);
  for (const auto& node : topology.nodes) {
    std::vector<int32_t> blocks;
    for (uint64_t bit = 0; bit < node.block_count && bit < node.blocks.size() * 64; ++bit)
      if (node.blocks[bit / 64] >> (bit % 64) & 1) blocks.push_back(static_cast<int32_t>(bit));
    fmt::format_to(it, "#  {:3} [{}]: {}\n", node.node, unit_number(topology.block_size * blocks.size()),
                   perfdata::cpu_list_text(blocks));
  }
}

// -I's full text of the features perf otherwise only names; false when it has none.
bool append_full_info(const perfdata::FeatureSet& f, int feature, fmt::memory_buffer& out) {
  auto it = fmt::appender(out);
  switch (feature) {
    case perfdata::HEADER_CPU_TOPOLOGY:
      if (!f.cpu_topology) return false;
      append_cpu_topology(*f.cpu_topology, out);
      return true;
    case perfdata::HEADER_NUMA_TOPOLOGY:
      if (!f.numa_nodes) return false;
      for (const auto& node : *f.numa_nodes) {
        fmt::format_to(it, "# node{} meminfo  : total = {} kB, free = {} kB\n", node.node, node.mem_total_kb,
                       node.mem_free_kb);
        fmt::format_to(it, "# node{} cpu list : {}\n", node.node, reprinted_cpu_list(node.cpus));
      }
      return true;
    case perfdata::HEADER_CACHE:
      if (!f.caches) return false;
      out.append(std::string_view("# CPU cache info:\n"));
      for (const auto& cache : *f.caches)
        fmt::format_to(it, "#  L{} {:<15} {:>8} [{}]\n", cache.level, cache.type, cache.size, cache.cpus);
      return true;
    case perfdata::HEADER_MEM_TOPOLOGY:
      if (!f.memory_topology) return false;
      append_memory_topology(*f.memory_topology, out);
      return true;
    default:
      return false;
  }
}

void append_feature(const perfdata::PerfDataReader& reader, int feature, fmt::memory_buffer& out,
                    bool show_info) {
  const perfdata::FeatureSet& f = reader.features();
  auto it = fmt::appender(out);
  switch (feature) {
    case perfdata::HEADER_HOSTNAME:
      if (f.hostname) fmt::format_to(it, "# hostname : {}\n", *f.hostname);
      break;
    case perfdata::HEADER_OSRELEASE:
      if (f.os_release) fmt::format_to(it, "# os release : {}\n", *f.os_release);
      break;
    case perfdata::HEADER_VERSION:
      if (f.version) fmt::format_to(it, "# perf version : {}\n", *f.version);
      break;
    case perfdata::HEADER_ARCH:
      if (f.arch) fmt::format_to(it, "# arch : {}\n", *f.arch);
      break;
    case perfdata::HEADER_NRCPUS:
      if (f.nr_cpus)
        fmt::format_to(it, "# nrcpus online : {}\n# nrcpus avail : {}\n", f.nr_cpus->online,
                       f.nr_cpus->available);
      break;
    case perfdata::HEADER_CPUDESC:
      if (f.cpu_desc) fmt::format_to(it, "# cpudesc : {}\n", *f.cpu_desc);
      break;
    case perfdata::HEADER_CPUID:
      if (f.cpuid) fmt::format_to(it, "# cpuid : {}\n", *f.cpuid);
      break;
    case perfdata::HEADER_TOTAL_MEM:
      if (f.total_mem_kb) fmt::format_to(it, "# total memory : {} kB\n", *f.total_mem_kb);
      break;
    case perfdata::HEADER_CMDLINE:
      if (f.cmdline) {
        out.append(std::string_view("# cmdline : "));
        for (const std::string& arg : *f.cmdline) fmt::format_to(it, "{} ", arg);
        out.push_back('\n');
      }
      break;
    case perfdata::HEADER_EVENT_DESC:
      if (!f.event_desc) {
        out.append(std::string_view("# event desc: not available or unable to read\n"));
        break;
      }
      for (const perfdata::EventDesc& event : *f.event_desc) {
        fmt::format_to(it, "# event : name = {}, ", event.name);
        if (!event.ids.empty()) {
          out.append(std::string_view(", id = {"));
          for (size_t i = 0; i < event.ids.size(); ++i)
            fmt::format_to(it, "{} {}", i ? "," : "", event.ids[i]);
          out.append(std::string_view(" }"));
        }
        append_attr_fields(event.attr, out);
        out.push_back('\n');
      }
      break;
    case perfdata::HEADER_CPU_TOPOLOGY:
    case perfdata::HEADER_NUMA_TOPOLOGY:
    case perfdata::HEADER_CACHE:
    case perfdata::HEADER_MEM_TOPOLOGY:
      // Printed in full only with -I.
      if (!show_info || !append_full_info(f, feature, out))
        fmt::format_to(it, "# {} info available, use -I to display\n", perfdata::feature_name(feature));
      break;
    case perfdata::HEADER_BRANCH_STACK:
      out.append(std::string_view("# contains samples with branch stack\n"));
      break;
    case perfdata::HEADER_PMU_MAPPINGS:
      if (!f.pmu_mappings || f.pmu_mappings->empty()) {
        out.append(std::string_view("# pmu mappings: not available\n"));
        break;
      }
      out.append(std::string_view("# pmu mappings: "));
      for (size_t i = 0; i < f.pmu_mappings->size(); ++i)
        fmt::format_to(it, "{}{} = {}", i ? ", " : "", (*f.pmu_mappings)[i].second,
                       (*f.pmu_mappings)[i].first);
      out.push_back('\n');
      break;
    case perfdata::HEADER_AUXTRACE:
      out.append(std::string_view("# contains AUX area data (e.g. instruction trace)\n"));
      break;
    case perfdata::HEADER_STAT:
      out.append(std::string_view("# contains stat data\n"));
      break;
    case perfdata::HEADER_SAMPLE_TIME:
      if (f.sample_time) {
        fmt::format_to(it, "# time of first sample : {}\n", usec_time(f.sample_time->first));
        fmt::format_to(it, "# time of last sample : {}\n", usec_time(f.sample_time->last));
        fmt::format_to(it, "# sample duration : {:10.3f} ms\n",
                       static_cast<double>(f.sample_time->last - f.sample_time->first) / 1e6);
      }
      break;
    case perfdata::HEADER_GROUP_DESC:
      if (f.groups) {
        const auto& events = reader.attrs().events();
        for (const perfdata::GroupDesc& group : *f.groups) {
          if (group.members < 2 || group.leader + group.members > events.size()) continue;
          // perf's "# group: NAME{a,b}": the name only when the group was given one.
          fmt::format_to(it, "# group: {}{{", group.name == "{anon_group}" ? "" : group.name);
          for (uint32_t i = 0; i < group.members; ++i)
            fmt::format_to(it, "{}{}", i ? "," : "", events[group.leader + i].name);
          out.append(std::string_view("}\n"));
        }
      }
      break;
    case perfdata::HEADER_CLOCKID:
      if (f.clockid_res_ns) fmt::format_to(it, "# clockid frequency: {} MHz\n", *f.clockid_res_ns * 1000);
      break;
    case perfdata::HEADER_CLOCK_DATA:
      if (f.clock_data) print_clock_data(*f.clock_data, it);
      break;
    case perfdata::HEADER_COMPRESSED:
      if (f.compressed)
        fmt::format_to(it, "# compressed : {}, level = {}, ratio = {}\n",
                       f.compressed->type == 1 ? "Zstd" : "Unknown", f.compressed->level,
                       f.compressed->ratio);
      break;
    default:
      // TRACING_DATA, BUILD_ID, GROUP_DESC without groups, BPF and PMU capabilities: perf
      // prints nothing for them without -I.
      break;
  }
}

}  // namespace

void append_attr_fields(const perf_event_attr& a, fmt::memory_buffer& out, AttrFieldStyle style) {
  auto it = fmt::appender(out);
  bool first = true;
  // The header's ", name = value"; evlist's ": name: value" first, ", name: value" after.
  auto append_field = [&](std::string_view name) {
    if (style == AttrFieldStyle::header)
      fmt::format_to(it, ", {} = ", name);
    else
      fmt::format_to(it, "{} {}: ", first ? ":" : ",", name);
    first = false;
  };
  auto unsigned_field = [&](std::string_view name, uint64_t value) {
    if (value == 0) return;
    append_field(name);
    fmt::format_to(it, "{}", value);
  };
  auto hex_field = [&](std::string_view name, uint64_t value) {
    if (value == 0) return;
    append_field(name);
    append_c_alt_hex(out, value);
  };
  append_field("type");
  fmt::format_to(it, "{}", a.type);
  unsigned_field("size", a.size);
  hex_field("config", a.config);
  unsigned_field("{ sample_period, sample_freq }", a.sample_period);
  if (a.sample_type) {
    append_field("sample_type");
    append_bits(out, a.sample_type,
                {{PERF_SAMPLE_IP, "IP"},
                 {PERF_SAMPLE_TID, "TID"},
                 {PERF_SAMPLE_TIME, "TIME"},
                 {PERF_SAMPLE_ADDR, "ADDR"},
                 {PERF_SAMPLE_READ, "READ"},
                 {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
                 {PERF_SAMPLE_ID, "ID"},
                 {PERF_SAMPLE_CPU, "CPU"},
                 {PERF_SAMPLE_PERIOD, "PERIOD"},
                 {PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
                 {PERF_SAMPLE_RAW, "RAW"},
                 {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
                 {PERF_SAMPLE_REGS_USER, "REGS_USER"},
                 {PERF_SAMPLE_STACK_USER, "STACK_USER"},
                 {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
                 {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
                 {PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
                 {PERF_SAMPLE_WEIGHT, "WEIGHT"},
                 {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
                 {PERF_SAMPLE_AUX, "AUX"},
                 {PERF_SAMPLE_CGROUP, "CGROUP"},
                 {PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
                 {PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
                 {PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"}});
  }
  if (a.read_format) {
    append_field("read_format");
    append_bits(out, a.read_format,
                {{PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
                 {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
                 {PERF_FORMAT_ID, "ID"},
                 {PERF_FORMAT_GROUP, "GROUP"},
                 {1u << 4 /* PERF_FORMAT_LOST */, "LOST"}});
  }
  unsigned_field("disabled", a.disabled);
  unsigned_field("inherit", a.inherit);
  unsigned_field("pinned", a.pinned);
  unsigned_field("exclusive", a.exclusive);
  unsigned_field("exclude_user", a.exclude_user);
  unsigned_field("exclude_kernel", a.exclude_kernel);
  unsigned_field("exclude_hv", a.exclude_hv);
  unsigned_field("exclude_idle", a.exclude_idle);
  unsigned_field("mmap", a.mmap);
  unsigned_field("comm", a.comm);
  unsigned_field("freq", a.freq);
  unsigned_field("inherit_stat", a.inherit_stat);
  unsigned_field("enable_on_exec", a.enable_on_exec);
  unsigned_field("task", a.task);
  unsigned_field("watermark", a.watermark);
  unsigned_field("precise_ip", a.precise_ip);
  unsigned_field("mmap_data", a.mmap_data);
  unsigned_field("sample_id_all", a.sample_id_all);
  unsigned_field("exclude_host", a.exclude_host);
  unsigned_field("exclude_guest", a.exclude_guest);
  unsigned_field("exclude_callchain_kernel", a.exclude_callchain_kernel);
  unsigned_field("exclude_callchain_user", a.exclude_callchain_user);
  unsigned_field("mmap2", a.mmap2);
  unsigned_field("comm_exec", a.comm_exec);
  unsigned_field("use_clockid", a.use_clockid);
  unsigned_field("context_switch", a.context_switch);
  unsigned_field("write_backward", a.write_backward);
  unsigned_field("namespaces", a.namespaces);
  unsigned_field("ksymbol", a.ksymbol);
  unsigned_field("bpf_event", a.bpf_event);
  unsigned_field("aux_output", a.aux_output);
  unsigned_field("cgroup", a.cgroup);
  unsigned_field("text_poke", a.text_poke);
  unsigned_field("build_id", a.build_id);
  unsigned_field("inherit_thread", a.inherit_thread);
  unsigned_field("remove_on_exec", a.remove_on_exec);
  unsigned_field("sigtrap", a.sigtrap);
  unsigned_field("{ wakeup_events, wakeup_watermark }", a.wakeup_events);
  unsigned_field("bp_type", a.bp_type);
  hex_field("{ bp_addr, config1 }", a.bp_addr);
  hex_field("{ bp_len, config2 }", a.bp_len);
  if (a.branch_sample_type) {
    append_field("branch_sample_type");
    append_bits(out, a.branch_sample_type,
                {{PERF_SAMPLE_BRANCH_USER, "USER"},
                 {PERF_SAMPLE_BRANCH_KERNEL, "KERNEL"},
                 {PERF_SAMPLE_BRANCH_HV, "HV"},
                 {PERF_SAMPLE_BRANCH_ANY, "ANY"},
                 {PERF_SAMPLE_BRANCH_ANY_CALL, "ANY_CALL"},
                 {PERF_SAMPLE_BRANCH_ANY_RETURN, "ANY_RETURN"},
                 {PERF_SAMPLE_BRANCH_IND_CALL, "IND_CALL"},
                 {PERF_SAMPLE_BRANCH_ABORT_TX, "ABORT_TX"},
                 {PERF_SAMPLE_BRANCH_IN_TX, "IN_TX"},
                 {PERF_SAMPLE_BRANCH_NO_TX, "NO_TX"},
                 {PERF_SAMPLE_BRANCH_COND, "COND"},
                 {PERF_SAMPLE_BRANCH_CALL_STACK, "CALL_STACK"},
                 {PERF_SAMPLE_BRANCH_IND_JUMP, "IND_JUMP"},
                 {PERF_SAMPLE_BRANCH_CALL, "CALL"},
                 {PERF_SAMPLE_BRANCH_NO_FLAGS, "NO_FLAGS"},
                 {PERF_SAMPLE_BRANCH_NO_CYCLES, "NO_CYCLES"},
                 {PERF_SAMPLE_BRANCH_TYPE_SAVE, "TYPE_SAVE"},
                 {PERF_SAMPLE_BRANCH_HW_INDEX, "HW_INDEX"}});
  }
  hex_field("sample_regs_user", a.sample_regs_user);
  unsigned_field("sample_stack_user", a.sample_stack_user);
  if (a.clockid != 0) {
    append_field("clockid");
    fmt::format_to(it, "{}", static_cast<int64_t>(a.clockid));
  }
  hex_field("sample_regs_intr", a.sample_regs_intr);
  unsigned_field("aux_watermark", a.aux_watermark);
  unsigned_field("sample_max_stack", a.sample_max_stack);
  unsigned_field("aux_sample_size", a.aux_sample_size);
  unsigned_field("sig_data", a.sig_data);
}

void append_header_info(const perfdata::PerfDataReader& reader, const std::string& path,
                        fmt::memory_buffer& out, bool show_info) {
  auto it = fmt::appender(out);
  out.append(std::string_view("# ========\n"));
  struct stat st {};
  if (path != "-" && ::stat(path.c_str(), &st) == 0) {
    time_t mtime = st.st_mtime;
    char text[64];
    ctime_r(&mtime, text);
    fmt::format_to(it, "# captured on    : {}", text);
  }
  const perfdata::FileHeader& header = reader.header();
  if (!reader.is_pipe()) {
    fmt::format_to(
        it, "# header version : 1\n# data offset    : {}\n# data size      : {}\n# feat offset    : {}\n",
        header.data.offset, header.data.size, header.data.offset + header.data.size);
  }
  for (int feature = 1; feature < perfdata::HEADER_LAST_FEATURE; ++feature)
    if (reader.has_feature(feature)) append_feature(reader, feature, out, show_info);
  if (!reader.is_pipe()) {
    out.append(std::string_view("# missing features: "));
    for (int feature = 1; feature < perfdata::HEADER_LAST_FEATURE; ++feature)
      if (!reader.has_feature(feature)) fmt::format_to(it, "{} ", perfdata::feature_name(feature));
    out.push_back('\n');
  }
  out.append(std::string_view("# ========\n#\n"));
}

void print_header_info(std::FILE* out, const perfdata::PerfDataReader& reader, const std::string& path,
                       bool show_info) {
  fmt::memory_buffer text;
  append_header_info(reader, path, text, show_info);
  std::fwrite(text.data(), 1, text.size(), out);
}

}  // namespace sonde::output
