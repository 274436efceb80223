// HoistAllocations: a kernel's temporary buffers are allocated once per call, not once per
// loop iteration.
//
// Lowerings write a temporary where it is used: a staged depthwise convolution allocates
// its channel plane inside `for n, oc`, a staged 1x1 convolution its pixel inside the
// pixel loops. LowerBuiltin would turn each into a workspace allocation that is made,
// checked and freed again in every iteration. Buffer shapes are compile-time constants in
// this IR, so such an Allocate has the same size in every iteration; this pass moves it
// out of the For loops around it, as far out as it may go, and every iteration reuses the
// one buffer. That changes no result: an Allocate's memory starts undefined, so no kernel
// reads what an earlier iteration left in it before writing it.
//
// Moving an Allocate out of a loop makes it live during the whole loop body, so hoisting
// must not put it beside another buffer that is today live at another time: that would
// raise the kernel's peak memory (measure_kernel_memory). An Allocate is therefore taken
// out of a For only when it is the loop's body or one statement of the body's Seq and no
// other statement of the body allocates anything, of any scope, at any depth. Allocates
// nested in it stay nested in it and come along; those under an If, a Let or an
// AllocateConst within the body stay where they are (an If might not allocate at all).
// Only the scopes LowerBuiltin places ("global", "global.workspace", "global.stack") move;
// "local" scalars are the C compiler's business.
//
// Runs after Simplify and before LowerBuiltin, which then makes one allocator call per
// hoisted buffer.
#pragma once

#include "lowering/ir/ir.h"

namespace aotc::ir {

Stmt hoist_allocations(Stmt body);

}  // namespace aotc::ir
