// TFLite's fixed-point arithmetic written out for the tests' oracles, independently of
// aotc's runtime (runtime-c/aotc_quant*.h): from TFLite's common.h and quantization_util.cc,
// gemmlowp's fixedpoint.h and reference_integer_ops. Tests compare what aotc's kernels
// compute with loops written from TFLite Micro's kernels on top of these.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace aotc::test {

// gemmlowp's SaturatingRoundingDoublingHighMul.
inline int32_t srdhm(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// gemmlowp's RoundingDivideByPOT.
inline int32_t rdbpot(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// TFLite's MultiplyByQuantizedMultiplier (the default, double-rounding one).
inline int32_t mbqm(int32_t x, int32_t multiplier, int shift) {
  int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return rdbpot(srdhm(static_cast<int32_t>(static_cast<uint32_t>(x) << left), multiplier), right);
}

// TFLite's QuantizeMultiplier.
struct Multiplier {
  int32_t multiplier = 0;
  int shift = 0;
};
inline Multiplier quantize(double real) {
  Multiplier m;
  if (real == 0) return m;
  double q = std::frexp(real, &m.shift);
  int64_t fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) fixed /= 2, ++m.shift;
  if (m.shift < -31) m.shift = 0, fixed = 0;
  m.multiplier = static_cast<int32_t>(fixed);
  return m;
}

// TFLite's 64-bit MultiplyByQuantizedMultiplier (its 16x8 kernels, int64 sums): the
// multiplier rounded to 16 bits, one rounding shift of the product.
inline int32_t mbqm(int64_t x, int32_t multiplier, int shift) {
  const int32_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - shift;
  const int64_t round = int64_t{1} << (total_shift - 1);
  return static_cast<int32_t>((x * reduced + round) >> total_shift);
}

inline int32_t clamp_to(int32_t v, int32_t lo, int32_t hi) { return std::min(hi, std::max(lo, v)); }

template <typename T>
inline T saturate(int32_t v) {
  return static_cast<T>(clamp_to(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// A tensor's per-tensor quantization, as TFLite stores it (a float scale).
struct QParams {
  float scale;
  int32_t zero_point;
};

// CalculateActivationRangeQuantized for RELU (min at the zero point) or none, on int8.
inline int32_t relu_min_s8(bool relu, QParams q) { return relu ? std::max(-128, q.zero_point) : -128; }

// reference_integer_ops AddFunc / SubFunc on int8 with CalculateOpDataAdd's multipliers
// (add_common.cc, sub_common.cc): both inputs centred, shifted left by 20, brought to
// twice the larger input scale, summed, requantized, offset and clamped.
inline int8_t add_sub_s8(int8_t a, int8_t b, QParams qa, QParams qb, QParams qy, bool subtract,
                         int32_t act_min = -128, int32_t act_max = 127) {
  const int left_shift = 20;
  const double twice_max = 2 * static_cast<double>(std::max(qa.scale, qb.scale));
  const Multiplier ma = quantize(static_cast<double>(qa.scale) / twice_max);
  const Multiplier mb = quantize(static_cast<double>(qb.scale) / twice_max);
  const Multiplier my = quantize(twice_max / ((1 << left_shift) * static_cast<double>(qy.scale)));
  const int32_t sa = mbqm((a - qa.zero_point) * (1 << left_shift), ma.multiplier, ma.shift);
  const int32_t sb = mbqm((b - qb.zero_point) * (1 << left_shift), mb.multiplier, mb.shift);
  const int32_t raw = mbqm(subtract ? sa - sb : sa + sb, my.multiplier, my.shift) + qy.zero_point;
  return static_cast<int8_t>(clamp_to(raw, act_min, act_max));
}

// reference_integer_ops MulElementwise on int8 with mul_common.cc's multiplier
// (input scales' product over the output scale, in double from the float scales).
inline int8_t mul_s8(int8_t a, int8_t b, QParams qa, QParams qb, QParams qy, int32_t act_min = -128,
                     int32_t act_max = 127) {
  const Multiplier m = quantize(static_cast<double>(qa.scale) * static_cast<double>(qb.scale) /
                                static_cast<double>(qy.scale));
  const int32_t raw = mbqm((a - qa.zero_point) * (b - qb.zero_point), m.multiplier, m.shift) + qy.zero_point;
  return static_cast<int8_t>(clamp_to(raw, act_min, act_max));
}

// ReluQuantized<int8_t> with CalculateReluOpData (activations_common.cc): x - input zero
// point requantized by input / output scale (divided in float, as TFLite Micro does),
// offset, clamped to [output zero point, 127].
inline int8_t relu_s8(int8_t x, QParams qx, QParams qy) {
  const Multiplier m = quantize(static_cast<double>(qx.scale / qy.scale));
  return static_cast<int8_t>(clamp_to(mbqm(x - qx.zero_point, m.multiplier, m.shift) + qy.zero_point,
                                      std::max(-128, qy.zero_point), 127));
}

// TFLite's sigmoid_table_uint16 (tensorflow/lite/kernels/internal/common.h): sigmoid(i / 24)
// in steps of 2^-16, as TFLite has it (its entries are within 1.11 steps of the real value,
// not rounded to nearest, so they are copied rather than computed).
inline const uint16_t kSigmoidTable[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

// TFLite's CheckedLog2.
inline bool checked_log2(float x, int* log2) {
  const float x_log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(x_log2);
  *log2 = static_cast<int>(rounded);
  return std::abs(x_log2 - rounded) < 1e-3f;
}

// reference_integer_ops::Logistic and Tanh on int16, one element, with (input_multiplier,
// input_left_shift) as TFLite passes them: a multiplier of 0 means 3 << shift.
inline int16_t int16_logistic_or_tanh(int16_t x, Multiplier m, bool tanh) {
  int32_t multiplier = m.multiplier, shift = m.shift;
  if (multiplier == 0) {  // power of two case
    multiplier = 3 << shift;
    shift = 0;
  }
  int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
  int32_t input = (x * multiplier + round) >> shift;
  uint32_t abs_input = static_cast<uint32_t>(std::abs(input));
  if (!tanh) {
    uint32_t uh = abs_input >> 9, result;
    if (uh >= 255) {
      result = 0x7FFF << 10;
    } else {
      uint32_t ua = kSigmoidTable[uh], ub = kSigmoidTable[uh + 1], ut = abs_input & 0x1ff;
      result = (ua << 9) + ut * (ub - ua);
    }
    result = input >= 0 ? (result + (1 << 9)) : ((1 << (16 + 9)) - result + (1 << 9) - 1);
    return static_cast<int16_t>(result >> 10);
  }
  uint32_t uh = abs_input >> 8;
  int32_t result;
  if (uh >= 255) {
    result = 0xFFFF << 8;
  } else {
    uint32_t ua = kSigmoidTable[uh], ub = kSigmoidTable[uh + 1];
    uint8_t ut = abs_input & 0xFF;
    result = static_cast<int32_t>((ua << 8) + ut * (ub - ua));
  }
  result = input >= 0 ? (result - (1 << (14 + 9)) + (1 << (9 - 2))) : (-result + (1 << (14 + 9)) + (1 << (9 - 2)) - 1);
  return static_cast<int16_t>(result >> (9 - 1));
}

}  // namespace aotc::test
