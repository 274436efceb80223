/* aotc_quant_softmax.h: the fixed-point exp and reciprocal of TensorFlow Lite's integer
 * softmax, the fixed-point logistic and tanh of its int8 LOGISTIC and TANH, the
 * table-interpolated ones of its int16 LOGISTIC and TANH, and the fixed-point inverse
 * square root of its int8 L2_NORMALIZATION and RSQRT.
 *
 * TFLite Micro's int8 SOFTMAX evaluates exp(x - max) in fixed point and divides by the sum
 * of the exponentials through a Newton-Raphson reciprocal, using gemmlowp's fixedpoint.h
 * (exp_on_negative_values, one_over_one_plus_x_for_x_in_0_1) and TFLite's GetReciprocal.
 * Output identical to TFLite Micro needs the same steps with the same roundings, so these
 * functions repeat them in plain C99 integer arithmetic.
 *
 * Values are raw int32; comments give their fixed-point format as Qm.n (m integer bits,
 * n = 31 - m fractional bits). A product of Qa and Qb values by
 * aotc_sat_rounding_doubling_high_mul is a Q(a+b) value. Everything is static inline, so
 * models without these operators pay nothing.
 */
#ifndef AOTC_QUANT_SOFTMAX_H_
#define AOTC_QUANT_SOFTMAX_H_

#include <stdint.h>

#include "aotc_quant.h"

/* x * 2^exponent (0 < exponent < 31), saturating to [INT32_MIN, INT32_MAX]: changes a
 * value's format from Q(m) to Q(m - exponent). */
static inline int32_t aotc_saturating_shift_left(int32_t x, int32_t exponent) {
  const int32_t threshold = (int32_t)(((uint32_t)1 << (31 - exponent)) - 1u);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t)((uint32_t)x << exponent); /* in range: unsigned only to stay defined */
}

/* (a + b) / 2, rounded half away from zero. */
static inline int32_t aotc_rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = (int64_t)a + (int64_t)b;
  return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* exp(a) for a in [-1/4, 0), a and the result in Q0.31: the Taylor expansion of degree 4
 * around -1/8. */
static inline int32_t aotc_exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  const int32_t exp_of_minus_one_eighth = 1895147668;
  const int32_t one_third = 715827883;
  const int32_t x = a + (1 << 28); /* a + 1/8, in [-1/8, 1/8) */
  const int32_t x2 = aotc_sat_rounding_doubling_high_mul(x, x);
  const int32_t x3 = aotc_sat_rounding_doubling_high_mul(x2, x);
  const int32_t x4 = aotc_sat_rounding_doubling_high_mul(x2, x2);
  const int32_t x4_over_4 = aotc_rounding_divide_by_pot(x4, 2);
  const int32_t x4_over_24_plus_x3_over_6_plus_x2_over_2 =
      aotc_rounding_divide_by_pot(aotc_sat_rounding_doubling_high_mul(x4_over_4 + x3, one_third) + x2, 1);
  return exp_of_minus_one_eighth +
         aotc_sat_rounding_doubling_high_mul(exp_of_minus_one_eighth, x + x4_over_24_plus_x3_over_6_plus_x2_over_2);
}

/* exp(a) for a <= 0, a with `integer_bits` integer bits (Q5.26 for softmax, Q4.27 for the
 * logistic: a >= -2^integer_bits), the result in Q0.31.
 *
 * a = r - k/4 with r in [-1/4, 0) and k >= 0 an integer: exp(r) comes from the Taylor
 * expansion, and each set bit of k/4 (1/4, 1/2, 1, ..., 2^(integer_bits - 1)) multiplies in
 * the constant exp(-2^j). integer_bits is 4 or 5. */
static inline int32_t aotc_exp_on_negative_values(int32_t a, int integer_bits) {
  /* exp(-1/4), exp(-1/2), exp(-1), exp(-2), exp(-4), exp(-8), exp(-16) in Q0.31. */
  static const int32_t exp_of_minus_powers_of_two[7] = {1672461947, 1302514674, 790015084, 290630308,
                                                        39332535,   720401,     242};
  const int32_t one_quarter = (int32_t)1 << (29 - integer_bits);
  const int32_t r = (a & (one_quarter - 1)) - one_quarter; /* in [-1/4, 0) */
  const int32_t k_quarters = r - a;                        /* a multiple of 1/4 */
  int32_t result =
      aotc_exp_on_interval_between_negative_one_quarter_and_0_excl(aotc_saturating_shift_left(r, integer_bits));
  int j;
  for (j = 0; j < integer_bits + 2; ++j) {
    if (k_quarters & ((int32_t)1 << (29 - integer_bits + j)))
      result = aotc_sat_rounding_doubling_high_mul(result, exp_of_minus_powers_of_two[j]);
  }
  return a == 0 ? INT32_MAX : result;
}

static inline int32_t aotc_exp_on_negative_values_q5_26(int32_t a) { return aotc_exp_on_negative_values(a, 5); }
static inline int32_t aotc_exp_on_negative_values_q4_27(int32_t a) { return aotc_exp_on_negative_values(a, 4); }

/* 2 / (1 + a) for a in [0, 1), a in Q0.31, the result in Q2.29: three Newton-Raphson steps
 * for the reciprocal of the half denominator (1 + a) / 2, starting from 48/17 - 32/17 * d. */
static inline int32_t aotc_two_over_one_plus_x_for_x_in_0_1(int32_t a) {
  const int32_t half_denominator = aotc_rounding_half_sum(a, INT32_MAX); /* Q0.31 */
  const int32_t constant_48_over_17 = 1515870810;                        /* Q2.29 */
  const int32_t constant_neg_32_over_17 = -1010580540;                   /* Q2.29 */
  const int32_t one = 1 << 29;                                           /* Q2.29 */
  int32_t x = constant_48_over_17 + aotc_sat_rounding_doubling_high_mul(half_denominator, constant_neg_32_over_17);
  int i;
  for (i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = aotc_sat_rounding_doubling_high_mul(half_denominator, x); /* Q2.29 */
    const int32_t one_minus_half_denominator_times_x = one - half_denominator_times_x;              /* Q2.29 */
    const int32_t correction = aotc_sat_rounding_doubling_high_mul(x, one_minus_half_denominator_times_x); /* Q4.27 */
    x = x + aotc_saturating_shift_left(correction, 2);
  }
  return x;
}

/* 1 / (1 + a) for a in [0, 1), a and the result in Q0.31: 2 / (1 + a) in Q2.29 is the wanted
 * 1 / (1 + a) in Q1.30. */
static inline int32_t aotc_one_over_one_plus_x_for_x_in_0_1(int32_t a) {
  return aotc_saturating_shift_left(aotc_two_over_one_plus_x_for_x_in_0_1(a), 1);
}

/* The number of leading zero bits of x read as uint32 (32 for 0). */
static inline int32_t aotc_count_leading_zeros(int32_t x) {
  uint32_t u = (uint32_t)x;
  int32_t n = 0;
  if (u == 0) return 32;
  while (!(u & 0x80000000u)) {
    u <<= 1;
    ++n;
  }
  return n;
}

/* For x > 0: the Q0.31 value f = 1 / m, where m in [1, 2) is x normalized by a left shift
 * of aotc_count_leading_zeros(x) and read as Q1.30. If x is a Qk value, 1/x is
 * f * 2^(aotc_count_leading_zeros(x) - k). */
static inline int32_t aotc_get_reciprocal(int32_t x) {
  const int32_t headroom_plus_one = aotc_count_leading_zeros(x);
  const int32_t m_minus_one = (int32_t)(((uint32_t)x << headroom_plus_one) - ((uint32_t)1 << 31)); /* Q0.31 */
  return aotc_one_over_one_plus_x_for_x_in_0_1(m_minus_one);
}

/* -x of an int32 with two's complement wrap-around (gemmlowp negates raw values so). */
static inline int32_t aotc_wrapping_negate(int32_t x) { return (int32_t)(0u - (uint32_t)x); }

/* 1 / (1 + exp(-a)) for a in Q4.27, the result in Q0.31 (gemmlowp's logistic): computed
 * for |a| as 1 / (1 + exp(-|a|)), and as 1 minus that for a < 0; exactly 1/2 at 0. */
static inline int32_t aotc_logistic_q4_27(int32_t a) {
  const int32_t abs_a = a > 0 ? a : aotc_wrapping_negate(a);
  const int32_t if_positive = aotc_one_over_one_plus_x_for_x_in_0_1(aotc_exp_on_negative_values_q4_27(aotc_wrapping_negate(abs_a)));
  if (a == 0) return 1 << 30;
  return a > 0 ? if_positive : INT32_MAX - if_positive;
}

/* (1 - a) / (1 + a) for a in [0, 1), a and the result in Q0.31: 2 / (1 + a) - 1. */
static inline int32_t aotc_one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a) {
  const int32_t one = 1 << 29; /* Q2.29 */
  return aotc_saturating_shift_left(aotc_two_over_one_plus_x_for_x_in_0_1(a) - one, 2);
}

/* tanh(a) for a in Q4.27, the result in Q0.31 (gemmlowp's tanh): for n = -|a|,
 * -tanh(n) = (1 - exp(2n)) / (1 + exp(2n)), 2n being n's raw value read as Q5.26; negated
 * back for a < 0, exactly 0 at 0. */
static inline int32_t aotc_tanh_q4_27(int32_t a) {
  const int32_t n = a < 0 ? a : aotc_wrapping_negate(a);
  const int32_t t = aotc_one_minus_x_over_one_plus_x_for_x_in_0_1(aotc_exp_on_negative_values_q5_26(n));
  if (a == 0) return 0;
  return a < 0 ? aotc_wrapping_negate(t) : t;
}

/* ---- TFLite's int16 LOGISTIC and TANH (reference_integer_ops::Logistic and Tanh on int16):
 * no gemmlowp, a table of sigmoid(i / 24) for i = 0..255 in steps of 2^-16 (TFLite's
 * sigmoid_table_uint16, the same numbers), interpolated linearly between entries. The
 * input is first rescaled to steps of 1/(3 * 4096) (x * multiplier, rounded, shifted right
 * by `shift`; the compiler computes both as TFLite's Prepare does), where 2^17 is 10.7;
 * tanh(x) = 2 sigmoid(2x) - 1 reads the same table at twice the position. Symmetry gives
 * the negative half. */

/* floor(x / 2^n) for 0 <= n <= 31: the arithmetic right shift TFLite relies on, written on
 * non-negative values so that it stays defined C. */
AOTC_FIXEDPOINT int32_t aotc_floor_shift_right(int32_t x, int32_t n) { return x >= 0 ? x >> n : ~(~x >> n); }

/* The table at abs_position / 2^fraction_bits (index < 255), in steps of
 * 2^-(16 + fraction_bits): (table[i] << fraction_bits) + fraction * (table[i + 1] - table[i]). */
static inline uint32_t aotc_sigmoid_table_lerp(uint32_t abs_position, int32_t fraction_bits) {
  static const uint16_t sigmoid_table[256] = {
      32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
      40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
      47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
      53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
      57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
      60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
      62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
      63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
      64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
      64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
      65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
      65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
      65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
      65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
      65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
      65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
      65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
      65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
      65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
      65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
      65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
      65534, 65534, 65534, 65535};
  const uint32_t index = abs_position >> fraction_bits;
  const uint32_t fraction = abs_position & ((1u << fraction_bits) - 1u);
  const uint32_t lower = sigmoid_table[index], upper = sigmoid_table[index + 1];
  return (lower << fraction_bits) + fraction * (upper - lower);
}

/* x (an int16 value, zero point 0) rescaled to steps of 1/(3 * 4096) of the real value. */
AOTC_FIXEDPOINT int32_t aotc_sigmoid_lut_input(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t round = shift > 0 ? (int32_t)1 << (shift - 1) : 0;
  return aotc_floor_shift_right(x * multiplier + round, shift);
}

/* logistic(x) of an int16 x, in steps of 2^-15 (zero point 0): in [0, 32767]. */
static inline int32_t aotc_logistic_s16(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t position = aotc_sigmoid_lut_input(x, multiplier, shift); /* steps of 1/(24 * 512) */
  const uint32_t abs_position = (uint32_t)(position >= 0 ? position : -position);
  const uint32_t sigmoid = (abs_position >> 9) >= 255 ? 0x7FFFu << 10 : aotc_sigmoid_table_lerp(abs_position, 9);
  const uint32_t rounded = position >= 0 ? sigmoid + (1u << 9) : (1u << 25) - sigmoid + (1u << 9) - 1u;
  return (int32_t)(rounded >> 10);
}

/* tanh(x) of an int16 x, in steps of 2^-15 (zero point 0): in [-32767, 32767]. */
static inline int32_t aotc_tanh_s16(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t position = aotc_sigmoid_lut_input(x, multiplier, shift); /* 2x in steps of 1/(24 * 256) */
  const uint32_t abs_position = (uint32_t)(position >= 0 ? position : -position);
  const int32_t sigmoid = (abs_position >> 8) >= 255 ? 0xFFFF << 8 : (int32_t)aotc_sigmoid_table_lerp(abs_position, 8);
  const int32_t centered = position >= 0 ? sigmoid - (1 << 23) + (1 << 7) : -sigmoid + (1 << 23) + (1 << 7) - 1;
  return aotc_floor_shift_right(centered, 8);
}

/* ---- TFLite's GetInvSqrtQuantizedMultiplierExp (int8 L2_NORMALIZATION and RSQRT):
 * 1 / sqrt(input) of an int32 input >= 0 as a Q31 multiplier and a left shift (<= 0), from
 * five Newton-Raphson steps in gemmlowp's Q3.28 on the input normalized by a power of 4.
 * Inputs 0 and 1 (and, here, negative ones) give INT32_MAX and 0. */

/* For input > 1: input scaled by a power of 4 into [2^27, 2^29), and the right shift of
 * 1 / sqrt that undoes the scaling (negative for small inputs). */
static inline int32_t aotc_inv_sqrt_normalize(int32_t* input) {
  int32_t right_shift = 11, left_shift_bit_pairs;
  while (*input >= (1 << 29)) {
    *input /= 4;
    ++right_shift;
  }
  left_shift_bit_pairs = (aotc_count_leading_zeros(*input) - 1) / 2 - 1;
  *input <<= 2 * left_shift_bit_pairs;
  return right_shift - left_shift_bit_pairs;
}

/* The Q31 multiplier. */
static inline int32_t aotc_inv_sqrt_multiplier(int32_t input) {
  const int32_t half_three = (1 << 28) + (1 << 27); /* 1.5 in Q3.28 */
  const int32_t half_sqrt_2 = 1518500250;           /* sqrt(2) / 2 in Q0.31 */
  int32_t right_shift, half_input, x, i;
  if (input <= 1) return INT32_MAX;
  right_shift = aotc_inv_sqrt_normalize(&input);
  half_input = aotc_rounding_divide_by_pot(input >> 1, 1); /* input / 2 in Q3.28 */
  x = 1 << 28;                                             /* 1 in Q3.28 */
  for (i = 0; i < 5; ++i) {
    /* x = (3/2) x - (input/2) x^3, each product rounded as gemmlowp rounds it. */
    const int32_t x3 = aotc_saturating_shift_left(
        aotc_sat_rounding_doubling_high_mul(aotc_sat_rounding_doubling_high_mul(x, x), x), 6); /* Q9 -> Q3 */
    const int32_t difference = (int32_t)((uint32_t)aotc_sat_rounding_doubling_high_mul(half_three, x) -
                                         (uint32_t)aotc_sat_rounding_doubling_high_mul(half_input, x3)); /* Q6 */
    x = aotc_saturating_shift_left(difference, 3);
  }
  x = aotc_sat_rounding_doubling_high_mul(x, half_sqrt_2);
  return right_shift < 0 ? (int32_t)((uint32_t)x << -right_shift) : x;
}

/* The left shift (<= 0) that goes with the multiplier. */
static inline int32_t aotc_inv_sqrt_shift(int32_t input) {
  int32_t right_shift;
  if (input <= 1) return 0;
  right_shift = aotc_inv_sqrt_normalize(&input);
  return right_shift < 0 ? 0 : -right_shift;
}

#endif /* AOTC_QUANT_SOFTMAX_H_ */
