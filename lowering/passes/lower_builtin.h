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
//
// What a workspace block costs: measure_kernel_memory counts each block of n bytes as
// TargetFacts::workspace_block_bytes(n) =
//   align_up(2 * word_size / 8, workspace_alignment) + align_up(n, workspace_alignment),
// the runtime's block header (two size_t) and the payload, each padded to the target's
// workspace_alignment. That is AOTC_WORKSPACE_BLOCK_BYTES(n) of runtime-c/aotc_runtime.h
// exactly when the runtime is built with AOTC_WORKSPACE_ALIGNMENT equal to the target's
// workspace_alignment on a machine whose size_t has word_size bits; the executor plans
// that many bytes per kernel and nothing more. The alignment reaches the runtime through
// the copy of aotc_runtime.h that `aotc compile` writes, whose default is the target's
// (an explicit -DAOTC_WORKSPACE_ALIGNMENT overrides it), and the generated <name>.c stops
// the build with #error when the header it includes has another alignment or header size,
// and fails to link against an aotc_runtime.c built with another alignment.
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

// Measures a body that has been through lower_builtin: the largest total of stack arrays,
// and of workspace blocks (TargetFacts::workspace_block_bytes each, as above), nested
// inside one another anywhere in the body, whether or not that point is reached at run time.
KernelMemory measure_kernel_memory(const Stmt& body, const TargetFacts& target);

}  // namespace aotc::ir
