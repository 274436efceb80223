// LowerBuiltin: decides where every temporary buffer of a kernel lives.
//
// An Allocate becomes a C stack array when its scope allows the stack ("global",
// "global.stack") and its constant byte size is at most the target's
// max_stack_alloca_size. Otherwise ("global" too large, or "global.workspace") it becomes
// a call to the model's LIFO workspace allocator whose NULL result is checked: the kernel
// then frees what it already holds, innermost first, and returns
// AOTC_ERR_WORKSPACE_EXHAUSTED. Blocks are freed in LIFO order at the end of their scope.
// A "global.stack" buffer larger than the limit is a compile error naming the buffer:
// the user asked for the stack and the target cannot give it.
//
// Microcontroller targets set the limit to 0, so their stacks hold only "local" scalars
// and every array is counted in the workspace size that the header reports. Which way
// the pass decides never changes the kernel's results.
#pragma once

#include <cstdint>

#include "lowering/ir/ir.h"
#include "aot/base/target_facts.h"

namespace aotc::ir {

Stmt lower_builtin(Stmt body, const TargetFacts& target);

// Memory a lowered kernel needs besides its parameters.
struct KernelMemory {
  int64_t stack_bytes = 0;      // deepest nesting of stack arrays and locals
  int64_t workspace_bytes = 0;  // deepest nesting of workspace blocks (TargetFacts::workspace_block_bytes each)
};

// Measures a body that has been through lower_builtin; each workspace block counts what
// it takes from the runtime's LIFO allocator on `target` (header and alignment included).
KernelMemory measure_kernel_memory(const Stmt& body, const TargetFacts& target);

}  // namespace aotc::ir
