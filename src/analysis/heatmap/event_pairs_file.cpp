#include "analysis/heatmap/event_pairs_file.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <optional>

#include "analysis/heatmap/tracepoint_field.hpp"
#include "base/strings.hpp"
#include "session/session.hpp"
#include "session/tracepoint_formats.hpp"

namespace sonde::analysis {

namespace {

// A tracepoint of the file: each attr of type PERF_TYPE_TRACEPOINT, by its attr index.
struct FileTracepoint {
  std::string name;  // "system:name"
  tep_event* format = nullptr;
  uint64_t sample_type = 0;
};

enum class SampleKey { none, tid, pid, cpu };

struct KeyPart {
  const tep_format_field* field = nullptr;  // a payload field, or
  SampleKey sample = SampleKey::none;       // a value of the sample itself
};

struct PairRule {
  std::string start, end;
  std::vector<KeyPart> start_key, end_key;
  EventPairMatcher matcher;
};

struct Role {
  size_t rule;
  bool start;
};

class PairPlan {
 public:
  PairPlan(std::string path, std::vector<std::optional<FileTracepoint>> events)
      : path_(std::move(path)), events_(std::move(events)) {}

  Result<void> build(const EventPairRequest& request) {
    if (request.start_event.empty() != request.end_event.empty())
      return fail("--start and --end name the two events of a pair: give both");
    if (request.start_event.empty()) {
      if (!request.start_key.empty() || !request.end_key.empty())
        return fail("--key names fields of the --start and --end events: give them too");
      return recognise();
    }
    auto start = find(request.start_event);
    if (!start) return tl::unexpected(start.error());
    auto end = find(request.end_event);
    if (!end) return tl::unexpected(end.error());
    if (*start == *end) return failf("--start and --end are both {}: a pair needs two events", *start);
    const std::vector<std::string>& end_key = request.end_key.empty() ? request.start_key : request.end_key;
    if (end_key.size() != request.start_key.size())
      return failf("--key has {} fields and --end-key {}: give each side the same number",
                   request.start_key.size(), end_key.size());
    return add_rule(*start, *end, request.start_key, end_key);
  }

  std::string description() const {
    std::string keys = key_names_.empty() ? "thread" : join(key_names_, ",");
    if (rules_.size() == 1) return fmt::format("{} -> {} by {}", rules_[0].start, rules_[0].end, keys);
    return fmt::format("syscalls:sys_enter_* -> syscalls:sys_exit_* ({} syscalls) by thread", rules_.size());
  }

  std::vector<PairRule>& rules() { return rules_; }
  const std::vector<std::vector<Role>>& roles() const { return roles_; }

 private:
  bool has(std::string_view name) const {
    return std::any_of(events_.begin(), events_.end(), [&](const auto& e) { return e && e->name == name; });
  }

  Result<void> recognise() {
    if (has("block:block_rq_issue") && has("block:block_rq_complete"))
      return add_rule("block:block_rq_issue", "block:block_rq_complete", {"dev", "sector"},
                      {"dev", "sector"});
    if (has("raw_syscalls:sys_enter") && has("raw_syscalls:sys_exit"))
      return add_rule("raw_syscalls:sys_enter", "raw_syscalls:sys_exit", {}, {});
    constexpr std::string_view kEnter = "syscalls:sys_enter_";
    std::vector<std::string> enters;
    for (const auto& event : events_)
      if (event && event->name.starts_with(kEnter) &&
          std::find(enters.begin(), enters.end(), event->name) == enters.end())
        enters.push_back(event->name);
    for (const std::string& enter : enters) {
      std::string exit = "syscalls:sys_exit_" + enter.substr(kEnter.size());
      if (!has(exit)) continue;
      if (auto added = add_rule(enter, exit, {}, {}); !added) return added;
    }
    if (!rules_.empty()) return {};
    return failf(
        "{} holds no event pair sonde recognises (block:block_rq_issue with block:block_rq_complete, "
        "raw_syscalls:sys_enter with sys_exit, syscalls:sys_enter_X with sys_exit_X): record one, or name "
        "two events with --start, --end and --key",
        path_);
  }

  // The file's name of an event given as "system:name", or as "name" when only one system has it.
  Result<std::string> find(const std::string& wanted) const {
    std::vector<std::string> names, matches;
    for (const auto& event : events_) {
      if (!event || std::find(names.begin(), names.end(), event->name) != names.end()) continue;
      names.push_back(event->name);
      std::string_view name = event->name;
      if (name == wanted ||
          (wanted.find(':') == std::string::npos && name.substr(name.find(':') + 1) == wanted))
        matches.push_back(event->name);
    }
    if (matches.size() == 1) return matches[0];
    if (matches.size() > 1)
      return failf("'{}' names several events of {} ({}): give system:name", wanted, path_,
                   join(matches, ", "));
    if (names.empty())
      return failf("{} has no tracepoint event '{}' (it holds no tracepoints)", path_, wanted);
    return failf("{} has no event '{}' (its tracepoints: {})", path_, wanted, join(names, ", "));
  }

  Result<std::vector<KeyPart>> key_parts(const std::string& event_name,
                                         const std::vector<std::string>& names) const {
    const FileTracepoint* event = nullptr;
    for (const auto& e : events_)
      if (e && e->name == event_name) event = &*e;
    std::vector<KeyPart> parts;
    if (names.empty()) {
      parts.push_back({nullptr, SampleKey::tid});
      return parts;
    }
    for (const std::string& name : names) {
      KeyPart part;
      part.field = find_tracepoint_field(event->format, name);
      if (part.field == nullptr) {
        if (name == "tid")
          part.sample = SampleKey::tid;
        else if (name == "pid")
          part.sample = SampleKey::pid;
        else if (name == "cpu")
          part.sample = SampleKey::cpu;
        else
          return failf("{} has no field '{}' (its fields: {}; or tid, pid, cpu of the sample)", event_name,
                       name, tracepoint_field_names(event->format));
      }
      if (part.field != nullptr && !(event->sample_type & PERF_SAMPLE_RAW))
        return failf("{} was recorded without its payload (PERF_SAMPLE_RAW): its field '{}' cannot be read",
                     event_name, name);
      if (part.sample == SampleKey::cpu && !(event->sample_type & PERF_SAMPLE_CPU))
        return failf("{} was recorded without the CPU (PERF_SAMPLE_CPU): record with -a or name another key",
                     event_name);
      parts.push_back(part);
    }
    return parts;
  }

  Result<void> add_rule(const std::string& start, const std::string& end,
                        const std::vector<std::string>& start_key, const std::vector<std::string>& end_key) {
    PairRule rule{start, end, {}, {}, {}};
    auto starts = key_parts(start, start_key);
    if (!starts) return tl::unexpected(starts.error());
    auto ends = key_parts(end, end_key);
    if (!ends) return tl::unexpected(ends.error());
    rule.start_key = std::move(*starts);
    rule.end_key = std::move(*ends);
    key_names_ = start_key == end_key || end_key.empty()
                     ? start_key
                     : std::vector{join(start_key, ",") + "=" + join(end_key, ",")};
    roles_.resize(events_.size());
    for (size_t i = 0; i < events_.size(); ++i) {
      if (!events_[i]) continue;
      bool is_start = events_[i]->name == start, is_end = events_[i]->name == end;
      if (!is_start && !is_end) continue;
      if (!(events_[i]->sample_type & PERF_SAMPLE_TIME))
        return failf("{} was recorded without times (PERF_SAMPLE_TIME): no latency can be measured",
                     events_[i]->name);
      roles_[i].push_back({rules_.size(), is_start});
    }
    rules_.push_back(std::move(rule));
    return {};
  }

  std::string path_;
  std::vector<std::optional<FileTracepoint>> events_;
  std::vector<PairRule> rules_;
  std::vector<std::vector<Role>> roles_;  // by attr index
  std::vector<std::string> key_names_;
};

class PairCollector : public session::SessionVisitor {
 public:
  PairCollector(PairPlan& plan, const ScriptFilter& threads, EventPairs& out)
      : plan_(plan), threads_(threads), out_(out) {}

  void on_sample(const session::SampleEvent& event) override {
    const auto& roles = plan_.roles();
    if (event.event_index >= roles.size()) return;
    for (const Role& role : roles[event.event_index]) {
      PairRule& rule = plan_.rules()[role.rule];
      const perfdata::Sample& sample = event.sample;
      if (role.start && threads_.filters_threads() &&
          threads_.skip_thread(event.thread.comm, static_cast<int32_t>(sample.pid),
                               static_cast<int32_t>(sample.tid)))
        continue;
      auto key = key_of(role.start ? rule.start_key : rule.end_key, sample);
      if (!key) {
        out_.unreadable++;
        continue;
      }
      if (role.start) {
        out_.starts++;
        rule.matcher.start(*key, sample.time);
      } else {
        out_.ends++;
        rule.matcher.end(*key, sample.time);
      }
    }
  }

 private:
  static std::optional<PairKey> key_of(const std::vector<KeyPart>& parts, const perfdata::Sample& sample) {
    PairKey key;
    for (size_t i = 0; i < parts.size(); ++i) {
      uint64_t value = 0;
      if (parts[i].field != nullptr) {
        auto read = tracepoint_key_value(*parts[i].field, sample.raw);
        if (!read) return std::nullopt;
        value = *read;
      } else if (parts[i].sample == SampleKey::tid) {
        value = sample.tid;
      } else if (parts[i].sample == SampleKey::pid) {
        value = sample.pid;
      } else {
        value = sample.cpu;
      }
      if (i == 0)
        key.a = value;
      else
        key.b = key.b * 0x9e3779b97f4a7c15ull + value;  // one field: itself; more: mixed
    }
    return key;
  }

  PairPlan& plan_;
  const ScriptFilter& threads_;
  EventPairs& out_;
};

}  // namespace

Result<EventPairs> match_event_pairs(const std::string& path, const EventPairRequest& request,
                                     Diagnostics& diagnostics) {
  auto session = session::Session::open(path, diagnostics);
  if (!session) return tl::unexpected(session.error());
  session->set_locate_callchains(false);
  sonde::Bytes blob = session->reader().tracing_data();
  std::optional<session::TracepointFormats> formats;
  if (!blob.empty()) {
    auto parsed = session::TracepointFormats::parse(blob);
    if (!parsed) return tl::unexpected(parsed.error().with_context(path + ": tracing data"));
    formats = std::move(*parsed);
  }
  std::vector<std::optional<FileTracepoint>> events;
  for (const perfdata::EventAttr& attr : session->reader().attrs().events()) {
    tep_event* format =
        attr.attr.type == PERF_TYPE_TRACEPOINT && formats ? formats->find(attr.attr.config) : nullptr;
    if (format == nullptr) {
      events.emplace_back();
      continue;
    }
    events.push_back(
        FileTracepoint{session::TracepointFormats::qualified_name(format), format, attr.attr.sample_type});
  }
  PairPlan plan(path, std::move(events));
  if (auto built = plan.build(request); !built) return tl::unexpected(built.error());

  EventPairs out;
  out.description = plan.description();
  PairCollector collector(plan, request.threads, out);
  if (auto replayed = session->process(collector); !replayed) return tl::unexpected(replayed.error());
  for (PairRule& rule : plan.rules()) {
    const auto& pairs = rule.matcher.pairs();
    out.pairs.insert(out.pairs.end(), pairs.begin(), pairs.end());
    out.unmatched_ends += rule.matcher.unmatched_ends();
    out.pending_starts += rule.matcher.pending_starts();
  }
  std::stable_sort(out.pairs.begin(), out.pairs.end(),
                   [](const LatencyPair& a, const LatencyPair& b) { return a.start_ns < b.start_ns; });
  if (out.pairs.empty())
    return failf("no pair of {} matched in {} ({} starts, {} ends)", out.description, path, out.starts,
                 out.ends);
  return out;
}

}  // namespace sonde::analysis
