#include "aot/driver/pipeline.h"

#include <algorithm>

#include "aot/graph/graph_printer.h"
#include "aot/import/onnx_importer.h"
#include "aot/import/tflite_importer.h"
#include "aot/passes/graph_passes.h"
#include "aot/executor/storage_planner.h"
#include "lowering/ir/ir_printer.h"
#include "aot/graph/op_registry.h"
#include "lowering/passes/simplify.h"

namespace aotc {

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> kNames = {"import",         "infer_shapes",      "fold_qdq", "fold_constants",
                                                  "fuse_operators", "remove_dead_nodes", "lower",    "simplify",
                                                  "lower_builtin"};
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
    KernelStep k{fname, lowered.func, lowered.args, {}, kNoTensor, {}};
    if (!lowered.in_place_inputs.empty()) {
      k.in_place_output = node.outputs.at(0);
      k.in_place_inputs = lowered.in_place_inputs;
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace

CompiledModel compile_model(const CompileOptions& options) {
  Printer print(options);
  CompiledModel m;
  m.name = options.name;
  m.target = options.target;
  m.pools = options.pools.empty() ? options.target.pools : options.pools;
  m.in_place = options.in_place;
  if (m.pools.empty()) m.pools.push_back({"workspace", 0, false, "", ""});

  // 1. Import.
  m.graph = import_model(options.model_path);
  print.graph("import", m.graph);

  // 2. Graph passes.
  infer_shapes(m.graph);
  print.graph("infer_shapes", m.graph);
  fold_qdq(m.graph);
  print.graph("fold_qdq", m.graph);
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
    k.memory = ir::measure_kernel_memory(k.func.body, m.target);
    m.scratch_bytes = std::max(m.scratch_bytes, k.memory.workspace_bytes);
    m.max_stack_bytes = std::max(m.max_stack_bytes, k.memory.stack_bytes);
  }
  print.kernels("lower_builtin", m.kernels);

  // 5. Static memory plan for the tensors between kernels.
  plan_storage(m);
  return m;
}

}  // namespace aotc
