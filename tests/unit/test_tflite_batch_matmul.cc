// TFLite BATCH_MATMUL and L2_NORMALIZATION (lowering/ops/tflite/tflite_batch_matmul.cc,
// tflite_reduce.cc), in the IR interpreter, against TFLite's reference_ops written out
// here: products summed over k in order (float) or as (a - zero point) * (b - zero point)
// in int32 then requantized (int8), with adj_x / adj_y and broadcast batch dimensions; each
// row divided by max(sqrt(sum of squares), 1e-6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "lowering/ir/quantization.h"
#include "runtime-c/aotc_quant.h"
#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

struct MatMulCase {
  Shape lhs, rhs, out;
  bool adj_x, adj_y;
};

// Element (m, k) of an operand [..., R, C] read as a matrix, transposed when adjoint.
template <typename T>
T matrix_at(const std::vector<T>& v, const Shape& shape, int64_t batch, int64_t r, int64_t c, bool adjoint) {
  int64_t rows = shape[shape.size() - 2], cols = shape[shape.size() - 1];
  int64_t batches = element_count(shape) / (rows * cols);
  int64_t b = batches == 1 ? 0 : batch;
  return adjoint ? v[static_cast<size_t>((b * rows + c) * cols + r)] : v[static_cast<size_t>((b * rows + r) * cols + c)];
}

class TfliteBatchMatMul : public ::testing::TestWithParam<MatMulCase> {};

TEST_P(TfliteBatchMatMul, FloatAndInt8) {
  const MatMulCase& c = GetParam();
  int64_t m = c.out[c.out.size() - 2], n = c.out.back(), batches = element_count(c.out) / (m * n);
  int64_t k = c.adj_x ? c.lhs[c.lhs.size() - 2] : c.lhs.back();
  std::vector<float> a = random_floats(static_cast<size_t>(element_count(c.lhs)), 1);
  std::vector<float> b = random_floats(static_cast<size_t>(element_count(c.rhs)), 2);
  OneNode f("tfl.BATCH_MATMUL");
  f.input(c.lhs, a).input(c.rhs, b).attr("adj_x", int64_t{c.adj_x}).attr("adj_y", int64_t{c.adj_y});
  f.output(DataType::Float32(), c.out);
  std::vector<float> got = f.run<float>();

  Quant qa{0.02f, -3}, qb{0.01f, 5}, qy{0.05f, 2};
  std::vector<int8_t> aq = random_ints<int8_t>(a.size(), -128, 127, 3), bq = random_ints<int8_t>(b.size(), -128, 127, 4);
  OneNode q("tfl.BATCH_MATMUL");
  q.input(c.lhs, aq, qa).input(c.rhs, bq, qb).attr("adj_x", int64_t{c.adj_x}).attr("adj_y", int64_t{c.adj_y});
  q.output(DataType::Int(8), c.out, qy);
  std::vector<int8_t> got_q = q.run<int8_t>();
  QuantizedMultiplier mult = quantize_multiplier(static_cast<double>(qa.scale) * static_cast<double>(qb.scale) /
                                                 static_cast<double>(qy.scale));
  for (int64_t bt = 0; bt < batches; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float total = 0;
        int32_t acc = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          total += matrix_at(a, c.lhs, bt, i, kk, c.adj_x) * matrix_at(b, c.rhs, bt, kk, j, c.adj_y);
          acc += (matrix_at(aq, c.lhs, bt, i, kk, c.adj_x) + 3) * (matrix_at(bq, c.rhs, bt, kk, j, c.adj_y) - 5);
        }
        size_t flat = static_cast<size_t>((bt * m + i) * n + j);
        EXPECT_EQ(got[flat], total) << flat;
        int32_t v = aotc_mul_by_quantized_multiplier(acc, mult.multiplier, mult.shift) + 2;
        EXPECT_EQ(got_q[flat], std::min(127, std::max(-128, v))) << flat;
      }
}

INSTANTIATE_TEST_SUITE_P(Cases, TfliteBatchMatMul,
                         ::testing::Values(MatMulCase{{2, 3, 4}, {2, 4, 5}, {2, 3, 5}, false, false},
                                           MatMulCase{{2, 4, 3}, {2, 4, 5}, {2, 3, 5}, true, false},
                                           MatMulCase{{3, 4}, {2, 5, 4}, {2, 3, 5}, false, true},
                                           MatMulCase{{2, 4, 3}, {5, 4}, {2, 3, 5}, true, true}),
                         [](const auto& info) {
                           const MatMulCase& c = info.param;
                           return "rank" + std::to_string(c.lhs.size()) + "x" + std::to_string(c.rhs.size()) +
                                  (c.adj_x ? "_adj_x" : "") + (c.adj_y ? "_adj_y" : "");
                         });

// int16 (zero points 0): sums in int64, TFLite's 64-bit MultiplyByQuantizedMultiplier.
TEST(TfliteBatchMatMul, Int16SumsInInt64) {
  Quant qa{0.001f, 0}, qb{0.002f, 0}, qy{0.004f, 0};
  std::vector<int16_t> a = random_ints<int16_t>(2 * 3 * 4, -32768, 32767, 8), b = random_ints<int16_t>(4 * 2, -32768, 32767, 9);
  OneNode n("tfl.BATCH_MATMUL");
  n.input({2, 3, 4}, a, qa).input({4, 2}, b, qb).output(DataType::Int(16), {2, 3, 2}, qy);
  std::vector<int16_t> got = n.run<int16_t>();
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qa.scale) * static_cast<double>(qb.scale) /
                                              static_cast<double>(qy.scale));
  int64_t reduced = m.multiplier < 0x7FFF0000 ? (m.multiplier + (1 << 15)) >> 16 : 0x7FFF, total_shift = 15 - m.shift;
  for (int bt = 0; bt < 2; ++bt)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) {
        int64_t acc = 0;
        for (int k = 0; k < 4; ++k) acc += int64_t{a[static_cast<size_t>((bt * 3 + i) * 4 + k)]} * b[static_cast<size_t>(k * 2 + j)];
        int64_t v = (acc * reduced + (int64_t{1} << (total_shift - 1))) >> total_shift;
        EXPECT_EQ(got[static_cast<size_t>((bt * 3 + i) * 2 + j)], std::min<int64_t>(32767, std::max<int64_t>(-32768, v)));
      }
}

TEST(TfliteBatchMatMulErrors, DepthsMustAgree) {
  OneNode n("tfl.BATCH_MATMUL");
  n.input({2, 3}, random_floats(6, 1)).input({4, 2}, random_floats(8, 2)).output(DataType::Float32(), {2, 2});
  EXPECT_FALSE(n.error().empty());
}

TEST(TfliteL2Normalization, RowsDividedByTheirNorm) {
  std::vector<float> x = random_floats(12, 5);
  for (int i = 8; i < 12; ++i) x[static_cast<size_t>(i)] = 1e-9f;  // a row below epsilon
  OneNode n("tfl.L2_NORMALIZATION");
  n.input({3, 4}, x).output(DataType::Float32(), {3, 4});
  std::vector<float> got = n.run<float>();
  for (int r = 0; r < 3; ++r) {
    float squares = 0;
    for (int c = 0; c < 4; ++c) squares += x[r * 4 + c] * x[r * 4 + c];
    float norm = std::max(std::sqrt(squares), 1e-6f);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(got[r * 4 + c], x[r * 4 + c] / norm) << r << " " << c;
  }
}

TEST(TfliteL2Normalization, RejectsInt16ItHasNoKernelFor) {
  OneNode n("tfl.L2_NORMALIZATION");
  n.input({4}, std::vector<int16_t>{1, 2, 3, 4}, {0.1f, 0}).output(DataType::Int(16), {4}, {1.0f / 32768, 0});
  EXPECT_NE(n.error().find("supported: float32 and int8"), std::string::npos) << n.error();
}

}  // namespace
}  // namespace aotc::test
