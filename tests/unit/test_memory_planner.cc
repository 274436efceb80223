// The static memory planner on hand-made lifetimes.
#include <gtest/gtest.h>

#include <random>

#include "aot/base/memory_planner.h"

namespace aotc {
namespace {

// No two ranges that are live at the same step may share bytes.
void expect_valid(const std::vector<LiveRange>& ranges, const Placement& p, int64_t alignment) {
  ASSERT_EQ(p.offsets.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(p.offsets[i] % alignment, 0);
    EXPECT_LE(p.offsets[i] + ranges[i].size, p.total_bytes);
    for (size_t j = i + 1; j < ranges.size(); ++j) {
      bool same_time = ranges[i].first <= ranges[j].last && ranges[j].first <= ranges[i].last;
      bool same_bytes = p.offsets[i] < p.offsets[j] + ranges[j].size && p.offsets[j] < p.offsets[i] + ranges[i].size;
      EXPECT_FALSE(same_time && same_bytes) << "ranges " << i << " and " << j << " overlap";
    }
  }
  EXPECT_GE(p.total_bytes, p.lower_bound);
}

TEST(MemoryPlanner, ChainReusesMemory) {
  // a -> b -> c -> d: each lives two steps; only two are alive at once.
  std::vector<LiveRange> r = {{64, 0, 1}, {64, 1, 2}, {64, 2, 3}, {64, 3, 4}};
  Placement p = plan_memory(r, 16);
  expect_valid(r, p, 16);
  EXPECT_EQ(p.lower_bound, 128);
  EXPECT_EQ(p.total_bytes, 128);
}

TEST(MemoryPlanner, AlignmentIsRespected) {
  std::vector<LiveRange> r = {{10, 0, 1}, {10, 0, 1}, {3, 1, 2}};
  Placement p = plan_memory(r, 16);
  expect_valid(r, p, 16);
  EXPECT_EQ(p.lower_bound, 48);
}

TEST(MemoryPlanner, DisjointLifetimesShareOffsetZero) {
  std::vector<LiveRange> r = {{100, 0, 0}, {200, 1, 1}, {50, 2, 2}};
  Placement p = plan_memory(r, 4);
  expect_valid(r, p, 4);
  EXPECT_EQ(p.total_bytes, 200);
  EXPECT_EQ(p.offsets[0], 0);
  EXPECT_EQ(p.offsets[2], 0);
}

// Placing the largest first packs these into 128 bytes; 112 (the lower bound) is
// possible. Found by exhaustive search over all placement orders.
TEST(MemoryPlanner, BeatsGreedyBySizeWhereItIsNotOptimal) {
  std::vector<LiveRange> r = {{64, 1, 2}, {64, 4, 4}, {16, 1, 3}, {48, 3, 5}, {48, 3, 3}};
  Placement p = plan_memory(r, 16);
  expect_valid(r, p, 16);
  EXPECT_EQ(p.lower_bound, 112);
  EXPECT_EQ(p.total_bytes, 112);
  EXPECT_NE(p.strategy, "greedy-by-size");
}

TEST(MemoryPlanner, PoolsHonourCapacityAndAllowedPools) {
  // Two 64-byte tensors live together; pool 0 holds one of them. The third may only go to pool 1.
  std::vector<LiveRange> r = {{64, 0, 1}, {64, 0, 1}, {32, 2, 2}};
  r[2].allowed_pools = 0b10;
  Placement p;
  ASSERT_TRUE(place_in_pools(r, {64, 0}, 16, &p));
  EXPECT_NE(p.pools[0], p.pools[1]);
  EXPECT_EQ(p.pools[2], 1);
  EXPECT_EQ(p.pool_bytes[0], 64);
  for (size_t i = 0; i < r.size(); ++i) EXPECT_GE(p.offsets[i], 0);
  // Nowhere to put a tensor that fits no pool.
  EXPECT_FALSE(place_in_pools({{128, 0, 0}}, {64, 64}, 16, &p));
}

TEST(MemoryPlanner, RandomLifetimesAreAlwaysValid) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<LiveRange> r;
    for (int i = 0; i < 12; ++i) {
      int first = static_cast<int>(rng() % 10);
      r.push_back({static_cast<int64_t>(1 + rng() % 300), first, first + static_cast<int>(rng() % 4)});
    }
    Placement p = plan_memory(r, 16);
    expect_valid(r, p, 16);
  }
}

}  // namespace
}  // namespace aotc
