// Simplify: folds integer constants and removes trivial structure from lowered kernels.
//
// Lowering writes index arithmetic the way the operator is defined (`oh * 1 + kh - 0`);
// this pass turns it into what a person would write (`oh + kh`), drops loops of extent 1
// by substituting their start value, and removes branches whose condition is constant,
// then the constant tables and Let values nothing reads any more. Float arithmetic is only
// simplified where the result is bit-identical (x * 1.0f).
#pragma once

#include "lowering/ir/ir.h"

namespace aotc::ir {

Expr simplify(const Expr& e);
Stmt simplify(const Stmt& s);

}  // namespace aotc::ir
