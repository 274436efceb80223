// Kernel variants chosen by the target's features: a lowering may pick another kernel for a
// target that lists a feature, and every variant computes the same bytes.
//
// int8 FULLY_CONNECTED (lowering/ops/tflite/tflite_conv.cc): on microcontroller targets (all but
// the host, whose features include `simd`) four units at a time over packed weights, the
// runtime's aotc_dot_s8_1x4 (SMLAD with `dsp`, plain C for a core with few registers
// without it; the interpreter runs the plain C, which gives the same sums), on the host a
// plain loop. int8 CONV_2D: on microcontroller targets register blocks of two pixels x two
// channels over packed weights (conv_blocked_s8.h, the runtime's aotc_dot_s8_2x2);
// DEPTHWISE_CONV_2D: unrolled taps with the bounds checks at the edges only
// (depthwise_s8.h). On `mve` targets all three take the
// Helium kernels (conv_mve_s8.h, the runtime's aotc_mve.h, whose plain loops the
// interpreter runs here; tests/firmware/mve_kernels checks the vector code against them on
// the emulated Cortex-M55). The expected values are
// TFLite's reference arithmetic written out here: sum of (x - input_zero_point) * w, plus
// bias, requantized with the multiplier of input_scale * filter_scale / output_scale, plus
// the output zero point, clamped. The convolutions' expected values are TFLite's
// convolution from its definition in the same way (SAME padding: output ceil(input /
// stride), the odd padding element at the end; taps in the padding skipped).
#include <gtest/gtest.h>

#include <algorithm>

#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

struct FcCase {
  int64_t batches, depth, units;
  bool constant_weights;
};

class FullyConnectedInt8 : public ::testing::TestWithParam<FcCase> {
 protected:
  const Quant input_quant{0.05f, -7}, filter_quant{0.02f, 0}, output_quant{0.1f, 3};

  OneNode fc(const TargetFacts& target, const std::vector<int8_t>& x, const std::vector<int8_t>& w,
             const std::vector<int32_t>& bias) {
    const FcCase& c = GetParam();
    OneNode node("tfl.FULLY_CONNECTED");
    node.target(target).input<int8_t>({c.batches, c.depth}, x, input_quant);
    if (c.constant_weights) {
      node.constant<int8_t>({c.units, c.depth}, w, filter_quant);
    } else {
      node.input<int8_t>({c.units, c.depth}, w, filter_quant);
    }
    node.constant<int32_t>({c.units}, bias).output(DataType::Int(8), {c.batches, c.units}, output_quant);
    return node;
  }

  // TFLite's reference kernel, from its definition.
  std::vector<int8_t> reference(const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                const std::vector<int32_t>& bias) const {
    const FcCase& c = GetParam();
    QuantizedMultiplier m = quantize_multiplier(static_cast<double>(input_quant.scale) * filter_quant.scale /
                                                output_quant.scale);
    std::vector<int8_t> out;
    for (int64_t b = 0; b < c.batches; ++b) {
      for (int64_t u = 0; u < c.units; ++u) {
        int32_t acc = bias[static_cast<size_t>(u)];
        for (int64_t d = 0; d < c.depth; ++d)
          acc += (x[static_cast<size_t>(b * c.depth + d)] - static_cast<int32_t>(input_quant.zero_point)) *
                 w[static_cast<size_t>(u * c.depth + d)];
        int32_t y = aotc_mul_by_quantized_multiplier(acc, m.multiplier, m.shift) +
                    static_cast<int32_t>(output_quant.zero_point);
        out.push_back(static_cast<int8_t>(std::min(127, std::max(-128, y))));
      }
    }
    return out;
  }
};

TEST_P(FullyConnectedInt8, EveryVariantGivesTflitesBytes) {
  const FcCase& c = GetParam();
  std::vector<int8_t> x = random_ints<int8_t>(static_cast<size_t>(c.batches * c.depth), -128, 127, 1);
  std::vector<int8_t> w = random_ints<int8_t>(static_cast<size_t>(c.units * c.depth), -127, 127, 2);
  std::vector<int32_t> bias = random_ints<int32_t>(static_cast<size_t>(c.units), -3000, 3000, 3);
  std::vector<int8_t> want = reference(x, w, bias);
  for (const TargetFacts& target : {with_features({"simd"}), with_features({}), with_features({"dsp"}),
                                     with_features({"fpu", "dsp", "mve"})}) {
    SCOPED_TRACE(target.has("mve") ? "mve" : target.has("dsp") ? "dsp" : target.has("simd") ? "host" : "no dsp");
    EXPECT_EQ(fc(target, x, w, bias).run<int8_t>(), want);
  }
}

// The features decide the kernel: a microcontroller target calls the runtime's dot product
// (SMLAD with `dsp`, plain C without), an `mve` target its Helium kernel, the host (`simd`)
// neither, and only where the weights are constant (the input's zero point is folded into
// the bias).
TEST_P(FullyConnectedInt8, MicrocontrollerTargetsCallTheDotProduct) {
  const FcCase& c = GetParam();
  std::vector<int8_t> x(static_cast<size_t>(c.batches * c.depth), 1), w(static_cast<size_t>(c.units * c.depth), 1);
  std::vector<int32_t> bias(static_cast<size_t>(c.units), 0);
  std::string dsp = fc(with_features({"dsp"}), x, w, bias).printed_ir();
  std::string mve = fc(with_features({"dsp", "mve"}), x, w, bias).printed_ir();
  std::string no_dsp = fc(with_features({}), x, w, bias).printed_ir();
  std::string host = fc(with_features({"fpu", "simd"}), x, w, bias).printed_ir();
  // aotc_dot_s8_1x4, or its aligned form for an input in a planned tensor.
  EXPECT_EQ(dsp.find("aotc_dot_s8_1x4") != std::string::npos, c.constant_weights) << dsp;
  EXPECT_EQ(no_dsp.find("aotc_dot_s8_1x4") != std::string::npos, c.constant_weights) << no_dsp;
  EXPECT_EQ(mve.find("aotc_mve_conv_s8(") != std::string::npos, c.constant_weights) << mve;
  EXPECT_EQ(mve.find("aotc_dot_s8_1x4"), std::string::npos) << mve;
  EXPECT_EQ(host.find("aotc_dot_s8_1x4"), std::string::npos) << host;
}

INSTANTIATE_TEST_SUITE_P(Shapes, FullyConnectedInt8,
                         ::testing::Values(FcCase{1, 640, 128, true},   // ad01's first layer
                                           FcCase{3, 10, 5, true},      // depth not a multiple of 4
                                           FcCase{2, 7, 3, false}),     // weights at run time
                         [](const ::testing::TestParamInfo<FcCase>& info) {
                           const FcCase& c = info.param;
                           return std::to_string(c.batches) + "x" + std::to_string(c.depth) + "_to_" +
                                  std::to_string(c.units) + (c.constant_weights ? "" : "_runtime_weights");
                         });

// ---------------------------------------------------------------- convolutions

struct ConvCase {
  int64_t h, w, channels, out_channels, kernel_h, kernel_w, stride;
  const char* padding;
  bool depthwise;
  const char* activation;
};

class ConvolutionInt8 : public ::testing::TestWithParam<ConvCase> {
 protected:
  const Quant input_quant{0.05f, -7}, output_quant{0.1f, 3};

  // TFLite's output extents: ceil(in / stride) with SAME, (in - k) / stride + 1 with VALID.
  static int64_t extent(int64_t in, int64_t k, int64_t stride, bool same) { return same ? (in + stride - 1) / stride : (in - k) / stride + 1; }
  bool same() const { return std::string(GetParam().padding) == "SAME"; }
  int64_t oh() const { return extent(GetParam().h, GetParam().kernel_h, GetParam().stride, same()); }
  int64_t ow() const { return extent(GetParam().w, GetParam().kernel_w, GetParam().stride, same()); }
  static int64_t pad_begin(int64_t in, int64_t out, int64_t k, int64_t stride, bool same) {
    return same ? std::max<int64_t>((out - 1) * stride + k - in, 0) / 2 : 0;
  }
  std::vector<float> filter_scales() const {
    std::vector<float> scales;
    for (int64_t c = 0; c < GetParam().out_channels; ++c) scales.push_back(0.01f + 0.003f * static_cast<float>(c % 5));
    return scales;
  }

  OneNode conv(const TargetFacts& target, const std::vector<int8_t>& x, const std::vector<int8_t>& w,
               const std::vector<int32_t>& bias) {
    const ConvCase& c = GetParam();
    OneNode node(c.depthwise ? "tfl.DEPTHWISE_CONV_2D" : "tfl.CONV_2D");
    Shape filter = c.depthwise ? Shape{1, c.kernel_h, c.kernel_w, c.out_channels} : Shape{c.out_channels, c.kernel_h, c.kernel_w, c.channels};
    node.target(target).input<int8_t>({1, c.h, c.w, c.channels}, x, input_quant).constant<int8_t>(filter, w, Quant{0.01f, 0});
    node.per_channel_scales(1, filter_scales(), c.depthwise ? 3 : 0).constant<int32_t>({c.out_channels}, bias);
    node.attr("padding", std::string(c.padding)).attr("stride_h", c.stride).attr("stride_w", c.stride);
    node.attr("fused_activation", std::string(c.activation));
    if (c.depthwise) node.attr("depth_multiplier", int64_t{1});
    node.output(DataType::Int(8), {1, oh(), ow(), c.out_channels}, output_quant);
    return node;
  }

  std::vector<int8_t> reference(const std::vector<int8_t>& x, const std::vector<int8_t>& w, const std::vector<int32_t>& bias) const {
    const ConvCase& c = GetParam();
    bool same = std::string(c.padding) == "SAME";
    int64_t pt = pad_begin(c.h, oh(), c.kernel_h, c.stride, same), pl = pad_begin(c.w, ow(), c.kernel_w, c.stride, same);
    int32_t lo = std::string(c.activation) == "RELU" ? std::max(-128, static_cast<int>(output_quant.zero_point)) : -128;
    std::vector<int8_t> out;
    for (int64_t oy = 0; oy < oh(); ++oy) {
      for (int64_t ox = 0; ox < ow(); ++ox) {
        for (int64_t oc = 0; oc < c.out_channels; ++oc) {
          int32_t acc = 0;
          for (int64_t ky = 0; ky < c.kernel_h; ++ky) {
            for (int64_t kx = 0; kx < c.kernel_w; ++kx) {
              int64_t iy = oy * c.stride - pt + ky, ix = ox * c.stride - pl + kx;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              for (int64_t ic = 0; ic < (c.depthwise ? 1 : c.channels); ++ic) {
                int64_t channel = c.depthwise ? oc : ic;
                int32_t value = x[static_cast<size_t>((iy * c.w + ix) * c.channels + channel)] - static_cast<int32_t>(input_quant.zero_point);
                int64_t at = c.depthwise ? (ky * c.kernel_w + kx) * c.out_channels + oc
                                         : ((oc * c.kernel_h + ky) * c.kernel_w + kx) * c.channels + ic;
                acc += value * w[static_cast<size_t>(at)];
              }
            }
          }
          QuantizedMultiplier m = quantize_multiplier(static_cast<double>(input_quant.scale) * filter_scales()[static_cast<size_t>(oc)] /
                                                      output_quant.scale);
          int32_t y = aotc_mul_by_quantized_multiplier(acc + bias[static_cast<size_t>(oc)], m.multiplier, m.shift) +
                      static_cast<int32_t>(output_quant.zero_point);
          out.push_back(static_cast<int8_t>(std::min(127, std::max(lo, y))));
        }
      }
    }
    return out;
  }
};

TEST_P(ConvolutionInt8, EveryVariantGivesTflitesBytes) {
  const ConvCase& c = GetParam();
  size_t filter_size = static_cast<size_t>(c.kernel_h * c.kernel_w * (c.depthwise ? c.out_channels : c.out_channels * c.channels));
  std::vector<int8_t> x = random_ints<int8_t>(static_cast<size_t>(c.h * c.w * c.channels), -128, 127, 4);
  std::vector<int8_t> w = random_ints<int8_t>(filter_size, -127, 127, 5);
  std::vector<int32_t> bias = random_ints<int32_t>(static_cast<size_t>(c.out_channels), -3000, 3000, 6);
  std::vector<int8_t> want = reference(x, w, bias);
  for (const TargetFacts& target : {with_features({"simd"}), with_features({}), with_features({"dsp"}),
                                     with_features({"dsp", "mve"})}) {
    SCOPED_TRACE(target.has("mve") ? "mve" : target.has("dsp") ? "dsp" : target.has("simd") ? "host" : "no dsp");
    EXPECT_EQ(conv(target, x, w, bias).run<int8_t>(), want);
  }
}

// Microcontroller targets take the specialized kernels, with `dsp` or without; the host
// (`simd`) keeps the generic loops.
TEST_P(ConvolutionInt8, MicrocontrollerTargetsTakeTheSpecializedKernel) {
  const ConvCase& c = GetParam();
  size_t filter_size = static_cast<size_t>(c.kernel_h * c.kernel_w * (c.depthwise ? c.out_channels : c.out_channels * c.channels));
  std::vector<int8_t> x(static_cast<size_t>(c.h * c.w * c.channels), 1), w(filter_size, 1);
  std::vector<int32_t> bias(static_cast<size_t>(c.out_channels), 0);
  std::string dsp = conv(with_features({"dsp"}), x, w, bias).printed_ir();
  std::string no_dsp = conv(with_features({}), x, w, bias).printed_ir();
  std::string host = conv(with_features({"fpu", "simd"}), x, w, bias).printed_ir();
  // Depthwise kernels three wide sum rows of three taps from a plane (aotc_dw3_s8), other
  // depthwise kernels read the channel's weights into locals first; convolutions call the
  // runtime's register blocks (aotc_dot_s8_2x2, aotc_dot_s16_2x2 and their variants).
  const char* marker = !c.depthwise ? "aotc_dot_s" : c.kernel_w == 3 ? "aotc_dw3_s8(" : "let w0 = ";
  EXPECT_NE(dsp.find(marker), std::string::npos) << dsp;
  EXPECT_NE(no_dsp.find(marker), std::string::npos) << no_dsp;
  EXPECT_EQ(host.find(marker), std::string::npos) << host;
  // Helium: the vector kernels, over a band of zero-point-padded rows unless pointwise.
  std::string mve = conv(with_features({"dsp", "mve"}), x, w, bias).printed_ir();
  EXPECT_NE(mve.find(c.depthwise ? "aotc_mve_depthwise_s8(" : "aotc_mve_conv_s8("), std::string::npos) << mve;
  EXPECT_EQ(mve.find(marker), std::string::npos) << mve;
  bool pointwise = !c.depthwise && c.kernel_h == 1 && c.kernel_w == 1;
  EXPECT_EQ(mve.find("aotc_mve_band_row_s8(") != std::string::npos, !pointwise) << mve;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvolutionInt8,
    ::testing::Values(ConvCase{5, 5, 8, 8, 1, 1, 1, "VALID", false, "NONE"},    // pointwise, odd pixel count
                      ConvCase{4, 3, 12, 7, 1, 1, 1, "SAME", false, "RELU"},    // odd output channels
                      ConvCase{6, 6, 8, 6, 3, 3, 1, "SAME", false, "NONE"},     // rows inside, taps at the edges
                      ConvCase{7, 5, 4, 4, 3, 3, 2, "SAME", false, "RELU"},     // stride 2
                      ConvCase{9, 6, 3, 5, 3, 3, 2, "SAME", false, "NONE"},     // 3 channels: gathered windows
                      ConvCase{11, 5, 1, 4, 5, 4, 2, "SAME", false, "NONE"},    // kws's first layer, smaller
                      ConvCase{5, 4, 6, 4, 3, 2, 1, "VALID", false, "NONE"},    // 6 channels, valid
                      ConvCase{6, 5, 16, 6, 3, 3, 1, "SAME", false, "RELU"},    // runs of 48: rows from the band
                      ConvCase{7, 7, 32, 9, 1, 1, 2, "SAME", false, "NONE"},    // pointwise, stride 2
                      ConvCase{5, 6, 4, 5, 2, 2, 2, "SAME", false, "NONE"},     // even kernel, stride 2
                      ConvCase{3, 5, 6, 4, 1, 1, 1, "VALID", false, "RELU"},    // pointwise, a partial group of channels
                      ConvCase{7, 8, 8, 6, 1, 1, 2, "SAME", false, "NONE"},     // pointwise, stride 2
                      ConvCase{5, 7, 8, 6, 3, 3, 1, "SAME", false, "RELU"},     // odd output width: a last pixel alone
                      ConvCase{6, 8, 16, 4, 3, 3, 1, "SAME", false, "NONE"},    // rows of 48 values
                      ConvCase{6, 5, 8, 8, 3, 3, 1, "SAME", true, "RELU"},      // depthwise
                      ConvCase{7, 6, 5, 5, 3, 3, 2, "SAME", true, "NONE"},      // depthwise stride 2
                      ConvCase{2, 2, 3, 3, 3, 3, 1, "SAME", true, "NONE"},      // every window at an edge
                      ConvCase{6, 6, 4, 4, 3, 3, 1, "VALID", true, "NONE"},     // no edges
                      ConvCase{5, 7, 6, 6, 3, 3, 1, "SAME", true, "RELU"},      // a row's last three outputs
                      ConvCase{8, 8, 4, 4, 3, 3, 2, "SAME", true, "NONE"},      // stride 2, padding only at the end
                      ConvCase{4, 6, 4, 4, 1, 3, 1, "SAME", true, "NONE"},      // one kernel row
                      ConvCase{7, 7, 4, 4, 5, 5, 1, "SAME", true, "RELU"},      // five wide: the unrolled kernel
                      ConvCase{9, 7, 20, 20, 3, 3, 1, "SAME", true, "RELU"},    // 20 channels: five vectors
                      ConvCase{8, 9, 6, 6, 5, 5, 2, "SAME", true, "NONE"}),     // 5x5, stride 2
    [](const ::testing::TestParamInfo<ConvCase>& info) {
      const ConvCase& c = info.param;
      return std::string(c.depthwise ? "depthwise_" : "conv_") + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" +
             std::to_string(c.channels) + "_to_" + std::to_string(c.out_channels) + "_k" + std::to_string(c.kernel_h) +
             std::to_string(c.kernel_w) + "_s" + std::to_string(c.stride) + "_" + c.padding + "_" + c.activation;
    });

// ---------------------------------------------------------------- float32 register blocks
//
// On a target with `fpu`, float32 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with
// constant weights run in register blocks over packed weights (blocked_f32.h, the
// runtime's aotc_dot_f32_4x4, aotc_dw_f32_4ch and aotc_dot_f32_1x4, VMUL then VADD on a Cortex-M
// with an FPU; the interpreter runs the same C's plain loops). The expected values are
// TFLite's reference float kernels written out here: per output a float sum from zero over
// (ky, kx, ic), taps in the padding skipped, then the bias, then the activation; each
// product rounded before it is added (no fused multiply-add), as VMUL then VADD round.

class ConvolutionFloat : public ::testing::TestWithParam<ConvCase> {
 protected:
  static int64_t extent(int64_t in, int64_t k, int64_t stride, bool same) { return same ? (in + stride - 1) / stride : (in - k) / stride + 1; }
  bool same() const { return std::string(GetParam().padding) == "SAME"; }
  int64_t oh() const { return extent(GetParam().h, GetParam().kernel_h, GetParam().stride, same()); }
  int64_t ow() const { return extent(GetParam().w, GetParam().kernel_w, GetParam().stride, same()); }
  size_t filter_size() const {
    const ConvCase& c = GetParam();
    return static_cast<size_t>(c.kernel_h * c.kernel_w * (c.depthwise ? c.out_channels : c.out_channels * c.channels));
  }

  OneNode conv(const TargetFacts& target, const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias) {
    const ConvCase& c = GetParam();
    OneNode node(c.depthwise ? "tfl.DEPTHWISE_CONV_2D" : "tfl.CONV_2D");
    Shape filter = c.depthwise ? Shape{1, c.kernel_h, c.kernel_w, c.out_channels} : Shape{c.out_channels, c.kernel_h, c.kernel_w, c.channels};
    node.target(target).input<float>({1, c.h, c.w, c.channels}, x).constant<float>(filter, w).constant<float>({c.out_channels}, bias);
    node.attr("padding", std::string(c.padding)).attr("stride_h", c.stride).attr("stride_w", c.stride);
    node.attr("fused_activation", std::string(c.activation));
    if (c.depthwise) node.attr("depth_multiplier", int64_t{1});
    node.output(DataType::Float32(), {1, oh(), ow(), c.out_channels});
    return node;
  }

  std::vector<float> reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias) const {
    const ConvCase& c = GetParam();
    auto pad = [&](int64_t in, int64_t out, int64_t k) { return same() ? std::max<int64_t>((out - 1) * c.stride + k - in, 0) / 2 : 0; };
    int64_t pt = pad(c.h, oh(), c.kernel_h), pl = pad(c.w, ow(), c.kernel_w);
    std::vector<float> out;
    for (int64_t oy = 0; oy < oh(); ++oy) {
      for (int64_t ox = 0; ox < ow(); ++ox) {
        for (int64_t oc = 0; oc < c.out_channels; ++oc) {
          float acc = 0.0f;
          for (int64_t ky = 0; ky < c.kernel_h; ++ky) {
            for (int64_t kx = 0; kx < c.kernel_w; ++kx) {
              int64_t iy = oy * c.stride - pt + ky, ix = ox * c.stride - pl + kx;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
              for (int64_t ic = 0; ic < (c.depthwise ? 1 : c.channels); ++ic) {
                int64_t channel = c.depthwise ? oc : ic;
                int64_t at = c.depthwise ? (ky * c.kernel_w + kx) * c.out_channels + oc
                                         : ((oc * c.kernel_h + ky) * c.kernel_w + kx) * c.channels + ic;
                volatile float product = x[static_cast<size_t>((iy * c.w + ix) * c.channels + channel)] * w[static_cast<size_t>(at)];
                acc += product;
              }
            }
          }
          float y = acc + bias[static_cast<size_t>(oc)];
          if (std::string(c.activation) == "RELU") y = std::max(y, 0.0f);
          out.push_back(y);
        }
      }
    }
    return out;
  }
};

// The register blocks add the same products in the same order: the same floats.
TEST_P(ConvolutionFloat, EveryVariantGivesTflitesValues) {
  const ConvCase& c = GetParam();
  std::vector<float> x = random_floats(static_cast<size_t>(c.h * c.w * c.channels), 7);
  std::vector<float> w = random_floats(filter_size(), 8);
  std::vector<float> bias = random_floats(static_cast<size_t>(c.out_channels), 9);
  std::vector<float> want = reference(x, w, bias);
  for (const TargetFacts& target :
       {with_features({}), with_features({"fpu", "dsp"}), with_features({"fpu", "dsp", "mve", "mve.fp"})}) {
    SCOPED_TRACE(target.has("mve.fp") ? "mve.fp" : target.has("fpu") ? "fpu" : "no fpu");
    std::vector<float> got = conv(target, x, w, bias).run<float>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i]) << "element " << i;
  }
}

// Only an `fpu` target calls the register blocks; a depthwise layer only with channels in
// whole groups of four.
TEST_P(ConvolutionFloat, FpuTargetsCallTheRegisterBlocks) {
  const ConvCase& c = GetParam();
  std::vector<float> x(static_cast<size_t>(c.h * c.w * c.channels), 1.0f), w(filter_size(), 1.0f);
  std::vector<float> bias(static_cast<size_t>(c.out_channels), 0.0f);
  std::string fpu = conv(with_features({"fpu"}), x, w, bias).printed_ir();
  std::string plain = conv(with_features({}), x, w, bias).printed_ir();
  bool blocked = !c.depthwise || c.channels % 4 == 0;
  const char* marker = c.depthwise ? "aotc_dw_f32_4ch(" : "aotc_dot_f32_4x4(";
  EXPECT_EQ(fpu.find(marker) != std::string::npos, blocked) << fpu;
  EXPECT_EQ(plain.find(marker), std::string::npos) << plain;
  // A Helium target with floating point (Cortex-M55) calls the same blocks, whose Helium
  // code the runtime picks (tests/firmware/mve_kernels checks it against the scalar code).
  std::string mve_fp = conv(with_features({"fpu", "dsp", "mve", "mve.fp"}), x, w, bias).printed_ir();
  EXPECT_EQ(mve_fp.find(marker) != std::string::npos, blocked) << mve_fp;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvolutionFloat,
    ::testing::Values(ConvCase{5, 5, 8, 8, 1, 1, 1, "VALID", false, "NONE"},    // pointwise, a partial last block
                      ConvCase{4, 3, 12, 7, 1, 1, 1, "SAME", false, "RELU"},    // odd output channels
                      ConvCase{6, 6, 8, 6, 3, 3, 1, "SAME", false, "NONE"},     // rows inside, taps at the edges
                      ConvCase{7, 5, 4, 4, 3, 3, 2, "SAME", false, "RELU"},     // stride 2
                      ConvCase{9, 6, 3, 5, 3, 3, 2, "SAME", false, "NONE"},     // 3 channels (vww's first layer)
                      ConvCase{11, 5, 1, 4, 5, 4, 2, "SAME", false, "NONE"},    // one channel, 5x4 kernel
                      ConvCase{5, 4, 6, 4, 3, 2, 1, "VALID", false, "NONE"},    // valid: no padding
                      ConvCase{7, 8, 8, 6, 1, 1, 2, "SAME", false, "NONE"},     // pointwise, stride 2
                      ConvCase{5, 7, 8, 6, 3, 3, 1, "SAME", false, "RELU"},     // width 7: blocks of 4 and 3
                      ConvCase{3, 2, 5, 9, 3, 3, 1, "SAME", false, "NONE"},     // narrower than a block
                      ConvCase{6, 5, 8, 8, 3, 3, 1, "SAME", true, "RELU"},      // depthwise
                      ConvCase{7, 6, 4, 4, 3, 3, 2, "SAME", true, "NONE"},      // depthwise stride 2
                      ConvCase{2, 2, 4, 4, 3, 3, 1, "SAME", true, "NONE"},      // every window at an edge
                      ConvCase{6, 6, 12, 12, 3, 3, 1, "VALID", true, "NONE"},   // no edges
                      ConvCase{7, 7, 4, 4, 5, 5, 1, "SAME", true, "RELU"},      // five wide
                      ConvCase{4, 6, 4, 4, 1, 3, 1, "SAME", true, "NONE"},      // one kernel row
                      ConvCase{5, 7, 6, 6, 3, 3, 1, "SAME", true, "RELU"}),     // 6 channels: the generic kernel
    [](const ::testing::TestParamInfo<ConvCase>& info) {
      const ConvCase& c = info.param;
      return std::string(c.depthwise ? "depthwise_" : "conv_") + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" +
             std::to_string(c.channels) + "_to_" + std::to_string(c.out_channels) + "_k" + std::to_string(c.kernel_h) +
             std::to_string(c.kernel_w) + "_s" + std::to_string(c.stride) + "_" + c.padding + "_" + c.activation;
    });

// FULLY_CONNECTED float32: four units per call of aotc_dot_f32_1x4 on `fpu` targets, the
// Cortex-M55's (mve.fp) included.
TEST(FullyConnectedFloat, FpuTargetsGiveTflitesValues) {
  for (FcCase c : {FcCase{1, 640, 128, true}, FcCase{3, 10, 5, true}, FcCase{2, 7, 3, true}, FcCase{1, 128, 8, true},
                   FcCase{2, 9, 23, true}}) {  // 23 units: a call of sixteen, then two blocks of four, the last partial
    SCOPED_TRACE(std::to_string(c.batches) + "x" + std::to_string(c.depth) + " to " + std::to_string(c.units));
    std::vector<float> x = random_floats(static_cast<size_t>(c.batches * c.depth), 10);
    std::vector<float> w = random_floats(static_cast<size_t>(c.units * c.depth), 11);
    std::vector<float> bias = random_floats(static_cast<size_t>(c.units), 12);
    std::vector<float> want;
    for (int64_t b = 0; b < c.batches; ++b)
      for (int64_t u = 0; u < c.units; ++u) {
        float acc = 0.0f;
        for (int64_t d = 0; d < c.depth; ++d) {
          volatile float product = x[static_cast<size_t>(b * c.depth + d)] * w[static_cast<size_t>(u * c.depth + d)];
          acc += product;
        }
        want.push_back(std::max(acc + bias[static_cast<size_t>(u)], 0.0f));  // RELU
      }
    for (const TargetFacts& target : {with_features({}), with_features({"fpu"}), with_features({"fpu", "dsp", "mve", "mve.fp"})}) {
      OneNode node("tfl.FULLY_CONNECTED");
      node.target(target).input<float>({c.batches, c.depth}, x).constant<float>({c.units, c.depth}, w);
      node.constant<float>({c.units}, bias).attr("fused_activation", std::string("RELU"));
      node.output(DataType::Float32(), {c.batches, c.units});
      // Helium (mve.fp) takes sixteen units per call where there are that many, four for the rest.
      const int64_t blocks = (c.units + 3) / 4;
      bool sixteen = target.has("mve.fp") && blocks >= 4, fours = !target.has("mve.fp") || blocks % 4 != 0;
      if (target.has("fpu")) {
        EXPECT_EQ(node.printed_ir().find("aotc_dot_f32_1x16(") != std::string::npos, sixteen);
        EXPECT_EQ(node.printed_ir().find("aotc_dot_f32_1x4(") != std::string::npos, fours);
      }
      std::vector<float> got = node.run<float>();
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want[i]) << "element " << i;
    }
  }
}

// ONNX Gemm and MatMul float32 with a constant B: four columns per call of
// aotc_dot_f32_1x4 on `fpu` targets; the expected values are the products' definitions,
// each sum from zero in k order (products rounded first).
TEST(MatrixProductFloat, FpuTargetsGiveTheDefinitionsValues) {
  const int64_t m = 3, k = 13, n = 6;
  std::vector<float> a = random_floats(static_cast<size_t>(2 * m * k), 13);
  std::vector<float> b = random_floats(static_cast<size_t>(k * n), 14);
  std::vector<float> c = random_floats(static_cast<size_t>(n), 15);
  auto sum = [&](int64_t row, int64_t col, bool trans_b) {
    float acc = 0.0f;
    for (int64_t d = 0; d < k; ++d) {
      volatile float product = a[static_cast<size_t>(row * k + d)] * b[static_cast<size_t>(trans_b ? col * k + d : d * n + col)];
      acc += product;
    }
    return acc;
  };
  for (bool trans_b : {false, true}) {
    // Gemm: alpha * A B' + beta * C, C broadcast over the rows.
    std::vector<float> want;
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < n; ++col) want.push_back(0.5f * sum(row, col, trans_b) + 2.0f * c[static_cast<size_t>(col)]);
    for (const TargetFacts& target : {with_features({}), with_features({"fpu"})}) {
      SCOPED_TRACE(std::string(target.has("fpu") ? "fpu" : "no fpu") + (trans_b ? ", transB" : ""));
      OneNode gemm("Gemm");
      std::vector<float> a2(a.begin(), a.begin() + m * k);
      gemm.target(target).input<float>({m, k}, a2).constant<float>(trans_b ? Shape{n, k} : Shape{k, n}, b).constant<float>({n}, c);
      gemm.attr("transB", int64_t{trans_b ? 1 : 0}).attr("alpha", 0.5).attr("beta", 2.0);
      EXPECT_EQ(gemm.printed_ir().find("aotc_dot_f32_1x4(") != std::string::npos, target.has("fpu"));
      EXPECT_EQ(gemm.run<float>(), want);
    }
  }
  // MatMul: a batch of two [m, k] against one [k, n].
  std::vector<float> want;
  for (int64_t row = 0; row < 2 * m; ++row)
    for (int64_t col = 0; col < n; ++col) want.push_back(sum(row, col, false));
  for (const TargetFacts& target : {with_features({}), with_features({"fpu"})}) {
    OneNode matmul("MatMul");
    matmul.target(target).input<float>({2, m, k}, a).constant<float>({k, n}, b);
    EXPECT_EQ(matmul.printed_ir().find("aotc_dot_f32_1x4(") != std::string::npos, target.has("fpu"));
    EXPECT_EQ(matmul.run<float>(), want);
  }
}

}  // namespace
}  // namespace aotc::test
