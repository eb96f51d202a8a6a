#include "output/html/report_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "base/gzip.hpp"
#include "output/convert/perf_json.hpp"

namespace sonde::output {

namespace {

constexpr std::string_view kStyle = R"CSS(
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }
header { padding: 8px 14px; background: #263238; color: #eee; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
header #status { font-size: 12px; color: #b0bec5; }
nav { display: flex; gap: 6px; align-items: center; padding: 6px 14px; background: #eceff1; flex-wrap: wrap; }
nav button { border: 1px solid #b0bec5; background: #fff; padding: 3px 10px; cursor: pointer; border-radius: 3px; }
nav button.on { background: #37474f; color: #fff; }
nav input[type=search] { width: 220px; padding: 3px 6px; }
#timeline-box { padding: 6px 14px; background: #fff; border-bottom: 1px solid #ddd; }
#timeline { cursor: crosshair; display: block; }
#range { font-size: 12px; color: #555; }
section.tab { padding: 8px 14px; }
table.tree { border-collapse: collapse; width: 100%; background: #fff; }
table.tree th { text-align: left; background: #eceff1; padding: 3px 6px; cursor: pointer; position: sticky; top: 0; }
table.tree td { padding: 1px 6px; border-bottom: 1px solid #f0f0f0; white-space: nowrap; }
table.tree tr:hover td { background: #fff3e0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; width: 7em; }
td.fn { cursor: pointer; font-family: ui-monospace, monospace; }
.toggle { display: inline-block; width: 1em; color: #777; }
.dso { color: #888; font-size: 11px; }
table.facts th { text-align: left; padding: 2px 12px 2px 0; color: #555; font-weight: 500; }
#flame-box { background: #fff; }
#flame-detail { font-family: ui-monospace, monospace; min-height: 1.4em; }
#loading { padding: 20px; }
.source-grid { display: grid; grid-template-columns: minmax(220px, 22%) 1fr; gap: 14px; align-items: start; }
table.code { border-collapse: collapse; font: 12px/1.35 ui-monospace, monospace; background: #fff; width: 100%; }
table.code td { padding: 0 8px; white-space: pre; }
table.code td.num { color: #444; }
table.code td.at { color: #888; }
#source-functions tr.on td { background: #ffe0b2; }
td.grew { color: #b71c1c; } td.shrank { color: #0d47a1; }
)CSS";

// JSON inside <script>: "</script" would end the element and "<!--" change how the parser looks
// for that end. A '<' can only be inside a JSON string here, where \u003c means the same.
void append_script_json(std::string& out, std::string_view json) {
  for (char c : json) {
    if (c == '<')
      out += "\\u003c";
    else
      out.push_back(c);
  }
}

template <typename T>
void append_column(std::string& out, const std::vector<T>& values) {
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// The milliseconds every time is given from: the first sample's or CPU slice's.
uint64_t start_time(const HtmlReportTables& t) {
  uint64_t start = UINT64_MAX;
  for (uint64_t time : t.times) start = std::min(start, time);
  for (const HtmlCpuSlice& slice : t.cpu_slices) start = std::min(start, slice.start);
  return start == UINT64_MAX ? 0 : start;
}

// The per-sample, per-stack and per-CPU-slice columns as report_script's decode() takes them
// (the 8-byte ones first, the byte column last, so that each starts aligned).
std::string columns(const HtmlReportTables& t, const std::vector<std::string>& slice_names) {
  uint64_t start = start_time(t);
  auto milliseconds = [start](uint64_t time) { return static_cast<double>(time - start) / 1e6; };
  std::vector<double> times, slice_starts, slice_ends;
  times.reserve(t.times.size());
  for (uint64_t time : t.times) times.push_back(milliseconds(time));
  std::vector<uint32_t> slice_cpus, slice_name_ids;
  std::vector<int32_t> slice_pids;
  std::unordered_map<std::string_view, uint32_t> name_ids;
  for (size_t i = 0; i < slice_names.size(); ++i) name_ids.emplace(slice_names[i], static_cast<uint32_t>(i));
  for (const HtmlCpuSlice& slice : t.cpu_slices) {
    slice_starts.push_back(milliseconds(slice.start));
    slice_ends.push_back(milliseconds(slice.end));
    slice_cpus.push_back(slice.cpu);
    slice_pids.push_back(slice.pid);
    slice_name_ids.push_back(name_ids.at(slice.comm));
  }
  std::vector<int32_t> stacks;
  stacks.reserve(t.sample_stacks.size());
  for (uint32_t stack : t.sample_stacks)
    stacks.push_back(stack == UINT32_MAX ? -1 : static_cast<int32_t>(stack));
  std::string out;
  append_column(out, times);
  append_column(out, t.weights);
  append_column(out, slice_starts);
  append_column(out, slice_ends);
  append_column(out, t.sample_threads);
  append_column(out, stacks);
  append_column(out, t.stack_prefix);
  append_column(out, t.stack_frame);
  append_column(out, slice_cpus);
  append_column(out, slice_pids);
  append_column(out, slice_name_ids);
  append_column(out, t.sample_events);
  return out;
}

// The CPU slices' task names, once each.
std::vector<std::string> slice_names(const HtmlReportTables& t) {
  std::vector<std::string> names;
  std::unordered_map<std::string_view, bool> seen;
  for (const HtmlCpuSlice& slice : t.cpu_slices)
    if (seen.emplace(slice.comm, true).second) names.push_back(slice.comm);
  return names;
}

// The source view's functions: per function its instructions (address, text, weight, file,
// line) and its main file's lines (number, text, weight), weights of the busiest event.
std::string annotations_json(const std::vector<HtmlAnnotation>& annotations) {
  std::string out = "[";
  for (size_t a = 0; a < annotations.size(); ++a) {
    const HtmlAnnotation& annotation = annotations[a];
    const analysis::FunctionAnnotation& code = annotation.code;
    out += a == 0 ? "{\"name\":" : ",{\"name\":";
    append_json_string(out, annotation.name);
    out += ",\"dso\":";
    append_json_string(out, annotation.dso);
    out += ",\"total\":";
    out += fmt::format("{}", code.total);
    out += ",\"files\":[";
    for (size_t f = 0; f < code.files.size(); ++f) {
      if (f != 0) out += ',';
      append_json_string(out, code.files[f]);
    }
    out += "],\"mainFile\":";
    append_json_number(out, code.main_file);
    out += ",\"instructions\":[";
    for (size_t i = 0; i < code.instructions.size(); ++i) {
      const analysis::AnnotatedInstruction& instruction = code.instructions[i];
      out += i == 0 ? "[" : ",[";
      append_json_string(out, fmt::format("{:x}", instruction.address));
      out += ',';
      append_json_string(out, instruction.text);
      out += fmt::format(",{},", instruction.weight);
      append_json_number(out, instruction.file);
      out += ',';
      append_json_number(out, instruction.line);
      out += ']';
    }
    out += "],\"source\":[";
    for (size_t l = 0; l < code.source.size(); ++l) {
      const analysis::AnnotatedSourceLine& line = code.source[l];
      out += l == 0 ? "[" : ",[";
      append_json_number(out, line.line);
      out += ',';
      append_json_string(out, line.text);
      out += fmt::format(",{}]", line.weight);
    }
    out += "]}";
  }
  return out + "]";
}

// The baseline's side of the differential views, or null.
std::string diff_json(const HtmlReportDiff* diff) {
  if (diff == nullptr) return "null";
  std::string out = "{\"title\":";
  append_json_string(out, diff->title);
  out += ",\"event\":";
  append_json_string(out, diff->event);
  out += fmt::format(",\"sum\":{},\"functions\":[", diff->sum);
  for (size_t i = 0; i < diff->functions.size(); ++i) {
    out += i == 0 ? "[" : ",[";
    append_json_string(out, diff->functions[i].name);
    out += fmt::format(",{},{}]", diff->functions[i].self, diff->functions[i].total);
  }
  out += "],\"nodes\":[";
  for (size_t i = 0; i < diff->node_totals.size(); ++i)
    out += fmt::format("{}{},{}", i == 0 ? "" : ",", diff->node_totals[i].first, diff->node_totals[i].second);
  return out + "]}";
}

std::string meta_json(const HtmlReportTables& t, const std::vector<HtmlAnnotation>& annotations,
                      const HtmlReportFacts& facts, const HtmlReportDiff* diff) {
  std::vector<std::string_view> strings;
  std::unordered_map<std::string_view, size_t> string_ids;
  auto id = [&](std::string_view text) {
    auto [it, fresh] = string_ids.try_emplace(text, strings.size());
    if (fresh) strings.push_back(text);
    return it->second;
  };
  std::string names = "[", dsos = "[", files = "[", lines = "[", kernel = "[";
  for (size_t f = 0; f < t.frames.size(); ++f) {
    const HtmlReportFrame& frame = t.frames[f];
    const char* comma = f == 0 ? "" : ",";
    names += comma, dsos += comma, files += comma, lines += comma, kernel += comma;
    append_json_number(names, id(frame.name));
    append_json_number(dsos, id(frame.dso));
    append_json_number(files, id(frame.file));
    append_json_number(lines, frame.line);
    kernel += frame.kernel ? '1' : '0';
  }
  std::string out = "{\"title\":";
  append_json_string(out, facts.title);
  out += ",\"samples\":";
  append_json_number(out, t.times.size());
  out += ",\"busiestEvent\":";
  append_json_number(out, t.busiest_event);
  out += ",\"annotations\":" + annotations_json(annotations);
  out += ",\"slices\":";
  append_json_number(out, t.cpu_slices.size());
  out += ",\"sliceNames\":[";
  auto task_names = slice_names(t);
  for (size_t i = 0; i < task_names.size(); ++i) {
    if (i != 0) out += ',';
    append_json_string(out, task_names[i]);
  }
  out += ']';
  out += ",\"diff\":" + diff_json(diff);
  out += ",\"stacks\":";
  append_json_number(out, t.stack_prefix.size());
  out += ",\"events\":[";
  for (size_t e = 0; e < t.events.size(); ++e) {
    out += e == 0 ? "{\"name\":" : ",{\"name\":";
    append_json_string(out, t.events[e].name);
    out += t.events[e].nanoseconds ? ",\"ns\":true,\"samples\":" : ",\"ns\":false,\"samples\":";
    append_json_number(out, t.events[e].samples);
    out += '}';
  }
  out += "],\"threads\":[";
  for (size_t i = 0; i < t.threads.size(); ++i) {
    out += i == 0 ? "[" : ",[";
    append_json_number(out, t.threads[i].pid);
    out += ',';
    append_json_number(out, t.threads[i].tid);
    out += ',';
    append_json_string(out, t.threads[i].comm);
    out += ',';
    append_json_number(out, t.threads[i].samples);
    out += ']';
  }
  out += "],\"facts\":[";
  for (size_t i = 0; i < facts.rows.size(); ++i) {
    out += i == 0 ? "[" : ",[";
    append_json_string(out, facts.rows[i].first);
    out += ',';
    append_json_string(out, facts.rows[i].second);
    out += ']';
  }
  out += "],\"frames\":{\"name\":" + names + "],\"dso\":" + dsos + "],\"file\":" + files +
         "],\"line\":" + lines + "],\"kernel\":" + kernel + "]},\"strings\":[";
  for (size_t i = 0; i < strings.size(); ++i) {
    if (i != 0) out += ',';
    append_json_string(out, strings[i]);
  }
  out += "]}";
  return out;
}

}  // namespace

Result<std::string> html_report_page(const HtmlReportTables& tables,
                                     const std::vector<HtmlAnnotation>& annotations,
                                     const HtmlReportFacts& facts, const HtmlReportDiff* diff) {
  auto packed = gzip(columns(tables, slice_names(tables)));
  if (!packed) return tl::unexpected(packed.error());
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  std::string title = facts.command + ": " + facts.title;
  for (char c : title) {
    if (c == '<')
      page += "&lt;";
    else if (c == '&')
      page += "&amp;";
    else
      page += c;
  }
  page += "</title>\n<style>";
  page += kStyle;
  page +=
      "</style>\n</head>\n<body>\n<header><h1 id=\"title\"></h1><div id=\"status\"></div></header>\n"
      "<nav><button data-tab=\"summary\">Summary</button><button data-tab=\"tree\">Call tree</button>"
      "<button data-tab=\"up\">Bottom-up</button><button data-tab=\"flame\">Flame graph</button>"
      "<button data-tab=\"source\">Source</button><button data-tab=\"diff\" hidden>Diff</button>"
      "<select id=\"event\"></select><input id=\"search\" type=\"search\" placeholder=\"search functions "
      "(regex)\">"
      "<button id=\"reset\">Reset zoom</button><span id=\"range\"></span></nav>\n"
      "<div id=\"timeline-box\"><canvas id=\"timeline\" height=\"40\"></canvas></div>\n"
      "<div id=\"loading\">Loading the profile&hellip;</div>\n"
      "<section class=\"tab\" id=\"tab-summary\" hidden><div id=\"summary\"></div></section>\n"
      "<section class=\"tab\" id=\"tab-tree\" hidden><table class=\"tree\"><thead><tr><th "
      "data-sort=\"total\">Total"
      "</th><th data-sort=\"total\">Self</th><th data-sort=\"total\">Weight</th><th "
      "data-sort=\"name\">Function"
      "</th></tr></thead><tbody id=\"tree-body\"></tbody></table></section>\n"
      "<section class=\"tab\" id=\"tab-up\" hidden><table class=\"tree\"><thead><tr><th "
      "data-sort=\"total\">Total"
      "</th><th data-sort=\"total\">Self</th><th data-sort=\"total\">Weight</th><th "
      "data-sort=\"name\">Function"
      "</th></tr></thead><tbody id=\"up-body\"></tbody></table></section>\n"
      "<section class=\"tab\" id=\"tab-flame\" hidden><label><input id=\"icicle\" type=\"checkbox\"> icicle"
      "</label> <label id=\"diff-colors-box\" hidden><input id=\"diff-colors\" type=\"checkbox\"> colour by "
      "change "
      "against the baseline (red: grew, blue: shrank)</label> <span id=\"flame-detail\"></span><div "
      "id=\"flame-box\"><canvas id=\"flame-canvas\"></canvas>"
      "</div></section>\n"
      "<section class=\"tab\" id=\"tab-diff\" hidden><div id=\"diff-note\"></div><table class=\"tree\">"
      "<thead><tr><th>Baseline self</th><th>New self</th><th>Delta</th><th>Baseline total</th><th>New "
      "total</th>"
      "<th>Function</th></tr></thead><tbody id=\"diff-body\"></tbody></table></section>\n"
      "<section class=\"tab\" id=\"tab-source\" hidden><div id=\"source-note\"></div><div "
      "class=\"source-grid\">"
      "<table class=\"tree\" id=\"source-functions\"></table><div><h3 id=\"source-title\"></h3>"
      "<table class=\"code\" id=\"source-lines\"></table><h3>Disassembly</h3><table class=\"code\" "
      "id=\"source-asm\">"
      "</table></div></div></section>\n<script id=\"meta\" type=\"application/json\">";
  append_script_json(page, meta_json(tables, annotations, facts, diff));
  page += "</script>\n<script id=\"columns\" type=\"application/octet-stream\">";
  page += base64(*packed);
  page += "</script>\n<script>";
  page += html_report_views_script();
  page += html_report_main_script();
  page += "\ndocument.getElementById(\"title\").textContent = document.title;\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace sonde::output
