// TFLite TRANSPOSE_CONV and dilated CONV_2D / DEPTHWISE_CONV_2D (lowering/ops/tflite/tflite_conv.cc),
// in the IR interpreter, against TFLite's reference kernels written out here: the
// transposed convolution as reference_ops::TransposeConv's scatter (input pixels in order,
// each adding filter * value to the outputs it reaches, then the bias), whose float sums
// the kernel must reproduce bit for bit; int8 with per-channel requantization; dilated
// convolutions as reference_ops::Conv / DepthwiseConv (taps in filter order, padded taps
// skipped, bias after the sum).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

// SAME padding before the first element: half the total, rounded down.
int64_t same_pad(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation) {
  int64_t effective = (kernel - 1) * dilation + 1;
  return std::max<int64_t>((out - 1) * stride + effective - in, 0) / 2;
}

// An NHWC CONV_2D of one group: input [1, h, w, cin], filter [cout, k, k, cin].
struct Conv2dGeometry {
  int64_t h, w, cin, k, stride, pad_h, pad_w, dilation;
};

// reference_ops::Conv's sum for output (o[0], o[1], channel o[2]) in Acc: taps in filter
// order, padded taps skipped, no bias.
template <typename Acc, typename X, typename F>
Acc conv2d_sum(const Conv2dGeometry& g, const std::vector<X>& x, const std::vector<F>& f, const Index& o) {
  Acc total = 0;
  for (int64_t ky = 0; ky < g.k; ++ky)
    for (int64_t kx = 0; kx < g.k; ++kx)
      for (int64_t c = 0; c < g.cin; ++c) {
        int64_t iy = o[0] * g.stride - g.pad_h + ky * g.dilation, ix = o[1] * g.stride - g.pad_w + kx * g.dilation;
        if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
        total += Acc{x[static_cast<size_t>((iy * g.w + ix) * g.cin + c)]} *
                 f[static_cast<size_t>(((o[2] * g.k + ky) * g.k + kx) * g.cin + c)];
      }
  return total;
}

struct TransposeCase {
  int64_t in_h, in_w, out_h, out_w, kh, kw, stride;
  const char* padding;
};

class TfliteTransposeConv : public ::testing::TestWithParam<TransposeCase> {
 protected:
  static constexpr int64_t kIn = 3, kOut = 2;
  // The pad of the convolution from the output's size back to the input's.
  int64_t pad(int64_t out, int64_t kernel) const {
    const TransposeCase& c = GetParam();
    if (std::string(c.padding) == "VALID") return 0;
    return same_pad(out, (out + c.stride - 1) / c.stride, kernel, c.stride, 1);
  }
  // reference_ops::TransposeConv's scatter into `acc` (float or int32 terms).
  template <typename Acc, typename X, typename W>
  std::vector<Acc> scatter(const std::vector<X>& x, const std::vector<W>& w, int32_t input_offset) const {
    const TransposeCase& c = GetParam();
    std::vector<Acc> acc(static_cast<size_t>(c.out_h * c.out_w * kOut), Acc(0));
    int64_t ph = pad(c.out_h, c.kh), pw = pad(c.out_w, c.kw);
    for (int64_t iy = 0; iy < c.in_h; ++iy)
      for (int64_t ix = 0; ix < c.in_w; ++ix)
        for (int64_t ic = 0; ic < kIn; ++ic)
          for (int64_t fy = 0; fy < c.kh; ++fy)
            for (int64_t fx = 0; fx < c.kw; ++fx)
              for (int64_t oc = 0; oc < kOut; ++oc) {
                int64_t oy = iy * c.stride - ph + fy, ox = ix * c.stride - pw + fx;
                if (oy < 0 || oy >= c.out_h || ox < 0 || ox >= c.out_w) continue;
                Acc v = static_cast<Acc>(x[static_cast<size_t>((iy * c.in_w + ix) * kIn + ic)]) + static_cast<Acc>(input_offset);
                acc[static_cast<size_t>((oy * c.out_w + ox) * kOut + oc)] +=
                    v * static_cast<Acc>(w[static_cast<size_t>(((oc * c.kh + fy) * c.kw + fx) * kIn + ic)]);
              }
    return acc;
  }
  OneNode node() const {
    const TransposeCase& c = GetParam();
    OneNode n("tfl.TRANSPOSE_CONV");
    n.constant<int32_t>({4}, {1, static_cast<int32_t>(c.out_h), static_cast<int32_t>(c.out_w), kOut});
    n.attr("padding", std::string(c.padding)).attr("stride_h", c.stride).attr("stride_w", c.stride);
    return n;
  }
};

TEST_P(TfliteTransposeConv, FloatSumsInTflitesOrder) {
  const TransposeCase& c = GetParam();
  std::vector<float> x = random_floats(static_cast<size_t>(c.in_h * c.in_w * kIn), 1);
  std::vector<float> w = random_floats(static_cast<size_t>(kOut * c.kh * c.kw * kIn), 2), bias = {0.25f, -0.5f};
  OneNode n = node();
  n.constant({kOut, c.kh, c.kw, kIn}, w).input({1, c.in_h, c.in_w, kIn}, x).constant({kOut}, bias);
  n.output(DataType::Float32(), {1, c.out_h, c.out_w, kOut});
  std::vector<float> got = n.run<float>(), want = scatter<float>(x, w, 0);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i] + bias[i % kOut]) << i;
}

TEST_P(TfliteTransposeConv, Int8PerChannel) {
  const TransposeCase& c = GetParam();
  Quant qx{0.04f, -6}, qy{0.1f, 4};
  std::vector<float> filter_scales = {0.003f, 0.007f};
  std::vector<int8_t> x = random_ints<int8_t>(static_cast<size_t>(c.in_h * c.in_w * kIn), -128, 127, 3);
  std::vector<int8_t> w = random_ints<int8_t>(static_cast<size_t>(kOut * c.kh * c.kw * kIn), -127, 127, 4);
  std::vector<int32_t> bias = {300, -1200};
  OneNode n = node();
  n.constant({kOut, c.kh, c.kw, kIn}, w, {0.003f, 0}).input({1, c.in_h, c.in_w, kIn}, x, qx).constant({kOut}, bias);
  n.output(DataType::Int(8), {1, c.out_h, c.out_w, kOut}, qy);
  // OneNode quantizes constants per tensor; give the filter one scale per output channel.
  n.per_channel_scales(1, filter_scales);
  std::vector<int8_t> got = n.run<int8_t>();
  std::vector<int32_t> acc = scatter<int32_t>(x, w, 6);
  for (size_t i = 0; i < acc.size(); ++i) {
    size_t oc = i % kOut;
    QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qx.scale) * static_cast<double>(filter_scales[oc]) /
                                                static_cast<double>(qy.scale));
    int32_t v = aotc_mul_by_quantized_multiplier(acc[i] + bias[oc], m.multiplier, m.shift) + 4;
    EXPECT_EQ(got[i], std::min(127, std::max(-128, v))) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, TfliteTransposeConv,
                         ::testing::Values(TransposeCase{3, 4, 6, 8, 3, 3, 2, "SAME"}, TransposeCase{3, 3, 7, 7, 3, 3, 2, "VALID"},
                                           TransposeCase{4, 5, 4, 5, 2, 3, 1, "SAME"}, TransposeCase{2, 3, 6, 9, 4, 4, 3, "SAME"}),
                         [](const auto& info) {
                           const TransposeCase& c = info.param;
                           return std::string(c.padding) + "_" + std::to_string(c.in_h) + "x" + std::to_string(c.in_w) +
                                  "_k" + std::to_string(c.kh) + std::to_string(c.kw) + "_s" + std::to_string(c.stride);
                         });

TEST(TfliteTransposeConvErrors, OutputShapeMustMatchTheFilter) {
  OneNode n("tfl.TRANSPOSE_CONV");
  n.constant<int32_t>({4}, {1, 4, 4, 3}).constant({2, 3, 3, 1}, random_floats(18, 1)).input({1, 2, 2, 1}, random_floats(4, 2));
  n.attr("padding", std::string("SAME")).attr("stride_h", int64_t{2}).attr("stride_w", int64_t{2});
  n.output(DataType::Float32(), {1, 4, 4, 3});
  EXPECT_NE(n.error().find("does not match input"), std::string::npos) << n.error();
}

// ---------------------------------------------------------------- dilated convolutions

TEST(TfliteConv, DilatedConv2dSamePaddingFloatAndInt8) {
  const int64_t h = 7, w = 6, cin = 2, cout = 3, k = 3, dil = 2, stride = 1;
  int64_t ph = same_pad(h, h, k, stride, dil), pw = same_pad(w, w, k, stride, dil);
  std::vector<float> x = random_floats(static_cast<size_t>(h * w * cin), 5), f = random_floats(static_cast<size_t>(cout * k * k * cin), 6);
  std::vector<float> bias = {0.1f, -0.2f, 0.3f};
  OneNode n("tfl.CONV_2D");
  n.input({1, h, w, cin}, x).constant({cout, k, k, cin}, f).constant({cout}, bias);
  n.attr("padding", std::string("SAME")).attr("dilation_h", dil).attr("dilation_w", dil);
  n.output(DataType::Float32(), {1, h, w, cout});
  std::vector<float> got = n.run<float>();
  for_each_index({h, w, cout}, [&](const Index& o, size_t flat) {
    float total = conv2d_sum<float>({h, w, cin, k, stride, ph, pw, dil}, x, f, o);
    EXPECT_EQ(got[flat], total + bias[static_cast<size_t>(o[2])]) << flat;
  });
}

TEST(TfliteConv, DilatedDepthwiseValidInt8) {
  const int64_t h = 8, w = 7, c = 4, k = 3, dil = 3;
  const int64_t oh = h - (k - 1) * dil, ow = w - (k - 1) * dil;
  Quant qx{0.02f, 3}, qf{0.005f, 0}, qy{0.05f, -2};
  std::vector<int8_t> x = random_ints<int8_t>(static_cast<size_t>(h * w * c), -128, 127, 7);
  std::vector<int8_t> f = random_ints<int8_t>(static_cast<size_t>(k * k * c), -127, 127, 8);
  OneNode n("tfl.DEPTHWISE_CONV_2D");
  n.input({1, h, w, c}, x, qx).constant({1, k, k, c}, f, qf).constant({c}, std::vector<int32_t>{10, -20, 30, -40});
  n.attr("padding", std::string("VALID")).attr("dilation_h", dil).attr("dilation_w", dil).attr("depth_multiplier", int64_t{1});
  n.output(DataType::Int(8), {1, oh, ow, c}, qy);
  std::vector<int8_t> got = n.run<int8_t>();
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qx.scale) * static_cast<double>(qf.scale) /
                                              static_cast<double>(qy.scale));
  std::vector<int32_t> bias = {10, -20, 30, -40};
  for_each_index({oh, ow, c}, [&](const Index& o, size_t flat) {
    int32_t acc = 0;
    for (int64_t ky = 0; ky < k; ++ky)
      for (int64_t kx = 0; kx < k; ++kx)
        acc += (x[static_cast<size_t>(((o[0] + ky * dil) * w + o[1] + kx * dil) * c + o[2])] - 3) *
               f[static_cast<size_t>((ky * k + kx) * c + o[2])];
    int32_t v = aotc_mul_by_quantized_multiplier(acc + bias[static_cast<size_t>(o[2])], m.multiplier, m.shift) - 2;
    EXPECT_EQ(got[flat], std::min(127, std::max(-128, v))) << flat;
  });
}

// ---------------------------------------------------------------- 16x8: int16 activations, int8 weights

// TFLite's MultiplyByQuantizedMultiplier for an int64 sum (common.h): the multiplier
// rounded to 16 bits, one rounding right shift of the 64-bit product.
int32_t mbqm64(int64_t x, QuantizedMultiplier m) {
  int64_t reduced = m.multiplier < 0x7FFF0000 ? (m.multiplier + (1 << 15)) >> 16 : 0x7FFF;
  int64_t total_shift = 15 - m.shift;
  return static_cast<int32_t>((x * reduced + (int64_t{1} << (total_shift - 1))) >> total_shift);
}

int clamp16(int64_t v) { return static_cast<int>(std::min<int64_t>(32767, std::max<int64_t>(-32768, v))); }

TEST(Tflite16x8, Conv2dWithInt64BiasPerChannel) {
  const int64_t h = 5, w = 4, cin = 3, cout = 2, k = 3;
  Quant qx{0.0005f, 0}, qy{0.002f, 0};
  std::vector<float> filter_scales = {0.01f, 0.004f};
  std::vector<int16_t> x = random_ints<int16_t>(static_cast<size_t>(h * w * cin), -32768, 32767, 11);
  std::vector<int8_t> f = random_ints<int8_t>(static_cast<size_t>(cout * k * k * cin), -127, 127, 12);
  std::vector<int64_t> bias = {123456, -654321};
  OneNode n("tfl.CONV_2D");
  n.input({1, h, w, cin}, x, qx).constant({cout, k, k, cin}, f, {0.01f, 0}).constant({cout}, bias);
  n.per_channel_scales(1, filter_scales);
  n.attr("padding", std::string("SAME")).attr("fused_activation", std::string("RELU"));
  n.output(DataType::Int(16), {1, h, w, cout}, qy);
  std::vector<int16_t> got = n.run<int16_t>();
  for_each_index({h, w, cout}, [&](const Index& o, size_t flat) {
    int64_t acc = conv2d_sum<int64_t>({h, w, cin, k, 1, 1, 1, 1}, x, f, o);  // SAME: one pad each side
    size_t oc = static_cast<size_t>(o[2]);
    QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qx.scale) * static_cast<double>(filter_scales[oc]) /
                                                static_cast<double>(qy.scale));
    EXPECT_EQ(got[flat], std::max(0, clamp16(mbqm64(acc + bias[oc], m)))) << flat;  // RELU: from the zero point 0
  });
}

TEST(Tflite16x8, FullyConnectedWithInt32BiasSumsInInt32) {
  Quant qx{0.001f, 0}, qf{0.02f, 0}, qy{0.01f, 0};
  std::vector<int16_t> x = random_ints<int16_t>(2 * 6, -2000, 2000, 13);
  std::vector<int8_t> f = random_ints<int8_t>(3 * 6, -127, 127, 14);
  std::vector<int32_t> bias = {100, -200, 300};
  OneNode n("tfl.FULLY_CONNECTED");
  n.input({2, 6}, x, qx).constant({3, 6}, f, qf).constant({3}, bias).output(DataType::Int(16), {2, 3}, qy);
  std::vector<int16_t> got = n.run<int16_t>();
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qx.scale) * static_cast<double>(qf.scale) /
                                              static_cast<double>(qy.scale));
  for (int b = 0; b < 2; ++b)
    for (int u = 0; u < 3; ++u) {
      int32_t acc = bias[static_cast<size_t>(u)];
      for (int d = 0; d < 6; ++d) acc += x[static_cast<size_t>(b * 6 + d)] * f[static_cast<size_t>(u * 6 + d)];
      EXPECT_EQ(got[static_cast<size_t>(b * 3 + u)], clamp16(aotc_mul_by_quantized_multiplier(acc, m.multiplier, m.shift)));
    }
}

TEST(Tflite16x8, DepthwiseAndTransposeConvWithInt64Bias) {
  Quant qx{0.0004f, 0}, qf{0.01f, 0}, qy{0.003f, 0};
  const int64_t h = 4, w = 4, c = 2;
  std::vector<int16_t> x = random_ints<int16_t>(static_cast<size_t>(h * w * c), -32768, 32767, 15);
  std::vector<int8_t> f = random_ints<int8_t>(static_cast<size_t>(2 * 2 * c), -127, 127, 16);
  std::vector<int64_t> bias = {1000, -1000};
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qx.scale) * static_cast<double>(qf.scale) /
                                              static_cast<double>(qy.scale));
  OneNode dw("tfl.DEPTHWISE_CONV_2D");
  dw.input({1, h, w, c}, x, qx).constant({1, 2, 2, c}, f, qf).constant({c}, bias);
  dw.attr("padding", std::string("VALID")).attr("depth_multiplier", int64_t{1}).output(DataType::Int(16), {1, 3, 3, c}, qy);
  std::vector<int16_t> got = dw.run<int16_t>();
  for_each_index({3, 3, c}, [&](const Index& o, size_t flat) {
    int64_t acc = 0;
    for (int64_t ky = 0; ky < 2; ++ky)
      for (int64_t kx = 0; kx < 2; ++kx)
        acc += int64_t{x[static_cast<size_t>(((o[0] + ky) * w + o[1] + kx) * c + o[2])]} * f[static_cast<size_t>((ky * 2 + kx) * c + o[2])];
    EXPECT_EQ(got[flat], clamp16(mbqm64(acc + bias[static_cast<size_t>(o[2])], m))) << flat;
  });

  // TRANSPOSE_CONV, stride 2 VALID: output (2i + ky, 2j + kx) gathers input (i, j).
  OneNode tc("tfl.TRANSPOSE_CONV");
  std::vector<int8_t> tf = random_ints<int8_t>(static_cast<size_t>(c * 2 * 2 * c), -127, 127, 17);
  tc.constant<int32_t>({4}, {1, 8, 8, static_cast<int32_t>(c)}).constant({c, 2, 2, c}, tf, qf).input({1, h, w, c}, x, qx);
  tc.constant({c}, bias).attr("padding", std::string("VALID")).attr("stride_h", int64_t{2}).attr("stride_w", int64_t{2});
  tc.output(DataType::Int(16), {1, 8, 8, c}, qy);
  std::vector<int16_t> t_got = tc.run<int16_t>();
  for_each_index({8, 8, c}, [&](const Index& o, size_t flat) {
    int64_t acc = 0;
    for (int64_t ic = 0; ic < c; ++ic)
      acc += int64_t{x[static_cast<size_t>(((o[0] / 2) * w + o[1] / 2) * c + ic)]} *
             tf[static_cast<size_t>(((o[2] * 2 + o[0] % 2) * 2 + o[1] % 2) * c + ic)];
    EXPECT_EQ(t_got[flat], clamp16(mbqm64(acc + bias[static_cast<size_t>(o[2])], m))) << flat;
  });
}

// Dilation on the 16x8 scheme too: CONV_2D (SAME, dilation 2) and DEPTHWISE_CONV_2D
// (VALID, dilation 2), int64 sums and biases.
TEST(Tflite16x8, DilatedConv2dAndDepthwise) {
  Quant qx{0.0005f, 0}, qf{0.008f, 0}, qy{0.004f, 0};
  const int64_t h = 7, w = 6, cin = 2, cout = 3, k = 3, dil = 2;
  std::vector<int16_t> x = random_ints<int16_t>(static_cast<size_t>(h * w * cin), -32768, 32767, 21);
  std::vector<int8_t> f = random_ints<int8_t>(static_cast<size_t>(cout * k * k * cin), -127, 127, 22);
  std::vector<int64_t> bias = {5000, -7000, 90000};
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qx.scale) * static_cast<double>(qf.scale) /
                                              static_cast<double>(qy.scale));
  OneNode conv("tfl.CONV_2D");
  conv.input({1, h, w, cin}, x, qx).constant({cout, k, k, cin}, f, qf).constant({cout}, bias);
  conv.attr("padding", std::string("SAME")).attr("dilation_h", dil).attr("dilation_w", dil);
  conv.output(DataType::Int(16), {1, h, w, cout}, qy);
  std::vector<int16_t> got = conv.run<int16_t>();
  int64_t ph = same_pad(h, h, k, 1, dil), pw = same_pad(w, w, k, 1, dil);
  for_each_index({h, w, cout}, [&](const Index& o, size_t flat) {
    int64_t acc = conv2d_sum<int64_t>({h, w, cin, k, 1, ph, pw, dil}, x, f, o);
    EXPECT_EQ(got[flat], clamp16(mbqm64(acc + bias[static_cast<size_t>(o[2])], m))) << flat;
  });

  const int64_t c = 2, ddil = 2, oh = h - (k - 1) * ddil, ow = w - (k - 1) * ddil;
  std::vector<int8_t> df = random_ints<int8_t>(static_cast<size_t>(k * k * c), -127, 127, 23);
  OneNode dw("tfl.DEPTHWISE_CONV_2D");
  dw.input({1, h, w, c}, x, qx).constant({1, k, k, c}, df, qf).constant({c}, std::vector<int64_t>{-300, 400});
  dw.attr("padding", std::string("VALID")).attr("dilation_h", ddil).attr("dilation_w", ddil).attr("depth_multiplier", int64_t{1});
  dw.output(DataType::Int(16), {1, oh, ow, c}, qy);
  std::vector<int16_t> dgot = dw.run<int16_t>();
  const int64_t dbias[] = {-300, 400};
  for_each_index({oh, ow, c}, [&](const Index& o, size_t flat) {
    int64_t acc = 0;
    for (int64_t ky = 0; ky < k; ++ky)
      for (int64_t kx = 0; kx < k; ++kx)
        acc += int64_t{x[static_cast<size_t>(((o[0] + ky * ddil) * w + o[1] + kx * ddil) * c + o[2])]} *
               df[static_cast<size_t>((ky * k + kx) * c + o[2])];
    EXPECT_EQ(dgot[flat], clamp16(mbqm64(acc + dbias[o[2]], m))) << flat;
  });
}

TEST(Tflite16x8, RejectsANonZeroZeroPoint) {
  OneNode n("tfl.FULLY_CONNECTED");
  n.input({1, 2}, std::vector<int16_t>{1, 2}, {0.1f, 3}).constant({1, 2}, std::vector<int8_t>{1, 1}, {0.1f, 0});
  n.output(DataType::Int(16), {1, 1}, {0.1f, 0});
  EXPECT_NE(n.error().find("zero point 0"), std::string::npos) << n.error();
}

}  // namespace
}  // namespace aotc::test
