// Folding and drawing a perf.data file directly (no perf script round trip) gives what folding
// its perf script text gives, byte for byte, for perf's recordings and sonde's.
#include <gtest/gtest.h>

#include <string>

#include "../unit/flamegraph_svg_check.hpp"
#include "flamegraph_fixtures.hpp"
#include "run.hpp"

namespace sonde::test {
namespace {

void expect_direct_equals_script_text(const std::string& data, const std::string& options) {
  RunResult direct = run(sonde_bin() + " collapse " + options + " " + data);
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  RunResult via_text =
      run("perf script -i " + data + " 2>/dev/null | " + sonde_bin() + " collapse " + options);
  ASSERT_EQ(via_text.exit_code, 0) << via_text.err;
  ASSERT_FALSE(direct.out.empty());
  EXPECT_EQ(direct.out, via_text.out);
}

TEST(SessionStacks, CollapseOfPerfDataEqualsCollapseOfItsScriptText) {
  if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  std::string perf_data = temp_dir() + "/stacks-perf.data";
  std::string sonde_data = temp_dir() + "/stacks-sonde.data";
  ASSERT_EQ(
      run("perf record -q -g -F 999 -o " + perf_data + " " + workload("demo") + " 100000 10 >/dev/null 2>&1")
          .exit_code,
      0);
  ASSERT_EQ(run(sonde_bin() + " record -q -g -F 999 -o " + sonde_data + " " + workload("writes") +
                " 20000 64 2 >/dev/null 2>&1")
                .exit_code,
            0);
  for (const std::string& data : {perf_data, sonde_data}) {
    expect_direct_equals_script_text(data, "");
    expect_direct_equals_script_text(data, "--tid --kernel");
  }
  // The flame graph of the file: well-formed, its root the sum of the folded counts, the demo's
  // hot path in it.
  std::string svg = temp_dir() + "/stacks.svg";
  RunResult drawn = run(sonde_bin() + " flamegraph " + perf_data + " -o " + svg);
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  auto doc = parse_xml(slurp(svg));
  ASSERT_EQ(doc.error, "");
  auto frames = flame_frames(doc);
  ASSERT_FALSE(frames.empty());
  double total = 0;
  for (const auto& line : lines(run(sonde_bin() + " collapse " + perf_data).out))
    total += std::stod(line.substr(line.rfind(' ') + 1));
  double root = 0;
  bool hot_leaf = false;
  for (const auto& frame : frames) {
    root = std::max(root, frame.samples);
    hot_leaf |= frame.name == "hot_leaf";
  }
  EXPECT_EQ(root, total);
  EXPECT_TRUE(hot_leaf);
}

TEST(SessionStacks, DwarfRecordingsFoldTheirInlineChainsAsTheirScriptText) {
  // A DWARF unwind's frames are shown by their inline chains (libc's
  // "__libc_start_main_impl (inlined)"): folding the file must name them as its text does.
  if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  std::string perf_data = temp_dir() + "/stacks-dwarf-perf.data";
  std::string sonde_data = temp_dir() + "/stacks-dwarf-sonde.data";
  ASSERT_EQ(run("perf record -q --call-graph dwarf,4096 -F 499 -o " + perf_data + " " + workload("demo") +
                " 50000 2 >/dev/null 2>&1")
                .exit_code,
            0);
  ASSERT_EQ(run(sonde_bin() + " record -q --call-graph dwarf,4096 -F 499 -o " + sonde_data + " " +
                workload("inlined") + " >/dev/null 2>&1")
                .exit_code,
            0);
  for (const std::string& data : {perf_data, sonde_data}) expect_direct_equals_script_text(data, "");
  EXPECT_NE(run(sonde_bin() + " collapse " + perf_data).out.find(";__libc_start_main_impl;"),
            std::string::npos);
}

}  // namespace
}  // namespace sonde::test
