#include "aot/pipeline.h"

#include <algorithm>

#include "aot/graph_printer.h"
#include "aot/onnx_importer.h"
#include "aot/tflite_importer.h"
#include "aot/passes/graph_passes.h"
#include "lowering/ir_printer.h"
#include "lowering/op_registry.h"
#include "lowering/passes/simplify.h"

namespace aotc {

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> kNames = {"import",       "infer_shapes", "fold_constants", "fuse_operators",
                                                  "remove_dead_nodes", "lower", "simplify", "lower_builtin"};
  return kNames;
}

Graph import_model(const std::string& path) {
  auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".onnx")) return import_onnx(path);
  if (ends_with(".tflite")) return import_tflite(path);
  throw CompileError(path + ": unknown model format (expected a .onnx or .tflite file)");
}

namespace {

class Printer {
 public:
  explicit Printer(const CompileOptions& o) : options_(o) {}
  bool wants(const std::string& pass) const {
    return options_.print_stream && (options_.print_after_all || options_.print_after.count(pass));
  }
  void graph(const std::string& pass, const Graph& g) const {
    if (wants(pass)) *options_.print_stream << "// ---- IR after " << pass << "\n" << to_string(g) << "\n";
  }
  void kernels(const std::string& pass, const std::vector<KernelStep>& ks) const {
    if (!wants(pass)) return;
    *options_.print_stream << "// ---- IR after " << pass << "\n";
    for (auto& k : ks) *options_.print_stream << ir::to_string(k.func) << "\n";
  }

 private:
  const CompileOptions& options_;
};

std::vector<KernelStep> lower_graph(const Graph& g) {
  std::vector<KernelStep> kernels;
  std::map<std::string, int> counts;
  for (const Node& node : g.nodes) {
    const OpDef* def = find_op(node.op);
    if (def->is_view) continue;
    std::string base = node.op;
    std::transform(base.begin(), base.end(), base.begin(), [](unsigned char c) { return std::tolower(c); });
    for (char& c : base) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    std::string fname = base + "_" + std::to_string(counts[base]++);
    LoweredOp lowered = def->lower(g, node, fname);
    KernelStep k{fname, std::move(lowered.func), std::move(lowered.args), {}, kNoTensor, {}};
    if (def->in_place && node.outputs.size() == 1) {
      k.in_place_output = node.outputs[0];
      k.in_place_inputs = node.inputs;
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

TensorId view_source(const Graph& g, TensorId id, const std::map<TensorId, TensorId>& views) {
  auto it = views.find(id);
  while (it != views.end()) {
    id = it->second;
    it = views.find(id);
  }
  (void)g;
  return id;
}

// An elementwise kernel may write its output over an input of the same shape that no
// later step reads: element i of the output depends only on element i of that input,
// which has been read by the time it is overwritten. The output's storage becomes the
// input's, so the two need one buffer instead of two.
void merge_in_place(CompiledModel& m) {
  const Graph& g = m.graph;
  std::map<TensorId, int> first_use, last_use;  // per arena root
  for (size_t step = 0; step < m.kernels.size(); ++step) {
    for (TensorId id : m.kernels[step].args) {
      const Storage& s = m.storage[id];
      if (s.kind != Storage::Kind::kArena) continue;
      first_use.try_emplace(s.tensor, static_cast<int>(step));
      last_use[s.tensor] = static_cast<int>(step);
    }
  }
  for (size_t step = 0; step < m.kernels.size(); ++step) {
    const KernelStep& k = m.kernels[step];
    if (k.in_place_output == kNoTensor) continue;
    const Storage& out = m.storage[k.in_place_output];
    if (out.kind != Storage::Kind::kArena || first_use[out.tensor] != static_cast<int>(step)) continue;
    for (TensorId in : k.in_place_inputs) {
      const Storage& src = m.storage[in];
      bool same_layout = g.tensor(in).shape == g.tensor(k.in_place_output).shape &&
                         g.tensor(in).dtype == g.tensor(k.in_place_output).dtype;
      if (src.kind != Storage::Kind::kArena || src.tensor == out.tensor || !same_layout ||
          last_use[src.tensor] != static_cast<int>(step))
        continue;
      TensorId from = out.tensor, to = src.tensor;
      for (auto& [id, s] : m.storage)
        if (s.kind == Storage::Kind::kArena && s.tensor == from) s.tensor = to;
      last_use[to] = last_use[from];
      break;
    }
  }
}

// Decides the storage of every tensor the kernels touch, and plans the arena.
void plan_storage(CompiledModel& m) {
  const Graph& g = m.graph;
  std::map<TensorId, TensorId> views;  // view output -> its input
  for (const Node& n : g.nodes)
    if (find_op(n.op)->is_view) views[n.outputs[0]] = n.inputs[0];

  // Roots: where the bytes of each tensor really are.
  auto root_storage = [&](TensorId root) {
    Storage s;
    s.tensor = root;
    const Tensor& t = g.tensor(root);
    if (t.is_constant()) s.kind = Storage::Kind::kConstant;
    else if (std::count(g.inputs.begin(), g.inputs.end(), root)) s.kind = Storage::Kind::kInput;
    else if (g.is_graph_output(root)) s.kind = Storage::Kind::kOutput;
    else s.kind = Storage::Kind::kArena;
    return s;
  };

  // An arena root whose view chain ends in a graph output is stored in that output directly.
  std::map<TensorId, TensorId> root_to_output;
  for (TensorId out : g.outputs) {
    TensorId root = view_source(g, out, views);
    if (root == out) continue;
    if (root_storage(root).kind == Storage::Kind::kArena && !root_to_output.count(root)) {
      root_to_output[root] = out;
    } else {
      m.copies.push_back({root_storage(root), out});
    }
  }

  std::vector<TensorId> touched;
  for (auto& k : m.kernels) touched.insert(touched.end(), k.args.begin(), k.args.end());
  for (TensorId id : touched) {
    TensorId root = view_source(g, id, views);
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
  for (TensorId out : g.outputs) {
    bool copied = std::any_of(m.copies.begin(), m.copies.end(), [&](const CopyStep& c) { return c.to == out; });
    TensorId root = view_source(g, out, views);
    bool stored_in_place = root_to_output.count(root) && root_to_output[root] == out;
    if (!m.storage.count(out) && !copied && !stored_in_place) m.copies.push_back({root_storage(root), out});
  }

  merge_in_place(m);

  // Live ranges of arena roots over kernel steps.
  std::map<TensorId, LiveRange> ranges;
  for (size_t step = 0; step < m.kernels.size(); ++step) {
    for (TensorId id : m.kernels[step].args) {
      const Storage& s = m.storage[id];
      if (s.kind != Storage::Kind::kArena) continue;
      auto [it, fresh] = ranges.try_emplace(s.tensor);
      if (fresh) {
        it->second.size = g.tensor(s.tensor).size_bytes();
        it->second.first = static_cast<int>(step);
      }
      it->second.last = static_cast<int>(step);
    }
  }
  std::vector<LiveRange> list;
  std::vector<TensorId> ids;
  for (auto& [id, r] : ranges) ids.push_back(id), list.push_back(r);
  m.arena = plan_memory(list, m.target.workspace_alignment);
  std::map<TensorId, int64_t> offsets;
  for (size_t i = 0; i < ids.size(); ++i) offsets[ids[i]] = m.arena.offsets[i];
  for (auto& [id, s] : m.storage)
    if (s.kind == Storage::Kind::kArena) s.offset = offsets[s.tensor];
}

}  // namespace

CompiledModel compile_model(const CompileOptions& options) {
  Printer print(options);
  CompiledModel m;
  m.name = options.name;
  m.target = options.target;

  // 1. Import.
  m.graph = import_model(options.model_path);
  print.graph("import", m.graph);

  // 2. Graph passes.
  infer_shapes(m.graph);
  print.graph("infer_shapes", m.graph);
  fold_constants(m.graph);
  print.graph("fold_constants", m.graph);
  fuse_operators(m.graph);
  print.graph("fuse_operators", m.graph);
  remove_dead_nodes(m.graph);
  print.graph("remove_dead_nodes", m.graph);

  // 3. Lowering: one kernel per (fused) node.
  m.kernels = lower_graph(m.graph);
  print.kernels("lower", m.kernels);

  // 4. Loop-IR passes.
  for (auto& k : m.kernels) k.func.body = ir::simplify(k.func.body);
  print.kernels("simplify", m.kernels);
  for (auto& k : m.kernels) {
    k.func.body = ir::lower_builtin(k.func.body, m.target);
    k.memory = ir::measure_kernel_memory(k.func.body);
    m.scratch_bytes = std::max(m.scratch_bytes, k.memory.workspace_bytes);
    m.max_stack_bytes = std::max(m.max_stack_bytes, k.memory.stack_bytes);
  }
  print.kernels("lower_builtin", m.kernels);

  // 5. Static memory plan for the tensors between kernels.
  plan_storage(m);
  return m;
}

}  // namespace aotc
