#include "output/script/script_dlfilter.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>

#include "base/unique_fd.hpp"

namespace sonde::output {

namespace abi = analysis::dlfilter_abi;

const abi::Sample& ScriptDlfilterHost::describe(const session::SampleEvent& sample, const char* event_name) {
  sample_ = &sample;
  const perfdata::Sample& s = sample.sample;
  abi::Sample& d = described_;
  d = {};
  d.size = sizeof d;
  d.ip = s.ip;
  d.pid = static_cast<int32_t>(s.pid);
  d.tid = static_cast<int32_t>(s.tid);
  d.time = s.time;
  d.addr = s.addr;
  d.id = s.id;
  d.stream_id = s.stream_id;
  d.period = s.period;
  d.weight = s.weight;
  d.transaction = s.transaction;
  // perf: -1 for a sample that carries no CPU.
  d.cpu = s.has(PERF_SAMPLE_CPU) ? static_cast<int32_t>(s.cpu) : -1;
  d.data_src = s.data_src;
  d.phys_addr = s.phys_addr;
  d.data_page_size = s.data_page_size;
  d.code_page_size = s.code_page_size;
  d.cgroup = s.cgroup;
  d.cpumode = sample.cpumode;
  d.misc = sample.record.header.misc;
  // perf's sample_addr_correlates_sym: the addr of a sample that has one and no data source.
  const uint64_t type = sample.event.attr.sample_type;
  d.addr_correlates_sym =
      (type & PERF_SAMPLE_ADDR) && !(type & PERF_SAMPLE_DATA_SRC) && !(type & PERF_SAMPLE_PHYS_ADDR);
  d.raw_size = static_cast<uint32_t>(s.raw.size());
  d.raw_data = s.raw.size() ? s.raw.data() : nullptr;
  // The record's bytes promise no alignment; the filter reads u64s.
  callchain_.resize(s.callchain.size());
  for (size_t i = 0; i < callchain_.size(); ++i) callchain_[i] = s.callchain[i];
  d.raw_callchain_nr = callchain_.size();
  d.raw_callchain = callchain_.empty() ? nullptr : callchain_.data();
  d.event = event_name;
  return d;
}

void ScriptDlfilterHost::fill(const session::Location& loc, abi::AddressLocation& al, std::string& build_id) {
  al.addr = loc.dso_address;
  al.is_kernel_ip = loc.kernel() ? 1 : 0;
  if (loc.map == nullptr || loc.dso == nullptr) return;
  al.dso = loc.dso->long_name.c_str();
  al.is_64_bit = 1;  // x86-64's ELF64 objects, as sonde reads only those
  build_id.clear();
  const std::string& hex = loc.dso->build_id;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    unsigned byte = 0;
    std::from_chars(hex.data() + i, hex.data() + i + 2, byte, 16);
    build_id.push_back(static_cast<char>(byte));
  }
  al.buildid_size = static_cast<uint32_t>(build_id.size());
  al.buildid = build_id.empty() ? nullptr : reinterpret_cast<uint8_t*>(build_id.data());
  const ResolvedSymbol& symbol = symbols_.resolve(*loc.dso, loc.dso_address);
  if (!symbol.found) return;
  al.sym = symbol.name.data();  // symbol names are kept NUL-terminated by the symbolizer
  al.symoff = static_cast<uint32_t>(symbol.offset);
  al.sym_start = loc.dso_address - symbol.offset;
  al.sym_end = al.sym_start + symbol.size;
  al.sym_binding = symbol.binding;
}

bool ScriptDlfilterHost::resolve_ip(abi::AddressLocation& al) {
  if (sample_ == nullptr || sample_->callchain.empty()) return false;
  fill(sample_->callchain.front(), al, ip_build_id_);
  al.comm = sample_->thread.comm.c_str();
  al.filtered = 0;
  return true;
}

bool ScriptDlfilterHost::locate(uint64_t address, abi::AddressLocation& al, std::string& build_id) {
  if (sample_ == nullptr) return false;
  fill(session_.machine().locate(sample_->thread, sample_->cpumode, address), al, build_id);
  return true;
}

bool ScriptDlfilterHost::resolve_addr(abi::AddressLocation& al) {
  return sample_ != nullptr && locate(sample_->sample.addr, al, addr_build_id_);
}

bool ScriptDlfilterHost::resolve_address(uint64_t address, abi::AddressLocation& al) {
  return locate(address, al, address_build_id_);
}

const char* ScriptDlfilterHost::srcline(uint32_t& line) {
  line = 0;
  if (sample_ == nullptr || sample_->callchain.empty()) return nullptr;
  const session::Location& loc = sample_->callchain.front();
  if (loc.dso == nullptr) return nullptr;
  std::string_view text = symbols_.srcline(*loc.dso, loc.dso_address);
  // "file.c:12"; perf's "dso[addr]" fallback names no file.
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || text.ends_with(']')) return nullptr;
  std::from_chars(text.data() + colon + 1, text.data() + text.size(), line);
  srcline_file_ = text.substr(0, colon);
  return srcline_file_.c_str();
}

int32_t ScriptDlfilterHost::object_code(uint64_t ip, void* buffer, uint32_t length) {
  if (sample_ == nullptr) return -1;
  const session::Location loc = session_.machine().locate(sample_->thread, sample_->cpumode, ip);
  if (loc.map == nullptr || loc.dso == nullptr || loc.dso->is_kernel()) return -1;
  std::string path = symbols_.elf_path(*loc.dso);
  if (path.empty()) return -1;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return -1;
  // A file-backed map's dso address is its file offset.
  ssize_t got = ::pread(fd.get(), buffer, length, static_cast<off_t>(loc.map->dso_address(ip)));
  return got < 0 ? -1 : static_cast<int32_t>(got);
}

perf_event_attr* ScriptDlfilterHost::attr() {
  if (sample_ == nullptr) return nullptr;
  attr_ = sample_->event.attr;
  return &attr_;
}

std::string dlfilter_listing_text(const std::vector<analysis::DlfilterListing>& listings) {
  std::string text = "List of available dlfilters:\n";
  for (const auto& listing : listings)
    text += fmt::format("  {:<36} {}\n", listing.name, listing.description);
  return text;
}

}  // namespace sonde::output
