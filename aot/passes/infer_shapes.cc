// infer_shapes: asks each operator's shape function for the type and shape of its
// outputs, in execution order. An operator without an entry in the operator table is
// where an unsupported model is rejected, naming the node.
#include "aot/passes/graph_passes.h"
#include "aot/graph/op_registry.h"

namespace aotc {

void infer_shapes(Graph& g) {
  for (Node& node : g.nodes) {
    const OpDef* def = find_op(node.op);
    if (!def) node_error(node, "operator '" + node.op + "' is not supported");
    for (TensorId in : node.inputs)
      if (in != kNoTensor && !g.tensor(in).shape_known)
        node_error(node, "input '" + g.tensor(in).name + "' is used before it is computed (nodes out of order?)");
    def->infer(g, node);
    for (TensorId out : node.outputs)
      if (out != kNoTensor && !g.tensor(out).shape_known)
        node_error(node, "could not infer the shape of output '" + g.tensor(out).name + "'");
  }
  for (TensorId out : g.outputs)
    if (!g.tensor(out).shape_known) throw CompileError("graph output '" + g.tensor(out).name + "' is never computed");
}

}  // namespace aotc
