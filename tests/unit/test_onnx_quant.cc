// ONNX quantized inference: the rounding helpers of runtime-c/aotc_quant_onnx.h and their
// compile-time multipliers (lowering/quant_onnx.h), the QuantizeLinear, DequantizeLinear,
// QLinearConv, QLinearMatMul and aotc.QLinearAdd lowerings (lowering/ops/onnx/onnx_quant.cc),
// and the fold_qdq pass (aot/passes/fold_qdq.cc).
//
// Kernels run in the IR interpreter, as lowered and after Simplify. Expectations come from
// plain C++ written from ONNX's definitions: integer kernels must give the real-valued
// result rounded half to even — computed here in double, where acc * factor is exact — bit
// for bit, ties included. fold_qdq is checked on whole graphs: the folded graph runs only
// integer kernels and agrees with the float graph it replaces, except for values within
// float32 rounding error of a tie.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "lowering/ir/quant_onnx.h"
#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"
#include "runtime-c/aotc_quant_onnx.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

using Attrs = std::map<std::string, AttrValue>;

// Per-tensor DequantizeLinear / QuantizeLinear with constant parameters.
template <typename Q>
TensorId dequantize(GraphBuilder& b, TensorId x, float scale, Q zero_point) {
  TensorId scale_id = b.constant<float>("scale", {}, {scale}), zero_point_id = b.constant<Q>("zp", {}, {zero_point});
  return b.node("DequantizeLinear", {x, scale_id, zero_point_id});
}
template <typename Q>
TensorId quantize(GraphBuilder& b, TensorId x, float scale, Q zero_point) {
  TensorId scale_id = b.constant<float>("scale", {}, {scale}), zero_point_id = b.constant<Q>("zp", {}, {zero_point});
  return b.node("QuantizeLinear", {x, scale_id, zero_point_id});
}

// A positive float32 scale with a random significand: like a calibrated scale.
float random_scale(std::mt19937& rng, float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }

// acc * factor rounded half to even: exact in double while |acc| < 2^29 (factor has a
// 24-bit significand), then nearbyint in the default rounding mode.
int64_t round_product(int64_t acc, float factor) {
  return static_cast<int64_t>(std::nearbyint(static_cast<double>(acc) * static_cast<double>(factor)));
}

int64_t saturate(int64_t v, int64_t lo, int64_t hi) { return std::min(hi, std::max(lo, v)); }

// ---------------------------------------------------------------- runtime rounding

// x / 2^shift, ties to even, in 128-bit arithmetic: the definition, written differently.
int64_t round_shift_reference(int64_t x, int shift) {
  __int128 d = static_cast<__int128>(1) << shift;
  __int128 q = static_cast<__int128>(x) >> shift;  // floor
  __int128 twice_remainder = 2 * (static_cast<__int128>(x) - q * d);
  if (twice_remainder > d || (twice_remainder == d && (q & 1))) ++q;
  return static_cast<int64_t>(q);
}

TEST(OnnxRounding, RoundShiftHalfToEvenMatchesTheDefinition) {
  std::mt19937_64 rng(7);
  for (int shift = 0; shift <= 62; ++shift) {
    for (int i = 0; i < 2000; ++i) {
      int64_t x = static_cast<int64_t>(rng()) >> (rng() % 63);
      ASSERT_EQ(aotc_round_shift_half_to_even(x, shift), round_shift_reference(x, shift)) << x << " >> " << shift;
    }
  }
  // Ties go to the even neighbour, on both sides of zero.
  EXPECT_EQ(aotc_round_shift_half_to_even(1, 1), 0);
  EXPECT_EQ(aotc_round_shift_half_to_even(3, 1), 2);
  EXPECT_EQ(aotc_round_shift_half_to_even(5, 1), 2);
  EXPECT_EQ(aotc_round_shift_half_to_even(-1, 1), 0);
  EXPECT_EQ(aotc_round_shift_half_to_even(-3, 1), -2);
  EXPECT_EQ(aotc_round_shift_half_to_even(-5, 1), -2);
  EXPECT_EQ(aotc_round_shift_half_to_even(-6, 2), -2);  // -1.5
  EXPECT_EQ(aotc_round_shift_half_to_even(-7, 2), -2);  // -1.75
  EXPECT_EQ(aotc_round_shift_half_to_even(std::numeric_limits<int64_t>::min() + 1, 62), -2);
}

TEST(OnnxRounding, RequantizeSaturatesToInt32) {
  EXPECT_EQ(aotc_onnx_requantize(std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::max(), 0),
            std::numeric_limits<int32_t>::max());
  EXPECT_EQ(aotc_onnx_requantize(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 0),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(aotc_onnx_requantize_sum(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
                                std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 62),
            -2);  // -(2^63 - 2^32) / 2^62, the largest sum, without overflow
}

TEST(OnnxRounding, ExactMultiplierRepresentsTheFloatExactly) {
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) {
    float factor =
        std::ldexp(std::uniform_real_distribution<float>(0.5f, 1.0f)(rng), static_cast<int>(rng() % 50) - 35);
    ExactMultiplier m = exact_multiplier(factor);
    ASSERT_GE(m.shift, 0);
    ASSERT_LE(m.shift, 62);
    ASSERT_EQ(std::ldexp(static_cast<double>(m.multiplier), -m.shift), static_cast<double>(factor)) << factor;
  }
  EXPECT_EQ(exact_multiplier(0.5f).multiplier, 1);
  EXPECT_EQ(exact_multiplier(0.5f).shift, 1);
  EXPECT_EQ(exact_multiplier(3.0f).multiplier, 3);
  EXPECT_EQ(exact_multiplier(3.0f).shift, 0);
  EXPECT_EQ(exact_multiplier(std::ldexp(1.0f, -60)).shift, 60);
  // A factor that needs a shift beyond 62 is below 2^-39: no int32 accumulator times it
  // reaches one half, and it becomes 0.
  EXPECT_EQ(exact_multiplier(std::ldexp(1.2345f, -45)).multiplier, 0);
  EXPECT_EQ(exact_multiplier(std::ldexp(1.0f, -70)).multiplier, 0);
  EXPECT_EQ(exact_multiplier(0.0f).multiplier, 0);
  EXPECT_THROW(exact_multiplier(-1.0f), CompileError);
  EXPECT_THROW(exact_multiplier(std::ldexp(1.0f, 31)), CompileError);
  EXPECT_THROW(exact_multiplier(std::numeric_limits<float>::quiet_NaN()), CompileError);
}

TEST(OnnxRounding, RequantizeIsTheRoundedRealProduct) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int32_t> accs(-(1 << 28), 1 << 28);
  for (int i = 0; i < 50000; ++i) {
    float factor =
        std::ldexp(std::uniform_real_distribution<float>(0.5f, 1.0f)(rng), static_cast<int>(rng() % 30) - 25);
    int32_t acc = accs(rng);
    ExactMultiplier m = exact_multiplier(factor);
    int64_t want =
        saturate(round_product(acc, factor), std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
    ASSERT_EQ(aotc_onnx_requantize(acc, m.multiplier, m.shift), want) << acc << " * " << factor;
  }
}

// Factors below 1/4 (of shift 61 or less) take the requantization's short form (high_word_requantization,
// aotc_onnx_requantize_high): the same rounded real product over the whole int32 range of
// accumulators, ties included (factors 2^-k make every other accumulator a tie).
TEST(OnnxRounding, HighWordRequantizationIsTheRoundedRealProduct) {
  std::mt19937 rng(14);
  std::uniform_int_distribution<int32_t> accs(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  int short_form = 0;
  for (int i = 0; i < 200000; ++i) {
    int exponent = static_cast<int>(rng() % 40) - 38;  // factors in [2^-39, 2^1)
    float factor = i % 4 == 0 ? std::ldexp(1.0f, exponent)
                              : std::ldexp(std::uniform_real_distribution<float>(0.5f, 1.0f)(rng), exponent);
    int32_t acc = i % 3 == 0 ? accs(rng) : static_cast<int32_t>(accs(rng) >> (rng() % 31));
    ExactMultiplier exact = exact_multiplier(factor);
    std::optional<HighWordRequantization> high = high_word_requantization(exact);
    ASSERT_EQ(high.has_value(), exact.multiplier != 0 && exact.shift <= 61 && factor < 0.25f) << factor;
    if (!high) continue;
    ++short_form;
    ASSERT_EQ(std::ldexp(static_cast<double>(high->multiplier), -(high->high_shift + 32)), static_cast<double>(factor));
    // The definition in 128-bit arithmetic (a double product would not be exact for
    // accumulators beyond 2^29).
    int64_t want = round_shift_reference(int64_t{acc} * exact.multiplier, exact.shift);
    ASSERT_EQ(aotc_onnx_requantize_high(acc, high->multiplier, high->rounding_high, high->rounding_low, high->high_shift),
              want)
        << acc << " * " << factor;
    // Plus an output zero point, saturated to int8 (aotc_onnx_requantize_s8).
    int32_t zero_point = static_cast<int32_t>(rng() % 256) - 128;
    ASSERT_EQ(aotc_onnx_requantize_s8(acc, high->multiplier, high->rounding_high, high->rounding_low, high->high_shift,
                                      zero_point),
              saturate(want + zero_point, -128, 127))
        << acc << " * " << factor << " + " << zero_point;
  }
  EXPECT_GT(short_form, 120000);
}

// The TFLite-style multiplier (aotc_quant.h) rounds these ties up, ONNX to even: with
// factor 1/2 every odd accumulator is a tie, and the two disagree on half of them, the
// ties k + 1/2 with k even.
TEST(OnnxRounding, TiesGoToEvenUnlikeTheTfliteMultiplier) {
  ExactMultiplier onnx = exact_multiplier(0.5f);
  QuantizedMultiplier tflite = quantize_multiplier(0.5);
  int disagreements = 0;
  for (int32_t acc = -1000; acc <= 1000; ++acc) {
    int32_t got = aotc_onnx_requantize(acc, onnx.multiplier, onnx.shift);
    EXPECT_EQ(got, round_product(acc, 0.5f));
    if (got != aotc_mul_by_quantized_multiplier(acc, tflite.multiplier, tflite.shift)) {
      ++disagreements;
      EXPECT_EQ((acc - 1) % 4, 0) << acc;  // acc / 2 = 2j + 1/2: TFLite gives 2j + 1, ONNX 2j
    }
  }
  EXPECT_EQ(disagreements, 500);
}

TEST(OnnxRounding, CommonShiftMultipliersAreExactForComparableFactors) {
  std::mt19937 rng(13);
  for (int i = 0; i < 5000; ++i) {
    float a = random_scale(rng, 0.01f, 1.0f), b = random_scale(rng, 0.01f, 1.0f);
    if (std::max(a, b) / std::min(a, b) > 64) continue;
    CommonShiftMultipliers m = common_shift_multipliers(a, b);
    ASSERT_EQ(std::ldexp(static_cast<double>(m.a_multiplier), -m.shift), static_cast<double>(a));
    ASSERT_EQ(std::ldexp(static_cast<double>(m.b_multiplier), -m.shift), static_cast<double>(b));
  }
  // Far apart, the smaller factor is rounded to 31 significant bits of the larger.
  CommonShiftMultipliers far = common_shift_multipliers(3.0e3f, 1.234567e-6f);
  EXPECT_EQ(std::ldexp(static_cast<double>(far.a_multiplier), -far.shift), 3.0e3);
  EXPECT_NEAR(std::ldexp(static_cast<double>(far.b_multiplier), -far.shift), 1.234567e-6, 3.0e3 * std::ldexp(1.0, -30));
}

// ---------------------------------------------------------------- QuantizeLinear, DequantizeLinear

// ONNX's own example (test_quantizelinear): 3 / 2 = 1.5 rounds to 2, 1000 and -1000 saturate.
TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  GraphBuilder b;
  TensorId x = b.input<float>("x", {8}, {0.0f, 2.0f, 3.0f, 1000.0f, -254.0f, -1000.0f, 5.0f, -3.0f});
  std::vector<uint8_t> y = b.run<uint8_t>(quantize<uint8_t>(b, x, 2.0f, 128));
  EXPECT_EQ(y, (std::vector<uint8_t>{128, 129, 130, 255, 1, 0, 130, 126}));
}

TEST(QuantizeLinear, Int8PerAxisNanAndInfinity) {
  GraphBuilder b;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  TensorId x = b.input<float>("x", {2, 3}, {0.75f, -0.375f, 10.0f, nan, inf, -inf});
  TensorId y = b.node("QuantizeLinear",
                      {x, b.constant<float>("s", {3}, {0.5f, 0.25f, 0.1f}), b.constant<int8_t>("z", {3}, {1, -2, 3})});
  // 1.5 -> 2, -1.5 -> -2, 100 + 3 = 103; NaN -> -128; +-inf saturate.
  EXPECT_EQ(b.run<int8_t>(y), (std::vector<int8_t>{3, -4, 103, -128, 127, -128}));
}

TEST(QuantizeLinear, WithoutZeroPointIsUint8) {
  GraphBuilder b;
  TensorId x = b.input<float>("x", {3}, {-1.0f, 2.5f, 300.0f});
  TensorId y = b.node("QuantizeLinear", {x, b.constant<float>("s", {}, {1.0f})});
  EXPECT_EQ(b.run<uint8_t>(y), (std::vector<uint8_t>{0, 2, 255}));
}

TEST(DequantizeLinear, PerTensorPerAxisAndInt32) {
  GraphBuilder b;
  TensorId x = b.input<uint8_t>("x", {4}, {0, 3, 128, 255});
  EXPECT_EQ(b.run<float>(dequantize<uint8_t>(b, x, 2.0f, 128)), (std::vector<float>{-256, -250, 0, 254}));

  GraphBuilder axis;
  TensorId q = axis.input<int8_t>("q", {1, 2, 2}, {-128, 127, 0, 5});
  TensorId y = axis.node("DequantizeLinear",
                         {q, axis.constant<float>("s", {2}, {0.5f, 0.25f}), axis.constant<int8_t>("z", {2}, {-1, 1})},
                         {{"axis", int64_t{-2}}});
  EXPECT_EQ(axis.run<float>(y), (std::vector<float>{-63.5f, 64.0f, -0.25f, 1.0f}));

  GraphBuilder wide;
  TensorId w = wide.input<int32_t>("w", {2}, {-100000, 7});
  TensorId wy = wide.node("DequantizeLinear", {w, wide.constant<float>("s", {}, {0.125f})});
  EXPECT_EQ(wide.run<float>(wy), (std::vector<float>{-12500.0f, 0.875f}));
}

TEST(DequantizeLinear, RejectsRuntimeScalesAndMismatchedParameters) {
  GraphBuilder runtime;
  TensorId x = runtime.input<int8_t>("x", {4}, {1, 2, 3, 4});
  TensorId s = runtime.input<float>("s", {}, {1.0f});
  EXPECT_NE(runtime.error(runtime.node("DequantizeLinear", {x, s})).find("must be a constant"),
            std::string::npos);

  GraphBuilder mismatch;
  TensorId q = mismatch.input<int8_t>("q", {2, 3}, {1, 2, 3, 4, 5, 6});
  TensorId y = mismatch.node("DequantizeLinear", {q, mismatch.constant<float>("s", {2}, {1.0f, 2.0f})});
  EXPECT_NE(mismatch.error(y).find("expected a scalar or [3] for axis 1"), std::string::npos);

  GraphBuilder zp_type;
  TensorId u = zp_type.input<uint8_t>("u", {2}, {1, 2});
  TensorId z = dequantize<int8_t>(zp_type, u, 1.0f, 0);
  EXPECT_NE(zp_type.error(z).find("is int8 but the quantized values are uint8"), std::string::npos);
}

// ---------------------------------------------------------------- QLinearConv

// A 2-D QLinearConv configuration: x [N, C, H, W] uint8, w [M, C / group, KH, KW] int8.
struct ConvCase {
  std::string name;
  Shape x_shape, w_shape;
  int64_t group, stride, pad, dilation;
  bool per_channel, bias;
};

// QLinearConv written from ONNX's definition, in plain loops (2-D, NCHW).
template <typename X, typename W, typename Y>
std::vector<Y> reference_qlinear_conv(const ConvCase& c, const std::vector<X>& x, float x_scale, int x_zp,
                                      const std::vector<W>& w, const std::vector<float>& w_scales,
                                      const std::vector<int>& w_zps, const std::vector<int32_t>& bias, float y_scale,
                                      int y_zp, int64_t lo, int64_t hi, Shape* out_shape) {
  int64_t n = c.x_shape[0], ci = c.x_shape[1], h = c.x_shape[2], wd = c.x_shape[3];
  int64_t m = c.w_shape[0], cg = c.w_shape[1], kh = c.w_shape[2], kw = c.w_shape[3];
  int64_t oh = (h + 2 * c.pad - ((kh - 1) * c.dilation + 1)) / c.stride + 1;
  int64_t ow = (wd + 2 * c.pad - ((kw - 1) * c.dilation + 1)) / c.stride + 1;
  *out_shape = {n, m, oh, ow};
  std::vector<Y> y;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < m; ++o)
      for (int64_t py = 0; py < oh; ++py)
        for (int64_t px = 0; px < ow; ++px) {
          int64_t acc = 0;
          size_t ch = w_scales.size() == 1 ? 0 : static_cast<size_t>(o);
          for (int64_t i = 0; i < cg; ++i)
            for (int64_t dy = 0; dy < kh; ++dy)
              for (int64_t dx = 0; dx < kw; ++dx) {
                int64_t iy = py * c.stride - c.pad + dy * c.dilation, ix = px * c.stride - c.pad + dx * c.dilation;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                int64_t channel = (o / (m / c.group)) * cg + i;
                acc += (x[static_cast<size_t>(((b * ci + channel) * h + iy) * wd + ix)] - x_zp) *
                       (w[static_cast<size_t>(((o * cg + i) * kh + dy) * kw + dx)] - w_zps[ch]);
              }
          if (!bias.empty()) acc += bias[static_cast<size_t>(o)];
          float factor = x_scale * w_scales[ch] / y_scale;
          y.push_back(static_cast<Y>(saturate(round_product(acc, factor) + y_zp, lo, hi)));
        }
  return y;
}

class QLinearConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(QLinearConvTest, IsTheRoundedRealConvolution) {
  const ConvCase& c = GetParam();
  std::mt19937 rng(static_cast<uint32_t>(c.x_shape[1] * 31 + c.w_shape[0] + c.stride));
  int64_t x_size = 1, w_size = 1;
  for (int64_t d : c.x_shape) x_size *= d;
  for (int64_t d : c.w_shape) w_size *= d;
  std::vector<uint8_t> x = random_ints<uint8_t>(static_cast<size_t>(x_size), 0, 255, rng());
  std::vector<int8_t> w = random_ints<int8_t>(static_cast<size_t>(w_size), -127, 127, rng());
  size_t channels = c.per_channel ? static_cast<size_t>(c.w_shape[0]) : 1;
  std::vector<float> w_scales;
  std::vector<int8_t> w_zps;
  for (size_t i = 0; i < channels; ++i) w_scales.push_back(random_scale(rng, 0.001f, 0.02f));
  for (size_t i = 0; i < channels; ++i) w_zps.push_back(static_cast<int8_t>(static_cast<int>(rng() % 7) - 3));
  std::vector<int32_t> bias =
      c.bias ? random_ints<int32_t>(static_cast<size_t>(c.w_shape[0]), -3000, 3000, rng()) : std::vector<int32_t>{};
  float x_scale = random_scale(rng, 0.01f, 0.05f), y_scale = random_scale(rng, 0.02f, 0.2f);
  uint8_t x_zp = 131;
  int8_t y_zp = -7;

  GraphBuilder b;
  Shape param_shape = c.per_channel ? Shape{c.w_shape[0]} : Shape{};
  std::vector<TensorId> inputs = {b.input<uint8_t>("x", c.x_shape, x),
                                  b.constant<float>("xs", {}, {x_scale}),
                                  b.constant<uint8_t>("xz", {}, {x_zp}),
                                  b.input<int8_t>("w", c.w_shape, w),  // a run-time input works too
                                  b.constant<float>("ws", param_shape, w_scales),
                                  b.constant<int8_t>("wz", param_shape, w_zps),
                                  b.constant<float>("ys", {}, {y_scale}),
                                  b.constant<int8_t>("yz", {}, {y_zp})};
  if (c.bias) inputs.push_back(b.constant<int32_t>("bias", {c.w_shape[0]}, bias));
  Attrs attrs = {{"group", c.group},
                 {"strides", std::vector<int64_t>{c.stride, c.stride}},
                 {"dilations", std::vector<int64_t>{c.dilation, c.dilation}},
                 {"pads", std::vector<int64_t>(4, c.pad)}};
  TensorId y = b.node("QLinearConv", inputs, attrs);
  std::vector<int8_t> got = b.run<int8_t>(y);

  Shape want_shape;
  std::vector<int> wz_ints(w_zps.begin(), w_zps.end());
  std::vector<int8_t> want = reference_qlinear_conv<uint8_t, int8_t, int8_t>(
      c, x, x_scale, x_zp, w, w_scales, wz_ints, bias, y_scale, y_zp, -128, 127, &want_shape);
  EXPECT_EQ(b.graph.tensor(y).shape, want_shape);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(int(got[i]), int(want[i])) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, QLinearConvTest,
    ::testing::Values(ConvCase{"Plain3x3", {1, 3, 7, 7}, {4, 3, 3, 3}, 1, 1, 1, 1, false, false},
                      ConvCase{"PerChannelStride2Bias", {1, 3, 8, 9}, {6, 3, 3, 3}, 1, 2, 1, 1, true, true},
                      ConvCase{"DepthwiseBatch2", {2, 4, 6, 6}, {4, 1, 3, 3}, 4, 1, 1, 1, true, true},
                      ConvCase{"GroupsDilation", {1, 4, 7, 7}, {6, 2, 2, 2}, 2, 1, 0, 2, true, false},
                      ConvCase{"Pointwise", {1, 8, 5, 5}, {16, 8, 1, 1}, 1, 1, 0, 1, true, true}),
    [](const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; });

// Scales whose factor is 1/4: a quarter of the accumulators end in .5 exactly, and those
// must round to even (x_scale * w_scale / y_scale = 0.5 * 0.25 / 0.5).
TEST(QLinearConv, TiesRoundToEven) {
  GraphBuilder b;
  std::vector<int8_t> x = {2, 6, 10, 14, -2, -6, -10, -14, 1, 3};
  TensorId y = b.node("QLinearConv", {b.input<int8_t>("x", {1, 1, 1, 10}, x), b.constant<float>("xs", {}, {0.5f}),
                                      b.constant<int8_t>("xz", {}, {0}), b.constant<int8_t>("w", {1, 1, 1, 1}, {1}),
                                      b.constant<float>("ws", {}, {0.25f}), b.constant<int8_t>("wz", {}, {0}),
                                      b.constant<float>("ys", {}, {0.5f}), b.constant<int8_t>("yz", {}, {0})});
  // x / 4: 0.5, 1.5, 2.5, 3.5, ... -> 0, 2, 2, 4; 0.25 -> 0, 0.75 -> 1.
  EXPECT_EQ(b.run<int8_t>(y), (std::vector<int8_t>{0, 2, 2, 4, 0, -2, -2, -4, 0, 1}));
}

TEST(QLinearConv, ClampAttributesNarrowTheOutput) {
  GraphBuilder b;
  TensorId y = b.node("QLinearConv",
                      {b.input<int8_t>("x", {1, 1, 1, 4}, {-100, -3, 3, 100}), b.constant<float>("xs", {}, {1.0f}),
                       b.constant<int8_t>("xz", {}, {0}), b.constant<int8_t>("w", {1, 1, 1, 1}, {1}),
                       b.constant<float>("ws", {}, {1.0f}), b.constant<int8_t>("wz", {}, {0}),
                       b.constant<float>("ys", {}, {1.0f}), b.constant<int8_t>("yz", {}, {-5})},
                      {{"aotc.clamp_min", int64_t{-5}}, {"aotc.clamp_max", int64_t{50}}});
  EXPECT_EQ(b.run<int8_t>(y), (std::vector<int8_t>{-5, -5, -2, 50}));
}

TEST(QLinearConv, RequiresConstantQuantizationParameters) {
  GraphBuilder b;
  TensorId y =
      b.node("QLinearConv", {b.input<int8_t>("x", {1, 1, 2, 2}, {1, 2, 3, 4}), b.input<float>("xs", {}, {1.0f}),
                             b.constant<int8_t>("xz", {}, {0}), b.constant<int8_t>("w", {1, 1, 1, 1}, {1}),
                             b.constant<float>("ws", {}, {1.0f}), b.constant<int8_t>("wz", {}, {0}),
                             b.constant<float>("ys", {}, {1.0f}), b.constant<int8_t>("yz", {}, {0})});
  EXPECT_NE(b.error(y).find("scale 'xs' must be a constant"), std::string::npos);
}

// ---------------------------------------------------------------- QLinearMatMul

// Batch broadcasting ([2, 3, 5] x [5, 4]), a per row, b per column, and the int32 bias
// (input 8) that fold_qdq gives a Gemm.
TEST(QLinearMatMul, PerRowPerColumnWithBiasIsTheRoundedRealProduct) {
  std::mt19937 rng(21);
  const int64_t batch = 2, m = 3, k = 5, n = 4;
  std::vector<int8_t> a = random_ints<int8_t>(batch * m * k, -128, 127, rng());
  std::vector<uint8_t> bq = random_ints<uint8_t>(k * n, 0, 255, rng());
  std::vector<float> a_scales, b_scales;
  std::vector<int8_t> a_zps;
  std::vector<uint8_t> b_zps;
  for (int i = 0; i < m; ++i)
    a_scales.push_back(random_scale(rng, 0.01f, 0.1f)), a_zps.push_back(static_cast<int8_t>(i - 1));
  for (int i = 0; i < n; ++i)
    b_scales.push_back(random_scale(rng, 0.01f, 0.1f)), b_zps.push_back(static_cast<uint8_t>(120 + i));
  std::vector<int32_t> bias = random_ints<int32_t>(n, -500, 500, rng());
  float y_scale = 0.07f;
  uint8_t y_zp = 100;

  GraphBuilder g;
  TensorId y = g.node("QLinearMatMul", {g.input<int8_t>("a", {batch, m, k}, a), g.constant<float>("as", {m}, a_scales),
                                        g.constant<int8_t>("az", {m}, a_zps), g.input<uint8_t>("b", {k, n}, bq),
                                        g.constant<float>("bs", {n}, b_scales), g.constant<uint8_t>("bz", {n}, b_zps),
                                        g.constant<float>("ys", {}, {y_scale}), g.constant<uint8_t>("yz", {}, {y_zp}),
                                        g.constant<int32_t>("bias", {n}, bias)});
  std::vector<uint8_t> got = g.run<uint8_t>(y);
  EXPECT_EQ(g.graph.tensor(y).shape, (Shape{batch, m, n}));
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        int64_t acc = bias[c];
        for (int64_t i = 0; i < k; ++i) acc += (a[(bi * m + r) * k + i] - a_zps[r]) * (bq[i * n + c] - b_zps[c]);
        float factor = a_scales[r] * b_scales[c] / y_scale;
        int64_t want = saturate(round_product(acc, factor) + y_zp, 0, 255);
        ASSERT_EQ(int(got[(bi * m + r) * n + c]), want) << bi << "," << r << "," << c;
      }
}

// ONNX's example (test_qlinearmatmul_2D).
TEST(QLinearMatMul, OnnxExample) {
  GraphBuilder g;
  TensorId y =
      g.node("QLinearMatMul", {g.input<uint8_t>("a", {2, 4}, {208, 236, 0, 238, 3, 214, 255, 29}),
                               g.constant<float>("as", {1}, {0.0066f}), g.constant<uint8_t>("az", {1}, {113}),
                               g.input<uint8_t>("b", {4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}),
                               g.constant<float>("bs", {1}, {0.00705f}), g.constant<uint8_t>("bz", {1}, {114}),
                               g.constant<float>("ys", {1}, {0.0107f}), g.constant<uint8_t>("yz", {1}, {118})});
  EXPECT_EQ(g.run<uint8_t>(y), (std::vector<uint8_t>{168, 115, 255, 1, 66, 151}));
}

// ---------------------------------------------------------------- aotc.QLinearAdd

TEST(QLinearAdd, IsTheRoundedRealSumWithBroadcasting) {
  std::mt19937 rng(31);
  std::vector<int8_t> a = random_ints<int8_t>(2 * 3 * 4, -128, 127, rng());
  std::vector<uint8_t> b = random_ints<uint8_t>(4, 0, 255, rng());
  float as = 0.037f, bs = 0.011f, ys = 0.05f;
  GraphBuilder g;
  TensorId y = g.node("aotc.QLinearAdd", {g.input<int8_t>("a", {2, 3, 4}, a), g.constant<float>("as", {}, {as}),
                                          g.constant<int8_t>("az", {}, {-3}), g.input<uint8_t>("b", {4}, b),
                                          g.constant<float>("bs", {}, {bs}), g.constant<uint8_t>("bz", {}, {128}),
                                          g.constant<float>("ys", {}, {ys}), g.constant<int8_t>("yz", {}, {2})});
  std::vector<int8_t> got = g.run<int8_t>(y);
  float a_factor = as / ys, b_factor = bs / ys;
  for (size_t i = 0; i < got.size(); ++i) {
    // Both products are exact in double and of similar magnitude: so is their sum.
    double real = (a[i] + 3) * static_cast<double>(a_factor) + (b[i % 4] - 128) * static_cast<double>(b_factor);
    ASSERT_EQ(int(got[i]), saturate(static_cast<int64_t>(std::nearbyint(real)) + 2, -128, 127)) << i;
  }
}

// ---------------------------------------------------------------- fold_qdq

// Random int8 weights of `shape` (symmetric, as quantizers make them), dequantized per
// tensor with `scale`.
TensorId int8_weights(GraphBuilder& b, const Shape& shape, float scale, uint32_t seed) {
  std::vector<int8_t> values = random_ints<int8_t>(static_cast<size_t>(element_count(shape)), -127, 127, seed);
  return dequantize<int8_t>(b, b.constant<int8_t>("w", shape, values), scale, 0);
}

// Ops of the graph's nodes, in order.
std::vector<std::string> ops(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes) names.push_back(n.op);
  return names;
}

// Runs the graph twice, as built (float operators between DQ and Q) and after fold_qdq,
// and returns both outputs; `expected_ops` are the folded graph's operators.
template <typename T>
void expect_fold(GraphBuilder& b, TensorId out, const std::vector<std::string>& expected_ops,
                 size_t max_one_step_differences = 0) {
  b.graph.outputs = {out};
  infer_shapes(b.graph);
  std::vector<T> unfolded = from_bytes<T>(b.execute().at(out));
  fold_qdq(b.graph);
  EXPECT_EQ(ops(b.graph), expected_ops);
  std::vector<T> folded = from_bytes<T>(b.execute().at(out));
  ASSERT_EQ(folded.size(), unfolded.size());
  size_t differences = 0;
  for (size_t i = 0; i < folded.size(); ++i) {
    if (folded[i] == unfolded[i]) continue;
    ++differences;
    EXPECT_LE(std::abs(int(folded[i]) - int(unfolded[i])), 1) << "element " << i;
  }
  EXPECT_LE(differences, max_one_step_differences);
}

TEST(FoldQdq, ConvWithPerChannelWeightsBiasAndRelu) {
  std::mt19937 rng(41);
  GraphBuilder b;
  TensorId x = b.input<int8_t>("x", {1, 4, 6, 6}, random_ints<int8_t>(144, -128, 127, rng()));
  float x_scale = 0.031f;
  std::vector<float> w_scales = {0.004f, 0.0071f, 0.0013f};
  std::vector<float> bias_scales;
  for (float s : w_scales) bias_scales.push_back(x_scale * s);
  TensorId w = b.node("DequantizeLinear",
                      {b.constant<int8_t>("w", {3, 4, 3, 3}, random_ints<int8_t>(108, -127, 127, rng())),
                       b.constant<float>("ws", {3}, w_scales), b.constant<int8_t>("wz", {3}, {0, 0, 0})},
                      {{"axis", int64_t{0}}});
  TensorId bias = b.node("DequantizeLinear",
                         {b.constant<int32_t>("b", {3}, {-900, 40, 2500}), b.constant<float>("bs", {3}, bias_scales)},
                         {{"axis", int64_t{0}}});
  TensorId conv =
      b.node("Conv", {dequantize<int8_t>(b, x, x_scale, 5), w, bias}, {{"pads", std::vector<int64_t>(4, 1)}});
  TensorId y = quantize<uint8_t>(b, b.node("Relu", {conv}), 0.023f, 3);
  expect_fold<uint8_t>(b, y, {"QLinearConv"});
  const Node& folded = b.graph.nodes[0];
  EXPECT_EQ(folded.attr_int("aotc.clamp_min", -1), 3);   // Q(0) = the zero point
  EXPECT_EQ(b.graph.tensor(folded.inputs.at(8)).name, "b");  // the int32 bias as it was
}

// Two layers: the Q -> DQ between them disappears; Clip(0, 6) becomes a clamp.
TEST(FoldQdq, ChainOfConvolutionsWithClip) {
  std::mt19937 rng(42);
  GraphBuilder b;
  TensorId x = b.input<uint8_t>("x", {1, 2, 5, 5}, random_ints<uint8_t>(50, 0, 255, rng()));
  TensorId h = dequantize<uint8_t>(b, x, 0.02f, 128);
  for (int layer = 0; layer < 2; ++layer) {
    TensorId w = int8_weights(b, {2, 2, 3, 3}, 0.011f, rng());
    TensorId conv = b.node("Conv", {h, w}, {{"pads", std::vector<int64_t>(4, 1)}});
    TensorId clipped = b.node("Clip", {conv, b.constant<float>("lo", {}, {0.0f}), b.constant<float>("hi", {}, {6.0f})});
    TensorId q = quantize<uint8_t>(b, clipped, 0.03f, 0);
    h = layer == 0 ? dequantize<uint8_t>(b, q, 0.03f, 0) : q;
  }
  expect_fold<uint8_t>(b, h, {"QLinearConv", "QLinearConv"});
  EXPECT_EQ(b.graph.nodes[1].inputs[0], b.graph.nodes[0].outputs[0]);   // reads the uint8 tensor
  EXPECT_EQ(b.graph.nodes[1].attr_int("aotc.clamp_max", -1), 200);  // Q(6) = 6 / 0.03
}

// DQ -> AveragePool / GlobalAveragePool -> Q becomes an int8 average pooling; the float
// graph, run as written, is the reference. The integer kernel rounds the exact mean once; the
// float graph rounds each dequantized value, the sum and the quotients first, so where the
// mean is a tie (windows of 6 and 30 values make exact halves) the two may pick different
// neighbours: one step, on at most two of the 60 and 36 outputs here.
TEST(FoldQdq, AveragePoolingBecomesInteger) {
  std::mt19937 rng(46);
  for (const char* op : {"AveragePool", "GlobalAveragePool"}) {
    SCOPED_TRACE(op);
    GraphBuilder b;
    TensorId x = b.input<int8_t>("x", {2, 3, 6, 5}, random_ints<int8_t>(180, -128, 127, rng()));
    std::map<std::string, AttrValue> attrs;
    if (std::string(op) == "AveragePool")
      attrs = {{"kernel_shape", std::vector<int64_t>{3, 2}}, {"strides", std::vector<int64_t>{2, 1}}};
    TensorId pooled = b.node(op, {dequantize<int8_t>(b, x, 0.023f, -7)}, attrs);
    expect_fold<int8_t>(b, quantize<int8_t>(b, pooled, 0.019f, 4), {"aotc.QLinearAveragePool"}, 2);
  }
}

// Padding (a window that leaves the input) is not what the integer pooling does: the
// pattern stays in float, as written.
TEST(FoldQdq, PaddedAveragePoolStaysFloat) {
  GraphBuilder b;
  TensorId x = b.input<int8_t>("x", {1, 2, 4, 4}, random_ints<int8_t>(32, -128, 127, 47));
  TensorId pooled = b.node("AveragePool", {dequantize<int8_t>(b, x, 0.02f, 0)},
                           {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>(4, 1)}});
  expect_fold<int8_t>(b, quantize<int8_t>(b, pooled, 0.02f, 0), {"DequantizeLinear", "AveragePool", "QuantizeLinear"});
}

TEST(FoldQdq, GemmWithTransposedWeightsAndFloatBias) {
  std::mt19937 rng(43);
  GraphBuilder b;
  TensorId a = b.input<int8_t>("a", {3, 8}, random_ints<int8_t>(24, -128, 127, rng()));
  TensorId w = int8_weights(b, {5, 8}, 0.01f, rng());
  // A float bias is rounded to the accumulator's scale 0.04 * 0.01.
  TensorId c = b.constant<float>("c", {5}, {0.1f, -0.25f, 0.0f, 1.0f, 0.3337f});
  TensorId gemm = b.node("Gemm", {dequantize<int8_t>(b, a, 0.04f, -1), w, c}, {{"transB", int64_t{1}}});
  TensorId y = quantize<int8_t>(b, gemm, 0.05f, 0);
  expect_fold<int8_t>(b, y, {"QLinearMatMul"});
  const Node& folded = b.graph.nodes[0];
  EXPECT_EQ(b.graph.tensor(folded.inputs[3]).shape, (Shape{8, 5}));
  std::vector<int64_t> bias = b.graph.tensor(folded.inputs.at(8)).ints();
  EXPECT_EQ(bias, (std::vector<int64_t>{250, -625, 0, 2500, 834}));
}

TEST(FoldQdq, MatMulPerColumnAndAdd) {
  std::mt19937 rng(44);
  GraphBuilder b;
  TensorId a = b.input<uint8_t>("a", {2, 3, 6}, random_ints<uint8_t>(36, 0, 255, rng()));
  TensorId w = b.node("DequantizeLinear",
                      {b.constant<int8_t>("w", {6, 4}, random_ints<int8_t>(24, -127, 127, rng())),
                       b.constant<float>("ws", {4}, {0.01f, 0.02f, 0.013f, 0.007f})},
                      {{"axis", int64_t{1}}});
  TensorId product = quantize<int8_t>(b, b.node("MatMul", {dequantize<uint8_t>(b, a, 0.015f, 120), w}), 0.04f, 1);
  TensorId other = b.input<int8_t>("other", {4}, {-100, -1, 0, 99});
  TensorId sum = b.node("Add", {dequantize<int8_t>(b, product, 0.04f, 1), dequantize<int8_t>(b, other, 0.017f, -2)});
  TensorId y = quantize<int8_t>(b, sum, 0.06f, -4);
  expect_fold<int8_t>(b, y, {"QLinearMatMul", "aotc.QLinearAdd"});
}

// What does not fit (here a Gemm with alpha != 1) stays in float, with the same results.
TEST(FoldQdq, LeavesUnsupportedPatternsAlone) {
  std::mt19937 rng(45);
  GraphBuilder b;
  TensorId a = b.input<int8_t>("a", {2, 4}, random_ints<int8_t>(8, -128, 127, rng()));
  TensorId w = int8_weights(b, {4, 3}, 0.01f, rng());
  TensorId gemm = b.node("Gemm", {dequantize<int8_t>(b, a, 0.04f, 0), w}, {{"alpha", 0.5}});
  TensorId y = quantize<int8_t>(b, gemm, 0.05f, 0);
  expect_fold<int8_t>(b, y, {"DequantizeLinear", "DequantizeLinear", "Gemm", "QuantizeLinear"});
}

}  // namespace
}  // namespace aotc::test
