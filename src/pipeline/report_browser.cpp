#include "pipeline/report_browser.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "analysis/report/hist_key_text.hpp"
#include "base/strings.hpp"
#include "output/browser/hist_browser.hpp"
#include "output/report/report_output.hpp"
#include "output/report/report_printer.hpp"
#include "pipeline/annotate_run.hpp"

namespace sonde::pipeline {

namespace {

// Text as lines, without the piece after its last newline.
std::vector<std::string> text_lines(std::string_view text) {
  std::vector<std::string> lines = split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

class ReportSource : public output::BrowserSource {
 public:
  ReportSource(analysis::Report& report, const analysis::ReportRequest& request, analysis::EventReport& event)
      : report_(report), request_(request), event_(event), layout_(output::report_layout(report, request)) {}

  output::BrowserPage page(const std::string& dso, int32_t tid) override {
    // perf's zooms filter the entries (hists__filter_by_dso/_thread), not the samples: the
    // entries keep their numbers, only which are shown changes.
    analysis::Histogram& histogram = event_.histogram;
    output::BrowserPage page;
    page.title =
        fmt::format("Samples: {} of event '{}', Event count (approx.): {}",
                    output::sample_count_text(histogram.samples()), event_.name, histogram.total_period());
    output::HistogramRows rows =
        output::histogram_rows(histogram, report_.tables, layout_, histogram.total_period());
    page.header = rows.header;
    for (output::HistogramRow& row : rows.rows) {
      const analysis::HistEntry& entry = histogram.entries()[row.entry];
      const analysis::SampleContext& context = report_.tables.contexts[entry.context];
      if (tid != -1 && context.tid != tid) continue;
      if (!dso.empty() && analysis::hist_key_text(report_.tables, entry, analysis::SortKey::dso) != dso)
        continue;
      output::BrowserEntry shown;
      shown.line = std::move(row.line);
      shown.graph = std::move(row.graph);
      shown.symbol = analysis::hist_key_text(report_.tables, entry, analysis::SortKey::sym);
      if (shown.symbol.size() > 4 && shown.symbol[0] == '[') shown.symbol.erase(0, 4);  // "[.] "
      shown.dso = analysis::hist_key_text(report_.tables, entry, analysis::SortKey::dso);
      shown.tid = context.tid;
      shown.thread = fmt::format("{} {}", report_.tables.final_comms[entry.context], context.tid);
      page.entries.push_back(std::move(shown));
    }
    return page;
  }

  std::vector<std::string> annotate(const output::BrowserEntry& entry,
                                    const output::AnnotateView& view) override {
    AnnotateOptions options;
    options.input = request_.input;
    options.symbols = {entry.symbol};
    options.dsos = {entry.dso};
    options.style.source = view.source;
    options.style.raw_bytes = view.raw_bytes;
    options.symbolizer = analysis::symbolizer_options(request_);
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    if (out == nullptr) return {"cannot annotate: no memory for the text"};
    std::vector<std::string> warnings;
    Diagnostics diagnostics(
        [&warnings](const Diagnostics::Message& message) { warnings.push_back(message.text); });
    auto done = pipeline::annotate(out, options, diagnostics);
    std::fclose(out);
    std::vector<std::string> lines = text_lines(std::string_view(text, size));
    std::free(text);
    if (!done) lines.push_back(done.error().message);
    lines.insert(lines.end(), warnings.begin(), warnings.end());
    if (lines.empty())
      lines.push_back(fmt::format("{} has no samples in its own code: nothing to annotate", entry.symbol));
    return lines;
  }

 private:
  analysis::Report& report_;
  const analysis::ReportRequest& request_;
  analysis::EventReport& event_;
  output::ReportLayout layout_;
};

}  // namespace

Result<void> browse_report(analysis::Report& report, const analysis::ReportRequest& request) {
  for (analysis::EventReport& event : report.events) {
    if (event.histogram.samples() == 0) continue;
    ReportSource source(report, request, event);
    return output::run_hist_browser(source);
  }
  return fail("the file has no samples to browse");
}

}  // namespace sonde::pipeline
