// TFLite TRANSPOSE, CONCATENATION, PAD, PADV2, SPLIT, SPLIT_V, SLICE, GATHER, STRIDED_SLICE,
// PACK, UNPACK, DEPTH_TO_SPACE, SPACE_TO_DEPTH, SQUEEZE and EXPAND_DIMS
// (lowering/ops/tflite/tflite_data_movement.cc, tflite_misc.cc), in the IR interpreter; those
// TFLite Micro also runs on int16 on both int8 and int16 at the end, and GATHER and
// DEPTH_TO_SPACE there too (TFLite Micro runs them on float32 and int8 only).
//
// Expectations are plain loops over TFLite's definitions (reference_ops) or, for
// STRIDED_SLICE's masks, results worked out by hand from TensorFlow's documented rules.
// int8 tensors are moved as they are, as TFLite Micro does.
#include <gtest/gtest.h>

#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

const Quant kQ{0.1f, -3};

std::vector<int8_t> iota_int8(size_t n, int first = -60) {
  std::vector<int8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>(first + static_cast<int>(i));
  return v;
}

std::vector<float> iota_float(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

// ---------------------------------------------------------------- TRANSPOSE

TEST(TfliteTranspose, Int8AndFloatFollowPerm) {
  Shape in = {2, 3, 4};
  std::vector<int8_t> x = iota_int8(24);
  OneNode n("tfl.TRANSPOSE");
  n.input(in, x, kQ).constant<int32_t>({2, 0, 1}).output(DataType::Int(8), {4, 2, 3}, kQ);
  std::vector<int8_t> got = n.run<int8_t>();
  for_each_index({4, 2, 3}, [&](const Index& o, size_t flat) {
    EXPECT_EQ(got[flat], x[static_cast<size_t>((o[1] * 3 + o[2]) * 4 + o[0])]) << flat;
  });

  std::vector<float> xf = iota_float(6);
  OneNode f("tfl.TRANSPOSE");
  f.input({2, 3}, xf).constant<int32_t>({1, 0}).output(DataType::Float32(), {3, 2});
  EXPECT_EQ(f.run<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TfliteTranspose, RejectsADeclaredShapeThatDisagrees) {
  OneNode n("tfl.TRANSPOSE");
  n.input({2, 3}, iota_float(6)).constant<int32_t>({1, 0}).output(DataType::Float32(), {2, 3});
  EXPECT_NE(n.error().find("'out' is [2, 3] in the model but the operator computes [3, 2]"), std::string::npos)
      << n.error();
}

// ---------------------------------------------------------------- CONCATENATION

TEST(TfliteConcatenation, Int8AlongTheLastAxisCopiesValues) {
  std::vector<int8_t> a = iota_int8(6, 0), b = iota_int8(4, 50), c = iota_int8(2, -100);
  OneNode n("tfl.CONCATENATION");
  n.input({2, 3}, a, kQ).input({2, 2}, b, kQ).input({2, 1}, c, kQ).output(DataType::Int(8), {2, 6}, kQ);
  n.attr("axis", int64_t{-1});
  std::vector<int8_t> want = {0, 1, 2, 50, 51, -100, 3, 4, 5, 52, 53, -99};
  EXPECT_EQ(n.run<int8_t>(), want);
}

TEST(TfliteConcatenation, FloatAlongAxis0AndActivationIsRejected) {
  OneNode n("tfl.CONCATENATION");
  n.input({1, 2}, std::vector<float>{1, 2}).input({2, 2}, std::vector<float>{3, 4, 5, 6});
  n.output(DataType::Float32(), {3, 2}).attr("axis", int64_t{0});
  EXPECT_EQ(n.run<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  OneNode relu("tfl.CONCATENATION");
  relu.input({1, 2}, std::vector<float>{1, 2}).input({1, 2}, std::vector<float>{3, 4});
  relu.output(DataType::Float32(), {2, 2}).attr("axis", int64_t{0}).attr("fused_activation", std::string("RELU"));
  EXPECT_NE(relu.error().find("fused activation RELU is not supported"), std::string::npos) << relu.error();
}

// ---------------------------------------------------------------- PAD, PADV2

// y[i] = x[i - before] inside, `fill` outside.
template <typename T>
std::vector<T> padded(const Shape& in, const std::vector<T>& x, const std::vector<int32_t>& paddings, T fill) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) out.push_back(in[d] + paddings[2 * d] + paddings[2 * d + 1]);
  std::vector<T> y(static_cast<size_t>(element_count(out)), fill);
  for_each_index(out, [&](const Index& o, size_t flat) {
    size_t src = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      int64_t i = o[d] - paddings[2 * d];
      if (i < 0 || i >= in[d]) return;
      src = src * static_cast<size_t>(in[d]) + static_cast<size_t>(i);
    }
    y[flat] = x[src];
  });
  return y;
}

TEST(TflitePad, Int8FillsWithTheOutputZeroPoint) {
  std::vector<int8_t> x = iota_int8(12);
  std::vector<int32_t> paddings = {0, 0, 1, 2, 0, 1};
  OneNode n("tfl.PAD");
  n.input({1, 3, 4}, x, kQ).constant<int32_t>({3, 2}, paddings).output(DataType::Int(8), {1, 6, 5}, kQ);
  EXPECT_EQ(n.run<int8_t>(), padded<int8_t>({1, 3, 4}, x, paddings, -3));
}

TEST(TflitePad, FloatFillsWithZeroAndPadV2WithItsConstant) {
  std::vector<float> x = random_floats(6, 3);
  std::vector<int32_t> paddings = {2, 1, 0, 3};
  OneNode n("tfl.PAD");
  n.input({2, 3}, x).constant<int32_t>({2, 2}, paddings).output(DataType::Float32(), {5, 6});
  EXPECT_EQ(n.run<float>(), padded<float>({2, 3}, x, paddings, 0.0f));

  std::vector<int8_t> xq = iota_int8(6);
  OneNode v2("tfl.PADV2");
  v2.input({2, 3}, xq, kQ).constant<int32_t>({2, 2}, paddings).constant<int8_t>({}, {-77}, kQ);
  v2.output(DataType::Int(8), {5, 6}, kQ);
  EXPECT_EQ(v2.run<int8_t>(), padded<int8_t>({2, 3}, xq, paddings, -77));
}

TEST(TflitePad, RejectsNegativeAndMisshapenPaddings) {
  OneNode negative("tfl.PAD");
  negative.input({2, 3}, iota_float(6)).constant<int32_t>({2, 2}, {0, -1, 0, 0}).output(DataType::Float32(), {1, 3});
  EXPECT_NE(negative.error().find("has a negative entry"), std::string::npos) << negative.error();
  OneNode shape("tfl.PAD");
  shape.input({2, 3}, iota_float(6)).constant<int32_t>({4}, {0, 1, 0, 0}).output(DataType::Float32(), {3, 3});
  EXPECT_NE(shape.error().find("paddings is [4], expected [2, 2]"), std::string::npos) << shape.error();
}

// ---------------------------------------------------------------- SPLIT, SPLIT_V, UNPACK

TEST(TfliteSplit, EqualPartsAlongANegativeAxis) {
  OneNode n("tfl.SPLIT");
  n.constant<int32_t>({}, {-1}).input<int8_t>({2, 6}, iota_int8(12)).attr("num_splits", int64_t{3});
  for (int i = 0; i < 3; ++i) n.output(DataType::Int(8), {2, 2});
  std::vector<std::vector<int8_t>> got = n.run_outputs<int8_t>();
  for (int part = 0; part < 3; ++part)
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c) EXPECT_EQ(got[part][r * 2 + c], -60 + r * 6 + part * 2 + c) << part;
}

TEST(TfliteSplit, UnequalSplitIsRejected) {
  OneNode n("tfl.SPLIT");
  n.constant<int32_t>({}, {1}).input<float>({2, 5}, iota_float(10)).attr("num_splits", int64_t{2});
  n.output(DataType::Float32(), {2, 2}).output(DataType::Float32(), {2, 3});
  EXPECT_NE(n.error().find("does not split into 2 equal parts"), std::string::npos) << n.error();
}

TEST(TfliteSplitV, SizesWithOneInferred) {
  OneNode n("tfl.SPLIT_V");
  n.input<float>({5, 2}, iota_float(10)).constant<int32_t>({3}, {1, -1, 2}).constant<int32_t>({}, {0});
  n.attr("num_splits", int64_t{3});
  n.output(DataType::Float32(), {1, 2}).output(DataType::Float32(), {2, 2}).output(DataType::Float32(), {2, 2});
  std::vector<std::vector<float>> got = n.run_outputs<float>();
  EXPECT_EQ(got[0], (std::vector<float>{0, 1}));
  EXPECT_EQ(got[1], (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(got[2], (std::vector<float>{6, 7, 8, 9}));
}

TEST(TfliteUnpack, OneOutputPerIndexOfTheAxis) {
  OneNode n("tfl.UNPACK");
  n.input<int8_t>({2, 3, 2}, iota_int8(12)).attr("num", int64_t{3}).attr("axis", int64_t{-2});
  for (int i = 0; i < 3; ++i) n.output(DataType::Int(8), {2, 2});
  std::vector<std::vector<int8_t>> got = n.run_outputs<int8_t>();
  for (int j = 0; j < 3; ++j)
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 2; ++c) EXPECT_EQ(got[j][a * 2 + c], -60 + (a * 3 + j) * 2 + c);
}

// ---------------------------------------------------------------- PACK

TEST(TflitePack, StacksAlongANewAxis) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 20, 30, 40, 50, 60};
  OneNode n("tfl.PACK");
  n.input({2, 3}, a).input({2, 3}, b).attr("values_count", int64_t{2}).attr("axis", int64_t{1});
  n.output(DataType::Float32(), {2, 2, 3});
  EXPECT_EQ(n.run<float>(), (std::vector<float>{1, 2, 3, 10, 20, 30, 4, 5, 6, 40, 50, 60}));

  OneNode last("tfl.PACK");
  last.input({2}, std::vector<int8_t>{1, 2}, kQ).input({2}, std::vector<int8_t>{3, 4}, kQ);
  last.attr("values_count", int64_t{2}).attr("axis", int64_t{-1}).output(DataType::Int(8), {2, 2}, kQ);
  EXPECT_EQ(last.run<int8_t>(), (std::vector<int8_t>{1, 3, 2, 4}));
}

// ---------------------------------------------------------------- SLICE, STRIDED_SLICE

TEST(TfliteSlice, BeginAndSizeWithMinusOne) {
  OneNode n("tfl.SLICE");
  n.input({3, 4}, iota_float(12)).constant<int32_t>({1, 1}).constant<int32_t>({-1, 2});
  n.output(DataType::Float32(), {2, 2});
  EXPECT_EQ(n.run<float>(), (std::vector<float>{5, 6, 9, 10}));

  OneNode outside("tfl.SLICE");
  outside.input({3, 4}, iota_float(12)).constant<int32_t>({2, 0}).constant<int32_t>({2, 4});
  outside.output(DataType::Float32(), {2, 4});
  EXPECT_NE(outside.error().find("leave the input [3, 4]"), std::string::npos) << outside.error();
}

struct StridedCase {
  const char* name;
  std::vector<int32_t> begin, end, strides;
  int64_t begin_mask, end_mask, shrink_mask;
  Shape out;
  std::vector<float> want;  // of x = 0..23 in [2, 3, 4], by hand
};

class TfliteStridedSlice : public ::testing::TestWithParam<StridedCase> {};

TEST_P(TfliteStridedSlice, MatchesTensorflowsRules) {
  const StridedCase& c = GetParam();
  Shape n_shape = {static_cast<int64_t>(c.begin.size())};
  OneNode n("tfl.STRIDED_SLICE");
  n.input({2, 3, 4}, iota_float(24)).constant<int32_t>(n_shape, c.begin).constant<int32_t>(n_shape, c.end);
  n.constant<int32_t>(n_shape, c.strides).output(DataType::Float32(), c.out);
  n.attr("begin_mask", c.begin_mask).attr("end_mask", c.end_mask).attr("shrink_axis_mask", c.shrink_mask);
  EXPECT_EQ(n.run<float>(), c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TfliteStridedSlice,
    ::testing::Values(
        // x[1, 0:2, 1:4:2]
        StridedCase{"shrink_first", {1, 0, 1}, {2, 2, 4}, {1, 1, 2}, 0, 0, 1, {2, 2}, {13, 15, 17, 19}},
        // x[:, ::-1, -1] : rows reversed, last column
        StridedCase{"reverse_and_shrink", {0, 0, -1}, {0, 0, 0}, {1, -1, 1}, 3, 3, 4, {2, 3}, {11, 7, 3, 23, 19, 15}},
        // x[..., 3:0:-2] with one entry: padded in front to the full rank
        StridedCase{"fewer_entries", {3}, {0}, {-2}, 0, 0, 0, {2, 3, 2}, {3, 1, 7, 5, 11, 9, 15, 13, 19, 17, 23, 21}},
        // x[0:100, -2:, 1:-1]: ends clamp to the axis
        StridedCase{"clamped", {0, -2, 1}, {100, 3, -1}, {1, 1, 1}, 0, 0, 0, {2, 2, 2}, {5, 6, 9, 10, 17, 18, 21, 22}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(TfliteStridedSliceErrors, MasksTfliteMicroRejects) {
  OneNode n("tfl.STRIDED_SLICE");
  n.input({2, 3}, iota_float(6)).constant<int32_t>({0, 0}).constant<int32_t>({1, 1}).constant<int32_t>({1, 1});
  n.output(DataType::Float32(), {1, 1}).attr("ellipsis_mask", int64_t{1});
  EXPECT_NE(n.error().find("ellipsis_mask is not supported"), std::string::npos) << n.error();
  OneNode zero("tfl.STRIDED_SLICE");
  zero.input({2, 3}, iota_float(6)).constant<int32_t>({0, 0}).constant<int32_t>({1, 1}).constant<int32_t>({1, 0});
  zero.output(DataType::Float32(), {1, 1});
  EXPECT_NE(zero.error().find("stride 0 on axis 1"), std::string::npos) << zero.error();
}

// ---------------------------------------------------------------- GATHER

TEST(TfliteGather, Int8AlongAxis1) {
  std::vector<int8_t> x = iota_int8(12);
  std::vector<int32_t> idx = {2, 0, 2};
  OneNode n("tfl.GATHER");
  n.input({3, 4}, x, kQ).input({3}, idx).attr("axis", int64_t{1}).output(DataType::Int(8), {3, 3}, kQ);
  std::vector<int8_t> got = n.run<int8_t>();
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(got[r * 3 + j], x[r * 4 + idx[j]]);
}

TEST(TfliteGather, AnIndexPastTheEndIsAnErrorAtRunTime) {
  OneNode n("tfl.GATHER");
  n.input<float>({4}, iota_float(4)).input<int32_t>({2}, {1, 4}).output(DataType::Float32(), {2});
  EXPECT_NE(n.kernel_status(), 0);
}

// ---------------------------------------------------------------- DEPTH_TO_SPACE, SPACE_TO_DEPTH

TEST(TfliteDepthToSpace, FollowsTflitesNhwcLayoutAndSpaceToDepthInvertsIt) {
  const int64_t bs = 2, h = 2, w = 3, c_out = 3;
  Shape in = {1, h, w, c_out * bs * bs}, out = {1, h * bs, w * bs, c_out};
  std::vector<int8_t> x = iota_int8(static_cast<size_t>(element_count(in)));
  OneNode d2s("tfl.DEPTH_TO_SPACE");
  d2s.input(in, x, kQ).attr("block_size", bs).output(DataType::Int(8), out, kQ);
  std::vector<int8_t> got = d2s.run<int8_t>();
  for_each_index(out, [&](const Index& o, size_t flat) {
    int64_t in_d = o[3] + ((o[1] % bs) * bs + o[2] % bs) * c_out;
    EXPECT_EQ(got[flat], x[static_cast<size_t>(((o[1] / bs) * w + o[2] / bs) * (c_out * bs * bs) + in_d)]) << flat;
  });
  OneNode s2d("tfl.SPACE_TO_DEPTH");
  s2d.input(out, got, kQ).attr("block_size", bs).output(DataType::Int(8), in, kQ);
  EXPECT_EQ(s2d.run<int8_t>(), x);
}

TEST(TfliteDepthToSpace, RejectsChannelsThatDoNotDivide) {
  OneNode n("tfl.DEPTH_TO_SPACE");
  n.input({1, 1, 1, 6}, iota_float(6)).attr("block_size", int64_t{2}).output(DataType::Float32(), {1, 2, 2, 1});
  EXPECT_NE(n.error().find("6 channels do not divide by block_size^2 = 4"), std::string::npos) << n.error();
}

// ---------------------------------------------------------------- SQUEEZE, EXPAND_DIMS

TEST(TfliteViews, SqueezeAndExpandDimsAreViews) {
  OneNode all("tfl.SQUEEZE");
  all.input({1, 3, 1, 2}, iota_float(6)).output(DataType::Float32(), {3, 2});
  EXPECT_EQ(all.infer(), (Shape{3, 2}));
  OneNode listed("tfl.SQUEEZE");
  listed.input({1, 3, 1, 2}, iota_float(6)).attr("squeeze_dims", std::vector<int64_t>{-2});
  listed.output(DataType::Float32(), {1, 3, 2});
  EXPECT_EQ(listed.infer(), (Shape{1, 3, 2}));
  OneNode wrong("tfl.SQUEEZE");
  wrong.input({1, 3}, iota_float(3)).attr("squeeze_dims", std::vector<int64_t>{1}).output(DataType::Float32(), {1});
  EXPECT_NE(wrong.error().find("which is not 1"), std::string::npos) << wrong.error();

  OneNode expand("tfl.EXPAND_DIMS");
  expand.input({3, 2}, iota_float(6)).constant<int32_t>({}, {-1}).output(DataType::Float32(), {3, 2, 1});
  EXPECT_EQ(expand.infer(), (Shape{3, 2, 1}));
  EXPECT_TRUE(find_op("tfl.SQUEEZE")->is_view);
  EXPECT_TRUE(find_op("tfl.EXPAND_DIMS")->is_view);
}

// ---------------------------------------------------------------- int8 and int16

// TFLite Micro moves int16 tensors through TRANSPOSE, CONCATENATION, PAD, PADV2, SPLIT,
// SPLIT_V, SLICE, STRIDED_SLICE, PACK and UNPACK as it moves int8 ones (copies, no
// requantization; PAD fills int16 with 0, its zero point), and SQUEEZE and EXPAND_DIMS
// only reshape. Each again on both types, the int16 values beyond int8's range so that a
// copy one byte wide would show, against loops over TFLite's definitions. GATHER and
// DEPTH_TO_SPACE too: TFLite Micro's kernels take float32 and int8 only (gather.cc's and
// depth_to_space.cc's Prepare) while aotc's kernels copy every type, and int16 shows that
// the copy is two bytes wide.
template <typename T>
class TfliteQuantizedDataMovement : public ::testing::Test {
 protected:
  static DataType type() { return dtype_of<T>(); }
  // int16 tensors are symmetric in TFLite's 16x8 scheme.
  static Quant quant() { return sizeof(T) == 1 ? kQ : Quant{0.002f, 0}; }
  // n distinct values: -60, -59, ... for int8; -30000 in steps of 997 for int16.
  static std::vector<T> values(size_t n) {
    std::vector<T> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(sizeof(T) == 1 ? -60 + static_cast<int>(i) : -30000 + 997 * static_cast<int>(i));
    return v;
  }
};
using QuantizedTypes = ::testing::Types<int8_t, int16_t>;
struct TypeNames {
  template <typename T>
  static std::string GetName(int) {
    return sizeof(T) == 1 ? "int8" : "int16";
  }
};
TYPED_TEST_SUITE(TfliteQuantizedDataMovement, QuantizedTypes, TypeNames);

TYPED_TEST(TfliteQuantizedDataMovement, TransposeAndConcatenation) {
  using T = TypeParam;
  std::vector<T> x = this->values(24);
  OneNode t("tfl.TRANSPOSE");
  t.input({2, 3, 4}, x, this->quant());
  t.constant<int32_t>({1, 2, 0}).output(this->type(), {3, 4, 2}, this->quant());
  std::vector<T> got = t.template run<T>();
  for_each_index({3, 4, 2}, [&](const Index& o, size_t flat) {
    EXPECT_EQ(got[flat], x[static_cast<size_t>((o[2] * 3 + o[0]) * 4 + o[1])]) << flat;
  });

  std::vector<T> a = this->values(4), b = this->values(10);
  OneNode c("tfl.CONCATENATION");
  c.input({2, 2}, a, this->quant()).input({2, 5}, b, this->quant());
  c.attr("axis", int64_t{1}).output(this->type(), {2, 7}, this->quant());
  got = c.template run<T>();
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 7; ++j) EXPECT_EQ(got[r * 7 + j], j < 2 ? a[r * 2 + j] : b[r * 5 + j - 2]) << r << ", " << j;
}

TYPED_TEST(TfliteQuantizedDataMovement, PadFillsWithTheZeroPointAndPadV2WithItsConstant) {
  using T = TypeParam;
  std::vector<T> x = this->values(12);
  std::vector<int32_t> paddings = {1, 0, 0, 2, 2, 1};
  OneNode pad("tfl.PAD");
  pad.input({2, 3, 2}, x, this->quant());
  pad.constant<int32_t>({3, 2}, paddings).output(this->type(), {3, 5, 5}, this->quant());
  EXPECT_EQ(pad.template run<T>(), padded<T>({2, 3, 2}, x, paddings, static_cast<T>(this->quant().zero_point)));
  const T fill = static_cast<T>(sizeof(T) == 1 ? -77 : -12345);
  OneNode v2("tfl.PADV2");
  v2.input({2, 3, 2}, x, this->quant());
  v2.constant<int32_t>({3, 2}, paddings).template constant<T>({}, {fill}, this->quant());
  v2.output(this->type(), {3, 5, 5}, this->quant());
  EXPECT_EQ(v2.template run<T>(), padded<T>({2, 3, 2}, x, paddings, fill));
}

TYPED_TEST(TfliteQuantizedDataMovement, SplitSplitVAndUnpack) {
  using T = TypeParam;
  std::vector<T> x = this->values(12);
  OneNode split("tfl.SPLIT");
  split.constant<int32_t>({}, {0}).input({4, 3}, x, this->quant()).attr("num_splits", int64_t{2});
  split.output(this->type(), {2, 3}, this->quant()).output(this->type(), {2, 3}, this->quant());
  std::vector<std::vector<T>> parts = split.template run_outputs<T>();
  EXPECT_EQ(parts[0], std::vector<T>(x.begin(), x.begin() + 6));
  EXPECT_EQ(parts[1], std::vector<T>(x.begin() + 6, x.end()));

  OneNode split_v("tfl.SPLIT_V");
  split_v.input({3, 4}, x, this->quant());
  split_v.constant<int32_t>({2}, {1, -1}).constant<int32_t>({}, {1});
  split_v.attr("num_splits", int64_t{2}).output(this->type(), {3, 1}, this->quant()).output(this->type(), {3, 3}, this->quant());
  parts = split_v.template run_outputs<T>();
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(parts[0][r], x[r * 4]);
    for (int j = 0; j < 3; ++j) EXPECT_EQ(parts[1][r * 3 + j], x[r * 4 + 1 + j]);
  }

  OneNode unpack("tfl.UNPACK");
  unpack.input({2, 3, 2}, x, this->quant());
  unpack.attr("num", int64_t{3}).attr("axis", int64_t{1});
  for (int i = 0; i < 3; ++i) unpack.output(this->type(), {2, 2}, this->quant());
  parts = unpack.template run_outputs<T>();
  for (int j = 0; j < 3; ++j)
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 2; ++c) EXPECT_EQ(parts[j][a * 2 + c], x[(a * 3 + j) * 2 + c]);
}

TYPED_TEST(TfliteQuantizedDataMovement, SliceAndStridedSlice) {
  using T = TypeParam;
  std::vector<T> x = this->values(24);
  OneNode slice("tfl.SLICE");
  slice.input({2, 3, 4}, x, this->quant());
  slice.constant<int32_t>({1, 0, 1}).constant<int32_t>({1, -1, 2});
  slice.output(this->type(), {1, 3, 2}, this->quant());
  std::vector<T> got = slice.template run<T>();
  for_each_index({1, 3, 2}, [&](const Index& o, size_t flat) {
    EXPECT_EQ(got[flat], x[static_cast<size_t>(((1 + o[0]) * 3 + o[1]) * 4 + 1 + o[2])]) << flat;
  });

  // x[0:2, 2:0:-1, 3:0:-2]
  const std::vector<int32_t> begin = {0, 2, 3}, stride = {1, -1, -2};
  OneNode strided("tfl.STRIDED_SLICE");
  strided.input({2, 3, 4}, x, this->quant());
  strided.constant<int32_t>(begin).constant<int32_t>({2, 0, 0}).constant<int32_t>(stride);
  strided.output(this->type(), {2, 2, 2}, this->quant());
  got = strided.template run<T>();
  for_each_index({2, 2, 2}, [&](const Index& o, size_t flat) {
    int64_t at = ((begin[0] + o[0] * stride[0]) * 3 + begin[1] + o[1] * stride[1]) * 4 + begin[2] + o[2] * stride[2];
    EXPECT_EQ(got[flat], x[static_cast<size_t>(at)]) << flat;
  });
}

// PACK: output[..., i, ...] (i at `axis`) is input i at the other indices; along each
// axis the new one can take among the [2, 3] inputs' (0, 1, 2), and 2 again written -1.
TYPED_TEST(TfliteQuantizedDataMovement, PackStacksAlongEveryAxis) {
  using T = TypeParam;
  const Shape in = {2, 3};
  std::vector<T> all = this->values(18);
  std::vector<std::vector<T>> x;
  for (std::ptrdiff_t i = 0; i < 3; ++i) x.emplace_back(all.begin() + 6 * i, all.begin() + 6 * (i + 1));
  for (int64_t axis : {0, 1, 2, -1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    const int64_t at = axis < 0 ? axis + 3 : axis;
    Shape out = in;
    out.insert(out.begin() + at, 3);
    OneNode pack("tfl.PACK");
    for (const std::vector<T>& v : x) pack.input(in, v, this->quant());
    pack.attr("values_count", int64_t{3}).attr("axis", axis).output(this->type(), out, this->quant());
    std::vector<T> got = pack.template run<T>();
    ASSERT_EQ(got.size(), all.size());
    for_each_index(out, [&](const Index& o, size_t flat) {
      Index src = o;
      src.erase(src.begin() + at);
      EXPECT_EQ(got[flat], x[static_cast<size_t>(o[static_cast<size_t>(at)])][static_cast<size_t>(src[0] * in[1] + src[1])]) << flat;
    });
  }
}

// GATHER (batch_dims 0): output[outer..., indices..., inner...] =
// params[outer..., indices[...], inner...], with 2-D indices along axis 1 and 1-D ones
// along axis -1 (the last).
TYPED_TEST(TfliteQuantizedDataMovement, GatherAlongAMiddleAndTheLastAxis) {
  using T = TypeParam;
  const Shape params = {2, 4, 3};
  std::vector<T> x = this->values(24);
  auto at = [&](int64_t a, int64_t b, int64_t c) { return x[static_cast<size_t>((a * params[1] + b) * params[2] + c)]; };

  const std::vector<int32_t> rows = {3, 0, 1, 3};  // [2, 2]
  OneNode middle("tfl.GATHER");
  middle.input(params, x, this->quant()).input({2, 2}, rows).attr("axis", int64_t{1});
  middle.output(this->type(), {2, 2, 2, 3}, this->quant());
  std::vector<T> got = middle.template run<T>();
  for_each_index({2, 2, 2, 3}, [&](const Index& o, size_t flat) {
    EXPECT_EQ(got[flat], at(o[0], rows[static_cast<size_t>(o[1] * 2 + o[2])], o[3])) << flat;
  });

  const std::vector<int32_t> columns = {2, 2, 0, 1, 0};
  OneNode last("tfl.GATHER");
  last.input(params, x, this->quant()).input({5}, columns).attr("axis", int64_t{-1});
  last.output(this->type(), {2, 4, 5}, this->quant());
  got = last.template run<T>();
  for_each_index({2, 4, 5}, [&](const Index& o, size_t flat) {
    EXPECT_EQ(got[flat], at(o[0], o[1], columns[static_cast<size_t>(o[2])])) << flat;
  });
}

// DEPTH_TO_SPACE, as reference_ops::DepthToSpace loops: output (b, h, w, d) is input
// (b, h / bs, w / bs, ((h % bs) * bs + w % bs) * output depth + d); two batches.
TYPED_TEST(TfliteQuantizedDataMovement, DepthToSpaceWithTwoBatches) {
  using T = TypeParam;
  const int64_t bs = 2, depth = 2;
  const Shape in = {2, 1, 2, depth * bs * bs}, out = {2, bs, 2 * bs, depth};
  std::vector<T> x = this->values(static_cast<size_t>(element_count(in)));
  OneNode d2s("tfl.DEPTH_TO_SPACE");
  d2s.input(in, x, this->quant()).attr("block_size", bs).output(this->type(), out, this->quant());
  std::vector<T> got = d2s.template run<T>();
  ASSERT_EQ(got.size(), x.size());
  for_each_index(out, [&](const Index& o, size_t flat) {
    const int64_t in_d = ((o[1] % bs) * bs + o[2] % bs) * depth + o[3];
    const int64_t src = ((o[0] * in[1] + o[1] / bs) * in[2] + o[2] / bs) * in[3] + in_d;
    EXPECT_EQ(got[flat], x[static_cast<size_t>(src)]) << flat;
  });
}

TYPED_TEST(TfliteQuantizedDataMovement, SqueezeAndExpandDimsKeepTheType) {
  OneNode squeeze("tfl.SQUEEZE");
  squeeze.input({1, 3, 1, 2}, this->values(6), this->quant());
  squeeze.output(this->type(), {3, 2}, this->quant());
  EXPECT_EQ(squeeze.infer(), (Shape{3, 2}));
  OneNode expand("tfl.EXPAND_DIMS");
  expand.input({3, 2}, this->values(6), this->quant());
  expand.constant<int32_t>({}, {1}).output(this->type(), {3, 1, 2}, this->quant());
  EXPECT_EQ(expand.infer(), (Shape{3, 1, 2}));
}

}  // namespace
}  // namespace aotc::test
