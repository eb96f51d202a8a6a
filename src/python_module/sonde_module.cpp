// `import sonde`: perf.data recordings (sonde's or perf's) as NumPy columns and pandas DataFrames,
// read by the same session, symbols and report code as the CLI (pipeline/recording_columns,
// analysis/report). Columns are handed to NumPy without a copy: each array owns the vector it
// was filled in. Names (events, symbols, DSOs, comms) come as pandas categoricals: codes into
// a table of names made once.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/report/report_run.hpp"
#include "analysis/report/sort_keys.hpp"
#include "base/diagnostics.hpp"
#include "output/report/report_output.hpp"
#include "perfdata/reader.hpp"
#include "pipeline/collapse_run.hpp"
#include "pipeline/recording_columns.hpp"
#include "session/session.hpp"
#include "tracedat/reader.hpp"

namespace py = pybind11;

namespace sonde::python_module {

namespace {

// The vector becomes the array's memory; the array keeps it alive.
template <typename T>
py::array_t<T> take(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* pointer) { delete static_cast<std::vector<T>*>(pointer); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), free_when_done);
}

// pandas.Categorical of codes into names (-1: missing).
py::object categorical(std::vector<int32_t>&& codes, const std::vector<std::string>& names) {
  py::module_ pandas = py::module_::import("pandas");
  return pandas.attr("Categorical").attr("from_codes")(take(std::move(codes)), py::cast(names));
}

std::string raise_on_error(const Error& error) { throw std::runtime_error(error.message); }

Diagnostics quiet_diagnostics() {
  return Diagnostics([](const Diagnostics::Message&) {});
}

class Recording {
 public:
  explicit Recording(std::string path) : path_(std::move(path)) {
    if (tracedat::is_trace_dat(path_)) {
      auto trace = tracedat::TraceDatReader::open(path_);
      if (!trace) raise_on_error(trace.error().with_context(path_));
      py::dict header;
      header["format"] = "trace.dat";
      header["version"] = (*trace)->version();
      header["cpus"] = (*trace)->cpu_count();
      header_ = header;
      return;
    }
    auto reader = perfdata::PerfDataReader::open(path_);
    if (!reader) raise_on_error(reader.error());
    const auto& features = reader->features();
    py::dict header;
    header["format"] = "perf.data";
    auto put = [&](const char* key, const std::optional<std::string>& value) {
      header[key] = value ? py::cast(*value) : py::none();
    };
    put("hostname", features.hostname);
    put("os_release", features.os_release);
    put("perf_version", features.version);
    put("arch", features.arch);
    put("cpu_desc", features.cpu_desc);
    header["nr_cpus_online"] = features.nr_cpus ? py::cast(features.nr_cpus->online) : py::none();
    header["nr_cpus_available"] = features.nr_cpus ? py::cast(features.nr_cpus->available) : py::none();
    header["cmdline"] = features.cmdline ? py::cast(*features.cmdline) : py::none();
    header["sample_time"] = features.sample_time
                                ? py::cast(std::pair{features.sample_time->first, features.sample_time->last})
                                : py::none();
    py::list events;
    for (const auto& event : reader->attrs().events()) events.append(session::event_name(event));
    header["events"] = events;
    header_ = header;
  }

  const std::string& path() const { return path_; }
  py::dict header() const { return header_; }

  // time, pid, tid, cpu, event, period, ip, sym, dso (and stack_id with stacks): a DataFrame, or
  // a dict of arrays (codes and names for the categorical columns) when as_frame is false.
  py::object samples(bool stacks, bool srcline, bool as_frame) {
    auto diagnostics = quiet_diagnostics();
    auto read = pipeline::read_sample_columns(path_, stacks, srcline, diagnostics);
    if (!read) raise_on_error(read.error());
    pipeline::SampleColumns& c = *read;
    // Each sample's symbol and DSO through its frame.
    std::vector<int32_t> symbol(c.frame.size()), dso(c.frame.size()), line(srcline ? c.frame.size() : 0);
    for (size_t i = 0; i < c.frame.size(); ++i) {
      symbol[i] = c.frame_symbol[static_cast<size_t>(c.frame[i])];
      dso[i] = c.frame_dso[static_cast<size_t>(c.frame[i])];
      if (srcline) line[i] = c.frame_srcline[static_cast<size_t>(c.frame[i])];
    }
    py::dict columns;
    columns["time"] = take(std::move(c.time));
    columns["pid"] = take(std::move(c.pid));
    columns["tid"] = take(std::move(c.tid));
    columns["cpu"] = take(std::move(c.cpu));
    columns["period"] = take(std::move(c.period));
    columns["ip"] = take(std::move(c.ip));
    if (stacks) columns["stack_id"] = take(std::move(c.stack));
    if (!as_frame) {
      columns["event"] = take(std::move(c.event));
      columns["event_names"] = c.event_names;
      columns["sym"] = take(std::move(symbol));
      columns["sym_names"] = c.symbol_names;
      columns["dso"] = take(std::move(dso));
      columns["dso_names"] = c.dso_names;
      if (srcline) {
        columns["srcline"] = take(std::move(line));
        columns["srcline_names"] = c.srcline_names;
      }
      if (stacks) stacks_ = frame_tables(c);
      return columns;
    }
    columns["event"] = categorical(std::move(c.event), c.event_names);
    columns["sym"] = categorical(std::move(symbol), c.symbol_names);
    columns["dso"] = categorical(std::move(dso), c.dso_names);
    if (srcline) columns["srcline"] = categorical(std::move(line), c.srcline_names);
    if (stacks) stacks_ = frame_tables(c);
    py::module_ pandas = py::module_::import("pandas");
    py::list order;
    for (const char* name : {"time", "pid", "tid", "cpu", "event", "period", "ip", "sym", "dso"})
      order.append(name);
    if (srcline) order.append("srcline");
    if (stacks) order.append("stack_id");
    return pandas.attr("DataFrame")(columns, py::arg("columns") = order);
  }

  // The stacks of the last samples(stacks=True): {"frames": DataFrame(ip, sym, dso),
  // "offsets": int64 array, "frame_ids": int32 array}; stack i's frames, leaf first, are
  // frame_ids[offsets[i]:offsets[i + 1]].
  py::object stacks() {
    if (stacks_.is_none()) samples(true, false, false);
    return stacks_;
  }

  // The payload fields of tracepoint `name` ("sched:sched_switch") with time, pid, tid, cpu, comm.
  py::object tracepoints(const std::string& name) {
    auto diagnostics = quiet_diagnostics();
    auto read = pipeline::read_tracepoint_columns(path_, name, diagnostics);
    if (!read) raise_on_error(read.error());
    pipeline::TracepointColumns& c = *read;
    py::dict columns;
    py::list order;
    auto add = [&](const std::string& column, py::object values) {
      columns[py::str(column)] = values;
      order.append(column);
    };
    add("time", take(std::move(c.time)));
    add("pid", take(std::move(c.pid)));
    add("tid", take(std::move(c.tid)));
    add("cpu", take(std::move(c.cpu)));
    add("comm", categorical(std::move(c.comm), c.comm_names));
    for (auto& field : c.fields) {
      using Kind = pipeline::TracepointColumns::Field::Kind;
      // A payload field named like a sample column keeps its own name with a prefix.
      std::string column = columns.contains(py::str(field.name)) ? "field_" + field.name : field.name;
      switch (field.kind) {
        case Kind::signed_number:
          add(column, take(std::move(field.signed_values)));
          break;
        case Kind::unsigned_number:
          add(column, take(std::move(field.unsigned_values)));
          break;
        case Kind::text:
          add(column, py::cast(field.texts));
          break;
        case Kind::bytes: {
          py::list values;
          for (const std::string& bytes : field.texts) values.append(py::bytes(bytes));
          add(column, values);
          break;
        }
      }
    }
    py::module_ pandas = py::module_::import("pandas");
    return pandas.attr("DataFrame")(columns, py::arg("columns") = order);
  }

  // The rows `sonde report --stdio -g none -s SORT` prints, a column per printed column (the
  // texts as printed, trimmed), with the event each row belongs to.
  py::object report(const std::string& sort, std::optional<bool> children) {
    analysis::ReportRequest request;
    request.input = path_;
    request.kallsyms = perfdata::recording_kallsyms(path_);
    if (!sort.empty()) {
      auto keys = analysis::parse_sort_keys(sort);
      if (!keys) raise_on_error(keys.error());
      request.options.keys = *keys;
    }
    request.children = children;
    if (auto parsed = analysis::parse_call_graph("none", request, false); !parsed)
      raise_on_error(parsed.error());
    request.field_separator = std::string(1, kSeparator);
    auto diagnostics = quiet_diagnostics();
    auto report = analysis::run_report(request, diagnostics);
    if (!report) raise_on_error(report.error());
    char* text = nullptr;
    size_t size = 0;
    std::FILE* memory = open_memstream(&text, &size);
    if (memory == nullptr) throw std::runtime_error("cannot make an in-memory file for the report");
    output::print_report(memory, **report, request);
    std::fclose(memory);
    std::string printed(text, size);
    std::free(text);
    return report_frame(printed);
  }

  // Folded stacks, stackcollapse-perf.pl's text ("comm;caller;...;leaf count" lines).
  std::string folded() {
    pipeline::CollapseRequest request;
    request.input = path_;
    auto diagnostics = quiet_diagnostics();
    auto text = pipeline::collapse_stacks(request, diagnostics);
    if (!text) raise_on_error(text.error());
    return *text;
  }

 private:
  static constexpr char kSeparator = '\x1f';

  static py::object frame_tables(pipeline::SampleColumns& c) {
    py::dict frames;
    frames["ip"] = take(std::move(c.frame_ip));
    frames["sym"] = categorical(std::move(c.frame_symbol), c.symbol_names);
    frames["dso"] = categorical(std::move(c.frame_dso), c.dso_names);
    if (!c.frame_srcline.empty())
      frames["srcline"] = categorical(std::move(c.frame_srcline), c.srcline_names);
    py::dict tables;
    tables["frames"] = py::module_::import("pandas").attr("DataFrame")(frames);
    tables["offsets"] = take(std::move(c.stack_offsets));
    tables["frame_ids"] = take(std::move(c.stack_frames));
    return tables;
  }

  static std::vector<std::string> split_row(std::string_view line) {
    std::vector<std::string> cells;
    size_t start = 0;
    while (true) {
      size_t end = line.find(kSeparator, start);
      std::string_view cell = line.substr(start, end == std::string_view::npos ? line.npos : end - start);
      while (!cell.empty() && cell.front() == ' ') cell.remove_prefix(1);
      while (!cell.empty() && cell.back() == ' ') cell.remove_suffix(1);
      cells.emplace_back(cell);
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
    return cells;
  }

  static py::object report_frame(const std::string& printed) {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> events;
    std::string event;
    size_t start = 0;
    while (start < printed.size()) {
      size_t end = printed.find('\n', start);
      if (end == std::string::npos) end = printed.size();
      std::string_view line(printed.data() + start, end - start);
      start = end + 1;
      if (line.starts_with("# Samples:")) {
        size_t open = line.find("of event '");
        if (open != std::string_view::npos) {
          std::string_view rest = line.substr(open + 10);
          event = std::string(rest.substr(0, rest.rfind('\'')));
        }
      } else if (line.starts_with("# ") && line.find(kSeparator) != std::string_view::npos) {
        header = split_row(line.substr(2));
      } else if (!line.empty() && !line.starts_with('#')) {
        rows.push_back(split_row(line));
        events.push_back(event);
      }
    }
    py::dict columns;
    py::list order;
    columns["event"] = events;
    order.append("event");
    for (size_t i = 0; i < header.size(); ++i) {
      std::vector<std::string> values;
      values.reserve(rows.size());
      for (const auto& row : rows) values.push_back(i < row.size() ? row[i] : std::string());
      columns[py::str(header[i])] = values;
      order.append(header[i]);
    }
    return py::module_::import("pandas").attr("DataFrame")(columns, py::arg("columns") = order);
  }

  std::string path_;
  py::dict header_;
  py::object stacks_ = py::none();
};

}  // namespace

}  // namespace sonde::python_module

PYBIND11_MODULE(sonde, module) {
  using sonde::python_module::Recording;
  module.doc() =
      "perf.data recordings (sonde's or perf's) as NumPy arrays and pandas DataFrames, read by sonde's own "
      "reader, symbols and report";
  py::class_<Recording>(module, "Recording")
      .def_property_readonly("path", &Recording::path)
      .def_property_readonly("header", &Recording::header, "the header's facts: host, kernel, CPUs, events")
      .def("samples", &Recording::samples, py::arg("stacks") = false, py::arg("srcline") = false,
           py::arg("as_frame") = true,
           "the samples: time, pid, tid, cpu, event, period, ip, sym, dso (srcline with srcline=True, "
           "stack_id "
           "with stacks=True)")
      .def("stacks", &Recording::stacks, "the frame table and each stack's frame ids, leaf first")
      .def("tracepoints", &Recording::tracepoints, py::arg("name"),
           "a tracepoint's samples with every payload field a column")
      .def("report", &Recording::report, py::arg("sort") = "", py::arg("children") = py::none(),
           "the rows sonde report prints (-g none), a column per printed column")
      .def("folded", &Recording::folded, "folded stacks, as stackcollapse-perf.pl writes them");
  module.def(
      "open", [](const std::string& path) { return Recording(path); }, py::arg("path"),
      "open a perf.data file (sonde's or perf's)");
}
