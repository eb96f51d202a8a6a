#include "pipeline/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "analysis/annotate/function_annotation.hpp"
#include "base/file.hpp"
#include "output/html/report_data.hpp"
#include "output/html/report_page.hpp"
#include "output/html/tracedat_tables.hpp"
#include "pipeline/profile_replay.hpp"
#include "tracedat/reader.hpp"

namespace sonde::pipeline {

namespace {

// The summary's facts: what perf report --header shows first, and the recording's span.
output::HtmlReportFacts report_facts(const std::string& input, session::Session& session,
                                     const output::HtmlReportTables& tables) {
  output::HtmlReportFacts facts;
  facts.title = input;
  const perfdata::FeatureSet& f = session.reader().features();
  auto add = [&](std::string name, std::string value) {
    if (!value.empty()) facts.rows.emplace_back(std::move(name), std::move(value));
  };
  add("file", input);
  if (f.cmdline) {
    std::string command;
    for (const std::string& word : *f.cmdline) command += (command.empty() ? "" : " ") + word;
    add("command", command);
  }
  add("host", f.hostname.value_or(""));
  add("kernel", f.os_release.value_or(""));
  add("recorded by", f.version ? "perf " + *f.version : "");
  add("cpu", f.cpu_desc.value_or(""));
  if (!tables.times.empty()) {
    auto [first, last] = std::minmax_element(tables.times.begin(), tables.times.end());
    add("duration",
        fmt::format("{:.3f} s (samples from first to last)", static_cast<double>(*last - *first) / 1e9));
  }
  add("samples", std::to_string(tables.times.size()));
  std::string events;
  for (const auto& event : tables.events) events += (events.empty() ? "" : ", ") + event.name;
  add("events", events);
  add("threads", std::to_string(tables.threads.size()));
  const session::SessionStats& stats = session.stats();
  add("lost", fmt::format("{} events, {} samples", stats.lost_events, stats.lost_samples));
  return facts;
}

}  // namespace

Result<HtmlReportSummary> write_html_report(const HtmlReportOptions& options, Diagnostics& diagnostics) {
  auto replay = open_profile_replay(options.input, options.symbols, diagnostics, "Reading");
  if (!replay) return tl::unexpected(replay.error());
  ProfileReplay& r = **replay;
  output::HtmlReportData data(r.session, r.symbols);
  if (auto processed = r.session.process(data); !processed) return tl::unexpected(processed.error());
  output::HtmlReportTables tables = data.finish();
  // The source and disassembly of the hottest functions whose files are here; a function that
  // cannot be read (no file, stripped of its symbol) is left out of that view only.
  std::vector<output::HtmlAnnotation> annotations;
  for (const output::HtmlHotFunction& function : tables.hot_functions) {
    std::string path = r.symbols.elf_path(*function.dso);
    if (path.empty()) continue;
    auto annotated = analysis::annotate_function(path, function.start, function.weights);
    if (annotated) annotations.push_back({function.name, function.dso->short_name, std::move(*annotated)});
  }
  std::optional<output::HtmlReportDiff> diff;
  if (!options.diff_base.empty()) {
    auto base = open_profile_replay(options.diff_base, options.symbols, diagnostics, "Reading the baseline");
    if (!base) return tl::unexpected(base.error());
    output::HtmlReportData base_data((*base)->session, (*base)->symbols);
    if (auto processed = (*base)->session.process(base_data); !processed)
      return tl::unexpected(processed.error());
    diff = output::diff_tables(tables, base_data.finish(), options.diff_base);
  }
  auto page = output::html_report_page(tables, annotations, report_facts(options.input, r.session, tables),
                                       diff ? &*diff : nullptr);
  if (!page) return tl::unexpected(page.error());
  if (auto written = replace_file(options.output, *page, 0600); !written)
    return tl::unexpected(written.error());
  return HtmlReportSummary{tables.times.size(), page->size()};
}

Result<HtmlReportSummary> write_trace_dat_html_report(const std::string& input, const std::string& output) {
  auto reader = tracedat::TraceDatReader::open(input);
  if (!reader) return tl::unexpected(reader.error());
  auto tables = output::trace_dat_tables(**reader);
  if (!tables) return tl::unexpected(tables.error());
  output::HtmlReportFacts facts;
  facts.title = input;
  facts.command = "sonde ftrace report";
  facts.rows = {{"file", input},
                {"trace.dat version", std::to_string((*reader)->version())},
                {"cpus", std::to_string((*reader)->cpu_count())},
                {"records", std::to_string(tables->times.size())},
                {"event types", std::to_string(tables->frames.size())},
                {"tasks", std::to_string(tables->threads.size())}};
  if (!tables->times.empty()) {
    auto [first, last] = std::minmax_element(tables->times.begin(), tables->times.end());
    facts.rows.emplace_back("duration", fmt::format("{:.3f} s (records from first to last)",
                                                    static_cast<double>(*last - *first) / 1e9));
  }
  auto page = output::html_report_page(*tables, {}, facts, nullptr);
  if (!page) return tl::unexpected(page.error());
  if (auto written = replace_file(output, *page, 0600); !written) return tl::unexpected(written.error());
  return HtmlReportSummary{tables->times.size(), page->size()};
}

}  // namespace sonde::pipeline
