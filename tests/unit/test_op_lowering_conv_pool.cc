// Lowerings of Conv, Gemm, MatMul, MaxPool, AveragePool and GlobalAveragePool
// (lowering/ops/onnx/{conv,matmul,pool,spatial}.cc).
//
// Each case builds a one-node graph, runs the operator's shape function, lowers it, and
// runs the kernel in the IR interpreter, before and after Simplify. The expected values
// come from plain loops written here from the ONNX definitions, with the padding and
// output sizes worked out by hand, so that a shared misreading of an attribute in
// spatial.cc cannot hide in both the kernel and the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

using Values = std::vector<float>;

void expect_near_all(const Values& got, const Values& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << "element " << i;
}

// Runs the node (as lowered and simplified, which must agree); the output must match `want`.
void expect_output(OneNode& node, const Shape& want_shape, const Values& want) {
  ASSERT_EQ(node.infer(), want_shape);
  SCOPED_TRACE(node.printed_ir());
  expect_near_all(node.run(), want);
}

// ---------------------------------------------------------------- references

// Explicit geometry of one 2-D window, as the tests work it out by hand.
struct Window2d {
  int64_t kh, kw;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t top = 0, left = 0, bottom = 0, right = 0;
};

// ONNX Conv on NCHW: Y[n, m, y, x] = B[m] + sum over the group's channels and the kernel.
Values conv2d_reference(const Values& x, const Shape& xs, const Values& w, const Shape& ws, const Values* bias,
                        int64_t group, const Window2d& win, const Shape& ys) {
  Values y(static_cast<size_t>(element_count(ys)));
  int64_t c_per_group = ws[1], m_per_group = ws[0] / group;
  size_t out = 0;
  for (int64_t n = 0; n < ys[0]; ++n)
    for (int64_t m = 0; m < ys[1]; ++m)
      for (int64_t oy = 0; oy < ys[2]; ++oy)
        for (int64_t ox = 0; ox < ys[3]; ++ox) {
          float sum = 0;
          for (int64_t c = 0; c < c_per_group; ++c)
            for (int64_t i = 0; i < win.kh; ++i)
              for (int64_t j = 0; j < win.kw; ++j) {
                int64_t iy = oy * win.stride_h - win.top + i * win.dilation_h;
                int64_t ix = ox * win.stride_w - win.left + j * win.dilation_w;
                if (iy < 0 || iy >= xs[2] || ix < 0 || ix >= xs[3]) continue;
                int64_t channel = (m / m_per_group) * c_per_group + c;
                sum += x[static_cast<size_t>(((n * xs[1] + channel) * xs[2] + iy) * xs[3] + ix)] *
                       w[static_cast<size_t>(((m * ws[1] + c) * ws[2] + i) * ws[3] + j)];
              }
          y[out++] = bias ? sum + (*bias)[static_cast<size_t>(m)] : sum;
        }
  return y;
}

enum class PoolMode { kMax, kAverageExcludePad, kAverageIncludePad };

// ONNX pooling on NCHW. With count_include_pad the divisor counts the taps inside the
// padded input; taps past the end padding (ceil_mode's last window) never count.
Values pool2d_reference(const Values& x, const Shape& xs, PoolMode mode, const Window2d& win, const Shape& ys) {
  Values y(static_cast<size_t>(element_count(ys)));
  size_t out = 0;
  for (int64_t n = 0; n < ys[0]; ++n)
    for (int64_t c = 0; c < ys[1]; ++c)
      for (int64_t oy = 0; oy < ys[2]; ++oy)
        for (int64_t ox = 0; ox < ys[3]; ++ox) {
          float best = -std::numeric_limits<float>::infinity(), sum = 0;
          int taps = 0;
          for (int64_t i = 0; i < win.kh; ++i)
            for (int64_t j = 0; j < win.kw; ++j) {
              int64_t iy = oy * win.stride_h - win.top + i * win.dilation_h;
              int64_t ix = ox * win.stride_w - win.left + j * win.dilation_w;
              bool in_input = iy >= 0 && iy < xs[2] && ix >= 0 && ix < xs[3];
              bool in_padded = iy < xs[2] + win.bottom && ix < xs[3] + win.right;
              if (mode == PoolMode::kAverageIncludePad ? in_padded : in_input) ++taps;
              if (!in_input) continue;
              float v = x[static_cast<size_t>(((n * xs[1] + c) * xs[2] + iy) * xs[3] + ix)];
              best = std::max(best, v);
              sum += v;
            }
          y[out++] = mode == PoolMode::kMax ? best : sum / static_cast<float>(taps);
        }
  return y;
}

// ---------------------------------------------------------------- Conv

TEST(ConvLowering, GroupedStridedDilatedAsymmetricPadsWithBias) {
  OneNode conv("Conv");
  conv.input({2, 4, 7, 6}).input({6, 2, 3, 2}).input({6});
  conv.attr("group", int64_t{2}).attr("strides", Shape{2, 1}).attr("dilations", Shape{1, 2});
  conv.attr("pads", Shape{1, 0, 2, 1});
  // H: (7 + 1 + 2 - 3) / 2 + 1 = 4; W: (6 + 0 + 1 - 3) / 1 + 1 = 5.
  Window2d win{3, 2, 2, 1, 1, 2, 1, 0, 2, 1};
  Shape ys = {2, 6, 4, 5};
  Values bias = conv.values_of(2);
  expect_output(conv, ys,
                conv2d_reference(conv.values_of(0), {2, 4, 7, 6}, conv.values_of(1), {6, 2, 3, 2}, &bias, 2, win,
                                 ys));
}

struct SamePadCase {
  const char* auto_pad;
  int64_t top_left, bottom_right;
};

void PrintTo(const SamePadCase& c, std::ostream* os) { *os << c.auto_pad; }

class ConvSamePad : public testing::TestWithParam<SamePadCase> {};

// Depthwise 4x4 on 6x6 at stride 1: 3 rows of padding in total, the odd one at the end
// (SAME_UPPER) or at the beginning (SAME_LOWER).
TEST_P(ConvSamePad, DepthwiseSplitsOddPadding) {
  OneNode conv("Conv");
  conv.input({1, 3, 6, 6}).input({3, 1, 4, 4});
  conv.attr("group", int64_t{3}).attr("auto_pad", std::string(GetParam().auto_pad));
  int64_t b = GetParam().top_left, e = GetParam().bottom_right;
  Window2d win{4, 4, 1, 1, 1, 1, b, b, e, e};
  Shape ys = {1, 3, 6, 6};
  expect_output(conv, ys,
                conv2d_reference(conv.values_of(0), {1, 3, 6, 6}, conv.values_of(1), {3, 1, 4, 4}, nullptr, 3,
                                 win, ys));
}

INSTANTIATE_TEST_SUITE_P(AutoPad, ConvSamePad,
                         testing::Values(SamePadCase{"SAME_UPPER", 1, 2}, SamePadCase{"SAME_LOWER", 2, 1}));

TEST(ConvLowering, OneDimensionalMatchesTwoDimensionalWithUnitHeight) {
  OneNode conv("Conv");
  conv.input({1, 2, 9}).input({3, 2, 3});
  conv.attr("strides", Shape{2}).attr("pads", Shape{1, 1}).attr("dilations", Shape{2});
  // (9 + 2 - 5) / 2 + 1 = 4.
  Window2d win{1, 3, 1, 2, 1, 2, 0, 1, 0, 1};
  expect_output(conv, {1, 3, 4},
                conv2d_reference(conv.values_of(0), {1, 2, 1, 9}, conv.values_of(1), {3, 2, 1, 3}, nullptr, 1, win,
                                 {1, 3, 1, 4}));
}

TEST(ConvLowering, ValidPaddingDropsThePartialWindow) {
  OneNode conv("Conv");
  conv.input({1, 1, 6, 6}).input({2, 1, 3, 3});
  conv.attr("auto_pad", std::string("VALID")).attr("strides", Shape{2, 2}).attr("pads", Shape{1, 1, 1, 1});
  // (6 - 3) / 2 + 1 = 2: the pads attribute is ignored.
  Window2d win{3, 3, 2, 2};
  Shape ys = {1, 2, 2, 2};
  expect_output(conv, ys,
                conv2d_reference(conv.values_of(0), {1, 1, 6, 6}, conv.values_of(1), {2, 1, 3, 3}, nullptr, 1, win,
                                 ys));
}

TEST(ConvLowering, FusedReluIsAppliedBeforeTheStore) {
  OneNode conv("Conv");
  conv.input({1, 2, 5, 5}).input({3, 2, 3, 3}).input({3});
  conv.attr("pads", Shape{1, 1, 1, 1}).epilogue("Relu");
  Window2d win{3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  Shape ys = {1, 3, 5, 5};
  Values bias = conv.values_of(2);
  Values want =
      conv2d_reference(conv.values_of(0), {1, 2, 5, 5}, conv.values_of(1), {3, 2, 3, 3}, &bias, 1, win, ys);
  for (float& v : want) v = std::max(v, 0.0f);
  expect_output(conv, ys, want);
}

TEST(ConvLowering, UnpaddedConvolutionHasNoBranches) {
  OneNode conv("Conv");
  conv.input({1, 2, 5, 5}).input({4, 2, 3, 3});
  ASSERT_EQ(conv.infer(), (Shape{1, 4, 3, 3}));
  std::string ir = conv.printed_ir();
  EXPECT_EQ(ir.find("if ("), std::string::npos) << ir;
  EXPECT_NE(ir.find("acc[0] = (acc[0] + (X[0, ic, (oh + kh), (ow + kw)] * W[oc, ic, kh, kw]))"), std::string::npos)
      << ir;
}

// Only the padded axis is checked, once per row of taps, with one unsigned comparison;
// the unpadded axis loops over the whole kernel unchecked.
TEST(ConvLowering, OnlyPaddedAxesAreGuarded) {
  OneNode conv("Conv");
  conv.input({1, 1, 5, 5}).input({1, 1, 3, 3});
  conv.attr("pads", Shape{1, 0, 1, 0});  // rows padded, columns not
  ASSERT_EQ(conv.infer(), (Shape{1, 1, 5, 3}));
  std::string ir = conv.printed_ir();
  EXPECT_NE(ir.find("if (uint32(((oh + kh) - 1)) < uint32(5)) {"), std::string::npos) << ir;
  EXPECT_NE(ir.find("for (kw, 0, 3)"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("(ow + kw) - 1"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("if (", ir.find("if (") + 1), std::string::npos) << "one guard only:\n" << ir;
}

TEST(ConvLowering, RejectsInvalidAttributes) {
  EXPECT_NE(OneNode("Conv").input({1, 4, 5, 5}).input({6, 2, 3, 3}).attr("group", int64_t{3}).error().find(
                "group 3 must divide"),
            std::string::npos);
  EXPECT_NE(OneNode("Conv").input({1, 4, 5, 5}).input({6, 4, 3, 3}).attr("auto_pad", std::string("SAME")).error().find(
                "auto_pad 'SAME' is not one of"),
            std::string::npos);
  EXPECT_NE(OneNode("Conv").input({1, 4, 5, 5}).input({6, 3, 3, 3}).error().find("input channels per group"),
            std::string::npos);
  EXPECT_NE(OneNode("Conv").input({1, 4, 2, 2}).input({6, 4, 3, 3}).error().find("does not fit"),
            std::string::npos);
  EXPECT_NE(OneNode("Conv").input({1, 4, 5, 5}).input({6, 4, 3, 3}).attr("strides", Shape{1}).error().find(
                "'strides' has 1 values; expected 2"),
            std::string::npos);
  EXPECT_NE(OneNode("Conv").input({1, 4, 5, 5}).input({6, 4, 3, 3}).input({5}).error().find("bias"),
            std::string::npos);
}

// ---------------------------------------------------------------- pooling

struct PoolCase {
  const char* name;
  PoolMode mode;
  Shape input;
  Shape kernel, strides, dilations, pads;
  int64_t ceil_mode;
  Shape want;  // output shape, worked out by hand
};

void PrintTo(const PoolCase& c, std::ostream* os) { *os << c.name; }

class Pool2d : public testing::TestWithParam<PoolCase> {};

TEST_P(Pool2d, MatchesReference) {
  const PoolCase& p = GetParam();
  OneNode pool(p.mode == PoolMode::kMax ? "MaxPool" : "AveragePool");
  pool.input(p.input).attr("kernel_shape", p.kernel).attr("strides", p.strides).attr("pads", p.pads);
  pool.attr("dilations", p.dilations).attr("ceil_mode", p.ceil_mode);
  if (p.mode != PoolMode::kMax)
    pool.attr("count_include_pad", int64_t{p.mode == PoolMode::kAverageIncludePad ? 1 : 0});
  Window2d win{p.kernel[0], p.kernel[1], p.strides[0], p.strides[1], p.dilations[0],
               p.dilations[1], p.pads[0], p.pads[1], p.pads[2], p.pads[3]};
  expect_output(pool, p.want, pool2d_reference(pool.values_of(0), p.input, p.mode, win, p.want));
}

const PoolMode kMax = PoolMode::kMax, kExclude = PoolMode::kAverageExcludePad,
               kInclude = PoolMode::kAverageIncludePad;

// Windows worked out by hand.
const std::vector<PoolCase> kPoolCases = {
    // 7x7, k3 s2 p1, ceil: ceil((7 + 2 - 3) / 2) + 1 = 4.
    {"MaxPaddedCeil", kMax, {1, 2, 7, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, {1, 2, 4, 4}},
    // Dilations 2 and 3 with asymmetric pads: H (7 + 1 + 0 - 5) / 1 + 1 = 4,
    // W (6 + 0 + 2 - 4) / 2 + 1 = 3.
    {"MaxDilated", kMax, {2, 1, 7, 6}, {3, 2}, {1, 2}, {2, 3}, {1, 0, 0, 2}, 0, {2, 1, 4, 3}},
    // 5x5, k2 s2 p1, ceil: ceil(5 / 2) + 1 = 4, but the 4th window would start in the
    // end padding (3 * 2 - 1 = 5), so 3.
    {"MaxCeilDropsPaddingWindow", kMax, {1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, {1, 1, 3, 3}},
    {"AverageCeilDropsPaddingWindow", kInclude, {1, 1, 5, 5}, {2, 2}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, {1, 1, 3, 3}},
    // 6x6, k3 s2 p1, ceil: 4; the last window covers input 5, end pad 6, and 7 beyond.
    {"AverageExcludePadCeil", kExclude, {1, 2, 6, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, {1, 2, 4, 4}},
    {"AverageIncludePadCeil", kInclude, {1, 2, 6, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, 1, {1, 2, 4, 4}},
    {"AverageIncludePadFloor", kInclude, {1, 1, 6, 5}, {3, 2}, {1, 2}, {1, 1}, {2, 1, 1, 0}, 0, {1, 1, 7, 3}},
    // Dilated averages: the divisor counts only the dilated taps that land inside.
    {"AverageDilatedExcludePad", kExclude, {1, 1, 7, 7}, {2, 3}, {1, 2}, {2, 2}, {1, 2, 1, 2}, 0, {1, 1, 7, 4}},
    // 8x8, k2 d2 s2 p1, ceil: ceil(7 / 2) + 1 = 5; the last window's taps are input 7
    // and 9, past the end padding: its divisor is 1 even with count_include_pad.
    {"AverageDilatedIncludePadCeil", kInclude, {1, 1, 8, 8}, {2, 2}, {2, 2}, {2, 2}, {1, 1, 1, 1}, 1, {1, 1, 5, 5}},
    {"AverageUnpadded", kExclude, {1, 3, 4, 6}, {2, 3}, {2, 3}, {1, 1}, {0, 0, 0, 0}, 0, {1, 3, 2, 2}},
};

INSTANTIATE_TEST_SUITE_P(
    Windows, Pool2d, testing::ValuesIn(kPoolCases),
    [](const testing::TestParamInfo<PoolCase>& info) { return std::string(info.param.name); });

TEST(PoolLowering, SameLowerPutsTheOddPadAtTheBeginning) {
  OneNode pool("AveragePool");
  pool.input({1, 1, 5, 5}).attr("kernel_shape", Shape{2, 2}).attr("auto_pad", std::string("SAME_LOWER"));
  Window2d win{2, 2, 1, 1, 1, 1, 1, 1, 0, 0};
  expect_output(pool, {1, 1, 5, 5}, pool2d_reference(pool.values_of(0), {1, 1, 5, 5}, kExclude, win, {1, 1, 5, 5}));
}

TEST(PoolLowering, UnpaddedAverageDividesByAConstant) {
  OneNode pool("AveragePool");
  pool.input({1, 1, 4, 4}).attr("kernel_shape", Shape{2, 2}).attr("strides", Shape{2, 2});
  ASSERT_EQ(pool.infer(), (Shape{1, 1, 2, 2}));
  std::string ir = pool.printed_ir();
  EXPECT_NE(ir.find("/ 4.0f)"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("if ("), std::string::npos) << ir;
}

TEST(PoolLowering, MaxPoolStartsFromMinusInfinity) {
  OneNode pool("MaxPool");
  pool.input({1, 1, 4, 4}).attr("kernel_shape", Shape{2, 2});
  ASSERT_EQ(pool.infer(), (Shape{1, 1, 3, 3}));
  std::string ir = pool.printed_ir();
  EXPECT_NE(ir.find("acc[0] = -inf"), std::string::npos) << ir;
}

TEST(PoolLowering, OneAndThreeDimensionalMaxPool) {
  OneNode pool1("MaxPool");
  pool1.input({1, 2, 5}).attr("kernel_shape", Shape{2}).attr("pads", Shape{1, 0});
  Window2d win{1, 2, 1, 1, 1, 1, 0, 1, 0, 0};
  expect_output(pool1, {1, 2, 5}, pool2d_reference(pool1.values_of(0), {1, 2, 1, 5}, kMax, win, {1, 2, 1, 5}));

  // 3-D with a unit kernel along depth is a 2-D pool per depth slice.
  OneNode pool3("MaxPool");
  pool3.input({1, 2, 3, 4, 4}).attr("kernel_shape", Shape{1, 2, 2}).attr("strides", Shape{1, 2, 2});
  Window2d win2{2, 2, 2, 2};
  Values want;
  const Values x = pool3.values_of(0);
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t d = 0; d < 3; ++d) {
      Values slice(x.begin() + (c * 3 + d) * 16, x.begin() + (c * 3 + d + 1) * 16);
      Values pooled = pool2d_reference(slice, {1, 1, 4, 4}, kMax, win2, {1, 1, 2, 2});
      want.insert(want.end(), pooled.begin(), pooled.end());
    }
  expect_output(pool3, {1, 2, 3, 2, 2}, want);
}

TEST(PoolLowering, GlobalAveragePoolOverThreeSpatialAxes) {
  OneNode pool("GlobalAveragePool");
  pool.input({2, 3, 2, 3, 4});
  const Values x = pool.values_of(0);
  Values want;
  for (int64_t nc = 0; nc < 6; ++nc) {
    float sum = 0;
    for (int64_t i = 0; i < 24; ++i) sum += x[static_cast<size_t>(nc * 24 + i)];
    want.push_back(sum / 24.0f);
  }
  expect_output(pool, {2, 3, 1, 1, 1}, want);
}

TEST(PoolLowering, FusedEpilogueOnGlobalAveragePool) {
  OneNode pool("GlobalAveragePool");
  pool.input({1, 4, 3, 3}).epilogue("Sigmoid");
  const Values x = pool.values_of(0);
  Values want;
  for (int64_t c = 0; c < 4; ++c) {
    float sum = 0;
    for (int64_t i = 0; i < 9; ++i) sum += x[static_cast<size_t>(c * 9 + i)];
    want.push_back(1.0f / (1.0f + std::exp(-(sum / 9.0f))));
  }
  expect_output(pool, {1, 4, 1, 1}, want);
}

// MaxPool's Indices: the flat index of each maximum in the input [N, C, H, W] (batch and
// channel included, padding not counted), row-major (n C + c) H W + h W + w, or with
// storage_order = 1 column-major over the spatial axes, (n C + c) H W + w H + h. Ties keep
// the first tap in window order.
TEST(PoolLowering, MaxPoolIndicesOutput) {
  const int64_t n = 2, c = 2, h = 5, w = 4, k = 3, stride = 2, pad = 1;
  Shape xs = {n, c, h, w};
  Values x = random_floats(static_cast<size_t>(n * c * h * w), 17);
  x[5] = x[6];  // a tie inside one window
  const int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  for (int64_t storage_order : {0, 1}) {
    SCOPED_TRACE("storage_order " + std::to_string(storage_order));
    Values want_values;
    std::vector<int64_t> want_indices;
    for (int64_t plane = 0; plane < n * c; ++plane)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          float best = -INFINITY;
          int64_t best_index = -1;
          for (int64_t a = 0; a < k; ++a)
            for (int64_t b = 0; b < k; ++b) {
              int64_t y = i * stride + a - pad, z = j * stride + b - pad;
              if (y < 0 || y >= h || z < 0 || z >= w) continue;
              float v = x[static_cast<size_t>((plane * h + y) * w + z)];
              if (best_index < 0 || v > best) {
                best = v;
                best_index = plane * h * w + (storage_order == 0 ? y * w + z : z * h + y);
              }
            }
          want_values.push_back(best);
          want_indices.push_back(best_index);
        }
    OneNode pool("MaxPool");
    pool.input(xs, x).attr("kernel_shape", Shape{k, k}).attr("strides", Shape{stride, stride});
    pool.attr("pads", Shape{pad, pad, pad, pad}).attr("storage_order", storage_order).extra_output(true);
    ASSERT_EQ(pool.infer(), (Shape{n, c, oh, ow}));
    EXPECT_EQ(pool.output_type(1), DataType::Int(64));
    EXPECT_EQ(pool.output_shape(1), (Shape{n, c, oh, ow}));
    expect_near_all(pool.run(), want_values);
    std::vector<int64_t> indices = pool.run_output<int64_t>(1);
    ASSERT_EQ(indices.size(), want_indices.size());
    for (size_t i = 0; i < indices.size(); ++i) EXPECT_EQ(indices[i], want_indices[i]) << "element " << i;
  }
  // Declared but never read: accepted and not computed.
  OneNode unread("MaxPool");
  unread.input({1, 1, 4, 4}).attr("kernel_shape", Shape{2, 2}).extra_output(false);
  EXPECT_EQ(unread.error(), "");
  OneNode bad_order("MaxPool");
  bad_order.input({1, 1, 4, 4}).attr("kernel_shape", Shape{2, 2}).attr("storage_order", int64_t{2}).extra_output(true);
  EXPECT_NE(bad_order.error().find("storage_order must be 0 or 1"), std::string::npos);
}

TEST(PoolLowering, RejectsInvalidAttributes) {
  EXPECT_NE(OneNode("MaxPool").input({1, 1, 4, 4}).error().find("kernel_shape attribute is required"),
            std::string::npos);
  EXPECT_NE(OneNode("AveragePool").input({1, 1, 4, 4}).attr("kernel_shape", Shape{2, 2}).attr("pads", Shape{2, 0, 0, 0})
                .error()
                .find("must be smaller than the window"),
            std::string::npos);
  EXPECT_NE(OneNode("AveragePool").input({1, 1, 4, 4}).attr("kernel_shape", Shape{2, 2}).attr("ceil_mode", int64_t{2})
                .error()
                .find("ceil_mode must be 0 or 1"),
            std::string::npos);
  EXPECT_NE(OneNode("MaxPool").input({1, 4}).attr("kernel_shape", Shape{2}).error().find("spatial axis"),
            std::string::npos);
}

// ---------------------------------------------------------------- Gemm and MatMul

struct GemmCase {
  const char* name;
  bool trans_a, trans_b;
  double alpha, beta;
  Shape c;  // {-1}: no C
};

void PrintTo(const GemmCase& c, std::ostream* os) { *os << c.name; }

class Gemm : public testing::TestWithParam<GemmCase> {};

TEST_P(Gemm, MatchesReference) {
  const GemmCase& p = GetParam();
  const int64_t M = 3, K = 4, N = 5;
  OneNode gemm("Gemm");
  gemm.input(p.trans_a ? Shape{K, M} : Shape{M, K}).input(p.trans_b ? Shape{N, K} : Shape{K, N});
  bool has_c = p.c != Shape{-1};
  if (has_c) gemm.input(p.c);
  gemm.attr("transA", int64_t{p.trans_a}).attr("transB", int64_t{p.trans_b});
  gemm.attr("alpha", p.alpha).attr("beta", p.beta);
  const Values a = gemm.values_of(0), b = gemm.values_of(1), c_values = has_c ? gemm.values_of(2) : Values();
  Values want;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float sum = 0;
      for (int64_t k = 0; k < K; ++k)
        sum += a[static_cast<size_t>(p.trans_a ? k * M + m : m * K + k)] *
               b[static_cast<size_t>(p.trans_b ? n * K + k : k * N + n)];
      float y = static_cast<float>(p.alpha) * sum;
      if (has_c) {
        // C broadcasts from the right: [N], [M, 1], [1, N], [] or [M, N].
        Shape c = p.c;
        while (c.size() < 2) c.insert(c.begin(), 1);
        int64_t ci = (c[0] == 1 ? 0 : m) * c[1] + (c[1] == 1 ? 0 : n);
        y += static_cast<float>(p.beta) * c_values[static_cast<size_t>(ci)];
      }
      want.push_back(y);
    }
  expect_output(gemm, {M, N}, want);
}

INSTANTIATE_TEST_SUITE_P(Attributes, Gemm,
                         testing::Values(GemmCase{"Plain", false, false, 1.0, 1.0, {3, 5}},
                                         GemmCase{"TransposedVectorBias", true, true, 0.5, 2.0, {5}},
                                         GemmCase{"ColumnBias", false, true, 1.0, 0.25, {3, 1}},
                                         GemmCase{"ScalarBias", true, false, -1.5, 1.0, {}},
                                         GemmCase{"NoBias", false, false, 2.0, 1.0, {-1}}),
                         [](const testing::TestParamInfo<GemmCase>& info) { return std::string(info.param.name); });

TEST(GemmLowering, RejectsMismatchedOperands) {
  EXPECT_NE(OneNode("Gemm").input({3, 4}).input({5, 4}).error().find("inner dimensions differ"),
            std::string::npos);
  EXPECT_NE(OneNode("Gemm").input({3, 4}).input({4, 5}).input({2, 5}).error().find("does not broadcast"),
            std::string::npos);
  EXPECT_NE(OneNode("Gemm").input({2, 3, 4}).input({4, 5}).error().find("must be matrices"),
            std::string::npos);
}

// numpy.matmul on row-major arrays, written out: a 1-D A is [1, K], a 1-D B is [K, 1],
// batch dimensions broadcast.
Values matmul_reference(const Values& a, Shape as, const Values& b, Shape bs) {
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  size_t rank = std::max(as.size(), bs.size());
  while (as.size() < rank) as.insert(as.begin(), 1);
  while (bs.size() < rank) bs.insert(bs.begin(), 1);
  int64_t M = as[rank - 2], K = as[rank - 1], N = bs[rank - 1];
  Shape batch(rank - 2);
  for (size_t i = 0; i + 2 < rank; ++i) batch[i] = std::max(as[i], bs[i]);
  Values y;
  for (int64_t flat = 0; flat < element_count(batch); ++flat) {
    int64_t a_off = 0, b_off = 0, rest = flat, a_stride = M * K, b_stride = K * N;
    for (size_t i = batch.size(); i-- > 0;) {
      int64_t idx = rest % batch[i];
      rest /= batch[i];
      a_off += (as[i] == 1 ? 0 : idx) * a_stride;
      b_off += (bs[i] == 1 ? 0 : idx) * b_stride;
      a_stride *= as[i];
      b_stride *= bs[i];
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        float sum = 0;
        for (int64_t k = 0; k < K; ++k)
          sum += a[static_cast<size_t>(a_off + m * K + k)] * b[static_cast<size_t>(b_off + k * N + n)];
        y.push_back(sum);
      }
  }
  return y;
}

struct MatMulCase {
  const char* name;
  Shape a, b, want;
};

void PrintTo(const MatMulCase& c, std::ostream* os) { *os << c.name; }

class MatMul : public testing::TestWithParam<MatMulCase> {};

TEST_P(MatMul, MatchesNumpySemantics) {
  const MatMulCase& p = GetParam();
  OneNode matmul("MatMul");
  matmul.input(p.a).input(p.b);
  expect_output(matmul, p.want, matmul_reference(matmul.values_of(0), p.a, matmul.values_of(1), p.b));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MatMul,
    testing::Values(MatMulCase{"Matrices", {3, 4}, {4, 2}, {3, 2}},
                    MatMulCase{"BroadcastBatch", {2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2}},
                    MatMulCase{"VectorTimesBatch", {4}, {2, 4, 3}, {2, 3}},
                    MatMulCase{"BatchTimesVector", {2, 3, 4}, {4}, {2, 3}},
                    MatMulCase{"DotProduct", {4}, {4}, {}}),
    [](const testing::TestParamInfo<MatMulCase>& info) { return std::string(info.param.name); });

TEST(MatMulLowering, RejectsMismatchedOperands) {
  EXPECT_NE(OneNode("MatMul").input({3, 4}).input({5, 2}).error().find("inner dimensions differ"),
            std::string::npos);
  EXPECT_NE(OneNode("MatMul").input({2, 3, 4}).input({3, 4, 2}).error().find("cannot be broadcast"),
            std::string::npos);
}

}  // namespace
}  // namespace aotc::test
