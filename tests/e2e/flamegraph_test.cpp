// sonde flamegraph and heatmap as a user runs them: on a fresh perf profile of the demo workload
// (well-formed SVG, totals, the hot path as the widest tower), in headless Chromium (no script
// errors, a click zooms, search highlights; screenshots left in the build directory for a
// person), and the differential graph of two profiles whose hot function changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../unit/flamegraph_svg_check.hpp"
#include "flamegraph_fixtures.hpp"
#include "run.hpp"

namespace sonde::test {
namespace {

std::string build_dir() { return std::filesystem::path(sonde_bin()).parent_path().string(); }

// perf script text of the demo workload, recorded once per test binary.
const std::string& demo_script(const std::string& name, const std::string& args) {
  static std::map<std::string, std::string> recorded;
  auto& path = recorded[name];
  if (path.empty()) {
    path = temp_dir() + "/" + name + ".txt";
    std::string data = temp_dir() + "/" + name + ".data";
    auto record =
        run("perf record -q -g -F 999 -o " + data + " " + workload("demo") + " " + args + " >/dev/null");
    EXPECT_EQ(record.exit_code, 0) << record.err;
    EXPECT_EQ(run("perf script -i " + data + " > " + path).exit_code, 0);
  }
  return path;
}

const SvgFrame& widest_child(const std::vector<SvgFrame>& frames, const SvgFrame& parent,
                             double frame_height) {
  const SvgFrame* widest = nullptr;
  for (const auto& frame : frames)
    if (std::fabs(frame.y - (parent.y - frame_height)) < 0.01 && frame.x >= parent.x - 0.05 &&
        frame.x < parent.x + parent.width && (!widest || frame.width > widest->width))
      widest = &frame;
  return widest ? *widest : parent;
}

TEST(FlamegraphCommand, DemoProfileDrawsItsHotPathWidest) {
  if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  const std::string& text = demo_script("demo", "200000 10");
  std::string svg_path = temp_dir() + "/demo.svg";
  auto drawn = run(sonde_bin() + " flamegraph " + text + " -o " + svg_path);
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  auto doc = parse_xml(slurp(svg_path));
  ASSERT_EQ(doc.error, "");
  auto frames = flame_frames(doc);
  ASSERT_FALSE(frames.empty());
  auto root =
      *std::max_element(frames.begin(), frames.end(), [](auto& a, auto& b) { return a.width < b.width; });

  // The total is the input's: the folded counts sonde collapse gives for the same text.
  auto folded = run(sonde_bin() + " collapse " + text);
  double total = 0;
  for (const auto& line : lines(folded.out)) total += std::stod(line.substr(line.rfind(' ') + 1));
  EXPECT_EQ(root.samples, total) << root.title;

  // Every frame's children fit in it; the widest tower is main -> run -> work -> hot_leaf.
  for (const auto& parent : frames) {
    double width = 0;
    for (const auto& child : frames)
      if (std::fabs(child.y - (parent.y - 16)) < 0.01 && child.x >= parent.x - 0.05 &&
          child.x + child.width <= parent.x + parent.width + 0.15)
        width += child.width;
    EXPECT_LE(width, parent.width + 0.5) << parent.title;
  }
  std::string path;
  for (const SvgFrame* level = &root;;) {
    const SvgFrame& next = widest_child(frames, *level, 16);
    if (&next == level) break;
    path += next.name + ";";
    level = &next;
  }
  EXPECT_TRUE(path.starts_with("demo;__libc_start_call_main;main;run;work;hot_leaf;")) << path;

  // Folded input gives the same graph as perf script text.
  std::string folded_path = temp_dir() + "/demo.folded";
  std::ofstream(folded_path) << folded.out;
  auto from_folded = run(sonde_bin() + " flamegraph < " + folded_path);
  EXPECT_EQ(from_folded.out, slurp(svg_path));
}

// Headless Chromium on a page: the DOM after the page's own self-test ran (see
// output/flamegraph_script.cpp), or a screenshot.
std::string chromium(const std::string& extra, const std::string& url) {
  static int profile = 0;
  std::string user_data = temp_dir() + "/chromium-profile-" + std::to_string(profile++);
  std::filesystem::create_directories(user_data);
  auto result =
      run("timeout 30 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
          "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=" +
          user_data + " " + extra + " " + shell_quote(url));
  return result.out;
}

std::string selftest_result(const std::string& dom) {
  size_t at = dom.find("data-selftest=\"");
  if (at == std::string::npos) return "no self-test result (did the script run?)";
  at += 15;
  return dom.substr(at, dom.find('"', at) - at);
}

TEST(FlamegraphCommand, ChromiumLoadsZoomsAndSearches) {
  if (run("command -v chromium").exit_code != 0)
    FAIL() << "chromium is missing: `make test` installs it (the Makefile's TEST_DEPS)";
  std::string svg = temp_dir() + "/system.svg", html = temp_dir() + "/system.html",
              heat = temp_dir() + "/offsets.svg";
  ASSERT_EQ(
      run(sonde_bin() + " flamegraph --title 'system-wide -a' " + kCollapseFixtures + "/system.txt -o " + svg)
          .exit_code,
      0);
  ASSERT_EQ(
      run(sonde_bin() + " flamegraph --colors java --all " + kCollapseFixtures + "/system.txt -o " + html)
          .exit_code,
      0);
  ASSERT_EQ(run(sonde_bin() + " heatmap --offsets --rows 20 " + kCollapseFixtures + "/system.txt -o " + heat)
                .exit_code,
            0);

  EXPECT_EQ(selftest_result(chromium("--dump-dom", "file://" + svg + "#selftest")), "pass");
  EXPECT_EQ(selftest_result(chromium("--dump-dom", "file://" + html + "#selftest=^do_syscall")), "pass");
  EXPECT_EQ(selftest_result(chromium("--dump-dom", "file://" + heat + "#selftest")), "pass");

  // For a person to look at: the graph as drawn, and after the self-test's click and search.
  std::string shots = build_dir();
  auto window = [&](const std::string& path) {  // the whole graph: its height plus a margin
    std::string text = slurp(path);
    size_t at = text.find("height=\"", text.find("<svg")) + 8;
    return "--window-size=1200," + std::to_string(std::stoi(text.substr(at)) + 20);
  };
  chromium(window(svg) + " --screenshot=" + shots + "/flamegraph_screenshot.png", "file://" + svg);
  chromium(window(html) + " --screenshot=" + shots + "/flamegraph_zoomed_screenshot.png",
           "file://" + html + "#selftest=^do_syscall");
  EXPECT_TRUE(std::filesystem::exists(shots + "/flamegraph_screenshot.png"));
  EXPECT_TRUE(std::filesystem::exists(shots + "/flamegraph_zoomed_screenshot.png"));
}

TEST(FlamegraphCommand, DifferentialShowsTheChangedFunctionInItsColour) {
  if (!have_perf()) GTEST_SKIP() << "perf (the oracle) is not installed";
  // Before: hot_leaf is nearly all. After: every hot_leaf call is followed by a write(), so
  // hot_leaf's share shrinks and the write path grows.
  std::string before = run(sonde_bin() + " collapse " + demo_script("before", "300000 10")).out;
  std::string after = run(sonde_bin() + " collapse " + demo_script("after", "150000 150000")).out;
  std::string before_path = temp_dir() + "/before.folded", after_path = temp_dir() + "/after.folded";
  std::ofstream(before_path) << before;
  std::ofstream(after_path) << after;
  auto draw = [&](const std::string& options) {
    auto result = run(sonde_bin() + " flamegraph " + options + " --diff " + before_path + " " + after_path);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    auto doc = parse_xml(result.out);
    EXPECT_EQ(doc.error, "");
    return flame_frames(doc);
  };
  auto red = [](const std::string& fill) { return fill.substr(1, 2) == "ff" && fill.substr(3, 2) != "ff"; };
  auto blue = [](const std::string& fill) { return fill.substr(5, 2) == "ff" && fill.substr(1, 2) != "ff"; };
  // The widest frame of a name (a rare broken unwind can put a sliver of it elsewhere).
  auto widest = [](const std::vector<SvgFrame>& all, auto match) {
    auto best = all.end();
    for (auto it = all.begin(); it != all.end(); ++it)
      if (match(*it) && (best == all.end() || it->width > best->width)) best = it;
    return best;
  };
  auto frames = draw("-n");
  auto hot = widest(frames, [](auto& f) { return f.name == "hot_leaf"; });
  ASSERT_NE(hot, frames.end());
  EXPECT_TRUE(blue(hot->fill)) << hot->title << " " << hot->fill;
  EXPECT_NE(hot->title.find("; -"), std::string::npos) << hot->title;
  auto write = widest(frames, [](auto& f) { return f.name.find("write") != std::string::npos; });
  ASSERT_NE(write, frames.end());
  bool grew = std::any_of(frames.begin(), frames.end(), [&](auto& f) {
    return f.y < write->y && f.x >= write->x - 0.05 && f.x < write->x + write->width && red(f.fill);
  });
  EXPECT_TRUE(grew) << "no red frame above " << write->title;
  // --negate swaps the hues.
  auto negated = draw("-n --negate");
  auto hot_negated = widest(negated, [](auto& f) { return f.name == "hot_leaf"; });
  ASSERT_NE(hot_negated, negated.end());
  EXPECT_TRUE(red(hot_negated->fill)) << hot_negated->fill;
}

TEST(HeatmapCommand, LatencyPairsAndOffsets) {
  std::string pairs = temp_dir() + "/latency.txt";
  {
    std::ofstream out(pairs);
    out << "TIME(us) LATENCY(us)\n";
    for (int i = 0; i < 1000; ++i)
      out << 1000000 + i * 3000 << " " << (i % 10 == 0 ? 5000 : 100 + i % 50) << "\n";
  }
  auto drawn = run(sonde_bin() + " heatmap --unitstime=us --unitslat=us --maxlat=6000 " + pairs);
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  auto doc = parse_xml(drawn.out);
  ASSERT_EQ(doc.error, "");
  uint64_t counted = 0;
  for (const auto& element : doc.elements) {
    auto data = element.attributes.find("data-h");
    if (data == element.attributes.end()) continue;
    auto fields = data->second;
    size_t a = fields.find('|'), b = fields.find('|', a + 1), c = fields.find('|', b + 1);
    counted += std::stoull(fields.substr(b + 1, c - b - 1));
  }
  EXPECT_EQ(counted, 1000u);
  auto bad = run(sonde_bin() + " heatmap --unitstime=weeks " + pairs);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_EQ(lines(bad.err).size(), 1u);
  auto offsets = run(sonde_bin() + " heatmap --offsets " + kCollapseFixtures + "/demo.txt");
  ASSERT_EQ(offsets.exit_code, 0) << offsets.err;
  EXPECT_EQ(parse_xml(offsets.out).error, "");
  EXPECT_NE(offsets.out.find("Sub-second Offset Heat Map"), std::string::npos);
}

}  // namespace
}  // namespace sonde::test
