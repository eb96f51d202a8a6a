// A recursive-descent parser for perf's -e syntax:
//   list    := item (',' item)*
//   item    := '{' event (',' event)* '}' [':' modifiers] | event
//   event   := symbol | cache | raw | pmu '/' terms '/' [modifiers] | symbol '/' terms '/' [modifiers]
//              | system ':' name [':' modifiers] | 'mem:' addr ['/' len] [':' rwx] | type ':' config
//   (symbol, cache, raw, a PMU's bare event name and numeric events take [':' modifiers])
// Differences from perf 6.1, on purpose: a group without its closing '}' is an error, a
// tracepoint system may be a lone '*' ('*:sched_switch'), spaces around ',' are skipped rather
// than kept in the name, and repeated cache operations ("L1-dcache-load-load") are errors.
// Tool events (duration_time...) are not parsed: they are not kernel events.
#include "events/parse_events.hpp"

#include <linux/hw_breakpoint.h>

#include <cctype>
#include <map>
#include <optional>

#include "base/strings.hpp"
#include "events/catalogue.hpp"
#include "events/modifiers.hpp"
#include "events/pmu_terms.hpp"
#include "events/scanner.hpp"
#include "events/syntax.hpp"
#include "events/tracepoints.hpp"
#include "kernel/pmu_sysfs.hpp"
#include "kernel/tracefs.hpp"

namespace sonde::events {

namespace {

constexpr std::string_view kListHint = "run 'sonde list' for valid events";

EventSpec new_event(uint32_t type, uint64_t config) {
  EventSpec event;
  event.attr.size = sizeof(perf_event_attr);
  event.attr.type = type;
  event.attr.config = config;
  // perf's event_attr_init: host-only counting unless perf runs with --guest.
  event.attr.exclude_guest = 1;
  return event;
}

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Decimal or 0x hex, as perf's lexer reads numbers outside term lists.
std::optional<uint64_t> number(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) {
    std::string_view digits = text.substr(2);
    if (digits.empty()) return std::nullopt;
    for (char c : digits)
      if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    return parse_uint(digits, 16);
  }
  if (!all_digits(text)) return std::nullopt;
  return parse_uint(text, 10);
}

class EventParser {
 public:
  EventParser(std::string_view text, size_t first_index)
      : text_(text), scanner_(text), first_index_(first_index) {}

  Parsed<std::vector<EventSpec>> parse() {
    scanner_.skip_spaces();
    if (scanner_.at_end()) return syntax_error(scanner_.pos(), "no event given; {}", kListHint);
    while (true) {
      scanner_.skip_spaces();
      auto item = scanner_.peek() == '{' ? parse_group() : parse_event(true);
      if (!item) return tl::unexpected(item.error());
      scanner_.skip_spaces();
      if (scanner_.take(',')) continue;
      if (scanner_.at_end()) break;
      if (scanner_.peek() == '}') return syntax_error(scanner_.pos(), "'}}' without a group to close");
      if (scanner_.peek() == ':')
        return syntax_error(scanner_.pos(), "a second ':': give all modifiers at once, as in cycles:uk");
      return syntax_error(scanner_.pos(), "unexpected '{}' after the event (expected ',' or the end)",
                          scanner_.peek());
    }
    return std::move(events_);
  }

 private:
  size_t next_index() const { return first_index_ + events_.size(); }

  Parsed<void> parse_group() {
    size_t open = scanner_.pos();
    scanner_.take('{');
    size_t first_member = events_.size();
    scanner_.skip_spaces();
    if (scanner_.peek() == '}')
      return syntax_error(scanner_.pos(), "empty group: name its events, as in {{cycles,instructions}}");
    while (true) {
      scanner_.skip_spaces();
      if (scanner_.peek() == '{') return syntax_error(scanner_.pos(), "groups cannot be nested");
      if (auto event = parse_event(events_.size() == first_member); !event) return event;
      scanner_.skip_spaces();
      if (scanner_.take(',')) continue;
      if (scanner_.take('}')) break;
      if (scanner_.at_end()) return syntax_error(open, "this '{{' has no closing '}}'");
      return syntax_error(scanner_.pos(), "unexpected '{}' in the group (expected ',' or '}}')",
                          scanner_.peek());
    }
    int leader = static_cast<int>(first_index_ + first_member);
    for (size_t i = first_member; i < events_.size(); ++i) {
      events_[i].group_leader = leader;
      events_[i].in_group = true;
    }
    if (scanner_.take(':')) {
      size_t pos = scanner_.pos();
      std::string_view letters = scanner_.letters();
      for (size_t i = first_member; i < events_.size(); ++i)
        if (auto applied = apply_modifiers(events_[i], letters, pos, i == first_member, true); !applied)
          return applied;
    }
    return {};
  }

  // Parses one event (several for a tracepoint glob or a bare PMU event name several PMUs
  // have) and appends it.
  Parsed<void> parse_event(bool leader) {
    size_t start = scanner_.pos();
    std::string_view word = scanner_.name();
    if (word.empty()) {
      if (scanner_.at_end()) return syntax_error(start, "expected an event name; {}", kListHint);
      return syntax_error(start, "unexpected '{}': expected an event name; {}", scanner_.peek(), kListHint);
    }
    std::vector<EventSpec> parsed;
    Parsed<void> result;
    if (word == "mem" && scanner_.peek() == ':')
      result = parse_breakpoint(start, leader, parsed);
    else if (all_digits(word) && scanner_.peek() == ':')
      result = parse_numeric(start, word, leader, parsed);
    else if (scanner_.peek() == '/')
      result = parse_with_terms(start, word, leader, parsed);
    else {
      auto named = resolve_named(start, word);
      if (!named) return tl::unexpected(named.error());
      if (named->empty()) {
        if (scanner_.peek() == ':')
          result = parse_tracepoint(start, word, leader, parsed);
        else
          return syntax_error(start, "unknown event '{}'; {}", word, kListHint);
      } else {
        parsed = std::move(*named);
        if (scanner_.take(':')) {
          size_t letters_pos = scanner_.pos();
          result = apply_to_all(parsed, letters_pos, scanner_.letters(), leader);
        }
        name_unnamed(parsed, text_.substr(start, scanner_.pos() - start));
      }
    }
    if (!result) return result;
    for (auto& event : parsed) {
      event.group_leader = static_cast<int>(next_index());
      events_.push_back(std::move(event));
    }
    return {};
  }

  Parsed<void> apply_to_all(std::vector<EventSpec>& events, size_t pos, std::string_view letters,
                            bool leader) {
    for (auto& event : events)
      if (auto applied = apply_modifiers(event, letters, pos, leader); !applied) return applied;
    return {};
  }

  // perf names an event by its text as written ("cycles:u", "msr/tsc/") unless the event
  // already has a name (a name= term, a cache event's or a tracepoint's own).
  static void name_unnamed(std::vector<EventSpec>& events, std::string_view text) {
    for (auto& event : events)
      if (event.name.empty()) event.name = std::string(text);
  }

  // Hardware and software symbols, raw rNNN, cache events, and bare names of PMU events
  // ("tsc" for msr/tsc/); empty when `word` is none of these.
  Parsed<std::vector<EventSpec>> resolve_named(size_t start, std::string_view word) {
    std::vector<EventSpec> events;
    if (const SymbolEvent* symbol = find_symbol_event(word)) {
      events.push_back(new_event(symbol->type, symbol->config));
      return events;
    }
    if (word.size() > 1 && word[0] == 'r' && number("0x" + std::string(word.substr(1))).has_value()) {
      events.push_back(new_event(PERF_TYPE_RAW, *number("0x" + std::string(word.substr(1)))));
      return events;
    }
    if (word.size() > 1 && word[0] == 'r' &&
        word.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string_view::npos)
      return syntax_error(start + 1, "raw event '{}' does not fit in 64 bits", word);
    if (auto cache = parse_cache_event(word)) {
      if (!*cache) return syntax_error(start + cache->error().offset, "{}", cache->error().message);
      events.push_back(new_event(PERF_TYPE_HW_CACHE, **cache));
      events.back().name = std::string(word);  // perf keeps a cache event's name without modifiers
      return events;
    }
    for (const auto& pmu_name : kernel::pmu_names()) {
      const kernel::Pmu* pmu = pmu_named(pmu_name);
      if (!pmu || !pmu->event(word)) continue;
      EventSpec event = new_event(pmu->type, 0);
      Term term{std::string(word), start, false, {}, start};
      if (auto applied = apply_pmu_terms(event, *pmu, {term}); !applied)
        return tl::unexpected(applied.error());
      events.push_back(std::move(event));
    }
    return events;
  }

  // "pmu/terms/" or "symbol/terms/", then modifier letters directly after the '/' as perf
  // takes them ("msr/tsc/u").
  Parsed<void> parse_with_terms(size_t start, std::string_view word, bool leader,
                                std::vector<EventSpec>& parsed) {
    scanner_.take('/');
    const kernel::Pmu* pmu = kernel::pmu_exists(std::string(word)) ? pmu_named(std::string(word)) : nullptr;
    std::vector<EventSpec> named;
    if (!pmu) {
      auto resolved = resolve_named(start, word);
      if (!resolved) return tl::unexpected(resolved.error());
      if (resolved->empty())
        return syntax_error(start, "unknown PMU '{}' (no {}/{}); run 'sonde list pmu' for the PMUs' events",
                            word, kernel::pmu_sysfs_root(), word);
      named = std::move(*resolved);
    }
    auto terms = parse_terms(scanner_);
    if (!terms) return tl::unexpected(terms.error());
    if (pmu) {
      EventSpec event = new_event(pmu->type, 0);
      if (auto applied = apply_pmu_terms(event, *pmu, *terms); !applied) return applied;
      named.push_back(std::move(event));
    } else {
      for (auto& event : named)
        if (auto applied = apply_generic_terms(event, *terms); !applied) return applied;
    }
    size_t letters_pos = scanner_.pos();
    std::string_view letters = scanner_.letters();
    if (!letters.empty())
      if (auto applied = apply_to_all(named, letters_pos, letters, leader); !applied) return applied;
    if (scanner_.peek() == ':')
      return syntax_error(scanner_.pos(), "modifiers follow the closing '/' directly, without ':'");
    name_unnamed(named, text_.substr(start, scanner_.pos() - start));
    parsed = std::move(named);
    return {};
  }

  Parsed<void> parse_tracepoint(size_t start, std::string_view system, bool leader,
                                std::vector<EventSpec>& parsed) {
    scanner_.take(':');
    size_t name_pos = scanner_.pos();
    std::string_view name = scanner_.name();
    if (name.empty()) return syntax_error(name_pos, "expected a tracepoint name after '{}:'", system);
    for (auto [part, pos] : {std::pair{system, start}, std::pair{name, name_pos}})
      if (part.starts_with('.') || part.starts_with('-'))
        return syntax_error(pos, "'{}' is not a tracepoint system or name", part);
    std::string_view letters;
    size_t letters_pos = 0;
    if (scanner_.take(':')) {
      letters_pos = scanner_.pos();
      letters = scanner_.letters();
      if (letters.empty()) return syntax_error(letters_pos, "expected modifiers after ':'");
    }
    if (scanner_.peek() == '/') return syntax_error(scanner_.pos(), "tracepoints take no terms");
    std::string full = fmt::format("{}:{}", system, name);
    auto found = find_tracepoints(system, name);
    if (!found) return syntax_error(start, "{}", found.error().message);
    if (found->empty()) {
      if (has_glob(system) || has_glob(name))
        return syntax_error(start, "no tracepoint matches '{}'; run 'sonde list tracepoint'", full);
      return syntax_error(
          start, "unknown tracepoint '{}'; run 'sonde list tracepoint' to see this kernel's tracepoints",
          full);
    }
    for (const auto& tracepoint : *found) {
      auto id = kernel::tracepoint_id(tracepoint.system, tracepoint.name);
      if (!id)
        return syntax_error(start, "tracepoint {}:{}: {}", tracepoint.system, tracepoint.name,
                            id.error().message);
      EventSpec event = new_event(PERF_TYPE_TRACEPOINT, *id);
      event.attr.sample_period = 1;  // perf samples every hit of a tracepoint
      event.name = tracepoint.system + ":" + tracepoint.name;
      event.tracepoint_system = tracepoint.system;
      event.tracepoint_name = tracepoint.name;
      if (!letters.empty())
        if (auto applied = apply_modifiers(event, letters, letters_pos, leader); !applied) return applied;
      parsed.push_back(std::move(event));
    }
    return {};
  }

  // mem:ADDR[/LEN][:rwx][:modifiers], a hardware breakpoint.
  Parsed<void> parse_breakpoint(size_t start, bool leader, std::vector<EventSpec>& parsed) {
    scanner_.take(':');
    size_t addr_pos = scanner_.pos();
    auto address = number(scanner_.name());
    if (!address) return syntax_error(addr_pos, "expected an address after 'mem:' (mem:0x1000[/len][:rwx])");
    EventSpec event = new_event(PERF_TYPE_BREAKPOINT, 0);
    event.attr.bp_addr = *address;
    event.attr.sample_period = 1;
    uint64_t length = 0;
    if (scanner_.take('/')) {
      size_t len_pos = scanner_.pos();
      auto len = number(scanner_.name());
      if (!len || (*len != 1 && *len != 2 && *len != 4 && *len != 8))
        return syntax_error(len_pos, "a breakpoint length is 1, 2, 4 or 8");
      length = *len;
    }
    uint32_t access = 0;
    if (scanner_.take(':')) {
      size_t pos = scanner_.pos();
      std::string_view letters = scanner_.letters();
      bool is_access = !letters.empty() && letters.find_first_not_of("rwx") == std::string_view::npos;
      if (is_access) {
        for (size_t i = 0; i < letters.size(); ++i) {
          if (letters.substr(0, i).find(letters[i]) != std::string_view::npos)
            return syntax_error(pos + i, "access '{}' given twice", letters[i]);
          access |= letters[i] == 'r'   ? HW_BREAKPOINT_R
                    : letters[i] == 'w' ? HW_BREAKPOINT_W
                                        : HW_BREAKPOINT_X;
        }
        if (scanner_.take(':')) {
          pos = scanner_.pos();
          letters = scanner_.letters();
        } else {
          letters = {};
        }
      }
      if (!is_access || !letters.empty())
        if (auto applied = apply_modifiers(event, letters, pos, leader); !applied) return applied;
    }
    // perf's defaults: read/write, 4 bytes for data and a word for code.
    if (!access) access = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
    if (!length) length = access == HW_BREAKPOINT_X ? sizeof(long) : 4;
    event.attr.bp_type = access;
    event.attr.bp_len = length;
    event.name = std::string(text_.substr(start, scanner_.pos() - start));
    parsed.push_back(std::move(event));
    return {};
  }

  // TYPE:CONFIG with numbers, for events no name reaches ("1:1" is task-clock).
  Parsed<void> parse_numeric(size_t start, std::string_view type_text, bool leader,
                             std::vector<EventSpec>& parsed) {
    auto type = number(type_text);
    if (!type || *type > UINT32_MAX) return syntax_error(start, "event type '{}' is out of range", type_text);
    scanner_.take(':');
    size_t config_pos = scanner_.pos();
    auto config = number(scanner_.name());
    if (!config) return syntax_error(config_pos, "expected a config number after '{}:'", type_text);
    std::vector<EventSpec> events{new_event(static_cast<uint32_t>(*type), *config)};
    if (scanner_.take(':')) {
      size_t letters_pos = scanner_.pos();
      if (auto applied = apply_to_all(events, letters_pos, scanner_.letters(), leader); !applied)
        return applied;
    }
    name_unnamed(events, text_.substr(start, scanner_.pos() - start));
    parsed = std::move(events);
    return {};
  }

  const kernel::Pmu* pmu_named(const std::string& name) {
    auto it = pmus_.find(name);
    if (it == pmus_.end()) {
      auto pmu = kernel::read_pmu(name);
      it = pmus_.emplace(name, pmu ? std::optional<kernel::Pmu>(std::move(*pmu)) : std::nullopt).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  std::string_view text_;
  Scanner scanner_;
  size_t first_index_;
  std::vector<EventSpec> events_;
  std::map<std::string, std::optional<kernel::Pmu>> pmus_;
};

}  // namespace

Result<void> parse_events(std::string_view text, std::vector<EventSpec>& events) {
  EventParser parser(text, events.size());
  auto parsed = parser.parse();
  if (!parsed) return fail_usage(format_syntax_error(text, parsed.error()));
  for (auto& event : *parsed) events.push_back(std::move(event));
  return {};
}

void group_all(std::vector<EventSpec>& events) {
  if (events.size() < 2) return;
  for (auto& event : events) {
    event.group_leader = 0;
    event.in_group = true;
  }
}

bool assign_cgroups(std::vector<EventSpec>& events, const std::vector<std::string>& cgroups) {
  if (cgroups.size() > events.size()) return false;
  if (cgroups.size() == 1) {
    for (auto& event : events) event.cgroup = cgroups.front();
    return true;
  }
  for (size_t i = 0; i < cgroups.size(); ++i) events[i].cgroup = cgroups[i];
  return true;
}

std::vector<EventSpec> expand_for_each_cgroup(const std::vector<EventSpec>& events,
                                              const std::vector<std::string>& cgroups) {
  std::vector<EventSpec> expanded;
  for (const std::string& cgroup : cgroups) {
    int base = static_cast<int>(expanded.size());
    for (const auto& event : events) {
      EventSpec copy = event;
      copy.cgroup = cgroup;
      copy.group_leader += base;  // groups stay groups within each copy
      expanded.push_back(std::move(copy));
    }
  }
  return expanded;
}

}  // namespace sonde::events
