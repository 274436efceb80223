// Compile-time side of quantized arithmetic: turning real scale factors into the
// (multiplier, shift) pairs that runtime-c/aotc_quant.h applies, activation clamps in
// the quantized domain, and IR builders for the runtime functions.
//
// Everything follows TensorFlow Lite's reference kernels, because the goal is output
// identical to TensorFlow Lite Micro: scales are combined in double precision from the
// float scales stored in the model, then split into a Q31 multiplier and an exponent.
#pragma once

#include <cstdint>
#include <string>

#include "lowering/ir/ir.h"

namespace aotc {

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // Q31, in [2^30, 2^31) unless zero
  int32_t shift = 0;       // power of two applied with it (positive = left)
};

// real = multiplier * 2^shift / 2^31, rounded as TFLite's QuantizeMultiplier does.
QuantizedMultiplier quantize_multiplier(double real);

// The int range [min, max] that a fused activation allows in a quantized tensor with
// (scale, zero_point), intersected with the type's range [type_min, type_max].
// `activation` is "NONE", "RELU", "RELU6" or "RELU_N1_TO_1".
struct QuantizedRange {
  int32_t min, max;
};
QuantizedRange quantized_activation_range(const std::string& activation, double scale, int64_t zero_point,
                                          int32_t type_min, int32_t type_max);

// Host versions of the runtime functions, for the IR interpreter and for tests.
int32_t sat_rounding_doubling_high_mul(int32_t a, int32_t b);
int32_t rounding_divide_by_pot(int32_t x, int32_t exponent);
int32_t mul_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift);

namespace ir {
// aotc_mul_by_quantized_multiplier(x, multiplier, shift) as an int32 IR call.
Expr mul_by_quantized_multiplier(Expr x, Expr multiplier, Expr shift);
Expr rounding_divide_by_pot(Expr x, Expr exponent);
Expr sat_rounding_doubling_high_mul(Expr a, Expr b);
}  // namespace ir

}  // namespace aotc
