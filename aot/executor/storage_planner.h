// Where every tensor lives at run time: the caller's input and output buffers, const
// weights, or the statically planned activation arena.
//
// Views (Reshape, Flatten) share their source's bytes; a view chain that ends in a graph
// output is computed directly into the caller's output buffer. Kernels that allow it
// write their output over an input that dies there (elementwise operators, staged
// depthwise and 1x1 convolutions, residual additions fused into a convolution); each such
// merge is kept only if the arena does not grow. Then the arena is planned
// (aot/base/memory_planner.h).
//
// Control flow: the steps are in one order (an If's then steps, then its else steps), so
// the two branches' tensors are never live at the same step and share memory; a loop's
// steps repeat, so a tensor live before or after a loop and on some of its steps is live on
// all of them. Aliases from lowering (a branch's result in its If's output, a loop body's
// parameter in its carried buffer) work like views.
#pragma once

#include "aot/executor/compiled_model.h"

namespace aotc {

// Fills model.storage, model.copies and model.arena from model.graph, model.steps and model.aliases.
void plan_storage(CompiledModel& model);

// After plan_storage: the live range of every tensor planned in the arena, by the tensor
// whose storage it is. Steps are indices into model.steps; with io_in_arena, step steps.size() is
// the moment after the last kernel (copies to outputs, the application reading them).
std::map<TensorId, LiveRange> planned_live_ranges(const CompiledModel& model);

}  // namespace aotc
