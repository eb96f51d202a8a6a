// FlatHashMap: lookups, growth and erasure keep every other entry findable.
#include "base/flat_hash_map.hpp"

#include <gtest/gtest.h>

#include <unordered_map>

using sonde::FlatHashMap;

TEST(FlatHashMap, AgreesWithUnorderedMapThroughInsertsAndErasures) {
  FlatHashMap<uint64_t, int> flat;
  std::unordered_map<uint64_t, int> reference;
  uint64_t state = 12345;
  for (int step = 0; step < 200000; ++step) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t key = (state >> 33) % 5000 * 4096;  // page-like keys, many collisions in low bits
    if ((state >> 20) % 3 == 0) {
      EXPECT_EQ(flat.erase(key), reference.erase(key) == 1);
    } else {
      flat[key] += 1;
      reference[key] += 1;
    }
  }
  EXPECT_EQ(flat.size(), reference.size());
  for (const auto& [key, value] : reference) {
    const int* found = flat.find(key);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, value);
  }
  size_t seen = 0;
  flat.for_each([&](uint64_t key, int value) {
    ++seen;
    EXPECT_EQ(reference.at(key), value);
  });
  EXPECT_EQ(seen, reference.size());
  EXPECT_EQ(flat.find(7), nullptr);
}
