// TFLite LOGISTIC, TANH, RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, HARD_SWISH, PRELU, ABS, NEG,
// SQRT, RSQRT, EXP, LOG, MINIMUM, MAXIMUM and SQUARED_DIFFERENCE
// (lowering/ops/tflite/tflite_activations.cc), in the IR interpreter.
//
// Float expectations are TFLite's reference expressions written out here; int8 ones are
// TFLite Micro's integer formulas (activations_common.cc, leaky_relu_common.cc,
// prelu_common.cc) over every int8 input, and also checked against real arithmetic
// within one step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"
#include "runtime-c/aotc_quant_softmax.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

std::vector<int8_t> all_int8() {
  std::vector<int8_t> v(256);
  for (int i = 0; i < 256; ++i) v[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
  return v;
}

int32_t mbqm(int32_t x, QuantizedMultiplier m) {
  int left = m.shift > 0 ? m.shift : 0, right = m.shift > 0 ? 0 : -m.shift;
  return aotc_rounding_divide_by_pot(aotc_sat_rounding_doubling_high_mul(x * (1 << left), m.multiplier), right);
}

int clamp8(int v) { return std::min(127, std::max(-128, v)); }

double real(int q, Quant p) { return p.scale * (q - static_cast<double>(p.zero_point)); }
int quantize_ideal(double x, Quant p) { return clamp8(static_cast<int>(std::round(x / p.scale)) + static_cast<int>(p.zero_point)); }

// Runs a one-input float operator on `x`.
std::vector<float> run_float(const std::string& op, const std::vector<float>& x, std::map<std::string, AttrValue> attrs = {}) {
  OneNode n(op);
  n.input({static_cast<int64_t>(x.size())}, x).output(DataType::Float32(), {static_cast<int64_t>(x.size())});
  for (auto& [k, v] : attrs) n.attr(k, v);
  return n.run<float>();
}

std::vector<int8_t> run_int8(const std::string& op, Quant qx, Quant qy, std::map<std::string, AttrValue> attrs = {}) {
  OneNode n(op);
  n.input({256}, all_int8(), qx).output(DataType::Int(8), {256}, qy);
  for (auto& [k, v] : attrs) n.attr(k, v);
  return n.run<int8_t>();
}

const std::vector<float> kFloats = {-20.0f, -9.5f, -9.0f, -3.0f, -1.5f, -0.5f, -0.0f, 0.0f,
                                    0.25f,  1.0f,  2.9f,  3.0f,  6.0f,  7.5f,  16.6f, 17.0f};

// ---------------------------------------------------------------- float

TEST(TfliteActivations, FloatLogisticTanhAndReluFamily) {
  std::vector<float> logistic = run_float("tfl.LOGISTIC", kFloats), tanh = run_float("tfl.TANH", kFloats);
  std::vector<float> relu = run_float("tfl.RELU", kFloats), relu6 = run_float("tfl.RELU6", kFloats);
  std::vector<float> relu1 = run_float("tfl.RELU_N1_TO_1", kFloats);
  std::vector<float> leaky = run_float("tfl.LEAKY_RELU", kFloats, {{"alpha", 0.3}});
  std::vector<float> hard_swish = run_float("tfl.HARD_SWISH", kFloats);
  for (size_t i = 0; i < kFloats.size(); ++i) {
    float x = kFloats[i];
    // reference_ops::Logistic: 1 above 16.619047, exp(x) below -9, else 1 / (1 + exp(-x)).
    float want_logistic = x > 16.619047164916992188f ? 1.0f : x < -9.0f ? std::exp(x) : 1.0f / (1.0f + std::exp(-x));
    EXPECT_EQ(logistic[i], want_logistic) << x;
    EXPECT_EQ(tanh[i], std::tanh(x)) << x;
    EXPECT_EQ(relu[i], x < 0 ? 0.0f : x) << x;
    EXPECT_EQ(relu6[i], x > 6 ? 6.0f : x < 0 ? 0.0f : x) << x;
    EXPECT_EQ(relu1[i], x > 1 ? 1.0f : x < -1 ? -1.0f : x) << x;
    EXPECT_EQ(leaky[i], x > 0 ? x : x * 0.3f) << x;
    EXPECT_EQ(hard_swish[i], x * std::min(6.0f, std::max(0.0f, x + 3)) / 6) << x;
  }
}

TEST(TfliteMath, FloatUnaryFunctions) {
  std::vector<float> positive = {0.01f, 0.5f, 1.0f, 2.0f, 100.0f, 1e-30f};
  std::vector<float> sqrt = run_float("tfl.SQRT", positive), rsqrt = run_float("tfl.RSQRT", positive);
  std::vector<float> log = run_float("tfl.LOG", positive);
  for (size_t i = 0; i < positive.size(); ++i) {
    EXPECT_EQ(sqrt[i], std::sqrt(positive[i]));
    EXPECT_EQ(rsqrt[i], 1.0f / std::sqrt(positive[i]));
    EXPECT_EQ(log[i], std::log(positive[i]));
  }
  std::vector<float> abs = run_float("tfl.ABS", kFloats), neg = run_float("tfl.NEG", kFloats);
  std::vector<float> exp = run_float("tfl.EXP", kFloats);
  for (size_t i = 0; i < kFloats.size(); ++i) {
    EXPECT_EQ(abs[i], std::fabs(kFloats[i]));
    EXPECT_EQ(neg[i], -kFloats[i]);
    EXPECT_EQ(exp[i], std::exp(kFloats[i]));
  }
}

TEST(TfliteMath, RejectsQuantizedInputsItHasNoKernelFor) {
  OneNode n("tfl.EXP");
  n.input({2}, std::vector<int8_t>{1, 2}, {0.1f, 0}).output(DataType::Int(8), {2}, {0.1f, 0});
  EXPECT_NE(n.error().find("input 'in0' is int8; supported: float32"), std::string::npos) << n.error();
}

// ---------------------------------------------------------------- int8

TEST(TfliteActivations, Int8ReluRequantizesAndClampsAtTheOutputZeroPoint) {
  Quant qx{0.05f, 10}, qy{0.04f, -20};
  std::vector<int8_t> got = run_int8("tfl.RELU", qx, qy);
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qx.scale) / static_cast<double>(qy.scale));
  for (int i = 0; i < 256; ++i) {
    int x = i - 128;
    int want = std::min(127, std::max(-20, mbqm(x - 10, m) - 20));
    ASSERT_EQ(got[static_cast<size_t>(i)], want) << x;
    EXPECT_LE(std::abs(want - quantize_ideal(std::max(0.0, real(x, qx)), qy)), 1) << x;
  }
}

TEST(TfliteActivations, Int8Relu6ClampsTheRawValue) {
  Quant q{0.03f, -7};  // 6 / 0.03 = 200 steps: six saturates at 127
  std::vector<int8_t> got = run_int8("tfl.RELU6", q, q);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], std::max(-7, i - 128)) << i;
  Quant coarse{0.1f, 3};  // six = round(60) + 3 = 63
  got = run_int8("tfl.RELU6", coarse, coarse);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], std::min(63, std::max(3, i - 128))) << i;
}

TEST(TfliteActivations, Int8LeakyReluFollowsTfliteMicro) {
  Quant qx{0.02f, 5}, qy{0.015f, -9};
  float alpha = 0.1f;
  std::vector<int8_t> got = run_int8("tfl.LEAKY_RELU", qx, qy, {{"alpha", static_cast<double>(alpha)}});
  QuantizedMultiplier identity = quantize_multiplier(static_cast<double>(qx.scale / qy.scale));
  QuantizedMultiplier negative = quantize_multiplier(static_cast<double>(qx.scale * alpha / qy.scale));
  for (int i = 0; i < 256; ++i) {
    int v = i - 128 - 5;
    int want = clamp8((v >= 0 ? mbqm(v, identity) : mbqm(v, negative)) - 9);
    ASSERT_EQ(got[static_cast<size_t>(i)], want) << v;
    double r = real(i - 128, qx);
    EXPECT_LE(std::abs(want - quantize_ideal(r > 0 ? r : r * alpha, qy)), 1) << v;
  }
}

TEST(TfliteActivations, PreluBroadcastsAlphaPerChannel) {
  std::vector<float> x = random_floats(24, 3, 2.0f), alpha = {0.1f, -0.5f, 2.0f};
  OneNode f("tfl.PRELU");
  f.input({2, 4, 3}, x).input({3}, alpha).output(DataType::Float32(), {2, 4, 3});
  std::vector<float> got = f.run<float>();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], x[i] >= 0 ? x[i] : x[i] * alpha[i % 3]);

  Quant qx{0.03f, -4}, qa{0.01f, 3}, qy{0.05f, 6};
  std::vector<int8_t> xq = all_int8(), aq = {-50, 20, 127, -128};
  OneNode n("tfl.PRELU");
  n.input({64, 4}, xq, qx).input({4}, aq, qa).output(DataType::Int(8), {64, 4}, qy);
  std::vector<int8_t> q = n.run<int8_t>();
  QuantizedMultiplier positive = quantize_multiplier(static_cast<double>(qx.scale) / static_cast<double>(qy.scale));
  QuantizedMultiplier negative = quantize_multiplier(static_cast<double>(qx.scale) * static_cast<double>(qa.scale) /
                                                     static_cast<double>(qy.scale));
  for (size_t i = 0; i < 256; ++i) {
    int v = xq[i] + 4, a = aq[i % 4] - 3;
    int want = clamp8((v >= 0 ? mbqm(v, positive) : mbqm(v * a, negative)) + 6);
    ASSERT_EQ(q[i], want) << i;
  }
}

// The fixed-point logistic and tanh (runtime-c/aotc_quant_softmax.h, gemmlowp's algorithms
// step for step) against libm over their Q4.27 input range: the Newton-Raphson reciprocal
// and the exp Taylor step are accurate to about 2^-20.
TEST(FixedPoint, LogisticAndTanhAreAccurate) {
  double worst_logistic = 0, worst_tanh = 0;
  for (int64_t a = -(int64_t{1} << 31) + 1; a < (int64_t{1} << 31); a += 65537) {
    double x = static_cast<double>(a) / (1 << 27);
    double logistic = aotc_logistic_q4_27(static_cast<int32_t>(a)) / 2147483648.0;
    double tanh = aotc_tanh_q4_27(static_cast<int32_t>(a)) / 2147483648.0;
    worst_logistic = std::max(worst_logistic, std::fabs(logistic - 1 / (1 + std::exp(-x))));
    worst_tanh = std::max(worst_tanh, std::fabs(tanh - std::tanh(x)));
  }
  EXPECT_LT(worst_logistic, 2e-6);
  EXPECT_LT(worst_tanh, 4e-6);
  EXPECT_EQ(aotc_logistic_q4_27(0), 1 << 30);
  EXPECT_EQ(aotc_tanh_q4_27(0), 0);
}

// TFLite's int8 LOGISTIC (output scale 1/256, zero point -128) and TANH (1/128, 0): the
// input's zero point maps to exactly 1/2 and 0, values beyond the input radius saturate,
// and every value is within one step of the real function.
TEST(TfliteActivations, Int8LogisticAndTanhWithinOneStep) {
  for (Quant qx : {Quant{0.0625f, 5}, Quant{0.02f, -10}, Quant{0.3f, 0}}) {
    std::vector<int8_t> logistic = run_int8("tfl.LOGISTIC", qx, {1.0f / 256, -128});
    std::vector<int8_t> tanh = run_int8("tfl.TANH", qx, {1.0f / 128, 0});
    for (int i = 0; i < 256; ++i) {
      int q = i - 128;
      double x = real(q, qx);
      double want_logistic = 1 / (1 + std::exp(-x)) * 256 - 128, want_tanh = std::tanh(x) * 128;
      EXPECT_LE(std::fabs(logistic[static_cast<size_t>(i)] - std::min(127.0, want_logistic)), 1.0) << "scale " << qx.scale << " x " << x;
      EXPECT_LE(std::fabs(tanh[static_cast<size_t>(i)] - std::min(127.0, std::max(-128.0, want_tanh))), 1.0) << "x " << x;
      if (i > 0) {
        EXPECT_GE(logistic[static_cast<size_t>(i)], logistic[static_cast<size_t>(i - 1)]);
        EXPECT_GE(tanh[static_cast<size_t>(i)], tanh[static_cast<size_t>(i - 1)]);
      }
      if (q == qx.zero_point) {
        EXPECT_EQ(logistic[static_cast<size_t>(i)], 0);
        EXPECT_EQ(tanh[static_cast<size_t>(i)], 0);
      }
    }
  }
  // 0.3 * 127 is far beyond 16: the top saturates.
  EXPECT_EQ(run_int8("tfl.LOGISTIC", {0.3f, 0}, {1.0f / 256, -128}).back(), 127);
  EXPECT_EQ(run_int8("tfl.TANH", {0.3f, 0}, {1.0f / 128, 0}).front(), -128);
}

// TFLite's int8 HARD_SWISH works on 16-bit fixed-point values: within one output step of
// the real x * relu6(x + 3) / 6 (the products round toward zero, which TFLite chose to
// cancel a bias), exact where the real result is 0.
TEST(TfliteActivations, Int8HardSwishWithinOneStep) {
  for (auto [qx, qy] : std::vector<std::pair<Quant, Quant>>{{{0.05f, -10}, {0.03f, -100}},
                                                            {{0.1f, 20}, {0.06f, -118}},
                                                            {{0.02f, 0}, {0.02f, -30}}}) {
    std::vector<int8_t> got = run_int8("tfl.HARD_SWISH", qx, qy);
    int exact = 0;
    for (int i = 0; i < 256; ++i) {
      double x = real(i - 128, qx);
      double want = x * std::min(6.0, std::max(0.0, x + 3)) / 6;
      int ideal = quantize_ideal(want, qy);
      EXPECT_LE(std::abs(got[static_cast<size_t>(i)] - ideal), 1) << "x " << x << " scale " << qx.scale;
      exact += got[static_cast<size_t>(i)] == ideal;
      if (want == 0) EXPECT_EQ(got[static_cast<size_t>(i)], qy.zero_point) << x;
    }
    EXPECT_GT(exact, 200) << qx.scale;
  }
}

TEST(TfliteActivations, Int8LogisticNeedsTheOutputZeroPointTfliteMicroRequires) {
  OneNode n("tfl.LOGISTIC");
  n.input({2}, std::vector<int8_t>{0, 1}, {0.1f, 0}).output(DataType::Int(8), {2}, {1.0f / 256, 0});
  EXPECT_NE(n.error().find("needs the output zero point -128"), std::string::npos) << n.error();
}

// ---------------------------------------------------------------- binary

TEST(TfliteMinMax, BroadcastOverFloatAndRawInt8) {
  std::vector<float> a = random_floats(6, 4), b = random_floats(3, 5);
  OneNode mn("tfl.MINIMUM"), mx("tfl.MAXIMUM"), sq("tfl.SQUARED_DIFFERENCE");
  for (OneNode* n : {&mn, &mx, &sq}) n->input({2, 3}, a).input({3}, b).output(DataType::Float32(), {2, 3});
  std::vector<float> got_min = mn.run<float>(), got_max = mx.run<float>(), got_sq = sq.run<float>();
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(got_min[i], std::min(a[i], b[i % 3]));
    EXPECT_EQ(got_max[i], std::max(a[i], b[i % 3]));
    EXPECT_EQ(got_sq[i], (a[i] - b[i % 3]) * (a[i] - b[i % 3]));
  }
  Quant q{0.1f, 2};
  OneNode n("tfl.MAXIMUM");
  n.input({4}, std::vector<int8_t>{-128, 0, 5, 127}, q).input({1}, std::vector<int8_t>{3}, q);
  n.output(DataType::Int(8), {4}, q);
  EXPECT_EQ(n.run<int8_t>(), (std::vector<int8_t>{3, 3, 5, 127}));
}

}  // namespace
}  // namespace aotc::test
