// Tests of ONNX's integer operators of dynamic quantization (lowering/ops/onnx/onnx_integer.cc):
// MatMulInteger, ConvInteger and DynamicQuantizeLinear.
//
// References are written here from the ONNX definitions: the integer products are sums of
// (a - a_zero_point) * (b - b_zero_point) in int32, with zero points per tensor, per row
// of A / column of B (MatMulInteger) or per output channel of w (ConvInteger), constant or
// given at run time; DynamicQuantizeLinear computes in float32 the scale
// (max(0, max x) - min(0, min x)) / 255, the zero point round(-min / scale) and
// y = saturate(round(x / scale) + zero_point), rounding half to even, uint8 saturation
// (and scale 1 for an input of zeros, as ONNX Runtime).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

// ---------------------------------------------------------------- MatMulInteger

// Y[b, i, j] = sum_k (A[b, i, k] - a_zp(b, i)) * (B[k, j] - b_zp(j)) for A [batch, M, K]
// (batch 1 for a matrix) and B [K, N]; a_zp / b_zp give the zero point of a row / column.
template <typename A, typename B>
std::vector<int32_t> matmul_integer_reference(int64_t batch, int64_t m, int64_t k, int64_t n, const std::vector<A>& a,
                                              const std::vector<B>& b, const std::function<int32_t(int64_t, int64_t)>& a_zp,
                                              const std::function<int32_t(int64_t)>& b_zp) {
  std::vector<int32_t> y;
  for (int64_t s = 0; s < batch; ++s)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int32_t sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum += (static_cast<int32_t>(a[static_cast<size_t>((s * m + i) * k + p)]) - a_zp(s, i)) *
                 (static_cast<int32_t>(b[static_cast<size_t>(p * n + j)]) - b_zp(j));
        y.push_back(sum);
      }
  return y;
}

TEST(MatMulInteger, ScalarZeroPointsOfEitherSignedness) {
  std::vector<uint8_t> a = random_ints<uint8_t>(6, 0, 255, 1);
  std::vector<int8_t> b = random_ints<int8_t>(12, -128, 127, 2);
  OneNode node("MatMulInteger", 10);
  node.input<uint8_t>({2, 3}, a).input<int8_t>({3, 4}, b).constant<uint8_t>(Shape{}, {200}).constant<int8_t>(Shape{}, {-128});
  EXPECT_EQ(node.infer(), (Shape{2, 4}));
  EXPECT_EQ(node.output_type(), DataType::Int(32));
  expect_equal(node.run<int32_t>(), matmul_integer_reference<uint8_t, int8_t>(
                                        1, 2, 3, 4, a, b, [](int64_t, int64_t) { return 200; }, [](int64_t) { return -128; }));
  OneNode no_zero_points("MatMulInteger", 10);
  no_zero_points.input<int8_t>({2, 3}, std::vector<int8_t>(b.begin(), b.begin() + 6)).input<uint8_t>({3, 1}, {255, 1, 7});
  std::vector<int8_t> a2(b.begin(), b.begin() + 6);
  expect_equal(no_zero_points.run<int32_t>(),
               matmul_integer_reference<int8_t, uint8_t>(1, 2, 3, 1, a2, {255, 1, 7}, [](int64_t, int64_t) { return 0; },
                                                         [](int64_t) { return 0; }));
}

TEST(MatMulInteger, PerRowAndPerColumnZeroPoints) {
  std::vector<uint8_t> a = random_ints<uint8_t>(8, 0, 255, 3), b = random_ints<uint8_t>(12, 0, 255, 4);
  std::vector<uint8_t> a_zp = {0, 128}, b_zp = {1, 2, 255};
  auto a_at = [&](int64_t, int64_t i) { return static_cast<int32_t>(a_zp[static_cast<size_t>(i)]); };
  auto b_at = [&](int64_t j) { return static_cast<int32_t>(b_zp[static_cast<size_t>(j)]); };
  std::vector<int32_t> want = matmul_integer_reference<uint8_t, uint8_t>(1, 2, 4, 3, a, b, a_at, b_at);
  OneNode vectors("MatMulInteger", 10);
  vectors.input<uint8_t>({2, 4}, a).input<uint8_t>({4, 3}, b).constant<uint8_t>(Shape{2}, a_zp).constant<uint8_t>(Shape{3}, b_zp);
  expect_equal(vectors.run<int32_t>(), want);
  // The same zero points with the operands' rank (K replaced by 1), and given at run time.
  OneNode shaped("MatMulInteger", 10);
  shaped.input<uint8_t>({2, 4}, a).input<uint8_t>({4, 3}, b).input<uint8_t>({2, 1}, a_zp).input<uint8_t>({1, 3}, b_zp);
  expect_equal(shaped.run<int32_t>(), want);
}

TEST(MatMulInteger, BatchedWithPerRowZeroPoints) {
  // A [2, 2, 3] with a_zero_point [2, 2, 1]: one per row of each matrix; B [3, 2] broadcast.
  std::vector<int8_t> a = random_ints<int8_t>(12, -128, 127, 5), b = random_ints<int8_t>(6, -128, 127, 6);
  std::vector<int8_t> a_zp = {-128, 0, 127, 5};
  std::vector<int32_t> want = matmul_integer_reference<int8_t, int8_t>(
      2, 2, 3, 2, a, b, [&](int64_t s, int64_t i) { return static_cast<int32_t>(a_zp[static_cast<size_t>(s * 2 + i)]); },
      [](int64_t) { return -1; });
  OneNode node("MatMulInteger", 10);
  node.input<int8_t>({2, 2, 3}, a).input<int8_t>({3, 2}, b).constant<int8_t>(Shape{2, 2, 1}, a_zp).constant<int8_t>(Shape{}, {-1});
  EXPECT_EQ(node.infer(), (Shape{2, 2, 2}));
  expect_equal(node.run<int32_t>(), want);
}

TEST(MatMulInteger, RejectsInvalidOperands) {
  OneNode floats("MatMulInteger", 10);
  floats.input({2, 2}).input({2, 2});
  expect_error(floats, "expected int8 or uint8");
  OneNode zp_type("MatMulInteger", 10);
  zp_type.input<uint8_t>({2, 2}, {1, 2, 3, 4}).input<uint8_t>({2, 2}, {1, 2, 3, 4}).constant<int8_t>(Shape{}, {1});
  expect_error(zp_type, "zero point 'const2' is int8 but 'in0' is uint8");
  OneNode zp_shape("MatMulInteger", 10);
  zp_shape.input<uint8_t>({2, 2}, {1, 2, 3, 4}).input<uint8_t>({2, 2}, {1, 2, 3, 4}).constant<uint8_t>(Shape{3}, {1, 2, 3});
  expect_error(zp_shape, "a_zero_point has shape [3]");
}

// ---------------------------------------------------------------- ConvInteger

TEST(ConvInteger, ZeroPointsPaddingStridesAndGroups) {
  // x [1, 4, 5, 5] uint8 with x_zero_point 100; w [4, 2, 3, 3] int8 with one zero point per
  // output channel; group 2, stride 2, pads 1: a padded tap is x's zero point, a term of 0.
  const int64_t c = 4, h = 5, w_ = 5, m = 4, kh = 3, kw = 3, group = 2, stride = 2, pad = 1;
  std::vector<uint8_t> x = random_ints<uint8_t>(static_cast<size_t>(c * h * w_), 0, 255, 7);
  std::vector<int8_t> w = random_ints<int8_t>(static_cast<size_t>(m * (c / group) * kh * kw), -128, 127, 8);
  std::vector<int8_t> w_zp = {0, -3, 127, -128};
  const int32_t x_zp = 100;
  int64_t oh = (h + 2 * pad - kh) / stride + 1, ow = (w_ + 2 * pad - kw) / stride + 1;
  std::vector<int32_t> want;
  for (int64_t oc = 0; oc < m; ++oc)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        int32_t sum = 0;
        int64_t g = oc / (m / group);
        for (int64_t ic = 0; ic < c / group; ++ic)
          for (int64_t a = 0; a < kh; ++a)
            for (int64_t b = 0; b < kw; ++b) {
              int64_t y = i * stride + a - pad, x_pos = j * stride + b - pad;
              int32_t xv = y < 0 || y >= h || x_pos < 0 || x_pos >= w_
                               ? x_zp
                               : x[static_cast<size_t>(((g * (c / group) + ic) * h + y) * w_ + x_pos)];
              int32_t wv = w[static_cast<size_t>(((oc * (c / group) + ic) * kh + a) * kw + b)];
              sum += (xv - x_zp) * (wv - w_zp[static_cast<size_t>(oc)]);
            }
        want.push_back(sum);
      }
  OneNode node("ConvInteger", 10);
  node.input<uint8_t>({1, c, h, w_}, x).constant<int8_t>(Shape{m, c / group, kh, kw}, w);
  node.constant<uint8_t>(Shape{}, {static_cast<uint8_t>(x_zp)}).constant<int8_t>(Shape{m}, w_zp);
  node.attr("group", group).attr("strides", Shape{stride, stride}).attr("pads", Shape{pad, pad, pad, pad});
  EXPECT_EQ(node.infer(), (Shape{1, m, oh, ow}));
  expect_equal(node.run<int32_t>(), want);
}

TEST(ConvInteger, RunTimeZeroPointAndRejections) {
  // 1-D, x_zero_point given at run time, no w_zero_point.
  std::vector<int8_t> x = {-5, 0, 7, 127, -128};
  OneNode node("ConvInteger", 10);
  node.input<int8_t>({1, 1, 5}, x).constant<int8_t>(Shape{1, 1, 2}, {2, -1}).input<int8_t>({}, {-3});
  std::vector<int32_t> want;
  for (size_t i = 0; i + 1 < x.size(); ++i) want.push_back((x[i] + 3) * 2 - (x[i + 1] + 3));
  expect_equal(node.run<int32_t>(), want);
  OneNode per_tensor("ConvInteger", 10);
  per_tensor.input<uint8_t>({1, 1, 3}, {1, 2, 3}).constant<uint8_t>(Shape{1, 1, 1}, {1}).constant<uint8_t>(Shape{2}, {1, 2});
  expect_error(per_tensor, "x_zero_point must have one element");
  OneNode per_channel("ConvInteger", 10);
  per_channel.input<uint8_t>({1, 1, 3}, {1, 2, 3}).constant<uint8_t>(Shape{1, 1, 1}, {1}).absent_input().constant<uint8_t>(Shape{2}, {1, 2});
  expect_error(per_channel, "w_zero_point has shape [2]");
  OneNode groups("ConvInteger", 10);
  groups.input<uint8_t>({1, 3, 3}, std::vector<uint8_t>(9, 1)).constant<uint8_t>(Shape{2, 1, 1}, {1, 1}).attr("group", int64_t{2});
  expect_error(groups, "group 2 must divide");
}

// ---------------------------------------------------------------- DynamicQuantizeLinear

struct Quantized {
  std::vector<uint8_t> y;
  float scale;
  uint8_t zero_point;
};

Quantized dynamic_quantize_reference(const std::vector<float>& x) {
  float lo = 0, hi = 0;
  for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
  Quantized q;
  q.scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  auto saturate = [](float v) { return static_cast<uint8_t>(std::min(255.0f, std::max(0.0f, v))); };
  q.zero_point = saturate(std::nearbyint(0.0f - lo / q.scale));
  for (float v : x) q.y.push_back(saturate(std::nearbyint(v / q.scale) + static_cast<float>(q.zero_point)));
  return q;
}

TEST(DynamicQuantizeLinear, ScaleZeroPointAndValues) {
  const std::vector<std::vector<float>> inputs = {
      {0, 2, -3, -2.5f, 1.25f, 1000, -1000},  // both signs
      {1, 2.5f, 255, 0.5f},                   // positive only: zero point 0
      {-1, -2, -51},                          // negative only: zero point 255
      {0, 0, 0},                              // scale 1
  };
  for (const std::vector<float>& x : inputs) {
    SCOPED_TRACE("first " + std::to_string(x[0]) + ", " + std::to_string(x.size()) + " values");
    Quantized want = dynamic_quantize_reference(x);
    OneNode node("DynamicQuantizeLinear", 11);
    node.input<float>({static_cast<int64_t>(x.size())}, x).extra_output(true).extra_output(true);
    EXPECT_EQ(node.infer(), (Shape{static_cast<int64_t>(x.size())}));
    EXPECT_EQ(node.output_type(0), DataType::UInt(8));
    EXPECT_EQ(node.output_shape(1), Shape{});
    expect_equal(node.run<uint8_t>(), want.y);
    expect_equal(node.run_output<float>(1), std::vector<float>{want.scale});
    expect_equal(node.run_output<uint8_t>(2), std::vector<uint8_t>{want.zero_point});
  }
}

TEST(DynamicQuantizeLinear, RoundsHalfToEvenAndIgnoresNaNInTheRange) {
  // Range [0, 31.875]: scale 0.125 exactly, zero point 0; x / scale = 0.5, 1.5 and 2.5
  // round to 0, 2 and 2.
  OneNode node("DynamicQuantizeLinear", 11);
  node.input<float>({4}, {31.875f, 0.0625f, 0.1875f, 0.3125f});
  expect_equal(node.run<uint8_t>(), std::vector<uint8_t>{255, 0, 2, 2});
  // A NaN does not widen the range and quantizes to 0 (no out-of-range conversion in C).
  OneNode nan("DynamicQuantizeLinear", 11);
  nan.input<float>({3}, {NAN, 1.0f, -1.0f});
  std::vector<uint8_t> got = nan.run<uint8_t>();
  EXPECT_EQ(got[0], 0);
  Quantized finite = dynamic_quantize_reference({1.0f, -1.0f});
  EXPECT_EQ(got[1], finite.y[0]);
  EXPECT_EQ(got[2], finite.y[1]);
  OneNode doubles("DynamicQuantizeLinear", 11);
  doubles.input<double>({2}, {1, 2});
  expect_error(doubles, "expected float32");
}

}  // namespace
}  // namespace aotc::test
