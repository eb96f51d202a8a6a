#include "analysis/heatmap/event_pairs.hpp"

#include <gtest/gtest.h>

using namespace sonde::analysis;

TEST(EventPairs, EndCompletesTheLatestStartOfItsKey) {
  EventPairMatcher matcher;
  matcher.start({8, 100}, 1000);
  matcher.start({8, 200}, 1100);
  matcher.start({8, 100}, 1500);  // reissued: the later start is the one completed
  matcher.end({8, 200}, 1700);
  matcher.end({8, 100}, 2000);
  matcher.end({8, 300}, 2100);  // never started
  ASSERT_EQ(matcher.pairs().size(), 2u);
  EXPECT_EQ(matcher.pairs()[0].start_ns, 1100u);
  EXPECT_EQ(matcher.pairs()[0].latency_ns, 600u);
  EXPECT_EQ(matcher.pairs()[1].start_ns, 1500u);
  EXPECT_EQ(matcher.pairs()[1].latency_ns, 500u);
  EXPECT_EQ(matcher.unmatched_ends(), 1u);
  EXPECT_EQ(matcher.pending_starts(), 0u);
  matcher.end({8, 100}, 2500);  // completed already
  EXPECT_EQ(matcher.unmatched_ends(), 2u);
}
