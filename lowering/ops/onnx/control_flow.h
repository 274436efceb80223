// Control flow: ONNX If, Loop and Scan (and TFLite IF and WHILE, which the importer maps
// onto them). Their shape functions infer their subgraphs with infer_shapes, each
// parameter's shape set from the operator's inputs; an If whose condition is a constant
// is replaced by the branch it takes. They have no kernel of their own: the driver
// lowers them to steps around their subgraphs' kernels (aot/driver/lower_graph.h), a
// branch to an `if` in the generated C, a loop to a `for`.
//
// What a loop does, as the driver and the memory planner need it, is `loop_facts`.
#pragma once

#include <cstdint>
#include <vector>

#include "aot/graph/graph.h"

namespace aotc {

// Of a Loop node: the most iterations it may run, given by `--max-trip NODE=N` when its
// trip count or condition is computed at run time.
constexpr const char* kMaxTripAttr = "control.max_trip";
// Of a Loop node without a trip count whose condition follows from constants: how many
// iterations it runs (loop_trip_count.h), set by its shape function, which then also
// makes the body's condition output the constant true (so the nodes computing it die).
constexpr const char* kCountedTripsAttr = "control.counted_trips";

struct LoopFacts {
  int64_t max_trips = 0;          // iterations at most; exactly, when `exact`
  bool exact = false;             // every one of max_trips iterations runs, whatever the inputs
  bool bound_by_option = false;   // max_trips is --max-trip's, not the model's own trip count
  TensorId trip_count = kNoTensor;  // Loop: M when it is computed at run time
  TensorId condition = kNoTensor;   // Loop: the initial condition when it is computed at run time
  bool body_decides = false;      // Loop: the body computes the next condition (early exit)
  size_t carried = 0;             // loop-carried values (Loop: v_initial...; Scan: state)
  size_t scan_inputs = 0;         // Scan: inputs sliced one step at a time
  size_t scan_outputs = 0;        // outputs assembled one slice per iteration
  // Scan: for each scan input and output, the axis it is sliced along and whether in
  // reverse (last slice first). Loop: scan outputs are stacked along axis 0, forward.
  std::vector<int64_t> input_axes, output_axes;
  std::vector<bool> input_reverse, output_reverse;
};

// Reads a Loop or Scan node (after its shape function ran). CompileError naming the node
// for a trip count that has no bound.
LoopFacts loop_facts(const Graph& g, const Node& node);

// The subgraph of `node` that came from attribute `name`; node_error when it has none.
const Subgraph& subgraph(const Node& node, const std::string& name);
Subgraph& mutable_subgraph(Node& node, const std::string& name);

// The values of outer scopes that `node`'s subgraphs read: its inputs after the declared ones.
std::vector<TensorId> captured_inputs(const Node& node);

}  // namespace aotc
