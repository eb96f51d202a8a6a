#include "analysis/stat/counter_stats.hpp"

#include <gtest/gtest.h>

using namespace sonde;

TEST(CounterStats, ScalesMultiplexedCounts) {
  auto value = analysis::aggregate({{100, 1000, 500}, {50, 1000, 500}}, true);
  EXPECT_DOUBLE_EQ(value.value, 300.0);
  EXPECT_DOUBLE_EQ(value.running_percent(), 50.0);
  EXPECT_TRUE(value.counted());
}

TEST(CounterStats, UnscaledWhenAlwaysRunning) {
  auto value = analysis::aggregate_one({7, 10, 10}, true);
  EXPECT_DOUBLE_EQ(value.value, 7.0);
  EXPECT_DOUBLE_EQ(value.running_percent(), 100.0);
}

TEST(CounterStats, NeverRunIsNotCounted) {
  auto value = analysis::aggregate_one({0, 10, 0}, true);
  EXPECT_FALSE(value.counted());
}

TEST(CounterStats, RepeatsWithNoSpreadHaveZeroVariance) {
  analysis::RunningStats stats;
  for (int i = 0; i < 5; ++i) stats.add(42);
  EXPECT_DOUBLE_EQ(stats.mean(), 42);
  EXPECT_DOUBLE_EQ(stats.relative_stddev_percent(), 0);
}

TEST(CounterStats, StandardErrorOfTheMeanAsPerf) {
  analysis::RunningStats stats;
  for (double v : {1.0, 2.0, 3.0, 4.0}) stats.add(v);
  // sample variance 1.6667, over n=4 -> 0.41667, sqrt -> 0.6455; relative to mean 2.5 -> 25.82%.
  EXPECT_NEAR(stats.relative_stddev_percent(), 25.82, 0.01);
}

TEST(CounterStats, NoScaleKeepsTheCountAsRead) {
  auto value = analysis::aggregate({{100, 1000, 500}, {50, 1000, 500}}, true, /*scale=*/false);
  EXPECT_DOUBLE_EQ(value.value, 150.0);
  EXPECT_DOUBLE_EQ(value.running_percent(), 50.0);
}
