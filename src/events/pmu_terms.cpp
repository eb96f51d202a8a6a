#include "events/pmu_terms.hpp"

#include <cctype>

#include "base/strings.hpp"

namespace sonde::events {

namespace {

constexpr std::string_view kGenericTerms =
    "config,config1,config2,name,period,freq,call-graph,stack-size,max-stack,inherit,no-inherit,percore,"
    "metric-id";

// perf reads term numbers as decimal or 0x hex (not octal: "010" is ten).
Parsed<uint64_t> term_number(const Term& term) {
  if (!term.has_value) return syntax_error(term.pos, "term '{}' needs a value ({}=N)", term.name, term.name);
  std::string_view text = term.value;
  bool hex = text.starts_with("0x") || text.starts_with("0X");
  std::string_view digits = hex ? text.substr(2) : text;
  bool well_formed = !digits.empty();
  for (char c : digits)
    well_formed = well_formed && (hex ? std::isxdigit(static_cast<unsigned char>(c))
                                      : std::isdigit(static_cast<unsigned char>(c)));
  if (!well_formed)
    return syntax_error(term.value_pos, "term '{}' needs a number, not '{}'", term.name, term.value);
  auto value = parse_uint(digits, hex ? 16 : 10);
  if (!value)
    return syntax_error(term.value_pos, "number '{}' is out of range (64 bits at most)", term.value);
  return *value;
}

Parsed<std::string> term_word(const Term& term) {
  if (!term.has_value || term.value.empty())
    return syntax_error(term.pos, "term '{}' needs a value ({}=...)", term.name, term.name);
  return term.value;
}

// Applies `term` when it is one of perf's generic terms; returns false when it is not one.
Parsed<bool> apply_generic_term(EventSpec& event, const Term& term) {
  perf_event_attr& attr = event.attr;
  const std::string& name = term.name;
  if (name == "config" || name == "config1" || name == "config2" || name == "period" || name == "freq" ||
      name == "stack-size" || name == "max-stack") {
    auto value = term_number(term);
    if (!value) return tl::unexpected(value.error());
    if (name == "config")
      attr.config = *value;
    else if (name == "config1")
      attr.config1 = *value;
    else if (name == "config2")
      attr.config2 = *value;
    else if (name == "period") {
      attr.sample_period = *value;
      attr.freq = 0;
      event.period_term = true;
      event.freq_term = false;
    } else if (name == "freq") {
      attr.sample_freq = *value;
      attr.freq = 1;
      event.freq_term = true;
      event.period_term = false;
    } else if (*value > INT32_MAX) {
      return syntax_error(term.value_pos, "'{}' is at most {}", name, INT32_MAX);
    } else if (name == "stack-size") {
      event.stack_size = static_cast<uint32_t>(*value);
    } else {
      event.max_stack = static_cast<int>(*value);
    }
    return true;
  }
  if (name == "name" || name == "metric-id") {
    auto word = term_word(term);
    if (!word) return tl::unexpected(word.error());
    if (name == "name") event.name = *word;  // metric-id only names the event in metrics
    return true;
  }
  if (name == "call-graph") {
    auto word = term_word(term);
    if (!word) return tl::unexpected(word.error());
    if (*word != "fp" && *word != "dwarf" && *word != "lbr" && *word != "no")
      return syntax_error(term.value_pos, "call-graph is fp, dwarf, lbr or no, not '{}'", *word);
    event.call_graph = *word;
    return true;
  }
  if (name == "inherit" || name == "no-inherit" || name == "percore") {
    uint64_t value = 1;
    if (term.has_value) {
      auto number = term_number(term);
      if (!number) return tl::unexpected(number.error());
      value = *number;
    }
    if (name == "percore")
      event.percore = value != 0;
    else
      event.inherit = (name == "inherit") == (value != 0) ? 1 : 0;
    return true;
  }
  return false;
}

// perf's lexer takes 'quoted' values, so that a name may hold characters terms cannot.
Parsed<void> read_value(Scanner& scanner, Term& term) {
  term.value_pos = scanner.pos();
  if (scanner.take('\'')) {
    term.value = std::string(scanner.until('\''));
    if (!scanner.take('\'')) return syntax_error(term.value_pos, "missing closing quote");
  } else {
    term.value = std::string(scanner.term_value());
  }
  if (term.value.empty()) return syntax_error(term.value_pos, "term '{}' needs a value after '='", term.name);
  return {};
}

}  // namespace

Parsed<std::vector<Term>> parse_terms(Scanner& scanner) {
  std::vector<Term> terms;
  size_t open = scanner.pos() - 1;
  if (scanner.take('/')) return terms;  // "pmu//": no terms
  while (true) {
    Term term;
    term.pos = scanner.pos();
    term.name = std::string(scanner.term_name());
    if (term.name.empty()) {
      if (scanner.at_end()) return syntax_error(open, "missing '/' to close this term list");
      return syntax_error(scanner.pos(), "expected a term name, not '{}'", scanner.peek());
    }
    if (scanner.take('=')) {
      term.has_value = true;
      if (auto read = read_value(scanner, term); !read) return tl::unexpected(read.error());
    }
    terms.push_back(std::move(term));
    if (scanner.take(',')) continue;
    if (scanner.take('/')) return terms;
    if (scanner.at_end()) return syntax_error(open, "missing '/' to close this term list");
    return syntax_error(scanner.pos(), "unexpected '{}' in the term list (expected ',' or '/')",
                        scanner.peek());
  }
}

Parsed<void> apply_generic_terms(EventSpec& event, const std::vector<Term>& terms) {
  for (const auto& term : terms) {
    auto applied = apply_generic_term(event, term);
    if (!applied) return tl::unexpected(applied.error());
    if (!*applied)
      return syntax_error(term.pos, "unknown term '{}' (valid terms: {})", term.name, kGenericTerms);
  }
  return {};
}

Parsed<void> apply_pmu_terms(EventSpec& event, const kernel::Pmu& pmu, const std::vector<Term>& terms) {
  event.attr.type = pmu.type;
  // A bare term naming one of the PMU's events stands for that event's own terms
  // ("msr/tsc/" is "msr/event=0x00/"); errors in them point at the name.
  std::vector<Term> expanded;
  for (const auto& term : terms) {
    const kernel::PmuEventAlias* alias =
        term.has_value || pmu.format(term.name) ? nullptr : pmu.event(term.name);
    if (!alias) {
      expanded.push_back(term);
      continue;
    }
    std::string alias_text = alias->terms + "/";
    Scanner alias_scanner(alias_text);
    auto alias_terms = parse_terms(alias_scanner);
    if (!alias_terms || !alias_scanner.at_end())
      return syntax_error(term.pos, "PMU event '{}' has unreadable terms '{}'", term.name, alias->terms);
    for (auto& alias_term : *alias_terms) {
      alias_term.pos = alias_term.value_pos = term.pos;
      expanded.push_back(std::move(alias_term));
    }
  }
  // Generic terms first: config= sets the whole field, format terms then OR their bits in.
  std::vector<const Term*> format_terms;
  for (const auto& term : expanded) {
    if (pmu.format(term.name)) {
      format_terms.push_back(&term);
      continue;
    }
    auto applied = apply_generic_term(event, term);
    if (!applied) return tl::unexpected(applied.error());
    if (!*applied) {
      std::vector<std::string> valid;
      for (const auto& format : pmu.formats) valid.push_back(format.name);
      valid.emplace_back(kGenericTerms);
      return syntax_error(term.pos, "unknown term '{}' for PMU '{}' (valid terms: {})", term.name, pmu.name,
                          join(valid, ","));
    }
  }
  for (const Term* term : format_terms) {
    const kernel::PmuFormatField& format = *pmu.format(term->name);
    uint64_t value = 1;  // a bare format term ("inv") sets it to 1
    if (term->has_value) {
      auto number = term_number(*term);
      if (!number) return tl::unexpected(number.error());
      value = *number;
    }
    __u64* field = format.config_index == 0   ? &event.attr.config
                   : format.config_index == 1 ? &event.attr.config1
                                              : &event.attr.config2;
    uint64_t bits = 0;
    bool fits = format.pack(value, bits);
    *field |= bits;
    if (!fits) {
      int width = format.width();
      uint64_t maximum = width >= 64 ? UINT64_MAX : (uint64_t{1} << width) - 1;
      return syntax_error(term->value_pos, "value too big for format '{}', maximum is {:#x}", term->name,
                          maximum);
    }
  }
  return {};
}

}  // namespace sonde::events
