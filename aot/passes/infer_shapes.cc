// infer_shapes: asks each operator's shape function for the type and shape of its
// outputs, in execution order. An operator without an entry in the operator table is
// where an unsupported model is rejected, naming the node.
//
// Shape arithmetic is folded as it goes. Shapes are static, so Shape and Size are
// constants even when their input is not, and so is everything computed from constants:
// exporters compute Reshape's shape, Slice's bounds or Resize's sizes from Shape
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape for a PyTorch `view`), and the
// shape functions that read those operands need their values. So right after its shape
// function, a node that can be computed now (can_fold: constant inputs, or only their
// shapes read, and no graph output written) is computed (fold_node) and leaves the
// graph, when its result is an integer or boolean tensor (indices, shapes, masks) or is
// computed from a folded value, or is anything but a quantization operator: a
// DequantizeLinear or QuantizeLinear of constants waits for fold_constants, after fold_qdq
// has matched its pattern (a DequantizeLinear of weights feeding a Conv). A Loop's trip
// count computed in float from constants (Range's expansion) must be known here.
//
// An operator may also replace itself by other nodes here (OpDef::expand): an If whose
// condition is now a constant becomes the nodes of the branch it takes, which are then
// inferred in its place. Control-flow operators infer their subgraphs from their shape
// functions (lowering/ops/onnx/control_flow.cc), with this pass.
//
// A node that stays (a kernel) may not have an output without elements: that is an error
// naming the node, not C with arrays of size 0.
#include <deque>
#include <set>

#include "aot/passes/graph_passes.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

// Whether a node that can_fold() is folded now rather than by fold_constants.
bool fold_while_inferring(const Node& node, const std::set<TensorId>& folded_here) {
  if (find_op(node.op)->reads_only_shapes) return true;
  for (TensorId in : node.inputs)
    if (folded_here.count(in)) return true;
  return node.op != "DequantizeLinear" && node.op != "QuantizeLinear";
}

}  // namespace

void infer_shapes(Graph& g) {
  std::set<TensorId> folded_here;  // tensors this pass computed
  std::vector<Node> kept;
  std::deque<Node> pending(std::make_move_iterator(g.nodes.begin()), std::make_move_iterator(g.nodes.end()));
  g.nodes.clear();
  while (!pending.empty()) {
    Node node = std::move(pending.front());
    pending.pop_front();
    const OpDef* def = find_op(node.op);
    if (!def) node_error(node, "operator '" + node.op + "' is not supported");
    for (TensorId in : node.inputs)
      if (in != kNoTensor && !g.tensor(in).shape_known)
        node_error(node, "input '" + g.tensor(in).name + "' is used before it is computed (nodes out of order?)");
    if (def->expand) {
      if (std::optional<std::vector<Node>> replaced = for_node(node, [&] { return def->expand(g, node); })) {
        pending.insert(pending.begin(), std::make_move_iterator(replaced->begin()), std::make_move_iterator(replaced->end()));
        continue;
      }
    }
    for_node(node, [&] { def->infer(g, node); });
    for (TensorId out : node.outputs)
      if (out != kNoTensor && !g.tensor(out).shape_known)
        node_error(node, "could not infer the shape of output '" + g.tensor(out).name + "'");
    if (can_fold(g, node) && fold_while_inferring(node, folded_here)) {
      for_node(node, [&] { fold_node(g, node); });
      for (TensorId out : node.outputs)
        if (out != kNoTensor) folded_here.insert(out);
      continue;
    }
    // A kernel must have something to compute: one with an output without elements (from
    // an empty constant operand, e.g. weights [0, 2]) would declare arrays of size 0, which
    // C99 has not. Values that fold above may be empty.
    for (TensorId out : node.outputs)
      if (out != kNoTensor && g.tensor(out).num_elements() == 0)
        node_error(node, "output '" + g.tensor(out).name + "' would have shape " + shape_str(g.tensor(out).shape) +
                             ", without elements; tensors without elements are not supported");
    kept.push_back(std::move(node));
  }
  g.nodes = std::move(kept);
  for (TensorId out : g.outputs)
    if (!g.tensor(out).shape_known) throw CompileError("graph output '" + g.tensor(out).name + "' is never computed");
}

}  // namespace aotc
