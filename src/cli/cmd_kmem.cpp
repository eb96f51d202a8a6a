// sonde kmem: perf kmem's record and stat. record runs sonde record with perf kmem record's events;
// stat reads the file through pipeline/kmem_run. perf takes kmem's options before the subcommand
// only (`perf kmem --page --caller stat`); sonde also takes them after it.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "analysis/script/script_filter.hpp"
#include "base/strings.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "pipeline/kmem_run.hpp"

namespace sonde::cli {

namespace {

constexpr std::string_view kKmemUsage =
    "usage: sonde kmem [<options>] {record|stat} [<options>]\n"
    "  record [--slab] [--page] [-- COMMAND]  record the allocators' events system-wide into perf.data\n"
    "  stat                                   the allocators' statistics (--caller, --alloc, -s, -l, "
    "--slab,\n"
    "                                         --page, --live, --raw-ip, --time, -i)\n";

// Which words after `at` are an option's value, so the subcommand can be found among them.
bool kmem_option_takes_value(std::string_view word) {
  return word == "-i" || word == "--input" || word == "-s" || word == "--sort" || word == "-l" ||
         word == "--line" || word == "--time";
}

// The kmem options in the order given: perf decides what -s and -l apply to, and whether the
// slab or the page allocator is meant, by what came before them.
struct KmemCommandLine {
  analysis::KmemOptions options;
  bool slab = false, page = false;
  bool verbose = false;  // -v: the symbol notes too
};

std::optional<int> parse_kmem_options(std::vector<std::string> words, KmemCommandLine& line) {
  std::vector<std::string> sorts, lines;
  std::string time;
  bool force = false, caller = false, alloc = false;
  CLI::App app{"The slab and page allocators' statistics (perf kmem)", "sonde kmem"};
  app.add_option("-i,--input", line.options.input_path, "input file name (default perf.data)");
  app.add_flag("-v,--verbose", line.verbose, "be more verbose (notes about symbols)");
  app.add_flag("--caller", caller, "show per-callsite statistics");
  app.add_flag("--alloc", alloc, "show per-allocation statistics");
  app.add_option(
         "-s,--sort", sorts,
         "sort by keys: ptr, callsite, bytes, hit, pingpong, frag (slab); page, callsite, hit, bytes, order, "
         "migtype, gfp (page)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("-l,--line", lines, "show n lines")->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--raw-ip", line.options.raw_ip, "show raw ip instead of symbol");
  app.add_flag("-f,--force", force, "accepted for perf's sake");
  app.add_flag("--slab", line.slab, "analyze the slab allocator (the default)");
  app.add_flag("--page", line.page, "analyze the page allocator");
  app.add_flag("--live", line.options.live, "show live page stat");
  app.add_option("--time", time, "time span of interest (start,stop)");
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  if (auto exit_code =
          parse_command_line(app, static_cast<int>(argv.size()), argv.data(), "kmem", AfterOptions::nothing))
    return exit_code;

  // perf's counters: each of --caller/--alloc and --slab/--page outranks the other when it came later.
  int caller_flag = 0, alloc_flag = 0, slab_flag = 0, page_flag = 0;
  size_t next_sort = 0, next_line = 0;
  for (const CLI::Option* option : app.parse_order()) {
    const std::string name = option->get_name();
    if (name == "--caller") caller_flag = alloc_flag + 1;
    if (name == "--alloc") alloc_flag = caller_flag + 1;
    if (name == "--slab") slab_flag = page_flag + 1;
    if (name == "--page") page_flag = slab_flag + 1;
    if (name == "--sort" && next_sort < sorts.size()) {
      const std::string& keys = sorts[next_sort++];
      bool callers = caller_flag > alloc_flag;
      if (page_flag > slab_flag) {
        auto parsed = analysis::parse_page_sort_keys(keys);
        if (!parsed) return report_usage_error("kmem", parsed.error().message);
        auto& list = callers ? line.options.page_caller_sort : line.options.page_alloc_sort;
        list.insert(list.end(), parsed->begin(), parsed->end());
      } else {
        auto parsed = analysis::parse_slab_sort_keys(keys);
        if (!parsed) return report_usage_error("kmem", parsed.error().message);
        auto& list = callers ? line.options.slab_caller_sort : line.options.slab_alloc_sort;
        list.insert(list.end(), parsed->begin(), parsed->end());
      }
    }
    if (name == "--line" && next_line < lines.size()) {
      const std::string& text = lines[next_line++];
      auto count = parse_uint(text, 10);
      if (!count || *count > INT32_MAX)
        return report_usage_error("kmem", fmt::format("bad -l '{}'; give the number of lines to show", text));
      (caller_flag > alloc_flag ? line.options.caller_lines : line.options.alloc_lines) =
          static_cast<int>(*count);
    }
  }
  line.options.caller = caller_flag > 0;
  line.options.alloc = alloc_flag > 0;
  if (!line.slab && !line.page) line.slab = true;
  line.options.slab = line.slab;
  line.options.page = line.page;
  if (!time.empty()) {
    auto ranges = analysis::parse_time_ranges(time);
    if (!ranges) return report_usage_error("kmem", "Invalid time string: give --time START,STOP in seconds");
    line.options.times = *ranges;
  }
  return std::nullopt;
}

}  // namespace

int cmd_kmem(int argc, char** argv) {
  int at = 1;
  while (at < argc) {
    std::string_view word = argv[at];
    if (!word.starts_with("-")) break;
    if (word == "-h" || word == "--help") {
      fmt::print("{}", kKmemUsage);
      return 0;
    }
    at += kmem_option_takes_value(word) ? 2 : 1;
  }
  if (at >= argc) {
    fmt::print(stderr, "{}", kKmemUsage);
    return 129;
  }
  std::string_view sub = argv[at];
  bool record = sub.size() > 2 && std::string_view("record").starts_with(sub);
  if (!record && sub != "stat")
    return report_usage_error("kmem", fmt::format("unknown subcommand '{}'; give record or stat", sub));
  std::vector<std::string> words = {"kmem"};
  for (int i = 1; i < at; ++i) words.emplace_back(argv[i]);
  int rest = at + 1;
  if (record) {
    // `record --page -- COMMAND`: leading --slab/--page are kmem's, the rest record's.
    while (rest < argc &&
           (std::string_view(argv[rest]) == "--slab" || std::string_view(argv[rest]) == "--page"))
      words.emplace_back(argv[rest++]);
  } else {
    for (; rest < argc; ++rest) words.emplace_back(argv[rest]);
  }
  KmemCommandLine line;
  if (auto exit_code = parse_kmem_options(std::move(words), line)) return *exit_code;
  if (record) {
    std::vector<std::string> arguments = pipeline::kmem_record_arguments(line.slab, line.page);
    for (int i = rest; i < argc; ++i) arguments.emplace_back(argv[i]);
    return run_command(cmd_record, std::move(arguments));
  }
  Diagnostics diagnostics = Diagnostics::printing_to(stderr, "sonde kmem: ", line.verbose);
  auto done = pipeline::run_kmem_stat(line.options, diagnostics);
  if (!done) return report_error("kmem", done.error());
  return 0;
}

}  // namespace sonde::cli
