// fold_constants: a node whose inputs are all constant is computed at compile time.
//
// Views (Reshape, Flatten, Dropout, Identity) of a constant are the same bytes with a new
// shape. Other operators are evaluated by running their lowered kernel in the IR
// interpreter, so every operator that can be lowered can also be folded, with the same
// semantics as the generated C.
#include "aot/passes/graph_passes.h"
#include "lowering/ir/ir_interpreter.h"
#include "aot/graph/op_registry.h"

namespace aotc {

void fold_constants(Graph& g) {
  std::vector<Node> kept;
  for (Node& node : g.nodes) {
    bool all_constant = !node.inputs.empty();
    for (TensorId in : node.inputs) all_constant &= in == kNoTensor || g.tensor(in).is_constant();
    bool single_output = node.outputs.size() == 1 || (node.outputs.size() > 1 && node.outputs[1] == kNoTensor);
    if (!all_constant || !single_output || g.is_graph_output(node.outputs[0])) {
      kept.push_back(std::move(node));
      continue;
    }
    const OpDef* def = find_op(node.op);
    Tensor& out = g.tensor(node.outputs[0]);
    if (def->is_view) {
      out.data = g.tensor(node.inputs[0]).data;
    } else {
      // Any kernel variant computes the same values (see ir_interpreter.h): the host's will do.
      LoweredOp lowered = def->lower(LowerContext{g, node, "fold", TargetFacts{}});
      out.data = std::vector<uint8_t>(static_cast<size_t>(out.size_bytes()));
      std::vector<ir::BufferBinding> bindings;
      for (size_t i = 0; i < lowered.args.size(); ++i) {
        Tensor& t = g.tensor(lowered.args[i]);
        bindings.push_back({lowered.func.params[i], t.data->data()});
      }
      ir::interpret(lowered.func, bindings);
    }
  }
  g.nodes = std::move(kept);
}

}  // namespace aotc
