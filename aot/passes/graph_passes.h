// The graph passes, in the order the pipeline runs them. Each has its own file.
//
//   initialize_variables  runs a TFLite model's CALL_ONCE subgraphs (Graph::init_nodes) at
//                      compile time: their assignments become variables' initial values
//   infer_shapes       types and static shapes of every tensor, from the operator table
//   fold_qdq           DequantizeLinear -> Conv/MatMul/Gemm/Add -> QuantizeLinear patterns
//                      into integer kernels (before fold_constants dequantizes the weights)
//   fold_constants     nodes whose inputs are all constant become constants
//   fold_pad           a TFLite PAD of a quantized tensor with its zero point, read only by a
//                      VALID convolution, becomes the convolution's padding (no copy)
//   channels_last      convolutions compute channels-last (NHWC) where the target's kernels
//                      want it; transposes between them cancel
//   partition_external regions of operators the target's NPU runs become external
//                      functions (aot/graph/external.h); the rest stays on the CPU
//   fuse_operators     BatchNormalization into Conv; elementwise operators into the
//                      kernel that produces their input (bias, activation, chains)
//   remove_dead_nodes  nodes whose results nobody reads
//
// With `aotc run --dump-tensors`, expose_intermediates runs between fold_constants and
// fold_pad: the model's intermediate tensors become graph outputs (the layers an NPU
// runs then write theirs too).
#pragma once

#include <string>
#include <vector>

#include "aot/base/target_facts.h"
#include "aot/graph/graph.h"

namespace aotc {

void initialize_variables(Graph& g);
void infer_shapes(Graph& g);
void fold_qdq(Graph& g);
void fold_constants(Graph& g);
void fold_pad(Graph& g);
void partition_external(Graph& g, const TargetFacts& target);
void channels_last(Graph& g, const TargetFacts& target);
void fuse_operators(Graph& g);
void remove_dead_nodes(Graph& g);

// One output of one node of the model as imported, for --dump-tensors.
struct ModelTensor {
  TensorId tensor = kNoTensor;
  std::string node, op;   // the node that computes it
  int order = 0;          // the node's place in the model (a subgraph's nodes: their control-flow node's)
  int output_index = 0;   // which output of the node
  // The tensor's own quantization (TFLite), or a QuantizeLinear's constant scale and zero
  // point: what its integers mean, for a dump that holds them raw.
  Quantization quant;
  bool compile_time = false;  // fold_constants computed it: a constant of the compiled program
  std::string absent;     // why the compiled program never holds it ("" when it does)
};
// The outputs of every node of the imported graph, in model order (subgraphs' nodes after
// their control-flow node).
std::vector<ModelTensor> model_tensors(const Graph& g);
// Makes every tensor of `tensors` that a top-level node computes and another reads a graph
// output (appended after the model's own outputs) and returns those; fills in
// compile_time and absent for the others.
std::vector<TensorId> expose_intermediates(Graph& g, std::vector<ModelTensor>& tensors);

// Whether `node` can be computed at compile time: its inputs are constant (or it reads
// only their shapes), and it writes no graph output (which needs a kernel).
bool can_fold(const Graph& g, const Node& node);
// Computes the outputs of a node that can_fold(), by running its kernel in the IR
// interpreter, and makes them constants; the node is then no longer needed.
void fold_node(Graph& g, const Node& node);

}  // namespace aotc
