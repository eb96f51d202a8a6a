// sonde buildid-list [-i perf.data] [-k]: the build-ids a recording holds (its BUILD_ID
// feature, or HEADER_BUILD_ID records in a pipe), "<build-id> <path>" per DSO as perf prints
// them. -i on an ELF file prints that file's build-id; -k the running kernel's.
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "capture/build_ids.hpp"
#include "cli/command.hpp"
#include "perfdata/reader.hpp"
#include "symbols/elf_image.hpp"

namespace sonde::cli {

int cmd_buildid_list(int argc, char** argv) {
  CLI::App app{"List the build-ids in a perf.data file", "sonde buildid-list"};
  std::string input = "perf.data";
  bool kernel = false, force = false;
  app.add_option("-i,--input", input, "input file name");
  app.add_flag("-k,--kernel", kernel, "Show current kernel build id");
  app.add_flag("-f,--force", force, "don't complain, do it");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int status = app.exit(error);
    return status == 0 ? 0 : 129;
  }
  if (kernel) {
    auto id = capture::read_kernel_build_id();
    if (!id) {
      fmt::print(stderr, "sonde buildid-list: the running kernel's build-id: {}\n", id.error().message);
      return 1;
    }
    fmt::print("{}\n", capture::build_id_hex(*id));
    return 0;
  }
  // An ELF file rather than a recording: its own build-id, as perf does.
  if (input != "-") {
    if (std::string id = symbols::elf_build_id(input); !id.empty()) {
      fmt::print("{}\n", id);
      return 0;
    }
  }
  auto reader = perfdata::PerfDataReader::open(input);
  if (!reader) {
    fmt::print(stderr, "failed to open {}: {}\n", input, reader.error().message);
    return 255;
  }
  if (reader->is_pipe()) {
    // In a pipe the build-ids travel as records; read them all.
    for (const auto& record : reader->records()) (void)record;
  }
  std::string out;
  if (const auto& entries = reader->features().build_ids) {
    for (const auto& entry : *entries)
      out += fmt::format("{:<40} {}\n", capture::build_id_hex(entry.build_id), entry.filename);
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace sonde::cli
