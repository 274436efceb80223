#include "aot/base/memory_planner.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

namespace aotc {

int64_t align_up(int64_t value, int64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

namespace {

// The ranges placed so far, indexed by step: which are live at each step, so that finding
// the ranges a new one collides with costs its lifetime and its conflicts, not the number
// of ranges placed (a chain of 10,000 kernels has short lifetimes and few conflicts).
class PlacedByStep {
 public:
  explicit PlacedByStep(const std::vector<LiveRange>& ranges) {
    int steps = 0;
    for (const LiveRange& r : ranges) steps = std::max(steps, r.last + 1);
    live_.resize(static_cast<size_t>(steps));
    seen_.assign(ranges.size(), 0);
  }
  void add(const LiveRange& r, size_t index) {
    for (int s = r.first; s <= r.last; ++s) live_[static_cast<size_t>(s)].push_back(index);
  }
  // Calls fn once for every placed range live at some step of `r`.
  template <typename Fn>
  void for_each_conflict(const LiveRange& r, Fn fn) {
    ++stamp_;
    for (int s = r.first; s <= r.last; ++s)
      for (size_t j : live_[static_cast<size_t>(s)])
        if (seen_[j] != stamp_) seen_[j] = stamp_, fn(j);
  }

 private:
  std::vector<std::vector<size_t>> live_;
  std::vector<uint64_t> seen_;
  uint64_t stamp_ = 0;
};

// Whether range `output` may overlap range `input` (see the header): it names it, and it is
// first written at the step that reads `input` for the last time.
bool may_overlap(const std::vector<LiveRange>& ranges, size_t output, size_t input) {
  return ranges[output].overlaps == static_cast<int>(input) && ranges[output].first == ranges[input].last;
}

// The lowest aligned offset in `pool` where range i does not collide with an already
// placed range of that pool that is live at the same time. Each such range j forbids the
// offsets strictly between (its offset - what of i may lie below it) and (its offset +
// what of it lies below i): i's size and j's, or the overlap distance where i may overlap
// j or j may overlap i; with overlap_at_start, everything but j's own offset.
int64_t lowest_free_offset(const std::vector<LiveRange>& ranges, const Placement& p, PlacedByStep& placed, size_t i,
                           int pool, int64_t alignment) {
  std::vector<std::pair<int64_t, int64_t>> forbidden;
  placed.for_each_conflict(ranges[i], [&](size_t j) {
    if (p.pools[j] != pool) return;
    const bool at_start = (may_overlap(ranges, i, j) && ranges[i].overlap_at_start) ||
                          (may_overlap(ranges, j, i) && ranges[j].overlap_at_start);
    if (at_start) {
      // Everywhere around j but at its offset.
      forbidden.emplace_back(p.offsets[j] - ranges[i].size, p.offsets[j]);
      forbidden.emplace_back(p.offsets[j], p.offsets[j] + ranges[j].size);
      return;
    }
    int64_t below = ranges[i].size, above = ranges[j].size;
    if (may_overlap(ranges, i, j)) below = std::min(below, ranges[i].overlap_distance);
    if (may_overlap(ranges, j, i)) above = std::min(above, ranges[j].overlap_distance);
    forbidden.emplace_back(p.offsets[j] - below, p.offsets[j] + above);
  });
  std::sort(forbidden.begin(), forbidden.end());
  int64_t offset = 0;
  for (auto& [low, high] : forbidden) {
    if (offset <= low) break;
    offset = std::max(offset, align_up(high, alignment));
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
  PlacedByStep placed(ranges);
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
    placed.add(ranges[i], i);
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
  // How many other ranges each one is live together with: those that start by its last
  // step, less those that end before its first.
  std::vector<int> firsts, lasts;
  for (const LiveRange& r : ranges) firsts.push_back(r.first), lasts.push_back(r.last);
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  std::vector<int64_t> conflicts(ranges.size(), 0);
  for (size_t i = 0; i < ranges.size(); ++i)
    conflicts[i] = (std::upper_bound(firsts.begin(), firsts.end(), ranges[i].last) - firsts.begin()) -
                   (std::lower_bound(lasts.begin(), lasts.end(), ranges[i].first) - lasts.begin()) - 1;

  // Greedy placements in four orders; each is good on different lifetimes.
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
      // From the last step back: a chain of outputs each overlapping its input from below
      // (memory_planner.h) then rises from offset 0 as a staircase, each input placed just
      // the overlap distance above the output placed before it.
      {"greedy-by-last-use", order_by(ranges, [&](size_t a, size_t b) { return ranges[a].last > ranges[b].last; })},
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
  // Its budget: 20,000 tries, fewer for plans of thousands of ranges (each try places
  // them all), so that compile time stays about linear in the model.
  std::mt19937 rng(12345);
  const size_t n = ranges.size();
  const int kIterations = n < 2 ? 0 : static_cast<int>(std::min<size_t>(20000, std::max<size_t>(50, 2000000000 / (n * n))));
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
  // Bytes that become live at each step, less those that died the step before.
  std::vector<int64_t> change(static_cast<size_t>(steps) + 1, 0);
  for (auto& r : ranges) {
    change[static_cast<size_t>(r.first)] += align_up(r.size, alignment);
    change[static_cast<size_t>(r.last) + 1] -= align_up(r.size, alignment);
  }
  // An output that may overlap its input needs, together with it at that step, the larger
  // of itself and distance + input.
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].overlaps < 0 || static_cast<size_t>(ranges[i].overlaps) >= ranges.size() ||
        !may_overlap(ranges, i, static_cast<size_t>(ranges[i].overlaps))) continue;
    int64_t output = align_up(ranges[i].size, alignment);
    int64_t input = align_up(ranges[static_cast<size_t>(ranges[i].overlaps)].size, alignment);
    int64_t below = ranges[i].overlap_at_start ? 0 : align_up(ranges[i].overlap_distance, alignment);
    int64_t together = std::max(output, below + input);
    int64_t saved = std::max<int64_t>(0, output + input - together);
    change[static_cast<size_t>(ranges[i].first)] -= saved;
    change[static_cast<size_t>(ranges[i].first) + 1] += saved;
  }
  std::pair<int, int64_t> peak{0, 0};
  int64_t live = 0;
  for (int s = 0; s < steps; ++s) {
    live += change[static_cast<size_t>(s)];
    if (live > peak.second) peak = {s, live};
  }
  return peak;
}

}  // namespace aotc
