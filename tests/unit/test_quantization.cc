// Requantization helpers: the compile-time multiplier and the runtime fixed-point
// functions, checked against exact integer arithmetic and on the edge cases (INT32_MIN,
// negative shifts, ties).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "aot/base/errors.h"
#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"

namespace aotc {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

// Exact reference: n / d rounded to nearest, ties away from zero (d > 0).
__int128 divide_round_half_away(__int128 n, __int128 d) {
  __int128 q = n / d, r = n % d;  // truncating
  if (2 * (r < 0 ? -r : r) >= d) q += n < 0 ? -1 : 1;
  return q;
}

int32_t reference_high_mul(int32_t a, int32_t b) {
  __int128 v = divide_round_half_away(static_cast<__int128>(a) * b, static_cast<__int128>(1) << 31);
  return v > kMax ? kMax : static_cast<int32_t>(v);
}

int32_t reference_divide_by_pot(int32_t x, int e) { return static_cast<int32_t>(divide_round_half_away(x, static_cast<__int128>(1) << e)); }

TEST(Requantize, HighMulSaturatesOnlyMinTimesMin) {
  EXPECT_EQ(aotc_sat_rounding_doubling_high_mul(kMin, kMin), kMax);
  EXPECT_EQ(aotc_sat_rounding_doubling_high_mul(kMin, kMin), kMax);
  EXPECT_EQ(aotc_sat_rounding_doubling_high_mul(kMin, kMax), reference_high_mul(kMin, kMax));
  EXPECT_EQ(aotc_sat_rounding_doubling_high_mul(kMax, kMax), reference_high_mul(kMax, kMax));
  EXPECT_EQ(aotc_sat_rounding_doubling_high_mul(kMin, 1 << 30), kMin / 2);
}

TEST(Requantize, DivideByPowerOfTwoRoundsTiesAwayFromZero) {
  EXPECT_EQ(aotc_rounding_divide_by_pot(3, 1), 2);    // 1.5
  EXPECT_EQ(aotc_rounding_divide_by_pot(-3, 1), -2);  // -1.5
  EXPECT_EQ(aotc_rounding_divide_by_pot(5, 2), 1);    // 1.25
  EXPECT_EQ(aotc_rounding_divide_by_pot(-5, 2), -1);  // -1.25
  EXPECT_EQ(aotc_rounding_divide_by_pot(-6, 2), -2);  // -1.5
  EXPECT_EQ(aotc_rounding_divide_by_pot(kMin, 31), -1);
  EXPECT_EQ(aotc_rounding_divide_by_pot(kMax, 31), 1);
  EXPECT_EQ(aotc_rounding_divide_by_pot(kMin, 0), kMin);
}

TEST(Requantize, HostAndRuntimeAgreeWithExactArithmetic) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int> exponent(0, 31);
  for (int i = 0; i < 200000; ++i) {
    int32_t a = any(rng), b = any(rng);
    int e = exponent(rng);
    ASSERT_EQ(aotc_sat_rounding_doubling_high_mul(a, b), reference_high_mul(a, b)) << a << " " << b;
    ASSERT_EQ(aotc_sat_rounding_doubling_high_mul(a, b), reference_high_mul(a, b)) << a << " " << b;
    ASSERT_EQ(aotc_rounding_divide_by_pot(a, e), reference_divide_by_pot(a, e)) << a << " " << e;
    ASSERT_EQ(aotc_rounding_divide_by_pot(a, e), reference_divide_by_pot(a, e)) << a << " " << e;
  }
}

// aotc_requantize (the high multiply's nudge and truncation replaced by one floored
// multiply-add) against TFLite's two steps as TFLite writes them
// (aotc_mul_by_quantized_multiplier: SaturatingRoundingDoublingHighMul, then
// RoundingDivideByPOT), for any x, any multiplier the compiler can produce ([0, 2^31)) and
// any shift; the edges and the ties of the high multiply (a * b an odd multiple of 2^30,
// where the nudge matters) included.
TEST(Requantize, FastFormEqualsTflitesTwoStepsForEveryMultiplierBelow2To31) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int32_t> any(kMin, kMax), multiplier(0, kMax);
  std::uniform_int_distribution<int> shift(-31, 30);
  for (int i = 0; i < 300000; ++i) {
    int32_t x = any(rng), m = multiplier(rng);
    int e = shift(rng);
    ASSERT_EQ(aotc_requantize(x, m, e), aotc_mul_by_quantized_multiplier(x, m, e)) << x << " " << m << " " << e;
    // A tie: x * 2^30 (shift 30 keeps x's lowest bits) times an odd multiplier.
    int32_t odd = m | 1;
    ASSERT_EQ(aotc_requantize(x, odd, 30), aotc_mul_by_quantized_multiplier(x, odd, 30)) << x << " " << odd;
  }
  for (int32_t x : {kMin, kMin + 1, -3, -1, 0, 1, 3, kMax - 1, kMax, -(1 << 30), 1 << 30})
    for (int32_t m : {0, 1, 3, 1 << 30, (1 << 30) + 1, kMax - 1, kMax})
      for (int e : {-31, -30, -1, 0, 1, 29, 30})
        ASSERT_EQ(aotc_requantize(x, m, e), aotc_mul_by_quantized_multiplier(x, m, e)) << x << " " << m << " " << e;
}

// aotc_requantize_right (both roundings in one multiply-accumulate and one shift) against
// TFLite's two steps, over its domain: multipliers in (2^30, 2^31), right shifts 2..31; the
// edges, and ties of both roundings, included.
TEST(Requantize, RightShiftFormEqualsTflitesTwoStepsOnItsDomain) {
  std::mt19937 rng(17);
  std::uniform_int_distribution<int32_t> any(kMin, kMax), multiplier((1 << 30) + 1, kMax);
  std::uniform_int_distribution<int> right(2, 31);
  for (int i = 0; i < 300000; ++i) {
    int32_t x = any(rng), m = multiplier(rng);
    int e = right(rng);
    ASSERT_EQ(aotc_requantize_right(x, m, e), aotc_mul_by_quantized_multiplier(x, m, -e)) << x << " " << m << " " << e;
    // Small sums, as convolutions have, where the second rounding's ties are frequent.
    int32_t small = x >> 12;
    ASSERT_EQ(aotc_requantize_right(small, m, e), aotc_mul_by_quantized_multiplier(small, m, -e)) << small << " " << m << " " << e;
  }
  for (int32_t x : {kMin, kMin + 1, -65536, -3, -2, -1, 0, 1, 2, 3, 65536, kMax - 1, kMax})
    for (int32_t m : {(1 << 30) + 1, (1 << 30) + 12345, 1518500250, kMax - 1, kMax})
      for (int e = 2; e <= 31; ++e)
        ASSERT_EQ(aotc_requantize_right(x, m, e), aotc_mul_by_quantized_multiplier(x, m, -e)) << x << " " << m << " " << e;
}

// The 32-bit form of the requantization's multiply-accumulate (what Armv6-M runs, where
// the 64-bit product is a library call) against the 64-bit arithmetic written here, for
// any x, high and low words, and multipliers in [0, 2^31).
TEST(Requantize, MultiplyAccumulateFromHalvesEqualsThe64BitSum) {
  auto expected = [](int32_t x, int32_t m, uint32_t high, uint32_t low) {
    uint64_t sum = ((static_cast<uint64_t>(high) << 32) | low) + static_cast<uint64_t>(static_cast<int64_t>(x) * m);
    return static_cast<uint32_t>(sum >> 32);
  };
  std::mt19937 rng(29);
  std::uniform_int_distribution<int32_t> any(kMin, kMax), multiplier(0, kMax);
  std::uniform_int_distribution<uint32_t> word(0, 0xFFFFFFFFu);
  for (int i = 0; i < 1000000; ++i) {
    int32_t x = any(rng), m = multiplier(rng);
    uint32_t high = word(rng), low = word(rng);
    ASSERT_EQ(aotc_smlal_high_halves(x, m, high, low), expected(x, m, high, low)) << x << " " << m << " " << high << " " << low;
  }
  // Carries out of each half: the extreme operands and words.
  for (int32_t x : {kMin, kMin + 1, -65536, -65535, -1, 0, 1, 65535, 65536, kMax})
    for (int32_t m : {0, 1, 65535, 65536, 1 << 30, kMax})
      for (uint32_t high : {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu})
        for (uint32_t low : {0u, 1u, 0x40000000u, 0xC0000000u, 0xFFFFFFFFu})
          ASSERT_EQ(aotc_smlal_high_halves(x, m, high, low), expected(x, m, high, low)) << x << " " << m << " " << high << " " << low;
}

// aotc_requantize_s8 (the zero point inside the last rounding, saturated) against TFLite's
// two steps plus the zero point, clamped to int8: over the domain the compiler gives it
// (multipliers in (2^30, 2^31), right shifts 2..24, offsets below 2^30), any x.
TEST(Requantize, SaturatingInt8FormEqualsTflitesStepsPlusZeroPoint) {
  auto expected = [](int32_t x, int32_t m, int e, int32_t zero_point) {
    int32_t y = aotc_mul_by_quantized_multiplier(x, m, -e) + zero_point;
    return std::min(127, std::max(-128, y));
  };
  auto got = [](int32_t x, int32_t m, int e, int32_t zero_point) {
    int32_t offset = (1 << (e - 2)) + zero_point * (1 << (e - 1));
    return aotc_requantize_s8(x, m, offset, e - 1);
  };
  std::mt19937 rng(23);
  std::uniform_int_distribution<int32_t> any(kMin, kMax), multiplier((1 << 30) + 1, kMax), zero(-128, 127);
  std::uniform_int_distribution<int> right(2, 24);
  for (int i = 0; i < 300000; ++i) {
    int32_t x = any(rng), m = multiplier(rng), zp = zero(rng);
    int e = right(rng);
    ASSERT_EQ(got(x, m, e, zp), expected(x, m, e, zp)) << x << " " << m << " " << e << " " << zp;
    // Sums near the int8 range after scaling, where saturation and ties decide.
    int32_t near = static_cast<int32_t>((static_cast<int64_t>(x) >> 20) * (int64_t{1} << (e > 8 ? 8 : e - 1)));
    ASSERT_EQ(got(near, m, e, zp), expected(near, m, e, zp)) << near << " " << m << " " << e << " " << zp;
  }
  for (int32_t x : {kMin, kMin + 1, -65536, -3, -2, -1, 0, 1, 2, 3, 65536, kMax - 1, kMax})
    for (int32_t m : {(1 << 30) + 1, 1518500250, kMax})
      for (int e = 2; e <= 22; ++e)
        for (int32_t zp : {-128, -1, 0, 5, 127})
          ASSERT_EQ(got(x, m, e, zp), expected(x, m, e, zp)) << x << " " << m << " " << e << " " << zp;
}

TEST(Requantize, MultiplierWithNegativeAndPositiveShifts) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> acc(-(1 << 20), 1 << 20);
  for (double real : {0.0003, 0.0123, 0.49, 0.5, 0.75, 1.0, 1.5, 3.9}) {
    QuantizedMultiplier q = quantize_multiplier(real);
    // The pair represents `real` to within one part in 2^30.
    EXPECT_NEAR(q.multiplier * std::ldexp(1.0, q.shift - 31), real, real * 1e-9) << real;
    for (int i = 0; i < 2000; ++i) {
      int32_t x = acc(rng);
      int32_t got = aotc_mul_by_quantized_multiplier(x, q.multiplier, q.shift);
      EXPECT_EQ(got, aotc_mul_by_quantized_multiplier(x, q.multiplier, q.shift));
      // Two roundings (TFLite's) stay within one unit of the exact product.
      double exact = x * (q.multiplier * std::ldexp(1.0, q.shift - 31));
      EXPECT_LE(std::fabs(got - exact), 1.0) << x << " * " << real;
    }
  }
  EXPECT_EQ(quantize_multiplier(0.0).multiplier, 0);
  // 1e-12 = 0.55 * 2^-39: an exponent below -31 is flushed to zero, as TFLite does.
  QuantizedMultiplier tiny = quantize_multiplier(1e-12);
  EXPECT_EQ(tiny.multiplier, 0);
  EXPECT_EQ(tiny.shift, 0);
}

// A quantization scale of 0 makes the ratio of scales infinite: an error, not the undefined
// conversion of inf to an integer.
TEST(Requantize, MultiplierThatIsNotFiniteOrTooLargeIsAnError) {
  EXPECT_THROW(quantize_multiplier(INFINITY), CompileError);
  EXPECT_THROW(quantize_multiplier(-INFINITY), CompileError);
  EXPECT_THROW(quantize_multiplier(NAN), CompileError);
  EXPECT_THROW(quantize_multiplier(2147483648.0), CompileError);
  EXPECT_NO_THROW(quantize_multiplier(2147483647.0));
}

TEST(Requantize, MultiplierRoundingUpToOneIsRenormalized) {
  // A fraction that rounds to 2^31 must become 2^30 with the exponent one higher.
  double almost_one = 1.0 - std::ldexp(1.0, -33);
  QuantizedMultiplier q = quantize_multiplier(almost_one);
  EXPECT_EQ(q.multiplier, 1 << 30);
  EXPECT_EQ(q.shift, 1);
}

TEST(Requantize, ActivationRanges) {
  QuantizedRange none = quantized_activation_range("NONE", 0.1, -5, -128, 127);
  EXPECT_EQ(none.min, -128);
  EXPECT_EQ(none.max, 127);
  QuantizedRange relu6 = quantized_activation_range("RELU6", 0.05, -128, -128, 127);
  EXPECT_EQ(relu6.min, -128);  // zero point
  EXPECT_EQ(relu6.max, -8);    // -128 + 6 / 0.05
  QuantizedRange relu = quantized_activation_range("RELU", 0.1, 3, -128, 127);
  EXPECT_EQ(relu.min, 3);
}

}  // namespace
}  // namespace aotc
