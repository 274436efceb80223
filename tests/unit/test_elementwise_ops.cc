// Tests of the elementwise operators: arithmetic (lowering/ops/onnx/elementwise.cc), the math
// functions (math_functions.cc) and the activations (activations.cc).
//
// Each kernel runs in the IR interpreter (one_node.h) and is compared with values computed
// here from the ONNX definitions (numpy's semantics where ONNX refers to them): integer
// arithmetic wraps to the type's width, integer division truncates toward zero, x / 0 and
// x mod 0 are 0 for integers, Mod's fmod=0 takes the divisor's sign. Broadcasting follows
// numpy; the expected values index each operand by the broadcast rule written here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

// The element of an operand of shape `operand` read at index `out` of the broadcast
// output (numpy: trailing dimensions align, size-1 dimensions read 0).
int64_t broadcast_flat(const Shape& operand, const Shape& out_shape, const Index& out) {
  size_t lead = out_shape.size() - operand.size();
  int64_t flat = 0;
  for (size_t d = 0; d < operand.size(); ++d) flat = flat * operand[d] + (operand[d] == 1 ? 0 : out[lead + d]);
  return flat;
}

// out[i] = f(a[broadcast i], b[broadcast i]) over the broadcast shape `out_shape`.
template <typename T, typename F>
std::vector<T> binary_reference(const Shape& out_shape, const Shape& a_shape, const std::vector<T>& a,
                                const Shape& b_shape, const std::vector<T>& b, F f) {
  std::vector<T> out(static_cast<size_t>(element_count(out_shape)));
  for_each_index(out_shape, [&](const Index& i, size_t flat) {
    out[flat] = f(a[static_cast<size_t>(broadcast_flat(a_shape, out_shape, i))],
                  b[static_cast<size_t>(broadcast_flat(b_shape, out_shape, i))]);
  });
  return out;
}

template <typename T>
std::vector<T> run_binary(const std::string& op, const Shape& a_shape, const std::vector<T>& a, const Shape& b_shape,
                          const std::vector<T>& b, const std::map<std::string, AttrValue>& attrs = {}) {
  OneNode node(op);
  node.input<T>(a_shape, a).template input<T>(b_shape, b);
  for (const auto& [key, value] : attrs) node.attr(key, value);
  return node.template run<T>();
}

template <typename T>
std::vector<T> run_unary(const std::string& op, const std::vector<T>& x, const std::map<std::string, AttrValue>& attrs = {},
                         int64_t opset = 13) {
  OneNode node(op, opset);
  node.input<T>({static_cast<int64_t>(x.size())}, x);
  for (const auto& [key, value] : attrs) node.attr(key, value);
  return node.template run<T>();
}

// ---------------------------------------------------------------- Add, Sub, Mul

TEST(ElementwiseArithmetic, AddBroadcastsFloat32) {
  Shape a_shape = {2, 3, 4}, b_shape = {3, 1};
  std::vector<float> a = random_floats(24, 1), b = random_floats(3, 2);
  std::vector<float> want = binary_reference<float>({2, 3, 4}, a_shape, a, b_shape, b, [](float x, float y) { return x + y; });
  OneNode add("Add");
  add.input(a_shape, a).input(b_shape, b);
  EXPECT_EQ(add.infer(), (Shape{2, 3, 4}));
  expect_equal(add.run(), want);
}

TEST(ElementwiseArithmetic, BroadcastsBothOperandsAndScalars) {
  // [4, 1] - [3]: both grow; a rank-0 operand reads its one element everywhere.
  std::vector<double> a = {1, 2, 3, 4}, b = {10, 20, 30};
  std::vector<double> want = binary_reference<double>({4, 3}, {4, 1}, a, {3}, b, [](double x, double y) { return x - y; });
  expect_equal(run_binary<double>("Sub", {4, 1}, a, {3}, b), want);
  OneNode mul("Mul");
  mul.input<double>({3}, {1.5, -2, 4}).input<double>({}, {2});
  expect_equal(mul.run<double>(), std::vector<double>{3, -4, 8});
  OneNode scalar("Neg");
  scalar.input<int16_t>({}, {-7});
  EXPECT_EQ(scalar.infer(), Shape{});
  expect_equal(scalar.run<int16_t>(), std::vector<int16_t>{7});
}

TEST(ElementwiseArithmetic, IntegersWrapToTheirWidth) {
  // numpy: int8 127 + 1 = -128; int32 INT_MAX + 1 = INT_MIN; uint16 65535 * 65535 = 1;
  // int64 overflow wraps too (computed without C's signed-overflow undefined behaviour).
  expect_equal(run_binary<int8_t>("Add", {3}, {127, -128, 100}, {3}, {1, -1, 100}), std::vector<int8_t>{-128, 127, -56});
  int32_t big = std::numeric_limits<int32_t>::max(), small = std::numeric_limits<int32_t>::min();
  expect_equal(run_binary<int32_t>("Add", {2}, {big, small}, {2}, {1, -1}), std::vector<int32_t>{small, big});
  expect_equal(run_binary<int32_t>("Sub", {1}, {small}, {1}, {1}), std::vector<int32_t>{big});
  expect_equal(run_binary<uint16_t>("Mul", {2}, {65535, 300}, {2}, {65535, 300}), std::vector<uint16_t>{1, 24464});
  int64_t max64 = std::numeric_limits<int64_t>::max();
  expect_equal(run_binary<int64_t>("Mul", {1}, {max64}, {1}, {2}), std::vector<int64_t>{-2});
  expect_equal(run_binary<uint8_t>("Sub", {2}, {0, 5}, {2}, {1, 3}), std::vector<uint8_t>{255, 2});
}

TEST(ElementwiseArithmetic, RejectsMixedTypesAndBool) {
  OneNode mixed("Add");
  mixed.input<float>({2}, {1, 2}).input<double>({2}, {1, 2});
  expect_error(mixed, "different types");
  OneNode bools("Add");
  bools.input_bytes(DataType::Bool(), {2}, {0, 1}).input_bytes(DataType::Bool(), {2}, {1, 1});
  expect_error(bools, "Add takes");
  OneNode shapes("Mul");
  shapes.input({2, 3}).input({4});
  expect_error(shapes, "");
}

// ---------------------------------------------------------------- Div, Mod

TEST(ElementwiseArithmetic, IntegerDivisionTruncatesTowardZero) {
  expect_equal(run_binary<int32_t>("Div", {4}, {7, -7, 7, -7}, {4}, {2, 2, -2, -2}), std::vector<int32_t>{3, -3, -3, 3});
  expect_equal(run_binary<int8_t>("Div", {2}, {-128, 100}, {2}, {-1, 7}), std::vector<int8_t>{-128, 14});
  expect_equal(run_binary<uint64_t>("Div", {2}, {UINT64_MAX, 9}, {2}, {2, 4}), std::vector<uint64_t>{UINT64_MAX / 2, 2});
}

TEST(ElementwiseArithmetic, IntegerDivisionEdgeCasesAreDefined) {
  // C leaves x / 0 and INT_MIN / -1 undefined; numpy gives 0 and INT_MIN.
  int64_t min64 = std::numeric_limits<int64_t>::min();
  expect_equal(run_binary<int64_t>("Div", {3}, {5, min64, -9}, {3}, {0, -1, 0}), std::vector<int64_t>{0, min64, 0});
  int32_t min32 = std::numeric_limits<int32_t>::min();
  expect_equal(run_binary<int32_t>("Div", {2}, {min32, 1}, {2}, {-1, 0}), std::vector<int32_t>{min32, 0});
  expect_equal(run_binary<uint8_t>("Div", {2}, {200, 7}, {2}, {0, 2}), std::vector<uint8_t>{0, 3});
}

TEST(ElementwiseArithmetic, FloatDivisionIsIeee) {
  std::vector<float> got = run_binary<float>("Div", {3}, {1, -1, 0}, {3}, {0, 0, 0});
  EXPECT_EQ(got[0], INFINITY);
  EXPECT_EQ(got[1], -INFINITY);
  EXPECT_TRUE(std::isnan(got[2]));
}

int64_t python_mod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}

TEST(ElementwiseArithmetic, ModIntegerTakesTheDivisorsSign) {
  std::vector<int32_t> a = {7, -7, 7, -7, 0, 5}, b = {3, 3, -3, -3, 4, 0};
  std::vector<int32_t> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(static_cast<int32_t>(python_mod(a[i], b[i])));
  EXPECT_EQ(want, (std::vector<int32_t>{1, 2, -2, -1, 0, 0}));  // Python's % (and 0 for a zero divisor, numpy)
  expect_equal(run_binary<int32_t>("Mod", {6}, a, {6}, b), want);
}

TEST(ElementwiseArithmetic, ModFmodTakesTheDividendsSign) {
  std::map<std::string, AttrValue> fmod = {{"fmod", int64_t{1}}};
  expect_equal(run_binary<int16_t>("Mod", {4}, {7, -7, 7, -7}, {4}, {3, 3, -3, -3}, fmod), std::vector<int16_t>{1, -1, 1, -1});
  int64_t min64 = std::numeric_limits<int64_t>::min();
  // INT64_MIN % -1 overflows in C; the remainder is 0.
  expect_equal(run_binary<int64_t>("Mod", {2}, {min64, 9}, {2}, {-1, 0}, fmod), std::vector<int64_t>{0, 0});
  expect_equal(run_binary<int64_t>("Mod", {1}, {min64}, {1}, {-1}), std::vector<int64_t>{0});
  std::vector<float> x = {7.5f, -7.5f, 7.5f, 1.0f}, y = {2, 2, -2, 0.3f};
  std::vector<float> want;
  for (size_t i = 0; i < x.size(); ++i) want.push_back(std::fmod(x[i], y[i]));
  expect_close(run_binary<float>("Mod", {4}, x, {4}, y, fmod), want);
  expect_equal(run_binary<uint8_t>("Mod", {2}, {250, 9}, {2}, {7, 0}), std::vector<uint8_t>{5, 0});
}

TEST(ElementwiseArithmetic, ModOfFloatsNeedsFmod) {
  OneNode mod("Mod");
  mod.input({3}).input({3});
  expect_error(mod, "fmod=0");
}

// ---------------------------------------------------------------- Pow

TEST(ElementwiseArithmetic, PowFloatAndMixedTypes) {
  std::vector<float> base = {2, -2, 0.5f, 9}, exponent = {3, 2, -1, 0.5f};
  std::vector<float> want;
  for (size_t i = 0; i < base.size(); ++i) want.push_back(std::pow(base[i], exponent[i]));
  expect_close(run_binary<float>("Pow", {4}, base, {4}, exponent), want);
  // A float base with an int64 exponent keeps the base's type.
  OneNode mixed("Pow");
  mixed.input<float>({3}, {2, 3, 4}).input<int64_t>({1}, {2});
  EXPECT_EQ(mixed.infer(), (Shape{3}));
  EXPECT_EQ(mixed.output_type(), DataType::Float32());
  expect_equal(mixed.run(), std::vector<float>{4, 9, 16});
}

TEST(ElementwiseArithmetic, PowIntegerWrapsAndTruncates) {
  // 3^21 = 10460353203 wraps in int32 (numpy's integer power); 2^-1 truncates to 0, 1^-5 is 1,
  // (-1)^-3 is -1.
  int64_t wrapped = static_cast<int32_t>(static_cast<uint32_t>(10460353203LL & 0xFFFFFFFF));
  expect_equal(run_binary<int32_t>("Pow", {5}, {3, 2, 1, -1, -2}, {5}, {21, -1, -5, -3, 3}),
               std::vector<int32_t>{static_cast<int32_t>(wrapped), 0, 1, -1, -8});
  // An integer base with a float exponent: the float result truncated back (2^0.5 -> 1).
  OneNode mixed("Pow");
  mixed.input<int32_t>({3}, {2, 10, 4}).input<float>({3}, {0.5f, 2.0f, -1.0f});
  expect_equal(mixed.run<int32_t>(), std::vector<int32_t>{1, 100, 0});
}

// ---------------------------------------------------------------- unary arithmetic

TEST(ElementwiseArithmetic, AbsNegSign) {
  expect_equal(run_unary<int8_t>("Abs", {-128, -5, 0, 7}), std::vector<int8_t>{-128, 5, 0, 7});  // numpy: |-128| wraps
  expect_equal(run_unary<uint16_t>("Abs", {0, 65535}), std::vector<uint16_t>{0, 65535});
  expect_equal(run_unary<double>("Abs", {-1.5, 2, -0.0}), std::vector<double>{1.5, 2, 0});
  int32_t min32 = std::numeric_limits<int32_t>::min();
  expect_equal(run_unary<int32_t>("Neg", {min32, 5, -7}), std::vector<int32_t>{min32, -5, 7});
  expect_equal(run_unary<float>("Neg", {1.5f, -2}), std::vector<float>{-1.5f, 2});
  expect_close(run_unary<float>("Sign", {-3, 0, 2.5f, NAN}), std::vector<float>{-1, 0, 1, NAN});
  expect_equal(run_unary<int64_t>("Sign", {-9, 0, 4}), std::vector<int64_t>{-1, 0, 1});
  expect_equal(run_unary<uint8_t>("Sign", {0, 200}), std::vector<uint8_t>{0, 1});
  OneNode neg_unsigned("Neg");
  neg_unsigned.input<uint8_t>({2}, {1, 2});
  expect_error(neg_unsigned, "Neg takes");
}

TEST(ElementwiseArithmetic, Reciprocal) {
  expect_close(run_unary<float>("Reciprocal", {2, -4, 0}), std::vector<float>{0.5f, -0.25f, INFINITY});
  expect_close(run_unary<double>("Reciprocal", {3}), std::vector<double>{1.0 / 3});
  OneNode ints("Reciprocal");
  ints.input<int32_t>({1}, {2});
  expect_error(ints, "Reciprocal takes");
}

// ---------------------------------------------------------------- Min, Max, Sum, Mean

TEST(ElementwiseArithmetic, VariadicMinMaxBroadcastAndPropagateNaN) {
  Shape s0 = {2, 3}, s1 = {3}, s2 = {2, 1};
  std::vector<float> a = {1, 5, NAN, -2, 0, 3}, b = {2, 2, 2}, c = {0, 4};
  std::vector<float> want_min, want_max;
  for_each_index({2, 3}, [&](const Index& i, size_t flat) {
    float x = a[flat], y = b[static_cast<size_t>(i[1])], z = c[static_cast<size_t>(i[0])];
    bool nan = std::isnan(x) || std::isnan(y) || std::isnan(z);
    want_min.push_back(nan ? NAN : std::min({x, y, z}));
    want_max.push_back(nan ? NAN : std::max({x, y, z}));
  });
  OneNode min("Min"), max("Max");
  min.input(s0, a).input(s1, b).input(s2, c);
  max.input(s0, a).input(s1, b).input(s2, c);
  expect_close(min.run(), want_min);
  expect_close(max.run(), want_max);
  // A NaN in a later operand propagates too.
  OneNode later("Max");
  later.input<float>({2}, {1, 2}).input<float>({2}, {NAN, 0});
  expect_close(later.run(), std::vector<float>{NAN, 2});
}

TEST(ElementwiseArithmetic, VariadicMinMaxIntegersAndOneInput) {
  OneNode max("Max");
  max.input<uint64_t>({2}, {UINT64_MAX, 3}).input<uint64_t>({2}, {1, 9});
  expect_equal(max.run<uint64_t>(), std::vector<uint64_t>{UINT64_MAX, 9});
  OneNode min("Min");
  min.input<int16_t>({3}, {-5, 7, 0});
  expect_equal(min.run<int16_t>(), std::vector<int16_t>{-5, 7, 0});
}

TEST(ElementwiseArithmetic, SumAndMean) {
  std::vector<double> a = {1, 2, 3, 4}, b = {10, 20}, c = {100};
  OneNode sum("Sum"), mean("Mean");
  sum.input<double>({2, 2}, a).input<double>({2}, b).input<double>({1}, c);
  mean.input<double>({2, 2}, a).input<double>({2}, b).input<double>({1}, c);
  expect_equal(sum.run<double>(), std::vector<double>{111, 122, 113, 124});
  expect_close(mean.run<double>(), std::vector<double>{37, 122.0 / 3, 113.0 / 3, 124.0 / 3});
  OneNode ints("Sum");
  ints.input<int32_t>({1}, {1}).input<int32_t>({1}, {2});
  expect_error(ints, "Sum takes");
  OneNode none("Mean");
  expect_error(none, "");
}

// ---------------------------------------------------------------- Clip

TEST(ElementwiseArithmetic, ClipWithBoundInputs) {
  std::vector<float> x = {-3, -1, 0, 2, 5, NAN};
  OneNode both("Clip");
  both.input<float>({6}, x).constant<float>(Shape{}, {-1.5f}).constant<float>(Shape{}, {2.5f});
  expect_close(both.run(), std::vector<float>{-1.5f, -1, 0, 2, 2.5f, NAN});
  OneNode max_only("Clip");
  max_only.input<float>({6}, x).absent_input().constant<float>(Shape{}, {0});
  expect_close(max_only.run(), std::vector<float>{-3, -1, 0, 0, 0, NAN});
  // min > max: every element becomes max (ONNX).
  OneNode crossed("Clip");
  crossed.input<float>({3}, {-5, 0, 5}).constant<float>(Shape{}, {3}).constant<float>(Shape{}, {1});
  expect_equal(crossed.run(), std::vector<float>{1, 1, 1});
  OneNode ints("Clip");
  ints.input<int8_t>({4}, {-128, -3, 4, 127}).constant<int8_t>(Shape{}, {-2}).constant<int8_t>(Shape{}, {100});
  expect_equal(ints.run<int8_t>(), std::vector<int8_t>{-2, -2, 4, 100});
}

TEST(ElementwiseArithmetic, ClipAttributesBeforeOpset11) {
  OneNode clip("Clip", 6);
  clip.input<float>({4}, {-2, 0.5f, 3, 9}).attr("min", 0.0).attr("max", 6.0);
  expect_equal(clip.run(), std::vector<float>{0, 0.5f, 3, 6});
  OneNode bad_bound("Clip");
  bad_bound.input({3}).constant<float>(Shape{2}, {0, 1});
  expect_error(bad_bound, "scalars");
  OneNode wrong_type("Clip");
  wrong_type.input({3}).constant<double>(Shape{}, {0});
  expect_error(wrong_type, "is float64");
}

// ---------------------------------------------------------------- BitShift

TEST(ElementwiseArithmetic, BitShiftCountsOfTheWidthOrMoreGiveZero) {
  std::map<std::string, AttrValue> left = {{"direction", std::string("LEFT")}};
  std::map<std::string, AttrValue> right = {{"direction", std::string("RIGHT")}};
  expect_equal(run_binary<uint8_t>("BitShift", {4}, {1, 255, 3, 128}, {4}, {7, 1, 8, 200}, left),
               std::vector<uint8_t>{128, 254, 0, 0});
  expect_equal(run_binary<uint32_t>("BitShift", {3}, {0x80000000u, 16, 1}, {3}, {31, 2, 33}, right),
               std::vector<uint32_t>{1, 4, 0});
  expect_equal(run_binary<uint64_t>("BitShift", {3}, {1, UINT64_MAX, 5}, {3}, {63, 64, 1}, left),
               std::vector<uint64_t>{uint64_t{1} << 63, 0, 10});
  OneNode no_direction("BitShift");
  no_direction.input<uint8_t>({1}, {1}).input<uint8_t>({1}, {1});
  expect_error(no_direction, "direction must be");
  OneNode signed_input("BitShift");
  signed_input.input<int8_t>({1}, {1}).input<int8_t>({1}, {1}).attr("direction", std::string("LEFT"));
  expect_error(signed_input, "BitShift takes");
}

// ---------------------------------------------------------------- Identity, Dropout

TEST(ElementwiseArithmetic, IdentityAndInferenceDropoutKeepTheInput) {
  OneNode identity("Identity");
  identity.input<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(identity.infer(), (Shape{2, 3}));
  EXPECT_EQ(identity.output_type(), DataType::Int(64));
  OneNode dropout("Dropout");
  dropout.input({4, 2}).constant<float>(Shape{}, {0.5f});
  EXPECT_EQ(dropout.infer(), (Shape{4, 2}));
  uint8_t yes = 1;
  OneNode training("Dropout");
  training.input({2}).constant<float>(Shape{}, {0.5f}).constant_bytes(DataType::Bool(), {}, {yes});
  expect_error(training, "training_mode");
}

// ---------------------------------------------------------------- math functions

void expect_unary_function(const std::string& op, const std::vector<double>& x, double (*f)(double),
                           double rel_tol = 1e-6) {
  SCOPED_TRACE(op);
  std::vector<float> x32(x.begin(), x.end());
  std::vector<float> want32;
  std::vector<double> want64;
  for (double v : x) {
    want32.push_back(static_cast<float>(f(static_cast<double>(static_cast<float>(v)))));
    want64.push_back(f(v));
  }
  expect_close(run_unary<float>(op, x32), want32, rel_tol, 1e-6);
  expect_close(run_unary<double>(op, x), want64, 1e-12, 1e-12);
}

TEST(MathFunctions, MatchLibmForFloat32AndFloat64) {
  std::vector<double> any = {-2.5, -0.75, 0, 0.3, 1.7, 3};
  std::vector<double> positive = {0.01, 0.5, 1, 2.25, 100};
  std::vector<double> unit = {-0.9, -0.5, 0, 0.25, 0.99};
  expect_unary_function("Exp", any, std::exp);
  expect_unary_function("Log", positive, std::log);
  expect_unary_function("Sqrt", positive, std::sqrt);
  expect_unary_function("Floor", any, std::floor);
  expect_unary_function("Ceil", any, std::ceil);
  expect_unary_function("Erf", any, std::erf);
  expect_unary_function("Sin", any, std::sin);
  expect_unary_function("Cos", any, std::cos);
  expect_unary_function("Tan", unit, std::tan);
  expect_unary_function("Asin", unit, std::asin);
  expect_unary_function("Acos", unit, std::acos);
  expect_unary_function("Atan", any, std::atan);
  expect_unary_function("Sinh", any, std::sinh);
  expect_unary_function("Cosh", any, std::cosh);
  expect_unary_function("Asinh", any, std::asinh);
  expect_unary_function("Acosh", {1, 1.5, 10}, std::acosh);
  expect_unary_function("Atanh", unit, std::atanh);
}

TEST(MathFunctions, OutOfDomainGivesNaNOrInfinity) {
  std::vector<float> log = run_unary<float>("Log", {0, -1});
  EXPECT_EQ(log[0], -INFINITY);
  EXPECT_TRUE(std::isnan(log[1]));
  EXPECT_TRUE(std::isnan(run_unary<float>("Sqrt", {-4})[0]));
}

TEST(MathFunctions, RoundHalfToEven) {
  expect_equal(run_unary<float>("Round", {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.4f, -2.6f}),
               std::vector<float>{0, 2, 2, -0.0f, -2, 2, -3});
  expect_equal(run_unary<double>("Round", {3.5, 4.5, -3.5}), std::vector<double>{4, 4, -4});
}

TEST(MathFunctions, RejectIntegers) {
  OneNode exp("Exp");
  exp.input<int32_t>({2}, {1, 2});
  expect_error(exp, "Exp takes float32, float64");
}

// ---------------------------------------------------------------- activations

std::vector<double> map(const std::vector<double>& x, const std::function<double(double)>& f) {
  std::vector<double> y;
  for (double v : x) y.push_back(f(v));
  return y;
}

const std::vector<double> kActivationInputs = {-20, -3, -1, -0.25, 0, 0.25, 1, 2.5, 20};

// The activation `op` on float32 and float64 inputs against the spec's formula f.
void expect_activation(const std::string& op, const std::map<std::string, AttrValue>& attrs,
                       const std::function<double(double)>& f) {
  SCOPED_TRACE(op);
  std::vector<float> x32(kActivationInputs.begin(), kActivationInputs.end());
  std::vector<double> want = map(kActivationInputs, f);
  expect_close(run_unary<float>(op, x32, attrs), std::vector<float>(want.begin(), want.end()), 1e-5, 1e-6);
  expect_close(run_unary<double>(op, kActivationInputs, attrs), want, 1e-6, 1e-7);  // attributes are float32 values
}

TEST(Activations, FormulasOfTheSpec) {
  using Attrs = std::map<std::string, AttrValue>;
  expect_activation("Relu", {}, [](double x) { return std::max(x, 0.0); });
  expect_activation("Sigmoid", {}, [](double x) { return 1 / (1 + std::exp(-x)); });
  expect_activation("Tanh", {}, [](double x) { return std::tanh(x); });
  expect_activation("HardSigmoid", Attrs{{"alpha", 0.5}, {"beta", 0.25}},
                    [](double x) { return std::max(0.0, std::min(1.0, 0.5 * x + 0.25)); });
  expect_activation("HardSigmoid", {}, [](double x) { return std::max(0.0, std::min(1.0, 0.2 * x + 0.5)); });
  expect_activation("HardSwish", {}, [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); });
  expect_activation("Elu", Attrs{{"alpha", 2.0}}, [](double x) { return x < 0 ? 2 * (std::exp(x) - 1) : x; });
  expect_activation("Selu", {}, [](double x) {
    double alpha = 1.67326319217681884765625, gamma = 1.05070102214813232421875;
    return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha);
  });
  expect_activation("Celu", Attrs{{"alpha", 0.5}},
                    [](double x) { return std::max(0.0, x) + std::min(0.0, 0.5 * (std::exp(x / 0.5) - 1)); });
  expect_activation("LeakyRelu", {}, [](double x) { return x < 0 ? 0.01 * x : x; });
  expect_activation("ThresholdedRelu", Attrs{{"alpha", 0.25}}, [](double x) { return x > 0.25 ? x : 0; });
  expect_activation("Shrink", Attrs{{"lambd", 1.0}, {"bias", 0.5}},
                    [](double x) { return x < -1 ? x + 0.5 : x > 1 ? x - 0.5 : 0; });
  expect_activation("Softplus", {}, [](double x) { return std::log1p(std::exp(x)); });
  expect_activation("Softsign", {}, [](double x) { return x / (1 + std::fabs(x)); });
  expect_activation("Mish", {}, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); });
  expect_activation("Gelu", {}, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
  expect_activation("Gelu", Attrs{{"approximate", std::string("tanh")}}, [](double x) {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
  });
}

TEST(Activations, SoftplusDoesNotOverflow) {
  // log(1 + exp(100)) overflows exp in float32; the result is 100.
  expect_close(run_unary<float>("Softplus", {100, -100}), std::vector<float>{100, 0}, 1e-6, 1e-30);
}

TEST(Activations, ReluKeepsNaNAndTakesSignedIntegers) {
  expect_close(run_unary<float>("Relu", {NAN, -1}), std::vector<float>{NAN, 0});
  expect_equal(run_unary<int8_t>("Relu", {-128, -1, 0, 127}), std::vector<int8_t>{0, 0, 0, 127});
  OneNode unsigned_relu("Relu");
  unsigned_relu.input<uint8_t>({1}, {1});
  expect_error(unsigned_relu, "Relu takes");
}

TEST(Activations, ShrinkOfIntegersTruncatesBack) {
  // int8 with lambd 1.5, bias 0.5: computed in float64 as the reference, converted back.
  std::map<std::string, AttrValue> attrs = {{"lambd", 1.5}, {"bias", 0.5}};
  expect_equal(run_unary<int8_t>("Shrink", {-128, -2, -1, 0, 1, 2, 127}, attrs), std::vector<int8_t>{-127, -1, 0, 0, 0, 1, 126});
}

TEST(Activations, PReluBroadcastsTheSlope) {
  // A [C, 1, 1] slope for [N, C, H, W] input: one slope per channel.
  Shape x_shape = {2, 3, 2, 2};
  std::vector<float> x = random_floats(24, 5, 2.0f), slope = {0.1f, -0.5f, 2.0f};
  std::vector<float> want(24);
  for_each_index(x_shape, [&](const Index& i, size_t flat) {
    want[flat] = x[flat] < 0 ? slope[static_cast<size_t>(i[1])] * x[flat] : x[flat];
  });
  OneNode prelu("PRelu");
  prelu.input(x_shape, x).constant<float>(Shape{3, 1, 1}, slope);
  expect_close(prelu.run(), want);
  OneNode ints("PRelu");
  ints.input<int32_t>({3}, {-4, 0, 4}).input<int32_t>({1}, {3});
  expect_equal(ints.run<int32_t>(), std::vector<int32_t>{-12, 0, 4});
  OneNode grows("PRelu");
  grows.input({3}).input({2, 3});
  expect_error(grows, "does not broadcast to the input");
}

TEST(Activations, RejectInvalidAttributesAndTypes) {
  OneNode gelu("Gelu");
  gelu.input({2}).attr("approximate", std::string("fast"));
  expect_error(gelu, "approximate must be");
  OneNode sigmoid("Sigmoid");
  sigmoid.input<int32_t>({1}, {1});
  expect_error(sigmoid, "Sigmoid takes");
}

TEST(Activations, FusedBehindAnElementwiseAnchor) {
  // Add with a fused Relu then Neg: one kernel, the chain applied to each sum.
  OneNode add("Add");
  add.input<float>({4}, {-1, 2, -3, 4}).input<float>({4}, {0.5f, -3, 4, 1}).epilogue("Relu").epilogue("Neg");
  expect_equal(add.run(), std::vector<float>{0, 0, -1, -5});
}

}  // namespace
}  // namespace aotc::test
