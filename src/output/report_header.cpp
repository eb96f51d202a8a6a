#include "output/report_header.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "session/session.hpp"

namespace sonde::output {

using perfdata::FeatureSet;

namespace {

std::string flag_names(uint64_t value, const std::vector<std::pair<uint64_t, const char*>>& names) {
  std::string text;
  for (const auto& [bit, name] : names) {
    if (!(value & bit)) continue;
    if (!text.empty()) text += '|';
    text += name;
  }
  return text;
}

// perf's perf_event_attr__fprintf: every non-zero field as ", name = value".
std::string attr_fields(const perf_event_attr& attr) {
  std::string out;
  auto field = [&](const char* name, const std::string& value) { out += fmt::format(", {} = {}", name, value); };
  auto unsigned_field = [&](const char* name, uint64_t value) {
    if (value) field(name, std::to_string(value));
  };
  auto hex_field = [&](const char* name, uint64_t value) {
    if (value) field(name, fmt::format("{:#x}", value));
  };
  unsigned_field("type", attr.type);
  unsigned_field("size", attr.size);
  hex_field("config", attr.config);
  unsigned_field("{ sample_period, sample_freq }", attr.sample_period);
  if (attr.sample_type)
    field("sample_type",
          flag_names(attr.sample_type,
                     {{PERF_SAMPLE_IP, "IP"},           {PERF_SAMPLE_TID, "TID"},
                      {PERF_SAMPLE_TIME, "TIME"},       {PERF_SAMPLE_ADDR, "ADDR"},
                      {PERF_SAMPLE_READ, "READ"},       {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
                      {PERF_SAMPLE_ID, "ID"},           {PERF_SAMPLE_CPU, "CPU"},
                      {PERF_SAMPLE_PERIOD, "PERIOD"},   {PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
                      {PERF_SAMPLE_RAW, "RAW"},         {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
                      {PERF_SAMPLE_REGS_USER, "REGS_USER"}, {PERF_SAMPLE_STACK_USER, "STACK_USER"},
                      {PERF_SAMPLE_WEIGHT, "WEIGHT"},   {PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
                      {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"}, {PERF_SAMPLE_TRANSACTION, "TRANSACTION"},
                      {PERF_SAMPLE_REGS_INTR, "REGS_INTR"}, {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
                      {PERF_SAMPLE_AUX, "AUX"},         {PERF_SAMPLE_CGROUP, "CGROUP"},
                      {PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
                      {PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
                      {PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"}}));
  if (attr.read_format)
    field("read_format", flag_names(attr.read_format, {{PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
                                                       {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
                                                       {PERF_FORMAT_ID, "ID"},
                                                       {PERF_FORMAT_GROUP, "GROUP"},
                                                       {1u << 4, "LOST"}}));
  unsigned_field("disabled", attr.disabled);
  unsigned_field("inherit", attr.inherit);
  unsigned_field("pinned", attr.pinned);
  unsigned_field("exclusive", attr.exclusive);
  unsigned_field("exclude_user", attr.exclude_user);
  unsigned_field("exclude_kernel", attr.exclude_kernel);
  unsigned_field("exclude_hv", attr.exclude_hv);
  unsigned_field("exclude_idle", attr.exclude_idle);
  unsigned_field("mmap", attr.mmap);
  unsigned_field("comm", attr.comm);
  unsigned_field("freq", attr.freq);
  unsigned_field("inherit_stat", attr.inherit_stat);
  unsigned_field("enable_on_exec", attr.enable_on_exec);
  unsigned_field("task", attr.task);
  unsigned_field("watermark", attr.watermark);
  unsigned_field("precise_ip", attr.precise_ip);
  unsigned_field("mmap_data", attr.mmap_data);
  unsigned_field("sample_id_all", attr.sample_id_all);
  unsigned_field("exclude_host", attr.exclude_host);
  unsigned_field("exclude_guest", attr.exclude_guest);
  unsigned_field("exclude_callchain_kernel", attr.exclude_callchain_kernel);
  unsigned_field("exclude_callchain_user", attr.exclude_callchain_user);
  unsigned_field("mmap2", attr.mmap2);
  unsigned_field("comm_exec", attr.comm_exec);
  unsigned_field("use_clockid", attr.use_clockid);
  unsigned_field("context_switch", attr.context_switch);
  unsigned_field("write_backward", attr.write_backward);
  unsigned_field("namespaces", attr.namespaces);
  unsigned_field("ksymbol", attr.ksymbol);
  unsigned_field("bpf_event", attr.bpf_event);
  unsigned_field("aux_output", attr.aux_output);
  unsigned_field("cgroup", attr.cgroup);
  unsigned_field("text_poke", attr.text_poke);
  unsigned_field("build_id", attr.build_id);
  unsigned_field("inherit_thread", attr.inherit_thread);
  unsigned_field("remove_on_exec", attr.remove_on_exec);
  unsigned_field("sigtrap", attr.sigtrap);
  unsigned_field("{ wakeup_events, wakeup_watermark }", attr.wakeup_events);
  unsigned_field("bp_type", attr.bp_type);
  hex_field("{ bp_addr, config1 }", attr.config1);
  hex_field("{ bp_len, config2 }", attr.config2);
  unsigned_field("branch_sample_type", attr.branch_sample_type);
  hex_field("sample_regs_user", attr.sample_regs_user);
  unsigned_field("sample_stack_user", attr.sample_stack_user);
  if (attr.clockid) field("clockid", std::to_string(attr.clockid));
  hex_field("sample_regs_intr", attr.sample_regs_intr);
  unsigned_field("aux_watermark", attr.aux_watermark);
  unsigned_field("sample_max_stack", attr.sample_max_stack);
  unsigned_field("aux_sample_size", attr.aux_sample_size);
  unsigned_field("sig_data", attr.sig_data);
  return out;
}

std::string timestamp(uint64_t ns) { return fmt::format("{}.{:06}", ns / 1000000000, ns % 1000000000 / 1000); }

}  // namespace

void print_perf_header(std::FILE* out, perfdata::PerfDataReader& reader, const std::string& path) {
  const perfdata::FileHeader& header = reader.header();
  std::fputs("# ========\n", out);
  struct stat st {};
  if (!reader.is_pipe() && ::stat(path.c_str(), &st) == 0) {
    char when[64];
    std::tm local{};
    ::localtime_r(&st.st_mtime, &local);
    std::strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &local);
    fmt::print(out, "# captured on    : {}\n", when);
  }
  if (!reader.is_pipe()) {
    std::fputs("# header version : 1\n", out);
    fmt::print(out, "# data offset    : {}\n", header.data.offset);
    fmt::print(out, "# data size      : {}\n", header.data.size);
    fmt::print(out, "# feat offset    : {}\n", header.data.offset + header.data.size);
  }
  const FeatureSet& f = reader.features();
  if (f.hostname) fmt::print(out, "# hostname : {}\n", *f.hostname);
  if (f.os_release) fmt::print(out, "# os release : {}\n", *f.os_release);
  if (f.version) fmt::print(out, "# perf version : {}\n", *f.version);
  if (f.arch) fmt::print(out, "# arch : {}\n", *f.arch);
  if (f.nr_cpus) fmt::print(out, "# nrcpus online : {}\n# nrcpus avail : {}\n", f.nr_cpus->online, f.nr_cpus->available);
  if (f.cpu_desc) fmt::print(out, "# cpudesc : {}\n", *f.cpu_desc);
  if (f.cpuid) fmt::print(out, "# cpuid : {}\n", *f.cpuid);
  if (f.total_mem_kb) fmt::print(out, "# total memory : {} kB\n", *f.total_mem_kb);
  if (f.cmdline) {
    std::fputs("# cmdline : ", out);
    for (const std::string& arg : *f.cmdline) fmt::print(out, "{} ", arg);
    std::fputc('\n', out);
  }
  for (const auto& event : reader.attrs().events()) {
    fmt::print(out, "# event : name = {}, ", session::event_name(event));
    if (!event.ids.empty()) {
      std::fputs(", id = {", out);
      for (size_t i = 0; i < event.ids.size(); ++i) fmt::print(out, "{} {}", i ? "," : "", event.ids[i]);
      std::fputs(" }", out);
    }
    fmt::print(out, "{}\n", attr_fields(event.attr));
  }
  auto has = [&](int feature) { return reader.has_feature(feature); };
  if (has(perfdata::HEADER_CPU_TOPOLOGY)) std::fputs("# CPU_TOPOLOGY info available, use -I to display\n", out);
  if (has(perfdata::HEADER_NUMA_TOPOLOGY)) std::fputs("# NUMA_TOPOLOGY info available, use -I to display\n", out);
  if (has(perfdata::HEADER_BRANCH_STACK)) std::fputs("# contains samples with branch stack\n", out);
  if (f.pmu_mappings) {
    std::fputs("# pmu mappings: ", out);
    for (size_t i = 0; i < f.pmu_mappings->size(); ++i)
      fmt::print(out, "{}{} = {}", i ? ", " : "", (*f.pmu_mappings)[i].second, (*f.pmu_mappings)[i].first);
    std::fputc('\n', out);
  }
  if (has(perfdata::HEADER_CACHE)) std::fputs("# CACHE info available, use -I to display\n", out);
  if (f.sample_time) {
    fmt::print(out, "# time of first sample : {}\n", timestamp(f.sample_time->first));
    fmt::print(out, "# time of last sample : {}\n", timestamp(f.sample_time->last));
    fmt::print(out, "# sample duration : {:10.3f} ms\n",
               static_cast<double>(f.sample_time->last - f.sample_time->first) / 1e6);
  }
  if (has(perfdata::HEADER_MEM_TOPOLOGY)) std::fputs("# MEM_TOPOLOGY info available, use -I to display\n", out);
  if (f.clockid_res_ns) fmt::print(out, "# clockid frequency: {} MHz\n", 1000 / std::max<uint64_t>(*f.clockid_res_ns, 1));
  std::fputs("# missing features: ", out);
  for (int feature = perfdata::HEADER_TRACING_DATA; feature < perfdata::HEADER_LAST_FEATURE; ++feature)
    if (!has(feature)) fmt::print(out, "{} ", perfdata::feature_name(feature));
  std::fputs("\n# ========\n#\n", out);
}

}  // namespace sonde::output
