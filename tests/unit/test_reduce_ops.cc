// Tests of the reductions (lowering/ops/onnx/reduce.cc), ArgMax, ArgMin and TopK
// (arg_reduce.cc) and CumSum (cumsum.cc).
//
// References are loops written here from the ONNX definitions: a reduction combines, for
// each output element, the input elements whose indices agree outside the reduced axes;
// integer sums and products wrap as numpy's do; ReduceMax/Min, ArgMax/Min and TopK treat
// NaN as numpy does; TopK orders equal values by position.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

// The output shape of a reduction of `shape` over the axes marked in `reduced`.
Shape reduced_shape(const Shape& shape, const std::vector<bool>& reduced, bool keepdims) {
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) out.push_back(shape[d]);
    else if (keepdims) out.push_back(1);
  }
  return out;
}

// For each output element (row-major), the input elements of its group, in row-major order.
std::vector<std::vector<double>> groups(const Shape& shape, const std::vector<double>& x, const std::vector<bool>& reduced) {
  Shape kept_shape;
  for (size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d]) kept_shape.push_back(shape[d]);
  std::vector<std::vector<double>> out(static_cast<size_t>(element_count(kept_shape)));
  for_each_index(shape, [&](const Index& i, size_t flat) {
    Index kept;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d]) kept.push_back(i[d]);
    out[static_cast<size_t>(flat_index(kept_shape, kept))].push_back(x[flat]);
  });
  return out;
}

std::vector<bool> axes_mask(size_t rank, const std::vector<int64_t>& axes) {
  std::vector<bool> mask(rank, axes.empty());
  for (int64_t a : axes) mask[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(rank) : a)] = true;
  return mask;
}

using GroupFn = std::function<double(const std::vector<double>&)>;

double sum_of(const std::vector<double>& g) { return std::accumulate(g.begin(), g.end(), 0.0); }

// Each float reduction as the spec defines it.
const std::vector<std::pair<std::string, GroupFn>>& float_reductions() {
  static const std::vector<std::pair<std::string, GroupFn>> kAll = {
      {"ReduceSum", sum_of},
      {"ReduceMean", [](const std::vector<double>& g) { return sum_of(g) / static_cast<double>(g.size()); }},
      {"ReduceMax", [](const std::vector<double>& g) { return *std::max_element(g.begin(), g.end()); }},
      {"ReduceMin", [](const std::vector<double>& g) { return *std::min_element(g.begin(), g.end()); }},
      {"ReduceProd", [](const std::vector<double>& g) { double p = 1; for (double v : g) p *= v; return p; }},
      {"ReduceL1", [](const std::vector<double>& g) { double s = 0; for (double v : g) s += std::fabs(v); return s; }},
      {"ReduceL2", [](const std::vector<double>& g) { double s = 0; for (double v : g) s += v * v; return std::sqrt(s); }},
      {"ReduceSumSquare", [](const std::vector<double>& g) { double s = 0; for (double v : g) s += v * v; return s; }},
      {"ReduceLogSum", [](const std::vector<double>& g) { return std::log(sum_of(g)); }},
      {"ReduceLogSumExp", [](const std::vector<double>& g) { double s = 0; for (double v : g) s += std::exp(v); return std::log(s); }},
  };
  return kAll;
}

// Runs reduction `op` at opset 18 (axes as input 1, absent when empty).
std::vector<float> run_reduce(const std::string& op, const Shape& shape, const std::vector<float>& x,
                              const std::vector<int64_t>& axes, int64_t keepdims, Shape* out_shape) {
  OneNode node(op, 18);
  node.input(shape, x);
  if (!axes.empty()) node.constant<int64_t>(axes);
  node.attr("keepdims", keepdims);
  *out_shape = node.infer();
  return node.run();
}

TEST(Reductions, EveryReductionOverAxisSets) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = random_floats(24, 31, 2.0f);
  for (float& v : x) v = std::fabs(v) + 0.1f;  // positive: ReduceLogSum's domain
  std::vector<double> xd(x.begin(), x.end());
  for (const auto& [op, reference] : float_reductions()) {
    for (const std::vector<int64_t>& axes : {std::vector<int64_t>{1}, {-1, 0}, {}, {0, 1, 2}}) {
      for (int64_t keepdims : {0, 1}) {
        SCOPED_TRACE(op + " axes " + shape_str(axes) + " keepdims " + std::to_string(keepdims));
        std::vector<bool> mask = axes_mask(3, axes);
        std::vector<float> want;
        for (const auto& g : groups(shape, xd, mask)) want.push_back(static_cast<float>(reference(g)));
        Shape out_shape;
        std::vector<float> got = run_reduce(op, shape, x, axes, keepdims, &out_shape);
        EXPECT_EQ(out_shape, reduced_shape(shape, mask, keepdims != 0));
        expect_close(got, want, 1e-5, 1e-6);
      }
    }
  }
}

TEST(Reductions, EveryReductionInFloat64) {
  Shape shape = {3, 2, 2};
  std::vector<double> x(12);
  for (size_t i = 0; i < 12; ++i) x[i] = 0.25 + 0.5 * static_cast<double>(i % 5);
  for (const auto& [op, reference] : float_reductions()) {
    SCOPED_TRACE(op);
    std::vector<double> want;
    for (const auto& g : groups(shape, x, {false, true, false})) want.push_back(reference(g));
    OneNode node(op, 18);
    node.input<double>(shape, x).constant<int64_t>({-2}).attr("keepdims", int64_t{0});
    EXPECT_EQ(node.infer(), (Shape{3, 2}));
    expect_close(node.run<double>(), want, 1e-12, 1e-12);
  }
}

TEST(Reductions, AxesAttributeBeforeOpset18AndReduceSumInputFrom13) {
  Shape shape = {2, 3};
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  OneNode max("ReduceMax", 13);
  max.input(shape, x).attr("axes", Shape{-1}).attr("keepdims", int64_t{0});
  expect_equal(max.run(), std::vector<float>{3, 6});
  OneNode sum("ReduceSum", 13);
  sum.input(shape, x).constant<int64_t>({0});
  EXPECT_EQ(sum.infer(), (Shape{1, 3}));
  expect_equal(sum.run(), std::vector<float>{5, 7, 9});
  OneNode both("ReduceSum", 13);
  both.input(shape, x).constant<int64_t>({0}).attr("axes", Shape{0});
  expect_error(both, "both as an attribute and as input 1");
}

TEST(Reductions, NoopWithEmptyAxesComputesEachElementAlone) {
  std::vector<float> x = {-1, 2, -3};
  OneNode square("ReduceSumSquare", 18);
  square.input({3}, x).attr("noop_with_empty_axes", int64_t{1});
  EXPECT_EQ(square.infer(), (Shape{3}));
  expect_equal(square.run(), std::vector<float>{1, 4, 9});
  OneNode l1("ReduceL1", 18);
  l1.input({3}, x).constant<int64_t>(Shape{0}, {}).attr("noop_with_empty_axes", int64_t{1});
  expect_equal(l1.run(), std::vector<float>{1, 2, 3});
}

TEST(Reductions, MaxAndMinPropagateNaNAndLogSumExpIsStable) {
  OneNode max("ReduceMax", 18);
  max.input<float>({2, 3}, {1, NAN, 3, 4, 5, 6}).constant<int64_t>({1}).attr("keepdims", int64_t{0});
  expect_close(max.run(), std::vector<float>{NAN, 6});
  OneNode min("ReduceMin", 18);
  min.input<float>({3}, {NAN, -1, 2});
  expect_close(min.run(), std::vector<float>{NAN});
  // exp(1000) overflows; log(sum(exp(x))) = 1000 + log(2) does not.
  OneNode lse("ReduceLogSumExp", 18);
  lse.input<double>({2}, {1000, 1000});
  expect_close(lse.run<double>(), std::vector<double>{1000 + std::log(2.0)});
  OneNode infinite("ReduceLogSumExp", 18);
  infinite.input<float>({2}, {-INFINITY, -INFINITY});
  expect_close(infinite.run(), std::vector<float>{-INFINITY});
}

TEST(Reductions, IntegerSumsAndProductsWrap) {
  int32_t big = std::numeric_limits<int32_t>::max();
  OneNode sum("ReduceSum", 13);
  sum.input<int32_t>({2, 2}, {big, 1, -5, 2}).constant<int64_t>({1}).attr("keepdims", int64_t{0});
  expect_equal(sum.run<int32_t>(), std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -3});
  OneNode prod("ReduceProd", 18);
  // 2^40 (2^30 + 1) 3 = 3 2^70 + 3 2^40: modulo 2^64, 3 2^40.
  prod.input<int64_t>({3}, {int64_t{1} << 40, (int64_t{1} << 30) + 1, 3});
  expect_equal(prod.run<int64_t>(), std::vector<int64_t>{int64_t{3} << 40});
  OneNode uprod("ReduceProd", 18);
  uprod.input<uint8_t>({3}, {16, 17, 3});
  expect_equal(uprod.run<uint8_t>(), std::vector<uint8_t>{816 - 3 * 256});
  OneNode l1("ReduceL1", 18);
  l1.input<int8_t>({3}, {-128, -1, 2});
  expect_equal(l1.run<int8_t>(), std::vector<int8_t>{static_cast<int8_t>(131 - 256)});
  OneNode squares("ReduceSumSquare", 18);
  squares.input<int16_t>({2}, {300, -300});
  expect_equal(squares.run<int16_t>(), std::vector<int16_t>{static_cast<int16_t>(180000 - 3 * 65536)});
}

TEST(Reductions, IntegerMeanAndL2TruncateAndSaturate) {
  OneNode mean("ReduceMean", 18);
  mean.input<int32_t>({4}, {1, 2, 2, -9});
  expect_equal(mean.run<int32_t>(), std::vector<int32_t>{-1});  // -4 / 4 = -1; truncated
  OneNode odd_mean("ReduceMean", 18);
  odd_mean.input<int32_t>({2}, {2, 3});
  expect_equal(odd_mean.run<int32_t>(), std::vector<int32_t>{2});
  // The mean of int64 values near the limit is 2^63 in double: it saturates to INT64_MAX
  // (a C conversion of 2^63 to int64 would be undefined).
  const int64_t max64 = std::numeric_limits<int64_t>::max();
  OneNode big_mean("ReduceMean", 18);
  big_mean.input<int64_t>({2}, {max64, max64});
  expect_equal(big_mean.run<int64_t>(), std::vector<int64_t>{max64});
  OneNode l2("ReduceL2", 18);
  l2.input<int32_t>({2}, {3, -4});
  expect_equal(l2.run<int32_t>(), std::vector<int32_t>{5});
  OneNode uint_l2("ReduceL2", 18);
  uint_l2.input<uint8_t>({2}, {255, 255});
  expect_equal(uint_l2.run<uint8_t>(), std::vector<uint8_t>{255});  // sqrt(130050) = 360.6 saturates
}

TEST(Reductions, RejectInvalidNodes) {
  OneNode twice("ReduceSum", 18);
  twice.input({2, 3}).constant<int64_t>({1, -1});
  expect_error(twice, "listed twice");
  OneNode outside("ReduceMean", 18);
  outside.input({2, 3}).constant<int64_t>({2});
  expect_error(outside, "out of range");
  OneNode runtime_axes("ReduceMax", 18);
  runtime_axes.input({2, 3}).input<int64_t>({1}, {0});
  expect_error(runtime_axes, "ReduceMax needs constant axes");
  OneNode log_of_ints("ReduceLogSum", 18);
  log_of_ints.input<int32_t>({2}, {1, 2});
  expect_error(log_of_ints, "supports float32 and float64");
  OneNode bools("ReduceMax", 18);
  bools.input_bytes(DataType::Bool(), {2}, {0, 1});
  expect_error(bools, "is bool");
}

TEST(Reductions, ScalarInput) {
  OneNode sum("ReduceSum", 18);
  sum.input<float>({}, {2.5f});
  EXPECT_EQ(sum.infer(), (Shape{}));
  expect_equal(sum.run(), std::vector<float>{2.5f});
}

// ---------------------------------------------------------------- ArgMax, ArgMin

// The position along `axis` of the first (or last) extreme element; NaN counts as beyond
// every number (numpy: the first NaN).
std::vector<int64_t> arg_reference(const Shape& shape, const std::vector<double>& x, size_t axis, bool is_max, bool last) {
  std::vector<bool> mask(shape.size(), false);
  mask[axis] = true;
  std::vector<int64_t> out;
  for (const auto& g : groups(shape, x, mask)) {
    int64_t best = 0;
    for (size_t i = 1; i < g.size(); ++i) {
      double v = g[i], b = g[static_cast<size_t>(best)];
      bool wins = std::isnan(v) ? !std::isnan(b) || last : std::isnan(b) ? false : is_max ? v > b : v < b;
      if (!std::isnan(v) && !std::isnan(b) && last && v == b) wins = true;
      if (wins) best = static_cast<int64_t>(i);
    }
    out.push_back(best);
  }
  return out;
}

TEST(ArgReduce, AxesKeepdimsAndSelectLastIndex) {
  Shape shape = {3, 4};
  std::vector<float> x = {1, 5, 5, 2, 7, 7, 0, 7, -1, -3, -3, 4};
  std::vector<double> xd(x.begin(), x.end());
  for (const std::string op : {"ArgMax", "ArgMin"}) {
    for (int64_t axis : {0, 1, -1}) {
      for (int64_t last : {0, 1}) {
        for (int64_t keepdims : {0, 1}) {
          SCOPED_TRACE(op + " axis " + std::to_string(axis) + " last " + std::to_string(last) + " keepdims " +
                       std::to_string(keepdims));
          size_t a = static_cast<size_t>(axis < 0 ? axis + 2 : axis);
          OneNode node(op);
          node.input(shape, x).attr("axis", axis).attr("select_last_index", last).attr("keepdims", keepdims);
          std::vector<bool> mask(2, false);
          mask[a] = true;
          EXPECT_EQ(node.infer(), reduced_shape(shape, mask, keepdims != 0));
          EXPECT_EQ(node.output_type(), DataType::Int(64));
          expect_equal(node.run<int64_t>(), arg_reference(shape, xd, a, op == "ArgMax", last != 0));
        }
      }
    }
  }
}

TEST(ArgReduce, NaNWinsForBothAndIntegerTypes) {
  OneNode argmax("ArgMax");
  argmax.input<float>({5}, {1, NAN, 9, NAN, -1});
  expect_equal(argmax.run<int64_t>(), std::vector<int64_t>{1});
  OneNode argmin("ArgMin");
  argmin.input<double>({4}, {3, -2, NAN, -5});
  expect_equal(argmin.run<int64_t>(), std::vector<int64_t>{2});
  OneNode last("ArgMax");
  last.input<float>({4}, {NAN, 1, NAN, 2}).attr("select_last_index", int64_t{1});
  expect_equal(last.run<int64_t>(), std::vector<int64_t>{2});
  OneNode uints("ArgMax");
  uints.input<uint64_t>({3}, {5, UINT64_MAX, 7});
  expect_equal(uints.run<int64_t>(), std::vector<int64_t>{1});
  OneNode int8s("ArgMin");
  int8s.input<int8_t>({2, 2}, {3, -128, -128, 0}).attr("axis", int64_t{1}).attr("keepdims", int64_t{0});
  expect_equal(int8s.run<int64_t>(), std::vector<int64_t>{1, 0});
  OneNode scalar("ArgMax");
  scalar.input({});
  expect_error(scalar, "scalar");
}

// ---------------------------------------------------------------- TopK

// The k best of each group along `axis`: by value (NaN above every number), then by
// position; values and positions.
void top_k_reference(const Shape& shape, const std::vector<double>& x, size_t axis, int64_t k, bool largest,
                     std::vector<double>* values, std::vector<int64_t>* indices, Shape* out_shape) {
  *out_shape = shape;
  (*out_shape)[axis] = k;
  std::vector<bool> mask(shape.size(), false);
  mask[axis] = true;
  auto above = [](double a, double b) { return std::isnan(a) ? !std::isnan(b) : !std::isnan(b) && a > b; };
  std::vector<std::vector<int64_t>> chosen;
  for (const auto& g : groups(shape, x, mask)) {
    std::vector<int64_t> order(g.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
      double a = g[static_cast<size_t>(i)], b = g[static_cast<size_t>(j)];
      return largest ? above(a, b) : above(b, a);
    });
    order.resize(static_cast<size_t>(k));
    chosen.push_back(order);
  }
  // Back into the output's row-major order: group = index outside the axis, j along it.
  values->clear();
  indices->clear();
  for_each_index(*out_shape, [&](const Index& o, size_t) {
    Index kept;
    Shape kept_shape;
    for (size_t d = 0; d < shape.size(); ++d)
      if (d != axis) kept.push_back(o[d]), kept_shape.push_back(shape[d]);
    const auto& order = chosen[static_cast<size_t>(flat_index(kept_shape, kept))];
    int64_t position = order[static_cast<size_t>(o[axis])];
    Index in = o;
    in[axis] = position;
    values->push_back(x[static_cast<size_t>(flat_index(shape, in))]);
    indices->push_back(position);
  });
}

TEST(TopK, LargestAndSmallestAlongEachAxisWithTies) {
  Shape shape = {3, 5};
  std::vector<float> x = {3, 1, 3, NAN, 2, 0, 0, 0, -1, 5, 4, 9, 4, 4, -9};
  std::vector<double> xd(x.begin(), x.end());
  for (int64_t largest : {1, 0}) {
    for (int64_t axis : {-1, 0}) {
      int64_t k = axis == 0 ? 2 : 3;
      SCOPED_TRACE("largest " + std::to_string(largest) + " axis " + std::to_string(axis));
      size_t a = static_cast<size_t>(axis < 0 ? axis + 2 : axis);
      std::vector<double> want_values;
      std::vector<int64_t> want_indices;
      Shape out_shape;
      top_k_reference(shape, xd, a, k, largest != 0, &want_values, &want_indices, &out_shape);
      OneNode node("TopK", 11);
      node.input(shape, x).constant<int64_t>({k}).attr("axis", axis).attr("largest", largest).extra_output(true);
      EXPECT_EQ(node.infer(), out_shape);
      EXPECT_EQ(node.output_type(1), DataType::Int(64));
      expect_close(node.run(), std::vector<float>(want_values.begin(), want_values.end()));
      expect_equal(node.run_output<int64_t>(1), want_indices);
    }
  }
}

TEST(TopK, IntegersAndKAttributeOfOpset1) {
  OneNode ints("TopK", 10);
  ints.input<int32_t>({6}, {5, -2, 5, 7, -2, 0}).constant<int64_t>({4}).extra_output(true);
  expect_equal(ints.run<int32_t>(), std::vector<int32_t>{7, 5, 5, 0});
  expect_equal(ints.run_output<int64_t>(1), std::vector<int64_t>{3, 0, 2, 5});
  OneNode old("TopK", 1);
  old.input<float>({4}, {1, 4, 2, 3}).attr("k", int64_t{2}).extra_output(true);
  expect_equal(old.run(), std::vector<float>{4, 3});
}

TEST(TopK, RejectsInvalidK) {
  OneNode zero("TopK", 11);
  zero.input({4}).constant<int64_t>({0}).extra_output(true);
  expect_error(zero, "empty outputs are not supported");
  OneNode too_many("TopK", 11);
  too_many.input({4}).constant<int64_t>({5}).extra_output(true);
  expect_error(too_many, "between 1 and the axis size 4");
  OneNode runtime("TopK", 11);
  runtime.input({4}).input<int64_t>({1}, {2}).extra_output(true);
  expect_error(runtime, "TopK needs constant K");
}

// ---------------------------------------------------------------- CumSum

// Running sums along `axis`: inclusive or exclusive, forwards or in reverse.
template <typename T>
std::vector<T> cumsum_reference(const Shape& shape, const std::vector<T>& x, size_t axis, bool exclusive, bool reverse) {
  std::vector<T> y(x.size());
  for_each_index(shape, [&](const Index& i, size_t flat) {
    T sum = 0;
    for (int64_t j = 0; j < shape[axis]; ++j) {
      bool counted = reverse ? (exclusive ? j > i[axis] : j >= i[axis]) : (exclusive ? j < i[axis] : j <= i[axis]);
      if (!counted) continue;
      Index at = i;
      at[axis] = j;
      sum = static_cast<T>(sum + x[static_cast<size_t>(flat_index(shape, at))]);
    }
    y[flat] = sum;
  });
  return y;
}

TEST(CumSum, ExclusiveReverseAndNegativeAxis) {
  Shape shape = {2, 3, 4};
  std::vector<double> x(24);
  for (size_t i = 0; i < 24; ++i) x[i] = static_cast<double>(i) * 0.5 - 3;
  for (int64_t axis : {0, 1, -1}) {
    for (int64_t exclusive : {0, 1}) {
      for (int64_t reverse : {0, 1}) {
        SCOPED_TRACE("axis " + std::to_string(axis) + " exclusive " + std::to_string(exclusive) + " reverse " +
                     std::to_string(reverse));
        size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
        OneNode node("CumSum");
        node.input<double>(shape, x).constant<int32_t>(Shape{}, {static_cast<int32_t>(axis)});
        node.attr("exclusive", exclusive).attr("reverse", reverse);
        expect_close(node.run<double>(), cumsum_reference<double>(shape, x, a, exclusive != 0, reverse != 0));
      }
    }
  }
}

TEST(CumSum, IntegersWrap) {
  int32_t big = std::numeric_limits<int32_t>::max();
  OneNode node("CumSum");
  node.input<int32_t>({3}, {big, 1, 1}).constant<int64_t>({0});
  expect_equal(node.run<int32_t>(), std::vector<int32_t>{big, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::min() + 1});
  OneNode uint8s("CumSum");
  uint8s.input<uint8_t>({3}, {200, 100, 1}).constant<int64_t>({0}).attr("reverse", int64_t{1});
  expect_equal(uint8s.run<uint8_t>(), std::vector<uint8_t>{45, 101, 1});
}

TEST(CumSum, RejectsInvalidNodes) {
  OneNode runtime_axis("CumSum");
  runtime_axis.input({3}).input<int64_t>({}, {0});
  expect_error(runtime_axis, "CumSum needs constant axis");
  OneNode scalar("CumSum");
  scalar.input({}).constant<int64_t>({0});
  expect_error(scalar, "rank >= 1");
  OneNode two_axes("CumSum");
  two_axes.input({2, 2}).constant<int64_t>({0, 1});
  expect_error(two_axes, "one value");
  OneNode bools("CumSum");
  bools.input_bytes(DataType::Bool(), {2}, {1, 1}).constant<int64_t>({0});
  expect_error(bools, "CumSum takes");
}

}  // namespace
}  // namespace aotc::test
