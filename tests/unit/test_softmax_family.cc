// Tests of LogSoftmax and Hardmax (lowering/ops/onnx/softmax.cc), and of Softmax in float64
// (its float32 tests are in test_op_lowering_shape_softmax.cc).
//
// Each kernel runs in the IR interpreter (as lowered and after Simplify) and is compared
// with references computed here by plain loops from the ONNX definitions: the group of an
// element is every element whose index agrees with it outside the normalized axes (one
// axis from opset 13, the trailing block from `axis` before).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

// is_normalized for `axis` at `opset` over a rank-`rank` input (axis already >= 0).
std::vector<bool> group_axes(int64_t opset, size_t rank, size_t axis) {
  std::vector<bool> normalized(rank, false);
  for (size_t d = axis; d < (opset >= 13 ? axis + 1 : rank); ++d) normalized[d] = true;
  return normalized;
}

template <typename T>
std::vector<double> reference_log_softmax(const Shape& shape, const std::vector<T>& x, const std::vector<bool>& normalized) {
  std::vector<double> y(x.size());
  for_each_index(shape, [&](const Index& i, size_t flat) {
    double largest = -INFINITY, sum = 0;
    for_each_in_group(shape, normalized, i, [&](size_t j) { largest = std::max<double>(largest, x[j]); });
    for_each_in_group(shape, normalized, i, [&](size_t j) { sum += std::exp(x[j] - largest); });
    y[flat] = (x[flat] - largest) - std::log(sum);
  });
  return y;
}

// 1 at the first largest element of each group (a NaN counts as the largest), else 0.
std::vector<float> reference_hardmax(const Shape& shape, const std::vector<float>& x, const std::vector<bool>& normalized) {
  std::vector<float> y(x.size());
  for_each_index(shape, [&](const Index& i, size_t flat) {
    size_t best = SIZE_MAX;
    for_each_in_group(shape, normalized, i, [&](size_t j) {
      if (best == SIZE_MAX) best = j;
      else if (!std::isnan(x[best]) && (std::isnan(x[j]) || x[j] > x[best])) best = j;
    });
    y[flat] = best == flat ? 1.0f : 0.0f;
  });
  return y;
}

void expect_error_contains(const std::string& message, const std::string& text) {
  EXPECT_NE(message.find(text), std::string::npos) << "error was: '" << message << "'";
}

// ---------------------------------------------------------------- LogSoftmax

TEST(LogSoftmax, EveryAxisInBothOpsetConventions) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 31, 5.0f);
  for (int64_t opset : {11, 13}) {
    for (int64_t axis : {0, 1, 2, -1, -2}) {
      SCOPED_TRACE("opset " + std::to_string(opset) + " axis " + std::to_string(axis));
      OneNode node("LogSoftmax", opset);
      node.input(shape, x).attr("axis", axis);
      size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      expect_near_all(node.run(), reference_log_softmax(shape, x, group_axes(opset, 3, a)));
    }
  }
  // The default axis: -1 from opset 13, 1 before.
  OneNode opset13("LogSoftmax", 13);
  opset13.input(shape, x);
  expect_near_all(opset13.run(), reference_log_softmax(shape, x, {false, false, true}));
  OneNode opset11("LogSoftmax", 11);
  opset11.input(shape, x);
  expect_near_all(opset11.run(), reference_log_softmax(shape, x, {false, true, true}));
}

TEST(LogSoftmax, LargeInputsStayFinite) {
  Shape shape = {2, 3};
  std::vector<float> x = {10000.0f, 10001.0f, 10002.0f, -5000.0f, 88.0f, 89.0f};
  OneNode node("LogSoftmax", 13);
  node.input(shape, x);
  std::vector<float> y = node.run();
  for (float v : y) EXPECT_TRUE(std::isfinite(v));
  expect_near_all(y, reference_log_softmax(shape, x, {false, true}));
}

TEST(LogSoftmax, Float64) {
  Shape shape = {3, 5};
  std::vector<float> values = random_floats(15, 32, 10.0f);
  std::vector<double> x(values.begin(), values.end());
  OneNode node("LogSoftmax", 13);
  node.input(shape, x).attr("axis", int64_t{0});
  expect_near_all(node.run<double>(), reference_log_softmax(shape, x, {true, false}), 1e-12);
}

// ---------------------------------------------------------------- Hardmax

TEST(Hardmax, OneHotAtTheFirstLargestElement) {
  Shape shape = {2, 3, 4};
  // Few distinct values, so that groups have ties.
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 5);
  for (int64_t opset : {11, 13}) {
    for (int64_t axis : {0, 1, 2, -1}) {
      SCOPED_TRACE("opset " + std::to_string(opset) + " axis " + std::to_string(axis));
      OneNode node("Hardmax", opset);
      node.input(shape, x).attr("axis", axis);
      size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
      EXPECT_EQ(node.run(), reference_hardmax(shape, x, group_axes(opset, 3, a)));
    }
  }
}

TEST(Hardmax, TiesAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OneNode node("Hardmax", 13);
  node.input({4, 3}, {2.0f, 5.0f, 5.0f,  // the first of equal largest values
                      -1.0f, nan, 7.0f,  // a NaN wins
                      nan, 1.0f, nan,    // the first NaN wins
                      -3.0f, -3.0f, -3.0f});
  EXPECT_EQ(node.run(), (std::vector<float>{0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0}));
}

TEST(Hardmax, Float64) {
  OneNode node("Hardmax", 13);
  node.input<double>({2, 2}, {1.0, 2.0, 4.0, 3.0});
  EXPECT_EQ(node.run<double>(), (std::vector<double>{0, 1, 1, 0}));
}

// ---------------------------------------------------------------- Softmax in float64, errors

TEST(SoftmaxFamily, SoftmaxFloat64) {
  Shape shape = {2, 5};
  std::vector<float> values = random_floats(10, 33, 20.0f);
  std::vector<double> x(values.begin(), values.end());
  OneNode node("Softmax", 13);
  node.input(shape, x);
  std::vector<double> expected = reference_log_softmax(shape, x, {false, true});
  for (double& v : expected) v = std::exp(v);
  expect_near_all(node.run<double>(), expected, 1e-12);
}

TEST(SoftmaxFamily, Errors) {
  for (std::string op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    SCOPED_TRACE(op);
    OneNode bad_axis(op, 13);
    bad_axis.input({2, 3}, random_floats(6, 1)).attr("axis", int64_t{-3});
    expect_error_contains(bad_axis.error(), "axis -3 is out of range");
    OneNode integers(op, 13);
    integers.input<int32_t>({2}, {1, 2});
    expect_error_contains(integers.error(), "int32; only float32 and float64 are supported");
    OneNode scalar(op, 13);
    scalar.input({}, {1.0f});
    expect_error_contains(scalar.error(), "needs an input of rank >= 1");
  }
}

}  // namespace
}  // namespace aotc::test
