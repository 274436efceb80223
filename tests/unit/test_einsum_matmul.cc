// Tests of the matrix products MatMul and Gemm (lowering/ops/onnx/matmul.cc) and of Einsum
// (einsum.cc).
//
// References are loops written here from the definitions: numpy's matmul (a 1-D operand is
// a row or column vector whose unit dimension is dropped, batch dimensions broadcast),
// Gemm's alpha * A' * B' + beta * C, and Einstein summation (the output's indices loop,
// the others are summed, a repeated index reads a diagonal). Integer products wrap to the
// type's width as numpy's do, and the generated C must compute them without signed
// overflow.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

// ---------------------------------------------------------------- MatMul

// numpy.matmul of a (shape a_shape) and b; *out_shape receives the result's shape.
template <typename T>
std::vector<T> matmul_reference(const Shape& a_shape, const std::vector<T>& a, const Shape& b_shape, const std::vector<T>& b,
                                Shape* out_shape) {
  Shape a2 = a_shape.size() == 1 ? Shape{1, a_shape[0]} : a_shape;
  Shape b2 = b_shape.size() == 1 ? Shape{b_shape[0], 1} : b_shape;
  int64_t m = a2[a2.size() - 2], k = a2.back(), n = b2.back();
  Shape a_batch(a2.begin(), a2.end() - 2), b_batch(b2.begin(), b2.end() - 2);
  size_t rank = std::max(a_batch.size(), b_batch.size());
  Shape batch(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t ad = d + a_batch.size() >= rank ? a_batch[d + a_batch.size() - rank] : 1;
    int64_t bd = d + b_batch.size() >= rank ? b_batch[d + b_batch.size() - rank] : 1;
    batch[d] = std::max(ad, bd);
  }
  Shape full = batch;
  full.push_back(m);
  full.push_back(n);
  std::vector<T> y;
  for_each_index(full, [&](const Index& o, size_t) {
    auto operand_index = [&](const Shape& operand_batch, int64_t row, int64_t col) {
      Index at;
      for (size_t d = 0; d < operand_batch.size(); ++d)
        at.push_back(operand_batch[d] == 1 ? 0 : o[rank - operand_batch.size() + d]);
      at.push_back(row);
      at.push_back(col);
      return at;
    };
    T sum = 0;
    for (int64_t j = 0; j < k; ++j) {
      T av = a[static_cast<size_t>(flat_index(a2, operand_index(a_batch, o[rank], j)))];
      T bv = b[static_cast<size_t>(flat_index(b2, operand_index(b_batch, j, o[rank + 1])))];
      sum = static_cast<T>(sum + static_cast<T>(av * bv));
    }
    y.push_back(sum);
  });
  *out_shape = batch;
  if (a_shape.size() != 1) out_shape->push_back(m);
  if (b_shape.size() != 1) out_shape->push_back(n);
  return y;
}

TEST(MatMulShapes, VectorAndBatchBroadcastShapes) {
  struct Case {
    Shape a, b;
  };
  const Case cases[] = {{{3, 4}, {4, 5}}, {{4}, {4, 2}}, {{2, 4}, {4}}, {{4}, {4}}, {{2, 1, 3, 4}, {5, 4, 2}}, {{3}, {2, 3, 2}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(shape_str(c.a) + " x " + shape_str(c.b));
    std::vector<float> a = random_floats(static_cast<size_t>(element_count(c.a)), 5);
    std::vector<float> b = random_floats(static_cast<size_t>(element_count(c.b)), 6);
    Shape want_shape;
    std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end());
    std::vector<double> want = matmul_reference<double>(c.a, ad, c.b, bd, &want_shape);
    OneNode node("MatMul");
    node.input(c.a, a).input(c.b, b);
    EXPECT_EQ(node.infer(), want_shape);
    expect_close(node.run(), std::vector<float>(want.begin(), want.end()), 1e-5, 1e-6);
  }
}

TEST(MatMulShapes, IntegerProductsWrapWithoutSignedOverflow) {
  // INT32_MIN * INT32_MIN = 2^62 four times: 2^64, which also overflows int64; modulo 2^32
  // the sum is 0. numpy's int32 matmul wraps the same way.
  const int32_t lo = std::numeric_limits<int32_t>::min();
  OneNode node("MatMul");
  node.input<int32_t>({1, 4}, {lo, lo, lo, lo}).input<int32_t>({4, 2}, {lo, 3, lo, 3, lo, 3, lo, -2});
  // Column 1: lo * 7 = -7 2^31, which is 2^31 modulo 2^32: lo again.
  expect_equal(node.run<int32_t>(), std::vector<int32_t>{0, lo});
  // The sum runs in uint64, where C defines the wrap-around.
  EXPECT_NE(node.printed_ir().find("uint64"), std::string::npos) << node.printed_ir();
  std::vector<int64_t> a = {std::numeric_limits<int64_t>::max(), 3, -7}, b = {2, std::numeric_limits<int64_t>::min(), 5};
  Shape shape;
  OneNode wide("MatMul");
  wide.input<int64_t>({3}, a).input<int64_t>({3}, b);
  std::vector<uint64_t> au(a.begin(), a.end()), bu(b.begin(), b.end());
  std::vector<uint64_t> want = matmul_reference<uint64_t>({3}, au, {3}, bu, &shape);
  expect_equal(wide.run<int64_t>(), std::vector<int64_t>{static_cast<int64_t>(want[0])});
  OneNode unsigned_product("MatMul");
  unsigned_product.input<uint32_t>({1, 2}, {4000000000u, 2}).input<uint32_t>({2, 1}, {3, 5});
  expect_equal(unsigned_product.run<uint32_t>(), std::vector<uint32_t>{static_cast<uint32_t>(12000000000ull + 10)});
}

TEST(MatMulShapes, RejectsMismatches) {
  OneNode inner("MatMul");
  inner.input({2, 3}).input({4, 2});
  expect_error(inner, "inner dimensions differ");
  OneNode batch("MatMul");
  batch.input({2, 2, 3}).input({3, 3, 2});
  expect_error(batch, "");
  OneNode types("MatMul");
  types.input<int8_t>({1, 1}, {1}).input<int8_t>({1, 1}, {1});
  expect_error(types, "supported: float32");
  OneNode scalar("MatMul");
  scalar.input({}).input({3});
  expect_error(scalar, "at least one dimension");
}

// ---------------------------------------------------------------- Gemm

TEST(GemmAttributes, TransposesAlphaBetaAndBiasShapes) {
  const int64_t m = 3, k = 4, n = 2;
  std::vector<float> a = random_floats(12, 7), b = random_floats(8, 8);
  for (int64_t trans_a : {0, 1}) {
    for (int64_t trans_b : {0, 1}) {
      for (const Shape& c_shape : {Shape{}, Shape{n}, Shape{m, 1}, Shape{m, n}, Shape{1}}) {
        SCOPED_TRACE("transA " + std::to_string(trans_a) + " transB " + std::to_string(trans_b) + " C " + shape_str(c_shape));
        std::vector<float> c = random_floats(static_cast<size_t>(element_count(c_shape)), 9);
        std::vector<float> want;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (int64_t p = 0; p < k; ++p)
              sum += static_cast<double>(a[static_cast<size_t>(trans_a ? p * m + i : i * k + p)]) *
                     b[static_cast<size_t>(trans_b ? j * k + p : p * n + j)];
            size_t c_at = c_shape.size() == 2 ? static_cast<size_t>((c_shape[0] == 1 ? 0 : i) * c_shape[1] + (c_shape[1] == 1 ? 0 : j))
                          : c_shape.size() == 1 && c_shape[0] == n ? static_cast<size_t>(j) : 0;
            want.push_back(static_cast<float>(0.5 * sum + 2.0 * c[c_at]));
          }
        }
        OneNode gemm("Gemm");
        gemm.input(trans_a ? Shape{k, m} : Shape{m, k}, a).input(trans_b ? Shape{n, k} : Shape{k, n}, b).input(c_shape, c);
        gemm.attr("transA", trans_a).attr("transB", trans_b).attr("alpha", 0.5).attr("beta", 2.0);
        EXPECT_EQ(gemm.infer(), (Shape{m, n}));
        expect_close(gemm.run(), want, 1e-5, 1e-6);
      }
    }
  }
}

TEST(GemmAttributes, WithoutCAndInFloat64) {
  OneNode gemm("Gemm");
  gemm.input<double>({2, 2}, {1, 2, 3, 4}).input<double>({2, 1}, {5, 6});
  expect_equal(gemm.run<double>(), std::vector<double>{17, 39});
  OneNode bad_c("Gemm");
  bad_c.input({2, 3}).input({3, 4}).input({3, 4});
  expect_error(bad_c, "does not broadcast to [2, 4]");
  OneNode flag("Gemm");
  flag.input({2, 3}).input({3, 4}).attr("transA", int64_t{2});
  expect_error(flag, "transA must be 0 or 1");
  OneNode rank("Gemm");
  rank.input({2, 3, 1}).input({3, 4});
  expect_error(rank, "must be matrices");
}

// ---------------------------------------------------------------- Einsum

// Einstein summation written directly: every assignment of the letters, the output
// element of the output letters' values += the product of the operands' elements.
// Ellipses are not used here (tested separately).
std::vector<double> einsum_reference(const std::vector<std::string>& terms, const std::string& output,
                                     const std::vector<Shape>& shapes, const std::vector<std::vector<double>>& operands,
                                     Shape* out_shape) {
  std::map<char, int64_t> extent;
  for (size_t t = 0; t < terms.size(); ++t)
    for (size_t d = 0; d < terms[t].size(); ++d) extent[terms[t][d]] = shapes[t][d];
  std::string letters;
  Shape loop;
  for (const auto& [c, e] : extent) letters += c, loop.push_back(e);
  out_shape->clear();
  for (char c : output) out_shape->push_back(extent[c]);
  std::vector<double> y(static_cast<size_t>(element_count(*out_shape)), 0.0);
  for_each_index(loop, [&](const Index& values, size_t) {
    auto value_of = [&](char c) { return values[letters.find(c)]; };
    double product = 1;
    for (size_t t = 0; t < terms.size(); ++t) {
      Index at;
      for (char c : terms[t]) at.push_back(value_of(c));
      product *= operands[t][static_cast<size_t>(flat_index(shapes[t], at))];
    }
    Index o;
    for (char c : output) o.push_back(value_of(c));
    y[static_cast<size_t>(flat_index(*out_shape, o))] += product;
  });
  return y;
}

TEST(Einsum, CommonEquations) {
  struct Case {
    std::string equation;
    std::vector<std::string> terms;
    std::string output;
    std::vector<Shape> shapes;
  };
  const Case cases[] = {
      {"ij,jk->ik", {"ij", "jk"}, "ik", {{2, 3}, {3, 4}}},
      {"bij,bjk->bik", {"bij", "bjk"}, "bik", {{2, 2, 3}, {2, 3, 2}}},
      {"ij->ji", {"ij"}, "ji", {{2, 3}}},
      {"ij->i", {"ij"}, "i", {{3, 4}}},
      {"i,i", {"i", "i"}, "", {{5}, {5}}},
      {"i,j->ij", {"i", "j"}, "ij", {{3}, {2}}},
      {"ii->i", {"ii"}, "i", {{3, 3}}},
      {"ii", {"ii"}, "", {{3, 3}}},
      {"ij,jk,kl->il", {"ij", "jk", "kl"}, "il", {{2, 3}, {3, 2}, {2, 2}}},
      {"ba,ab", {"ba", "ab"}, "", {{2, 3}, {3, 2}}},
      {"ij,kj", {"ij", "kj"}, "ik", {{2, 3}, {4, 3}}},  // implicit: letters once, alphabetically
      {" i j , j k -> i k ", {"ij", "jk"}, "ik", {{2, 2}, {2, 2}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    OneNode node("Einsum", 12);
    std::vector<std::vector<double>> operands;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      std::vector<float> v = random_floats(static_cast<size_t>(element_count(c.shapes[i])), static_cast<uint32_t>(20 + i));
      node.input(c.shapes[i], v);
      operands.emplace_back(v.begin(), v.end());
    }
    node.attr("equation", c.equation);
    Shape want_shape;
    std::vector<double> want = einsum_reference(c.terms, c.output, c.shapes, operands, &want_shape);
    EXPECT_EQ(node.infer(), want_shape);
    expect_close(node.run(), std::vector<float>(want.begin(), want.end()), 1e-5, 1e-6);
  }
}

TEST(Einsum, EllipsisBroadcastsLeadingDimensions) {
  // "...ij,...jk->...ik" with batch dimensions [2, 1] and [3]: broadcast [2, 3].
  Shape a_shape = {2, 1, 2, 3}, b_shape = {3, 3, 2};
  std::vector<float> a = random_floats(12, 31), b = random_floats(18, 32);
  std::vector<float> want;
  for_each_index({2, 3, 2, 2}, [&](const Index& o, size_t) {
    double sum = 0;
    for (int64_t j = 0; j < 3; ++j)
      sum += static_cast<double>(a[static_cast<size_t>(flat_index(a_shape, {o[0], 0, o[2], j}))]) *
             b[static_cast<size_t>(flat_index(b_shape, {o[1], j, o[3]}))];
    want.push_back(static_cast<float>(sum));
  });
  OneNode node("Einsum", 12);
  node.input(a_shape, a).input(b_shape, b).attr("equation", std::string("...ij,...jk->...ik"));
  EXPECT_EQ(node.infer(), (Shape{2, 3, 2, 2}));
  expect_close(node.run(), want, 1e-5, 1e-6);
  // A batched diagonal, and the implicit output that keeps the ellipsis first.
  std::vector<float> x = random_floats(18, 33);
  OneNode diagonal("Einsum", 12);
  diagonal.input({2, 3, 3}, x).attr("equation", std::string("...ii->...i"));
  std::vector<float> want_diagonal;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 3; ++i) want_diagonal.push_back(x[static_cast<size_t>(b * 9 + i * 4)]);
  expect_equal(diagonal.run(), want_diagonal);
  OneNode implicit("Einsum", 12);
  implicit.input({2, 3, 3}, x).attr("equation", std::string("...ij"));
  EXPECT_EQ(implicit.infer(), (Shape{2, 3, 3}));
  expect_equal(implicit.run(), x);
}

TEST(Einsum, ScalarOperand) {
  // A rank-0 operand (empty term) scales the other.
  OneNode node("Einsum", 12);
  node.input<float>({}, {2.5f}).input<float>({3}, {1, 2, 3}).attr("equation", std::string(",i->i"));
  EXPECT_EQ(node.infer(), (Shape{3}));
  expect_equal(node.run(), std::vector<float>{2.5f, 5, 7.5f});
}

TEST(Einsum, IntegerProductsWrap) {
  // int32: 65536 * 65536 = 2^32 wraps to 0; three factors of 2^21 overflow int64 on the way.
  OneNode node("Einsum", 12);
  node.input<int32_t>({2}, {65536, 3}).input<int32_t>({2}, {65536, 5}).attr("equation", std::string("i,i->"));
  expect_equal(node.run<int32_t>(), std::vector<int32_t>{15});
  EXPECT_NE(node.printed_ir().find("uint64"), std::string::npos) << node.printed_ir();
  const int64_t f = int64_t{1} << 21;
  OneNode cube("Einsum", 12);
  cube.input<int64_t>({1}, {f}).input<int64_t>({1}, {f}).input<int64_t>({1}, {f + 1}).attr("equation", std::string("i,i,i->i"));
  uint64_t want = static_cast<uint64_t>(f) * static_cast<uint64_t>(f) * static_cast<uint64_t>(f + 1);
  expect_equal(cube.run<int64_t>(), std::vector<int64_t>{static_cast<int64_t>(want)});
}

TEST(Einsum, RejectsWhatTheEquationCannotMean) {
  auto rejected = [](const std::string& equation, const std::vector<Shape>& shapes, const std::string& text) {
    SCOPED_TRACE(equation);
    OneNode node("Einsum", 12);
    for (const Shape& s : shapes) node.input(s);
    node.attr("equation", equation);
    expect_error(node, text);
  };
  rejected("ij,jk->ik", {{2, 3}, {4, 2}}, "index 'j' has extent 3 in one place and 4 in another");
  rejected("ij->ik", {{2, 3}}, "output index 'k' appears in no operand");
  rejected("ij->ii", {{2, 2}}, "appears twice in the output");
  rejected("ij,jk", {{2, 3}}, "2 operand terms but the node has 1 inputs");
  rejected("ij", {{2, 3, 4}}, "does not fit the term");
  rejected("i1->i", {{2, 3}}, "the character '1'");
  rejected("....i->i", {{2}}, "ellipsis");
  rejected("...i->i", {{3, 2}}, "output does not keep them");
  OneNode bools("Einsum", 12);
  bools.input_bytes(DataType::Bool(), {2}, {1, 0}).attr("equation", std::string("i->i"));
  expect_error(bools, "is not supported");
}

}  // namespace
}  // namespace aotc::test
