#include "pipeline/sdt_cache.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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

namespace {

// Each run that defines SDT events for itself lists them in a lease named after its pid, so the
// next run can tell the events a killed run left behind (gone pid) from those a user defined.
constexpr const char* kLeaseDirectory = "/run/sonde";
constexpr std::string_view kLeasePrefix = "sdt-probes.";

std::string lease_path(pid_t pid) { return fmt::format("{}/{}{}", kLeaseDirectory, kLeasePrefix, pid); }

struct LeftBehind {
  std::string lease;
  pid_t pid;
  std::vector<std::string> names;  // "group:event"
};

std::vector<LeftBehind> leases_left_behind() {
  std::vector<LeftBehind> left;
  auto entries = list_directory(kLeaseDirectory);
  if (!entries) return left;
  for (const std::string& entry : *entries) {
    if (!entry.starts_with(kLeasePrefix)) continue;
    auto pid = parse_uint(std::string_view(entry).substr(kLeasePrefix.size()), 10);
    if (!pid || *pid == 0 || *pid > INT32_MAX) continue;
    if (::kill(static_cast<pid_t>(*pid), 0) == 0 || errno != ESRCH) continue;
    std::string path = fmt::format("{}/{}", kLeaseDirectory, entry);
    LeftBehind lease{path, static_cast<pid_t>(*pid), {}};
    if (auto text = read_file(path))
      for (const std::string& name : split(*text, '\n'))
        if (!name.empty()) lease.names.push_back(name);
    left.push_back(std::move(lease));
  }
  return left;
}

}  // namespace

TemporarySdtProbes::~TemporarySdtProbes() {
  for (const auto& [group, event] : defined_)
    (void)kernel::remove_probe_event(kernel::ProbeKind::uprobe, group, event);
  if (!lease_.empty()) ::unlink(lease_.c_str());
}

void TemporarySdtProbes::write_lease() {
  std::string text;
  for (const auto& [group, event] : defined_) text += group + ":" + event + "\n";
  if (lease_.empty()) {
    if (::mkdir(kLeaseDirectory, 0700) != 0 && errno != EEXIST) return;
    lease_ = lease_path(::getpid());
  }
  // Without a lease the run still works; only a later run cannot name what a kill left.
  (void)replace_file(lease_, text, 0600);
}

Result<void> TemporarySdtProbes::define(const std::vector<std::string>& patterns,
                                        const std::string& cache_dir, Diagnostics& diagnostics) {
  std::vector<LeftBehind> left = leases_left_behind();
  bool names_sdt = std::any_of(patterns.begin(), patterns.end(), [](const std::string& pattern) {
    return pattern.starts_with("sdt_") && pattern.find(':') != std::string::npos;
  });
  if (left.empty() && !names_sdt) return {};
  std::set<std::string> existing;
  if (auto lines = kernel::read_probe_events(kernel::ProbeKind::uprobe))
    for (const auto& line : *lines) existing.insert(line.group + ":" + line.event);
  // What a killed run defined for itself becomes this run's, so it goes when this run ends.
  for (const LeftBehind& lease : left) {
    for (const std::string& name : lease.names) {
      size_t colon = name.find(':');
      if (colon == std::string::npos || !existing.contains(name)) continue;
      diagnostics.warningf(
          "the SDT event {} was left defined by a sonde run that was killed (pid {}); this run removes it "
          "when it ends ('sonde probe -d {}' removes it by hand)",
          name, lease.pid, name);
      defined_.emplace_back(name.substr(0, colon), name.substr(colon + 1));
    }
  }
  if (!defined_.empty()) write_lease();
  for (const LeftBehind& lease : left) ::unlink(lease.lease.c_str());

  std::vector<CachedSdtEvent> cached;
  for (const std::string& pattern : patterns) {
    if (!pattern.starts_with("sdt_") || pattern.find(':') == std::string::npos) continue;
    if (cached.empty()) cached = cached_sdt_events(cache_dir);
    std::set<std::string> done;
    for (const CachedSdtEvent& event : cached) {
      std::string name = event.group + ":" + event.event;
      if (!glob_match(pattern, name) || existing.contains(name)) continue;
      auto line = kernel::parse_probe_event_line(event.definition, kernel::ProbeKind::uprobe);
      if (!line) continue;
      // The lease names the event before it exists: a kill between the two leaves nothing unnamed.
      // (A marker with several sites has several lines, all of one event.)
      bool first_site = done.insert(name).second;
      if (first_site) {
        defined_.emplace_back(event.group, event.event);
        write_lease();
      }
      if (auto added = kernel::add_probe_event(*line); !added) {
        if (first_site) defined_.pop_back();
        return tl::unexpected(
            added.error().with_context(fmt::format("defining the SDT event {} for the run", name)));
      }
    }
    for (const std::string& name : done) existing.insert(name);
  }
  return {};
}

}  // namespace sonde::pipeline
