// Tests of the operators that reshape or move data: the views Flatten, Reshape, Squeeze
// and Unsqueeze (lowering/ops/onnx/views.cc), Slice and Split (slice_split.cc), Shape, Size,
// ConstantOfShape and Range (shape_arith.cc), Transpose, Concat, Expand, Tile,
// DepthToSpace, SpaceToDepth and ReverseSequence (rearrange.cc), Trilu and EyeLike
// (triangular.cc), and CenterCropPad (pad.cc).
//
// References are loops written here from the ONNX definitions (numpy's slicing rules, the
// reshape-transpose-reshape formulas of DepthToSpace and SpaceToDepth); the view
// operators, which have no kernel, are checked through their shape functions.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

std::vector<float> iota_floats(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return v;
}

// ---------------------------------------------------------------- views

TEST(Views, FlattenAtEachAxis) {
  for (auto [axis, want] : std::vector<std::pair<int64_t, Shape>>{
           {0, {1, 24}}, {1, {2, 12}}, {2, {6, 4}}, {3, {24, 1}}, {-1, {6, 4}}, {-3, {1, 24}}}) {
    OneNode flatten("Flatten");
    flatten.input({2, 3, 4}).attr("axis", axis);
    EXPECT_EQ(flatten.infer(), want) << "axis " << axis;
  }
  OneNode outside("Flatten");
  outside.input({2, 3}).attr("axis", int64_t{3});
  expect_error(outside, "out of range");
}

TEST(Views, ReshapeResolvesZeroAndMinusOne) {
  OneNode reshape("Reshape");
  reshape.input({2, 3, 4}).constant<int64_t>({0, -1, 2});
  EXPECT_EQ(reshape.infer(), (Shape{2, 6, 2}));
  OneNode to_scalar("Reshape");
  to_scalar.input({1, 1}).constant<int64_t>(Shape{0}, {});
  EXPECT_EQ(to_scalar.infer(), (Shape{}));
  OneNode int32_shape("Reshape");
  int32_shape.input({6}).constant<int32_t>({3, -1});
  EXPECT_EQ(int32_shape.infer(), (Shape{3, 2}));
  OneNode two_unknown("Reshape");
  two_unknown.input({6}).constant<int64_t>({-1, -1});
  expect_error(two_unknown, "more than one -1");
  OneNode count("Reshape");
  count.input({6}).constant<int64_t>({4, 2});
  expect_error(count, "cannot reshape [6] (6 elements) to [4, 2]");
  OneNode allow_zero("Reshape", 14);
  allow_zero.input({6}).constant<int64_t>({0, -1}).attr("allowzero", int64_t{1});
  expect_error(allow_zero, "both 0 and -1");
  OneNode zero_past_rank("Reshape");
  zero_past_rank.input({6}).constant<int64_t>({6, 0});
  expect_error(zero_past_rank, "has no dimension 1");
}

TEST(Views, SqueezeAndUnsqueeze) {
  OneNode squeeze("Squeeze");
  squeeze.input({1, 3, 1, 2}).constant<int64_t>({-2});
  EXPECT_EQ(squeeze.infer(), (Shape{1, 3, 2}));
  OneNode all("Squeeze");
  all.input({1, 3, 1, 2});
  EXPECT_EQ(all.infer(), (Shape{3, 2}));
  OneNode attribute("Squeeze", 11);
  attribute.input({1, 3, 1}).attr("axes", Shape{0});
  EXPECT_EQ(attribute.infer(), (Shape{3, 1}));
  OneNode not_one("Squeeze");
  not_one.input({1, 3}).constant<int64_t>({1});
  expect_error(not_one, "its size is not 1");
  OneNode unsqueeze("Unsqueeze");
  unsqueeze.input({3, 2}).constant<int64_t>({-1, 0});
  EXPECT_EQ(unsqueeze.infer(), (Shape{1, 3, 2, 1}));
  OneNode twice("Unsqueeze");
  twice.input({3}).constant<int64_t>({0, -3});  // output rank 3: -3 is axis 0
  expect_error(twice, "name an axis twice");
  OneNode missing("Unsqueeze");
  missing.input({3});
  expect_error(missing, "axes are required");
}

// ---------------------------------------------------------------- Slice

// numpy's x[start:end:step] along one axis: the positions it takes (ONNX's clamping).
std::vector<int64_t> slice_positions(int64_t dim, int64_t start, int64_t end, int64_t step) {
  auto adjust = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += dim;
    return std::max(lo, std::min(hi, v));
  };
  std::vector<int64_t> positions;
  if (step > 0) {
    for (int64_t i = adjust(start, 0, dim); i < adjust(end, 0, dim); i += step) positions.push_back(i);
  } else {
    for (int64_t i = adjust(start, 0, dim - 1); i > adjust(end, -1, dim - 1); i += step) positions.push_back(i);
  }
  return positions;
}

TEST(Slice, NegativeBoundsStepsAndClamping) {
  Shape shape = {5, 6};
  std::vector<float> x = iota_floats(30);
  const int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  struct Case {
    int64_t start0, end0, step0, start1, end1, step1;
  };
  const Case cases[] = {
      {1, 4, 1, -4, kMax, 2},  {-1, kMin, -1, 5, 0, -2}, {0, 5, 3, -100, 100, 1},
      {4, -6, -2, 2, 3, 1},    {2, 100, 7, kMax, -7, -1},
  };
  for (const Case& c : cases) {
    std::vector<int64_t> rows = slice_positions(5, c.start0, c.end0, c.step0);
    std::vector<int64_t> cols = slice_positions(6, c.start1, c.end1, c.step1);
    SCOPED_TRACE("rows " + std::to_string(rows.size()) + " cols " + std::to_string(cols.size()));
    std::vector<float> want;
    for (int64_t r : rows)
      for (int64_t col : cols) want.push_back(x[static_cast<size_t>(r * 6 + col)]);
    OneNode slice("Slice");
    slice.input(shape, x).constant<int64_t>({c.start0, c.start1}).constant<int64_t>({c.end0, c.end1});
    slice.constant<int64_t>({0, 1}).constant<int64_t>({c.step0, c.step1});
    EXPECT_EQ(slice.infer(), (Shape{static_cast<int64_t>(rows.size()), static_cast<int64_t>(cols.size())}));
    expect_equal(slice.run(), want);
  }
}

TEST(Slice, NegativeAxesDefaultStepsAndIntegerData) {
  std::vector<int8_t> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  OneNode slice("Slice");
  slice.input<int8_t>({3, 4}, x).constant<int32_t>({1}).constant<int32_t>({3}).constant<int32_t>({-1});
  EXPECT_EQ(slice.infer(), (Shape{3, 2}));
  expect_equal(slice.run<int8_t>(), std::vector<int8_t>{2, 3, 6, 7, 10, 11});
  // Before opset 10, starts/ends/axes are attributes.
  OneNode old("Slice", 9);
  old.input<int8_t>({3, 4}, x).attr("starts", Shape{1}).attr("ends", Shape{2}).attr("axes", Shape{0});
  expect_equal(old.run<int8_t>(), std::vector<int8_t>{5, 6, 7, 8});
}

TEST(Slice, RejectsWhatItCannotSlice) {
  OneNode empty("Slice");
  empty.input({4}).constant<int64_t>({3}).constant<int64_t>({1});
  expect_error(empty, "without elements");
  OneNode zero_step("Slice");
  zero_step.input({4}).constant<int64_t>({0}).constant<int64_t>({4}).constant<int64_t>({0}).constant<int64_t>({0});
  expect_error(zero_step, "step 0");
  OneNode lengths("Slice");
  lengths.input({4, 4}).constant<int64_t>({0, 0}).constant<int64_t>({1});
  expect_error(lengths, "different lengths");
  OneNode runtime("Slice");
  runtime.input({4}).input<int64_t>({1}, {0}).constant<int64_t>({2});
  expect_error(runtime, "Slice needs constant starts (static shapes only)");
  OneNode repeated("Slice");
  repeated.input({4, 4}).constant<int64_t>({0, 0}).constant<int64_t>({1, 1}).constant<int64_t>({1, -1});
  expect_error(repeated, "name an axis twice");
}

// ---------------------------------------------------------------- Split

// Runs Split with `outputs` outputs; returns each output's elements.
std::vector<std::vector<float>> run_split(OneNode& split, size_t outputs) {
  for (size_t i = 1; i < outputs; ++i) split.extra_output(true);
  split.infer();
  std::vector<std::vector<float>> pieces;
  for (size_t i = 0; i < outputs; ++i) pieces.push_back(split.run_output(i));
  return pieces;
}

TEST(Split, EqualPartsAndGivenSizes) {
  std::vector<float> x = iota_floats(12);  // [2, 6]
  OneNode equal("Split");
  equal.input({2, 6}, x).attr("axis", int64_t{-1});
  auto pieces = run_split(equal, 3);
  EXPECT_EQ(equal.output_shape(2), (Shape{2, 2}));
  expect_equal(pieces[0], std::vector<float>{0, 1, 6, 7});
  expect_equal(pieces[2], std::vector<float>{4, 5, 10, 11});
  OneNode sizes("Split");
  sizes.input({2, 6}, x).constant<int64_t>({1, 5}).attr("axis", int64_t{1});
  pieces = run_split(sizes, 2);
  expect_equal(pieces[0], std::vector<float>{0, 6});
  expect_equal(pieces[1], std::vector<float>{1, 2, 3, 4, 5, 7, 8, 9, 10, 11});
  OneNode attribute("Split", 11);
  attribute.input({2, 6}, x).attr("split", Shape{1, 1});
  pieces = run_split(attribute, 2);
  expect_equal(pieces[1], std::vector<float>{6, 7, 8, 9, 10, 11});
}

TEST(Split, NumOutputsGivesASmallerLastPart) {
  // Opset 18: 7 elements in 3 parts of ceil(7 / 3) = 3: 3, 3, 1.
  OneNode split("Split", 18);
  split.input({7}, iota_floats(7)).attr("num_outputs", int64_t{3});
  auto pieces = run_split(split, 3);
  EXPECT_EQ(split.output_shape(0), (Shape{3}));
  EXPECT_EQ(split.output_shape(2), (Shape{1}));
  expect_equal(pieces[1], std::vector<float>{3, 4, 5});
  expect_equal(pieces[2], std::vector<float>{6});
}

TEST(Split, RejectsSizesThatDoNotAddUp) {
  OneNode sum("Split");
  sum.input({6}).constant<int64_t>({2, 3}).extra_output(true);
  expect_error(sum, "adds up to 5");
  OneNode uneven("Split");
  uneven.input({5}).extra_output(true);
  expect_error(uneven, "does not split into 2 equal parts");
  OneNode scalar("Split");
  scalar.input({});
  expect_error(scalar, "rank >= 1");
}

// ---------------------------------------------------------------- Shape, Size, ConstantOfShape, Range

TEST(ShapeArithmetic, ShapeWithStartAndEndAndSize) {
  OneNode shape("Shape", 15);
  shape.input({2, 3, 4, 5}).attr("start", int64_t{1}).attr("end", int64_t{-1});
  EXPECT_EQ(shape.infer(), (Shape{2}));
  EXPECT_EQ(shape.output_type(), DataType::Int(64));
  expect_equal(shape.run<int64_t>(), std::vector<int64_t>{3, 4});
  OneNode clamped("Shape", 15);
  clamped.input({2, 3}).attr("start", int64_t{-10}).attr("end", int64_t{10});
  expect_equal(clamped.run<int64_t>(), std::vector<int64_t>{2, 3});
  OneNode empty("Shape", 15);
  empty.input({2, 3}).attr("start", int64_t{2});
  expect_error(empty, "no elements");
  OneNode size("Size");
  size.input<int8_t>({2, 3, 4}, std::vector<int8_t>(24, 0));
  EXPECT_EQ(size.infer(), (Shape{}));
  expect_equal(size.run<int64_t>(), std::vector<int64_t>{24});
}

TEST(ShapeArithmetic, ConstantOfShape) {
  Tensor value{"value", DataType::Int(64), {1}, true};
  value.data = to_bytes(std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
  OneNode filled("ConstantOfShape");
  filled.constant<int64_t>({2, 3}).attr("value", TensorAttr{value});
  EXPECT_EQ(filled.infer(), (Shape{2, 3}));
  EXPECT_EQ(filled.output_type(), DataType::Int(64));
  expect_equal(filled.run<int64_t>(), std::vector<int64_t>(6, std::numeric_limits<int64_t>::min()));
  OneNode zeros("ConstantOfShape");
  zeros.constant<int64_t>({3});
  expect_equal(zeros.run(), std::vector<float>{0, 0, 0});
  OneNode scalar("ConstantOfShape");
  scalar.constant<int64_t>(Shape{0}, {});
  EXPECT_EQ(scalar.infer(), (Shape{}));
  OneNode negative("ConstantOfShape");
  negative.constant<int64_t>({2, -1});
  expect_error(negative, "negative dimension");
  OneNode runtime("ConstantOfShape");
  runtime.input<int64_t>({1}, {3});
  expect_error(runtime, "needs constant");
}

TEST(ShapeArithmetic, RangeCountsAndValues) {
  // max(ceil((limit - start) / delta), 0) elements start + i * delta.
  OneNode floats("Range");
  floats.constant<float>(Shape{}, {1}).constant<float>(Shape{}, {2}).constant<float>(Shape{}, {0.25f});
  EXPECT_EQ(floats.infer(), (Shape{4}));
  expect_equal(floats.run(), std::vector<float>{1, 1.25f, 1.5f, 1.75f});
  OneNode down("Range");
  down.constant<int32_t>(Shape{}, {10}).constant<int32_t>(Shape{}, {-1}).constant<int32_t>(Shape{}, {-4});
  expect_equal(down.run<int32_t>(), std::vector<int32_t>{10, 6, 2});
  // limit - start does not fit int32, and i * delta leaves it on the way: the values still do.
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  OneNode wide("Range");
  wide.constant<int32_t>(Shape{}, {lo}).constant<int32_t>(Shape{}, {hi}).constant<int32_t>(Shape{}, {1500000000});
  expect_equal(wide.run<int32_t>(), std::vector<int32_t>{lo, lo + 1500000000, 852516352});
  EXPECT_NE(wide.printed_ir().find("uint32"), std::string::npos) << wide.printed_ir();  // no signed overflow in C
  const int64_t lo64 = std::numeric_limits<int64_t>::min(), hi64 = std::numeric_limits<int64_t>::max();
  OneNode wide64("Range");
  wide64.constant<int64_t>(Shape{}, {hi64}).constant<int64_t>(Shape{}, {lo64}).constant<int64_t>(Shape{}, {lo64});
  expect_equal(wide64.run<int64_t>(), std::vector<int64_t>{hi64, -1});
}

TEST(ShapeArithmetic, RangeRejects) {
  OneNode empty("Range");
  empty.constant<int64_t>(Shape{}, {5}).constant<int64_t>(Shape{}, {1}).constant<int64_t>(Shape{}, {1});
  expect_error(empty, "empty");
  OneNode huge("Range");
  huge.constant<int64_t>(Shape{}, {0}).constant<int64_t>(Shape{}, {std::numeric_limits<int64_t>::max()})
      .constant<int64_t>(Shape{}, {1});
  expect_error(huge, "too many elements");
  OneNode zero("Range");
  zero.constant<float>(Shape{}, {0}).constant<float>(Shape{}, {1}).constant<float>(Shape{}, {0});
  expect_error(zero, "nonzero");
  OneNode unsigned_range("Range");
  unsigned_range.constant<uint8_t>(Shape{}, {0}).constant<uint8_t>(Shape{}, {4}).constant<uint8_t>(Shape{}, {1});
  expect_error(unsigned_range, "not uint8");
  OneNode runtime("Range");
  runtime.input<float>({}, {0}).constant<float>(Shape{}, {1}).constant<float>(Shape{}, {1});
  expect_error(runtime, "compile-time constant");
}

// ---------------------------------------------------------------- Transpose, Concat

TEST(Rearrange, TransposeDefaultAndGivenPermutation) {
  Shape shape = {2, 3, 4};
  std::vector<int32_t> x(24);
  for (size_t i = 0; i < 24; ++i) x[i] = static_cast<int32_t>(i);
  for (const Shape& perm : {Shape{2, 1, 0}, Shape{1, 2, 0}, Shape{0, 2, 1}}) {
    Shape out_shape = {shape[static_cast<size_t>(perm[0])], shape[static_cast<size_t>(perm[1])], shape[static_cast<size_t>(perm[2])]};
    std::vector<int32_t> want;
    for_each_index(out_shape, [&](const Index& o, size_t) {
      Index in(3);
      for (size_t d = 0; d < 3; ++d) in[static_cast<size_t>(perm[d])] = o[d];
      want.push_back(x[static_cast<size_t>(flat_index(shape, in))]);
    });
    OneNode transpose("Transpose");
    transpose.input<int32_t>(shape, x);
    if (perm != Shape{2, 1, 0}) transpose.attr("perm", perm);  // the default reverses
    EXPECT_EQ(transpose.infer(), out_shape);
    expect_equal(transpose.run<int32_t>(), want);
  }
  OneNode bad("Transpose");
  bad.input({2, 3}).attr("perm", Shape{0, 0});
  expect_error(bad, "not a permutation");
}

TEST(Rearrange, ConcatAlongANegativeAxis) {
  OneNode concat("Concat");
  concat.input<uint16_t>({2, 1}, {1, 2}).input<uint16_t>({2, 2}, {3, 4, 5, 6}).input<uint16_t>({2, 1}, {7, 8});
  concat.attr("axis", int64_t{-1});
  EXPECT_EQ(concat.infer(), (Shape{2, 4}));
  expect_equal(concat.run<uint16_t>(), std::vector<uint16_t>{1, 3, 4, 7, 2, 5, 6, 8});
  OneNode rows("Concat");
  rows.input<float>({1, 2}, {1, 2}).input<float>({2, 2}, {3, 4, 5, 6}).attr("axis", int64_t{0});
  expect_equal(rows.run(), std::vector<float>{1, 2, 3, 4, 5, 6});
  OneNode mismatch("Concat");
  mismatch.input({2, 1}).input({3, 1}).attr("axis", int64_t{1});
  expect_error(mismatch, "differ outside axis 1");
  OneNode no_axis("Concat");
  no_axis.input({2}).input({2});
  expect_error(no_axis, "axis attribute is required");
}

// ---------------------------------------------------------------- Expand, Tile

TEST(Rearrange, ExpandBroadcastsBothWays) {
  // [3, 1] expanded by [2, 1, 4]: numpy broadcast [2, 3, 4]; the requested 1 keeps 3.
  std::vector<float> x = {1, 2, 3};
  std::vector<float> want;
  for_each_index({2, 3, 4}, [&](const Index& i, size_t) { want.push_back(x[static_cast<size_t>(i[1])]); });
  OneNode expand("Expand");
  expand.input({3, 1}, x).constant<int64_t>({2, 1, 4});
  EXPECT_EQ(expand.infer(), (Shape{2, 3, 4}));
  expect_equal(expand.run(), want);
  OneNode smaller("Expand");
  smaller.input<int64_t>({2, 2}, {1, 2, 3, 4}).constant<int64_t>({1});
  EXPECT_EQ(smaller.infer(), (Shape{2, 2}));
  expect_equal(smaller.run<int64_t>(), std::vector<int64_t>{1, 2, 3, 4});
  OneNode incompatible("Expand");
  incompatible.input({3}).constant<int64_t>({2});
  expect_error(incompatible, "");
}

TEST(Rearrange, OutputsTooLargeToIndexAreRejected) {
  OneNode expand("Expand");
  expand.input({1}).constant<int64_t>({int64_t{1} << 20, int64_t{1} << 20});
  expect_error(expand, "elements");
  OneNode tile("Tile");
  tile.input({2, 2}).constant<int64_t>({int64_t{1} << 40, int64_t{1} << 40});
  expect_error(tile, "elements");
}

TEST(Rearrange, TileRepeatsEachAxis) {
  Shape shape = {2, 3};
  std::vector<float> x = iota_floats(6);
  Shape repeats = {2, 3};
  Shape out_shape = {4, 9};
  std::vector<float> want;
  for_each_index(out_shape, [&](const Index& o, size_t) { want.push_back(x[static_cast<size_t>((o[0] % 2) * 3 + o[1] % 3)]); });
  OneNode tile("Tile");
  tile.input(shape, x).constant<int64_t>(repeats);
  EXPECT_EQ(tile.infer(), out_shape);
  expect_equal(tile.run(), want);
  OneNode wrong("Tile");
  wrong.input({2, 3}).constant<int64_t>({2});
  expect_error(wrong, "repeats has 1 entries");
  OneNode zero("Tile");
  zero.input({2, 3}).constant<int64_t>({0, 1});
  expect_error(zero, "without elements");
}

// ---------------------------------------------------------------- DepthToSpace, SpaceToDepth

// ONNX's definitions (reshape, transpose, reshape), element by element:
//   DCR: y[n, c, h b + i, w b + j] = x[n, (i b + j) C' + c, h, w]
//   CRD: y[n, c, h b + i, w b + j] = x[n, c b^2 + i b + j, h, w]
TEST(Rearrange, DepthToSpaceBothModes) {
  const int64_t b = 2, n = 1, c = 8, h = 2, w = 3, c_out = c / (b * b);
  Shape x_shape = {n, c, h, w}, y_shape = {n, c_out, h * b, w * b};
  std::vector<float> x = iota_floats(n * c * h * w);
  for (const std::string mode : {"DCR", "CRD"}) {
    SCOPED_TRACE(mode);
    std::vector<float> want;
    for_each_index(y_shape, [&](const Index& o, size_t) {
      int64_t i = o[2] % b, j = o[3] % b;
      int64_t channel = mode == "DCR" ? (i * b + j) * c_out + o[1] : o[1] * b * b + i * b + j;
      want.push_back(x[static_cast<size_t>(flat_index(x_shape, {o[0], channel, o[2] / b, o[3] / b}))]);
    });
    OneNode node("DepthToSpace");
    node.input(x_shape, x).attr("blocksize", b).attr("mode", mode);
    EXPECT_EQ(node.infer(), y_shape);
    expect_equal(node.run(), want);
  }
  OneNode channels("DepthToSpace");
  channels.input({1, 6, 2, 2}).attr("blocksize", int64_t{2});
  expect_error(channels, "not a multiple of blocksize^2");
  OneNode mode("DepthToSpace");
  mode.input({1, 4, 2, 2}).attr("blocksize", int64_t{2}).attr("mode", std::string("XYZ"));
  expect_error(mode, "mode 'XYZ'");
}

// y[n, (i b + j) C + c, h, w] = x[n, c, h b + i, w b + j].
TEST(Rearrange, SpaceToDepthInvertsDepthToSpaceDcr) {
  const int64_t b = 2;
  Shape x_shape = {2, 3, 4, 6}, y_shape = {2, 12, 2, 3};
  std::vector<int8_t> x(static_cast<size_t>(element_count(x_shape)));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int8_t>(i % 251);
  std::vector<int8_t> want(x.size());
  for_each_index(x_shape, [&](const Index& i, size_t flat) {
    int64_t channel = ((i[2] % b) * b + i[3] % b) * 3 + i[1];
    want[static_cast<size_t>(flat_index(y_shape, {i[0], channel, i[2] / b, i[3] / b}))] = x[flat];
  });
  OneNode node("SpaceToDepth");
  node.input<int8_t>(x_shape, x).attr("blocksize", b);
  EXPECT_EQ(node.infer(), y_shape);
  expect_equal(node.run<int8_t>(), want);
  OneNode uneven("SpaceToDepth");
  uneven.input({1, 1, 3, 4}).attr("blocksize", int64_t{2});
  expect_error(uneven, "not multiples of blocksize");
  OneNode rank("SpaceToDepth");
  rank.input({1, 4, 4}).attr("blocksize", int64_t{2});
  expect_error(rank, "must be 4-D");
}

// ---------------------------------------------------------------- ReverseSequence

TEST(Rearrange, ReverseSequenceBothLayouts) {
  // The first lens[b] steps of batch entry b reversed, the rest in place.
  std::vector<float> x = iota_floats(12);
  for (int64_t batch_axis : {0, 1}) {
    int64_t time_axis = 1 - batch_axis;
    Shape shape = batch_axis == 0 ? Shape{3, 4} : Shape{4, 3};
    std::vector<int64_t> lens = {4, 1, 2};
    std::vector<float> want(12);
    for_each_index(shape, [&](const Index& o, size_t flat) {
      int64_t b = o[static_cast<size_t>(batch_axis)], t = o[static_cast<size_t>(time_axis)];
      Index in = o;
      in[static_cast<size_t>(time_axis)] = t < lens[static_cast<size_t>(b)] ? lens[static_cast<size_t>(b)] - 1 - t : t;
      want[flat] = x[static_cast<size_t>(flat_index(shape, in))];
    });
    OneNode node("ReverseSequence");
    node.input(shape, x).input<int64_t>({3}, lens).attr("batch_axis", batch_axis).attr("time_axis", time_axis);
    expect_equal(node.run(), want);
  }
  OneNode too_long("ReverseSequence");
  too_long.input({4, 3}).input<int64_t>({3}, {1, 5, 1});
  EXPECT_NE(too_long.kernel_status(), 0);
  OneNode constant_too_long("ReverseSequence");
  constant_too_long.input({4, 3}).constant<int64_t>({1, 5, 1});
  expect_error(constant_too_long, "sequence length 5 is out of range [0, 4]");
  OneNode axes("ReverseSequence");
  axes.input({4, 3}).input<int64_t>({3}, {1, 1, 1}).attr("batch_axis", int64_t{0}).attr("time_axis", int64_t{0});
  expect_error(axes, "must be 0 and 1");
}

// ---------------------------------------------------------------- Trilu, EyeLike

TEST(Triangular, TriluKeepsOneSideOfDiagonalK) {
  Shape shape = {2, 3, 4};
  std::vector<float> x = iota_floats(24);
  for (int64_t upper : {0, 1}) {
    for (int64_t k : {-5, -1, 0, 2, 9}) {
      SCOPED_TRACE("upper " + std::to_string(upper) + " k " + std::to_string(k));
      std::vector<float> want;
      for_each_index(shape, [&](const Index& i, size_t flat) {
        bool keep = upper ? i[2] - i[1] >= k : i[2] - i[1] <= k;
        want.push_back(keep ? x[flat] : 0);
      });
      OneNode trilu("Trilu", 14);
      trilu.input(shape, x).constant<int64_t>(Shape{}, {k}).attr("upper", upper);
      expect_equal(trilu.run(), want);
    }
  }
  OneNode vector("Trilu", 14);
  vector.input({3});
  expect_error(vector, "rank >= 2");
}

TEST(Triangular, EyeLikeWithOffsetAndType) {
  OneNode eye("EyeLike");
  eye.input({3, 4}).attr("k", int64_t{1}).attr("dtype", int64_t{7});
  EXPECT_EQ(eye.infer(), (Shape{3, 4}));
  EXPECT_EQ(eye.output_type(), DataType::Int(64));
  expect_equal(eye.run<int64_t>(), std::vector<int64_t>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  OneNode below("EyeLike");
  below.input<double>({3, 2}, std::vector<double>(6, 5.0)).attr("k", int64_t{-2});
  expect_equal(below.run<double>(), std::vector<double>{0, 0, 0, 0, 1, 0});
  OneNode bad_type("EyeLike");
  bad_type.input({2, 2}).attr("dtype", int64_t{8});
  expect_error(bad_type, "not supported");
  OneNode rank("EyeLike");
  rank.input({2, 2, 2});
  expect_error(rank, "must be 2-D");
}

// ---------------------------------------------------------------- CenterCropPad

TEST(CenterCropPad, CropsAndPadsEachAxisAroundTheCentre) {
  // [4, 3] to [2, 6]: rows cropped by 1 at each end, columns padded 1 before and 2 after
  // (the odd one at the end).
  std::vector<int32_t> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  OneNode node("CenterCropPad", 18);
  node.input<int32_t>({4, 3}, x).constant<int64_t>({2, 6});
  EXPECT_EQ(node.infer(), (Shape{2, 6}));
  expect_equal(node.run<int32_t>(), std::vector<int32_t>{0, 4, 5, 6, 0, 0, 0, 7, 8, 9, 0, 0});
  // With axes, only the listed ones change; an odd crop drops the extra element at the end.
  OneNode axes("CenterCropPad", 18);
  axes.input<int32_t>({4, 3}, x).constant<int64_t>({2}).attr("axes", Shape{-1});
  expect_equal(axes.run<int32_t>(), std::vector<int32_t>{1, 2, 4, 5, 7, 8, 10, 11});
  OneNode count("CenterCropPad", 18);
  count.input({4, 3}).constant<int64_t>({2});
  expect_error(count, "shape has 1 entries for 2 axes");
}

TEST(Pad, Int64ConstantValueIsExact) {
  // 2^62 + 1 is not a double: the fill value must not pass through one.
  const int64_t fill = (int64_t{1} << 62) + 1;
  OneNode pad("Pad");
  pad.input<int64_t>({2}, {1, 2}).constant<int64_t>({1, 0}).constant<int64_t>(Shape{}, {fill});
  expect_equal(pad.run<int64_t>(), std::vector<int64_t>{fill, 1, 2});
}

}  // namespace
}  // namespace aotc::test
