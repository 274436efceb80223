// Text form of the loop IR, for `aotc --print-after` and for tests that compare IR.
//
// The format is stable and line-oriented: one statement per line, two-space indent,
// every binary operation parenthesized so that nothing depends on precedence.
//   func relu_0(X: float32[1, 4], Y: float32[1, 4]) {
//     for (i0, 0, 1) {
//       for (i1, 0, 4) {
//         Y[i0, i1] = max(X[i0, i1], 0f)
//       }
//     }
//   }
#pragma once

#include <string>

#include "lowering/ir/ir.h"

namespace aotc::ir {

std::string to_string(const Expr& e);
std::string to_string(const Stmt& s, int indent = 0);
std::string to_string(const PrimFunc& f);

// Shortest decimal text that reads back as the same value in `t` (float32 or float64),
// without a type suffix; "inf", "-inf" and "nan" for the special values.
std::string float_literal(double v, DataType t);

}  // namespace aotc::ir
