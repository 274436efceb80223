// Tests of Det (lowering/ops/onnx/linear_algebra.cc).
//
// The kernel (LU decomposition with partial pivoting) runs in the IR interpreter
// (tests/unit/one_node.h); the reference is the determinant's definition, the Laplace
// (cofactor) expansion along the first row, in double precision: no pivoting, no
// elimination, nothing shared with the kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

double cofactor_det(const std::vector<double>& a, int64_t m) {
  if (m == 1) return a[0];
  double det = 0;
  for (int64_t col = 0; col < m; ++col) {
    std::vector<double> minor;
    for (int64_t i = 1; i < m; ++i)
      for (int64_t j = 0; j < m; ++j)
        if (j != col) minor.push_back(a[static_cast<size_t>(i * m + j)]);
    det += (col % 2 ? -1.0 : 1.0) * a[static_cast<size_t>(col)] * cofactor_det(minor, m - 1);
  }
  return det;
}

// The determinants of the matrices [..., m, m] in `values`.
std::vector<double> reference_dets(const std::vector<float>& values, int64_t m) {
  std::vector<double> dets;
  for (size_t start = 0; start < values.size(); start += static_cast<size_t>(m * m))
    dets.push_back(cofactor_det(std::vector<double>(values.begin() + start, values.begin() + start + m * m), m));
  return dets;
}

TEST(DetLowering, OneMatrixGivesAScalar) {
  std::vector<float> a = {2, -1, 0, 1, 3, 2, 0, 5, -4};
  OneNode node("Det", 11);
  node.input(Shape{3, 3}, a);
  EXPECT_EQ(node.infer(), Shape{});
  expect_near_all(node.run<float>(), {cofactor_det({2, -1, 0, 1, 3, 2, 0, 5, -4}, 3)}, 1e-6);
}

TEST(DetLowering, BatchesOfEverySizeUpToFive) {
  for (int64_t m = 1; m <= 5; ++m) {
    SCOPED_TRACE("M = " + std::to_string(m));
    Shape shape = {2, 3, m, m};
    std::vector<float> a = random_floats(static_cast<size_t>(element_count(shape)), static_cast<uint32_t>(30 + m), 2.0f);
    OneNode node("Det", 11);
    node.input(shape, a);
    EXPECT_EQ(node.infer(), (Shape{2, 3}));
    expect_near_all(node.run<float>(), reference_dets(a, m), 1e-4);
  }
}

TEST(DetLowering, ZeroPivotsNeedRowSwapsAndSingularMatricesGiveZero) {
  std::vector<float> a = {0, 1, 0, 0, 0, 1, 1, 0, 0,   // cyclic permutation, det 1
                          0, 0, 3, 0, 2, 0, 1, 0, 0,   // anti-diagonal, det -6
                          1, 2, 3, 2, 4, 6, 1, 1, 1,   // rows 1 and 2 dependent, det 0
                          0, 0, 0, 1, 2, 3, 4, 5, 6};  // a zero row, det 0
  OneNode node("Det", 11);
  node.input(Shape{4, 3, 3}, a);
  std::vector<float> got = node.run<float>();
  expect_near_all(got, {1, -6, 0, 0}, 1e-6);
  EXPECT_EQ(got[3], 0.0f);
}

TEST(DetLowering, Float64) {
  Shape shape = {3, 4, 4};
  std::vector<float> a = random_floats(static_cast<size_t>(element_count(shape)), 40, 3.0f);
  std::vector<double> a64(a.begin(), a.end());
  OneNode node("Det", 11);
  node.input<double>(shape, a64);
  expect_near_all(node.run<double>(), reference_dets(a, 4), 1e-12);
}

TEST(DetLowering, Errors) {
  OneNode not_square("Det", 11);
  not_square.input({2, 3});
  EXPECT_NE(not_square.error().find("under_test (Det): input 'in0' has shape [2, 3]; Det needs square matrices"),
            std::string::npos)
      << not_square.error();
  OneNode vector("Det", 11);
  vector.input({4});
  EXPECT_NE(vector.error().find("Det needs square matrices"), std::string::npos) << vector.error();
  OneNode integers("Det", 11);
  integers.input<int32_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_NE(integers.error().find("is int32; only float32 and float64 are supported"), std::string::npos) << integers.error();
}

}  // namespace
}  // namespace aotc::test
