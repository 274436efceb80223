// The channels_last pass (aot/passes/channels_last.cc) on small graphs: each integer graph
// runs in the IR interpreter before and after the pass, and the outputs must be the same
// bytes (integer sums do not depend on their order), while the structure shows what the pass
// did: convolutions channels-last, the transposes between them gone, a transpose of axes of
// extent 1 a view, a graph output and a transpose without `perm` left as they were; and a
// residual QLinearAdd fused behind its convolution afterwards.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "aot/passes/graph_passes.h"
#include "tests/unit/one_node.h"

namespace aotc {
namespace {

using namespace test;

// A QLinearConv of the int8 tensor x (NCHW) into `out_channels` channels, per-channel int8
// weights, a bias, a 3x3 window (or 1x1) with padding 1, depthwise when `group` > 1.
TensorId qconv(GraphBuilder& b, TensorId x, int64_t in_channels, int64_t out_channels, int64_t kernel, int64_t group,
               uint32_t seed) {
  std::vector<int64_t> w_shape = {out_channels, in_channels / group, kernel, kernel};
  std::vector<float> w_scales;
  for (int64_t c = 0; c < out_channels; ++c) w_scales.push_back(0.002f + 0.0007f * static_cast<float>(c));
  int64_t pad = kernel / 2;
  return b.node("QLinearConv",
                {x, b.constant<float>("xs", {}, {0.05f}), b.constant<int8_t>("xz", {}, {-3}),
                 b.constant<int8_t>("w", w_shape, random_ints<int8_t>(static_cast<size_t>(element_count(w_shape)), -127, 127, seed)),
                 b.constant<float>("ws", {out_channels}, w_scales),
                 b.constant<int8_t>("wz", {out_channels}, std::vector<int8_t>(static_cast<size_t>(out_channels), 0)),
                 b.constant<float>("ys", {}, {0.04f}), b.constant<int8_t>("yz", {}, {5}),
                 b.constant<int32_t>("b", {out_channels},
                                     random_ints<int32_t>(static_cast<size_t>(out_channels), -3000, 3000, seed + 1))},
                {{"group", group}, {"pads", std::vector<int64_t>(4, pad)}});
}

// A Cortex-M4-like core: the DSP family's int8 register blocks and the FPU's float ones
// are channels-last.
const TargetFacts kDspCore = with_features({"dsp", "fpu"});

std::vector<std::string> ops(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes) names.push_back(n.op);
  return names;
}

// Runs `b`'s graph (outputs `outputs`) before and after channels_last; the outputs must not
// change. Returns the operators after the pass (and remove_dead_nodes).
std::vector<std::string> expect_same_results(GraphBuilder& b, const std::vector<TensorId>& outputs) {
  b.graph.outputs = outputs;
  infer_shapes(b.graph);
  Memory before = b.execute();
  channels_last(b.graph, kDspCore);
  remove_dead_nodes(b.graph);
  Memory after = b.execute();
  for (TensorId out : outputs) EXPECT_EQ(after.at(out), before.at(out)) << b.graph.tensor(out).name;
  return ops(b.graph);
}

TEST(ChannelsLast, TransposesBetweenConvolutionsCancel) {
  GraphBuilder b;
  TensorId x = b.input<int8_t>("x", {1, 3, 7, 6}, random_ints<int8_t>(126, -128, 127, 1));
  TensorId h = qconv(b, x, 3, 8, 3, 1, 10);
  h = qconv(b, h, 8, 8, 3, 8, 20);  // depthwise
  h = qconv(b, h, 8, 5, 1, 1, 30);
  EXPECT_EQ(expect_same_results(b, {h}), (std::vector<std::string>{"Transpose", "QLinearConv", "QLinearConv", "QLinearConv", "Transpose"}));
  for (const Node& n : b.graph.nodes)
    if (n.op == "QLinearConv") EXPECT_EQ(n.attr_int(kChannelsLastAttr, 0), 1);
  // The depthwise weights [8, 1, 3, 3] became [1, 3, 3, 8].
  EXPECT_EQ(b.graph.tensor(b.graph.nodes[2].inputs[3]).shape, (std::vector<int64_t>{1, 3, 3, 8}));
}

// A one-channel input and a result of one pixel: their transposes move only axes of extent
// 1 and become Reshapes (views, no kernel; the interpreter here runs kernels only, so this
// one checks the structure: tests/models/onnx_twins' kws runs such a graph end to end).
TEST(ChannelsLast, TransposeOfAxesOfExtentOneIsAView) {
  GraphBuilder b;
  TensorId x = b.input<int8_t>("x", {1, 1, 3, 3}, random_ints<int8_t>(9, -128, 127, 2));  // a 3x3 window: 1x1 out
  TensorId w = b.constant<int8_t>("w", {4, 1, 3, 3}, random_ints<int8_t>(36, -127, 127, 3));
  TensorId y = b.node("QLinearConv", {x, b.constant<float>("xs", {}, {0.05f}), b.constant<int8_t>("xz", {}, {0}), w,
                                      b.constant<float>("ws", {}, {0.01f}), b.constant<int8_t>("wz", {}, {0}),
                                      b.constant<float>("ys", {}, {0.1f}), b.constant<int8_t>("yz", {}, {0})});
  b.graph.outputs = {y};
  infer_shapes(b.graph);
  channels_last(b.graph, kDspCore);
  EXPECT_EQ(ops(b.graph), (std::vector<std::string>{"Reshape", "QLinearConv", "Reshape"}));
  EXPECT_EQ(b.graph.tensor(b.graph.nodes[1].inputs[0]).shape, (std::vector<int64_t>{1, 3, 3, 1}));
  EXPECT_EQ(b.graph.tensor(y).shape, (std::vector<int64_t>{1, 4, 1, 1}));
}

// An elementwise operator between two convolutions: the transpose moves below it and
// cancels; a residual QLinearAdd of two channels-last operands stays channels-last.
TEST(ChannelsLast, TransposesMoveThroughElementwiseOperators) {
  GraphBuilder b;
  TensorId x = b.input<int8_t>("x", {1, 4, 5, 5}, random_ints<int8_t>(100, -128, 127, 4));
  TensorId a = qconv(b, x, 4, 4, 3, 1, 40);
  TensorId clipped = b.node("Clip", {a, b.constant<int8_t>("lo", {}, {-20}), b.constant<int8_t>("hi", {}, {90})});
  TensorId c = qconv(b, clipped, 4, 4, 3, 1, 50);
  auto scalar = [&](float s, int8_t z) {
    return std::vector<TensorId>{b.constant<float>("s", {}, {s}), b.constant<int8_t>("z", {}, {z})};
  };
  std::vector<TensorId> add_inputs = {c};
  for (TensorId t : scalar(0.04f, 5)) add_inputs.push_back(t);
  add_inputs.push_back(a);
  for (TensorId t : scalar(0.04f, 5)) add_inputs.push_back(t);
  for (TensorId t : scalar(0.06f, -2)) add_inputs.push_back(t);
  TensorId sum = b.node("aotc.QLinearAdd", add_inputs);
  TensorId d = qconv(b, sum, 4, 3, 1, 1, 60);
  EXPECT_EQ(expect_same_results(b, {d}),
            (std::vector<std::string>{"Transpose", "QLinearConv", "Clip", "QLinearConv", "aotc.QLinearAdd", "QLinearConv",
                                      "Transpose"}));
}

// After channels_last, fuse_operators puts a residual QLinearAdd behind the convolution that
// computes one of its operands (as TFLite's ADD behind CONV_2D): one kernel, one tensor less,
// the same bytes.
TEST(ChannelsLast, ResidualAddFusesIntoTheConvolution) {
  GraphBuilder b;
  TensorId x = b.input<int8_t>("x", {1, 4, 5, 5}, random_ints<int8_t>(100, -128, 127, 7));
  TensorId a = qconv(b, x, 4, 4, 3, 1, 90);
  TensorId c = qconv(b, a, 4, 4, 3, 1, 100);
  TensorId sum = b.node("aotc.QLinearAdd",
                        {c, b.constant<float>("cs", {}, {0.04f}), b.constant<int8_t>("cz", {}, {5}), a,
                         b.constant<float>("as", {}, {0.04f}), b.constant<int8_t>("az", {}, {5}),
                         b.constant<float>("ys", {}, {0.07f}), b.constant<int8_t>("yz", {}, {-9})});
  b.graph.outputs = {sum};
  infer_shapes(b.graph);
  Memory before = b.execute();
  channels_last(b.graph, kDspCore);
  fuse_operators(b.graph);
  remove_dead_nodes(b.graph);
  EXPECT_EQ(ops(b.graph), (std::vector<std::string>{"Transpose", "QLinearConv", "QLinearConv", "Transpose"}));
  ASSERT_EQ(b.graph.nodes[2].body.size(), 1u);
  EXPECT_EQ(b.graph.nodes[2].body[0].op, "aotc.QLinearAdd");
  EXPECT_EQ(b.execute().at(sum), before.at(sum));
}

// A convolution's NCHW result that is a graph output stays computed as such, while the
// next convolution reads the channels-last tensor.
TEST(ChannelsLast, GraphOutputsKeepTheirLayout) {
  GraphBuilder b;
  TensorId x = b.input<int8_t>("x", {1, 2, 4, 4}, random_ints<int8_t>(32, -128, 127, 5));
  TensorId a = qconv(b, x, 2, 3, 3, 1, 70);
  TensorId c = qconv(b, a, 3, 2, 3, 1, 80);
  EXPECT_EQ(expect_same_results(b, {a, c}),
            (std::vector<std::string>{"Transpose", "QLinearConv", "Transpose", "QLinearConv", "Transpose"}));
  EXPECT_EQ(b.graph.tensor(a).shape, (std::vector<int64_t>{1, 3, 4, 4}));
}

// A Transpose of the model without `perm` reverses the axes (ONNX's default): it is not a
// view even when extents of 1 surround it (onnx_conformance's test_transpose_default).
TEST(ChannelsLast, ModelTransposeWithoutPermStaysATranspose) {
  GraphBuilder b;
  TensorId x = b.input<int8_t>("x", {2, 3, 4}, random_ints<int8_t>(24, -128, 127, 6));
  TensorId t = b.node("Transpose", {x});
  EXPECT_EQ(expect_same_results(b, {t}), (std::vector<std::string>{"Transpose"}));
}

// The layout is the target's: on a host (wide SIMD, whose kernels are channels-first) the
// same QLinearConv graph keeps its layout; a float Conv with constant weights goes
// channels-last on a core with an FPU (its register blocks) but not on the host, within
// float rounding of the channels-first result (a window summed in another order).
TEST(ChannelsLast, TheTargetsKernelsDecideTheLayout) {
  const TargetFacts host = with_features({"fpu", "fp64", "simd"});
  {
    GraphBuilder b;
    TensorId x = b.input<int8_t>("x", {1, 3, 7, 6}, random_ints<int8_t>(126, -128, 127, 1));
    TensorId h = qconv(b, qconv(b, x, 3, 8, 3, 1, 10), 8, 8, 3, 8, 20);
    b.graph.outputs = {h};
    infer_shapes(b.graph);
    channels_last(b.graph, host);
    EXPECT_EQ(ops(b.graph), (std::vector<std::string>{"QLinearConv", "QLinearConv"}));
  }
  for (const TargetFacts& target : {with_features({"fpu"}), host}) {
    SCOPED_TRACE(target.has("simd") ? "host" : "fpu");
    GraphBuilder b;
    TensorId x = b.input<float>("x", {1, 4, 6, 5}, random_floats(120, 8));
    TensorId a = b.node("Conv", {x, b.constant("w", {8, 4, 3, 3}, random_floats(288, 9)), b.constant("bias", {8}, random_floats(8, 10))},
                        {{"pads", std::vector<int64_t>(4, 1)}});
    TensorId r = b.node("Relu", {a});
    TensorId y = b.node("Conv", {r, b.constant("dw", {8, 1, 3, 3}, random_floats(72, 11)), b.constant("dw_bias", {8}, random_floats(8, 12))},
                        {{"group", int64_t{8}}, {"pads", std::vector<int64_t>(4, 1)}});
    b.graph.outputs = {y};
    infer_shapes(b.graph);
    std::vector<float> before = from_bytes<float>(b.execute().at(y));
    channels_last(b.graph, target);
    remove_dead_nodes(b.graph);
    std::vector<float> after = from_bytes<float>(b.execute().at(y));
    if (target.has("simd")) {
      EXPECT_EQ(ops(b.graph), (std::vector<std::string>{"Conv", "Relu", "Conv"}));
    } else {
      EXPECT_EQ(ops(b.graph), (std::vector<std::string>{"Transpose", "Conv", "Relu", "Conv", "Transpose"}));
      EXPECT_EQ(b.graph.tensor(b.graph.nodes[3].inputs[1]).shape, (std::vector<int64_t>{1, 3, 3, 8}));
    }
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 0; i < after.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-5 + 1e-5 * std::fabs(before[i])) << i;
  }
}

// Poolings between channels-last convolutions go channels-last too (no transposes of their
// own): a padded MaxPool with ceil_mode, a padded AveragePool counting its padding; a pooling
// of the model's input, which no converted convolution feeds, keeps ONNX's layout. The same
// values. (A global pooling's result of one pixel ends in a Reshape, a view that this
// kernel-only interpreter cannot run: the networks of tests/models run it end to end.)
TEST(ChannelsLast, PoolingsBetweenConvolutionsFollow) {
  GraphBuilder b;
  TensorId input = b.input<float>("x", {1, 3, 10, 8}, random_floats(240, 21));
  // A pooling of the model's input reads no converted convolution: it keeps its layout.
  TensorId x = b.node("MaxPool", {input}, {{"kernel_shape", std::vector<int64_t>{2, 1}}, {"strides", std::vector<int64_t>{1, 1}}});
  auto conv = [&](TensorId in, int64_t in_channels, int64_t out_channels, uint32_t seed) {
    return b.node("Conv", {in, b.constant("w", {out_channels, in_channels, 3, 3}, random_floats(static_cast<size_t>(out_channels * in_channels * 9), seed))},
                  {{"pads", std::vector<int64_t>(4, 1)}});
  };
  TensorId a = conv(x, 3, 4, 22);
  TensorId m = b.node("MaxPool", {a}, {{"kernel_shape", std::vector<int64_t>{3, 2}}, {"strides", std::vector<int64_t>{2, 2}},
                                      {"pads", std::vector<int64_t>{1, 0, 1, 1}}, {"ceil_mode", int64_t{1}}});
  TensorId p = b.node("AveragePool", {conv(m, 4, 4, 23)}, {{"kernel_shape", std::vector<int64_t>{2, 2}},
                                                         {"pads", std::vector<int64_t>{1, 1, 0, 0}}, {"count_include_pad", int64_t{1}}});
  TensorId gap = conv(p, 4, 5, 24);
  b.graph.outputs = {gap};
  infer_shapes(b.graph);
  std::vector<float> before = from_bytes<float>(b.execute().at(gap));
  channels_last(b.graph, with_features({"fpu"}));
  remove_dead_nodes(b.graph);
  EXPECT_EQ(ops(b.graph), (std::vector<std::string>{"MaxPool", "Transpose", "Conv", "MaxPool", "Conv", "AveragePool",
                                                     "Conv", "Transpose"}));
  std::vector<float> after = from_bytes<float>(b.execute().at(gap));
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_NEAR(after[i], before[i], 1e-5 + 1e-5 * std::fabs(before[i])) << i;
}

// A squeeze-and-excitation block (x * sigmoid(conv(global pool(x))), the Mul broadcasting
// [1, C, 1, 1] over [1, C, H, W]) stays channels-last: the Mul reads the scale as the view
// [1, 1, 1, C] instead of standing between two transposes. Structure only: its views need
// the full pipeline (mobilenet_v3 in tests/models runs such blocks end to end).
TEST(ChannelsLast, BroadcastingMulOfAnExcitationStaysChannelsLast) {
  GraphBuilder b;
  TensorId x = b.input<float>("x", {1, 4, 6, 6}, random_floats(144, 31));
  auto conv = [&](TensorId in, int64_t kernel, uint32_t seed) {
    int64_t pad = kernel / 2;
    return b.node("Conv", {in, b.constant("w", {4, 4, kernel, kernel}, random_floats(static_cast<size_t>(16 * kernel * kernel), seed))},
                  {{"pads", std::vector<int64_t>(4, pad)}});
  };
  TensorId a = conv(x, 3, 32);
  TensorId scale = b.node("Sigmoid", {conv(b.node("GlobalAveragePool", {a}), 1, 33)});
  // A second scale from outside, [1, C, 1, 1] channels-first: read through a view.
  TensorId given = b.input<float>("given", {1, 4, 1, 1}, random_floats(4, 35));
  TensorId y = conv(b.node("Mul", {b.node("Mul", {a, scale}), given}), 3, 34);
  b.graph.outputs = {y};
  infer_shapes(b.graph);
  channels_last(b.graph, with_features({"fpu"}));
  remove_dead_nodes(b.graph);
  EXPECT_EQ(ops(b.graph), (std::vector<std::string>{"Transpose", "Conv", "GlobalAveragePool", "Conv", "Sigmoid", "Mul",
                                                     "Reshape", "Mul", "Conv", "Transpose"}));
  EXPECT_EQ(b.graph.tensor(b.graph.nodes[6].outputs[0]).shape, (std::vector<int64_t>{1, 1, 1, 4}));
}

// An Add of two [1, C, 1, 1] tensors, a pooled channels-last result and an input: each is a
// view of the other's layout, so moving the transposes below the Add and back would never
// end (difftest seeds 1090310, 1090647, 1090740 hung aotc). The pass finishes and leaves the
// Add channels-first (tests/difftest/findings/excitation_of_one_pixel checks the values).
TEST(ChannelsLast, AnAddOfOnePixelTensorsDoesNotMoveTransposesForever) {
  GraphBuilder b;
  TensorId x = b.input<float>("x", {1, 4, 3, 3}, random_floats(36, 41));
  TensorId c = b.node("Conv", {x, b.constant("w", {4, 4, 1, 1}, random_floats(16, 42))});
  TensorId p = b.node("GlobalAveragePool", {c});
  TensorId y = b.node("Add", {p, b.input<float>("s", {1, 4, 1, 1}, random_floats(4, 43))});
  b.graph.outputs = {y};
  infer_shapes(b.graph);
  channels_last(b.graph, with_features({"fpu"}));
  remove_dead_nodes(b.graph);
  EXPECT_EQ(ops(b.graph), (std::vector<std::string>{"Transpose", "Conv", "GlobalAveragePool", "Reshape", "Add"}));
}

}  // namespace
}  // namespace aotc
