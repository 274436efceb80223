// fold_constants: a node whose inputs are all constant is computed at compile time.
//
// Views (Reshape, Flatten, Dropout, Identity, Squeeze, Unsqueeze) of a constant are the
// same bytes with a new shape. Other operators are evaluated by running their lowered
// kernel in the IR interpreter, so every operator that can be lowered can also be folded,
// with the same semantics as the generated C. Operators that read only their inputs'
// shapes (Shape, Size) fold whatever their inputs hold.
//
// infer_shapes already folds, as it goes, what later shape functions may need (shape
// arithmetic); this pass folds the rest, after fold_qdq has matched its patterns. A node
// that writes a graph output keeps its kernel.
#include <stdexcept>
#include <string>

#include "aot/passes/graph_passes.h"
#include "lowering/ir/ir_interpreter.h"
#include "aot/graph/lowered_op.h"
#include "aot/graph/op_registry.h"

namespace aotc {

bool can_fold(const Graph& g, const Node& node) {
  const OpDef* def = find_op(node.op);
  if (!def || node.inputs.empty() || !node.body.empty() || !node.subgraphs.empty()) return false;
  bool writes_something = false;
  for (TensorId out : node.outputs) {
    if (out == kNoTensor) continue;
    if (g.is_graph_output(out)) return false;
    writes_something = true;
  }
  if (!writes_something) return false;
  if (def->reads_only_shapes) return true;
  for (TensorId in : node.inputs)
    if (in != kNoTensor && !g.tensor(in).is_constant()) return false;
  return true;
}

namespace {

// Lowers `node` as if each of its outputs were a graph output. A folded node's outputs
// become constants that any later node may read, also one that infer_shapes (which folds
// as it goes) has not put back into the graph yet, where no consumer is to be seen: kernels
// that compute only the outputs something reads (LSTM's Y, TopK's indices, Attention's
// caches: output_is_used) must compute them all. Before, a constant LSTM read by a later
// node folded to zeros.
LoweredOp lower_every_output(Graph& g, const Node& node, const OpDef& def) {
  size_t graph_outputs = g.outputs.size();
  for (TensorId out : node.outputs)
    if (out != kNoTensor) g.outputs.push_back(out);
  try {
    // Any kernel variant computes the same values (see ir_interpreter.h): the host's will do.
    LoweredOp lowered = def.lower(LowerContext{g, node, "fold", TargetFacts{}});
    g.outputs.resize(graph_outputs);
    return lowered;
  } catch (...) {
    g.outputs.resize(graph_outputs);
    throw;
  }
}

}  // namespace

void fold_node(Graph& g, const Node& node) {
  const OpDef* def = find_op(node.op);
  if (def->is_view) {
    g.tensor(node.outputs[0]).data = g.tensor(node.inputs[0]).data;
    return;
  }
  LoweredOp lowered = lower_every_output(g, node, *def);
  for (TensorId out : node.outputs)
    if (out != kNoTensor) g.tensor(out).data = std::vector<uint8_t>(static_cast<size_t>(g.tensor(out).size_bytes()));
  std::vector<ir::BufferBinding> bindings;
  for (size_t i = 0; i < lowered.args.size(); ++i) {
    Tensor& t = g.tensor(lowered.args[i]);
    if (!t.is_constant()) node_error(node, "internal: folding reads '" + t.name + "', which is not a constant");
    bindings.push_back({lowered.func.params[i], t.data->data()});
  }
  int64_t status = 0;
  try {
    status = ir::interpret(lowered.func, bindings);
  } catch (const std::runtime_error& e) {  // the interpreter's checks (an index out of bounds...)
    node_error(node, std::string("could not be computed at compile time: ") + e.what());
  }
  if (status != 0) node_error(node, "its constant operands are invalid (the kernel returned an error when folded)");
}

void fold_constants(Graph& g) {
  std::vector<Node> kept;
  for (Node& node : g.nodes) {
    if (can_fold(g, node)) {
      fold_node(g, node);
    } else {
      kept.push_back(std::move(node));
    }
  }
  g.nodes = std::move(kept);
}

}  // namespace aotc
