// The static memory planner on hand-made lifetimes.
#include <gtest/gtest.h>

#include <random>

#include "aot/base/memory_planner.h"

namespace aotc {
namespace {

// Range `output` may share bytes with range `input`: it names it, begins at the step where
// `input` ends, and begins at least the overlap distance below it.
bool allowed_overlap(const std::vector<LiveRange>& ranges, const Placement& p, size_t output, size_t input) {
  const LiveRange& o = ranges[output];
  if (o.overlaps != static_cast<int>(input) || o.first != ranges[input].last) return false;
  if (o.overlap_at_start) return p.offsets[input] == p.offsets[output];
  return p.offsets[input] - p.offsets[output] >= o.overlap_distance;
}

// No two ranges that are live at the same step may share bytes, but for an output over
// the input it may overlap.
void expect_valid(const std::vector<LiveRange>& ranges, const Placement& p, int64_t alignment) {
  ASSERT_EQ(p.offsets.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(p.offsets[i] % alignment, 0);
    EXPECT_LE(p.offsets[i] + ranges[i].size, p.total_bytes);
    for (size_t j = i + 1; j < ranges.size(); ++j) {
      if (p.pools.size() == ranges.size() && p.pools[i] != p.pools[j]) continue;
      bool same_time = ranges[i].first <= ranges[j].last && ranges[j].first <= ranges[i].last;
      bool same_bytes = p.offsets[i] < p.offsets[j] + ranges[j].size && p.offsets[j] < p.offsets[i] + ranges[i].size;
      if (same_time && same_bytes && allowed_overlap(ranges, p, i, j)) continue;
      if (same_time && same_bytes && allowed_overlap(ranges, p, j, i)) continue;
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

// A range that may overlap another (issue #29): an output written over its dying input.
LiveRange overlapping(int64_t size, int first, int last, int input, int64_t distance) {
  LiveRange r{size, first, last};
  r.overlaps = input;
  r.overlap_distance = distance;
  return r;
}

TEST(MemoryPlanner, OutputBeginsTheOverlapDistanceBelowItsInput) {
  // input 100 B on steps 0-1; the output 120 B from step 1 may begin 40 B below it.
  std::vector<LiveRange> r = {{100, 0, 1}, overlapping(120, 1, 2, 0, 40)};
  Placement p = plan_memory(r, 4);
  expect_valid(r, p, 4);
  EXPECT_EQ(p.lower_bound, 140);  // 40 + 100, more than the output's 120
  EXPECT_EQ(p.total_bytes, 140);
  EXPECT_EQ(p.offsets[0] - p.offsets[1], 40);  // at the distance, not below it
}

TEST(MemoryPlanner, OverlapDistanceIsRoundedUpToTheAlignment) {
  std::vector<LiveRange> r = {{100, 0, 1}, overlapping(120, 1, 2, 0, 41)};
  Placement p = plan_memory(r, 16);
  expect_valid(r, p, 16);
  EXPECT_EQ(p.offsets[0] - p.offsets[1], 48);
  EXPECT_EQ(p.total_bytes, 160);  // 48 + 100 rounded up to 16
  EXPECT_EQ(p.lower_bound, 160);
}

TEST(MemoryPlanner, OverlapOfAnOutputLargerThanItsInputCostsTheOutput) {
  // A 1x1 convolution that doubles the channels: 100 B in, 200 B out, one pixel (10 B) apart
  // more than the input: all of the input lies under the output.
  std::vector<LiveRange> r = {{100, 0, 1}, overlapping(200, 1, 2, 0, 110)};
  Placement p = plan_memory(r, 2);
  expect_valid(r, p, 2);
  EXPECT_EQ(p.total_bytes, 210);
  EXPECT_EQ(p.lower_bound, 210);
}

TEST(MemoryPlanner, OverlapOfASmallerOutputIsFoundWhenTheInputIsPlacedFirst) {
  // A stride-2 layer: 400 B in, 100 B out, 20 B apart; the greedy places the larger input
  // first, at 0, and the output must still go below it.
  std::vector<LiveRange> r = {{400, 0, 1}, overlapping(100, 1, 2, 0, 20)};
  Placement p = plan_memory(r, 4);
  expect_valid(r, p, 4);
  EXPECT_EQ(p.total_bytes, 420);
}

TEST(MemoryPlanner, NoOverlapAtOrAboveTheOutputSize) {
  // A distance of at least the output's size is no overlap: the two side by side.
  std::vector<LiveRange> r = {{100, 0, 1}, overlapping(120, 1, 2, 0, 500)};
  Placement p = plan_memory(r, 4);
  expect_valid(r, p, 4);
  EXPECT_EQ(p.total_bytes, 220);
  EXPECT_EQ(p.lower_bound, 220);
}

TEST(MemoryPlanner, NoOverlapWhenTheInputLivesOn) {
  // The input is read again at step 2, after the output's first write: no overlap.
  std::vector<LiveRange> r = {{100, 0, 2}, overlapping(120, 1, 2, 0, 40)};
  Placement p = plan_memory(r, 4);
  expect_valid(r, p, 4);
  EXPECT_EQ(p.total_bytes, 220);
  EXPECT_EQ(p.lower_bound, 220);
}

TEST(MemoryPlanner, ChainOfOverlapsIsAStaircase) {
  // Five layers of 100 B, each output 10 B below its input at least (a keyword spotter's
  // depthwise and 1x1 layers on the NPU): each in turn over the one before, 100 + 4 * 10 B,
  // where side by side they alternate between two places (200 B).
  std::vector<LiveRange> r = {{100, 0, 1}};
  for (int i = 1; i < 5; ++i) r.push_back(overlapping(100, i, i + 1, i - 1, 10));
  Placement p = plan_memory(r, 2);
  expect_valid(r, p, 2);
  EXPECT_EQ(p.total_bytes, 140);
}

TEST(MemoryPlanner, ChannelPlaneOverlapIsAtTheInputsStartOnly) {
  // A stride-2 depthwise layer working channel by channel: 400 B in, 100 B out, the output
  // only where the input begins. A third range lives beside them.
  LiveRange out = overlapping(100, 1, 2, 0, 0);
  out.overlap_at_start = true;
  std::vector<LiveRange> r = {{400, 0, 1}, out, {64, 0, 2}};
  Placement p = plan_memory(r, 4);
  expect_valid(r, p, 4);
  EXPECT_EQ(p.offsets[0], p.offsets[1]);
  EXPECT_EQ(p.total_bytes, 464);
  EXPECT_EQ(p.lower_bound, 464);
  // A larger output at the start runs on past the input's end.
  LiveRange larger = overlapping(500, 1, 2, 0, 0);
  larger.overlap_at_start = true;
  r = {{400, 0, 1}, larger};
  p = plan_memory(r, 4);
  expect_valid(r, p, 4);
  EXPECT_EQ(p.total_bytes, 500);
}

TEST(MemoryPlanner, RandomChainsWithOverlapsAreAlwaysValid) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 200; ++trial) {
    // A chain of layers, each output overlapping its input, with a long-lived tensor beside.
    std::vector<LiveRange> r = {{static_cast<int64_t>(1 + rng() % 300), 0, 1}};
    for (int i = 1; i < 10; ++i) {
      r.push_back(overlapping(static_cast<int64_t>(1 + rng() % 300), i, i + 1, i - 1, static_cast<int64_t>(1 + rng() % 300)));
      if (rng() % 3 == 0) r.back().overlap_at_start = true, r.back().overlap_distance = 0;
    }
    int first = static_cast<int>(rng() % 5);
    r.push_back({static_cast<int64_t>(1 + rng() % 300), first, first + 4});
    Placement p = plan_memory(r, 8);
    expect_valid(r, p, 8);
    std::vector<int64_t> capacities = {p.total_bytes / 2, 0};
    Placement pools;
    ASSERT_TRUE(place_in_pools(r, capacities, 8, &pools));
    expect_valid(r, pools, 8);
  }
}

}  // namespace
}  // namespace aotc
