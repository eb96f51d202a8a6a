// Folded input, the merged tree, the SVG and HTML flame graphs, and the differential graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "analysis/flame/flame_build.hpp"
#include "analysis/flame/flame_tree.hpp"
#include "analysis/stacks/folded.hpp"
#include "flamegraph_svg_check.hpp"
#include "output/flame/flamegraph_colors.hpp"
#include "output/flame/flamegraph_svg.hpp"

namespace sonde::analysis {
namespace {

using test::flame_frames;
using test::parse_xml;

FlameTree tree_of(std::string_view folded, FlameTreeOptions options = {}) {
  FlameTree tree(options);
  add_folded_to_flame_tree(folded, tree);
  tree.finish();
  return tree;
}

constexpr std::string_view kProfile =
    "demo;main;run;work;hot_leaf 700\n"
    "demo;main;run;work 100\n"
    "demo;main;run;write;entry_SYSCALL_64_[k];ksys_write_[k] 150\n"
    "demo;main;cold<T>&\"x\" 40\n"
    "demo;main;run;work;hot_leaf 10\n"
    "other;start;tiny 1\n";

TEST(FlamegraphFolded, ReadsCountsAsFlamegraphPlDoes) {
  auto line = parse_folded_line("a;b;c 12");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->stack, "a;b;c");
  EXPECT_EQ(line->count, 12);
  EXPECT_FALSE(line->count_before);
  line = parse_folded_line("a b;c  1.5");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->stack, "a b;c ");
  EXPECT_EQ(line->count, 1.5);
  line = parse_folded_line("x;y 3 7");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->stack, "x;y");
  EXPECT_EQ(*line->count_before, 3);
  EXPECT_EQ(line->count, 7);
  EXPECT_FALSE(parse_folded_line("no count here"));
  EXPECT_FALSE(parse_folded_line("a;b 12x"));
  EXPECT_FALSE(parse_folded_line(""));
}

TEST(FlamegraphTree, MergesStacksAndSumsParents) {
  FlameTree tree = tree_of(kProfile);
  EXPECT_EQ(tree.total(), 1001);
  for (uint32_t id = 0; id < tree.nodes().size(); ++id) {
    double children = 0;
    for (uint32_t child : tree.children(id)) children += tree.nodes()[child].value;
    EXPECT_LE(children, tree.nodes()[id].value + 1e-9);
  }
  // "demo;main;run;work;hot_leaf" twice: one node of 710.
  size_t hot = 0;
  for (const auto& node : tree.nodes())
    if (tree.names()[node.name] == "hot_leaf") {
      ++hot;
      EXPECT_EQ(node.value, 710);
    }
  EXPECT_EQ(hot, 1u);
}

TEST(FlamegraphTree, FlameChartKeepsTimeOrder) {
  FlameTree chart = tree_of("p;a 1\np;b 1\np;a 1\n", {.flamechart = true});
  ASSERT_EQ(chart.children(0).size(), 1u);
  auto p = chart.children(chart.children(0)[0]);
  ASSERT_EQ(p.size(), 3u);  // a, b, a: not merged across b
  EXPECT_EQ(chart.names()[chart.nodes()[p[0]].name], "a");
  EXPECT_EQ(chart.names()[chart.nodes()[p[1]].name], "b");
  EXPECT_EQ(chart.names()[chart.nodes()[p[2]].name], "a");
  FlameTree merged = tree_of("p;a 1\np;b 1\np;a 1\n");
  EXPECT_EQ(merged.children(merged.children(0)[0]).size(), 2u);
}

TEST(FlamegraphSvg, WellFormedWithWidthsThatAddUp) {
  output::FlameGraphStyle style;
  std::string svg = output::render_flamegraph_svg(tree_of(kProfile), style);
  auto doc = parse_xml(svg);
  ASSERT_EQ(doc.error, "") << svg.substr(0, 400);
  auto frames = flame_frames(doc);
  ASSERT_GE(frames.size(), 10u);
  auto root =
      std::max_element(frames.begin(), frames.end(), [](auto& a, auto& b) { return a.width < b.width; });
  EXPECT_EQ(root->title, "all (1,001 samples, 100%)");
  EXPECT_NEAR(root->width, 1180, 0.05);
  // Children sit inside their parent, one frame height up, and add up to at most its width.
  for (const auto& parent : frames) {
    double sum = 0, samples = 0;
    for (const auto& child : frames) {
      if (std::fabs(child.y - (parent.y - 16)) > 0.01) continue;
      if (child.x < parent.x - 0.05 || child.x + child.width > parent.x + parent.width + 0.15) continue;
      sum += child.width;
      samples += child.samples;
    }
    EXPECT_LE(sum, parent.width + 0.1 * 4) << parent.title;
    EXPECT_LE(samples, parent.samples) << parent.title;
  }
  // Names are escaped, annotations hidden, and the hot path is the widest tower.
  EXPECT_NE(svg.find("cold&lt;T&gt;&amp;&quot;x&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("_[k]"), std::string::npos);
  std::string widest_path;
  const test::SvgFrame* level = &*root;
  while (true) {
    const test::SvgFrame* widest = nullptr;
    for (const auto& frame : frames)
      if (std::fabs(frame.y - (level->y - 16)) < 0.01 && frame.x >= level->x - 0.05 &&
          frame.x < level->x + level->width && (!widest || frame.width > widest->width))
        widest = &frame;
    if (!widest) break;
    widest_path += widest->name + ";";
    level = widest;
  }
  EXPECT_EQ(widest_path, "demo;main;run;work;hot_leaf;");
}

TEST(FlamegraphSvg, MinwidthDropsNarrowFramesAndHtmlHoldsTheSameGraph) {
  output::FlameGraphStyle style;
  style.minwidth = 5;  // pixels: "other;start;tiny 1" is about 1.2 px
  std::string svg = output::render_flamegraph_svg(tree_of(kProfile), style);
  auto frames = flame_frames(parse_xml(svg));
  EXPECT_TRUE(std::none_of(frames.begin(), frames.end(), [](auto& f) { return f.name == "tiny"; }));
  style.minwidth = 0;
  std::string html = output::render_flamegraph_html(tree_of(kProfile), style);
  auto doc = parse_xml(html);
  ASSERT_EQ(doc.error, "");
  EXPECT_EQ(doc.elements[0].name, "html");
  auto html_frames = flame_frames(doc);
  EXPECT_TRUE(std::any_of(html_frames.begin(), html_frames.end(), [](auto& f) { return f.name == "tiny"; }));
  EXPECT_EQ(html_frames.size(), frames.size() + 3);  // other, start, tiny
}

TEST(FlamegraphSvg, OptionsShowInTheDocument) {
  output::FlameGraphStyle style;
  style.title = "Off-CPU <time>";
  style.countname = "ms";
  style.inverted = true;
  style.subtitle = "sub";
  style.notes = "note";
  std::string svg = output::render_flamegraph_svg(tree_of(kProfile), style);
  ASSERT_EQ(parse_xml(svg).error, "");
  EXPECT_NE(svg.find(">Off-CPU &lt;time&gt;</text>"), std::string::npos);
  EXPECT_NE(svg.find("all (1,001 ms, 100%)"), std::string::npos);
  EXPECT_NE(svg.find("<!-- NOTES: note -->"), std::string::npos);
  auto frames = flame_frames(parse_xml(svg));
  // Icicle: the root is at the top.
  auto root =
      std::max_element(frames.begin(), frames.end(), [](auto& a, auto& b) { return a.width < b.width; });
  for (const auto& frame : frames) EXPECT_GE(frame.y, root->y);
  style.notes = "<bad>";
  EXPECT_FALSE(output::check_style(style));
  style.notes = "";
  style.colors = "rainbow";
  EXPECT_FALSE(output::check_style(style));
}

TEST(FlamegraphColors, PalettesPickHuesByFrameKind) {
  auto java_kernel = output::frame_color("java", "tcp_sendmsg_[k]", false);
  EXPECT_GT(java_kernel.r, 180);
  EXPECT_EQ(java_kernel.b, 0);  // orange
  auto java_jit = output::frame_color("java", "Lorg/example/Worker:::run_[j]", false);
  EXPECT_GT(java_jit.g, java_jit.r);  // green
  auto inlined = output::frame_color("java", "mix_[i]", false);
  EXPECT_EQ(inlined.g, inlined.b);  // aqua
  auto hot1 = output::frame_color("hot", "main", true), hot2 = output::frame_color("hot", "main", true);
  EXPECT_EQ(output::css_color(hot1), output::css_color(hot2));
  EXPECT_GE(hot1.r, 205);
}

TEST(FlamegraphDiff, RedGrewBlueShrank) {
  std::string before = "p;main;hot 900\np;main;cold 100\n";
  std::string after = "p;main;hot 300\np;main;cold 700\n";
  std::string diffed = diff_folded(before, after, {});
  EXPECT_EQ(diffed, "p;main;cold 100 700\np;main;hot 900 300\n");
  output::FlameGraphStyle style;
  auto frames = flame_frames(parse_xml(output::render_flamegraph_svg(tree_of(diffed), style)));
  auto find = [&](std::string_view name) {
    return *std::find_if(frames.begin(), frames.end(), [&](auto& f) { return f.name == name; });
  };
  EXPECT_EQ(find("cold").fill, "#ff0000");  // grew by the most: full red
  EXPECT_EQ(find("hot").fill, "#0000ff");   // shrank by the most: full blue
  EXPECT_EQ(find("main").fill, "#ffffff");  // no change of its own
  EXPECT_NE(find("cold").title.find("; +60.00%)"), std::string::npos) << find("cold").title;
  style.negate = true;
  frames = flame_frames(parse_xml(output::render_flamegraph_svg(tree_of(diffed), style)));
  EXPECT_EQ(find("cold").fill, "#0000ff");
  EXPECT_EQ(find("hot").fill, "#ff0000");
  // -n: the first profile scaled to the second's total.
  EXPECT_EQ(diff_folded("a 10\nb 10\n", "a 10\n", {.normalize = true}), "a 5 10\nb 5 0\n");
  EXPECT_EQ(diff_folded("f 0x1234;g 1\n", "f 0xabc;g 2\n", {.strip_hex = true}), "f 0x...;g 1 2\n");
}

}  // namespace
}  // namespace sonde::analysis
