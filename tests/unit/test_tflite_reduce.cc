// TFLite MEAN, SUM, REDUCE_MAX, ARG_MAX and ARG_MIN (lowering/ops/tflite/tflite_reduce.cc), in the
// IR interpreter, against TFLite's reference_ops written out here: float sums in the
// input's order divided by the count; quantized sums in int32 rescaled with
// QuantizedMeanOrSum's multiplier (1 / count folded in), whether or not input and output
// share a quantization (tests/tflite_reference.h's fixed point, not aotc's); the first
// extreme index for ARG_MAX / ARG_MIN.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "tests/tflite_reference.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

// x [2, 3, 4, 5] reduced over axes 1 and 2: for each (b, c), the 12 values in (h, w) order.
template <typename T, typename F>
void for_each_hw_group(const std::vector<T>& x, F f) {
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 5; ++c) {
      std::vector<T> group;
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 4; ++w) group.push_back(x[static_cast<size_t>(((b * 3 + h) * 4 + w) * 5 + c)]);
      f(b * 5 + c, group);
    }
}

TEST(TfliteMean, FloatOverHeightAndWidthKeepingDims) {
  std::vector<float> x = random_floats(120, 1);
  OneNode n("tfl.MEAN");
  n.input({2, 3, 4, 5}, x).constant<int32_t>({2}, {1, -2}).attr("keep_dims", int64_t{1});
  n.output(DataType::Float32(), {2, 1, 1, 5});
  std::vector<float> got = n.run<float>();
  for_each_hw_group(x, [&](int out, const std::vector<float>& g) {
    float sum = 0;
    for (float v : g) sum += v;
    EXPECT_EQ(got[static_cast<size_t>(out)], sum / 12) << out;
  });
}

// The quantized kernels are one template over int8 and int16 in TFLite Micro
// (reduce_common.cc); each check runs on both, int16 with its full range.
template <typename T>
std::vector<T> full_range(size_t n, uint32_t seed) {
  return random_ints<T>(n, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), seed);
}

// reference_ops::QuantizedMeanOrSum for a MEAN of `count` values: the multiplier of
// input scale / output scale with 1 / count folded in.
Multiplier mean_multiplier(Quant qx, Quant qy, int64_t count) {
  Multiplier m = quantize(static_cast<double>(qx.scale) / static_cast<double>(qy.scale));
  int shift = 63 - __builtin_clzll(static_cast<unsigned long long>(count));
  shift = std::min(std::min(shift, 32), 31 + m.shift);
  return {static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << shift) / count), m.shift - shift};
}

template <typename T>
void check_quantized_mean(Quant qx, Quant qy) {
  const int lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const int zx = static_cast<int>(qx.zero_point), zy = static_cast<int>(qy.zero_point);
  std::vector<T> x = full_range<T>(120, 3);
  OneNode n("tfl.MEAN");
  n.input({2, 3, 4, 5}, x, qx);
  n.constant<int32_t>({2}, {2, 1}).output(dtype_of<T>(), {2, 5}, qy);
  std::vector<T> got = n.template run<T>();
  Multiplier folded = mean_multiplier(qx, qy, 12);
  for_each_hw_group(x, [&](int out, const std::vector<T>& g) {
    int sum = 0;
    for (T v : g) sum += v;
    int want = clamp_to(mbqm(sum - zx * 12, folded.multiplier, folded.shift) + zy, lo, hi);
    EXPECT_EQ(got[static_cast<size_t>(out)], want) << out;
    double real_mean = qx.scale * (sum / 12.0 - zx);
    EXPECT_LE(std::abs(want - (std::round(real_mean / qy.scale) + zy)), 1) << out;
  });
}

TEST(TfliteMean, Int8RequantizedFollowsQuantizedMeanOrSum) { check_quantized_mean<int8_t>({0.05f, -4}, {0.02f, 9}); }
TEST(TfliteMean, Int16RequantizedFollowsQuantizedMeanOrSum) {
  check_quantized_mean<int16_t>({0.0005f, 0}, {0.0002f, 0});
}
// TFLite Micro rescales with the multiplier even when the quantization is shared (since
// its "Align mean kernel to TFL"); a truncating raw mean is up to 1 LSB off.
TEST(TfliteMean, Int8WithSharedQuantizationIsRescaledToo) { check_quantized_mean<int8_t>({0.05f, -4}, {0.05f, -4}); }
TEST(TfliteMean, Int16WithSharedQuantizationIsRescaledToo) {
  check_quantized_mean<int16_t>({0.0005f, 0}, {0.0005f, 0});
}

// A MobileNet's global average pool: MEAN over a 7x7 map, scale and zero point kept
// (0.023529, -128), 64 channels of full-range values.
TEST(TfliteMean, Int8GlobalAveragePoolOf7x7KeepingTheScale) {
  const Quant q{0.023529f, -128};
  std::vector<int8_t> x = full_range<int8_t>(7 * 7 * 64, 4);
  OneNode n("tfl.MEAN");
  n.input({1, 7, 7, 64}, x, q);
  n.constant<int32_t>({2}, {1, 2}).attr("keep_dims", int64_t{1}).output(DataType::Int(8), {1, 1, 1, 64}, q);
  std::vector<int8_t> got = n.run<int8_t>();
  Multiplier folded = mean_multiplier(q, q, 49);
  int truncating_differs = 0;
  for (int c = 0; c < 64; ++c) {
    int sum = 0;
    for (int p = 0; p < 49; ++p) sum += x[static_cast<size_t>(p * 64 + c)];
    int want = clamp_to(mbqm(sum + 128 * 49, folded.multiplier, folded.shift) - 128, -128, 127);
    EXPECT_EQ(got[static_cast<size_t>(c)], want) << c;
    truncating_differs += want != sum / 49;
  }
  EXPECT_GT(truncating_differs, 0) << "the case no longer tells the two paths apart";
}

TEST(TfliteSum, FloatAlongTheLastAxis) {
  std::vector<float> x = random_floats(12, 4);
  OneNode f("tfl.SUM");
  f.input({3, 4}, x).constant<int32_t>({1}, {-1}).output(DataType::Float32(), {3});
  std::vector<float> got = f.run<float>();
  for (int r = 0; r < 3; ++r) {
    float sum = 0;
    for (int c = 0; c < 4; ++c) sum += x[r * 4 + c];
    EXPECT_EQ(got[r], sum);
  }
}

template <typename T>
void check_quantized_sum(Quant qx, Quant qy) {
  const int lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  std::vector<T> xq = full_range<T>(12, 5);
  OneNode n("tfl.SUM");
  n.input({3, 4}, xq, qx);
  n.constant<int32_t>({1}, {1}).attr("keep_dims", int64_t{1}).output(dtype_of<T>(), {3, 1}, qy);
  std::vector<T> q = n.template run<T>();
  Multiplier m = quantize(static_cast<double>(qx.scale) / static_cast<double>(qy.scale));
  for (int r = 0; r < 3; ++r) {
    int sum = 0;
    for (int c = 0; c < 4; ++c) sum += xq[r * 4 + c];
    int want = mbqm(sum - static_cast<int>(qx.zero_point) * 4, m.multiplier, m.shift) + static_cast<int>(qy.zero_point);
    EXPECT_EQ(q[r], std::min(hi, std::max(lo, want))) << r;
  }
}

TEST(TfliteSum, Int8AndInt16Requantized) {
  check_quantized_sum<int8_t>({0.01f, 3}, {0.03f, -1});
  check_quantized_sum<int16_t>({0.0001f, 0}, {0.0003f, 0});
}

TEST(TfliteReduceMax, FloatAndRawInt8) {
  std::vector<float> x = random_floats(24, 6);
  OneNode f("tfl.REDUCE_MAX");
  f.input({2, 3, 4}, x).constant<int32_t>({2}, {0, 2}).output(DataType::Float32(), {3});
  std::vector<float> got = f.run<float>();
  for (int j = 0; j < 3; ++j) {
    float m = -1e30f;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) m = std::max(m, x[(i * 3 + j) * 4 + k]);
    EXPECT_EQ(got[j], m);
  }
  Quant q{0.1f, 5};
  OneNode n("tfl.REDUCE_MAX");
  n.input({2, 3}, std::vector<int8_t>{-128, 7, 3, -5, -6, -7}, q).constant<int32_t>({1}, {1}).output(DataType::Int(8), {2}, q);
  EXPECT_EQ(n.run<int8_t>(), (std::vector<int8_t>{7, -5}));
  OneNode other("tfl.REDUCE_MAX");
  other.input({2}, std::vector<int8_t>{1, 2}, q).constant<int32_t>({1}, {0}).output(DataType::Int(8), {}, {0.2f, 5});
  EXPECT_NE(other.error().find("different quantization"), std::string::npos) << other.error();
}

TEST(TfliteArgMax, FirstIndexOfTheExtremeAlongTheAxis) {
  std::vector<int8_t> x = {3, 9, 9, -1,   // ties: the first 9
                           -5, -5, -7, -7};
  OneNode mx("tfl.ARG_MAX"), mn("tfl.ARG_MIN");
  mx.input({2, 4}, x, {0.1f, 0}).constant<int32_t>({}, {-1}).output(DataType::Int(32), {2});
  mn.input({2, 4}, x, {0.1f, 0}).constant<int32_t>({}, {1}).output(DataType::Int(64), {2});
  EXPECT_EQ(mx.run<int32_t>(), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(mn.run<int64_t>(), (std::vector<int64_t>{3, 2}));

  std::vector<float> xf = random_floats(24, 7);
  OneNode f("tfl.ARG_MAX");
  f.input({2, 3, 4}, xf).constant<int32_t>({1}, {1}).output(DataType::Int(32), {2, 4});
  std::vector<int32_t> got = f.run<int32_t>();
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) {
      int best = 0;
      for (int j = 1; j < 3; ++j)
        if (xf[(i * 3 + j) * 4 + k] > xf[(i * 3 + best) * 4 + k]) best = j;
      EXPECT_EQ(got[i * 4 + k], best);
    }
}

TEST(TfliteArgMax, RejectsAFloatOutput) {
  OneNode n("tfl.ARG_MAX");
  n.input({4}, random_floats(4, 1)).constant<int32_t>({}, {0}).output(DataType::Float32(), {});
  EXPECT_NE(n.error().find("give int32 or int64"), std::string::npos) << n.error();
}

}  // namespace
}  // namespace aotc::test
