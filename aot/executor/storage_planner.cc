#include "aot/executor/storage_planner.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using StorageMap = std::map<TensorId, Storage>;

// The tensor whose bytes a chain of views ends in.
TensorId view_source(TensorId id, const std::map<TensorId, TensorId>& views) {
  for (auto it = views.find(id); it != views.end(); it = views.find(id)) id = it->second;
  return id;
}

// True for storage planned in the arena: activations, and with --io-in-arena the graph's
// inputs and outputs as well (they keep their kind: the generated code still reaches them
// through the caller's structs, which must point at their planned places).
bool planned_in_arena(const CompiledModel& m, const Storage& s) {
  return s.kind == Storage::Kind::kArena ||
         (m.io_in_arena && (s.kind == Storage::Kind::kInput || s.kind == Storage::Kind::kOutput));
}

// A loop's steps run again and again: a buffer that is live on some of them and also
// before or after the loop (a value from outside that the body reads, a loop-carried
// buffer, a scan output filled slice by slice) is live on all of them.
void stretch_over_loops(const CompiledModel& m, std::map<TensorId, LiveRange>& ranges) {
  std::vector<size_t> open;
  for (size_t step = 0; step < m.steps.size(); ++step) {
    if (m.steps[step].kind == Step::Kind::kLoop) open.push_back(step);
    if (m.steps[step].kind != Step::Kind::kEndLoop) continue;
    int begin = static_cast<int>(open.back()), end = static_cast<int>(step);
    open.pop_back();
    for (auto& [root, r] : ranges) {
      bool overlaps = r.first <= end && r.last >= begin;
      bool inside = r.first >= begin && r.last <= end;
      if (overlaps && !inside) r.first = std::min(r.first, begin), r.last = std::max(r.last, end);
    }
  }
}

// Live range of every arena root over the steps, in root id order. With
// --io-in-arena an input is live from the start of the run (the application wrote it) and
// an output until after the last step (the copies run there, then the application reads
// it): step steps.size() stands for that moment after the last step.
std::map<TensorId, LiveRange> arena_ranges(const CompiledModel& m, const StorageMap& storage) {
  std::map<TensorId, LiveRange> ranges;
  auto touch = [&](const Storage& s, int step) {
    if (!planned_in_arena(m, s)) return;
    auto [it, fresh] = ranges.try_emplace(s.tensor);
    if (fresh) {
      it->second.size = m.graph.tensor(s.tensor).size_bytes();
      it->second.first = step;
    }
    it->second.last = step;
  };
  for (size_t step = 0; step < m.steps.size(); ++step)
    for (TensorId id : m.steps[step].args) touch(storage.at(id), static_cast<int>(step));
  if (!m.io_in_arena) {
    stretch_over_loops(m, ranges);
    return ranges;
  }
  const int after = static_cast<int>(m.steps.size());
  for (const CopyStep& c : m.copies) {
    // The copy reads the source where it is planned, as the generated code resolves it: an
    // arena root may live in another graph output (two outputs viewing one tensor).
    auto planned = storage.find(c.from.tensor);
    touch(planned != storage.end() ? planned->second : c.from, after);
    Storage to;
    to.kind = Storage::Kind::kOutput;
    to.tensor = c.to;
    touch(to, after);
  }
  for (TensorId in : m.graph.inputs)  // an input no kernel reads still has a place
    if (!ranges.count(in)) touch(Storage{Storage::Kind::kInput, in, 0, 0}, 0);
  for (auto& [root, r] : ranges) {
    if (std::count(m.graph.inputs.begin(), m.graph.inputs.end(), root)) r.first = 0;
    if (m.graph.is_graph_output(root)) r.last = after;
  }
  stretch_over_loops(m, ranges);  // after the inputs' and outputs' own widening
  return ranges;
}

// Tensors first (in root id order), then each kernel's scratch, live for its step only. A
// kernel's output that may overlap its input (Step::overlap_input) says so in its range,
// where both are whole arena roots (not a view into a larger buffer), the output is its own
// root, and the input dies at the step that writes the output first; --no-in-place turns
// overlaps off too.
std::vector<LiveRange> arena_and_scratch_ranges(const CompiledModel& m, const StorageMap& storage) {
  std::vector<LiveRange> list;
  std::map<TensorId, size_t> index;
  for (auto& [id, r] : arena_ranges(m, storage)) index[id] = list.size(), list.push_back(r);
  for (size_t step = 0; step < m.steps.size() && m.in_place; ++step) {
    const Step& k = m.steps[step];
    if (k.overlap_input == kNoTensor) continue;
    auto in = storage.find(k.overlap_input), out = storage.find(k.in_place_output);
    if (in == storage.end() || out == storage.end() || !planned_in_arena(m, in->second) ||
        !planned_in_arena(m, out->second) || in->second.tensor == out->second.tensor)
      continue;
    // The output's own memory, not a tensor it was written in place over (an epilogue
    // operand, or a graph input planned in the arena: live, with its data, before this step).
    if (out->second.tensor != k.in_place_output) continue;
    if (m.graph.tensor(in->second.tensor).size_bytes() != m.graph.tensor(k.overlap_input).size_bytes()) continue;
    LiveRange& output = list[index.at(out->second.tensor)];
    const size_t input = index.at(in->second.tensor);
    if (output.first != static_cast<int>(step) || list[input].last != static_cast<int>(step)) continue;
    output.overlaps = static_cast<int>(input);
    output.overlap_distance = k.overlap_distance;
    output.overlap_at_start = k.overlap_at_start;
  }
  for (size_t step = 0; step < m.steps.size(); ++step)
    if (m.steps[step].memory.workspace_bytes > 0)
      list.push_back({m.steps[step].memory.workspace_bytes, static_cast<int>(step), static_cast<int>(step)});
  return list;
}

Placement place_arena(const CompiledModel& m, const StorageMap& storage) {
  return plan_memory(arena_and_scratch_ranges(m, storage), m.target.workspace_alignment);
}

std::string pool_list(const std::vector<PoolConfig>& pools) {
  std::string s;
  for (auto& p : pools) s += (s.empty() ? "" : ", ") + p.name + " " + (p.size_bytes ? std::to_string(p.size_bytes) + " B" : "unbounded");
  return s;
}

// The placement into the target's pools, or a CompileError that says what is needed and
// where the peak is.
// Bit p set when pool p's tensor glob admits `name`. A tensor no glob names may go to the
// pools without one.
uint64_t allowed_pools(const std::vector<PoolConfig>& pools, const std::string& name) {
  uint64_t named = 0, open = 0;
  for (size_t p = 0; p < pools.size() && p < 64; ++p) {
    const std::string& glob = pools[p].tensors;
    if (glob.empty() || glob == "*") open |= uint64_t{1} << p;
    else if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) named |= uint64_t{1} << p;
  }
  return named | open;
}

// Bit p set for the pools the target's NPU reaches: those its [npu] table names (all when
// it names none). An error when none of the model's pools is one of them.
uint64_t device_pools(const CompiledModel& m) {
  const std::vector<std::string>& reached = m.target.npu->pools;
  uint64_t mask = 0;
  for (size_t p = 0; p < m.pools.size() && p < 64; ++p)
    if (reached.empty() || std::count(reached.begin(), reached.end(), m.pools[p].name)) mask |= uint64_t{1} << p;
  if (mask == 0) {
    std::string names;
    for (const std::string& n : reached) names += (names.empty() ? "" : ", ") + n;
    throw CompileError("the NPU of target '" + m.target.name + "' reaches only the pools " + names +
                       ", and the model has none of them (" + pool_list(m.pools) + ")");
  }
  return mask;
}

Placement place_in_target_pools(const CompiledModel& m, const StorageMap& storage) {
  std::vector<LiveRange> ranges = arena_and_scratch_ranges(m, storage);
  // What a device step touches, and its scratch, must be where the device reaches.
  std::set<TensorId> on_device;
  for (const Step& k : m.steps)
    if (k.on_device)
      for (TensorId arg : k.args) on_device.insert(storage.at(arg).tensor);
  const uint64_t reached = on_device.empty() ? ~uint64_t{0} : device_pools(m);
  size_t index = 0;
  for (auto& [root, range] : arena_ranges(m, storage)) {
    const std::string& name = m.graph.tensor(root).name;
    ranges[index].allowed_pools = allowed_pools(m.pools, name);
    if (ranges[index].allowed_pools == 0)
      throw CompileError("tensor '" + name + "' matches no pool's 'tensors' pattern, and every pool has one (" +
                         pool_list(m.pools) + ")");
    if (on_device.count(root)) {
      ranges[index].allowed_pools &= reached;
      if (ranges[index].allowed_pools == 0)
        throw CompileError("tensor '" + name + "' is read or written by the NPU, but no pool it may go to (by the pools' " +
                           "'tensors' patterns) is one the NPU reaches");
    }
    ++index;
  }
  for (const Step& k : m.steps)
    if (k.memory.workspace_bytes > 0 && k.on_device) ranges[index++].allowed_pools = reached;
    else if (k.memory.workspace_bytes > 0) ++index;
  std::vector<int64_t> capacities;
  for (auto& p : m.pools) capacities.push_back(p.size_bytes);
  Placement placement;
  if (place_in_pools(ranges, capacities, m.target.workspace_alignment, &placement)) return placement;
  auto [step, live] = peak_step(ranges, m.target.workspace_alignment);
  std::string at = step < static_cast<int>(m.steps.size()) ? m.steps[static_cast<size_t>(step)].label : "after the last step";
  Placement unbounded = plan_memory(ranges, m.target.workspace_alignment);
  throw CompileError("the model does not fit in the memory pools (" + pool_list(m.pools) + "): its activations need " +
                     std::to_string(unbounded.total_bytes) + " bytes in one pool, at least " + std::to_string(live) +
                     " bytes at the peak, step " + std::to_string(step) + " (" + at + ")");
}

// Lets kernel `step` write its output over `input`: the output's storage becomes the
// input's. Only when the output is an arena tensor and the input one too (or a graph input
// planned in the arena, --io-in-arena: a uint8 image converted in place), both of the same
// shape and element size, the input is read for the last time at this step and the output
// is first written here. `ranges`, when given,
// are the arena's live ranges for `storage` (arena_ranges), which the merge keeps up to
// date: the merged root lives from the input's first step to the output's last (without
// loops, where nothing stretches them).
bool merge_in_place(const CompiledModel& m, StorageMap& storage, size_t step, TensorId input,
                    std::map<TensorId, LiveRange>* kept_ranges = nullptr) {
  const Graph& g = m.graph;
  const Step& k = m.steps[step];
  if (!storage.count(input)) return false;  // a constant the kernel holds itself
  const Storage& out = storage.at(k.in_place_output);
  const Storage& src = storage.at(input);
  const bool arena_or_planned_input =
      src.kind == Storage::Kind::kArena || (src.kind == Storage::Kind::kInput && planned_in_arena(m, src));
  if (out.kind != Storage::Kind::kArena || !arena_or_planned_input || src.tensor == out.tensor) return false;
  if (g.tensor(input).shape != g.tensor(k.in_place_output).shape ||
      g.tensor(input).dtype.bytes() != g.tensor(k.in_place_output).dtype.bytes())
    return false;
  std::map<TensorId, LiveRange> computed;
  if (!kept_ranges) computed = arena_ranges(m, storage);
  std::map<TensorId, LiveRange>& ranges = kept_ranges ? *kept_ranges : computed;
  if (ranges.at(src.tensor).last != static_cast<int>(step) || ranges.at(out.tensor).first != static_cast<int>(step))
    return false;
  TensorId from = out.tensor, to = src.tensor;
  for (auto& [id, s] : storage)
    if (s.kind == Storage::Kind::kArena && s.tensor == from) s.tensor = to;
  ranges.at(to).last = ranges.at(from).last;
  ranges.erase(from);
  return true;
}

// The in-place merges to take: first all of them at once. A merge never raises the plan's
// lower bound (the two tensors were live together only at the step that merges them), so
// when that plan meets its bound nothing is better, and one plan was enough. Otherwise
// each merge on its own, kept only if the plan does not grow: a plan per candidate, which
// only small models (and those with loops, whose live ranges stretch) can afford.
StorageMap merged_in_place(const CompiledModel& m, const StorageMap& storage) {
  const bool loops = std::any_of(m.steps.begin(), m.steps.end(), [](const Step& k) { return k.kind == Step::Kind::kLoop; });
  size_t candidates = 0;
  for (const Step& k : m.steps) candidates += k.in_place_inputs.size();
  StorageMap best = storage;
  Placement best_plan = place_arena(m, best);
  if (!loops) {
    StorageMap all = storage;
    std::map<TensorId, LiveRange> ranges = arena_ranges(m, all);
    for (size_t step = 0; step < m.steps.size(); ++step)
      for (TensorId in : m.steps[step].in_place_inputs) merge_in_place(m, all, step, in, &ranges);
    Placement p = place_arena(m, all);
    if (p.total_bytes <= best_plan.total_bytes && (p.total_bytes <= p.lower_bound || candidates > 200)) return all;
    if (candidates > 200) return best;
  }
  for (size_t step = 0; step < m.steps.size(); ++step) {
    for (TensorId in : m.steps[step].in_place_inputs) {
      StorageMap trial = best;
      if (!merge_in_place(m, trial, step, in)) continue;
      Placement p = place_arena(m, trial);
      if (p.total_bytes <= best_plan.total_bytes) best = std::move(trial), best_plan = p;
    }
  }
  return best;
}

}  // namespace

std::map<TensorId, LiveRange> planned_live_ranges(const CompiledModel& m) { return arena_ranges(m, m.storage); }

// Decides the storage of every tensor the steps touch, and plans the arena.
void plan_storage(CompiledModel& m) {
  const Graph& g = m.graph;
  // View output -> its input, in the graph and in every subgraph; and the aliases the
  // lowering of control flow made (lower_graph.h), which work the same way.
  std::map<TensorId, TensorId> views = view_inputs(g);
  views.insert(m.aliases.begin(), m.aliases.end());

  // Roots: where the bytes of each tensor really are.
  auto root_storage = [&](TensorId root) {
    Storage s;
    s.tensor = root;
    const Tensor& t = g.tensor(root);
    if (auto next = m.next_values.find(root); next != m.next_values.end()) {
      s.kind = Storage::Kind::kVariable;
      s.tensor = next->second;
      s.next_value = true;
      return s;
    }
    if (t.is_constant()) s.kind = Storage::Kind::kConstant;
    else if (t.is_variable) s.kind = Storage::Kind::kVariable;
    else if (std::count(g.inputs.begin(), g.inputs.end(), root)) s.kind = Storage::Kind::kInput;
    else if (g.is_graph_output(root)) s.kind = Storage::Kind::kOutput;
    else s.kind = Storage::Kind::kArena;
    return s;
  };

  // An arena root whose view chain ends in a graph output is stored in that output directly;
  // other outputs viewing it are copied from there. (Not from the root's own storage: when
  // no kernel argument is the root itself, an If's output that its branches compute
  // through aliases, the root has no storage of its own, and the copy read an arena place
  // nothing wrote.)
  std::map<TensorId, TensorId> root_to_output;
  for (TensorId out : g.outputs) {
    TensorId root = view_source(out, views);
    if (root == out) continue;
    if (root_storage(root).kind == Storage::Kind::kArena && !root_to_output.count(root)) {
      root_to_output[root] = out;
    } else if (root_to_output.count(root)) {
      Storage stored;
      stored.kind = Storage::Kind::kOutput;
      stored.tensor = root_to_output[root];
      m.copies.push_back({stored, out});
    } else {
      m.copies.push_back({root_storage(root), out});
    }
  }

  std::vector<TensorId> touched;
  for (auto& k : m.steps) touched.insert(touched.end(), k.args.begin(), k.args.end());
  for (TensorId id : touched) {
    TensorId root = view_source(id, views);
    if (root_to_output.count(root)) {
      Storage s;
      s.kind = Storage::Kind::kOutput;
      s.tensor = root_to_output[root];
      m.storage[id] = s;
    } else {
      m.storage[id] = root_storage(root);
    }
  }

  // Graph outputs no kernel writes (a folded constant, an input passed through) are copied.
  // That a kernel touches one is not enough: a graph input or a constant that is also an
  // output is only read there, from its own storage, and the output still needs the copy.
  for (TensorId out : g.outputs) {
    bool copied = std::any_of(m.copies.begin(), m.copies.end(), [&](const CopyStep& c) { return c.to == out; });
    TensorId root = view_source(out, views);
    bool stored_in_place = root_to_output.count(root) && root_to_output[root] == out;
    // Written where it is through an alias (an If's branch computes into the output).
    bool written_through_alias = root == out && root_storage(root).kind == Storage::Kind::kOutput;
    auto touched_storage = m.storage.find(out);
    bool written_by_kernel = touched_storage != m.storage.end() && touched_storage->second.kind == Storage::Kind::kOutput;
    if (!written_by_kernel && !copied && !stored_in_place && !written_through_alias)
      m.copies.push_back({root_storage(root), out});
  }

  if (m.in_place) m.storage = merged_in_place(m, m.storage);
  m.arena = place_in_target_pools(m, m.storage);
  // The placement lists the arena roots in arena_ranges' order, then the kernels' scratch.
  std::map<TensorId, size_t> index_of_root;
  for (auto& [root, range] : arena_ranges(m, m.storage)) index_of_root.emplace(root, index_of_root.size());
  for (auto& [id, s] : m.storage) {
    if (!planned_in_arena(m, s)) continue;
    size_t index = index_of_root.at(s.tensor);
    s.offset = m.arena.offsets[index];
    s.pool = m.arena.pools[index];
  }
  for (auto& [root, index] : index_of_root) {
    bool is_input = std::count(g.inputs.begin(), g.inputs.end(), root) > 0;
    if (!m.io_in_arena || (!is_input && !g.is_graph_output(root))) continue;
    Storage& place = m.io_places[root];
    place.kind = is_input ? Storage::Kind::kInput : Storage::Kind::kOutput;
    place.tensor = root;
    place.offset = m.arena.offsets[index];
    place.pool = m.arena.pools[index];
  }
  size_t next = index_of_root.size();
  for (auto& k : m.steps) {
    if (k.memory.workspace_bytes == 0) continue;
    k.scratch_offset = m.arena.offsets[next];
    k.scratch_pool = m.arena.pools[next++];
  }
}

}  // namespace aotc
