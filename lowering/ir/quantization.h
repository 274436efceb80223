// Compile-time side of TFLite's quantized arithmetic: turning real scale factors into the
// (multiplier, shift) pairs that runtime-c/aotc_quant.h applies (see runtime_calls.h for
// the IR calls of those functions), and activation clamps in the quantized domain.
//
// Everything follows TensorFlow Lite's reference kernels, because the goal is output
// identical to TensorFlow Lite Micro: scales are combined in double precision from the
// float scales stored in the model, then split into a Q31 multiplier and an exponent.
#pragma once

#include <cstdint>
#include <string>


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

}  // namespace aotc
