#include "aot/memory_planner.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

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


std::vector<size_t> order_by(const std::vector<LiveRange>& ranges, const std::function<bool(size_t, size_t)>& before) {
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), before);
  return order;
}

}  // namespace

Placement plan_memory(const std::vector<LiveRange>& ranges, int64_t alignment) {
  int64_t bound = lower_bound(ranges, alignment);
  std::vector<int> conflicts(ranges.size(), 0);
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = 0; j < ranges.size(); ++j) conflicts[i] += i != j && overlap_in_time(ranges[i], ranges[j]);

  // Greedy placements in three orders; each is good on different lifetimes.
  struct Candidate {
    const char* name;
    std::vector<size_t> order;
  };
  std::vector<Candidate> candidates = {
      {"greedy-by-size", order_by(ranges, [&](size_t a, size_t b) { return ranges[a].size > ranges[b].size; })},
      {"greedy-by-conflicts", order_by(ranges, [&](size_t a, size_t b) {
         int64_t wa = conflicts[a] * ranges[a].size, wb = conflicts[b] * ranges[b].size;
         return wa != wb ? wa > wb : ranges[a].size > ranges[b].size;
       })},
      {"greedy-by-first-use", order_by(ranges, [&](size_t a, size_t b) { return ranges[a].first < ranges[b].first; })},
  };
  Placement best;
  std::vector<size_t> best_order;
  for (auto& c : candidates) {
    Placement p = place_in_order(ranges, c.order, alignment);
    if (best.strategy.empty() || p.total_bytes < best.total_bytes) {
      best = p;
      best.strategy = c.name;
      best_order = c.order;
    }
  }

  // Improvement search: swap two positions of the best order, keep what is no worse.
  // Deterministic (fixed seed) so that the same model always gets the same plan.
  std::mt19937 rng(12345);
  const int kIterations = ranges.size() < 2 ? 0 : 20000;
  std::vector<size_t> order = best_order;
  int64_t current = best.total_bytes;
  for (int it = 0; it < kIterations && best.total_bytes > align_up(bound, alignment); ++it) {
    std::uniform_int_distribution<size_t> pick(0, order.size() - 1);
    size_t a = pick(rng), b = pick(rng);
    if (a == b) continue;
    std::swap(order[a], order[b]);
    Placement p = place_in_order(ranges, order, alignment);
    if (p.total_bytes <= current) {
      current = p.total_bytes;
      if (p.total_bytes < best.total_bytes) {
        best = p;
        best.strategy = "improvement-search";
      }
    } else {
      std::swap(order[a], order[b]);
    }
  }
  best.lower_bound = bound;
  return best;
}

}  // namespace aotc
