// The graph passes, in the order the pipeline runs them. Each has its own file.
//
//   initialize_variables  runs a TFLite model's CALL_ONCE subgraphs (Graph::init_nodes) at
//                      compile time: their assignments become variables' initial values
//   infer_shapes       types and static shapes of every tensor, from the operator table
//   fold_qdq           DequantizeLinear -> Conv/MatMul/Gemm/Add -> QuantizeLinear patterns
//                      into integer kernels (before fold_constants dequantizes the weights)
//   fold_constants     nodes whose inputs are all constant become constants
//   partition_external regions of operators the target's NPU runs become external
//                      functions (aot/graph/external.h); the rest stays on the CPU
//   fuse_operators     BatchNormalization into Conv; elementwise operators into the
//                      kernel that produces their input (bias, activation, chains)
//   remove_dead_nodes  nodes whose results nobody reads
#pragma once

#include "aot/base/target_facts.h"
#include "aot/graph/graph.h"

namespace aotc {

void initialize_variables(Graph& g);
void infer_shapes(Graph& g);
void fold_qdq(Graph& g);
void fold_constants(Graph& g);
void partition_external(Graph& g, const TargetFacts& target);
void fuse_operators(Graph& g);
void remove_dead_nodes(Graph& g);

// Whether `node` can be computed at compile time: its inputs are constant (or it reads
// only their shapes), and it writes no graph output (which needs a kernel).
bool can_fold(const Graph& g, const Node& node);
// Computes the outputs of a node that can_fold(), by running its kernel in the IR
// interpreter, and makes them constants; the node is then no longer needed.
void fold_node(Graph& g, const Node& node);

}  // namespace aotc
