// Tests of the indexed reads and writes: Gather, GatherElements, GatherND, Compress and
// OneHot (lowering/ops/onnx/gather.cc), ScatterElements, ScatterND and MaxUnpool (scatter.cc).
//
// References are loops written here from the ONNX definitions: negative indices count
// from the end of their axis; scatters apply their updates in order (the last of equal
// indices wins) or combine them with the reduction; integer reductions wrap and max/min
// propagate NaN, as numpy does. Indices out of range are a compile-time error naming the
// node when constant, and make the kernel return an error (never read or write outside a
// buffer) when they arrive at run time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

int64_t wrapped(int64_t index, int64_t extent) { return index < 0 ? index + extent : index; }

// ---------------------------------------------------------------- Gather

// numpy.take(data, indices, axis).
template <typename T, typename I>
std::vector<T> take(const Shape& data_shape, const std::vector<T>& data, const Shape& indices_shape,
                    const std::vector<I>& indices, size_t axis, Shape* out_shape) {
  Shape shape(data_shape.begin(), data_shape.begin() + static_cast<std::ptrdiff_t>(axis));
  shape.insert(shape.end(), indices_shape.begin(), indices_shape.end());
  shape.insert(shape.end(), data_shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data_shape.end());
  *out_shape = shape;
  std::vector<T> out;
  size_t q = indices_shape.size();
  for_each_index(shape, [&](const Index& o, size_t) {
    Index in(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(axis));
    Index at(o.begin() + static_cast<std::ptrdiff_t>(axis), o.begin() + static_cast<std::ptrdiff_t>(axis + q));
    in.push_back(wrapped(static_cast<int64_t>(indices[static_cast<size_t>(flat_index(indices_shape, at))]), data_shape[axis]));
    in.insert(in.end(), o.begin() + static_cast<std::ptrdiff_t>(axis + q), o.end());
    out.push_back(data[static_cast<size_t>(flat_index(data_shape, in))]);
  });
  return out;
}

TEST(Gather, EachAxisWithNegativeIndices) {
  Shape data_shape = {3, 4, 2};
  std::vector<float> data = random_floats(24, 3);
  Shape indices_shape = {2, 2};
  std::vector<int64_t> indices = {0, -1, 1, -2};
  for (int64_t axis : {0, 1, 2, -1, -3}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    Shape want_shape;
    std::vector<float> want = take(data_shape, data, indices_shape, indices, a, &want_shape);
    OneNode gather("Gather");
    gather.input(data_shape, data).input<int64_t>(indices_shape, indices).attr("axis", axis);
    EXPECT_EQ(gather.infer(), want_shape);
    expect_equal(gather.run(), want);
  }
}

TEST(Gather, ScalarIndexDropsTheAxisAndInt32Indices) {
  std::vector<int16_t> data = {1, 2, 3, 4, 5, 6};
  OneNode scalar("Gather");
  scalar.input<int16_t>({2, 3}, data).input<int32_t>({}, {-1}).attr("axis", int64_t{1});
  EXPECT_EQ(scalar.infer(), (Shape{2}));
  expect_equal(scalar.run<int16_t>(), std::vector<int16_t>{3, 6});
  // A constant index tensor (an embedding lookup) is checked at compile time.
  OneNode constant("Gather");
  constant.input<int16_t>({3, 2}, data).constant<int32_t>(Shape{3}, {2, 0, 2});
  expect_equal(constant.run<int16_t>(), std::vector<int16_t>{5, 6, 1, 2, 5, 6});
}

TEST(Gather, IndicesOutOfRange) {
  OneNode constant("Gather");
  constant.input({3, 2}).constant<int64_t>(Shape{2}, {0, 3});
  expect_error(constant, "index 3 (element 1) is out of range [-3, 2]");
  OneNode too_negative("Gather");
  too_negative.input({3, 2}).constant<int64_t>(Shape{1}, {-4});
  expect_error(too_negative, "out of range");
  // At run time: the kernel returns an error instead of reading outside the data.
  OneNode runtime("Gather");
  runtime.input({3, 2}).input<int64_t>({2}, {1, 7});
  EXPECT_NE(runtime.kernel_status(), 0);
  OneNode runtime_ok("Gather");
  runtime_ok.input({3, 2}).input<int64_t>({2}, {1, -3});
  EXPECT_EQ(runtime_ok.kernel_status(), 0);
  OneNode float_indices("Gather");
  float_indices.input({3}).input({1});
  expect_error(float_indices, "int32 or int64");
  OneNode scalar_data("Gather");
  scalar_data.input({}).input<int64_t>({1}, {0});
  expect_error(scalar_data, "rank >= 1");
}

// ---------------------------------------------------------------- GatherElements

TEST(GatherElements, IndexesAlongOneAxis) {
  Shape data_shape = {3, 4};
  std::vector<int32_t> data(12);
  for (size_t i = 0; i < 12; ++i) data[i] = static_cast<int32_t>(i * 10);
  Shape indices_shape = {2, 3};  // smaller than data outside the axis
  std::vector<int64_t> indices = {0, -1, 2, 1, 0, -3};
  for (int64_t axis : {0, 1, -1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    size_t a = static_cast<size_t>(axis < 0 ? axis + 2 : axis);
    std::vector<int32_t> want;
    for_each_index(indices_shape, [&](const Index& i, size_t flat) {
      Index at = i;
      at[a] = wrapped(indices[flat], data_shape[a]);
      want.push_back(data[static_cast<size_t>(flat_index(data_shape, at))]);
    });
    OneNode node("GatherElements");
    node.input<int32_t>(data_shape, data).input<int64_t>(indices_shape, indices).attr("axis", axis);
    EXPECT_EQ(node.infer(), indices_shape);
    expect_equal(node.run<int32_t>(), want);
  }
}

TEST(GatherElements, RejectsMismatchedShapes) {
  OneNode rank("GatherElements");
  rank.input({3, 4}).input<int64_t>({3}, {0, 1, 2});
  expect_error(rank, "differ in rank");
  OneNode larger("GatherElements");
  larger.input({3, 4}).input<int64_t>({1, 5}, {0, 0, 0, 0, 0}).attr("axis", int64_t{0});
  expect_error(larger, "larger than data");
  OneNode runtime("GatherElements");
  runtime.input({2, 2}).input<int32_t>({2, 2}, {0, 1, 2, 0}).attr("axis", int64_t{1});
  EXPECT_NE(runtime.kernel_status(), 0);
}

// ---------------------------------------------------------------- GatherND

TEST(GatherND, ElementsAndSlices) {
  Shape data_shape = {2, 3, 4};
  std::vector<float> data = random_floats(24, 11);
  // k = 3: elements; k = 2: rows of 4; k = 1: [3, 4] blocks.
  struct Case {
    Shape indices_shape;
    std::vector<int64_t> indices;
  };
  const Case cases[] = {{{2, 3}, {0, 1, 2, -1, -1, -4}}, {{3, 2}, {1, 2, 0, -3, -1, 0}}, {{2, 1}, {1, -2}}};
  for (const Case& c : cases) {
    size_t k = static_cast<size_t>(c.indices_shape.back());
    SCOPED_TRACE("k " + std::to_string(k));
    Shape rows(c.indices_shape.begin(), c.indices_shape.end() - 1);
    Shape out_shape = rows;
    out_shape.insert(out_shape.end(), data_shape.begin() + static_cast<std::ptrdiff_t>(k), data_shape.end());
    std::vector<float> want;
    for_each_index(out_shape, [&](const Index& o, size_t) {
      int64_t row = flat_index(rows, Index(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(rows.size())));
      Index in;
      for (size_t j = 0; j < k; ++j) in.push_back(wrapped(c.indices[static_cast<size_t>(row) * k + j], data_shape[j]));
      in.insert(in.end(), o.begin() + static_cast<std::ptrdiff_t>(rows.size()), o.end());
      want.push_back(data[static_cast<size_t>(flat_index(data_shape, in))]);
    });
    OneNode node("GatherND");
    node.input(data_shape, data).input<int64_t>(c.indices_shape, c.indices);
    EXPECT_EQ(node.infer(), out_shape);
    expect_equal(node.run(), want);
  }
}

TEST(GatherND, BatchDims) {
  // data [2, 3, 2], indices [2, 1] with batch_dims 1: out[b] = data[b, indices[b][0]] -> [2, 2].
  std::vector<int32_t> data = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  OneNode node("GatherND");
  node.input<int32_t>({2, 3, 2}, data).input<int64_t>({2, 1}, {2, -3}).attr("batch_dims", int64_t{1});
  EXPECT_EQ(node.infer(), (Shape{2, 2}));
  expect_equal(node.run<int32_t>(), std::vector<int32_t>{4, 5, 6, 7});
}

TEST(GatherND, RejectsBadIndices) {
  OneNode int32_indices("GatherND");
  int32_indices.input({2, 2}).input<int32_t>({1, 2}, {0, 0});
  expect_error(int32_indices, "must be int64");
  OneNode too_deep("GatherND");
  too_deep.input({2, 2}).input<int64_t>({1, 3}, {0, 0, 0});
  expect_error(too_deep, "last dimension of indices");
  OneNode out_of_range("GatherND");
  out_of_range.input({2, 3}).constant<int64_t>(Shape{1, 2}, {1, 3});
  expect_error(out_of_range, "index 3 (element 1) is out of range [-3, 2]");
  OneNode runtime("GatherND");
  runtime.input({2, 3}).input<int64_t>({2, 2}, {1, 2, -3, 0});
  EXPECT_NE(runtime.kernel_status(), 0);
  OneNode batch("GatherND");
  batch.input({2, 2}).input<int64_t>({2, 1}, {0, 0}).attr("batch_dims", int64_t{2});
  expect_error(batch, "batch_dims");
}

// ---------------------------------------------------------------- Compress

TEST(Compress, AlongAnAxisAndFlattened) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  OneNode rows("Compress");
  rows.input<float>({3, 2}, x).constant_bytes(DataType::Bool(), {3}, {0, 1, 1}).attr("axis", int64_t{0});
  EXPECT_EQ(rows.infer(), (Shape{2, 2}));
  expect_equal(rows.run(), std::vector<float>{3, 4, 5, 6});
  // A condition shorter than the axis drops the rest; a negative axis counts from the end.
  OneNode columns("Compress");
  columns.input<float>({3, 2}, x).constant_bytes(DataType::Bool(), {1}, {1}).attr("axis", int64_t{-1});
  EXPECT_EQ(columns.infer(), (Shape{3, 1}));
  expect_equal(columns.run(), std::vector<float>{1, 3, 5});
  OneNode flat("Compress");
  flat.input<float>({3, 2}, x).constant_bytes(DataType::Bool(), {6}, {1, 0, 0, 1, 1, 0});
  EXPECT_EQ(flat.infer(), (Shape{3}));
  expect_equal(flat.run(), std::vector<float>{1, 4, 5});
}

TEST(Compress, RejectsWhatItCannotCompute) {
  OneNode nothing("Compress");
  nothing.input({3}).constant_bytes(DataType::Bool(), {3}, {0, 0, 0});
  expect_error(nothing, "selects nothing");
  OneNode beyond("Compress");
  beyond.input({2}).constant_bytes(DataType::Bool(), {3}, {0, 0, 1}).attr("axis", int64_t{0});
  expect_error(beyond, "selects position 2");
  OneNode runtime("Compress");
  runtime.input({2}).input_bytes(DataType::Bool(), {2}, {1, 0});
  expect_error(runtime, "compile-time constant");
}

// ---------------------------------------------------------------- OneHot

TEST(OneHot, NewAxisAtEachPosition) {
  // indices [2, 2] with depth 3: negative indices count from the end, out-of-range ones
  // give a row of off values.
  Shape indices_shape = {2, 2};
  std::vector<int64_t> indices = {0, -1, 2, 5};
  const int64_t depth = 3;
  std::vector<float> values = {-1, 7};  // [off, on]
  for (int64_t axis : {-1, 0, 1, 2, -3}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    size_t a = static_cast<size_t>(axis < 0 ? axis + 3 : axis);
    Shape out_shape = indices_shape;
    out_shape.insert(out_shape.begin() + static_cast<std::ptrdiff_t>(a), depth);
    std::vector<float> want;
    for_each_index(out_shape, [&](const Index& o, size_t) {
      Index at = o;
      at.erase(at.begin() + static_cast<std::ptrdiff_t>(a));
      int64_t v = indices[static_cast<size_t>(flat_index(indices_shape, at))];
      bool hit = v >= -depth && v < depth && wrapped(v, depth) == o[a];
      want.push_back(hit ? values[1] : values[0]);
    });
    OneNode node("OneHot");
    node.input<int64_t>(indices_shape, indices).constant<int64_t>(Shape{}, {depth}).input<float>({2}, values).attr("axis", axis);
    EXPECT_EQ(node.infer(), out_shape);
    expect_equal(node.run(), want);
  }
}

TEST(OneHot, FloatIndicesTruncateAndFloatDepth) {
  // 1.7 names position 1, -0.5 position 0 (truncation toward zero), -1.2 position depth - 1,
  // NaN and 4.0 nothing.
  OneNode node("OneHot");
  node.input<float>({5}, {1.7f, -0.5f, -1.2f, NAN, 4.0f}).constant<float>(Shape{1}, {4.0f}).input<int32_t>({2}, {0, 1});
  EXPECT_EQ(node.infer(), (Shape{5, 4}));
  expect_equal(node.run<int32_t>(), std::vector<int32_t>{0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0});
  OneNode uints("OneHot");
  uints.input<uint8_t>({2}, {2, 200}).constant<int64_t>(Shape{}, {3}).input<uint8_t>({2}, {0, 9});
  expect_equal(uints.run<uint8_t>(), std::vector<uint8_t>{0, 0, 9, 0, 0, 0});
}

TEST(OneHot, RejectsInvalidOperands) {
  OneNode values_rank("OneHot");
  values_rank.input<int64_t>({2}, {0, 1}).constant<int64_t>(Shape{}, {3}).input<float>({2, 1}, {0, 1});
  expect_error(values_rank, "values must be a 1-D tensor of two elements");
  OneNode depth("OneHot");
  depth.input<int64_t>({2}, {0, 1}).constant<int64_t>(Shape{}, {0}).input<float>({2}, {0, 1});
  expect_error(depth, "must be at least 1");
  OneNode runtime_depth("OneHot");
  runtime_depth.input<int64_t>({2}, {0, 1}).input<int64_t>({}, {3}).input<float>({2}, {0, 1});
  expect_error(runtime_depth, "constant");
}

// ---------------------------------------------------------------- ScatterElements

// data with updates[i] combined into position i (i[axis] replaced by indices[i]), in order.
template <typename T>
std::vector<T> scatter_elements(const Shape& data_shape, std::vector<T> data, const Shape& indices_shape,
                                const std::vector<int64_t>& indices, const std::vector<T>& updates, size_t axis,
                                T (*combine)(T, T)) {
  for_each_index(indices_shape, [&](const Index& i, size_t flat) {
    Index at = i;
    at[axis] = wrapped(indices[flat], data_shape[axis]);
    T& target = data[static_cast<size_t>(flat_index(data_shape, at))];
    target = combine(target, updates[flat]);
  });
  return data;
}

TEST(ScatterElements, ReplacesAlongEachAxisLastWins) {
  Shape data_shape = {3, 3};
  std::vector<float> data = random_floats(9, 21);
  Shape indices_shape = {2, 3};
  std::vector<int64_t> indices = {1, 0, -1, 1, -3, 2};  // column 0 names row 1 twice: the second wins
  std::vector<float> updates = {10, 20, 30, 40, 50, 60};
  for (int64_t axis : {0, 1, -2}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    size_t a = static_cast<size_t>(axis < 0 ? axis + 2 : axis);
    std::vector<float> want = scatter_elements<float>(data_shape, data, indices_shape, indices, updates, a,
                                                      [](float, float u) { return u; });
    OneNode node("ScatterElements");
    node.input(data_shape, data).input<int64_t>(indices_shape, indices).input(indices_shape, updates).attr("axis", axis);
    EXPECT_EQ(node.infer(), data_shape);
    expect_equal(node.run(), want);
  }
  // Scatter, the deprecated name, is the same operator.
  OneNode old_name("Scatter", 9);
  old_name.input<float>({3}, {1, 2, 3}).input<int32_t>({1}, {-1}).input<float>({1}, {9});
  expect_equal(old_name.run(), std::vector<float>{1, 2, 9});
}

TEST(ScatterElements, Reductions) {
  Shape data_shape = {2, 3};
  std::vector<float> data = {1, 2, 3, 4, 5, NAN};
  Shape indices_shape = {2, 2};
  std::vector<int64_t> indices = {0, 0, 2, 2};  // repeated: the reduction combines both
  std::vector<float> updates = {3, -1, NAN, 0.5f};
  struct Case {
    const char* reduction;
    float (*combine)(float, float);
  };
  const Case cases[] = {
      {"add", [](float d, float u) { return d + u; }},
      {"mul", [](float d, float u) { return d * u; }},
      {"max", [](float d, float u) { return std::isnan(d) || std::isnan(u) ? NAN : std::max(d, u); }},
      {"min", [](float d, float u) { return std::isnan(d) || std::isnan(u) ? NAN : std::min(d, u); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reduction);
    OneNode node("ScatterElements", 18);
    node.input(data_shape, data).input<int64_t>(indices_shape, indices).input(indices_shape, updates);
    node.attr("axis", int64_t{1}).attr("reduction", std::string(c.reduction));
    expect_close(node.run(), scatter_elements<float>(data_shape, data, indices_shape, indices, updates, 1, c.combine));
  }
}

TEST(ScatterElements, IntegerReductionsWrap) {
  // numpy: int32 max + 1 wraps, and so does a product (no signed overflow in the C).
  int32_t big = std::numeric_limits<int32_t>::max();
  OneNode add("ScatterElements", 16);
  add.input<int32_t>({2}, {big, 5}).input<int64_t>({2}, {0, 1}).input<int32_t>({2}, {1, 3}).attr("reduction", std::string("add"));
  expect_equal(add.run<int32_t>(), std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 8});
  // The sum is computed in uint32, where C defines the wrap-around (in int32 it is undefined).
  EXPECT_NE(add.printed_ir().find("uint32"), std::string::npos) << add.printed_ir();
  OneNode mul("ScatterElements", 16);
  mul.input<int64_t>({1}, {int64_t{1} << 62}).input<int64_t>({1}, {0}).input<int64_t>({1}, {4}).attr("reduction", std::string("mul"));
  expect_equal(mul.run<int64_t>(), std::vector<int64_t>{0});
  OneNode uint8_max("ScatterElements", 18);
  uint8_max.input<uint8_t>({2}, {200, 7}).input<int64_t>({2}, {0, 0}).input<uint8_t>({2}, {250, 100}).attr("reduction", std::string("max"));
  expect_equal(uint8_max.run<uint8_t>(), std::vector<uint8_t>{250, 7});
}

TEST(ScatterElements, RejectsInvalidNodes) {
  OneNode bad_reduction("ScatterElements", 18);
  bad_reduction.input({2}).input<int64_t>({1}, {0}).input({1}).attr("reduction", std::string("mean"));
  expect_error(bad_reduction, "reduction 'mean'");
  OneNode bool_add("ScatterElements", 18);
  bool_add.input_bytes(DataType::Bool(), {2}, {0, 1}).input<int64_t>({1}, {0}).input_bytes(DataType::Bool(), {1}, {1});
  bool_add.attr("reduction", std::string("add"));
  expect_error(bool_add, "does not apply to bool");
  OneNode shapes("ScatterElements");
  shapes.input({3}).input<int64_t>({2}, {0, 1}).input({1});
  expect_error(shapes, "differ in shape");
  OneNode out_of_range("ScatterElements");
  out_of_range.input({3}).constant<int64_t>(Shape{1}, {3}).input({1});
  expect_error(out_of_range, "out of range");
  OneNode runtime("ScatterElements");
  runtime.input({3}).input<int64_t>({2}, {0, -4}).input({2});
  EXPECT_NE(runtime.kernel_status(), 0);
}

// ---------------------------------------------------------------- ScatterND

TEST(ScatterND, ElementsAndSlicesWithReductions) {
  Shape data_shape = {3, 2};
  std::vector<int64_t> data = {1, 2, 3, 4, 5, 6};
  // k = 2: single elements; k = 1: whole rows.
  OneNode elements("ScatterND");
  elements.input<int64_t>(data_shape, data).input<int64_t>({2, 2}, {0, 1, -1, -2}).input<int64_t>({2}, {10, 20});
  expect_equal(elements.run<int64_t>(), std::vector<int64_t>{1, 10, 3, 4, 20, 6});
  OneNode rows("ScatterND", 16);
  rows.input<int64_t>(data_shape, data).input<int64_t>({2, 1}, {2, 2}).input<int64_t>({2, 2}, {10, 20, 30, 40});
  rows.attr("reduction", std::string("add"));
  expect_equal(rows.run<int64_t>(), std::vector<int64_t>{1, 2, 3, 4, 45, 66});
  OneNode last_wins("ScatterND");
  last_wins.input<int64_t>(data_shape, data).input<int64_t>({2, 1}, {-3, 0}).input<int64_t>({2, 2}, {7, 7, 8, 8});
  expect_equal(last_wins.run<int64_t>(), std::vector<int64_t>{8, 8, 3, 4, 5, 6});
  OneNode mul("ScatterND", 16);
  mul.input<int64_t>(data_shape, data).input<int64_t>({1, 2}, {1, 1}).input<int64_t>({1}, {-3}).attr("reduction", std::string("mul"));
  expect_equal(mul.run<int64_t>(), std::vector<int64_t>{1, 2, 3, -12, 5, 6});
}

TEST(ScatterND, RejectsBadShapesAndIndices) {
  OneNode updates("ScatterND");
  updates.input({3, 2}).input<int64_t>({2, 1}, {0, 1}).input({2, 3});
  expect_error(updates, "updates have shape [2, 3]; expected [2, 2]");
  OneNode out_of_range("ScatterND");
  out_of_range.input({3, 2}).constant<int64_t>(Shape{1, 2}, {0, 2}).input({1});
  expect_error(out_of_range, "index 2 (element 1) is out of range [-2, 1]");
  OneNode runtime("ScatterND");
  runtime.input({3, 2}).input<int64_t>({1, 1}, {3}).input({1, 2});
  EXPECT_NE(runtime.kernel_status(), 0);
}

// ---------------------------------------------------------------- MaxUnpool

TEST(MaxUnpool, PlacesValuesAtTheirFlatIndices) {
  // X [1, 1, 2, 2] from a 2x2 pool with stride 2 over [1, 1, 4, 4]: zeros elsewhere.
  std::vector<float> x = {5, 6, 7, 8};
  std::vector<int64_t> indices = {5, 3, 8, 15};
  std::vector<float> want(16, 0);
  for (size_t i = 0; i < 4; ++i) want[static_cast<size_t>(indices[i])] = x[i];
  OneNode node("MaxUnpool", 11);
  node.input<float>({1, 1, 2, 2}, x).input<int64_t>({1, 1, 2, 2}, indices);
  node.attr("kernel_shape", Shape{2, 2}).attr("strides", Shape{2, 2});
  EXPECT_EQ(node.infer(), (Shape{1, 1, 4, 4}));
  expect_equal(node.run(), want);
  OneNode runtime("MaxUnpool", 11);
  runtime.input<float>({1, 1, 1, 1}, {1}).input<int64_t>({1, 1, 1, 1}, {4}).attr("kernel_shape", Shape{2, 2});
  EXPECT_NE(runtime.kernel_status(), 0);
}

}  // namespace
}  // namespace aotc::test
