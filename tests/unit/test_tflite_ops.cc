// TFLite ADD, SUB, MUL, AVERAGE_POOL_2D, MAX_POOL_2D, SOFTMAX, RESHAPE, QUANTIZE and
// DEQUANTIZE (lowering/ops/tflite/tflite_{elementwise,pool,softmax,misc}.cc) and the fixed-point
// functions of runtime-c/aotc_quant_softmax.h.
//
// Each case builds a one-node graph, runs the operator's shape function, lowers it and
// runs the kernel in the IR interpreter, before and after Simplify. Expectations come
// from elsewhere than the kernel: real-number arithmetic on the dequantized values (an
// int8 result may then be one step off, from TFLite's double rounding, and no more),
// cases whose exact result follows by hand from TFLite's definitions, and where bits
// matter, TFLite's formulas written out here in plain C++.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"
#include "runtime-c/aotc_quant_softmax.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

std::vector<int8_t> random_int8(size_t n, uint32_t seed) { return random_ints<int8_t>(n, -128, 127, seed); }

// Real value of an int8 element.
double real(int q, Quant p) { return p.scale * (q - static_cast<double>(p.zero_point)); }

// round(x / scale) + zero point, half away from zero, clamped to int8: the ideal result.
int quantize_ideal(double x, Quant p, int lo = -128, int hi = 127) {
  double q = std::round(x / p.scale) + static_cast<double>(p.zero_point);
  return static_cast<int>(std::min<double>(hi, std::max<double>(lo, q)));
}

// Flat index of `out` (a multi-index into `out_shape`) in a tensor of shape `shape`
// that numpy-broadcasts to it.
size_t broadcast_index(const Shape& shape, const Shape& out_shape, const std::vector<int64_t>& out) {
  size_t flat = 0;
  size_t offset = out_shape.size() - shape.size();
  for (size_t j = 0; j < shape.size(); ++j) flat = flat * shape[j] + (shape[j] == 1 ? 0 : out[offset + j]);
  return flat;
}

// ---------------------------------------------------------------- ADD, SUB, MUL

// With equal scales and zero points, TFLite's ADD is exact: each input is scaled by
// 2^20 * 1/2, the sum by 2^-19, all multipliers powers of two.
TEST(TfliteAdd, Int8WithEqualQuantizationIsTheExactSum) {
  Quant q{0.25f, -3};
  std::vector<int8_t> a = random_int8(64, 1), b = random_int8(64, 2);
  OneNode n("tfl.ADD");
  n.input({64}, a, q).input({64}, b, q).output(DataType::Int(8), {64}, q);
  std::vector<int8_t> got = n.run<int8_t>();
  for (size_t i = 0; i < a.size(); ++i) {
    int want = std::min(127, std::max(-128, a[i] + b[i] - static_cast<int>(q.zero_point)));
    EXPECT_EQ(got[i], want) << int(a[i]) << " + " << int(b[i]);
  }
}

struct BinaryCase {
  const char* op;
  double (*real_op)(double, double);
};

class TfliteInt8Arithmetic : public ::testing::TestWithParam<BinaryCase> {};

// Random scales, zero points and broadcasting: within one step of the real result.
TEST_P(TfliteInt8Arithmetic, BroadcastWithinOneStepOfRealArithmetic) {
  const BinaryCase& c = GetParam();
  Quant qa{0.037f, 5}, qb{0.011f, -20}, qy{0.045f, -7};
  Shape sa = {2, 3, 1, 5}, sb = {4, 1}, sy = {2, 3, 4, 5};
  std::vector<int8_t> a = random_int8(30, 3), b = random_int8(4, 4);
  OneNode n(c.op);
  n.input(sa, a, qa).input(sb, b, qb).output(DataType::Int(8), sy, qy);
  std::vector<int8_t> got = n.run<int8_t>();
  int exact = 0;
  for_each_index(sy, [&](const std::vector<int64_t>& idx, size_t flat) {
    double x = real(a[broadcast_index(sa, sy, idx)], qa), y = real(b[broadcast_index(sb, sy, idx)], qb);
    int want = quantize_ideal(c.real_op(x, y), qy);
    EXPECT_LE(std::abs(got[flat] - want), 1) << "element " << flat;
    exact += got[flat] == want;
  });
  EXPECT_GT(exact, 110);  // of 120: off by one only near a rounding tie
}

INSTANTIATE_TEST_SUITE_P(Ops, TfliteInt8Arithmetic,
                         ::testing::Values(BinaryCase{"tfl.ADD", [](double x, double y) { return x + y; }},
                                           BinaryCase{"tfl.SUB", [](double x, double y) { return x - y; }},
                                           BinaryCase{"tfl.MUL", [](double x, double y) { return x * y; }}),
                         [](const auto& info) { return std::string(info.param.op).substr(4); });

// TFLite's int8 ADD written out (integer_ops/add.h, add_common.cc), for bit equality.
int tflite_add_int8(int x, int y, Quant q1, Quant q2, Quant qo, int act_min, int act_max) {
  double twice_max = 2 * static_cast<double>(std::max(q1.scale, q2.scale));
  QuantizedMultiplier m1 = quantize_multiplier(q1.scale / twice_max);
  QuantizedMultiplier m2 = quantize_multiplier(q2.scale / twice_max);
  QuantizedMultiplier mo = quantize_multiplier(twice_max / ((1 << 20) * static_cast<double>(qo.scale)));
  auto smaller_than_one = [](int32_t v, QuantizedMultiplier m) {
    return aotc_rounding_divide_by_pot(aotc_sat_rounding_doubling_high_mul(v, m.multiplier), -m.shift);
  };
  int32_t s1 = smaller_than_one((x - static_cast<int32_t>(q1.zero_point)) * (1 << 20), m1);
  int32_t s2 = smaller_than_one((y - static_cast<int32_t>(q2.zero_point)) * (1 << 20), m2);
  int32_t out = smaller_than_one(s1 + s2, mo) + static_cast<int32_t>(qo.zero_point);
  return std::min(act_max, std::max(act_min, out));
}

TEST(TfliteAdd, Int8FollowsTfliteBitForBitWithRelu) {
  Quant q1{0.0213f, -11}, q2{0.0517f, 30}, qo{0.0602f, -128};
  std::vector<int8_t> a = random_int8(256, 5), b = random_int8(256, 6);
  OneNode n("tfl.ADD");
  n.input({256}, a, q1).input({256}, b, q2).output(DataType::Int(8), {256}, qo);
  n.attr("fused_activation", std::string("RELU"));
  std::vector<int8_t> got = n.run<int8_t>();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(got[i], tflite_add_int8(a[i], b[i], q1, q2, qo, -128, 127)) << i;
}

TEST(TfliteAdd, FusedRelu6ClampsInTheQuantizedDomain) {
  Quant q{0.1f, 0};
  std::vector<int8_t> a = {50, 40, -50, 30}, b = {50, 30, -10, 29};  // 10.0, 7.0, -6.0, 5.9
  OneNode n("tfl.ADD");
  n.input({4}, a, q).input({4}, b, q).output(DataType::Int(8), {4}, q);
  n.attr("fused_activation", std::string("RELU6"));
  EXPECT_EQ(n.run<int8_t>(), (std::vector<int8_t>{60, 60, 0, 59}));
}

TEST(TfliteArithmetic, FloatBroadcastsAndAppliesTheActivation) {
  std::vector<float> a = random_floats(6, 7), b = random_floats(4, 8);
  for (const char* op : {"tfl.ADD", "tfl.SUB", "tfl.MUL"}) {
    OneNode n(op);
    n.input({2, 1, 3}, a)
        .input({4, 1}, b)
        .output(DataType::Float32(), {2, 4, 3});
    n.attr("fused_activation", std::string("RELU_N1_TO_1"));
    std::vector<float> got = n.run<float>();
    for_each_index({2, 4, 3}, [&](const std::vector<int64_t>& idx, size_t flat) {
      float x = a[broadcast_index({2, 1, 3}, {2, 4, 3}, idx)], y = b[broadcast_index({4, 1}, {2, 4, 3}, idx)];
      float r = op == std::string("tfl.ADD") ? x + y : op == std::string("tfl.SUB") ? x - y : x * y;
      EXPECT_EQ(got[flat], std::min(1.0f, std::max(-1.0f, r))) << op << " element " << flat;
    });
  }
}

TEST(TfliteArithmetic, RejectsUnsupportedTypesAndDeclaredShapeMismatch) {
  // uint8 is none of TFLite Micro's arithmetic types.
  OneNode uint8("tfl.MUL");
  uint8.input({2}, std::vector<uint8_t>{1, 2}, {0.1f, 0})
      .input({2}, std::vector<uint8_t>{1, 2}, {0.1f, 0})
      .output(DataType::UInt(8), {2}, {0.1f, 0});
  EXPECT_NE(uint8.error().find("input 'in0' is uint8; only float32, int8, int16 and int32 are supported"), std::string::npos)
      << uint8.error();
  // An int16 MUL takes zero points 0, as TFLite Micro requires.
  OneNode int16("tfl.MUL");
  int16.input({2}, std::vector<int16_t>{1, 2}, {0.1f, 3})
      .input({2}, std::vector<int16_t>{1, 2}, {0.1f, 0})
      .output(DataType::Int(16), {2}, {0.1f, 0});
  EXPECT_NE(int16.error().find("has zero point 3; an int16 MUL takes zero points 0"), std::string::npos) << int16.error();

  // int32 arithmetic is on plain integers, as TFLite Micro's ADD and SUB require.
  OneNode quantized_int32("tfl.ADD");
  quantized_int32.input({2}, std::vector<int32_t>{1, 2}, {0.1f, 0})
      .input({2}, std::vector<int32_t>{1, 2})
      .output(DataType::Int(32), {2});
  EXPECT_NE(quantized_int32.error().find("is a quantized int32"), std::string::npos) << quantized_int32.error();

  OneNode shape("tfl.ADD");
  shape.input({2, 3}, random_floats(6, 1))
      .input({3}, random_floats(3, 2))
      .output(DataType::Float32(), {3, 2});
  EXPECT_NE(shape.error().find("'out' is [3, 2] in the model"), std::string::npos) << shape.error();
}

// ---------------------------------------------------------------- pooling

struct PoolCase {
  int64_t in_h, in_w, filter_h, filter_w, stride_h, stride_w;
  const char* padding;
  int64_t out_h, out_w, pad_top, pad_left;  // worked out by hand from TFLite's rules
};

// Calls f(iy, ix) for the taps of output (oy, ox) that fall inside the input.
template <typename F>
void for_each_tap(const PoolCase& p, int64_t oy, int64_t ox, F f) {
  for (int64_t ky = 0; ky < p.filter_h; ++ky) {
    for (int64_t kx = 0; kx < p.filter_w; ++kx) {
      int64_t iy = oy * p.stride_h - p.pad_top + ky, ix = ox * p.stride_w - p.pad_left + kx;
      if (iy >= 0 && iy < p.in_h && ix >= 0 && ix < p.in_w) f(iy, ix);
    }
  }
}

class TflitePool : public ::testing::TestWithParam<PoolCase> {
 protected:
  static constexpr int64_t kBatches = 2, kChannels = 3;
  Shape in_shape() const { return {kBatches, GetParam().in_h, GetParam().in_w, kChannels}; }
  Shape out_shape() const { return {kBatches, GetParam().out_h, GetParam().out_w, kChannels}; }
  size_t in_index(int64_t n, int64_t y, int64_t x, int64_t c) const {
    return static_cast<size_t>(((n * GetParam().in_h + y) * GetParam().in_w + x) * kChannels + c);
  }

  OneNode pool(const char* op) const {
    const PoolCase& p = GetParam();
    OneNode n(op);
    n.attr("filter_h", p.filter_h).attr("filter_w", p.filter_w).attr("stride_h", p.stride_h);
    n.attr("stride_w", p.stride_w).attr("padding", std::string(p.padding));
    return n;
  }

  // Calls f(n, oy, ox, c, flat) for every output element.
  template <typename F>
  void for_each_output(F f) const {
    for_each_index(out_shape(), [&](const std::vector<int64_t>& o, size_t flat) { f(o[0], o[1], o[2], o[3], flat); });
  }
};

TEST_P(TflitePool, Int8AverageDividesByInBoundsCountRoundingHalfAway) {
  Quant q{0.05f, 10};
  std::vector<int8_t> x = random_int8(static_cast<size_t>(kBatches * GetParam().in_h * GetParam().in_w * kChannels), 9);
  OneNode n = pool("tfl.AVERAGE_POOL_2D");
  n.input(in_shape(), x, q).output(DataType::Int(8), out_shape(), q);
  std::vector<int8_t> got = n.run<int8_t>();
  for_each_output([&](int64_t b, int64_t oy, int64_t ox, int64_t c, size_t flat) {
    int sum = 0, count = 0;
    for_each_tap(GetParam(), oy, ox, [&](int64_t iy, int64_t ix) { sum += x[in_index(b, iy, ix, c)], ++count; });
    EXPECT_EQ(got[flat], static_cast<int>(std::round(static_cast<double>(sum) / count))) << "output " << flat;
  });
}

TEST_P(TflitePool, Int8MaxThenFusedReluClamp) {
  Quant q{0.05f, 10};  // RELU clamps at the zero point, 10
  std::vector<int8_t> x =
      random_int8(static_cast<size_t>(kBatches * GetParam().in_h * GetParam().in_w * kChannels), 10);
  OneNode n = pool("tfl.MAX_POOL_2D");
  n.input(in_shape(), x, q).output(DataType::Int(8), out_shape(), q);
  n.attr("fused_activation", std::string("RELU"));
  std::vector<int8_t> got = n.run<int8_t>();
  for_each_output([&](int64_t b, int64_t oy, int64_t ox, int64_t c, size_t flat) {
    int max = -128;
    for_each_tap(GetParam(), oy, ox,
                 [&](int64_t iy, int64_t ix) { max = std::max<int>(max, x[in_index(b, iy, ix, c)]); });
    EXPECT_EQ(got[flat], std::max(max, 10)) << "output " << flat;
  });
}

TEST_P(TflitePool, FloatAverageAndMax) {
  std::vector<float> x =
      random_floats(static_cast<size_t>(kBatches * GetParam().in_h * GetParam().in_w * kChannels), 11);
  OneNode avg = pool("tfl.AVERAGE_POOL_2D");
  avg.input(in_shape(), x).output(DataType::Float32(), out_shape());
  OneNode max = pool("tfl.MAX_POOL_2D");
  max.input(in_shape(), x)
      .output(DataType::Float32(), out_shape())
      .attr("fused_activation", std::string("RELU6"));
  std::vector<float> got_avg = avg.run<float>(), got_max = max.run<float>();
  for_each_output([&](int64_t b, int64_t oy, int64_t ox, int64_t c, size_t flat) {
    float sum = 0.0f, count = 0.0f, m = std::numeric_limits<float>::lowest();
    for_each_tap(GetParam(), oy, ox, [&](int64_t iy, int64_t ix) {
      float v = x[in_index(b, iy, ix, c)];
      sum += v, count += 1.0f, m = std::max(m, v);
    });
    EXPECT_EQ(got_avg[flat], sum / count) << "output " << flat;
    EXPECT_EQ(got_max[flat], std::min(6.0f, std::max(0.0f, m))) << "output " << flat;
  });
}

// SAME: out = ceil(in / stride), total padding = (out - 1) * stride + filter - in, the
// smaller half before.
INSTANTIATE_TEST_SUITE_P(Windows, TflitePool,
                         ::testing::Values(PoolCase{5, 6, 3, 2, 2, 1, "SAME", 3, 6, 1, 0},
                                           PoolCase{4, 4, 3, 3, 1, 1, "SAME", 4, 4, 1, 1},
                                           PoolCase{7, 5, 2, 3, 2, 2, "VALID", 3, 2, 0, 0},
                                           PoolCase{3, 3, 2, 2, 2, 2, "SAME", 2, 2, 0, 0}),
                         [](const auto& info) {
                           const PoolCase& p = info.param;
                           return std::string(p.padding) + "_" + std::to_string(p.filter_h) + "x" +
                                  std::to_string(p.filter_w) + "_stride" + std::to_string(p.stride_h) +
                                  std::to_string(p.stride_w) + "_in" + std::to_string(p.in_h) + "x" +
                                  std::to_string(p.in_w);
                         });

TEST(TflitePoolErrors, Int8InputAndOutputMustShareQuantization) {
  OneNode n("tfl.AVERAGE_POOL_2D");
  n.input({1, 2, 2, 1}, random_int8(4, 1), {0.1f, 0})
      .output(DataType::Int(8), {1, 1, 1, 1}, {0.2f, 0});
  n.attr("filter_h", int64_t{2}).attr("filter_w", int64_t{2}).attr("padding", std::string("VALID"));
  EXPECT_NE(n.error().find("different quantization"), std::string::npos) << n.error();
}

// ---------------------------------------------------------------- SOFTMAX

const Quant kSoftmaxInt8Out{1.0f / 256, -128};

// Equal inputs: each probability is 1/depth exactly, i.e. 256/depth - 128.
TEST(TfliteSoftmax, Int8EqualInputsGiveTheUniformDistribution) {
  for (int64_t depth : {1, 2, 4, 8, 16}) {
    OneNode n("tfl.SOFTMAX");
    n.input({1, depth}, std::vector<int8_t>(static_cast<size_t>(depth), 17), {0.1f, 3});
    n.output(DataType::Int(8), {1, depth}, kSoftmaxInt8Out).attr("beta", 1.0);
    std::vector<int8_t> got = n.run<int8_t>();
    int want = std::min(127, static_cast<int>(256 / depth) - 128);
    for (int8_t v : got) EXPECT_EQ(v, want) << "depth " << depth;
  }
}

// Rows of random int8 values with a range of scales and betas: one step of 1/256 at most
// from the real softmax (the fixed-point exp and reciprocal are accurate to about 2^-20).
TEST(TfliteSoftmax, Int8WithinOneStepOfRealSoftmax) {
  const int64_t rows = 6, depth = 37;
  uint32_t seed = 20;
  for (float scale : {0.004f, 0.05f, 0.17f}) {
    for (double beta : {1.0, 0.5, 2.0}) {
      Quant q{scale, -5};
      std::vector<int8_t> x = random_int8(static_cast<size_t>(rows * depth), ++seed);
      OneNode n("tfl.SOFTMAX");
      n.input({2, 3, depth}, x, q).output(DataType::Int(8), {2, 3, depth}, kSoftmaxInt8Out);
      n.attr("beta", beta);
      std::vector<int8_t> got = n.run<int8_t>();
      for (int64_t r = 0; r < rows; ++r) {
        const int8_t* row = &x[static_cast<size_t>(r * depth)];
        int max = *std::max_element(row, row + depth);
        double sum = 0;
        for (int64_t c = 0; c < depth; ++c) sum += std::exp(beta * scale * (row[c] - max));
        for (int64_t c = 0; c < depth; ++c) {
          double p = std::exp(beta * scale * (row[c] - max)) / sum;
          int want = quantize_ideal(p, kSoftmaxInt8Out);
          EXPECT_LE(std::abs(got[static_cast<size_t>(r * depth + c)] - want), 1)
              << "scale " << scale << " beta " << beta << " row " << r << " class " << c << " p " << p;
        }
      }
    }
  }
}

// Scale 1, beta 1: the input multiplier is 2^26 (2^30 with left shift 27), so diff_min is
// -floor(31 * 2^26 / 2^27) = -15. Differences of -16 and below are dropped; their
// exponentials (below exp(-15.5)) would round away anyway.
TEST(TfliteSoftmax, Int8DominantClassSaturatesAndFarClassesGiveTheMinimum) {
  OneNode n("tfl.SOFTMAX");
  n.input({4}, std::vector<int8_t>{0, -15, -16, -100}, {1.0f, 0});
  n.output(DataType::Int(8), {4}, kSoftmaxInt8Out).attr("beta", 1.0);
  std::vector<int8_t> got = n.run<int8_t>();
  EXPECT_EQ(got[0], 127);   // p ~ 1
  EXPECT_EQ(got[1], -128);  // exp(-15) * 256 rounds to 0
  EXPECT_EQ(got[2], -128);  // below diff_min
  EXPECT_EQ(got[3], -128);  // below diff_min
}

TEST(TfliteSoftmax, Int8ToInt16WithinOneStepOfRealSoftmax) {
  Quant q{0.07f, 0}, qy{1.0f / 65536, -32768};
  std::vector<int8_t> x = random_int8(50, 31);
  OneNode n("tfl.SOFTMAX");
  n.input({5, 10}, x, q).output(DataType::Int(16), {5, 10}, qy).attr("beta", 1.0);
  std::vector<int16_t> got = n.run<int16_t>();
  for (int r = 0; r < 5; ++r) {
    int max = *std::max_element(&x[r * 10], &x[r * 10] + 10);
    double sum = 0;
    for (int c = 0; c < 10; ++c) sum += std::exp(q.scale * (x[r * 10 + c] - max));
    for (int c = 0; c < 10; ++c) {
      int want = quantize_ideal(std::exp(q.scale * (x[r * 10 + c] - max)) / sum, qy, -32768, 32767);
      EXPECT_LE(std::abs(got[r * 10 + c] - want), 1) << r << " " << c;
    }
  }
}

// 600 equal values: the sum of exponentials is 600 > 512 and TFLite Micro's check on the
// shift fails. aotc gives what the arithmetic gives, 1/600 -> 0.43 steps -> -128.
TEST(TfliteSoftmax, Int8WideRowsBeyondTflitesShiftLimit) {
  OneNode n("tfl.SOFTMAX");
  n.input({600}, std::vector<int8_t>(600, 5), {0.1f, 0});
  n.output(DataType::Int(8), {600}, kSoftmaxInt8Out).attr("beta", 1.0);
  for (int8_t v : n.run<int8_t>()) ASSERT_EQ(v, -128);
}

TEST(TfliteSoftmax, FloatFollowsTflitesFormula) {
  std::vector<float> x = random_floats(24, 40);
  OneNode n("tfl.SOFTMAX");
  n.input({2, 12}, x).output(DataType::Float32(), {2, 12}).attr("beta", 0.75);
  std::vector<float> got = n.run<float>();
  for (int r = 0; r < 2; ++r) {
    float max = std::numeric_limits<float>::lowest(), sum = 0.0f;
    for (int c = 0; c < 12; ++c) max = std::max(max, x[r * 12 + c]);
    std::vector<float> e(12);
    for (int c = 0; c < 12; ++c) sum += e[c] = std::exp((x[r * 12 + c] - max) * 0.75f);
    for (int c = 0; c < 12; ++c) EXPECT_EQ(got[r * 12 + c], e[c] / sum) << r << " " << c;
  }
}

TEST(TfliteSoftmax, RejectsOutputQuantizationTfliteRejects) {
  OneNode n("tfl.SOFTMAX");
  n.input({4}, random_int8(4, 1), {0.1f, 0}).output(DataType::Int(8), {4}, {1.0f / 128, -128});
  EXPECT_NE(n.error().find("output 'out' has scale"), std::string::npos) << n.error();
}

// The fixed-point helpers against libm, over their whole input ranges. (They also agree
// bit for bit with gemmlowp's fixedpoint.h on every input, checked once outside the tests.)
// exp's error is that of its degree-4 Taylor step around -1/8 on [-1/4, 0):
// at most exp(-1/8) * (1/8)^5 / 5! = 2.2e-7, plus roundings.
TEST(FixedPoint, ExpOnNegativeValuesIsAccurate) {
  double worst = 0;
  for (int64_t a = -31LL * (1 << 26); a <= 0; a += 4099) {
    double got = aotc_exp_on_negative_values_q5_26(static_cast<int32_t>(a)) / 2147483648.0;
    worst = std::max(worst, std::fabs(got - std::exp(a / 67108864.0)));
  }
  EXPECT_LT(worst, 2.5e-7);
  EXPECT_EQ(aotc_exp_on_negative_values_q5_26(0), INT32_MAX);
  // Just below 0 the Taylor step works at the top of the int32 range without overflowing.
  EXPECT_NEAR(aotc_exp_on_negative_values_q5_26(-1) / 2147483648.0, 1.0, 2.5e-7);
  EXPECT_NEAR(aotc_exp_on_negative_values_q5_26(-(1 << 26)) / 2147483648.0, std::exp(-1.0), 2.5e-7);
}

TEST(FixedPoint, ReciprocalAndLeadingZeros) {
  EXPECT_EQ(aotc_count_leading_zeros(0), 32);
  EXPECT_EQ(aotc_count_leading_zeros(1), 31);
  EXPECT_EQ(aotc_count_leading_zeros(-1), 0);
  EXPECT_EQ(aotc_count_leading_zeros(1 << 19), 12);
  double worst = 0;
  for (int64_t x = 1; x < INT32_MAX; x += 1234567) {
    int h = aotc_count_leading_zeros(static_cast<int32_t>(x));
    double m = std::ldexp(static_cast<double>(x), h - 31);  // in [1, 2)
    worst = std::max(worst, std::fabs(aotc_get_reciprocal(static_cast<int32_t>(x)) / 2147483648.0 - 1.0 / m));
  }
  EXPECT_LT(worst, 1e-8);
}

// ---------------------------------------------------------------- RESHAPE, QUANTIZE, DEQUANTIZE

TEST(TfliteReshape, IsAViewWithTheDeclaredShape) {
  OneNode n("tfl.RESHAPE");
  n.input({1, 1, 1, 64}, random_int8(64, 1), {0.1f, 0}).constant<int32_t>({2}, {-1, 64});
  n.output(DataType::Int(8), {1, 64}, {0.1f, 0});
  EXPECT_EQ(n.infer(), (Shape{1, 64}));
  EXPECT_TRUE(find_op("tfl.RESHAPE")->is_view);
}

TEST(TfliteReshape, RejectsARequestThatContradictsTheDeclaredShape) {
  OneNode n("tfl.RESHAPE");
  n.input({2, 6}, random_floats(12, 1)).constant<int32_t>({2}, {4, -1});
  n.output(DataType::Float32(), {3, 4});
  EXPECT_NE(n.error().find("requests [4, 3]"), std::string::npos) << n.error();
}

TEST(TfliteQuantize, FloatRoundsHalfAwayFromZeroAndClamps) {
  std::vector<float> x = {1.25f, -1.25f, 0.75f, -0.75f, 0.0f, 1000.0f, -1000.0f, 1e30f, -1e30f, 63.0f};
  OneNode n("tfl.QUANTIZE");
  n.input({10}, x).output(DataType::Int(8), {10}, {0.5f, 1});
  // x / 0.5 = 2.5, -2.5, 1.5, -1.5, 0, ... ; then + 1
  EXPECT_EQ(n.run<int8_t>(), (std::vector<int8_t>{4, -2, 3, -1, 1, 127, -128, 127, -128, 127}));
}

TEST(TfliteQuantize, FloatToInt16) {
  OneNode n("tfl.QUANTIZE");
  n.input({3}, std::vector<float>{0.5f, -3.0f, 1e6f}).output(DataType::Int(16), {3}, {0.001f, 0});
  EXPECT_EQ(n.run<int16_t>(), (std::vector<int16_t>{500, -3000, 32767}));
}

TEST(TfliteQuantize, Int8RequantizationWithinOneStep) {
  Quant qi{0.02f, -7}, qo{0.031f, 12};
  std::vector<int8_t> x(256);
  for (int i = 0; i < 256; ++i) x[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
  OneNode n("tfl.QUANTIZE");
  n.input({256}, x, qi).output(DataType::Int(8), {256}, qo);
  std::vector<int8_t> got = n.run<int8_t>();
  for (size_t i = 0; i < 256; ++i) EXPECT_LE(std::abs(got[i] - quantize_ideal(real(x[i], qi), qo)), 1) << int(x[i]);
}

TEST(TfliteQuantize, RejectsUnsupportedConversions) {
  OneNode n("tfl.QUANTIZE");
  n.input({2}, std::vector<float>{0, 1}).output(DataType::UInt(8), {2}, {0.1f, 0});
  EXPECT_NE(n.error().find("float32 to uint8 is not supported"), std::string::npos) << n.error();
}

// TFLite computes static_cast<float>(double(scale) * (x - zero_point)); the kernel does it
// in float. Every int8 and int16 value, several scales: the same bits.
TEST(TfliteDequantize, MatchesTflitesDoubleFormulaBitForBit) {
  std::vector<int8_t> x8(256);
  for (int i = 0; i < 256; ++i) x8[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
  std::vector<int16_t> x16(65536);
  for (int i = 0; i < 65536; ++i) x16[static_cast<size_t>(i)] = static_cast<int16_t>(i - 32768);
  for (Quant q : {Quant{0.0078125f, -128}, Quant{0.1f, 3}, Quant{3.3333333e-5f, 100}, Quant{7.77e3f, -1}}) {
    OneNode n8("tfl.DEQUANTIZE");
    n8.input({256}, x8, q).output(DataType::Float32(), {256});
    std::vector<float> got8 = n8.run<float>();
    for (size_t i = 0; i < 256; ++i)
      ASSERT_EQ(got8[i], static_cast<float>(static_cast<double>(q.scale) * (x8[i] - q.zero_point))) << int(x8[i]);
    OneNode n16("tfl.DEQUANTIZE");
    n16.input({65536}, x16, q).output(DataType::Float32(), {65536});
    std::vector<float> got16 = n16.run<float>();
    for (size_t i = 0; i < 65536; ++i)
      ASSERT_EQ(got16[i], static_cast<float>(static_cast<double>(q.scale) * (x16[i] - q.zero_point))) << x16[i];
  }
}

}  // namespace
}  // namespace aotc::test
