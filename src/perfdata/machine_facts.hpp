#pragma once
// The facts about the recording machine that perf stores in the header features, gathered in one
// call so the record command fills HOSTNAME ... CPU_TOPOLOGY without knowing where each lives.
#include <cstdint>
#include <string>

#include "format/features.hpp"

namespace sonde::perfdata {

struct MachineFacts {
  std::string hostname;    // uname -n
  std::string os_release;  // uname -r
  std::string arch;        // uname -m
  std::string cpu_desc;    // /proc/cpuinfo "model name", runs of spaces squashed as perf does
  std::string cpuid;       // x86: "vendor,family,model,stepping" (GenuineIntel,6,85,4)
  NrCpus nr_cpus;
  uint64_t total_mem_kb = 0;  // /proc/meminfo MemTotal
  CpuTopology topology;
};

// Reads uname, /proc/cpuinfo, /proc/meminfo and /sys/devices/system/cpu. Facts that cannot be
// read stay empty or zero rather than failing: a missing fact costs a header line, not the run.
MachineFacts gather_machine_facts();

// Sets HOSTNAME, OSRELEASE, ARCH, CPUDESC, CPUID, NRCPUS, TOTAL_MEM and CPU_TOPOLOGY from `facts`
// (each only when known).
void fill_machine_features(const MachineFacts& facts, FeatureSet& features);

// perf's squashing of /proc/cpuinfo's "model name": every run of white space becomes one space.
std::string squash_spaces(std::string_view text);

}  // namespace sonde::perfdata
