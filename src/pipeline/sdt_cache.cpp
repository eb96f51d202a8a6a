#include "pipeline/sdt_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "kernel/probe_events.hpp"
#include "kernel/tracefs.hpp"
#include "probe/sdt_notes.hpp"
#include "symbols/buildid_cache.hpp"
#include "symbols/elf_image.hpp"

namespace sonde::pipeline {

Result<void> cache_sdt_markers(const std::string& cache_dir, const std::string& binary) {
  char resolved[4096];
  if (!::realpath(binary.c_str(), resolved)) return failf("{}: {}", binary, errno_text(errno));
  auto image = symbols::ElfImage::open(resolved);
  if (!image) return tl::unexpected(image.error());
  auto notes = probe::read_sdt_notes(image->elf());
  if (!notes || notes->empty()) return {};
  std::string text;
  for (const probe::SdtNote& note : *notes) {
    auto offset = probe::sdt_probe_file_offset(image->elf(), note);
    auto args = probe::sdt_fetchargs(note);
    if (!offset || !args) continue;
    std::string group = probe::sdt_event_group(note);
    std::string place = fmt::format("{}:{:#x}", resolved, *offset);
    if (note.semaphore)
      if (auto semaphore = probe::semaphore_file_offset(image->elf(), note))
        place += fmt::format("({:#x})", *semaphore);
    kernel::ProbeEventLine line{kernel::ProbeKind::uprobe, false, group, note.name, place, *args, ""};
    text += fmt::format("%{}:{}={}\n{}\n", group, note.name, note.name, kernel::probe_event_definition(line));
  }
  std::string path = fmt::format("{}{}/{}/probes", cache_dir, resolved, image->build_id());
  return replace_file(path, text, 0644);  // perf's build-id cache files are readable
}

std::vector<CachedSdtEvent> cached_sdt_events(const std::string& cache_dir) {
  std::vector<CachedSdtEvent> events;
  for (const auto& entry : symbols::buildid_cache_list(cache_dir)) {
    auto text = read_file(fmt::format("{}{}/{}/probes", cache_dir, entry.path, entry.build_id));
    if (!text) continue;
    for (const std::string& row : split(*text, '\n'))
      if (auto line = kernel::parse_probe_event_line(row, kernel::ProbeKind::uprobe))
        events.push_back({line->group, line->event, row});
  }
  std::stable_sort(events.begin(), events.end(), [](const CachedSdtEvent& a, const CachedSdtEvent& b) {
    return a.group != b.group ? a.group < b.group : a.event < b.event;
  });
  return events;
}

TemporarySdtProbes::~TemporarySdtProbes() {
  for (const auto& [group, event] : defined_)
    (void)kernel::remove_probe_event(kernel::ProbeKind::uprobe, group, event);
}

Result<void> TemporarySdtProbes::define(const std::vector<std::string>& patterns,
                                        const std::string& cache_dir) {
  std::vector<CachedSdtEvent> cached;
  std::set<std::string> existing;
  if (auto lines = kernel::read_probe_events(kernel::ProbeKind::uprobe))
    for (const auto& line : *lines) existing.insert(line.group + ":" + line.event);
  for (const std::string& pattern : patterns) {
    if (!pattern.starts_with("sdt_") || pattern.find(':') == std::string::npos) continue;
    if (cached.empty()) cached = cached_sdt_events(cache_dir);
    std::set<std::string> done;
    for (const CachedSdtEvent& event : cached) {
      std::string name = event.group + ":" + event.event;
      if (!glob_match(pattern, name) || existing.contains(name)) continue;
      auto line = kernel::parse_probe_event_line(event.definition, kernel::ProbeKind::uprobe);
      if (!line) continue;
      if (auto added = kernel::add_probe_event(*line); !added)
        return tl::unexpected(
            added.error().with_context(fmt::format("defining the SDT event {} for the run", name)));
      if (done.insert(name).second) defined_.emplace_back(event.group, event.event);
    }
    for (const std::string& name : done) existing.insert(name);
  }
  return {};
}

}  // namespace sonde::pipeline
