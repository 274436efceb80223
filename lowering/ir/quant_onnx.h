// Requantization with ONNX's rounding (runtime-c/aotc_quant_onnx.h): the compile-time
// multipliers. (The IR calls of the runtime's functions are in runtime_calls.h.)
//
// ONNX's integer operators round the real result to nearest with ties to even. A
// float32 factor (x_scale * w_scale / y_scale, as both ONNX Runtime and the ONNX
// reference compute it) has a 24-bit significand, so it is exactly multiplier / 2^shift
// with a 31-bit multiplier; the run-time helper forms acc * multiplier exactly in 64 bits
// and rounds once. The result is then the correctly rounded real product, and integer
// kernels match ONNX's definition bit for bit, ties included.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>


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

// The compile-time constants of aotc_onnx_requantize_high (and _s8) for a factor, when it
// has that form (factors below 1/4, with a shift of at most 61: the multiplier and shift
// widened to a shift of 32 where it was less): the multiplier, 2^(s-1) - 1 as two words,
// and s - 32.
struct HighWordRequantization {
  int32_t multiplier = 0, rounding_high = 0, rounding_low = 0, high_shift = 0;
};
std::optional<HighWordRequantization> high_word_requantization(ExactMultiplier m);

// Two factors over one common shift, for aotc_onnx_requantize_sum. Exact when the
// factors are within 2^7 of each other (more when their significands end in zeros);
// otherwise the smaller one is rounded to the common shift, an error below 2^-31 of
// the larger.
struct CommonShiftMultipliers {
  int32_t a_multiplier = 0, b_multiplier = 0, shift = 0;
};
CommonShiftMultipliers common_shift_multipliers(float a_factor, float b_factor);

}  // namespace aotc
