// A lowered operator: the kernel an operator's lowering builds and the graph tensors bound
// to its parameters. Apart from the operator table (op_registry.h), which names it only in
// the type of OpDef::lower, so that the table needs no loop-IR types: what builds or reads
// a lowering includes this.
#pragma once

#include <vector>

#include "aot/graph/graph.h"
#include "lowering/ir/ir.h"

namespace aotc {

struct LoweredOp {
  ir::PrimFunc func;
  std::vector<TensorId> args;  // args[i] is passed as func.params[i]
  // Inputs whose memory the output may take, if nothing later reads them: the kernel
  // reads element i of such an input before it writes element i of the output (or
  // stages what it overwrites). The memory planner decides whether to use it.
  std::vector<TensorId> in_place_inputs;
  // An input the output may overlap from below (the memory planner's overlap,
  // memory_planner.h): the output may begin `distance` bytes or more before the input,
  // because the kernel writes no output byte over input bytes it has yet to read
  // (lowering/compute/output_overlap.h). kNoTensor for none.
  TensorId overlap_input = kNoTensor;
  int64_t overlap_distance = 0;
  // The output may begin exactly where overlap_input begins, and nowhere else over it
  // (a kernel that works channel plane by channel plane; overlap_distance is 0).
  bool overlap_at_start = false;
};

}  // namespace aotc
