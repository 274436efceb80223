// Tests of the comparison and logic operators (lowering/ops/onnx/logic.cc) and of Cast and
// CastLike (cast.cc).
//
// Expected values are written here from the ONNX definitions: comparisons follow IEEE
// (anything compared with NaN is false), bool tensors hold one byte 0 or 1 per element,
// and Cast follows ONNX's rules where they are defined (nonzero to true, truncation toward
// zero, the low bits between integers) and aotc's documented choice where ONNX leaves the
// result undefined (out-of-range floating-point values saturate, NaN becomes 0).
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

using Bools = std::vector<uint8_t>;

// ---------------------------------------------------------------- comparisons

TEST(Comparisons, BroadcastAndFollowIeee) {
  Shape a_shape = {2, 3}, b_shape = {3};
  std::vector<float> a = {1, 2, NAN, -1, 5, 0}, b = {1, 3, NAN};
  struct Case {
    const char* op;
    bool (*compare)(float, float);
  };
  const Case cases[] = {
      {"Equal", [](float x, float y) { return x == y; }},
      {"Less", [](float x, float y) { return x < y; }},
      {"Greater", [](float x, float y) { return x > y; }},
      {"LessOrEqual", [](float x, float y) { return x <= y; }},
      {"GreaterOrEqual", [](float x, float y) { return x >= y; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    Bools want;
    for_each_index({2, 3}, [&](const Index& i, size_t flat) { want.push_back(c.compare(a[flat], b[static_cast<size_t>(i[1])])); });
    OneNode node(c.op);
    node.input(a_shape, a).input(b_shape, b);
    EXPECT_EQ(node.infer(), (Shape{2, 3}));
    EXPECT_EQ(node.output_type(), DataType::Bool());
    expect_equal(node.run<uint8_t>(), want);
  }
}

TEST(Comparisons, IntegerTypesCompareByValue) {
  // uint64 above INT64_MAX stays large; int8 negatives stay negative.
  OneNode greater("Greater");
  greater.input<uint64_t>({3}, {UINT64_MAX, 1, uint64_t{1} << 63}).input<uint64_t>({3}, {1, UINT64_MAX, 5});
  expect_equal(greater.run<uint8_t>(), Bools{1, 0, 1});
  OneNode less("Less");
  less.input<int8_t>({3}, {-128, 0, 127}).input<int8_t>({1}, {0});
  expect_equal(less.run<uint8_t>(), Bools{1, 0, 0});
  OneNode equal("Equal");
  equal.input<int64_t>({2}, {std::numeric_limits<int64_t>::min(), 7}).input<int64_t>({2}, {std::numeric_limits<int64_t>::min(), 8});
  expect_equal(equal.run<uint8_t>(), Bools{1, 0});
}

TEST(Comparisons, EqualTakesBoolOrderingDoesNot) {
  OneNode equal("Equal");
  equal.input_bytes(DataType::Bool(), {4}, {0, 0, 1, 1}).input_bytes(DataType::Bool(), {4}, {0, 1, 0, 1});
  expect_equal(equal.run<uint8_t>(), Bools{1, 0, 0, 1});
  OneNode less("Less");
  less.input_bytes(DataType::Bool(), {1}, {0}).input_bytes(DataType::Bool(), {1}, {1});
  expect_error(less, "Less takes");
  OneNode mixed("Greater");
  mixed.input<int32_t>({1}, {1}).input<int64_t>({1}, {1});
  expect_error(mixed, "different types");
}

// ---------------------------------------------------------------- Not, And, Or, Xor

TEST(Logic, TruthTablesWithBroadcasting) {
  // [4] op [2, 1]: every pair of (a, b) in {0, 1}.
  Bools a = {0, 1, 0, 1}, b = {0, 1};
  auto table = [&](bool (*f)(bool, bool)) {
    Bools want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) want.push_back(f(b[static_cast<size_t>(i)] != 0, a[static_cast<size_t>(j)] != 0));
    return want;
  };
  struct Case {
    const char* op;
    bool (*f)(bool, bool);
  };
  const Case cases[] = {{"And", [](bool x, bool y) { return x && y; }},
                        {"Or", [](bool x, bool y) { return x || y; }},
                        {"Xor", [](bool x, bool y) { return x != y; }}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    OneNode node(c.op);
    node.input_bytes(DataType::Bool(), {4}, a).input_bytes(DataType::Bool(), {2, 1}, b);
    EXPECT_EQ(node.infer(), (Shape{2, 4}));
    // f is symmetric, so the operand order of the table does not matter.
    expect_equal(node.run<uint8_t>(), table(c.f));
  }
  OneNode negate("Not");
  negate.input_bytes(DataType::Bool(), {3}, {0, 1, 0});
  expect_equal(negate.run<uint8_t>(), Bools{1, 0, 1});
}

TEST(Logic, RejectsNonBoolOperands) {
  OneNode and_ints("And");
  and_ints.input<int32_t>({1}, {1}).input<int32_t>({1}, {0});
  expect_error(and_ints, "And takes bool");
  OneNode not_float("Not");
  not_float.input({2});
  expect_error(not_float, "Not takes bool");
}

// ---------------------------------------------------------------- Where

TEST(Logic, WhereBroadcastsItsThreeOperands) {
  // condition [2, 1], X [3], Y [2, 3].
  Bools condition = {1, 0};
  std::vector<int32_t> x = {1, 2, 3}, y = {10, 20, 30, 40, 50, 60};
  std::vector<int32_t> want;
  for_each_index({2, 3}, [&](const Index& i, size_t flat) {
    want.push_back(condition[static_cast<size_t>(i[0])] ? x[static_cast<size_t>(i[1])] : y[flat]);
  });
  OneNode where("Where");
  where.input_bytes(DataType::Bool(), {2, 1}, condition).input<int32_t>({3}, x).input<int32_t>({2, 3}, y);
  EXPECT_EQ(where.infer(), (Shape{2, 3}));
  expect_equal(where.run<int32_t>(), want);
  OneNode mismatch("Where");
  mismatch.input_bytes(DataType::Bool(), {1}, {1}).input<float>({1}, {1}).input<double>({1}, {2});
  expect_error(mismatch, "X is float32 but Y is float64");
  OneNode float_condition("Where");
  float_condition.input({1}).input({1}).input({1});
  expect_error(float_condition, "takes bool");
}

// ---------------------------------------------------------------- IsInf, IsNaN

TEST(Logic, IsInfDetectsTheChosenSigns) {
  std::vector<float> x = {INFINITY, -INFINITY, NAN, 0, 3e38f};
  auto run = [&](int64_t negative, int64_t positive) {
    OneNode node("IsInf");
    node.input<float>({5}, x).attr("detect_negative", negative).attr("detect_positive", positive);
    return node.run<uint8_t>();
  };
  expect_equal(run(1, 1), Bools{1, 1, 0, 0, 0});
  expect_equal(run(0, 1), Bools{1, 0, 0, 0, 0});
  expect_equal(run(1, 0), Bools{0, 1, 0, 0, 0});
  expect_equal(run(0, 0), Bools{0, 0, 0, 0, 0});
  OneNode is_nan("IsNaN");
  is_nan.input<double>({4}, {NAN, INFINITY, 0, -1});
  expect_equal(is_nan.run<uint8_t>(), Bools{1, 0, 0, 0});
  OneNode ints("IsNaN");
  ints.input<int32_t>({1}, {1});
  expect_error(ints, "IsNaN takes float32, float64");
}

// ---------------------------------------------------------------- Cast

// Cast of `x` (type From) to the ONNX element type code `to`, read back as To.
template <typename To, typename From>
std::vector<To> cast(const std::vector<From>& x, int64_t to) {
  OneNode node("Cast");
  node.input<From>({static_cast<int64_t>(x.size())}, x).attr("to", to);
  return node.run<To>();
}

// ONNX TensorProto element type codes.
constexpr int64_t kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7, kBool = 9,
                  kFloat16 = 10, kDouble = 11, kUint32 = 12, kUint64 = 13, kString = 8;

TEST(Cast, FloatToIntegerTruncatesAndSaturates) {
  std::vector<float> x = {2.9f, -2.9f, 127.9f, 128.0f, -128.9f, -129.0f, 1e10f, -INFINITY, NAN};
  expect_equal(cast<int8_t>(x, kInt8), std::vector<int8_t>{2, -2, 127, 127, -128, -128, 127, -128, 0});
  expect_equal(cast<uint8_t>(x, kUint8), std::vector<uint8_t>{2, 0, 127, 128, 0, 0, 255, 0, 0});
  expect_equal(cast<int32_t>(x, kInt32),
               std::vector<int32_t>{2, -2, 127, 128, -128, -129, INT32_MAX, INT32_MIN, 0});
  std::vector<double> big = {9.3e18, 9.223372036854775807e18, -9.3e18, 1.8e19, 2e19, -0.9};
  expect_equal(cast<int64_t>(big, kInt64),
               std::vector<int64_t>{INT64_MAX, INT64_MAX, INT64_MIN, INT64_MAX, INT64_MAX, 0});
  expect_equal(cast<uint64_t>(big, kUint64),
               std::vector<uint64_t>{9300000000000000000ull, 9223372036854775808ull, 0, 18000000000000000000ull, UINT64_MAX, 0});
  expect_equal(cast<uint16_t>(std::vector<double>{65535.99, 65536, -1}, kUint16), std::vector<uint16_t>{65535, 65535, 0});
}

TEST(Cast, IntegerToIntegerKeepsTheLowBits) {
  expect_equal(cast<int8_t>(std::vector<int32_t>{300, -129, 127}, kInt8), std::vector<int8_t>{44, 127, 127});
  expect_equal(cast<uint16_t>(std::vector<int8_t>{-1, 5}, kUint16), std::vector<uint16_t>{65535, 5});
  expect_equal(cast<int32_t>(std::vector<uint64_t>{UINT64_MAX, 0x1'0000'0005ull}, kInt32), std::vector<int32_t>{-1, 5});
  expect_equal(cast<uint32_t>(std::vector<int64_t>{-1}, kUint32), std::vector<uint32_t>{UINT32_MAX});
  expect_equal(cast<int16_t>(std::vector<uint8_t>{255}, kInt16), std::vector<int16_t>{255});
}

TEST(Cast, ToAndFromBool) {
  expect_equal(cast<uint8_t>(std::vector<float>{0.0f, -0.0f, 0.5f, NAN, -INFINITY}, kBool), Bools{0, 0, 1, 1, 1});
  expect_equal(cast<uint8_t>(std::vector<int64_t>{0, -5, 256}, kBool), Bools{0, 1, 1});
  OneNode from_bool("Cast");
  from_bool.input_bytes(DataType::Bool(), {3}, {1, 0, 1}).attr("to", kDouble);
  expect_equal(from_bool.run<double>(), std::vector<double>{1, 0, 1});
}

TEST(Cast, ToFloatingPointRoundsToNearest) {
  // 2^24 + 1 is not a float32: it rounds to even (2^24); a uint64 beyond INT64_MAX keeps its value.
  expect_equal(cast<float>(std::vector<int64_t>{16777217, -3}, kFloat), std::vector<float>{16777216.0f, -3.0f});
  expect_equal(cast<double>(std::vector<uint64_t>{UINT64_MAX}, kDouble), std::vector<double>{18446744073709551615.0});
  expect_equal(cast<float>(std::vector<double>{0.1, 1e300}, kFloat), std::vector<float>{0.1f, INFINITY});
  expect_equal(cast<double>(std::vector<float>{0.1f}, kDouble), std::vector<double>{static_cast<double>(0.1f)});
}

TEST(Cast, Float16BitPatterns) {
  // float16 tensors hold IEEE binary16 bit patterns; encoding rounds to nearest, ties to even.
  std::vector<float> x = {1.0f, -2.0f, 65504.0f, 65520.0f, 1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048,
                          std::ldexp(1.0f, -24), std::ldexp(1.0f, -25), NAN};
  OneNode to_half("Cast");
  to_half.input<float>({9}, x).attr("to", kFloat16);
  EXPECT_EQ(to_half.infer(), (Shape{9}));
  EXPECT_TRUE(to_half.output_type().is_float16());
  expect_equal(to_half.run<uint16_t>(),
               std::vector<uint16_t>{0x3C00, 0xC000, 0x7BFF, 0x7C00, 0x3C00, 0x3C02, 0x0001, 0x0000, 0x7E00});
  OneNode from_half("Cast");
  from_half.input_bytes(DataType::Float16(), {4}, to_bytes(std::vector<uint16_t>{0x3C00, 0xC000, 0x0001, 0xFC00}))
      .attr("to", kFloat);
  expect_equal(from_half.run(), std::vector<float>{1.0f, -2.0f, std::ldexp(1.0f, -24), -INFINITY});
}

TEST(Cast, CastLikeTakesTheSecondInputsType) {
  OneNode cast_like("CastLike");
  cast_like.input<float>({3}, {1.7f, -1.7f, 300}).input<uint8_t>({1}, {0});
  EXPECT_EQ(cast_like.infer(), (Shape{3}));
  EXPECT_EQ(cast_like.output_type(), DataType::UInt(8));
  expect_equal(cast_like.run<uint8_t>(), std::vector<uint8_t>{1, 0, 255});
}

TEST(Cast, RejectsMissingOrUnsupportedTargets) {
  OneNode no_to("Cast");
  no_to.input({2});
  expect_error(no_to, "attribute 'to' is required");
  OneNode to_string("Cast");
  to_string.input({2}).attr("to", kString);
  expect_error(to_string, "is not supported");
}

}  // namespace
}  // namespace aotc::test
