#include "format/perf_format.hpp"

#include <array>

namespace sonde::perfdata {

std::string_view feature_name(int feature) {
  static constexpr std::array<std::string_view, HEADER_LAST_FEATURE> names = {
      "RESERVED",        "TRACING_DATA", "BUILD_ID",     "HOSTNAME",     "OSRELEASE",
      "VERSION",         "ARCH",         "NRCPUS",       "CPUDESC",      "CPUID",
      "TOTAL_MEM",       "CMDLINE",      "EVENT_DESC",   "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
      "BRANCH_STACK",    "PMU_MAPPINGS", "GROUP_DESC",   "AUXTRACE",     "STAT",
      "CACHE",           "SAMPLE_TIME",  "MEM_TOPOLOGY", "CLOCKID",      "DIR_FORMAT",
      "BPF_PROG_INFO",   "BPF_BTF",      "COMPRESSED",   "CPU_PMU_CAPS", "CLOCK_DATA",
      "HYBRID_TOPOLOGY", "PMU_CAPS"};
  if (feature < 0 || feature >= HEADER_LAST_FEATURE) return "UNKNOWN";
  return names[static_cast<size_t>(feature)];
}

std::string_view record_type_name(uint32_t type) {
  switch (type) {
    case PERF_RECORD_MMAP:
      return "MMAP";
    case PERF_RECORD_LOST:
      return "LOST";
    case PERF_RECORD_COMM:
      return "COMM";
    case PERF_RECORD_EXIT:
      return "EXIT";
    case PERF_RECORD_THROTTLE:
      return "THROTTLE";
    case PERF_RECORD_UNTHROTTLE:
      return "UNTHROTTLE";
    case PERF_RECORD_FORK:
      return "FORK";
    case PERF_RECORD_READ:
      return "READ";
    case PERF_RECORD_SAMPLE:
      return "SAMPLE";
    case PERF_RECORD_MMAP2:
      return "MMAP2";
    case PERF_RECORD_AUX:
      return "AUX";
    case PERF_RECORD_ITRACE_START:
      return "ITRACE_START";
    case PERF_RECORD_LOST_SAMPLES:
      return "LOST_SAMPLES";
    case PERF_RECORD_SWITCH:
      return "SWITCH";
    case PERF_RECORD_SWITCH_CPU_WIDE:
      return "SWITCH_CPU_WIDE";
    case PERF_RECORD_NAMESPACES:
      return "NAMESPACES";
    case PERF_RECORD_KSYMBOL:
      return "KSYMBOL";
    case PERF_RECORD_BPF_EVENT:
      return "BPF_EVENT";
    case PERF_RECORD_CGROUP:
      return "CGROUP";
    case PERF_RECORD_TEXT_POKE:
      return "TEXT_POKE";
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
      return "AUX_OUTPUT_HW_ID";
    case PERF_RECORD_HEADER_ATTR:
      return "HEADER_ATTR";
    case PERF_RECORD_HEADER_EVENT_TYPE:
      return "HEADER_EVENT_TYPE";
    case PERF_RECORD_HEADER_TRACING_DATA:
      return "HEADER_TRACING_DATA";
    case PERF_RECORD_HEADER_BUILD_ID:
      return "HEADER_BUILD_ID";
    case PERF_RECORD_FINISHED_ROUND:
      return "FINISHED_ROUND";
    case PERF_RECORD_ID_INDEX:
      return "ID_INDEX";
    case PERF_RECORD_AUXTRACE_INFO:
      return "AUXTRACE_INFO";
    case PERF_RECORD_AUXTRACE:
      return "AUXTRACE";
    case PERF_RECORD_AUXTRACE_ERROR:
      return "AUXTRACE_ERROR";
    case PERF_RECORD_THREAD_MAP:
      return "THREAD_MAP";
    case PERF_RECORD_CPU_MAP:
      return "CPU_MAP";
    case PERF_RECORD_STAT_CONFIG:
      return "STAT_CONFIG";
    case PERF_RECORD_STAT:
      return "STAT";
    case PERF_RECORD_STAT_ROUND:
      return "STAT_ROUND";
    case PERF_RECORD_EVENT_UPDATE:
      return "EVENT_UPDATE";
    case PERF_RECORD_TIME_CONV:
      return "TIME_CONV";
    case PERF_RECORD_HEADER_FEATURE:
      return "HEADER_FEATURE";
    case PERF_RECORD_COMPRESSED:
      return "COMPRESSED";
    case PERF_RECORD_FINISHED_INIT:
      return "FINISHED_INIT";
    case PERF_RECORD_COMPRESSED2:
      return "COMPRESSED2";
    default:
      return "UNKNOWN";
  }
}

}  // namespace sonde::perfdata
