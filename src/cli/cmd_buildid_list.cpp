// sonde buildid-list [-i perf.data] [-k]: the build-ids a recording holds (its BUILD_ID
// feature, or HEADER_BUILD_ID records in a pipe), "<build-id> <path>" per DSO as perf prints
// them. -H keeps the DSOs that samples hit; a pipe-mode stream lists the DSOs hit, as perf does. -i on an ELF file prints that file's build-id; -k
// the running kernel's.
#include <string>
#include <unordered_set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "format/build_ids.hpp"
#include "cli/command.hpp"
#include "perfdata/reader.hpp"
#include "session/session.hpp"
#include "symbols/elf_image.hpp"

namespace sonde::cli {

namespace {

// "<build-id> <path>" per BUILD_ID entry, only those in `hit` when it is given.
int print_entries(const perfdata::FeatureSet& features, const std::unordered_set<std::string>* hit) {
  std::string out;
  if (const auto& entries = features.build_ids) {
    for (const auto& entry : *entries) {
      if (hit && !hit->count(entry.filename)) continue;
      out += fmt::format("{:<40} {}\n", format::build_id_hex(entry.build_id), entry.filename);
    }
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

int cmd_buildid_list(int argc, char** argv) {
  CLI::App app{"List the build-ids in a perf.data file", "sonde buildid-list"};
  std::string input = "perf.data";
  bool kernel = false, force = false, with_hits = false;
  app.add_option("-i,--input", input, "input file name");
  app.add_flag("-k,--kernel", kernel, "Show current kernel build id");
  app.add_flag("-f,--force", force, "don't complain, do it");
  app.add_flag("-H,--with-hits", with_hits, "Show only DSOs with hits");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int status = app.exit(error);
    return status == 0 ? 0 : 129;
  }
  if (kernel) {
    auto id = format::read_kernel_build_id();
    if (!id) {
      fmt::print(stderr, "sonde buildid-list: the running kernel's build-id: {}\n", id.error().message);
      return 1;
    }
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
  if (!with_hits && input != "-") {
    auto reader = perfdata::PerfDataReader::open(input);
    if (!reader) {
      fmt::print(stderr, "failed to open {}: {}\n", input, reader.error().message);
      return 255;
    }
    if (!reader->is_pipe()) return print_entries(reader->features(), nullptr);
  }
  // -H, or a pipe-mode stream: which DSOs samples hit needs the whole replay.
  auto session = session::Session::open(input);
  if (!session) {
    fmt::print(stderr, "failed to open {}: {}\n", input, session.error().message);
    return 255;
  }
  struct Ignore : session::SessionVisitor {
    void on_sample(const session::SampleEvent&) override {}
  } ignore;
  if (auto processed = session->process(ignore); !processed) {
    fmt::print(stderr, "sonde buildid-list: {}: {}\n", input, processed.error().message);
    return 1;
  }
  if (session->reader().is_pipe()) {
    // As perf: a stream has no BUILD_ID section to list, so the DSOs samples hit are listed
    // with what their MMAP2 records or HEADER_BUILD_ID records said (blank when nothing).
    std::string out;
    for (const auto& dso : session->machine().dsos().all())
      if (dso->hit) out += fmt::format("{:<40} {}\n", dso->build_id, dso->long_name);
    std::fputs(out.c_str(), stdout);
    return 0;
  }
  std::unordered_set<std::string> hit;
  for (const auto& dso : session->machine().dsos().all())
    if (dso->hit) hit.insert(dso->long_name);
  return print_entries(session->reader().features(), &hit);
}

}  // namespace sonde::cli
