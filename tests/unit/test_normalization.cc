// Tests of the normalizations in lowering/ops/onnx/normalization.cc (LayerNormalization,
// RMSNormalization, InstanceNormalization, GroupNormalization, MeanVarianceNormalization)
// and lowering/ops/onnx/lp_normalization.cc (LpNormalization, LRN). BatchNormalization is
// tested in test_op_lowering_shape_softmax.cc.
//
// Each kernel runs in the IR interpreter (as lowered and after Simplify) and is compared
// with references computed here in double precision by plain loops written from the ONNX
// operator definitions: statistics per group, then the affine map.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

// The element of a tensor of shape `small` that numpy broadcasting pairs with `index`
// (an index of a larger shape): trailing axes align, axes of size 1 read index 0.
int64_t broadcast_flat(const Shape& small, const Index& index) {
  int64_t flat = 0;
  size_t offset = index.size() - small.size();
  for (size_t d = 0; d < small.size(); ++d) flat = flat * small[d] + (small[d] == 1 ? 0 : index[offset + d]);
  return flat;
}

template <typename T>
std::vector<T> converted(const std::vector<float>& values) {
  return std::vector<T>(values.begin(), values.end());
}

void expect_error_contains(const std::string& message, const std::string& text) {
  EXPECT_NE(message.find(text), std::string::npos) << "error was: '" << message << "'";
}

// ---------------------------------------------------------------- LayerNormalization

struct Statistics {
  std::vector<double> y, mean, inv_std_dev;
};

// LayerNormalization from its definition: X seen as a matrix of rows (the axes before
// `axis`) by columns (the rest); each row standardized, then Y = normalized * W + B with W
// and B broadcast to X. `center` false gives RMSNormalization (no mean, no B).
Statistics reference_layer_norm(const Shape& shape, const std::vector<float>& x, int64_t axis, const Shape& w_shape,
                                const std::vector<float>& w, const Shape& b_shape, const std::vector<float>& b,
                                double epsilon, bool center = true) {
  int64_t columns = 1;
  for (size_t d = static_cast<size_t>(axis); d < shape.size(); ++d) columns *= shape[d];
  int64_t rows = element_count(shape) / columns;
  Statistics s;
  s.y.resize(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0, squares = 0;
    for (int64_t c = 0; c < columns; ++c) sum += x[r * columns + c];
    double mean = center ? sum / static_cast<double>(columns) : 0.0;
    for (int64_t c = 0; c < columns; ++c) squares += (x[r * columns + c] - mean) * (x[r * columns + c] - mean);
    double inv_std_dev = 1.0 / std::sqrt(squares / static_cast<double>(columns) + epsilon);
    s.mean.push_back(mean);
    s.inv_std_dev.push_back(inv_std_dev);
  }
  for_each_index(shape, [&](const Index& i, size_t flat) {
    size_t row = flat / static_cast<size_t>(columns);
    double value = (x[flat] - s.mean[row]) * s.inv_std_dev[row] * w[broadcast_flat(w_shape, i)];
    if (!b.empty()) value += b[broadcast_flat(b_shape, i)];
    s.y[flat] = value;
  });
  return s;
}

TEST(LayerNormalization, MatchesTheDefinitionForEveryAxisWithStatistics) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 1, 3.0f);
  for (int64_t axis : {0, 1, 2, -1, -2, -3}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    int64_t a = axis < 0 ? axis + 3 : axis;
    Shape normalized(shape.begin() + a, shape.end());
    std::vector<float> w = random_floats(element_count(normalized), 2, 2.0f);
    std::vector<float> b = random_floats(element_count(normalized), 3);
    OneNode node("LayerNormalization", 17);
    node.input(shape, x).constant(normalized, w).input(normalized, b).attr("axis", axis).attr("epsilon", 0.01);
    node.extra_output(true).extra_output(true);
    Statistics expected = reference_layer_norm(shape, x, a, normalized, w, normalized, b, 0.01);
    expect_near_all(node.run(), expected.y);
    Shape statistics_shape = shape;
    for (size_t d = static_cast<size_t>(a); d < 3; ++d) statistics_shape[d] = 1;
    EXPECT_EQ(node.output_shape(1), statistics_shape);
    EXPECT_EQ(node.output_shape(2), statistics_shape);
    expect_near_all(node.run_output(1), expected.mean);
    expect_near_all(node.run_output(2), expected.inv_std_dev);
  }
}

TEST(LayerNormalization, BroadcastsScaleAndBiasAndBiasIsOptional) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 4, 2.0f);
  // Axis 1 normalizes [3, 4]; a scale of shape [4] or [1] broadcasts over it.
  for (Shape w_shape : {Shape{4}, Shape{1}, Shape{3, 1}}) {
    SCOPED_TRACE(shape_str(w_shape));
    std::vector<float> w = random_floats(element_count(w_shape), 5, 2.0f);
    OneNode with_bias("LayerNormalization", 17);
    std::vector<float> b = random_floats(4, 6);
    with_bias.input(shape, x).constant(w_shape, w).constant({4}, b).attr("axis", int64_t{1});
    expect_near_all(with_bias.run(), reference_layer_norm(shape, x, 1, w_shape, w, {4}, b, 1e-5).y);

    OneNode without_bias("LayerNormalization", 17);
    without_bias.input(shape, x).constant(w_shape, w).attr("axis", int64_t{1});
    expect_near_all(without_bias.run(), reference_layer_norm(shape, x, 1, w_shape, w, {}, {}, 1e-5).y);
  }
}

TEST(LayerNormalization, Float64AndStashType) {
  Shape shape = {3, 5};
  std::vector<float> x = random_floats(15, 7, 4.0f), w = random_floats(5, 8), b = random_floats(5, 9);
  Statistics expected = reference_layer_norm(shape, x, 1, {5}, w, {5}, b, 1e-5);

  OneNode doubles("LayerNormalization", 17);
  doubles.input(shape, converted<double>(x)).input({5}, converted<double>(w)).input({5}, converted<double>(b));
  doubles.attr("stash_type", int64_t{11});
  expect_near_all(doubles.run<double>(), expected.y, 1e-12);

  // Float32 X with float64 statistics: Mean and InvStdDev are float64.
  OneNode stash("LayerNormalization", 17);
  stash.input(shape, x).input({5}, w).input({5}, b).attr("stash_type", int64_t{11});
  stash.extra_output(true).extra_output(true);
  std::vector<float> y = stash.run();
  EXPECT_EQ(stash.output_type(0), DataType::Float32());
  EXPECT_EQ(stash.output_type(1), DataType::Float64());
  EXPECT_EQ(stash.output_type(2), DataType::Float64());
  expect_near_all(y, expected.y);
  expect_near_all(stash.run_output<double>(1), expected.mean, 1e-12);
  expect_near_all(stash.run_output<double>(2), expected.inv_std_dev, 1e-12);
}

// Values near 130 with a spread of 0.05 (difftest seed 1044488): plain float32 sums of a
// group of thousands put the mean thousands of units in the last place off and the
// outputs up to 3e-3. Groups of 64 or more sum with Kahan's compensation and keep the mean
// as hi + lo: within 2e-6 of the float64 definition at every size, those that split n at
// run time (5,003 and 10,007 elements, n beyond 2^12) included.
TEST(LayerNormalization, LargeGroupsFarFromZeroKeepTheirDigits) {
  for (int64_t n : {64, 3332, 5003, 10007}) {
    SCOPED_TRACE("group of " + std::to_string(n));
    Shape shape = {2, n};
    std::vector<float> x = random_floats(static_cast<size_t>(2 * n), 11, 0.05f);
    for (float& v : x) v += 130.0f;
    std::vector<float> w = random_floats(static_cast<size_t>(n), 12, 2.0f), b = random_floats(static_cast<size_t>(n), 13, 0.01f);
    OneNode node("LayerNormalization", 17);
    node.input(shape, x).constant({n}, w).constant({n}, b).attr("axis", int64_t{1});
    node.extra_output(true);
    Statistics expected = reference_layer_norm(shape, x, 1, {n}, w, {n}, b, 1e-5);
    std::vector<float> y = node.run();
    double worst = 0;
    for (size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::fabs(y[i] - expected.y[i]));
    EXPECT_LT(worst, 2e-6);
    expect_near_all(node.run_output(1), expected.mean, 1e-7);
  }
}

TEST(LayerNormalization, StatisticsNobodyReadsAreNotWritten) {
  Shape shape = {2, 6};
  std::vector<float> x = random_floats(12, 10), w = random_floats(6, 11);
  OneNode node("LayerNormalization", 17);
  node.input(shape, x).input({6}, w).absent_input().extra_output(false).extra_output(true);
  Statistics expected = reference_layer_norm(shape, x, 1, {6}, w, {}, {}, 1e-5);
  expect_near_all(node.run(), expected.y);
  expect_near_all(node.run_output(2), expected.inv_std_dev);
}

TEST(LayerNormalization, FusedActivationAppliesToEachOutputElement) {
  Shape shape = {4, 8};
  std::vector<float> x = random_floats(32, 12, 2.0f), w = random_floats(8, 13), b = random_floats(8, 14);
  OneNode node("LayerNormalization", 17);
  node.input(shape, x).constant({8}, w).constant({8}, b).epilogue("Relu");
  std::vector<double> expected = reference_layer_norm(shape, x, 1, {8}, w, {8}, b, 1e-5).y;
  for (double& v : expected) v = std::max(v, 0.0);
  expect_near_all(node.run(), expected);
}

TEST(LayerNormalization, Errors) {
  auto node = [](Shape w_shape) {
    OneNode n("LayerNormalization", 17);
    n.input({2, 3, 4}, random_floats(24, 1)).input(w_shape, random_floats(element_count(w_shape), 2));
    return n;
  };
  OneNode bad_axis = node({4});
  bad_axis.attr("axis", int64_t{3});
  expect_error_contains(bad_axis.error(), "axis 3 is out of range");
  OneNode bad_scale = node({5});
  expect_error_contains(bad_scale.error(), "does not broadcast to X's shape [2, 3, 4]");
  OneNode bad_stash = node({4});
  bad_stash.attr("stash_type", int64_t{10});
  expect_error_contains(bad_stash.error(), "stash_type 10 is not supported");
  OneNode no_scale("LayerNormalization", 17);
  no_scale.input({2, 3}, random_floats(6, 1));
  expect_error_contains(no_scale.error(), "input 1 is required");
  OneNode integers("LayerNormalization", 17);
  integers.input<int32_t>({2}, {1, 2}).input<int32_t>({2}, {1, 1});
  expect_error_contains(integers.error(), "only float32 and float64 are supported");
  OneNode mixed("LayerNormalization", 17);
  mixed.input({2}, {1.0f, 2.0f}).input<double>({2}, {1.0, 1.0});
  expect_error_contains(mixed.error(), "is float64, X is float32");
}

// LayerNormalization's function body (its _expanded ONNX tests) with axis 0 computes the
// statistics' shape as Concat(Slice(Shape(X), 0, 0), ones): an empty prefix. An empty
// slice of a constant is allowed (it folds at compile time); of run-time data it is not.
TEST(LayerNormalization, FunctionBodyWithAnEmptyShapePrefix) {
  GraphBuilder b(13);
  TensorId input = b.input<float>("X", {1, 1, 1}, {2.5f});
  TensorId shape = b.node("Shape", {input});
  TensorId zero = b.constant<int64_t>("zero", {1}, {0});
  TensorId prefix = b.node("Slice", {shape, zero, zero});
  TensorId ones = b.constant<int64_t>("ones", {2}, {1, 1});
  TensorId reduced_shape = b.node("Concat", {prefix, ones}, {{"axis", int64_t{0}}});
  TensorId out = b.node("Reshape", {input, reduced_shape});
  ASSERT_EQ(b.error(out), "");
  EXPECT_EQ(b.graph.tensor(prefix).shape, (Shape{0}));
  ASSERT_TRUE(b.graph.tensor(reduced_shape).is_constant());
  EXPECT_EQ(b.graph.tensor(reduced_shape).ints(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(b.graph.tensor(out).shape, (Shape{1, 1}));

  GraphBuilder runtime(13);
  TensorId data = runtime.input("X", {3, 4}, random_floats(12, 30));
  TensorId empty = runtime.node("Slice", {data, runtime.constant<int64_t>("zero", {1}, {0}), runtime.constant<int64_t>("end", {1}, {0})});
  expect_error_contains(runtime.error(empty), "tensors without elements are not supported");
}

// ---------------------------------------------------------------- RMSNormalization

TEST(RMSNormalization, ScalesByTheRootMeanSquare) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 15, 3.0f);
  for (int64_t axis : {-1, 1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    int64_t a = axis < 0 ? axis + 3 : axis;
    Shape normalized(shape.begin() + a, shape.end());
    std::vector<float> scale = random_floats(element_count(normalized), 16, 2.0f);
    OneNode node("RMSNormalization", 23);
    node.input(shape, x).constant(normalized, scale).attr("axis", axis).attr("epsilon", 1e-3);
    expect_near_all(node.run(), reference_layer_norm(shape, x, a, normalized, scale, {}, {}, 1e-3, false).y);
  }
}

// ---------------------------------------------------------------- InstanceNormalization

// Y[n, c, ...] = (X - mean) / sqrt(var + epsilon) * scale[c] + B[c], the statistics over
// the spatial axes of (n, c).
std::vector<double> reference_instance_norm(const Shape& shape, const std::vector<float>& x,
                                            const std::vector<float>& scale, const std::vector<float>& bias,
                                            double epsilon) {
  int64_t spatial = element_count(shape) / (shape[0] * shape[1]);
  std::vector<double> y(x.size());
  for (int64_t nc = 0; nc < shape[0] * shape[1]; ++nc) {
    double sum = 0, squares = 0;
    for (int64_t i = 0; i < spatial; ++i) sum += x[nc * spatial + i];
    double mean = sum / static_cast<double>(spatial);
    for (int64_t i = 0; i < spatial; ++i) squares += (x[nc * spatial + i] - mean) * (x[nc * spatial + i] - mean);
    double std_dev = std::sqrt(squares / static_cast<double>(spatial) + epsilon);
    size_t c = static_cast<size_t>(nc % shape[1]);
    for (int64_t i = 0; i < spatial; ++i) y[nc * spatial + i] = (x[nc * spatial + i] - mean) / std_dev * scale[c] + bias[c];
  }
  return y;
}

TEST(InstanceNormalization, NormalizesEachChannelOfEachSample) {
  for (Shape shape : {Shape{2, 3, 5}, Shape{1, 2, 3, 4}, Shape{2, 2, 1, 2, 3}}) {
    SCOPED_TRACE(shape_str(shape));
    std::vector<float> x = random_floats(element_count(shape), 17, 3.0f);
    size_t c = static_cast<size_t>(shape[1]);
    std::vector<float> scale = random_floats(c, 18, 2.0f), bias = random_floats(c, 19);
    OneNode node("InstanceNormalization", 6);
    node.input(shape, x).constant({shape[1]}, scale).input({shape[1]}, bias).attr("epsilon", 0.02);
    expect_near_all(node.run(), reference_instance_norm(shape, x, scale, bias, 0.02));
  }
}

TEST(InstanceNormalization, Float64) {
  Shape shape = {1, 2, 6};
  std::vector<float> x = random_floats(12, 20, 3.0f), scale = {0.5f, 2.0f}, bias = {1.0f, -1.0f};
  OneNode node("InstanceNormalization", 6);
  node.input(shape, converted<double>(x)).input({2}, converted<double>(scale)).input({2}, converted<double>(bias));
  expect_near_all(node.run<double>(), reference_instance_norm(shape, x, scale, bias, 1e-5), 1e-12);
}

TEST(InstanceNormalization, RejectsScaleOfTheWrongShape) {
  OneNode node("InstanceNormalization", 6);
  node.input({1, 3, 4}, random_floats(12, 1)).input({2}, {1.0f, 1.0f}).input({3}, {0.0f, 0.0f, 0.0f});
  expect_error_contains(node.error(), "must have shape [3] (one value per channel)");
}

// ---------------------------------------------------------------- GroupNormalization

// The channels of each sample split into `groups` consecutive blocks, each block
// normalized with its spatial axes; scale and bias per group or per channel.
std::vector<double> reference_group_norm(const Shape& shape, const std::vector<float>& x, int64_t groups,
                                         const std::vector<float>& scale, const std::vector<float>& bias,
                                         bool per_channel, double epsilon) {
  int64_t channels = shape[1], spatial = element_count(shape) / (shape[0] * channels);
  int64_t block = channels / groups * spatial;  // elements in one group of one sample
  std::vector<double> y(x.size());
  for (int64_t start = 0; start < element_count(shape); start += block) {
    double sum = 0, squares = 0;
    for (int64_t i = 0; i < block; ++i) sum += x[start + i];
    double mean = sum / static_cast<double>(block);
    for (int64_t i = 0; i < block; ++i) squares += (x[start + i] - mean) * (x[start + i] - mean);
    double std_dev = std::sqrt(squares / static_cast<double>(block) + epsilon);
    for (int64_t i = 0; i < block; ++i) {
      int64_t channel = (start + i) / spatial % channels;
      size_t k = static_cast<size_t>(per_channel ? channel : channel / (channels / groups));
      y[start + i] = (x[start + i] - mean) / std_dev * scale[k] + bias[k];
    }
  }
  return y;
}

TEST(GroupNormalization, PerGroupAffineBeforeOpset21) {
  Shape shape = {2, 6, 2, 3};
  std::vector<float> x = random_floats(72, 21, 3.0f);
  for (int64_t groups : {1, 2, 3, 6}) {
    SCOPED_TRACE("groups " + std::to_string(groups));
    std::vector<float> scale = random_floats(groups, 22, 2.0f), bias = random_floats(groups, 23);
    OneNode node("GroupNormalization", 18);
    node.input(shape, x).constant({groups}, scale).constant({groups}, bias).attr("num_groups", groups).attr("epsilon", 1e-3);
    expect_near_all(node.run(), reference_group_norm(shape, x, groups, scale, bias, false, 1e-3));
  }
}

TEST(GroupNormalization, PerChannelAffineFromOpset21) {
  Shape shape = {1, 4, 5};
  std::vector<float> x = random_floats(20, 24, 3.0f), scale = random_floats(4, 25, 2.0f), bias = random_floats(4, 26);
  OneNode node("GroupNormalization", 21);
  node.input(shape, x).input({4}, scale).input({4}, bias).attr("num_groups", int64_t{2});
  expect_near_all(node.run(), reference_group_norm(shape, x, 2, scale, bias, true, 1e-5));
}

TEST(GroupNormalization, Errors) {
  auto node = [](int64_t opset, int64_t affine_size) {
    OneNode n("GroupNormalization", opset);
    std::vector<float> ones(static_cast<size_t>(affine_size), 1.0f);
    n.input({1, 6, 2}, random_floats(12, 1)).input({affine_size}, ones).input({affine_size}, ones);
    return n;
  };
  OneNode not_dividing = node(18, 4);
  not_dividing.attr("num_groups", int64_t{4});
  expect_error_contains(not_dividing.error(), "num_groups 4 must be positive and divide the 6 channels");
  OneNode missing = node(18, 3);
  expect_error_contains(missing.error(), "num_groups is required");
  OneNode per_channel_too_early = node(18, 6);
  per_channel_too_early.attr("num_groups", int64_t{3});
  expect_error_contains(per_channel_too_early.error(), "must have shape [3] (one value per group (opset < 21))");
  OneNode per_group_too_late = node(21, 3);
  per_group_too_late.attr("num_groups", int64_t{3});
  expect_error_contains(per_group_too_late.error(), "must have shape [6] (one value per channel (opset >= 21))");
}

// ---------------------------------------------------------------- MeanVarianceNormalization

// (X - mean) / (sqrt(var) + 1e-9) over the axes `reduced`.
std::vector<double> reference_mvn(const Shape& shape, const std::vector<float>& x, const std::vector<bool>& reduced) {
  std::vector<double> y(x.size());
  for_each_index(shape, [&](const Index& i, size_t flat) {
    double sum = 0, squares = 0, count = 0;
    for_each_in_group(shape, reduced, i, [&](size_t other) { sum += x[other], count += 1; });
    double mean = sum / count;
    for_each_in_group(shape, reduced, i, [&](size_t other) { squares += (x[other] - mean) * (x[other] - mean); });
    y[flat] = (x[flat] - mean) / (std::sqrt(squares / count) + 1e-9);
  });
  return y;
}

TEST(MeanVarianceNormalization, DefaultAndGivenAxes) {
  Shape shape = {3, 2, 2, 3};
  std::vector<float> x = random_floats(36, 27, 3.0f);
  OneNode by_default("MeanVarianceNormalization", 13);
  by_default.input(shape, x);
  expect_near_all(by_default.run(), reference_mvn(shape, x, {true, false, true, true}));
  OneNode one_axis("MeanVarianceNormalization", 13);
  one_axis.input(shape, x).attr("axes", std::vector<int64_t>{1});
  expect_near_all(one_axis.run(), reference_mvn(shape, x, {false, true, false, false}));
  OneNode negative("MeanVarianceNormalization", 13);
  negative.input(shape, x).attr("axes", std::vector<int64_t>{-1, -2});
  expect_near_all(negative.run(), reference_mvn(shape, x, {false, false, true, true}));
}

TEST(MeanVarianceNormalization, Errors) {
  OneNode twice("MeanVarianceNormalization", 13);
  twice.input({2, 3, 4}, random_floats(24, 1)).attr("axes", std::vector<int64_t>{2, -1});
  expect_error_contains(twice.error(), "axis -1 is listed twice");
  OneNode default_needs_rank_4("MeanVarianceNormalization", 13);
  default_needs_rank_4.input({2, 3, 4}, random_floats(24, 1));
  expect_error_contains(default_needs_rank_4.error(), "axis 3 is out of range for rank 3");
}

// ---------------------------------------------------------------- LpNormalization

std::vector<double> reference_lp_norm(const Shape& shape, const std::vector<float>& x, size_t axis, int p) {
  std::vector<double> y(x.size());
  for_each_index(shape, [&](const Index& i, size_t flat) {
    double norm = 0;
    Index j = i;
    for (j[axis] = 0; j[axis] < shape[axis]; ++j[axis]) {
      double v = x[flat_index(shape, j)];
      norm += p == 1 ? std::fabs(v) : v * v;
    }
    y[flat] = x[flat] / (p == 1 ? norm : std::sqrt(norm));
  });
  return y;
}

TEST(LpNormalization, L1AndL2AlongAnAxis) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 28, 3.0f);
  OneNode by_default("LpNormalization", 1);
  by_default.input(shape, x);
  expect_near_all(by_default.run(), reference_lp_norm(shape, x, 2, 2));
  OneNode l1("LpNormalization", 1);
  l1.input(shape, x).attr("p", int64_t{1}).attr("axis", int64_t{-2});
  expect_near_all(l1.run(), reference_lp_norm(shape, x, 1, 1));
  OneNode l2("LpNormalization", 1);
  l2.input(shape, converted<double>(x)).attr("axis", int64_t{0});
  expect_near_all(l2.run<double>(), reference_lp_norm(shape, x, 0, 2), 1e-12);
}

TEST(LpNormalization, ALineOfZerosIsZeroOverZero) {
  OneNode node("LpNormalization", 1);
  node.input({2, 2}, {0.0f, 0.0f, 3.0f, 4.0f});
  std::vector<float> y = node.run();
  EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1]));
  EXPECT_FLOAT_EQ(y[2], 0.6f);
  EXPECT_FLOAT_EQ(y[3], 0.8f);
}

TEST(LpNormalization, Errors) {
  OneNode p3("LpNormalization", 1);
  p3.input({2, 2}, random_floats(4, 1)).attr("p", int64_t{3});
  expect_error_contains(p3.error(), "p must be 1 or 2, got 3");
  OneNode scalar("LpNormalization", 1);
  scalar.input({}, {1.0f});
  expect_error_contains(scalar.error(), "needs rank >= 1");
}

// ---------------------------------------------------------------- LRN

std::vector<double> reference_lrn(const Shape& shape, const std::vector<float>& x, int64_t size, double alpha,
                                  double beta, double bias) {
  std::vector<double> y(x.size());
  int64_t channels = shape[1];
  for_each_index(shape, [&](const Index& i, size_t flat) {
    int64_t lo = std::max<int64_t>(0, i[1] - (size - 1) / 2);
    int64_t hi = std::min<int64_t>(channels - 1, i[1] + size / 2);  // ceil((size - 1) / 2) = floor(size / 2)
    double square_sum = 0;
    Index j = i;
    for (j[1] = lo; j[1] <= hi; ++j[1]) square_sum += static_cast<double>(x[flat_index(shape, j)]) * x[flat_index(shape, j)];
    y[flat] = x[flat] / std::pow(bias + alpha / static_cast<double>(size) * square_sum, beta);
  });
  return y;
}

TEST(LRN, OddAndEvenWindowsWithDefaultsAndGivenParameters) {
  Shape shape = {2, 5, 3, 2};
  std::vector<float> x = random_floats(60, 29, 4.0f);
  OneNode defaults("LRN", 13);
  defaults.input(shape, x).attr("size", int64_t{3});
  expect_near_all(defaults.run(), reference_lrn(shape, x, 3, 1e-4, 0.75, 1.0));
  // An even window reaches one channel further up than down; alpha large enough to matter.
  OneNode even("LRN", 13);
  even.input(shape, x).attr("size", int64_t{4}).attr("alpha", 0.5).attr("beta", 0.6).attr("bias", 2.0);
  expect_near_all(even.run(), reference_lrn(shape, x, 4, 0.5, 0.6, 2.0));
  // A window wider than the channels.
  OneNode wide("LRN", 13);
  wide.input(shape, converted<double>(x)).attr("size", int64_t{11}).attr("alpha", 1.0);
  expect_near_all(wide.run<double>(), reference_lrn(shape, x, 11, 1.0, 0.75, 1.0), 1e-12);
}

TEST(LRN, Errors) {
  OneNode no_size("LRN", 13);
  no_size.input({1, 2, 2}, random_floats(4, 1));
  expect_error_contains(no_size.error(), "the attribute size is required");
  OneNode zero("LRN", 13);
  zero.input({1, 2, 2}, random_floats(4, 1)).attr("size", int64_t{0});
  expect_error_contains(zero.error(), "size must be positive");
  OneNode rank1("LRN", 13);
  rank1.input({4}, random_floats(4, 1)).attr("size", int64_t{3});
  expect_error_contains(rank1.error(), "rank >= 2");
}

}  // namespace
}  // namespace aotc::test
