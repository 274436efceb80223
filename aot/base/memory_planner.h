// Static memory planning: places buffers with known lifetimes at offsets in one arena so
// that buffers alive at the same time never overlap.
//
// The input is a list of live ranges (size, first and last step that touches the
// buffer); steps are kernel calls in execution order, and a buffer is live on every step
// from its first to its last use inclusive. The lower bound is the largest total size
// live at any one step: no placement can use less.
//
// Overlap: a kernel that writes its output in the order it reads its input (a convolution
// writing pixel after pixel: lowering/compute/output_overlap.h) may have its output begin
// a given distance below an input that it reads for the last time, and run on over that
// input: every output byte lands on input bytes already read for the last time. A range
// says so by naming the range it may overlap and the distance. The two then collide only
// if the output begins less than the distance below the input's start and ends after it,
// and the lower bound counts them, at that step, as the larger of the output and the
// distance plus the input. The allowance holds only where the input's last step is the
// output's first; elsewhere the two collide as any others. A kernel that works channel
// plane by channel plane (it reads all of an input channel before it writes that channel
// of its output) allows one place only: the output beginning where the input begins, so
// that its channel c lands on the input's channel c (overlap_at_start).
//
// A pure algorithm, in the base layer: the executor's storage planner places the arena
// with it, and the NPU backend (codegen/external/npu_ref.cc) a region's scratch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aotc {

struct LiveRange {
  int64_t size = 0;
  int first = 0;  // step that writes it first
  int last = 0;   // step that reads it last
  uint64_t allowed_pools = ~uint64_t{0};  // bit p set: may be placed in pool p
  // The range (an index into the same list) this one may overlap from `overlap_distance`
  // bytes below its start on; -1 for none.
  int overlaps = -1;
  int64_t overlap_distance = 0;
  // With `overlaps`: only at the same offset as that range (the distance is not used).
  bool overlap_at_start = false;
};

struct Placement {
  std::vector<int64_t> offsets;  // one per LiveRange, within its pool
  std::vector<int> pools;        // one per LiveRange: index into the pool list (0 with one arena)
  std::vector<int64_t> pool_bytes;  // bytes used in each pool
  int64_t total_bytes = 0;       // sum over pools
  int64_t lower_bound = 0;       // largest sum of aligned sizes live at one step
  std::string strategy;          // which strategy produced it
  std::vector<size_t> order;     // the placement order that produced it
};

// Places every range at an `alignment`-aligned offset. Tries greedy placement in several
// orders (by size, by size times conflicts, by first use, by last use backwards), then
// improves the best order by a deterministic local search, and keeps the smallest arena.
Placement plan_memory(const std::vector<LiveRange>& ranges, int64_t alignment);

// Spreads the ranges over pools of the given capacities (0 = unbounded), preferring
// earlier pools and respecting each range's allowed_pools: the best single-arena plan if
// every range may go to the first pool and it fits there, else first-fit over the pools
// in that plan's order. Returns false if some range fits nowhere.
bool place_in_pools(const std::vector<LiveRange>& ranges, const std::vector<int64_t>& capacities, int64_t alignment,
                    Placement* placement);

// The step at which the most bytes are live, and that many bytes.
std::pair<int, int64_t> peak_step(const std::vector<LiveRange>& ranges, int64_t alignment);

int64_t align_up(int64_t value, int64_t alignment);

}  // namespace aotc
