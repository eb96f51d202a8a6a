#include "format/features.hpp"

#include <algorithm>

namespace sonde::perfdata {

namespace {

void put_string_list(ByteWriter& out, const std::vector<std::string>& list) {
  out.put(static_cast<uint32_t>(list.size()));
  for (const auto& s : list) out.put_string(s);
}

std::string encode_event_desc(const std::vector<EventDesc>& events) {
  ByteWriter out;
  out.put(static_cast<uint32_t>(events.size()));
  out.put(static_cast<uint32_t>(sizeof(perf_event_attr)));
  for (const auto& event : events) {
    perf_event_attr attr = event.attr;
    attr.size = sizeof(perf_event_attr);
    out.put(attr);
    out.put(static_cast<uint32_t>(event.ids.size()));
    out.put_string(event.name);
    for (uint64_t id : event.ids) out.put(id);
  }
  return std::move(out.str());
}

std::string encode_cpu_topology(const CpuTopology& topology) {
  ByteWriter out;
  put_string_list(out, topology.package_cpus);
  put_string_list(out, topology.core_cpus);
  for (const auto& cpu : topology.cpus) {
    out.put(cpu.core_id);
    out.put(cpu.socket_id);
  }
  // perf reads the die level only when bytes remain after the per-CPU ids.
  if (!topology.die_cpus.empty()) {
    put_string_list(out, topology.die_cpus);
    for (const auto& cpu : topology.cpus) out.put(cpu.die_id);
  }
  return std::move(out.str());
}

template <typename T>
std::string encode_value(const T& value) {
  ByteWriter out;
  out.put(value);
  return std::move(out.str());
}

std::string encode_string(const std::string& text) {
  ByteWriter out;
  out.put_string(text);
  return std::move(out.str());
}

Result<perf_event_attr> read_attr(ByteReader& in, uint32_t attr_size) {
  auto raw = in.take(attr_size);
  if (!raw) return fail("attr runs past the section");
  perf_event_attr attr{};
  std::memcpy(&attr, raw->data(), std::min<size_t>(attr_size, sizeof attr));
  return attr;
}

Result<std::vector<EventDesc>> decode_event_desc(ByteReader& in) {
  auto nr = in.read<uint32_t>();
  auto attr_size = in.read<uint32_t>();
  if (!nr || !attr_size) return fail("truncated counts");
  if (*attr_size < PERF_ATTR_SIZE_VER0 || *attr_size > 4096)
    return failf("attr size {} is not plausible", *attr_size);
  std::vector<EventDesc> events;
  for (uint32_t i = 0; i < *nr; ++i) {
    EventDesc event;
    auto attr = read_attr(in, *attr_size);
    if (!attr) return tl::unexpected(attr.error());
    event.attr = *attr;
    auto nr_ids = in.read<uint32_t>();
    auto name = in.read_string();
    if (!nr_ids || !name) return failf("event {} truncated", i);
    event.name = *name;
    if (in.remaining() / sizeof(uint64_t) < *nr_ids)
      return failf("event {} has {} ids past the section", i, *nr_ids);
    for (uint32_t k = 0; k < *nr_ids; ++k) event.ids.push_back(*in.read<uint64_t>());
    events.push_back(std::move(event));
  }
  return events;
}

Result<std::vector<std::string>> read_string_list(ByteReader& in) {
  auto nr = in.read<uint32_t>();
  if (!nr) return fail("truncated string list");
  std::vector<std::string> list;
  for (uint32_t i = 0; i < *nr; ++i) {
    auto s = in.read_string();
    if (!s) return failf("string {} of {} truncated", i, *nr);
    list.push_back(std::move(*s));
  }
  return list;
}

Result<CpuTopology> decode_cpu_topology(ByteReader& in, uint32_t nr_cpus) {
  CpuTopology topology;
  auto packages = read_string_list(in);
  if (!packages) return tl::unexpected(packages.error());
  auto cores = read_string_list(in);
  if (!cores) return tl::unexpected(cores.error());
  topology.package_cpus = std::move(*packages);
  topology.core_cpus = std::move(*cores);
  if (in.at_end()) return topology;  // old perf: no per-CPU ids
  for (uint32_t i = 0; i < nr_cpus; ++i) {
    auto core = in.read<uint32_t>();
    auto socket = in.read<uint32_t>();
    if (!core || !socket) return failf("CPU {} ids truncated", i);
    topology.cpus.push_back({*core, *socket, 0});
  }
  if (in.at_end()) return topology;  // no die level
  auto dies = read_string_list(in);
  if (!dies) return tl::unexpected(dies.error());
  topology.die_cpus = std::move(*dies);
  for (auto& cpu : topology.cpus) {
    auto die = in.read<uint32_t>();
    if (!die) return fail("die ids truncated");
    cpu.die_id = *die;
  }
  return topology;
}

Result<std::vector<NumaNode>> decode_numa_topology(ByteReader& in) {
  auto count = in.read<uint32_t>();
  if (!count) return fail("node count truncated");
  std::vector<NumaNode> nodes;
  for (uint32_t i = 0; i < *count; ++i) {
    auto node = in.read<uint32_t>();
    auto total = in.read<uint64_t>();
    auto free = in.read<uint64_t>();
    auto cpus = in.read_string();
    if (!node || !total || !free || !cpus) return failf("node {} of {} truncated", i, *count);
    nodes.push_back({*node, *total, *free, std::move(*cpus)});
  }
  return nodes;
}

Result<std::vector<CpuCache>> decode_caches(ByteReader& in) {
  auto version = in.read<uint32_t>();
  auto count = in.read<uint32_t>();
  if (!version || !count) return fail("header truncated");
  if (*version != 1) return failf("version {} (perf writes 1)", *version);
  std::vector<CpuCache> caches;
  for (uint32_t i = 0; i < *count; ++i) {
    CpuCache cache;
    auto level = in.read<uint32_t>();
    auto line = in.read<uint32_t>();
    auto sets = in.read<uint32_t>();
    auto ways = in.read<uint32_t>();
    auto type = in.read_string();
    auto size = in.read_string();
    auto cpus = in.read_string();
    if (!level || !line || !sets || !ways || !type || !size || !cpus)
      return failf("cache {} of {} truncated", i, *count);
    caches.push_back({*level, *line, *sets, *ways, std::move(*type), std::move(*size), std::move(*cpus)});
  }
  return caches;
}

Result<MemoryTopology> decode_memory_topology(ByteReader& in) {
  auto version = in.read<uint64_t>();
  auto block_size = in.read<uint64_t>();
  auto count = in.read<uint64_t>();
  if (!version || !block_size || !count) return fail("header truncated");
  if (*version != 1) return failf("version {} (perf writes 1)", *version);
  MemoryTopology topology;
  topology.block_size = *block_size;
  for (uint64_t i = 0; i < *count; ++i) {
    MemoryTopology::Node node;
    auto id = in.read<uint64_t>();
    auto size = in.read<uint64_t>();
    auto bits = in.read<uint64_t>();
    if (!id || !size || !bits) return failf("node {} of {} truncated", i, *count);
    node.node = *id;
    node.size = *size;
    node.block_count = *bits;
    for (uint64_t word = 0; word < (*bits + 63) / 64; ++word) {
      auto value = in.read<uint64_t>();
      if (!value) return failf("node {} bitmap truncated", i);
      node.blocks.push_back(*value);
    }
    topology.nodes.push_back(std::move(node));
  }
  return topology;
}

}  // namespace

void encode_build_id(const BuildIdEntry& entry, uint32_t record_type, ByteWriter& out) {
  size_t name_size = ByteWriter::align_up(entry.filename.size() + 1, kNameAlign);
  BuildIdEntryHeader header{};
  header.header.type = record_type;
  header.header.misc = static_cast<uint16_t>(entry.cpumode | PERF_RECORD_MISC_BUILD_ID_SIZE);
  header.header.size = static_cast<uint16_t>(sizeof header + name_size);
  header.pid = entry.pid;
  size_t id_size = std::min(entry.build_id.size(), sizeof header.build_id);
  if (id_size > 0) std::memcpy(header.build_id, entry.build_id.data(), id_size);  // data() may be null
  header.build_id_size = static_cast<uint8_t>(id_size);
  out.put(header);
  out.put_bytes(entry.filename.data(), entry.filename.size());
  out.put_zeros(name_size - entry.filename.size());
}

Result<std::vector<BuildIdEntry>> decode_build_ids(Bytes section) {
  std::vector<BuildIdEntry> entries;
  ByteReader in(section);
  while (!in.at_end()) {
    size_t at = in.offset();
    auto header = in.read<BuildIdEntryHeader>();
    if (!header) return failf("build-id entry at +{:#x} truncated", at);
    if (header->header.size < sizeof(BuildIdEntryHeader) ||
        header->header.size - sizeof(BuildIdEntryHeader) > in.remaining())
      return failf("build-id entry at +{:#x} has size {}", at, header->header.size);
    auto name = *in.take(header->header.size - sizeof(BuildIdEntryHeader));
    BuildIdEntry entry;
    entry.pid = header->pid;
    entry.cpumode = header->header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
    // Old perf did not record the length: it wrote 20 bytes of SHA-1 then zeros.
    size_t id_size = (header->header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE)
                         ? std::min<size_t>(header->build_id_size, 20)
                         : 20;
    entry.build_id.assign(header->build_id, header->build_id + id_size);
    std::string_view text(reinterpret_cast<const char*>(name.data()), name.size());
    entry.filename = std::string(text.substr(0, text.find('\0')));
    entries.push_back(std::move(entry));
  }
  return entries;
}

FeatureSections encode_features(const FeatureSet& f, bool pipe_mode) {
  FeatureSections out;
  if (f.tracing_data && !pipe_mode) out[HEADER_TRACING_DATA] = *f.tracing_data;
  if (f.build_ids && !pipe_mode) {
    ByteWriter w;
    for (const auto& entry : *f.build_ids) encode_build_id(entry, 0, w);
    out[HEADER_BUILD_ID] = std::move(w.str());
  }
  if (f.hostname) out[HEADER_HOSTNAME] = encode_string(*f.hostname);
  if (f.os_release) out[HEADER_OSRELEASE] = encode_string(*f.os_release);
  if (f.version) out[HEADER_VERSION] = encode_string(*f.version);
  if (f.arch) out[HEADER_ARCH] = encode_string(*f.arch);
  if (f.nr_cpus) {
    ByteWriter w;
    w.put(f.nr_cpus->available);
    w.put(f.nr_cpus->online);
    out[HEADER_NRCPUS] = std::move(w.str());
  }
  if (f.cpu_desc) out[HEADER_CPUDESC] = encode_string(*f.cpu_desc);
  if (f.cpuid) out[HEADER_CPUID] = encode_string(*f.cpuid);
  if (f.total_mem_kb) out[HEADER_TOTAL_MEM] = encode_value(*f.total_mem_kb);
  if (f.cmdline) {
    ByteWriter w;
    put_string_list(w, *f.cmdline);
    out[HEADER_CMDLINE] = std::move(w.str());
  }
  if (f.event_desc) out[HEADER_EVENT_DESC] = encode_event_desc(*f.event_desc);
  if (f.cpu_topology) out[HEADER_CPU_TOPOLOGY] = encode_cpu_topology(*f.cpu_topology);
  if (f.pmu_mappings) {
    ByteWriter w;
    w.put(static_cast<uint32_t>(f.pmu_mappings->size()));
    for (const auto& [type, name] : *f.pmu_mappings) {
      w.put(type);
      w.put_string(name);
    }
    out[HEADER_PMU_MAPPINGS] = std::move(w.str());
  }
  if (f.groups) {
    ByteWriter w;
    w.put(static_cast<uint32_t>(f.groups->size()));
    for (const GroupDesc& group : *f.groups) {
      w.put_string(group.name);
      w.put(group.leader);
      w.put(group.members);
    }
    out[HEADER_GROUP_DESC] = std::move(w.str());
  }
  if (f.sample_time) {
    ByteWriter w;
    w.put(f.sample_time->first);
    w.put(f.sample_time->last);
    out[HEADER_SAMPLE_TIME] = std::move(w.str());
  }
  if (f.clockid_res_ns) out[HEADER_CLOCKID] = encode_value(*f.clockid_res_ns);
  if (f.compressed) out[HEADER_COMPRESSED] = encode_value(*f.compressed);
  if (f.clock_data) {
    ByteWriter w;
    w.put(uint32_t{1});  // version
    w.put(f.clock_data->clockid);
    w.put(f.clock_data->tod_ns);
    w.put(f.clock_data->clockid_ns);
    out[HEADER_CLOCK_DATA] = std::move(w.str());
  }
  return out;
}

Result<void> decode_feature(int feature, Bytes section, FeatureSet& f) {
  ByteReader in(section);
  auto string_feature = [&](std::optional<std::string>& field) -> Result<void> {
    auto s = in.read_string();
    if (!s) return fail("truncated string");
    field = std::move(*s);
    return {};
  };
  Result<void> result;
  switch (feature) {
    case HEADER_HOSTNAME:
      result = string_feature(f.hostname);
      break;
    case HEADER_OSRELEASE:
      result = string_feature(f.os_release);
      break;
    case HEADER_VERSION:
      result = string_feature(f.version);
      break;
    case HEADER_ARCH:
      result = string_feature(f.arch);
      break;
    case HEADER_CPUDESC:
      result = string_feature(f.cpu_desc);
      break;
    case HEADER_CPUID:
      result = string_feature(f.cpuid);
      break;
    case HEADER_NRCPUS: {
      auto available = in.read<uint32_t>();
      auto online = in.read<uint32_t>();
      if (!available || !online)
        result = fail("truncated");
      else
        f.nr_cpus = NrCpus{*available, *online};
      break;
    }
    case HEADER_TOTAL_MEM: {
      auto kb = in.read<uint64_t>();
      if (!kb)
        result = fail("truncated");
      else
        f.total_mem_kb = *kb;
      break;
    }
    case HEADER_CMDLINE: {
      auto list = read_string_list(in);
      if (!list)
        result = tl::unexpected(list.error());
      else
        f.cmdline = std::move(*list);
      break;
    }
    case HEADER_EVENT_DESC: {
      auto events = decode_event_desc(in);
      if (!events)
        result = tl::unexpected(events.error());
      else
        f.event_desc = std::move(*events);
      break;
    }
    case HEADER_CPU_TOPOLOGY: {
      // NRCPUS comes first in feature order; without it, the rest of the section is the ids.
      uint32_t nr = f.nr_cpus ? f.nr_cpus->available : 0;
      auto topology = decode_cpu_topology(in, nr);
      if (!topology)
        result = tl::unexpected(topology.error());
      else
        f.cpu_topology = std::move(*topology);
      break;
    }
    case HEADER_NUMA_TOPOLOGY: {
      auto nodes = decode_numa_topology(in);
      if (!nodes)
        result = tl::unexpected(nodes.error());
      else
        f.numa_nodes = std::move(*nodes);
      break;
    }
    case HEADER_CACHE: {
      auto caches = decode_caches(in);
      if (!caches)
        result = tl::unexpected(caches.error());
      else
        f.caches = std::move(*caches);
      break;
    }
    case HEADER_MEM_TOPOLOGY: {
      auto topology = decode_memory_topology(in);
      if (!topology)
        result = tl::unexpected(topology.error());
      else
        f.memory_topology = std::move(*topology);
      break;
    }
    case HEADER_BUILD_ID: {
      auto entries = decode_build_ids(section);
      if (!entries)
        result = tl::unexpected(entries.error());
      else
        f.build_ids = std::move(*entries);
      break;
    }
    case HEADER_PMU_MAPPINGS: {
      auto nr = in.read<uint32_t>();
      if (!nr) {
        result = fail("truncated");
        break;
      }
      std::vector<std::pair<uint32_t, std::string>> mappings;
      for (uint32_t i = 0; i < *nr && result; ++i) {
        auto type = in.read<uint32_t>();
        auto name = in.read_string();
        if (!type || !name)
          result = failf("mapping {} truncated", i);
        else
          mappings.emplace_back(*type, std::move(*name));
      }
      if (result) f.pmu_mappings = std::move(mappings);
      break;
    }
    case HEADER_GROUP_DESC: {
      auto nr = in.read<uint32_t>();
      if (!nr) {
        result = fail("truncated");
        break;
      }
      std::vector<GroupDesc> groups;
      for (uint32_t i = 0; i < *nr && result; ++i) {
        auto name = in.read_string();
        auto leader = in.read<uint32_t>();
        auto members = in.read<uint32_t>();
        if (!name || !leader || !members)
          result = failf("group {} truncated", i);
        else
          groups.push_back({std::move(*name), *leader, *members});
      }
      if (result) f.groups = std::move(groups);
      break;
    }
    case HEADER_SAMPLE_TIME: {
      auto first = in.read<uint64_t>();
      auto last = in.read<uint64_t>();
      if (!first || !last)
        result = fail("truncated");
      else
        f.sample_time = SampleTime{*first, *last};
      break;
    }
    case HEADER_CLOCKID: {
      auto res = in.read<uint64_t>();
      if (!res)
        result = fail("truncated");
      else
        f.clockid_res_ns = *res;
      break;
    }
    case HEADER_CLOCK_DATA: {
      auto version = in.read<uint32_t>();
      auto clockid = in.read<uint32_t>();
      auto tod = in.read<uint64_t>();
      auto ref = in.read<uint64_t>();
      if (!version || !clockid || !tod || !ref)
        result = fail("truncated");
      else if (*version != 1)
        result = failf("version {} (perf knows 1)", *version);
      else
        f.clock_data = ClockData{*clockid, *tod, *ref};
      break;
    }
    case HEADER_COMPRESSED: {
      auto compressed = in.read<CompressedFeature>();
      if (!compressed)
        result = fail("truncated");
      else
        f.compressed = *compressed;
      break;
    }
    default:
      break;  // present, kept as raw bytes by the reader
  }
  if (!result)
    return tl::unexpected(result.error().with_context(fmt::format("feature {}", feature_name(feature))));
  return {};
}

}  // namespace sonde::perfdata
