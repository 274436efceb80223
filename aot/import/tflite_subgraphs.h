// TFLite models with more than one subgraph, placed into one Graph: IF and WHILE become
// aotc's If and Loop (lowering/ops/onnx/control_flow.h), CALL_ONCE is evaluated at compile
// time, and resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) become
// variable tensors.
//
// The importer (tflite_importer.cc) reads every subgraph that subgraph 0 reaches as it is
// in the file, with the file's tensor indices (ImportedSubgraph); place_subgraphs()
// builds the Graph from them:
//   - Subgraph 0's tensors keep their indices (TensorId i = TFLite tensor i), and its
//     inputs and outputs are the graph's.
//   - IF becomes an If whose branches are copies of the then and else subgraphs, each
//     parameter replaced by the IF's operand (a branch reads it in place, as values of an
//     enclosing scope).
//   - WHILE becomes a Loop without a trip count (`--max-trip NAME=N` bounds it): its body
//     is a copy of the body subgraph followed by a copy of the cond subgraph on the
//     body's results; the condition before the first iteration is a copy of the cond
//     subgraph on the WHILE's operands, placed just before the Loop.
//   - A subgraph run from several places is copied into each: the generated C has no
//     calls between subgraphs, hence no recursion. A subgraph that runs itself, directly
//     or not, is an error, as is a model whose copies would exceed kMostPlacedNodes
//     operators or kMostPlacedTensors tensors.
//   - A resource variable (one per container and shared_name) is a variable tensor, kept
//     from one <name>_run to the next. READ_VARIABLE gives its value at that point of the
//     run: its value from the last run, or what an earlier ASSIGN_VARIABLE of this run
//     assigned. The last value assigned becomes the variable's value at the end of the
//     run (a state update, as with --state). Assignments may be made in subgraph 0 and in
//     CALL_ONCE's subgraphs; one inside an IF or a WHILE is an error naming the operator.
//   - CALL_ONCE's subgraph has no inputs and sees only constants and the variables that
//     CALL_ONCEs assign, so aotc runs it at compile time (TFLite runs it in the first
//     Invoke): its nodes go to Graph::init_nodes, what it assigns to
//     Graph::init_assignments, and the pass initialize_variables makes those values the
//     variables' initial values, which <name>_reset restores. No initialisation code runs
//     on the device. A variable that no CALL_ONCE assigns starts at zero.
// Messages name the subgraph and the operator ("subgraph 2 (body), operator 1
// (tfl.ASSIGN_VARIABLE): ...").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aot/graph/graph.h"

namespace aotc::tflite_import {

// One subgraph of the file as read: tensors, inputs, outputs and nodes use the file's
// tensor indices within the subgraph (kNoTensor for an omitted operand). Resource
// tensors (VAR_HANDLE's handles) are listed in `resources` and have no type in `tensors`.
struct ImportedSubgraph {
  std::string name;
  std::vector<Tensor> tensors;
  std::vector<bool> resources;  // per tensor
  std::vector<TensorId> inputs, outputs;
  std::vector<Node> nodes;  // in execution order (checked by the importer)
  // Per tensor: its shape_signature when that marks a dimension -1 (its `shape` holds
  // only the converter's placeholder there), else empty.
  std::vector<std::vector<int64_t>> dynamic_signatures;
};

// The most nodes copies of subgraphs may add up to: a few subgraphs that each run the
// next twice would otherwise make a file of kilobytes into billions of nodes.
constexpr size_t kMostPlacedNodes = 100000;
constexpr size_t kMostPlacedTensors = 1000000;

// Builds the Graph of subgraph 0. `subgraphs[k]` is TFLite subgraph k, or nullopt when
// subgraph 0 does not reach it. Throws CompileError.
Graph place_subgraphs(const std::vector<std::optional<ImportedSubgraph>>& subgraphs);

}  // namespace aotc::tflite_import
