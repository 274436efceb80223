// Requantization with ONNX's rounding (runtime-c/aotc_quant_onnx.h): the compile-time
// multipliers, the IR calls, and their evaluation for the IR interpreter.
//
// ONNX's integer operators round the real result to nearest with ties to even. A
// float32 factor (x_scale * w_scale / y_scale, as both ONNX Runtime and the ONNX
// reference compute it) has a 24-bit significand, so it is exactly multiplier / 2^shift
// with a 31-bit multiplier; the run-time helper forms acc * multiplier exactly in 64 bits
// and rounds once. The result is then the correctly rounded real product, and integer
// kernels match ONNX's definition bit for bit, ties included.
//
// The interpreter evaluates these calls with the very C functions the generated code
// calls, so constant folding, unit tests and the generated C cannot disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lowering/ir/ir.h"

namespace aotc {

// factor == multiplier / 2^shift, with 0 <= multiplier < 2^31 and 0 <= shift <= 62.
struct ExactMultiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;
};

// The exact (multiplier, shift) of a float32 factor in [0, 2^31). A factor too small for
// shift 62 becomes 0, which changes nothing: acc * factor then rounds to 0 for every
// int32 acc. Throws CompileError for a negative, non-finite or too large factor.
ExactMultiplier exact_multiplier(float factor);

// Two factors over one common shift, for aotc_onnx_requantize_sum. Exact when the
// factors are within 2^7 of each other (more when their significands end in zeros);
// otherwise the smaller one is rounded to the common shift, an error below 2^-31 of
// the larger.
struct CommonShiftMultipliers {
  int32_t a_multiplier = 0, b_multiplier = 0, shift = 0;
};
CommonShiftMultipliers common_shift_multipliers(float a_factor, float b_factor);

// Host versions of the runtime functions, for tests.
int32_t onnx_requantize(int32_t acc, int32_t multiplier, int32_t shift);
int32_t onnx_requantize_sum(int32_t a, int32_t a_multiplier, int32_t b, int32_t b_multiplier, int32_t shift);

namespace ir {
// aotc_onnx_requantize(acc, multiplier, shift) as an int32 IR call.
Expr onnx_requantize(Expr acc, Expr multiplier, Expr shift);
// aotc_onnx_requantize_sum(a, a_multiplier, b, b_multiplier, shift) as an int32 IR call.
Expr onnx_requantize_sum(Expr a, Expr a_multiplier, Expr b, Expr b_multiplier, Expr shift);
}  // namespace ir

// For the interpreter: if `name` is one of the calls above, stores its value for `args`
// in *result and returns true; returns false for any other name.
bool evaluate_onnx_quant_call(const std::string& name, const std::vector<int32_t>& args, int32_t* result);

}  // namespace aotc
