// The float32 host convolution kernels (lowering/kernels/host_simd/conv_host_f32.h,
// runtime-c/aotc_host_f32.h), as a target with the `simd` feature lowers ONNX Conv.
//
// Each case lowers one Conv for such a target and runs it in the IR interpreter (which
// calls the same C kernel the generated code calls); the expected values come from plain
// double-precision loops written here from ONNX's definition of Conv. The shapes are
// chosen to reach every branch of the kernels: channel counts that fill no block (odd,
// fewer than a block, one more than a block), pixel counts on both sides of the 24 that
// choose the block's orientation and ragged against both block widths, strides 1, 2 and 3,
// asymmetric padding, im2col bands that do not divide the output's rows, several images,
// depthwise kernels, and fused ReLU and Clip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

using Values = std::vector<float>;

struct Case {
  const char* name;
  Shape x;  // [N, C, H, W]
  int64_t out_channels, kh, kw, group;
  int64_t stride_h, stride_w, top, left, bottom, right;
  // "", "Relu", "Clip" (Clip(-0.5, 0.75): constant bounds the kernel clamps to) or
  // "ClipOpen" (Clip without bounds).
  const char* activation;
  bool host_kernel;        // whether the host kernel applies (else the generic one runs)
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

Values random_values(int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Values v(static_cast<size_t>(count));
  for (float& e : v) e = dist(rng);
  return v;
}

// ONNX Conv on NCHW in double precision: Y[n, m, y, x] = B[m] + sum over the group's
// input channels c and the taps (i, j) inside the input of X[n, g * C/group + c, ...] * W[m, c, i, j].
std::vector<double> reference(const Case& k, const Values& x, const Values& w, const Values& b, const Shape& ys) {
  int64_t c_per_group = k.x[1] / k.group, m_per_group = k.out_channels / k.group;
  std::vector<double> y;
  for (int64_t n = 0; n < ys[0]; ++n)
    for (int64_t m = 0; m < ys[1]; ++m)
      for (int64_t oy = 0; oy < ys[2]; ++oy)
        for (int64_t ox = 0; ox < ys[3]; ++ox) {
          double sum = b[static_cast<size_t>(m)];
          for (int64_t c = 0; c < c_per_group; ++c)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                int64_t iy = oy * k.stride_h - k.top + i, ix = ox * k.stride_w - k.left + j;
                if (iy < 0 || iy >= k.x[2] || ix < 0 || ix >= k.x[3]) continue;
                int64_t channel = (m / m_per_group) * c_per_group + c;
                sum += static_cast<double>(x[static_cast<size_t>(((n * k.x[1] + channel) * k.x[2] + iy) * k.x[3] + ix)]) *
                       w[static_cast<size_t>(((m * c_per_group + c) * k.kh + i) * k.kw + j)];
              }
          std::string act = k.activation;
          if (act == "Relu") sum = std::max(sum, 0.0);
          if (act == "Clip") sum = std::min(std::max(sum, -0.5), 0.75);
          y.push_back(sum);
        }
  return y;
}

class HostConv : public testing::TestWithParam<Case> {};

TEST_P(HostConv, MatchesReference) {
  const Case& k = GetParam();
  Shape ws = {k.out_channels, k.x[1] / k.group, k.kh, k.kw};
  Values w = random_values(element_count(ws), 2), b = random_values(k.out_channels, 3);
  OneNode conv("Conv");
  conv.input(k.x, random_values(element_count(k.x), 1)).constant(ws, w).constant(Shape{k.out_channels}, b);
  conv.attr("group", k.group).attr("strides", Shape{k.stride_h, k.stride_w});
  conv.attr("pads", Shape{k.top, k.left, k.bottom, k.right});
  std::string act = k.activation;
  if (act == "Relu") conv.epilogue("Relu");
  if (act == "Clip") conv.epilogue("Clip", {-0.5f, 0.75f});
  if (act == "ClipOpen") conv.epilogue("Clip");
  TargetFacts host;
  host.features = {"fpu", "fp64", "simd"};
  conv.target(host);
  Shape ys = {k.x[0], k.out_channels, (k.x[2] + k.top + k.bottom - k.kh) / k.stride_h + 1,
              (k.x[3] + k.left + k.right - k.kw) / k.stride_w + 1};
  ASSERT_EQ(conv.infer(), ys);
  std::string ir = conv.printed_ir();
  bool host_kernel = ir.find("aotc_conv_f32") != std::string::npos || ir.find("aotc_depthwise_f32") != std::string::npos;
  EXPECT_EQ(host_kernel, k.host_kernel) << ir;
  std::vector<double> want = reference(k, conv.values_of(0), w, b, ys);
  Values got = conv.run();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, HostConv,
    testing::Values(
        // 25 pixels: channels x pixels blocks, the last one moved back to overlap; 7 channels:
        // a last block of 3; im2col with asymmetric padding at stride 2.
        Case{"Strided3x3OddChannels", {1, 5, 9, 11}, 7, 3, 3, 1, 2, 2, 1, 0, 2, 1, "Relu", true},
        // 16 pixels: 16-channel blocks over pixels; 19 channels: a block of 16 and one of 3;
        // pixel blocks of 6, 6 and 4.
        Case{"FewPixelsPadded3x3", {1, 3, 4, 4}, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, "", true},
        // 1x1 read in place, two images, 49 pixels.
        Case{"Pointwise", {2, 6, 7, 7}, 10, 1, 1, 1, 1, 1, 0, 0, 0, 0, "Relu", true},
        // 1x1 on 6 pixels (one block) with 17 channels, and on 1 pixel (a fully connected layer).
        Case{"PointwiseSixPixels", {1, 33, 2, 3}, 17, 1, 1, 1, 1, 1, 0, 0, 0, 0, "", true},
        Case{"PointwiseOnePixel", {1, 40, 1, 1}, 33, 1, 1, 1, 1, 1, 0, 0, 0, 0, "ClipOpen", true},
        // 1x1 at stride 2: gathered like a larger window.
        Case{"PointwiseStrided", {1, 4, 9, 9}, 5, 1, 1, 1, 2, 2, 0, 0, 0, 0, "", true},
        // 64 channels x 3x3 = 576 terms per pixel: bands of 2 rows of 20 pixels (at least 24),
        // the last band moved back over 21 rows.
        Case{"BandsOverlapAtTheEnd", {1, 64, 21, 20}, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, "Relu", true},
        // A window wider than tall, unpadded (the valid columns end before the row does).
        Case{"Rectangular2x5", {1, 2, 6, 30}, 4, 2, 5, 1, 1, 1, 0, 0, 0, 0, "", true},
        // Depthwise: 3x3 at strides 1 and 2, padded, unpadded and asymmetric (through the
        // padded plane), 5x5 at stride 3 (row by row), several images.
        Case{"Depthwise3x3", {1, 7, 8, 9}, 7, 3, 3, 7, 1, 1, 1, 1, 1, 1, "Relu", true},
        Case{"Depthwise3x3Strided", {2, 5, 9, 8}, 5, 3, 3, 5, 2, 2, 1, 1, 1, 1, "Clip", true},
        Case{"Depthwise3x3Unpadded", {1, 4, 6, 7}, 4, 3, 3, 4, 1, 1, 0, 0, 0, 0, "", true},
        Case{"Depthwise3x3AsymmetricPads", {1, 3, 10, 7}, 3, 3, 3, 3, 2, 2, 0, 1, 1, 0, "Relu", true},
        Case{"Depthwise5x5Stride3", {1, 3, 11, 13}, 3, 5, 5, 3, 3, 3, 2, 1, 0, 2, "", true},
        // Groups that are neither 1 nor depthwise, and a channel multiplier: the generic kernel.
        Case{"GroupsOfTwoChannels", {1, 4, 5, 5}, 6, 3, 3, 2, 1, 1, 1, 1, 1, 1, "", false},
        Case{"DepthwiseMultiplier2", {1, 3, 5, 5}, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, "", false}),
    [](const testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace aotc::test
