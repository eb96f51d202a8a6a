#include "analysis/report/report_options.hpp"

#include <cstdlib>

#include "base/strings.hpp"

namespace sonde::analysis {

Result<void> parse_call_graph(const std::string& spec, ReportRequest& request, bool inverted) {
  if (inverted) {
    request.options.order = CallchainOrder::caller;
    request.order_set = true;
  }
  if (spec.empty()) return {};
  int numbers = 0;
  for (const std::string& raw : split(spec, ',')) {
    std::string_view token = trim(raw);
    if (token.empty()) continue;
    if (token == "graph")
      request.callchain.mode = CallchainMode::graph;
    else if (token == "fractal")
      request.callchain.mode = CallchainMode::fractal;
    else if (token == "flat")
      request.callchain.mode = CallchainMode::flat;
    else if (token == "folded")
      request.collapsed_stacks = true;
    else if (token == "folded-perf")
      request.callchain.mode = CallchainMode::folded;
    else if (token == "none")
      request.callchain_none = true;
    else if (token == "caller") {
      request.options.order = CallchainOrder::caller;
      request.order_set = true;
    } else if (token == "callee") {
      request.options.order = CallchainOrder::callee;
      request.order_set = true;
    } else if (token == "function" || token == "address" || token == "srcline") {
      // Only perf's default key (function) is implemented; say so rather than pretend.
      if (token != "function") return failf("-g key '{}' is not supported yet (use function)", token);
    } else if (token == "percent")
      request.callchain.value = CallchainValue::percent;
    else if (token == "period")
      request.callchain.value = CallchainValue::period;
    else if (token == "count")
      request.callchain.value = CallchainValue::count;
    else if (token == "fp" || token == "dwarf" || token == "lbr") {
      // record's unwinding methods, accepted by perf report too
    } else {
      std::string text(token);
      char* end = nullptr;
      double value = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || value < 0)
        return failf(
            "invalid -g/--call-graph part '{}': expected graph, flat, fractal, folded, folded-perf, none, "
            "caller, "
            "callee, percent, period, count or a number",
            token);
      if (numbers == 0)
        request.callchain.min_percent = value;
      else
        request.callchain.print_limit = static_cast<uint32_t>(value);
      ++numbers;
    }
  }
  return {};
}

namespace {

Result<std::vector<int32_t>> parse_ids(const std::string& list, const char* what) {
  std::vector<int32_t> ids;
  for (const std::string& part : split(list, ',')) {
    auto value = parse_uint(trim(part), 10);
    if (!value || *value > INT32_MAX)
      return failf("invalid {} '{}': expected numbers separated by commas", what, part);
    ids.push_back(static_cast<int32_t>(*value));
  }
  return ids;
}

std::vector<std::string> parse_names(const std::string& list) {
  std::vector<std::string> names;
  for (const std::string& part : split(list, ','))
    if (!trim(part).empty()) names.emplace_back(trim(part));
  return names;
}

}  // namespace

Result<void> parse_filters(ReportFilters& filters, const std::optional<std::string>& comms,
                           const std::optional<std::string>& dsos, const std::optional<std::string>& symbols,
                           const std::optional<std::string>& pids, const std::optional<std::string>& tids) {
  if (comms) filters.comms = parse_names(*comms);
  if (dsos) filters.dsos = parse_names(*dsos);
  if (symbols) filters.symbols = parse_names(*symbols);
  if (pids) {
    auto ids = parse_ids(*pids, "--pid");
    if (!ids) return tl::unexpected(ids.error());
    filters.pids = *ids;
  }
  if (tids) {
    auto ids = parse_ids(*tids, "--tid");
    if (!ids) return tl::unexpected(ids.error());
    filters.tids = *ids;
  }
  return {};
}

}  // namespace sonde::analysis
