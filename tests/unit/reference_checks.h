// Comparisons and index arithmetic shared by the operator tests that check a kernel
// against a reference written in the test (test_elementwise_ops.cc, test_gather_scatter.cc,
// test_reduce_ops.cc, ...): row-major flat indices and the groups of a softmax or a
// normalization, element-by-element comparisons with a tolerance that allows for float
// rounding, bit-exact ones for integers and NaN, and the error message of a node that must
// be rejected.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"

namespace aotc::test {

// The row-major position of `index` in a tensor of `shape`.
inline int64_t flat_index(const Shape& shape, const Index& index) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

// Calls f(flat index) for each element of the group of element i, in row-major order: the
// elements whose indices agree with i on every axis `grouped` does not mark (a softmax's or
// a normalization's group).
template <typename F>
void for_each_in_group(const Shape& shape, const std::vector<bool>& grouped, const Index& i, F f) {
  for_each_index(shape, [&](const Index& j, size_t flat) {
    for (size_t d = 0; d < shape.size(); ++d)
      if (!grouped[d] && i[d] != j[d]) return;
    f(flat);
  });
}

// Equal within abs_tol + rel_tol * |expected|; NaN where NaN is expected, infinities equal.
template <typename T>
void expect_close(const std::vector<T>& got, const std::vector<T>& expected, double rel_tol = 1e-5,
                  double abs_tol = 1e-6) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double g = static_cast<double>(got[i]), e = static_cast<double>(expected[i]);
    if (std::isnan(e)) {
      EXPECT_TRUE(std::isnan(g)) << "element " << i << ": got " << g << ", expected NaN";
    } else if (std::isinf(e)) {
      EXPECT_EQ(g, e) << "element " << i;
    } else {
      EXPECT_NEAR(g, e, abs_tol + rel_tol * std::fabs(e)) << "element " << i;
    }
  }
}

// Within 1e-6 + rel_tol * |expected| of a reference computed in double precision.
template <typename T>
void expect_near_all(const std::vector<T>& got, const std::vector<double>& expected, double rel_tol = 1e-5) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(static_cast<double>(got[i]), expected[i], 1e-6 + rel_tol * std::fabs(expected[i])) << "element " << i;
}

// Equal element by element (integers, booleans, exactly computed floats).
template <typename T>
void expect_equal(const std::vector<T>& got, const std::vector<T>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expected[i]) << "element " << i;
}

// The node is rejected with a CompileError that names it and contains `text`.
inline void expect_error(OneNode& node, const std::string& text) {
  std::string message = node.error();
  EXPECT_NE(message.find(text), std::string::npos) << "error was: '" << message << "'";
  EXPECT_NE(message.find("under_test"), std::string::npos) << "the error does not name the node: '" << message << "'";
}

// The node of `op` that `build` sets up is rejected with a CompileError that names the
// node with its operator ("under_test (GridSample)") and contains `text`.
inline void expect_node_error(const std::string& op, int64_t opset, const std::function<void(OneNode&)>& build,
                              const std::string& text) {
  OneNode node(op, opset);
  build(node);
  std::string message = node.error();
  EXPECT_NE(message.find("under_test (" + op + ")"), std::string::npos) << message;
  EXPECT_NE(message.find(text), std::string::npos) << message;
}

}  // namespace aotc::test
