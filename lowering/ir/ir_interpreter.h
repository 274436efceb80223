// An interpreter for the loop IR.
//
// It runs a PrimFunc on memory the caller provides, with the arithmetic of the generated
// C (float32 operations rounded to float32, integer operations wrapped to their width).
// Constant folding uses it, so that compile-time evaluation of an operator is its
// lowering and nothing else; tests use it to check lowerings without a C compiler.
#pragma once

#include <vector>

#include "lowering/ir/ir.h"

namespace aotc::ir {

struct BufferBinding {
  Buffer param;
  void* data;  // row-major elements of param->dtype
};

// Runs `func`; returns its return value (0 on success). Throws std::runtime_error for
// IR it cannot evaluate.
int64_t interpret(const PrimFunc& func, const std::vector<BufferBinding>& bindings);

}  // namespace aotc::ir
