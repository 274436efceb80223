// Kernel variants chosen by the target's features: a lowering may pick another kernel for a
// target that lists a feature, and every variant computes the same bytes.
//
// int8 FULLY_CONNECTED (lowering/ops/tflite_conv.cc): on targets with `dsp` the dot products
// are the runtime's aotc_dot_s8 (SMLAD on Cortex-M; the interpreter runs the same C, whose
// portable loop gives the same sums), elsewhere a plain loop. The expected values are
// TFLite's reference arithmetic written out here: sum of (x - input_zero_point) * w, plus
// bias, requantized with the multiplier of input_scale * filter_scale / output_scale, plus
// the output zero point, clamped.
#include <gtest/gtest.h>

#include <algorithm>

#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

TargetFacts with_features(std::set<std::string> features) {
  TargetFacts t;
  t.name = "test";
  t.features = std::move(features);
  return t;
}

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
  for (const TargetFacts& target : {with_features({}), with_features({"dsp"}), with_features({"fpu", "dsp", "mve"})}) {
    SCOPED_TRACE(target.has("dsp") ? "dsp" : "no dsp");
    EXPECT_EQ(fc(target, x, w, bias).run<int8_t>(), want);
  }
}

// The feature decides the kernel: only a `dsp` target calls the runtime's dot product, and
// only where the weights are constant (the input's zero point is folded into the bias).
TEST_P(FullyConnectedInt8, DspTargetsCallTheDotProduct) {
  const FcCase& c = GetParam();
  std::vector<int8_t> x(static_cast<size_t>(c.batches * c.depth), 1), w(static_cast<size_t>(c.units * c.depth), 1);
  std::vector<int32_t> bias(static_cast<size_t>(c.units), 0);
  std::string dsp = fc(with_features({"dsp"}), x, w, bias).printed_ir();
  std::string plain = fc(with_features({}), x, w, bias).printed_ir();
  EXPECT_EQ(dsp.find("aotc_dot_s8(") != std::string::npos, c.constant_weights) << dsp;
  EXPECT_EQ(plain.find("aotc_dot_s8("), std::string::npos) << plain;
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

}  // namespace
}  // namespace aotc::test
