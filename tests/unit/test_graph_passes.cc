// The graph passes on small hand-built graphs: constant folding, fusion of bias and
// activation and of elementwise chains, BatchNormalization folded into Conv, dead nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "aot/graph/graph_printer.h"
#include "aot/passes/graph_passes.h"
#include "tests/unit/one_node.h"

namespace aotc {
namespace {

using test::GraphBuilder;

TEST(GraphPasses, ConstantSubgraphIsFoldedByRunningItsKernel) {
  GraphBuilder b;
  TensorId x = b.input("x", {2, 3});
  TensorId w = b.constant("w", {3, 2}, {1, 2, 3, 4, 5, 6});
  TensorId wt = b.named_node("Transpose", "transpose_w", {w});           // [2, 3], constant
  TensorId scaled = b.named_node("Mul", "scale_w", {wt, b.constant("two", {}, {2})});
  b.after({b.named_node("Add", "add", {x, scaled})}, fold_constants);
  ASSERT_EQ(b.graph.nodes.size(), 1u);
  EXPECT_EQ(b.graph.nodes[0].op, "Add");
  const Tensor& folded = b.graph.tensor(scaled);
  ASSERT_TRUE(folded.is_constant());
  // transpose([[1,2],[3,4],[5,6]]) * 2, computed here independently.
  std::vector<double> want = {2, 6, 10, 4, 8, 12};
  EXPECT_EQ(folded.floats(), want);
}

TEST(GraphPasses, BiasAndActivationFuseIntoConv) {
  GraphBuilder b;
  TensorId x = b.input("x", {1, 2, 4, 4});
  TensorId w = b.constant("w", {3, 2, 1, 1}, {1, 0, 0, 1, 1, 1});
  TensorId conv = b.named_node("Conv", "conv", {x, w});
  TensorId biased = b.named_node("Add", "bias", {conv, b.constant("b", {1, 3, 1, 1}, {0.5f, -1, 2})});
  TensorId relu = b.named_node("Relu", "relu", {biased});
  b.after({relu}, fuse_operators);
  ASSERT_EQ(b.graph.nodes.size(), 1u);
  EXPECT_EQ(b.graph.nodes[0].op, "Conv");
  ASSERT_EQ(b.graph.nodes[0].body.size(), 2u);
  EXPECT_EQ(b.graph.nodes[0].body[0].op, "Add");
  EXPECT_EQ(b.graph.nodes[0].body[1].op, "Relu");
  EXPECT_EQ(b.graph.nodes[0].outputs[0], relu);
  std::string text = to_string(b.graph);
  EXPECT_NE(text.find("= Conv(%x, %w)"), std::string::npos) << text;
  EXPECT_NE(text.find("    + Add(%conv_out, %b)\n    + Relu(%bias_out)"), std::string::npos) << text;
}

TEST(GraphPasses, ElementwiseChainBecomesOneNode) {
  GraphBuilder b;
  TensorId x = b.input("x", {8});
  TensorId hs = b.named_node("HardSigmoid", "hsig", {x});
  TensorId y = b.named_node("Mul", "swish", {x, hs});
  TensorId z = b.named_node("Tanh", "tanh", {y});
  b.after({z}, fuse_operators);
  ASSERT_EQ(b.graph.nodes.size(), 1u);
  EXPECT_EQ(b.graph.nodes[0].op, "HardSigmoid");
  ASSERT_EQ(b.graph.nodes[0].body.size(), 2u);
  EXPECT_EQ(b.graph.nodes[0].outputs[0], z);
}

TEST(GraphPasses, TensorReadTwiceIsNotFusedAway) {
  GraphBuilder b;
  TensorId x = b.input("x", {8});
  TensorId r = b.named_node("Relu", "relu", {x});
  TensorId s = b.named_node("Sigmoid", "sig", {r});
  TensorId t = b.named_node("Tanh", "tanh", {r});
  b.after({s, t}, fuse_operators);
  EXPECT_EQ(b.graph.nodes.size(), 3u);  // relu's output has two readers
}

// max(relu(x), sigmoid(y)): Max joins Sigmoid's kernel as its epilogue (Relu's cannot take
// it: Relu runs before Sigmoid's output exists). Relu's only reader is then that chain,
// whose head reads y, not Relu's output: Relu must stay a kernel of its own (fused, the
// chain would apply Sigmoid to Relu's output).
TEST(GraphPasses, ChainIsJoinedOnlyThroughItsHead) {
  GraphBuilder b;
  std::vector<float> xs = {-1, 2, 3}, ys = {0.5f, -4, 10};
  TensorId r = b.node("Relu", {b.input<float>("x", {3}, xs)});
  TensorId s = b.node("Sigmoid", {b.input<float>("y", {3}, ys)});
  TensorId m = b.node("Max", {r, s});
  b.graph.outputs = {m};
  infer_shapes(b.graph);
  fuse_operators(b.graph);
  ASSERT_EQ(b.graph.nodes.size(), 2u) << to_string(b.graph);
  std::vector<float> got = test::from_bytes<float>(b.execute().at(m));
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_FLOAT_EQ(got[i], std::max(std::max(xs[i], 0.0f), 1.0f / (1.0f + std::exp(-ys[i])))) << i;
}

TEST(GraphPasses, BatchNormFoldsIntoConvWeights) {
  GraphBuilder b;
  TensorId x = b.input("x", {1, 1, 2, 2});
  TensorId conv =
      b.named_node("Conv", "conv", {x, b.constant("w", {2, 1, 1, 1}, {2, 3}), b.constant("b", {2}, {1, 1})});
  TensorId bn = b.named_node("BatchNormalization", "bn",
                             {conv, b.constant("scale", {2}, {1, 2}), b.constant("beta", {2}, {0, 1}),
                              b.constant("mean", {2}, {1, 0}), b.constant("var", {2}, {3, 0})},
                             {{"epsilon", 1.0}});
  b.after({bn}, fuse_operators);
  ASSERT_EQ(b.graph.nodes.size(), 1u);
  const Node& n = b.graph.nodes[0];
  ASSERT_EQ(n.op, "Conv");
  // s = scale / sqrt(var + eps) = [0.5, 2]; w' = w * s; b' = (b - mean) * s + beta.
  EXPECT_EQ(b.graph.tensor(n.inputs[1]).floats(), (std::vector<double>{1, 6}));
  EXPECT_EQ(b.graph.tensor(n.inputs[2]).floats(), (std::vector<double>{0, 3}));
}

TEST(GraphPasses, DeadNodesAreRemoved) {
  GraphBuilder b;
  TensorId x = b.input("x", {4});
  TensorId used = b.named_node("Relu", "used", {x});
  b.named_node("Sigmoid", "unused", {x});
  b.named_node("Tanh", "unused_too", {used});
  b.after({used}, remove_dead_nodes);
  ASSERT_EQ(b.graph.nodes.size(), 1u);
  EXPECT_EQ(b.graph.nodes[0].name, "used");
}

}  // namespace
}  // namespace aotc
