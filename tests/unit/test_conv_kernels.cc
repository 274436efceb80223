// Every convolution and fully connected kernel the kernel strategy registers
// (lowering/kernels/conv_kernels.h, fc_kernels.h) against the generic loops, on random problems: TFLite CONV_2D and DEPTHWISE_CONV_2D of
// random sizes, kernel sizes, strides, dilations, padding, depth multipliers, input zero
// points, per-channel filter scales, output quantizations and fused activations, int8 and
// float32; and fully connected layers of random sizes, with and without a bias, constant or
// run-time weights, per-tensor or per-unit scales; and average and max pools, int8, int16
// and float32; and ONNX's int8 QLinearConv (channels-last, as the channels_last pass makes it)
// and QLinearMatMul with constant weights. Each problem is lowered for feature sets under which the kernel families apply
// (none: a core without DSP; `dsp`; `dsp` and `mve`; `fpu`; `fpu` and Helium's `mve.fp`),
// and each result must be exactly the generic kernel's (the host's `simd` target, which
// keeps the generic loops): the same bytes for int8, the same floats for float32 (the float
// register blocks sum in TFLite's order, each product rounded). The interpreter runs the
// runtime's plain C (tests/firmware/mve_kernels and dot_strided check the instructions on
// QEMU). Every registered kernel must be chosen for some problem, so that a new kernel is
// tested by being registered.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/fc_kernels.h"
#include "lowering/kernels/pool_kernels.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

// The kernel named in the printed function's header ("func ...(...) kernel NAME {").
std::string chosen_kernel(OneNode& node) {
  std::string ir = node.printed_ir();
  std::string header = ir.substr(0, ir.find('\n'));
  size_t at = header.find(") kernel ");
  if (at == std::string::npos) return "";
  std::string name = header.substr(at + 9);
  return name.substr(0, name.find(' '));
}

struct Problem {
  bool depthwise = false, float32 = false, same = true;
  bool int16 = false;  // 16x8 convolutions take the portable kernel only: not drawn
  bool exact = true;
  int64_t h = 1, w = 1, channels = 1, multiplier = 1, out_channels = 1, kh = 1, kw = 1, stride = 1, dilation = 1;
  std::string activation = "NONE";
  Quant input{0.05f, 0}, output{0.1f, 0};
  std::vector<float> filter_scales;
  uint32_t seed = 0;

  static int64_t extent(int64_t in, int64_t k, int64_t stride, int64_t dilation, bool same) {
    int64_t effective = (k - 1) * dilation + 1;
    return same ? (in + stride - 1) / stride : (in - effective) / stride + 1;
  }
  int64_t oh() const { return extent(h, kh, stride, dilation, same); }
  int64_t ow() const { return extent(w, kw, stride, dilation, same); }
  Shape filter_shape() const {
    return depthwise ? Shape{1, kh, kw, out_channels} : Shape{out_channels, kh, kw, channels};
  }
  std::string text() const {
    return std::string(float32 ? "float32 " : "int8 ") + (depthwise ? "depthwise " : "conv ") + std::to_string(h) + "x" +
           std::to_string(w) + "x" + std::to_string(channels) + " -> " + std::to_string(out_channels) + " k" +
           std::to_string(kh) + "x" + std::to_string(kw) + " s" + std::to_string(stride) + " d" + std::to_string(dilation) +
           (same ? " SAME " : " VALID ") + activation + " zp " + std::to_string(input.zero_point);
  }
};

Problem random_problem(std::mt19937& rng, uint32_t seed) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Problem p;
  p.seed = seed;
  p.depthwise = pick(0, 1) == 1;
  p.float32 = pick(0, 3) == 0;
  p.channels = pick(0, 2) == 0 ? pick(1, 3) : pick(4, 20);
  p.multiplier = p.depthwise && pick(0, 3) == 0 ? 2 : 1;
  p.out_channels = p.depthwise ? p.channels * p.multiplier : pick(1, 12);
  p.kh = pick(1, 5);
  p.kw = pick(0, 1) ? 3 : pick(1, 5);
  p.stride = pick(1, 2);
  p.dilation = pick(0, 4) == 0 ? 2 : 1;
  // aotc refuses a window larger than the input (TFLite Micro's kernels compute it).
  p.h = pick((p.kh - 1) * p.dilation + 1, 10);
  p.w = pick((p.kw - 1) * p.dilation + 1, 10);
  p.same = pick(0, 2) != 0;
  const char* activations[] = {"NONE", "RELU", "RELU6"};
  p.activation = activations[pick(0, 2)];
  std::uniform_real_distribution<float> log_scale(-3.0f, -0.5f);
  p.input = {std::pow(10.0f, log_scale(rng)), p.float32 ? 0 : pick(-128, 127)};
  p.output = {std::pow(10.0f, log_scale(rng)) * 4, p.float32 ? 0 : pick(-128, 127)};
  for (int64_t c = 0; c < p.out_channels; ++c) p.filter_scales.push_back(std::pow(10.0f, log_scale(rng)) / 20);
  return p;
}

OneNode conv_node(const Problem& p, const TargetFacts& target) {
  OneNode node(p.depthwise ? "tfl.DEPTHWISE_CONV_2D" : "tfl.CONV_2D");
  size_t inputs = static_cast<size_t>(p.h * p.w * p.channels);
  size_t filter = static_cast<size_t>(element_count(p.filter_shape()));
  size_t channels = static_cast<size_t>(p.out_channels);
  node.target(target);
  if (p.float32) {
    node.input<float>({1, p.h, p.w, p.channels}, random_floats(inputs, p.seed))
        .constant<float>(p.filter_shape(), random_floats(filter, p.seed + 1))
        .constant<float>({p.out_channels}, random_floats(channels, p.seed + 2));
  } else {
    node.input<int8_t>({1, p.h, p.w, p.channels}, random_ints<int8_t>(inputs, -128, 127, p.seed), p.input)
        .constant<int8_t>(p.filter_shape(), random_ints<int8_t>(filter, -127, 127, p.seed + 1), Quant{0.01f, 0})
        .per_channel_scales(1, p.filter_scales, p.depthwise ? 3 : 0)
        .constant<int32_t>({p.out_channels}, random_ints<int32_t>(channels, -5000, 5000, p.seed + 2));
  }
  node.attr("padding", std::string(p.same ? "SAME" : "VALID")).attr("stride_h", p.stride).attr("stride_w", p.stride);
  node.attr("dilation_h", p.dilation).attr("dilation_w", p.dilation).attr("fused_activation", p.activation);
  if (p.depthwise) node.attr("depth_multiplier", p.multiplier);
  node.output(p.float32 ? DataType::Float32() : DataType::Int(8), {1, p.oh(), p.ow(), p.out_channels},
              p.float32 ? Quant{} : p.output);
  return node;
}

// The output's bytes, of the element type the problem case says.
template <typename ProblemCase>
std::vector<uint8_t> run_bytes(OneNode& node, const ProblemCase& p) {
  if (p.float32) return to_bytes(node.run<float>());
  if (p.int16) return to_bytes(node.run<int16_t>());
  return to_bytes(node.run<int8_t>());
}

const std::vector<TargetFacts>& kernel_targets() {
  static const std::vector<TargetFacts> targets = {with_features({}), with_features({"dsp"}), with_features({"dsp", "mve"}),
                                                   with_features({"fpu"}), with_features({"fpu", "dsp", "mve", "mve.fp"}),
                                                   with_features({"fpu", "fp64", "simd"})};
  return targets;
}

// Lowers each of `count` random problems for `baseline` (a target on which the portable
// kernel `portable` is chosen; `float_baseline` for float32 problems, when given) and for every feature set of kernel_targets(), and requires
// every result to be the portable kernel's: the same bytes, or for a problem case whose
// `exact` is false (float kernels that sum in another order) within 1e-5 relative. Returns
// how often each kernel was chosen.
template <typename ProblemCase>
std::map<std::string, int> expect_every_kernel_agrees(int count, uint32_t rng_seed,
                                                      ProblemCase (*random)(std::mt19937&, uint32_t),
                                                      OneNode (*make)(const ProblemCase&, const TargetFacts&),
                                                      const TargetFacts& baseline, const std::string& portable,
                                                      const std::optional<TargetFacts>& float_baseline = std::nullopt) {
  std::map<std::string, int> chosen;
  std::mt19937 rng(rng_seed);
  for (uint32_t seed = 1; seed <= static_cast<uint32_t>(count); ++seed) {
    ProblemCase p = random(rng, seed * 10);
    SCOPED_TRACE(p.text());
    OneNode generic = make(p, p.float32 && float_baseline ? *float_baseline : baseline);
    EXPECT_EQ(chosen_kernel(generic), portable);
    std::vector<uint8_t> want = run_bytes(generic, p);
    for (const TargetFacts& target : kernel_targets()) {
      OneNode node = make(p, target);
      std::string kernel = chosen_kernel(node);
      SCOPED_TRACE(kernel);
      ++chosen[kernel];
      std::vector<uint8_t> got = run_bytes(node, p);
      if (p.exact) {
        EXPECT_EQ(got, want);
        continue;
      }
      std::vector<float> got_values = from_bytes<float>(got), want_values = from_bytes<float>(want);
      EXPECT_EQ(got_values.size(), want_values.size());
      for (size_t i = 0; i < got_values.size() && i < want_values.size(); ++i)
        EXPECT_NEAR(got_values[i], want_values[i], 1e-5 + 1e-5 * std::fabs(want_values[i])) << "element " << i;
    }
  }
  return chosen;
}

// Every kernel in `registered` was chosen for some problem; prints the counts.
void expect_every_kernel_chosen(const std::map<std::string, int>& chosen, const std::vector<std::string>& registered) {
  for (const std::string& name : registered)
    EXPECT_TRUE(chosen.count(name)) << name << " was chosen for none of the random problems";
  for (const auto& [name, times] : chosen) std::cout << "  " << name << ": " << times << " problem-targets\n";
}

// ONNX Conv: float32 NCHW, groups of 1 or depthwise, pads, strides, dilations, a bias or
// none, a fused Relu or none.
struct OnnxConvCase {
  bool float32 = true, int16 = false;
  bool exact = false;  // the host's packed products sum in another order
  int64_t batches = 1, channels = 1, out_channels = 1, h = 1, w = 1, kh = 1, kw = 1, stride = 1, dilation = 1, group = 1;
  int64_t top = 0, left = 0, bottom = 0, right = 0;
  bool bias = true, relu = false;
  uint32_t seed = 0;
  std::string text() const {
    return "onnx conv " + std::to_string(batches) + "x" + std::to_string(channels) + "x" + std::to_string(h) + "x" +
           std::to_string(w) + " -> " + std::to_string(out_channels) + " k" + std::to_string(kh) + "x" + std::to_string(kw) +
           " s" + std::to_string(stride) + " d" + std::to_string(dilation) + " group " + std::to_string(group) +
           (bias ? "" : " no bias") + (relu ? " relu" : "");
  }
};

OnnxConvCase random_onnx_conv(std::mt19937& rng, uint32_t seed) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  OnnxConvCase p;
  p.seed = seed;
  p.batches = pick(1, 2);
  p.channels = pick(1, 10);
  bool depthwise = pick(0, 3) == 0;
  p.group = depthwise ? p.channels : 1;
  p.out_channels = depthwise ? p.channels : pick(1, 12);
  p.kh = pick(1, 4);
  p.kw = pick(1, 4);
  p.stride = pick(1, 3);
  p.dilation = pick(0, 5) == 0 ? 2 : 1;
  p.top = pick(0, p.kh - 1), p.bottom = pick(0, p.kh - 1), p.left = pick(0, p.kw - 1), p.right = pick(0, p.kw - 1);
  p.h = pick((p.kh - 1) * p.dilation + 1, 12);
  p.w = pick((p.kw - 1) * p.dilation + 1, 12);
  p.bias = pick(0, 4) != 0;
  p.relu = pick(0, 2) == 0;
  return p;
}

OneNode onnx_conv_node(const OnnxConvCase& p, const TargetFacts& target) {
  OneNode node("Conv");
  Shape x = {p.batches, p.channels, p.h, p.w}, w = {p.out_channels, p.channels / p.group, p.kh, p.kw};
  node.target(target).input(x, random_floats(static_cast<size_t>(element_count(x)), p.seed));
  node.constant(w, random_floats(static_cast<size_t>(element_count(w)), p.seed + 1));
  if (p.bias) node.constant(Shape{p.out_channels}, random_floats(static_cast<size_t>(p.out_channels), p.seed + 2));
  node.attr("group", p.group).attr("strides", Shape{p.stride, p.stride}).attr("dilations", Shape{p.dilation, p.dilation});
  node.attr("pads", Shape{p.top, p.left, p.bottom, p.right}).attr("kernel_shape", Shape{p.kh, p.kw});
  if (p.relu) node.epilogue("Relu");
  return node;
}

// ONNX QLinearConv as the channels_last pass leaves it (aotc.channels_last: x [N, H, W, C],
// w [M, KH, KW, C] or, depthwise, [1, KH, KW, M]): int8 with per-channel weight scales,
// zero point 0, an int32 bias or none, random input and output zero points, and a folded
// activation's range (aotc.clamp_min/max) or none. The int8 register blocks then apply, with
// ONNX's requantization (ties to even) in place of TFLite's.
struct QLinearConvCase {
  bool float32 = false, int16 = false, exact = true;
  bool depthwise = false, bias = true;
  int64_t batches = 1, channels = 1, out_channels = 1, h = 1, w = 1, kh = 1, kw = 1, stride = 1;
  int64_t top = 0, left = 0, bottom = 0, right = 0, clamp_min = -128, clamp_max = 127;
  float x_scale = 0.05f, y_scale = 0.1f;
  int32_t x_zero_point = 0, y_zero_point = 0;
  std::vector<float> w_scales;
  uint32_t seed = 0;
  std::string text() const {
    return "qlinearconv nhwc " + std::to_string(batches) + "x" + std::to_string(h) + "x" + std::to_string(w) + "x" +
           std::to_string(channels) + " -> " + std::to_string(out_channels) + (depthwise ? " depthwise" : "") + " k" +
           std::to_string(kh) + "x" + std::to_string(kw) + " s" + std::to_string(stride) + " zp " +
           std::to_string(x_zero_point) + "/" + std::to_string(y_zero_point) + " clamp " + std::to_string(clamp_min) + ".." +
           std::to_string(clamp_max) + (bias ? "" : " no bias");
  }
};

QLinearConvCase random_qlinear_conv(std::mt19937& rng, uint32_t seed) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  QLinearConvCase p;
  p.seed = seed;
  p.batches = pick(1, 2);
  p.channels = pick(0, 2) == 0 ? pick(1, 3) : pick(4, 20);
  p.depthwise = p.channels > 1 && pick(0, 2) == 0;
  p.out_channels = p.depthwise ? p.channels : pick(1, 12);
  p.kh = pick(1, 5);
  p.kw = pick(0, 1) ? 3 : pick(1, 5);
  p.stride = pick(1, 2);
  p.top = pick(0, p.kh - 1), p.bottom = pick(0, p.kh - 1), p.left = pick(0, p.kw - 1), p.right = pick(0, p.kw - 1);
  p.h = pick(p.kh, 10);
  p.w = pick(p.kw, 10);
  p.bias = pick(0, 4) != 0;
  std::uniform_real_distribution<float> log_scale(-3.0f, -0.5f);
  p.x_scale = std::pow(10.0f, log_scale(rng));
  p.y_scale = std::pow(10.0f, log_scale(rng)) * 4;
  p.x_zero_point = static_cast<int32_t>(pick(-128, 127));
  p.y_zero_point = static_cast<int32_t>(pick(-128, 127));
  if (pick(0, 2) == 0) p.clamp_min = p.y_zero_point;                       // a folded Relu
  if (pick(0, 3) == 0) p.clamp_max = std::min<int64_t>(127, p.y_zero_point + pick(1, 120));  // a Clip
  // Now and then a factor of 1/4 or more (the requantization's general form).
  float large = pick(0, 9) == 0 ? 300.0f : 1.0f;
  for (int64_t c = 0; c < p.out_channels; ++c) p.w_scales.push_back(std::pow(10.0f, log_scale(rng)) / 20 * large);
  return p;
}

OneNode qlinear_conv_node(const QLinearConvCase& p, const TargetFacts& target) {
  OneNode node("QLinearConv");
  Shape x = {p.batches, p.h, p.w, p.channels};
  Shape w = p.depthwise ? Shape{1, p.kh, p.kw, p.out_channels} : Shape{p.out_channels, p.kh, p.kw, p.channels};
  node.target(target).input<int8_t>(x, random_ints<int8_t>(static_cast<size_t>(element_count(x)), -128, 127, p.seed));
  node.constant<float>(Shape{}, {p.x_scale}).constant<int8_t>(Shape{}, {static_cast<int8_t>(p.x_zero_point)});
  node.constant<int8_t>(w, random_ints<int8_t>(static_cast<size_t>(element_count(w)), -127, 127, p.seed + 1));
  node.constant<float>(Shape{p.out_channels}, p.w_scales)
      .constant<int8_t>(Shape{p.out_channels}, std::vector<int8_t>(static_cast<size_t>(p.out_channels), 0));
  node.constant<float>(Shape{}, {p.y_scale}).constant<int8_t>(Shape{}, {static_cast<int8_t>(p.y_zero_point)});
  if (p.bias)
    node.constant<int32_t>(Shape{p.out_channels},
                           random_ints<int32_t>(static_cast<size_t>(p.out_channels), -5000, 5000, p.seed + 2));
  node.attr(kChannelsLastAttr, int64_t{1}).attr("group", p.depthwise ? p.channels : int64_t{1});
  node.attr("strides", Shape{p.stride, p.stride}).attr("pads", Shape{p.top, p.left, p.bottom, p.right});
  node.attr("aotc.clamp_min", p.clamp_min).attr("aotc.clamp_max", p.clamp_max);
  return node;
}

TEST(ConvKernels, EveryRegisteredKernelGivesTheGenericKernelsResults) {
  std::map<std::string, int> chosen =
      expect_every_kernel_agrees<Problem>(160, 27, random_problem, conv_node, with_features({"simd"}), "portable.conv");
  for (const auto& [name, times] : expect_every_kernel_agrees<OnnxConvCase>(80, 28, random_onnx_conv, onnx_conv_node,
                                                                            with_features({}), "portable.conv"))
    chosen[name] += times;
  for (const auto& [name, times] : expect_every_kernel_agrees<QLinearConvCase>(
           80, 29, random_qlinear_conv, qlinear_conv_node, with_features({"simd"}), "portable.conv"))
    chosen[name] += times;
  expect_every_kernel_chosen(chosen, ConvKernels::names());
}

struct FcProblemCase {
  bool float32 = false, constant_weights = true, bias = true, per_unit = false;
  bool int16 = false;  // 16x8 layers take the portable kernel only: not drawn
  bool exact = true;
  int64_t batches = 1, depth = 1, units = 1;
  Quant input{0.05f, 0}, output{0.1f, 0};
  std::vector<float> filter_scales;
  uint32_t seed = 0;
  std::string text() const {
    return std::string(float32 ? "float32 " : "int8 ") + "fc " + std::to_string(batches) + "x" + std::to_string(depth) +
           " -> " + std::to_string(units) + (constant_weights ? "" : " run-time weights") + (bias ? "" : " no bias") +
           (per_unit ? " per-unit scales" : "") + " zp " + std::to_string(input.zero_point);
  }
};

FcProblemCase random_fc(std::mt19937& rng, uint32_t seed) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  FcProblemCase p;
  p.seed = seed;
  p.float32 = pick(0, 3) == 0;
  p.exact = !p.float32;  // the host's packed float32 row sums in another order
  p.constant_weights = pick(0, 5) != 0;
  p.bias = pick(0, 4) != 0;
  p.per_unit = !p.float32 && pick(0, 1) == 1;
  p.batches = pick(1, 3);
  p.depth = pick(0, 2) == 0 ? pick(1, 7) : pick(8, 70);
  p.units = pick(1, 19);
  std::uniform_real_distribution<float> log_scale(-3.0f, -0.5f);
  p.input = {std::pow(10.0f, log_scale(rng)), p.float32 ? 0 : pick(-128, 127)};
  p.output = {std::pow(10.0f, log_scale(rng)) * 4, p.float32 ? 0 : pick(-128, 127)};
  for (int64_t u = 0; u < (p.per_unit ? p.units : 1); ++u) p.filter_scales.push_back(std::pow(10.0f, log_scale(rng)) / 20);
  return p;
}

OneNode fc_node(const FcProblemCase& p, const TargetFacts& target) {
  OneNode node("tfl.FULLY_CONNECTED");
  size_t inputs = static_cast<size_t>(p.batches * p.depth), weights = static_cast<size_t>(p.units * p.depth);
  node.target(target);
  if (p.float32) {
    node.input<float>({p.batches, p.depth}, random_floats(inputs, p.seed));
    if (p.constant_weights) node.constant<float>({p.units, p.depth}, random_floats(weights, p.seed + 1));
    else node.input<float>({p.units, p.depth}, random_floats(weights, p.seed + 1));
    if (p.bias) node.constant<float>({p.units}, random_floats(static_cast<size_t>(p.units), p.seed + 2));
  } else {
    node.input<int8_t>({p.batches, p.depth}, random_ints<int8_t>(inputs, -128, 127, p.seed), p.input);
    std::vector<int8_t> w = random_ints<int8_t>(weights, -127, 127, p.seed + 1);
    if (p.constant_weights) node.constant<int8_t>({p.units, p.depth}, w, Quant{p.filter_scales[0], 0});
    else node.input<int8_t>({p.units, p.depth}, w, Quant{p.filter_scales[0], 0});
    if (p.per_unit) node.per_channel_scales(1, p.filter_scales, 0);
    if (p.bias) node.constant<int32_t>({p.units}, random_ints<int32_t>(static_cast<size_t>(p.units), -5000, 5000, p.seed + 2));
  }
  if (!p.bias) node.absent_input();
  node.attr("fused_activation", std::string("NONE"));
  node.output(p.float32 ? DataType::Float32() : DataType::Int(8), {p.batches, p.units}, p.float32 ? Quant{} : p.output);
  return node;
}

// ONNX QLinearMatMul with a constant b [depth, units] (a fully connected layer stored depth
// major): int8, a per-tensor, b per tensor or per column with zero point 0, the int32 bias
// fold_qdq gives a folded Gemm, or none.
OneNode qlinear_matmul_node(const FcProblemCase& p, const TargetFacts& target) {
  OneNode node("QLinearMatMul");
  size_t inputs = static_cast<size_t>(p.batches * p.depth), weights = static_cast<size_t>(p.units * p.depth);
  std::vector<float> b_scales = p.per_unit ? p.filter_scales : std::vector<float>{p.filter_scales[0]};
  Shape b_scale_shape = p.per_unit ? Shape{p.units} : Shape{};
  node.target(target).input<int8_t>({p.batches, p.depth}, random_ints<int8_t>(inputs, -128, 127, p.seed));
  node.constant<float>(Shape{}, {p.input.scale}).constant<int8_t>(Shape{}, {static_cast<int8_t>(p.input.zero_point)});
  node.constant<int8_t>({p.depth, p.units}, random_ints<int8_t>(weights, -127, 127, p.seed + 1));
  node.constant<float>(b_scale_shape, b_scales)
      .constant<int8_t>(b_scale_shape, std::vector<int8_t>(b_scales.size(), 0));
  node.constant<float>(Shape{}, {p.output.scale}).constant<int8_t>(Shape{}, {static_cast<int8_t>(p.output.zero_point)});
  if (p.bias) node.constant<int32_t>({p.units}, random_ints<int32_t>(static_cast<size_t>(p.units), -5000, 5000, p.seed + 2));
  return node;
}

FcProblemCase random_qlinear_fc(std::mt19937& rng, uint32_t seed) {
  FcProblemCase p = random_fc(rng, seed);
  p.float32 = false;
  p.exact = true;
  p.constant_weights = true;
  if (p.filter_scales.empty()) p.filter_scales.push_back(0.01f);
  return p;
}

// ONNX's float32 Gemm and MatMul with a constant matrix B: Gemm with transB or not, alpha
// and beta of 1 or not, and a C
// of one value per column ([N] or [1, N]), of one value, or none; MatMul with A a vector,
// a matrix or a batch of matrices (the output's own index reaches the epilogue); a fused
// Relu, Clip, or Add of a whole tensor of the output's shape, or none.
struct OnnxFcCase {
  bool float32 = true, int16 = false;
  bool exact = false;  // the host's packed product sums in another order
  bool gemm = true, trans_b = false;
  double alpha = 1.0, beta = 1.0;
  int bias = 0;     // Gemm's C: 0 none, 1 [N], 2 [1, N], 3 one value
  int epilogue = 0;  // 0 none, 1 Relu, 2 Clip(0, 6), 3 Add of a tensor of the output's shape
  Shape a;
  int64_t k = 1, n = 1;
  uint32_t seed = 0;
  Shape output() const {
    Shape y(a.begin(), a.end() - 1);
    y.push_back(n);
    return y;
  }
  std::string text() const {
    return std::string(gemm ? "onnx gemm " : "onnx matmul ") + shape_str(a) + " x " + std::to_string(k) + "x" +
           std::to_string(n) + (trans_b ? " transB" : "") + " alpha " + std::to_string(alpha) + " beta " +
           std::to_string(beta) + " bias " + std::to_string(bias) + " epilogue " +
           std::to_string(epilogue);
  }
};

OnnxFcCase random_onnx_fc(std::mt19937& rng, uint32_t seed) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  OnnxFcCase p;
  p.seed = seed;
  p.gemm = pick(0, 1) == 0;
  p.k = pick(0, 2) == 0 ? pick(1, 7) : pick(8, 70);
  p.n = pick(1, 19);
  if (p.gemm) {
    p.trans_b = pick(0, 1) == 0;
    p.bias = static_cast<int>(pick(0, 3));
    if (pick(0, 2) == 0) p.alpha = 0.5, p.beta = -2.0;
    p.a = {pick(0, 1) == 0 ? 1 : pick(2, 3), p.k};
  } else {
    int64_t rank = pick(1, 4);
    for (int64_t d = 0; d + 1 < rank; ++d) p.a.push_back(pick(1, 3));
    p.a.push_back(p.k);
  }
  p.epilogue = static_cast<int>(pick(0, 3));
  return p;
}

OneNode onnx_fc_node(const OnnxFcCase& p, const TargetFacts& target) {
  OneNode node(p.gemm ? "Gemm" : "MatMul", 13);
  node.target(target).input(p.a, random_floats(static_cast<size_t>(element_count(p.a)), p.seed));
  node.constant(p.trans_b ? Shape{p.n, p.k} : Shape{p.k, p.n}, random_floats(static_cast<size_t>(p.k * p.n), p.seed + 1));
  if (p.bias == 1) node.constant(Shape{p.n}, random_floats(static_cast<size_t>(p.n), p.seed + 2));
  if (p.bias == 2) node.constant(Shape{1, p.n}, random_floats(static_cast<size_t>(p.n), p.seed + 2));
  if (p.bias == 3) node.constant(Shape{}, random_floats(1, p.seed + 2));
  if (p.gemm && p.trans_b) node.attr("transB", int64_t{1});
  if (p.gemm && p.alpha != 1.0) node.attr("alpha", p.alpha).attr("beta", p.beta);
  Shape y = p.output();
  if (p.epilogue == 1) node.epilogue("Relu");
  if (p.epilogue == 2) node.epilogue("Clip", {0.0f, 6.0f});
  if (p.epilogue == 3) node.epilogue("Add", y, random_floats(static_cast<size_t>(element_count(y)), p.seed + 3));
  return node;
}

TEST(FcKernels, EveryRegisteredKernelGivesTheGenericKernelsResults) {
  // int8 keeps the portable kernel on the host's `simd` target, float32 on a core without
  // features (the host packs a float32 row).
  std::map<std::string, int> chosen = expect_every_kernel_agrees<FcProblemCase>(
      120, 2727, random_fc, fc_node, with_features({"simd"}), "portable.fc", with_features({}));
  for (const auto& [name, times] : expect_every_kernel_agrees<OnnxFcCase>(120, 2731, random_onnx_fc, onnx_fc_node,
                                                                          with_features({}), "portable.fc"))
    chosen[name] += times;
  for (const auto& [name, times] : expect_every_kernel_agrees<FcProblemCase>(
           60, 2729, random_qlinear_fc, qlinear_matmul_node, with_features({"simd"}), "portable.fc"))
    chosen[name] += times;
  expect_every_kernel_chosen(chosen, FcKernels::names());
}

struct PoolCase {
  bool float32 = false, int16 = false, average = true, same = true;
  bool exact = true;
  int64_t h = 1, w = 1, channels = 1, kh = 1, kw = 1, stride = 1;
  std::string activation = "NONE";
  Quant quant{0.05f, 0};
  uint32_t seed = 0;
  int64_t oh() const { return same ? (h + stride - 1) / stride : (h - kh) / stride + 1; }
  int64_t ow() const { return same ? (w + stride - 1) / stride : (w - kw) / stride + 1; }
  std::string text() const {
    return std::string(float32 ? "float32 " : int16 ? "int16 " : "int8 ") + (average ? "average " : "max ") +
           std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(channels) + " k" + std::to_string(kh) + "x" +
           std::to_string(kw) + " s" + std::to_string(stride) + (same ? " SAME " : " VALID ") + activation;
  }
};

PoolCase random_pool(std::mt19937& rng, uint32_t seed) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  PoolCase p;
  p.seed = seed;
  int64_t type = pick(0, 3);
  p.float32 = type == 0;
  p.int16 = type == 1;
  p.average = pick(0, 2) != 0;
  p.channels = pick(1, 24);
  p.kh = pick(1, 4);
  p.kw = pick(1, 4);
  p.stride = pick(1, 3);
  p.h = pick(p.kh, 10);
  p.w = pick(p.kw, 10);
  p.same = pick(0, 1) == 1;
  const char* activations[] = {"NONE", "RELU", "RELU6"};
  p.activation = activations[pick(0, 2)];
  p.quant = {p.int16 ? 0.0003f : 0.05f, p.float32 || p.int16 ? 0 : pick(-128, 127)};
  return p;
}

OneNode pool_node(const PoolCase& p, const TargetFacts& target) {
  OneNode node(p.average ? "tfl.AVERAGE_POOL_2D" : "tfl.MAX_POOL_2D");
  size_t n = static_cast<size_t>(p.h * p.w * p.channels);
  Shape in = {1, p.h, p.w, p.channels}, out = {1, p.oh(), p.ow(), p.channels};
  node.target(target);
  if (p.float32) node.input<float>(in, random_floats(n, p.seed));
  else if (p.int16) node.input<int16_t>(in, random_ints<int16_t>(n, -32768, 32767, p.seed), p.quant);
  else node.input<int8_t>(in, random_ints<int8_t>(n, -128, 127, p.seed), p.quant);
  node.attr("padding", std::string(p.same ? "SAME" : "VALID")).attr("stride_h", p.stride).attr("stride_w", p.stride);
  node.attr("filter_h", p.kh).attr("filter_w", p.kw).attr("fused_activation", p.activation);
  node.output(p.float32 ? DataType::Float32() : p.int16 ? DataType::Int(16) : DataType::Int(8), out,
              p.float32 ? Quant{} : p.quant);
  return node;
}

TEST(PoolKernels, EveryRegisteredKernelGivesTheGenericKernelsResults) {
  expect_every_kernel_chosen(
      expect_every_kernel_agrees<PoolCase>(120, 2728, random_pool, pool_node, with_features({"simd"}), "portable.pool"),
      PoolKernels::names());
}

}  // namespace
}  // namespace aotc::test
