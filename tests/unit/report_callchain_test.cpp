// The report's histogram and call-graph builder on hand-made stacks, checked against what
// perf's algorithms give for them (children counted once per stack, radix-tree node splits,
// graph text with perf's margins).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "analysis/report/callchain.hpp"
#include "analysis/report/hist.hpp"
#include "output/report/callgraph_printer.hpp"

using namespace sonde;
using namespace sonde::analysis;

namespace {

// Every address is a function of its own, named by a table.
class NamedAddresses : public FrameResolver {
 public:
  explicit NamedAddresses(std::map<uint64_t, std::string> names) : names_(std::move(names)) {}
  std::optional<Symbol> symbol(const session::Dso&, uint64_t address) override {
    auto it = names_.find(address);
    if (it == names_.end()) return std::nullopt;
    return Symbol{address, it->second};
  }
  std::string srcline(const session::Dso&, uint64_t) override { return ""; }

 private:
  std::map<uint64_t, std::string> names_;
};

class ReportCallchain : public ::testing::Test {
 protected:
  ReportCallchain() : resolver_({{0xa0, "a"}, {0xb0, "b"}, {0xc0, "c"}, {0xd0, "d"}}) {
    dso_.id = 0;
    dso_.long_name = "/bin/w";
    dso_.short_name = "w";
    context_ = tables_.context(tables_.comm_id("w"), 1, 1, -1);
  }
  // One sample; `chain` is leaf first.
  void sample(std::initializer_list<uint64_t> chain, uint64_t period = 1) {
    std::vector<uint32_t> locations;
    for (uint64_t address : chain) {
      session::Location where;
      where.ip = 0x400000 + address;
      where.dso = &dso_;
      where.dso_address = address;
      locations.push_back(tables_.locations.intern(where));
    }
    histogram_.add(context_, locations, period);
  }
  void build(bool children, CallchainOrder order) {
    tables_.locations.resolve(resolver_);
    HistOptions options;
    options.keys = {SortKey::comm, SortKey::dso, SortKey::sym};
    options.children = children;
    options.callchains = true;
    options.order = order;
    histogram_.build(tables_, options);
  }
  uint32_t entry(const std::string& name) const {
    for (uint32_t id = 0; id < histogram_.entries().size(); ++id) {
      const auto& location = tables_.locations.location(histogram_.entries()[id].location);
      if (tables_.locations.function(location.function).name == name) return id;
    }
    ADD_FAILURE() << "no entry " << name;
    return 0;
  }
  std::string graph(uint32_t id, CallchainParams params = {}) {
    CallchainBuilder builder(histogram_, tables_.locations, params, histogram_.total_period());
    CallTree tree = builder.build(id);
    char* text = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&text, &size);
    output::CallgraphStyle style;
    style.mode = params.mode;
    const HistEntry& e = histogram_.entries()[id];
    output::print_callgraph(out, tree, tables_.locations, style, histogram_.total_period(),
                            histogram_.options().children ? e.children_period : e.self_period);
    std::fclose(out);
    std::string result(text, size);
    std::free(text);
    return result;
  }

  session::Dso dso_;
  NamedAddresses resolver_;
  ReportTables tables_;
  Histogram histogram_;
  uint32_t context_ = 0;
};

}  // namespace

TEST_F(ReportCallchain, ChildrenCountEachStackOncePerEntry) {
  sample({0xa0, 0xb0, 0xa0}, 5);  // a called from b called from a: recursion
  sample({0xc0, 0xa0}, 2);
  build(true, CallchainOrder::caller);
  const HistEntry& a = histogram_.entries()[entry("a")];
  EXPECT_EQ(a.self_period, 5u);
  EXPECT_EQ(a.children_period, 7u);  // the recursive stack counts once
  const HistEntry& b = histogram_.entries()[entry("b")];
  EXPECT_EQ(b.self_period, 0u);
  EXPECT_EQ(b.children_period, 5u);
  EXPECT_EQ(histogram_.total_period(), 7u);
}

TEST_F(ReportCallchain, NodesSplitWhereChainsForkOrEnd) {
  sample({0xc0, 0xb0, 0xa0}, 2);
  sample({0xd0, 0xb0, 0xa0}, 1);
  sample({0xb0, 0xa0}, 1);
  build(true, CallchainOrder::caller);
  CallchainParams params;
  params.min_percent = 0;
  // a's chains: a->b->c (2), a->b->d (1), a->b ending in b (1). One node "a b" (it holds
  // every chain, so no percentage), then c and d by period.
  EXPECT_EQ(graph(entry("a"), params),
            "            |\n"
            "            ---a\n"
            "               b\n"
            "               |          \n"
            "               |--50.00%--c\n"
            "               |          \n"
            "                --25.00%--d\n"
            "\n");
}

TEST_F(ReportCallchain, PercentLimitHidesSmallBranchesButKeepsTheSplit) {
  for (int i = 0; i < 99; ++i) sample({0xc0, 0xb0, 0xa0});
  sample({0xd0, 0xb0, 0xa0});
  build(false, CallchainOrder::caller);
  CallchainParams params;
  params.min_percent = 5;
  // c's own chain a->b->c is all of c's period: printed as one run without a percentage.
  EXPECT_EQ(graph(entry("c"), params),
            "            |\n"
            "            ---a\n"
            "               b\n"
            "               c\n"
            "\n");
  // d is 1% of the total: under the 5% limit its chain prints nothing at all.
  EXPECT_EQ(graph(entry("d"), params), "");
}

TEST_F(ReportCallchain, FoldedListsChainsByTheirOwnHits) {
  sample({0xc0, 0xb0, 0xa0}, 3);
  sample({0xb0, 0xa0}, 1);
  build(false, CallchainOrder::caller);
  CallchainParams params;
  params.mode = CallchainMode::folded;
  params.min_percent = 0;
  EXPECT_EQ(graph(entry("c"), params), "75.00% a;b;c\n");
  EXPECT_EQ(graph(entry("b"), params), "25.00% a;b\n");
}

TEST(ReportParentPattern, ABadRegexIsAUsageErrorInPerfsWords) {
  EXPECT_TRUE(check_parent_pattern("^sys_|^do_page_fault").has_value());
  auto checked = check_parent_pattern("(");
  ASSERT_FALSE(checked.has_value());
  EXPECT_EQ(checked.error().kind, Error::Kind::usage);
  EXPECT_EQ(checked.error().message.rfind("Invalid regex: (: ", 0), 0u) << checked.error().message;
}
