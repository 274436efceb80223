#include "aot/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace aotc {

int64_t align_up(int64_t value, int64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

namespace {

bool overlap_in_time(const LiveRange& a, const LiveRange& b) { return a.first <= b.last && b.first <= a.last; }

// Places ranges in the given order, each at the lowest aligned offset where it does not
// collide with an already-placed range that is live at the same time.
Placement place_in_order(const std::vector<LiveRange>& ranges, const std::vector<size_t>& order, int64_t alignment) {
  Placement p;
  p.offsets.assign(ranges.size(), -1);
  std::vector<size_t> placed;
  for (size_t i : order) {
    std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) of conflicting placed ranges
    for (size_t j : placed)
      if (overlap_in_time(ranges[i], ranges[j])) busy.emplace_back(p.offsets[j], p.offsets[j] + ranges[j].size);
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto& [begin, end] : busy) {
      if (offset + ranges[i].size <= begin) break;
      offset = std::max(offset, align_up(end, alignment));
    }
    p.offsets[i] = offset;
    p.total_bytes = std::max(p.total_bytes, offset + ranges[i].size);
    placed.push_back(i);
  }
  p.total_bytes = align_up(p.total_bytes, alignment);
  return p;
}

int64_t lower_bound(const std::vector<LiveRange>& ranges, int64_t alignment) {
  int steps = 0;
  for (auto& r : ranges) steps = std::max(steps, r.last + 1);
  int64_t best = 0;
  for (int s = 0; s < steps; ++s) {
    int64_t live = 0;
    for (auto& r : ranges)
      if (r.first <= s && s <= r.last) live += align_up(r.size, alignment);
    best = std::max(best, live);
  }
  return best;
}

}  // namespace

Placement plan_memory(const std::vector<LiveRange>& ranges, int64_t alignment) {
  std::vector<size_t> by_size(ranges.size());
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) { return ranges[a].size > ranges[b].size; });
  Placement best = place_in_order(ranges, by_size, alignment);
  best.strategy = "greedy-by-size";
  best.lower_bound = lower_bound(ranges, alignment);
  return best;
}

}  // namespace aotc
