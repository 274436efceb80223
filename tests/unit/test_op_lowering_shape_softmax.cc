// Tests of the lowerings in lowering/ops/onnx/{normalization,shape_ops,softmax,pad}.cc.
//
// Each test builds a one-node graph, runs the operator's shape function and lowering,
// evaluates the kernel with the IR interpreter (which checks every buffer index), as
// lowered and after Simplify, and compares with values computed here by plain loops
// written from the ONNX definitions, not from the lowerings. Shape-only operators
// (Flatten, Reshape) and the error cases check the shape functions directly.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

void expect_near_all(const std::vector<float>& got, const std::vector<float>& expected, float rtol = 1e-5f) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-6f + rtol * std::fabs(expected[i])) << "element " << i;
}

void expect_error_contains(OneNode& node, const std::string& text) {
  std::string message = node.error();
  EXPECT_NE(message.find(text), std::string::npos) << "error was: '" << message << "'";
}

// ---------------------------------------------------------------- Softmax

// Softmax where the elements whose indices agree outside `normalized` form one group.
std::vector<float> reference_softmax(const Shape& shape, const std::vector<float>& x, const std::vector<bool>& normalized) {
  std::vector<float> y(x.size());
  for_each_index(shape, [&](const Index& i, size_t) {
    double largest = -INFINITY, sum = 0;
    for_each_in_group(shape, normalized, i, [&](size_t j) { largest = std::max<double>(largest, x[j]); });
    for_each_in_group(shape, normalized, i, [&](size_t j) { sum += std::exp(x[j] - largest); });
    y[flat_index(shape, i)] = static_cast<float>(std::exp(x[flat_index(shape, i)] - largest) / sum);
  });
  return y;
}

std::vector<float> run_softmax(int64_t opset, const Shape& shape, const std::vector<float>& x, const int64_t* axis) {
  OneNode graph("Softmax", opset);
  graph.input(shape, x);
  if (axis) graph.attr("axis", *axis);
  return graph.run();
}

TEST(SoftmaxLowering, Opset13NormalizesAlongOneAxis) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 7, 5.0f);
  for (int64_t axis : {0, 1, 2, -1, -3}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    std::vector<bool> normalized(3, false);
    normalized[static_cast<size_t>((axis + 3) % 3)] = true;
    expect_near_all(run_softmax(13, shape, x, &axis), reference_softmax(shape, x, normalized));
  }
  expect_near_all(run_softmax(13, shape, x, nullptr), reference_softmax(shape, x, {false, false, true}));
}

TEST(SoftmaxLowering, BeforeOpset13NormalizesTheFlattenedTrailingBlock) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 7, 5.0f);
  for (int64_t axis : {0, 1, 2, -2}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    std::vector<bool> normalized(3, false);
    for (int64_t d = (axis + 3) % 3; d < 3; ++d) normalized[static_cast<size_t>(d)] = true;
    expect_near_all(run_softmax(11, shape, x, &axis), reference_softmax(shape, x, normalized));
  }
  // The default axis is 1 here, not -1.
  expect_near_all(run_softmax(11, shape, x, nullptr), reference_softmax(shape, x, {false, true, true}));
}

TEST(SoftmaxLowering, LargeInputsDoNotOverflow) {
  Shape shape = {2, 3};
  std::vector<float> x = {10000.0f, 10001.0f, 10002.0f, -5000.0f, 88.0f, 89.0f};
  std::vector<float> y = run_softmax(13, shape, x, nullptr);
  for (float v : y) EXPECT_TRUE(std::isfinite(v));
  expect_near_all(y, reference_softmax(shape, x, {false, true}));
}

TEST(SoftmaxLowering, RejectsBadAxis) {
  OneNode graph("Softmax");
  graph.input({2, 3}, random_floats(6, 7));
  graph.attr("axis", int64_t{2});
  expect_error_contains(graph, "axis 2 is out of range");
}

// ---------------------------------------------------------------- BatchNormalization

TEST(BatchNormLowering, MatchesTheDefinitionPerChannel) {
  for (Shape shape : {Shape{2, 3}, Shape{2, 3, 5}, Shape{1, 3, 2, 4}}) {
    SCOPED_TRACE(shape_str(shape));
    std::vector<float> x = random_floats(element_count(shape), 1, 3.0f);
    std::vector<float> scale = random_floats(3, 2, 2.0f), bias = random_floats(3, 3);
    std::vector<float> mean = random_floats(3, 4), var = {0.5f, 1.5f, 0.01f};
    const float epsilon = 1e-3f;
    OneNode graph("BatchNormalization", 15);
    graph.input(shape, x);
    graph.constant({3}, scale);
    graph.input({3}, bias);  // statistics may be run-time inputs, too
    graph.constant({3}, mean);
    graph.input({3}, var);
    graph.attr("epsilon", double{epsilon});

    std::vector<float> expected(x.size());
    for_each_index(shape, [&](const Index& i, size_t) {
      size_t c = static_cast<size_t>(i[1]);
      int64_t at = flat_index(shape, i);
      expected[at] = (x[at] - mean[c]) / std::sqrt(var[c] + epsilon) * scale[c] + bias[c];
    });
    expect_near_all(graph.run(), expected);
  }
}

OneNode batch_norm_graph() {
  OneNode graph("BatchNormalization", 15);
  graph.input({1, 2, 2}, random_floats(4, 7));
  for (int i = 0; i < 4; ++i) graph.constant({2}, {1.0f, 1.0f});
  return graph;
}

TEST(BatchNormLowering, RejectsTrainingMode) {
  OneNode training = batch_norm_graph();
  training.attr("training_mode", int64_t{1});
  expect_error_contains(training, "training_mode=1 is not supported");

  OneNode running_statistics = batch_norm_graph();
  running_statistics.infer();
  running_statistics.extra_output(false);
  expect_error_contains(running_statistics, "only produced in training mode");
}

TEST(BatchNormLowering, RejectsStatisticsOfTheWrongShape) {
  OneNode graph("BatchNormalization", 15);
  graph.input({1, 2, 2}, random_floats(4, 7));
  for (int i = 0; i < 4; ++i) graph.constant({3}, {1.0f, 1.0f, 1.0f});
  expect_error_contains(graph, "must have shape [2]");
}

// ---------------------------------------------------------------- Transpose, Concat

TEST(TransposeLowering, PermutesIndices) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 7);
  for (std::vector<int64_t> perm : {std::vector<int64_t>{2, 0, 1}, std::vector<int64_t>{1, 2, 0}, std::vector<int64_t>{}}) {
    SCOPED_TRACE(shape_str(perm));
    OneNode graph("Transpose");
    graph.input(shape, x);
    std::vector<int64_t> effective = perm.empty() ? std::vector<int64_t>{2, 1, 0} : perm;
    if (!perm.empty()) graph.attr("perm", perm);
    Shape out_shape = {shape[effective[0]], shape[effective[1]], shape[effective[2]]};
    EXPECT_EQ(graph.infer(), out_shape);
    std::vector<float> expected(x.size());
    for_each_index(out_shape, [&](const Index& o, size_t) {
      Index in(3);
      for (size_t d = 0; d < 3; ++d) in[static_cast<size_t>(effective[d])] = o[d];
      expected[flat_index(out_shape, o)] = x[flat_index(shape, in)];
    });
    expect_near_all(graph.run(), expected, 0.0f);
  }
}

TEST(TransposeLowering, RejectsNonPermutation) {
  OneNode graph("Transpose");
  graph.input({2, 3}, random_floats(6, 7));
  graph.attr("perm", std::vector<int64_t>{0, 0});
  expect_error_contains(graph, "is not a permutation");
}

TEST(ConcatLowering, JoinsAlongANegativeAxis) {
  std::vector<Shape> shapes = {{2, 1, 3}, {2, 4, 3}, {2, 2, 3}};
  OneNode graph("Concat");
  std::vector<std::vector<float>> parts;
  for (size_t k = 0; k < shapes.size(); ++k) {
    parts.push_back(random_floats(element_count(shapes[k]), static_cast<uint32_t>(10 + k)));
    if (k == 1) graph.constant(shapes[k], parts[k]);  // constants and inputs mix
    else graph.input(shapes[k], parts[k]);
  }
  graph.attr("axis", int64_t{-2});
  Shape out_shape = {2, 7, 3};
  EXPECT_EQ(graph.infer(), out_shape);
  std::vector<float> expected(static_cast<size_t>(element_count(out_shape)));
  int64_t offset = 0;
  for (size_t k = 0; k < shapes.size(); ++k) {
    for_each_index(shapes[k], [&](const Index& i, size_t) {
      expected[flat_index(out_shape, {i[0], i[1] + offset, i[2]})] = parts[k][flat_index(shapes[k], i)];
    });
    offset += shapes[k][1];
  }
  expect_near_all(graph.run(), expected, 0.0f);
}

TEST(ConcatLowering, RejectsMismatchedShapes) {
  OneNode graph("Concat");
  graph.input({2, 3}, random_floats(6, 7));
  graph.input({3, 3}, random_floats(9, 7));
  graph.attr("axis", int64_t{1});
  expect_error_contains(graph, "differ outside axis 1");
}

// ---------------------------------------------------------------- Flatten, Reshape (views)

TEST(ViewShapes, FlattenAndReshapeAreViews) {
  EXPECT_TRUE(find_op("Flatten")->is_view);
  EXPECT_TRUE(find_op("Reshape")->is_view);
}

Shape flatten_shape(int64_t axis) {
  OneNode graph("Flatten");
  graph.input({2, 3, 4, 5}, random_floats(120, 7));
  graph.attr("axis", axis);
  return graph.infer();
}

TEST(ViewShapes, Flatten) {
  EXPECT_EQ(flatten_shape(0), (Shape{1, 120}));
  EXPECT_EQ(flatten_shape(1), (Shape{2, 60}));
  EXPECT_EQ(flatten_shape(4), (Shape{120, 1}));
  EXPECT_EQ(flatten_shape(-1), (Shape{24, 5}));
  EXPECT_EQ(flatten_shape(-4), (Shape{1, 120}));
}

OneNode reshape_graph(const std::vector<int64_t>& shape, bool allow_zero = false) {
  OneNode graph("Reshape", 14);
  graph.input({2, 3, 4}, random_floats(24, 7));
  graph.constant<int64_t>(shape);
  if (allow_zero) graph.attr("allowzero", int64_t{1});
  return graph;
}

TEST(ViewShapes, ReshapeResolvesZeroAndMinusOne) {
  EXPECT_EQ(reshape_graph({4, 6}).infer(), (Shape{4, 6}));
  EXPECT_EQ(reshape_graph({0, -1}).infer(), (Shape{2, 12}));
  EXPECT_EQ(reshape_graph({-1, 0, 2}).infer(), (Shape{4, 3, 2}));
  EXPECT_EQ(reshape_graph({0, 0, 4, 1}).infer(), (Shape{2, 3, 4, 1}));
}

TEST(ViewShapes, ReshapeErrors) {
  OneNode runtime_shape("Reshape", 14);
  runtime_shape.input({2, 3}, random_floats(6, 7));
  runtime_shape.input({2}, {3, 2});
  expect_error_contains(runtime_shape, "Reshape needs a constant shape (static shapes only)");

  OneNode wrong_count = reshape_graph({5, 5});
  expect_error_contains(wrong_count, "cannot reshape [2, 3, 4] (24 elements) to [5, 5]");
  OneNode two_inferred = reshape_graph({-1, -1});
  expect_error_contains(two_inferred, "more than one -1");
  OneNode zero_and_inferred = reshape_graph({0, -1}, true);
  expect_error_contains(zero_and_inferred, "cannot contain both 0 and -1");
}

// ---------------------------------------------------------------- Pad

// numpy.pad on what is left after cropping negative pads, one output element at a time.
// Reflection is done by repeated mirroring, the way numpy describes it.
int64_t reference_source(const std::string& mode, int64_t j, int64_t n) {
  if (mode == "edge") return std::min(std::max<int64_t>(j, 0), n - 1);
  if (mode == "wrap") return ((j % n) + n) % n;
  if (n == 1) return 0;
  while (j < 0 || j >= n) j = j < 0 ? -j : 2 * (n - 1) - j;
  return j;
}

std::vector<float> reference_pad(const Shape& shape, const std::vector<float>& x, const std::vector<int64_t>& pads,
                                 const std::string& mode, float value, Shape* out_shape) {
  size_t rank = shape.size();
  Shape kept(rank), crop(rank), before(rank);
  out_shape->assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    crop[d] = std::max<int64_t>(-pads[d], 0);
    kept[d] = shape[d] - crop[d] - std::max<int64_t>(-pads[d + rank], 0);
    before[d] = std::max<int64_t>(pads[d], 0);
    (*out_shape)[d] = before[d] + kept[d] + std::max<int64_t>(pads[d + rank], 0);
  }
  std::vector<float> y(static_cast<size_t>(element_count(*out_shape)));
  for_each_index(*out_shape, [&](const Index& o, size_t) {
    Index in(rank);
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t j = o[d] - before[d];
      inside &= j >= 0 && j < kept[d];
      in[d] = (mode == "constant" ? j : reference_source(mode, j, kept[d])) + crop[d];
    }
    y[flat_index(*out_shape, o)] = mode == "constant" && !inside ? value : x[flat_index(shape, in)];
  });
  return y;
}

struct PadCase {
  std::string mode;
  std::vector<int64_t> pads;
};

TEST(PadLowering, AllModesWithSmallLargeAndNegativePads) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 7);
  std::vector<PadCase> cases;
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    cases.push_back({mode, {0, 1, 2, 1, 0, 3}});
    cases.push_back({mode, {1, 7, 9, 0, 5, 10}});
    cases.push_back({mode, {0, -1, 2, -1, 1, -2}});
  }
  for (const PadCase& c : cases) {
    SCOPED_TRACE(c.mode + " " + shape_str(c.pads));
    OneNode graph("Pad", 13);
    graph.input(shape, x);
    graph.constant<int64_t>(c.pads);
    graph.constant({}, {2.5f});
    graph.attr("mode", c.mode);
    Shape out_shape;
    std::vector<float> expected = reference_pad(shape, x, c.pads, c.mode, 2.5f, &out_shape);
    EXPECT_EQ(graph.infer(), out_shape);
    expect_near_all(graph.run(), expected, 0.0f);
  }
}

TEST(PadLowering, RunTimeConstantValue) {
  Shape shape = {2, 2};
  std::vector<float> x = {1, 2, 3, 4};
  OneNode graph("Pad", 11);
  graph.input(shape, x);
  graph.constant<int64_t>({1, 0, 0, 1});
  graph.input({}, {-7.0f});
  Shape out_shape;
  expect_near_all(graph.run(), reference_pad(shape, x, {1, 0, 0, 1}, "constant", -7.0f, &out_shape), 0.0f);
}

TEST(PadLowering, AttributesBeforeOpset11) {
  Shape shape = {3, 4};
  std::vector<float> x = random_floats(12, 7);
  OneNode graph("Pad", 2);
  graph.input(shape, x);
  graph.attr("pads", std::vector<int64_t>{2, 0, 0, 3});
  graph.attr("mode", std::string("reflect"));
  Shape out_shape;
  expect_near_all(graph.run(), reference_pad(shape, x, {2, 0, 0, 3}, "reflect", 0.0f, &out_shape), 0.0f);
}

TEST(PadLowering, AxesInputSpreadsPads) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 7);
  OneNode graph("Pad", 18);
  graph.input(shape, x);
  graph.constant<int64_t>({2, 1, 0, 3});  // axis -1: begin 2, end 0; axis 1: begin 1, end 3
  graph.absent_input();
  graph.constant<int64_t>({-1, 1});
  graph.attr("mode", std::string("edge"));
  Shape out_shape;
  std::vector<float> expected = reference_pad(shape, x, {0, 1, 2, 0, 3, 0}, "edge", 0.0f, &out_shape);
  EXPECT_EQ(graph.infer(), (Shape{2, 7, 6}));
  expect_near_all(graph.run(), expected, 0.0f);
}

TEST(PadLowering, Errors) {
  OneNode runtime_pads("Pad", 13);
  runtime_pads.input({2, 2}, {1, 2, 3, 4});
  runtime_pads.input({4}, {0, 0, 0, 0});
  expect_error_contains(runtime_pads, "Pad needs constant pads (static shapes only)");

  OneNode bad_mode("Pad", 13);
  bad_mode.input({2, 2}, {1, 2, 3, 4});
  bad_mode.constant<int64_t>({0, 0, 0, 0});
  bad_mode.attr("mode", std::string("symmetric"));
  expect_error_contains(bad_mode, "mode 'symmetric' is not supported");

  OneNode over_crop("Pad", 13);
  over_crop.input({2, 2}, {1, 2, 3, 4});
  over_crop.constant<int64_t>({0, -2, 0, -1});
  expect_error_contains(over_crop, "remove more than the 2 elements of axis 1");

  OneNode wrong_length("Pad", 13);
  wrong_length.input({2, 2}, {1, 2, 3, 4});
  wrong_length.constant<int64_t>({1, 1});
  expect_error_contains(wrong_length, "pads has 2 entries; expected 4");
}

}  // namespace
}  // namespace aotc::test
