#pragma once
// The C interface perf script's dlfilters are built against (perf 6.1's perf_dlfilter.h, version
// "v0"): the structures a filter receives and the table of functions it may call back, laid out
// as the filter's compiler laid them out. Only facts of the ABI here; dlfilter.hpp loads filters.
#include <linux/perf_event.h>

#include <cstdint>

namespace sonde::analysis::dlfilter_abi {

struct Sample {
  uint32_t size;  // sizeof(Sample), for the filter's compatibility check
  uint16_t ins_lat;
  uint16_t p_stage_cyc;
  uint64_t ip;
  int32_t pid;
  int32_t tid;
  uint64_t time;
  uint64_t addr;
  uint64_t id;
  uint64_t stream_id;
  uint64_t period;
  uint64_t weight;
  uint64_t transaction;
  uint64_t insn_cnt;
  uint64_t cyc_cnt;
  int32_t cpu;
  uint32_t flags;
  uint64_t data_src;
  uint64_t phys_addr;
  uint64_t data_page_size;
  uint64_t code_page_size;
  uint64_t cgroup;
  uint8_t cpumode;
  uint8_t addr_correlates_sym;
  uint16_t misc;
  uint32_t raw_size;
  const void* raw_data;
  uint64_t brstack_nr;
  const perf_branch_entry* brstack;
  uint64_t raw_callchain_nr;
  const uint64_t* raw_callchain;
  const char* event;
  int32_t machine_pid;
  int32_t vcpu;
};

// What an address resolves to.
struct AddressLocation {
  uint32_t size;  // set by whoever fills it
  uint32_t symoff;
  const char* sym;
  uint64_t addr;  // the address within its DSO
  uint64_t sym_start;
  uint64_t sym_end;
  const char* dso;
  uint8_t sym_binding;
  uint8_t is_64_bit;
  uint8_t is_kernel_ip;
  uint32_t buildid_size;
  uint8_t* buildid;
  // Only resolve_ip fills these two.
  uint8_t filtered;
  const char* comm;
};

struct Functions {
  const AddressLocation* (*resolve_ip)(void* ctx);
  const AddressLocation* (*resolve_addr)(void* ctx);
  char** (*args)(void* ctx, int* dlargc);
  int32_t (*resolve_address)(void* ctx, uint64_t address, AddressLocation* al);
  const uint8_t* (*insn)(void* ctx, uint32_t* length);
  const char* (*srcline)(void* ctx, uint32_t* line_number);
  perf_event_attr* (*attr)(void* ctx);
  int32_t (*object_code)(void* ctx, uint64_t ip, void* buf, uint32_t len);
  void* (*reserved[120])(void*);
};

// The filter's entry points, each optional.
using StartFunction = int (*)(void** data, void* ctx);
using StopFunction = int (*)(void* data, void* ctx);
using FilterFunction = int (*)(void* data, const Sample* sample, void* ctx);
using DescriptionFunction = const char* (*)(const char** long_description);

}  // namespace sonde::analysis::dlfilter_abi
