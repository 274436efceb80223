// Lowering, the pipeline's step 3: one kernel per (fused) node, and for control flow the
// steps around the kernels of its subgraphs.
//
// An If becomes kIf, the then branch's steps, kElse, the else branch's, kEndIf. A
// branch's result is computed straight into the If's output when a kernel of the branch
// makes it (an alias); otherwise (a value from outside, a constant, a view) it is copied
// there at the end of the branch.
//
// A Loop or Scan becomes: a copy of each loop-carried initial value into the loop's
// output for it, which serves as the value's buffer through the loop (the body's
// parameter is an alias of it); kLoop; the iteration number stored if the body reads it;
// for a Scan, each scan input's slice copied out; the body's steps; each scan output's
// slice copied into place; each new carried value copied back into its buffer (through a
// temporary when it is another carried value, so that a swap reads old values); kEndLoop.
#pragma once

#include "aot/executor/compiled_model.h"

namespace aotc {

// With --state (Graph::state_updates), each state's next value is copied into it after the
// last step, and leaves the graph's outputs.
//
// Fills model.steps and model.aliases from model.graph (which may gain tensors: loop
// condition buffers, temporaries).
void lower_graph(CompiledModel& model);

}  // namespace aotc
