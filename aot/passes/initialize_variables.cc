// initialize_variables: a TFLite model's CALL_ONCE subgraphs, run at compile time.
//
// TFLite runs CALL_ONCE's subgraph in the first Invoke, typically to give resource
// variables their starting values. It takes no inputs, so everything it computes follows
// from constants: aotc computes it here, in the IR interpreter (fold_constants), and the
// values assigned become the variables' initial values (Tensor::initial_value), in the
// generated C a static initializer that <name>_reset copies back. The device runs no
// initialisation code and needs no "has it run yet" flag. (The importer puts the nodes in
// Graph::init_nodes; see aot/import/tflite_subgraphs.h.)
#include "aot/passes/graph_passes.h"

namespace aotc {

void initialize_variables(Graph& g) {
  if (g.init_nodes.empty() && g.init_assignments.empty()) return;
  Graph init;
  init.source_format = g.source_format;
  init.opset = g.opset;
  init.tensors = g.tensors;
  init.nodes = g.init_nodes;
  const std::string what = "the model's initialisation (TFLite CALL_ONCE), which aotc runs at compile time: ";
  try {
    infer_shapes(init);
    fold_constants(init);
  } catch (const CompileError& e) {
    throw CompileError(what + e.what());
  }
  for (auto [variable, value] : g.init_assignments) {
    const Tensor& v = init.tensor(value);
    Tensor& target = g.tensor(variable);
    if (!v.is_constant())
      throw CompileError(what + "the value it assigns to variable '" + target.name + "' ('" + v.name +
                         "') does not follow from constants alone");
    if (v.dtype != target.dtype || v.num_elements() != target.num_elements())
      throw CompileError(what + "variable '" + target.name + "' is " + target.dtype.str() + shape_str(target.shape) +
                         " but is assigned " + v.dtype.str() + shape_str(v.shape));
    target.initial_value = *v.data;
  }
  g.init_nodes.clear();
  g.init_assignments.clear();
}

}  // namespace aotc
