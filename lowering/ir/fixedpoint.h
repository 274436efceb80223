// The gemmlowp-style fixed-point functions of runtime-c/aotc_quant_softmax.h (exp and
// reciprocal in Q-format integers, as TFLite's int8 softmax computes them) as IR calls,
// and their evaluation for the IR interpreter.
//
// The interpreter evaluates these calls with the very C functions the generated code
// calls (the header is plain C99 that also compiles as C++), so constant folding, unit
// tests and the generated C cannot disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lowering/ir/ir.h"

namespace aotc {

namespace ir {
// exp(a) in Q0.31 for an int32 `a` <= 0 in Q5.26.
Expr exp_on_negative_values_q5_26(Expr a);
// Leading zero bits of an int32 read as uint32 (32 for 0).
Expr count_leading_zeros(Expr x);
// For x > 0: 1/m in Q0.31, m in [1, 2) being x shifted left by count_leading_zeros(x).
Expr get_reciprocal(Expr x);
}  // namespace ir

// For the interpreter: if `name` is one of the calls above, stores its value for `args`
// in *result and returns true; returns false for any other name.
bool evaluate_fixedpoint_call(const std::string& name, const std::vector<int32_t>& args, int32_t* result);

}  // namespace aotc
