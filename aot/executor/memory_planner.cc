#include "aot/executor/memory_planner.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

namespace aotc {

int64_t align_up(int64_t value, int64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

namespace {

bool overlap_in_time(const LiveRange& a, const LiveRange& b) { return a.first <= b.last && b.first <= a.last; }

// The lowest aligned offset in `pool` where range i does not collide with an already
// placed range of that pool that is live at the same time.
int64_t lowest_free_offset(const std::vector<LiveRange>& ranges, const Placement& p, const std::vector<size_t>& placed,
                           size_t i, int pool, int64_t alignment) {
  std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) of conflicting placed ranges
  for (size_t j : placed)
    if (p.pools[j] == pool && overlap_in_time(ranges[i], ranges[j]))
      busy.emplace_back(p.offsets[j], p.offsets[j] + ranges[j].size);
  std::sort(busy.begin(), busy.end());
  int64_t offset = 0;
  for (auto& [begin, end] : busy) {
    if (offset + ranges[i].size <= begin) break;
    offset = std::max(offset, align_up(end, alignment));
  }
  return offset;
}

// Places ranges in the given order, each in the first pool where it fits (capacity 0 =
// unbounded) at the lowest free offset. Returns false if a range fits in no pool.
bool place_in_order(const std::vector<LiveRange>& ranges, const std::vector<size_t>& order,
                    const std::vector<int64_t>& capacities, int64_t alignment, Placement* out) {
  Placement p;
  p.offsets.assign(ranges.size(), -1);
  p.pools.assign(ranges.size(), 0);
  p.pool_bytes.assign(capacities.size(), 0);
  p.order = order;
  std::vector<size_t> placed;
  for (size_t i : order) {
    bool fitted = false;
    for (size_t pool = 0; pool < capacities.size() && !fitted; ++pool) {
      if (pool < 64 && !(ranges[i].allowed_pools >> pool & 1)) continue;
      p.pools[i] = static_cast<int>(pool);
      int64_t offset = lowest_free_offset(ranges, p, placed, i, static_cast<int>(pool), alignment);
      if (capacities[pool] != 0 && offset + ranges[i].size > capacities[pool]) continue;
      p.offsets[i] = offset;
      p.pool_bytes[pool] = std::max(p.pool_bytes[pool], align_up(offset + ranges[i].size, alignment));
      fitted = true;
    }
    if (!fitted) return false;
    placed.push_back(i);
  }
  for (int64_t b : p.pool_bytes) p.total_bytes += b;
  *out = std::move(p);
  return true;
}

// One unbounded arena, where every range may go.
Placement place_in_order(const std::vector<LiveRange>& ranges, const std::vector<size_t>& order, int64_t alignment) {
  std::vector<LiveRange> anywhere = ranges;
  for (LiveRange& r : anywhere) r.allowed_pools = ~uint64_t{0};
  Placement p;
  place_in_order(anywhere, order, {0}, alignment, &p);
  return p;
}

int64_t lower_bound(const std::vector<LiveRange>& ranges, int64_t alignment) { return peak_step(ranges, alignment).second; }


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

bool place_in_pools(const std::vector<LiveRange>& ranges, const std::vector<int64_t>& capacities, int64_t alignment,
                    Placement* placement) {
  Placement single = plan_memory(ranges, alignment);
  if (capacities.empty()) return false;
  bool all_allowed_in_first = std::all_of(ranges.begin(), ranges.end(), [](const LiveRange& r) { return r.allowed_pools & 1; });
  if (all_allowed_in_first && (capacities[0] == 0 || single.total_bytes <= capacities[0])) {
    single.pool_bytes.assign(capacities.size(), 0);
    single.pool_bytes[0] = single.total_bytes;
    *placement = single;
    return true;
  }
  std::string strategy = single.strategy + ", spread over pools";
  int64_t bound = single.lower_bound;
  if (!place_in_order(ranges, single.order, capacities, alignment, placement)) return false;
  placement->strategy = strategy;
  placement->lower_bound = bound;
  return true;
}

std::pair<int, int64_t> peak_step(const std::vector<LiveRange>& ranges, int64_t alignment) {
  int steps = 0;
  for (auto& r : ranges) steps = std::max(steps, r.last + 1);
  std::pair<int, int64_t> peak{0, 0};
  for (int s = 0; s < steps; ++s) {
    int64_t live = 0;
    for (auto& r : ranges)
      if (r.first <= s && s <= r.last) live += align_up(r.size, alignment);
    if (live > peak.second) peak = {s, live};
  }
  return peak;
}

}  // namespace aotc
