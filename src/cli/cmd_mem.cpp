// sonde mem and sonde c2c: record runs sonde record with perf mem record's and perf c2c record's
// arguments for this machine's memory-sampling unit (pipeline/mem_record), refused with the reason
// where it has none; mem report -D dumps the samples (pipeline/mem_run). perf takes mem's options before the
// subcommand (`perf mem -t load record`); record's own (--ldlat, -U, -K) and then record's and the command
// follow it.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/strings.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "kernel/cpus.hpp"
#include "pipeline/mem_record.hpp"
#include "pipeline/mem_run.hpp"

namespace sonde::cli {

namespace {

struct MemToolText {
  std::string_view name, usage;
};

constexpr MemToolText kMemText{
    "mem",
    "usage: sonde mem [-t load,store] [-p] [--data-page-size] record [--ldlat N] [-U] [-K] [<record "
    "options>] "
    "[-- COMMAND]\n"
    "       sonde mem -D [-i FILE] [-U] [-x SEP] [-C CPUS] [-p] [--data-page-size] report\n"
    "  record  sample memory accesses (PEBS load latency, IBS or SPE) into perf.data\n"
    "  report  -D: every sample with its data address, weight, data source and symbol\n"};
constexpr MemToolText kC2cText{
    "c2c",
    "usage: sonde c2c record [--ldlat N] [-U] [-K] [<record options>] [-- COMMAND]\n"
    "  record  sample loads and stores with their physical addresses and CPUs into perf.data\n"};

int memory_tool(pipeline::MemTool tool, int argc, char** argv) {
  const MemToolText& text = tool == pipeline::MemTool::mem ? kMemText : kC2cText;
  pipeline::MemRecordRequest request;
  request.tool = tool;
  pipeline::MemDumpRunOptions dump;
  bool dump_raw = false;
  std::string cpus;
  // The tool's options, before the subcommand.
  int at = 1;
  std::string type;
  // One of the tool's options at argv[i] (its value taken too); false when it is not one.
  auto tool_option = [&](int& i) {
    std::string_view word = argv[i];
    bool mem = tool == pipeline::MemTool::mem;
    bool has_value = i + 1 < argc;
    if (mem && (word == "-t" || word == "--type") && has_value) {
      type = argv[++i];
    } else if (mem && word.starts_with("--type=")) {
      type = std::string(word.substr(7));
    } else if (mem && (word == "-p" || word == "--phys-data")) {
      request.phys_data = true;
    } else if (mem && word == "--data-page-size") {
      request.data_page_size = true;
    } else if (mem && (word == "-D" || word == "--dump-raw-samples")) {
      dump_raw = true;
    } else if (mem && (word == "-U" || word == "--hide-unresolved")) {
      dump.hide_unresolved = true;
    } else if (mem && (word == "-x" || word == "--field-separator") && has_value) {
      dump.dump.separator = argv[++i];
    } else if ((word == "-i" || word == "--input") && has_value) {
      dump.input = argv[++i];
    } else if ((word == "-C" || word == "--cpu") && has_value) {
      cpus = argv[++i];
    } else if (word == "-f" || word == "--force") {
      // perf's ownership check of the input; sonde reads any file it can open
    } else {
      return false;
    }
    return true;
  };
  for (; at < argc; ++at) {
    std::string_view word = argv[at];
    if (word == "-h" || word == "--help") {
      fmt::print("{}", text.usage);
      return 0;
    }
    if (!word.starts_with("-")) break;
    if (!tool_option(at))
      return report_usage_error(text.name, fmt::format("unknown option '{}' before the subcommand", word));
  }
  if (at >= argc) {
    fmt::print(stderr, "{}", text.usage);
    return 129;
  }
  std::string_view sub = argv[at];
  bool report =
      tool == pipeline::MemTool::mem && sub.size() >= 3 && std::string_view("report").starts_with(sub);
  if (!report && !(sub.size() >= 3 && std::string_view("record").starts_with(sub)))
    return report_usage_error(text.name,
                              fmt::format("unknown subcommand '{}'; give {}", sub,
                                          tool == pipeline::MemTool::mem ? "record or report" : "record"));
  if (report) {
    // perf reads mem's options after report too; report's own (--stdio) change nothing in a dump.
    for (int i = at + 1; i < argc; ++i)
      if (!tool_option(i) && std::string_view(argv[i]) != "--stdio")
        return report_usage_error(text.name, fmt::format("unknown report option '{}'", argv[i]));
    if (!dump_raw)
      return report_error(text.name,
                          Error{"report's table (perf report --mem-mode) is not there yet; -D dumps "
                                "every sample (sonde mem -D report)"});
    if (!cpus.empty()) {
      auto list = kernel::parse_cpu_list(cpus);
      if (!list) return report_error(text.name, list.error());
      dump.cpus = *list;
    }
    dump.dump.phys_data = request.phys_data;
    dump.dump.data_page_size = request.data_page_size;
    Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde mem: ", false);
    if (auto done = pipeline::run_mem_dump(dump, diagnostics); !done)
      return report_error(text.name, done.error());
    return 0;
  }
  if (!type.empty()) {
    request.loads = request.stores = false;
    for (size_t start = 0; start <= type.size();) {
      size_t comma = std::min(type.find(',', start), type.size());
      std::string_view one = std::string_view(type).substr(start, comma - start);
      if (one == "load")
        request.loads = true;
      else if (one == "store")
        request.stores = true;
      else
        return report_usage_error(text.name,
                                  fmt::format("unknown -t '{}'; give load, store or load,store", one));
      start = comma + 1;
    }
  }
  // record's own options, then sonde record's.
  std::vector<std::string> rest;
  for (int i = at + 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if ((word == "--ldlat") && i + 1 < argc) {
      auto value = parse_uint(argv[++i], 10);
      if (!value || *value == 0 || *value > 65535)
        return report_usage_error(text.name,
                                  fmt::format("bad --ldlat '{}'; give a latency in cycles", argv[i]));
      request.ldlat = static_cast<unsigned>(*value);
    } else if (word == "-U" || word == "--all-user") {
      request.all_user = true;
    } else if (word == "-K" || word == "--all-kernel") {
      request.all_kernel = true;
    } else {
      rest.emplace_back(word);
    }
  }
  auto arguments = pipeline::mem_record_arguments(request);
  if (!arguments) return report_error(text.name, arguments.error());
  arguments->insert(arguments->end(), rest.begin(), rest.end());
  return run_command(cmd_record, std::move(*arguments));
}

}  // namespace

int cmd_mem(int argc, char** argv) { return memory_tool(pipeline::MemTool::mem, argc, argv); }

int cmd_c2c(int argc, char** argv) { return memory_tool(pipeline::MemTool::c2c, argc, argv); }

}  // namespace sonde::cli
