#include "kernel/probe_events.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>

#include "base/file.hpp"
#include "base/strings.hpp"
#include "base/unique_fd.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::kernel {

namespace {

const char* file_name(ProbeKind kind) {
  return kind == ProbeKind::uprobe ? "uprobe_events" : "kprobe_events";
}

Result<std::string> events_path(ProbeKind kind) {
  auto root = tracefs_root();
  if (!root) return tl::unexpected(root.error());
  return *root + "/" + file_name(kind);
}

// One definition per write, appended: the kernel parses each write as whole lines.
Result<void> append_line(ProbeKind kind, const std::string& line) {
  auto path = events_path(kind);
  if (!path) return tl::unexpected(path.error());
  UniqueFd fd(::open(path->c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!fd) return fail_errno(errno, fmt::format("cannot open {}", *path));
  std::string text = line + "\n";
  if (!write_all(fd.get(), text))
    return fail_errno(errno, fmt::format("the kernel refused '{}' in {}", line, file_name(kind)));
  return {};
}

}  // namespace

std::string probe_event_definition(const ProbeEventLine& line) {
  std::string text =
      fmt::format("{}:{}/{} {}", line.retprobe ? 'r' : 'p', line.group, line.event, line.place);
  for (const std::string& arg : line.fetchargs) text += " " + arg;
  return text;
}

std::optional<ProbeEventLine> parse_probe_event_line(std::string_view text, ProbeKind kind) {
  std::vector<std::string> words;
  for (std::string& word : split(text, ' '))
    if (!word.empty()) words.push_back(std::move(word));
  if (words.size() < 2 || words[0].size() < 3) return std::nullopt;
  ProbeEventLine line;
  line.kind = kind;
  char type = words[0][0];
  if (type != 'p' && type != 'r') return std::nullopt;
  line.retprobe = type == 'r';
  size_t colon = words[0].find(':');
  size_t slash = words[0].find('/');
  if (colon == std::string::npos || slash == std::string::npos || slash < colon) return std::nullopt;
  line.group = words[0].substr(colon + 1, slash - colon - 1);
  line.event = words[0].substr(slash + 1);
  line.place = words[1];
  line.fetchargs.assign(words.begin() + 2, words.end());
  line.text = std::string(text);
  return line;
}

bool probe_events_supported(ProbeKind kind) {
  auto path = events_path(kind);
  return path && ::access(path->c_str(), F_OK) == 0;
}

Result<std::vector<ProbeEventLine>> read_probe_events(ProbeKind kind) {
  auto path = events_path(kind);
  if (!path) return tl::unexpected(path.error());
  auto text = read_file(*path);
  if (!text) return tl::unexpected(text.error());
  std::vector<ProbeEventLine> lines;
  for (const std::string& row : split(*text, '\n'))
    if (auto line = parse_probe_event_line(row, kind)) lines.push_back(std::move(*line));
  return lines;
}

Result<void> add_probe_event(const ProbeEventLine& line) {
  return append_line(line.kind, probe_event_definition(line));
}

Result<void> remove_probe_event(ProbeKind kind, std::string_view group, std::string_view event) {
  return append_line(kind, fmt::format("-:{}/{}", group, event));
}

}  // namespace sonde::kernel
