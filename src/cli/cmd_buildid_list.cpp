// sonde buildid-list [-i perf.data] [-k]: the build-ids a recording holds (its BUILD_ID
// feature, or HEADER_BUILD_ID records in a pipe), "<build-id> <path>" per DSO as perf prints
// them. -H keeps the DSOs that samples hit; a pipe-mode stream lists the DSOs hit, as perf does. -i on an ELF
// file prints that file's build-id; -k the running kernel's.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "format/build_ids.hpp"
#include "pipeline/build_id_list.hpp"
#include "symbols/elf_image.hpp"

namespace sonde::cli {

int cmd_buildid_list(int argc, char** argv) {
  CLI::App app{"List the build-ids in a perf.data file", "sonde buildid-list"};
  std::string input = "perf.data";
  bool kernel = false, force = false, with_hits = false;
  app.add_option("-i,--input", input, "input file name");
  app.add_flag("-k,--kernel", kernel, "Show current kernel build id");
  app.add_flag("-f,--force", force, "don't complain, do it");
  app.add_flag("-H,--with-hits", with_hits, "Show only DSOs with hits");
  if (auto exit_code = parse_command_line(app, argc, argv, "buildid-list", AfterOptions::nothing))
    return *exit_code;
  if (kernel) {
    auto id = format::read_kernel_build_id();
    if (!id) return report_error("buildid-list", id.error().with_context("the running kernel's build-id"));
    fmt::print("{}\n", format::build_id_hex(*id));
    return 0;
  }
  // An ELF file rather than a recording: its own build-id, as perf does.
  if (input != "-") {
    if (auto id = symbols::elf_build_id(input); id && !id->empty()) {
      fmt::print("{}\n", *id);
      return 0;
    }
  }
  auto source = pipeline::open_build_id_source(input, with_hits);
  if (!source) {
    fmt::print(stderr, "failed to open {}: {}\n", input, source.error().message);
    return 255;  // perf's status when the file cannot be opened
  }
  auto listing = pipeline::list_build_ids(*source);
  if (!listing) return report_error("buildid-list", listing.error());
  std::fputs(listing->c_str(), stdout);
  return 0;
}

}  // namespace sonde::cli
