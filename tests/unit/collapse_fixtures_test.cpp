// sonde's folding against stackcollapse-perf.pl: every tests/fixtures/collapse/NAME.OPTIONS.folded
// was written once by the real script from NAME.txt (see the README there); sonde must give the
// same bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/stacks/script_text.hpp"
#include "analysis/stacks/stack_collapse.hpp"
#include "analysis/stacks/stack_collapse_inline.hpp"

namespace sonde::analysis {
namespace {

const std::filesystem::path kFixtures =
    std::filesystem::path(__FILE__).parent_path() / "../fixtures/collapse";

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Case {
  std::string input;     // NAME.txt
  std::string expected;  // NAME.OPTIONS.folded
  std::string options;   // OPTIONS
};

std::vector<Case> cases() {
  std::vector<Case> found;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures)) {
    std::string file = entry.path().filename().string();
    if (!file.ends_with(".folded")) continue;
    size_t dot = file.find('.');
    found.push_back({file.substr(0, dot) + ".txt", file, file.substr(dot + 1, file.size() - dot - 8)});
  }
  std::sort(found.begin(), found.end(), [](const Case& a, const Case& b) { return a.expected < b.expected; });
  return found;
}

std::string collapse(const std::string& text, const std::string& option_set, std::string* notes) {
  CollapseOptions options;
  std::string event;
  bool srcline = false;
  if (option_set == "pid") options.include_pid = true;
  if (option_set == "tid") options.include_tid = true;
  if (option_set == "kernel" || option_set == "all") options.annotate_kernel = true;
  if (option_set == "jit" || option_set == "all") options.annotate_jit = true;
  if (option_set == "addrs") options.include_addrs = true;
  if (option_set == "inline" || option_set == "context") options.show_inline = true;
  if (option_set == "context") options.show_context = true;
  if (option_set == "srcline") srcline = true;
  if (option_set.starts_with("filter-")) event = option_set.substr(7);
  DwarfInlineExpander expander;
  StackCollapser collapser(options, &expander);
  EventFilter filter(event);
  Diagnostics diagnostics;
  parse_script_text(
      text, {.srcline = srcline}, filter, [&](const StackSample& sample) { collapser.add(sample); },
      diagnostics);
  for (const Diagnostics::Message& note : diagnostics.messages()) *notes += note.text + "\n";
  return collapser.folded_text();
}

TEST(CollapseFixtures, ByteIdenticalToStackcollapsePerf) {
  auto all = cases();
  ASSERT_GE(all.size(), 40u) << "fixtures missing under " << kFixtures;
  for (const auto& c : all) {
    std::string text = slurp(kFixtures / c.input);
    ASSERT_FALSE(text.empty()) << c.input;
    if (c.input == "inline.txt") {
      // The fixture names the binary where it was recorded; the binary now sits beside it.
      std::string recorded = "/tmp/sonde-fixgen/inline_chain";
      std::string here = std::filesystem::canonical(kFixtures / "inline_chain").string();
      for (size_t at = text.find(recorded); at != std::string::npos;
           at = text.find(recorded, at + here.size()))
        text.replace(at, recorded.size(), here);
    }
    std::string notes;
    EXPECT_EQ(collapse(text, c.options, &notes), slurp(kFixtures / c.expected)) << c.expected;
  }
}

TEST(CollapseFixtures, NotesTheEventFilterOnceAndUnrecognizedLines) {
  std::string notes;
  collapse(slurp(kFixtures / "edge.txt"), "default", &notes);
  EXPECT_NE(notes.find("Filtering for events of type: cpu-clock\n"), std::string::npos) << notes;
  EXPECT_NE(notes.find("unrecognized line 35: bad line here\n"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("Filtering for events of type: instructions"), std::string::npos) << notes;
}

TEST(CollapseFixtures, SamplesFromAnyProducerFoldAlike) {
  // The perf.data session hands over frames it resolved itself: no ip text, no srcline.
  StackFrame frames[] = {
      {.ip = 0x1204, .symbol = "hot_leaf", .symoff = 0x24, .has_symoff = true, .dso = "/bin/demo"},
      {.ip = 0xffffffff81000000, .symbol = "[unknown]", .dso = "[unknown]"},
      {.ip = 0x1097, .symbol = "main", .dso = "/bin/demo"},
  };
  CollapseOptions options;
  options.include_addrs = true;
  options.include_tid = true;
  StackCollapser collapser(options);
  StackSample sample{
      .comm = "my demo", .pid = 7, .tid = 8, .event = "cpu-clock", .period = 3, .frames = frames};
  collapser.add(sample);
  collapser.add(sample);
  EXPECT_EQ(collapser.folded_text(), "my_demo-7/8;main;[unknown <ffffffff81000000>];hot_leaf 6\n");
}

TEST(CollapseScriptText, TellsScriptTextFromFolded) {
  EXPECT_TRUE(
      looks_like_script_text("demo  7511  9877.517389:    2004008 cpu-clock:pppH: \n\t 1204 f (/x)\n"));
  EXPECT_TRUE(looks_like_script_text("# header\njava 12688/12764 6544038.708352: 10 cpu-clock:\n\n"));
  EXPECT_FALSE(looks_like_script_text("demo;main;run 12\ndemo;main 3\n"));
  EXPECT_FALSE(looks_like_script_text(""));
}

}  // namespace
}  // namespace sonde::analysis
