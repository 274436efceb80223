// The quantized variants of TFLite's activations and elementwise math, L2_NORMALIZATION and
// RESIZE_BILINEAR, end to end: a single-operator model goes through `aotc run` (its
// generated C built with -std=c99 -Wall -Wextra -Werror -pedantic) and every output element
// must equal what TensorFlow Lite Micro's reference kernels compute. That oracle is written
// out here, independently of aotc, step for step from TFLM's sources: the Prepare functions
// (logistic_common.cc, tanh.cc, elementwise.cc, prelu_common.cc, squared_difference.cc,
// activations_common.cc, leaky_relu_common.cc) for the multipliers, and reference_integer_ops / reference_ops for the arithmetic, with the
// fixed-point primitives of TFLite's common.h and gemmlowp's fixedpoint.h. The inputs cover
// every int8 value (every pair for binary operators), every int16 value for the int16
// activations and ADD / SUB (add_common.cc, sub_common.cc, left shift 15), zero points at
// both ends of the type, and saturating outputs.
//
// Also SHAPE and the shape arithmetic converters build on it (STRIDED_SLICE, PACK, GATHER,
// CONCATENATION, int32 MUL into RESHAPE, TILE, BROADCAST_TO, FILL, TRANSPOSE_CONV's output
// shape): folded at compile time where it can be, and the values checked against loops
// written from TFLite's reference_ops.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <type_traits>

#include "tests/e2e/e2e_util.h"
#include "tests/tflite_model_builder.h"
#include "tests/tflite_reference.h"

namespace aotc::e2e {
namespace {

using namespace test;  // TfliteModelBuilder and TFLite's fixed point (tflite_reference.h)
using FBB = flatbuffers::FlatBufferBuilder;
using namespace test::tensor_types;

// ---------------------------------------------------------------- running a model

// Compiles and runs `model` on `inputs` (raw little-endian bytes, in model order) with
// strict C flags; returns each output's bytes. *failure, if given, receives a failed run
// instead of failing the test.
std::vector<std::string> run_model(const TfliteModelBuilder& model, const std::vector<std::string>& inputs,
                                   size_t output_count, Result* failure = nullptr) {
  TempDir dir("aotc-tflite-values");
  std::string path = dir.path() + "/model.tflite";
  model.write(path);
  std::string input_list, output_list;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string file = dir.path() + "/in" + std::to_string(i) + ".bin";
    std::ofstream(file, std::ios::binary) << inputs[i];
    input_list += (i ? "," : "") + file;
  }
  for (size_t i = 0; i < output_count; ++i) output_list += (i ? "," : "") + dir.path() + "/out" + std::to_string(i) + ".bin";
  ScopedEnvironment strict({{"CFLAGS", "-std=c99 -Wall -Wextra -Werror -pedantic -O2"}});
  std::vector<std::string> args = {"run", path, "--outputs", output_list};
  if (!inputs.empty()) args.insert(args.end(), {"--inputs", input_list});
  Result r = run(args);
  if (failure) *failure = r;
  if (r.status != 0) {
    if (!failure) ADD_FAILURE() << r.output;
    return {};
  }
  std::vector<std::string> outputs;
  for (size_t i = 0; i < output_count; ++i) outputs.push_back(read_bytes(dir.path() + "/out" + std::to_string(i) + ".bin"));
  return outputs;
}

// Every value of T, lowest first.
template <typename T>
std::vector<T> every_value() {
  std::vector<T> v;
  for (int64_t x = std::numeric_limits<T>::min(); x <= std::numeric_limits<T>::max(); ++x) v.push_back(static_cast<T>(x));
  return v;
}

// A model of one operator with one graph input x and one output y.
TfliteModelBuilder unary_model(tfl::BuiltinOperator code, tfl::TensorType type, std::vector<int32_t> shape, float x_scale,
                               int64_t x_zero, float y_scale, int64_t y_zero) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", type, shape, x_scale, x_zero);
  int32_t y = b.output("y", type, shape, y_scale, y_zero);
  b.op(code, {x}, {y});
  return b;
}

// ---------------------------------------------------------------- TFLite's fixed point
// (the rest is in tests/tflite_reference.h)

// gemmlowp's SaturatingRoundingMultiplyByPOT for a positive exponent.
int32_t saturating_shift_left(int32_t x, int exponent) {
  const int32_t threshold = (1 << (31 - exponent)) - 1;
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return x * (1 << exponent);
}

// TFLite's GetInvSqrtQuantizedMultiplierExp(input, kReverseShift = -1, ...): Newton-Raphson
// in gemmlowp's FixedPoint<int32_t, 3> (products of Qa and Qb are Q(a+b); Rescale<3> of a
// Qn value shifts it left by n - 3, saturating).
Multiplier inv_sqrt(int32_t input) {
  if (input <= 1) return {std::numeric_limits<int32_t>::max(), 0};
  int shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++shift;
  }
  const unsigned max_left_shift_bits = static_cast<unsigned>(__builtin_clz(static_cast<uint32_t>(input))) - 1;
  const unsigned left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
  shift -= static_cast<int>(left_shift_bit_pairs);
  input <<= 2 * left_shift_bit_pairs;
  const int32_t half_input = rdbpot(input >> 1, 1);
  const int32_t half_three = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;
  for (int i = 0; i < 5; ++i) {
    const int32_t x3 = saturating_shift_left(srdhm(srdhm(x, x), x), 6);
    x = saturating_shift_left(srdhm(half_three, x) - srdhm(half_input, x3), 3);
  }
  x = srdhm(x, 1518500250);
  if (shift < 0) {
    x = static_cast<int32_t>(static_cast<uint32_t>(x) << -shift);
    shift = 0;
  }
  return {x, -shift};
}

// ---------------------------------------------------------------- int16 LOGISTIC and TANH

// Catches a mistyped entry.
TEST(TfliteSigmoidTable, IsSigmoidOfIOver24) {
  for (int i = 0; i < 256; ++i) EXPECT_LE(std::fabs(kSigmoidTable[i] - 65536 / (1 + std::exp(-i / 24.0))), 1.2) << i;
}

// The int16 part of CalculateArithmeticOpDataLogistic and of TANH's CalculateArithmeticOpData.
Multiplier int16_lut_prepare(float input_scale, bool tanh) {
  int log2 = 0;
  bool pot = checked_log2(input_scale, &log2);
  Multiplier m;
  m.shift = (15 - 3) + log2;
  pot &= tanh ? (m.shift == 0 || m.shift == 1) : m.shift == 0;
  if (pot) return {0, m.shift};
  double multiplier = static_cast<double>(input_scale) * 4096.0 * 3.0;
  m.shift = 0;
  while (multiplier <= 32767.0 / 2.0 && m.shift <= 30) {
    m.shift++;
    multiplier = multiplier * 2.0;
  }
  m.multiplier = static_cast<int32_t>(multiplier);
  return m;
}

// Every int16 input, for input scales that take each path of Prepare: 2^-12 (the power of
// two both take), 2^-11 (a power of two for TANH only), a scale just off 2^-12 that
// CheckedLog2 still calls one, and scales whose multiplier is doubled 3, 6 and 17 times
// (the largest saturates most of the int16 range, the smallest hardly any of it).
TEST(TfliteInt16Activations, LogisticAndTanhMatchTfliteMicro) {
  const float kOutputScale = 1.0f / 32768;
  for (float scale : {1.0f / 4096, 1.0f / 2048, 1.0005f / 4096, 0.3f, 0.0625f * 0.37f, 1.3e-5f}) {
    for (bool tanh : {false, true}) {
      SCOPED_TRACE(std::string(tanh ? "TANH" : "LOGISTIC") + " input scale " + std::to_string(scale));
      std::vector<int16_t> x = every_value<int16_t>();
      auto model = unary_model(tanh ? tfl::BuiltinOperator_TANH : tfl::BuiltinOperator_LOGISTIC, kI16, {256, 256}, scale, 0,
                               kOutputScale, 0);
      std::vector<std::string> out = run_model(model, {bytes_of(x)}, 1);
      ASSERT_EQ(out.size(), 1u);
      std::vector<int16_t> got = values_of<int16_t>(out[0]);
      ASSERT_EQ(got.size(), x.size());
      Multiplier m = int16_lut_prepare(scale, tanh);
      double worst = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(got[i], int16_logistic_or_tanh(x[i], m, tanh)) << "x = " << x[i];
        double real = x[i] * static_cast<double>(scale);
        double want = tanh ? std::tanh(real) : 1 / (1 + std::exp(-real));
        worst = std::max(worst, std::fabs(got[i] / 32768.0 - want));
      }
      EXPECT_LT(worst, 2e-3);  // the table's interpolation, not a wrong formula
    }
  }
}

TEST(TfliteInt16Activations, LogisticAndTanhRejectWhatTfliteMicroRejects) {
  TempDir dir("aotc-tflite-values");
  auto expect_error = [&](const TfliteModelBuilder& model, const std::string& message) {
    std::string path = dir.path() + "/model.tflite";
    model.write(path);
    Result r = run({"compile", path, "-o", dir.path() + "/out"});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  };
  expect_error(unary_model(tfl::BuiltinOperator_LOGISTIC, kI16, {4}, 1.0f / 4096, 0, 1.0f / 256, 0),
               "the output scale must be 2^-15");
  expect_error(unary_model(tfl::BuiltinOperator_TANH, kI16, {4}, 1.0f / 4096, 3, 1.0f / 32768, 0), "needs 0");
  expect_error(unary_model(tfl::BuiltinOperator_TANH, kI16, {4}, 8.0f, 0, 1.0f / 32768, 0), "too large");
  expect_error(unary_model(tfl::BuiltinOperator_RSQRT, kI16, {4}, 0.01f, 0, 0.01f, 0), "supported: float32 and int8");
}

// ---------------------------------------------------------------- L2_NORMALIZATION (int8)

// reference_integer_ops::L2Normalization: rows along the last axis, output in steps of 1/128.
std::vector<int8_t> int8_l2_normalization(const std::vector<int8_t>& x, int32_t zero_point, int depth) {
  std::vector<int8_t> y(x.size());
  for (size_t row = 0; row < x.size() / static_cast<size_t>(depth); ++row) {
    int32_t acc = 0;
    for (int c = 0; c < depth; ++c) {
      int32_t v = x[row * static_cast<size_t>(depth) + static_cast<size_t>(c)] - zero_point;
      acc += v * v;
    }
    Multiplier m = inv_sqrt(acc);
    for (int c = 0; c < depth; ++c) {
      size_t i = row * static_cast<size_t>(depth) + static_cast<size_t>(c);
      y[i] = saturate<int8_t>(mbqm(x[i] - zero_point, m.multiplier, m.shift + 7));
    }
  }
  return y;
}

// Rows of every kind: all at the zero point (sum 0), one step off it (sum 1), one extreme
// value, a row of extremes (the largest sums), and pseudo-random rows; zero points at both
// ends of int8 and in the middle.
TEST(TfliteL2Normalization, Int8MatchesTfliteMicro) {
  const int kDepth = 24, kRows = 40;
  for (int32_t zero_point : {-128, 0, 127, -5}) {
    SCOPED_TRACE("zero point " + std::to_string(zero_point));
    std::vector<int8_t> x(static_cast<size_t>(kRows * kDepth), static_cast<int8_t>(zero_point));
    uint32_t state = 12345;
    for (int row = 0; row < kRows; ++row) {
      for (int c = 0; c < kDepth; ++c) {
        size_t i = static_cast<size_t>(row * kDepth + c);
        state = state * 1664525u + 1013904223u;
        if (row == 1 && c == 3) x[i] = static_cast<int8_t>(zero_point == 127 ? 126 : zero_point + 1);
        if (row == 2 && c == 0) x[i] = zero_point > 0 ? -128 : 127;
        if (row == 3) x[i] = (c % 2) ? -128 : 127;
        if (row >= 4) x[i] = static_cast<int8_t>(static_cast<int32_t>(state >> 24) - 128);
        if (row >= 20 && c > row - 20) x[i] = static_cast<int8_t>(zero_point);  // sparser rows: smaller sums
      }
    }
    TfliteModelBuilder b;
    int32_t in = b.input("x", kI8, {2, kRows / 2, kDepth}, 0.05f, zero_point);
    int32_t out = b.output("y", kI8, {2, kRows / 2, kDepth}, 1.0f / 128, 0);
    b.op(tfl::BuiltinOperator_L2_NORMALIZATION, {in}, {out});
    std::vector<std::string> got = run_model(b, {bytes_of(x)}, 1);
    ASSERT_EQ(got.size(), 1u);
    std::vector<int8_t> want = int8_l2_normalization(x, zero_point, kDepth);
    std::vector<int8_t> y = values_of<int8_t>(got[0]);
    ASSERT_EQ(y.size(), want.size());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], want[i]) << "element " << i;
    // And the real function: x / |x| to within two steps of 1/128 where the row is not 0.
    for (int row = 0; row < kRows; ++row) {
      double norm = 0;
      for (int c = 0; c < kDepth; ++c) norm += std::pow(x[static_cast<size_t>(row * kDepth + c)] - zero_point, 2);
      if (norm == 0) continue;
      for (int c = 0; c < kDepth; ++c) {
        size_t i = static_cast<size_t>(row * kDepth + c);
        EXPECT_LE(std::fabs(y[i] - std::min(127.0, 128 * (x[i] - zero_point) / std::sqrt(norm))), 2.0) << i;
      }
    }
  }
}

// ---------------------------------------------------------------- PRELU (int8, int16)

// reference_ops::BroadcastPrelu4DSlow with CalculatePreluParams, alpha per channel.
template <typename T>
std::vector<T> quantized_prelu(const std::vector<T>& x, const std::vector<int8_t>& alpha, float sx, int32_t zx, float sa,
                               int32_t za, float sy, int32_t zy) {
  Multiplier positive = quantize(static_cast<double>(sx) / static_cast<double>(sy));
  Multiplier negative = quantize(static_cast<double>(sx) * static_cast<double>(sa) / static_cast<double>(sy));
  std::vector<T> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int32_t input = -zx + x[i];
    int32_t output;
    if (input >= 0) {
      output = mbqm(input, positive.multiplier, positive.shift);
    } else {
      const int32_t a = -za + alpha[i % alpha.size()];
      output = mbqm(input * a, negative.multiplier, negative.shift);
    }
    y[i] = saturate<T>(output + zy);
  }
  return y;
}

template <typename T>
void check_prelu(tfl::TensorType type, float sx, int32_t zx, float sa, int32_t za, float sy, int32_t zy) {
  std::vector<T> x = every_value<T>();
  std::vector<int8_t> alpha = {-128, -1, 0, 1, 77, 127, static_cast<int8_t>(za), 50};
  TfliteModelBuilder b;
  int32_t in = b.input("x", type, {static_cast<int32_t>(x.size() / 8), 8}, sx, zx);
  int32_t a = b.constant("alpha", kI8, {8}, alpha, sa, za);
  int32_t out = b.output("y", type, {static_cast<int32_t>(x.size() / 8), 8}, sy, zy);
  b.op(tfl::BuiltinOperator_PRELU, {in, a}, {out});
  std::vector<std::string> got = run_model(b, {bytes_of(x)}, 1);
  ASSERT_EQ(got.size(), 1u);
  std::vector<T> y = values_of<T>(got[0]), want = quantized_prelu(x, alpha, sx, zx, sa, za, sy, zy);
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], want[i]) << "x = " << x[i] << ", alpha " << int{alpha[i % 8]};
}

TEST(TflitePrelu, Int8AndInt16MatchTfliteMicro) {
  check_prelu<int8_t>(kI8, 0.03f, -128, 0.01f, 127, 0.05f, 127);
  check_prelu<int8_t>(kI8, 0.1f, 127, 0.004f, -128, 0.02f, -128);
  check_prelu<int16_t>(kI16, 0.001f, 0, 0.01f, -128, 0.0007f, 0);
  check_prelu<int16_t>(kI16, 0.0002f, 300, 0.02f, 127, 0.001f, -40);
}

// ---------------------------------------------------------------- RELU, RELU6, LEAKY_RELU (int16)

// One output element of a unary int16 operator for every int16 input, through the C.
std::vector<int16_t> run_every_int16(tfl::BuiltinOperator code, float sx, float sy, tfl::BuiltinOptions options_type = tfl::BuiltinOptions_NONE,
                                     TfliteModelBuilder::OptionsFn options = nullptr) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kI16, {256, 256}, sx, 0);
  int32_t y = b.output("y", kI16, {256, 256}, sy, 0);
  b.op(code, {x}, {y}, options_type, std::move(options));
  std::vector<std::string> got = run_model(b, {bytes_of(every_value<int16_t>())}, 1);
  return got.empty() ? std::vector<int16_t>{} : values_of<int16_t>(got[0]);
}

// ReluQuantized<int16_t> with CalculateReluOpData (activations_common.cc): x requantized by
// input / output scale (zero points 0, as TFLite Micro's int16 RELU requires), clamped to
// [output zero point, int16 max].
TEST(TfliteQuantizedRelu, Int16ReluRequantizesAndClampsAtZero) {
  for (auto [sx, sy] : std::vector<std::pair<float, float>>{{0.0009f, 0.0011f}, {0.002f, 0.0005f}}) {
    std::vector<int16_t> y = run_every_int16(tfl::BuiltinOperator_RELU, sx, sy);
    ASSERT_EQ(y.size(), 65536u);
    Multiplier m = quantize(static_cast<double>(sx) / static_cast<double>(sy));
    for (int32_t x = -32768; x <= 32767; ++x)
      ASSERT_EQ(y[static_cast<size_t>(x + 32768)], clamp_to(mbqm(x, m.multiplier, m.shift), 0, 32767)) << "x = " << x;
  }
}

// Relu6Quantized<int16_t>: the raw value clamped to [zero point, FloatToQuantizedType(6)].
TEST(TfliteQuantizedRelu, Int16Relu6ClampsTheRawValue) {
  for (float scale : {0.0003f, 0.0001f}) {  // six = 20000, and beyond int16 (saturated to 32767)
    std::vector<int16_t> y = run_every_int16(tfl::BuiltinOperator_RELU6, scale, scale);
    ASSERT_EQ(y.size(), 65536u);
    int32_t six = clamp_to(static_cast<int32_t>(std::round(6.0f / scale)), -32768, 32767);
    for (int32_t x = -32768; x <= 32767; ++x) ASSERT_EQ(y[static_cast<size_t>(x + 32768)], clamp_to(x, 0, six)) << "x = " << x;
  }
}

// The same on int8 where a bound is the type's end (the zero point at -128, six beyond 127),
// which the C must not compare against (-Wtype-limits under -Werror).
TEST(TfliteQuantizedRelu, Int8Relu6WithBoundsAtTheTypesEnds) {
  for (auto [scale, zero_point] : std::vector<std::pair<float, int32_t>>{{0.03f, -128}, {0.03f, -7}}) {
    std::vector<int8_t> x = every_value<int8_t>();
    std::vector<std::string> got =
        run_model(unary_model(tfl::BuiltinOperator_RELU6, kI8, {256}, scale, zero_point, scale, zero_point), {bytes_of(x)}, 1);
    ASSERT_EQ(got.size(), 1u);
    std::vector<int8_t> y = values_of<int8_t>(got[0]);
    int32_t six = clamp_to(static_cast<int32_t>(std::round(6.0f / scale)) + zero_point, -128, 127);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], clamp_to(x[i], zero_point, six)) << "x = " << int{x[i]};
  }
}

// QuantizeLeakyRelu<int16_t> with CalculateOpDataLeakyRelu (both ratios formed in float).
TEST(TfliteQuantizedRelu, Int16LeakyReluFollowsTfliteMicro) {
  const float sx = 0.0009f, sy = 0.0007f, alpha = 0.3f;
  std::vector<int16_t> y = run_every_int16(tfl::BuiltinOperator_LEAKY_RELU, sx, sy, tfl::BuiltinOptions_LeakyReluOptions,
                                           [=](FBB& f) { return tfl::CreateLeakyReluOptions(f, alpha).Union(); });
  ASSERT_EQ(y.size(), 65536u);
  Multiplier identity = quantize(static_cast<double>(sx / sy)), negative = quantize(static_cast<double>(sx * alpha / sy));
  for (int32_t x = -32768; x <= 32767; ++x) {
    Multiplier m = x >= 0 ? identity : negative;
    ASSERT_EQ(y[static_cast<size_t>(x + 32768)], saturate<int16_t>(mbqm(x, m.multiplier, m.shift))) << "x = " << x;
  }
}

// MINIMUM and MAXIMUM (maximum_minimum.cc) compare raw values: every int8 or int16 value
// against a row broadcast over it.
template <typename T>
void check_min_max(tfl::TensorType type) {
  std::vector<T> x = every_value<T>();
  const int32_t width = sizeof(T) == 1 ? 16 : 256, rows = static_cast<int32_t>(x.size()) / width;
  std::vector<T> row(static_cast<size_t>(width));
  for (size_t i = 0; i < row.size(); ++i)
    row[i] = static_cast<T>(std::numeric_limits<T>::min() + (sizeof(T) == 1 ? 17 : 257) * static_cast<int32_t>(i));
  for (bool maximum : {false, true}) {
    TfliteModelBuilder b;
    int32_t a = b.input("a", type, {rows, width}, 0.001f, 0), c = b.input("c", type, {width}, 0.001f, 0);
    int32_t y = b.output("y", type, {rows, width}, 0.001f, 0);
    b.op(maximum ? tfl::BuiltinOperator_MAXIMUM : tfl::BuiltinOperator_MINIMUM, {a, c}, {y});
    std::vector<std::string> got = run_model(b, {bytes_of(x), bytes_of(row)}, 1);
    ASSERT_EQ(got.size(), 1u);
    std::vector<T> v = values_of<T>(got[0]);
    ASSERT_EQ(v.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      T other = row[i % row.size()];
      ASSERT_EQ(v[i], maximum ? std::max(x[i], other) : std::min(x[i], other)) << i;
    }
  }
}

TEST(TfliteQuantizedMinMax, Int8AndInt16CompareTheRawValues) {
  check_min_max<int8_t>(kI8);
  check_min_max<int16_t>(kI16);
}

// ---------------------------------------------------------------- ABS, RSQRT

// AbsEvalQuantized.
template <typename T>
T quantized_abs(T x, float sx, int32_t zx, float sy, int32_t zy) {
  const int32_t value = std::abs(x - zx);
  if (sx == sy) return saturate<T>(value + zy);
  Multiplier m = quantize(static_cast<double>(sx) / static_cast<double>(sy));
  return saturate<T>(mbqm(value, m.multiplier, m.shift) + zy);
}

template <typename T>
void check_abs(tfl::TensorType type, float sx, int32_t zx, float sy, int32_t zy) {
  SCOPED_TRACE("scales " + std::to_string(sx) + ", " + std::to_string(sy) + " zero points " + std::to_string(zx) + ", " +
               std::to_string(zy));
  std::vector<T> x = every_value<T>();
  std::vector<std::string> got =
      run_model(unary_model(tfl::BuiltinOperator_ABS, type, {static_cast<int32_t>(x.size())}, sx, zx, sy, zy), {bytes_of(x)}, 1);
  ASSERT_EQ(got.size(), 1u);
  std::vector<T> y = values_of<T>(got[0]);
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    // int16 without quantization parameters: std::abs of the raw value, narrowed.
    T want = sx == 0 ? static_cast<T>(std::abs(static_cast<int32_t>(x[i]))) : quantized_abs(x[i], sx, zx, sy, zy);
    ASSERT_EQ(y[i], want) << "x = " << x[i];
  }
}

TEST(TfliteAbs, Int8AndInt16MatchTfliteMicro) {
  check_abs<int8_t>(kI8, 0.05f, -128, 0.05f, 127);  // one scale: no rescaling
  check_abs<int8_t>(kI8, 0.05f, 127, 0.03f, -128);
  check_abs<int8_t>(kI8, 0.02f, 3, 0.05f, -100);
  check_abs<int16_t>(kI16, 0.001f, 0, 0.001f, 0);
  check_abs<int16_t>(kI16, 0.001f, 0, 0.0004f, 0);  // saturates from |x| > 13107
  check_abs<int16_t>(kI16, 0, 0, 0, 0);              // -32768 stays -32768
}

// RsqrtEvalQuantized (SetRsqrtOutputMultiplier), for inputs at or above the zero point.
int8_t quantized_rsqrt(int8_t x, float sx, int32_t zx, float sy, int32_t zy) {
  const int32_t value = x - zx;
  const int kShift = 20;
  if (value == 0) return 127;
  Multiplier inv = inv_sqrt(value);
  const int32_t data = mbqm(1, inv.multiplier, inv.shift + kShift);
  Multiplier m = quantize(1.0 / (std::sqrt(static_cast<double>(sx)) * static_cast<double>(sy)));
  return saturate<int8_t>(mbqm(data, m.multiplier, m.shift - kShift) + zy);
}

TEST(TfliteRsqrt, Int8MatchesTfliteMicro) {
  struct Case {
    float sx;
    int32_t zx;
    float sy;
    int32_t zy;
  };
  for (Case c : {Case{0.05f, -128, 0.02f, -128}, Case{0.001f, -128, 0.5f, 0}, Case{0.3f, -128, 0.01f, 127},
                 Case{0.02f, 0, 0.05f, -60}}) {
    SCOPED_TRACE("input zero point " + std::to_string(c.zx) + " scales " + std::to_string(c.sx) + ", " + std::to_string(c.sy));
    std::vector<int8_t> x;  // every valid input: at or above the zero point
    for (int v = c.zx; v <= 127; ++v) x.push_back(static_cast<int8_t>(v));
    std::vector<std::string> got = run_model(
        unary_model(tfl::BuiltinOperator_RSQRT, kI8, {static_cast<int32_t>(x.size())}, c.sx, c.zx, c.sy, c.zy), {bytes_of(x)}, 1);
    ASSERT_EQ(got.size(), 1u);
    std::vector<int8_t> y = values_of<int8_t>(got[0]);
    ASSERT_EQ(y.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], quantized_rsqrt(x[i], c.sx, c.zx, c.sy, c.zy)) << "x = " << int{x[i]};
  }
}

// TFLite Micro fails the invocation on an input below the zero point; so does the model.
TEST(TfliteRsqrt, Int8InputBelowTheZeroPointFailsTheRun) {
  std::vector<int8_t> x = {5, 0, -1, 7};
  Result failure;
  std::vector<std::string> got =
      run_model(unary_model(tfl::BuiltinOperator_RSQRT, kI8, {4}, 0.1f, 0, 0.1f, 0), {bytes_of(x)}, 1, &failure);
  EXPECT_TRUE(got.empty());
  EXPECT_NE(failure.status, 0);
  EXPECT_NE(failure.output.find("_run failed"), std::string::npos) << failure.output;
}

// TFLite Micro has no int16 RSQRT: elementwise.cc's IsRsqrtSupportedType is float32 or
// int8, and its Prepare fails on anything else (its RsqrtEval's int16 case is never
// reached). aotc refuses the model at compile time, naming the node (after its output),
// with the CLI's compile-error exit status 1, and `aotc run` refuses it the same way.
TEST(TfliteRsqrt, Int16IsACompileErrorNamingTheNode) {
  TempDir dir("aotc-tflite-values");
  std::string path = dir.path() + "/model.tflite";
  unary_model(tfl::BuiltinOperator_RSQRT, kI16, {4}, 0.01f, 0, 0.01f, 0).write(path);
  const std::string message =
      "node y (tfl.RSQRT): input 'x' is int16; supported: float32 and int8 (TFLite Micro has no int16 RSQRT either)";
  Result compiled = run({"compile", path, "-o", dir.path() + "/out"});
  EXPECT_EQ(compiled.status, 1) << compiled.output;
  EXPECT_NE(compiled.output.find(message), std::string::npos) << compiled.output;
  Result failure;
  std::vector<std::string> got =
      run_model(unary_model(tfl::BuiltinOperator_RSQRT, kI16, {4}, 0.01f, 0, 0.01f, 0), {bytes_of(std::vector<int16_t>{1, 2, 3, 4})}, 1, &failure);
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(failure.status, 1) << failure.output;
  EXPECT_NE(failure.output.find(message), std::string::npos) << failure.output;
}

// ---------------------------------------------------------------- ADD, SUB (int16)

// One int16 ADD or SUB's parameters: scales, zero points, fused activation and the
// pot_scale_int16 option (which TFLite Micro ignores).
struct Int16AddSubCase {
  bool subtract;
  float sa;
  int32_t za;
  float sb;
  int32_t zb;
  float sy;
  int32_t zy;
  tfl::ActivationFunctionType activation;
  bool pot_scale_int16;
};

// reference_ops::AddElementwise / SubElementwise on int16 with the parameters of
// CalculateOpDataAdd (add_common.cc: the scales combined in double) or CalculateOpDataSub
// (sub_common.cc: in float, then widened), left_shift 15, and the activation range of
// CalculateActivationRangeQuantized. TFLite Micro's ADD passes pot_scale = false to
// reference_ops::Add and its SUB has no other path, so this is the only int16 formula.
int16_t tflm_int16_add_sub(int16_t a, int16_t b, const Int16AddSubCase& c) {
  const int left_shift = 15;
  double real_a, real_b, real_y;
  if (!c.subtract) {
    const double twice_max_input_scale = 2 * static_cast<double>(std::max(c.sa, c.sb));
    real_a = static_cast<double>(c.sa) / twice_max_input_scale;
    real_b = static_cast<double>(c.sb) / twice_max_input_scale;
    real_y = twice_max_input_scale / ((1 << left_shift) * static_cast<double>(c.sy));
  } else {
    const float twice_max_input_scale = 2 * std::max(c.sa, c.sb);
    real_a = static_cast<double>(c.sa / twice_max_input_scale);
    real_b = static_cast<double>(c.sb / twice_max_input_scale);
    real_y = static_cast<double>(twice_max_input_scale / ((1 << left_shift) * c.sy));
  }
  Multiplier ma = quantize(real_a), mb = quantize(real_b), my = quantize(real_y);
  int32_t lo = -32768, hi = 32767;
  if (c.activation == tfl::ActivationFunctionType_RELU) lo = std::max(lo, c.zy);
  if (c.activation == tfl::ActivationFunctionType_RELU6) {
    lo = std::max(lo, c.zy);
    hi = std::min(hi, c.zy + static_cast<int32_t>(std::round(6.0f / c.sy)));
  }
  const int32_t shifted_a = (a - c.za) * (1 << left_shift), shifted_b = (b - c.zb) * (1 << left_shift);
  const int32_t scaled_a = mbqm(shifted_a, ma.multiplier, ma.shift), scaled_b = mbqm(shifted_b, mb.multiplier, mb.shift);
  const int32_t raw = c.subtract ? scaled_a - scaled_b : scaled_a + scaled_b;
  return static_cast<int16_t>(clamp_to(mbqm(raw, my.multiplier, my.shift) + c.zy, lo, hi));
}

// Every int16 value of a [65536, 1] against the eight values of b [1, 8] (broadcast), one
// int16 ADD or SUB through the C.
void check_int16_add_sub(const Int16AddSubCase& c) {
  SCOPED_TRACE(std::string(c.subtract ? "SUB" : "ADD") + " scales " + std::to_string(c.sa) + ", " + std::to_string(c.sb) +
               ", " + std::to_string(c.sy) + " zero points " + std::to_string(c.za) + ", " + std::to_string(c.zb) + ", " +
               std::to_string(c.zy));
  std::vector<int16_t> a = every_value<int16_t>(), b = {-32768, -20000, -1, 0, 1, 777, 20000, 32767};
  TfliteModelBuilder builder;
  int32_t ia = builder.input("a", kI16, {65536, 1}, c.sa, c.za), ib = builder.input("b", kI16, {1, 8}, c.sb, c.zb);
  int32_t out = builder.output("y", kI16, {65536, 8}, c.sy, c.zy);
  if (c.subtract) {
    builder.op(tfl::BuiltinOperator_SUB, {ia, ib}, {out}, tfl::BuiltinOptions_SubOptions,
               [c](FBB& f) { return tfl::CreateSubOptions(f, c.activation, c.pot_scale_int16).Union(); });
  } else {
    builder.op(tfl::BuiltinOperator_ADD, {ia, ib}, {out}, tfl::BuiltinOptions_AddOptions,
               [c](FBB& f) { return tfl::CreateAddOptions(f, c.activation, c.pot_scale_int16).Union(); });
  }
  std::vector<std::string> got = run_model(builder, {bytes_of(a), bytes_of(b)}, 1);
  ASSERT_EQ(got.size(), 1u);
  std::vector<int16_t> y = values_of<int16_t>(got[0]);
  ASSERT_EQ(y.size(), a.size() * b.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j)
      ASSERT_EQ(y[i * b.size() + j], tflm_int16_add_sub(a[i], b[j], c)) << "a = " << a[i] << ", b = " << b[j];
}

TEST(TfliteInt16AddSub, MatchTfliteMicro) {
  const auto kNone = tfl::ActivationFunctionType_NONE, kRelu = tfl::ActivationFunctionType_RELU;
  const auto kRelu6 = tfl::ActivationFunctionType_RELU6;
  // As the converter writes 16x8 models (zero points 0), with saturating sums.
  check_int16_add_sub({false, 0.0003f, 0, 0.0005f, 0, 0.0006f, 0, kNone, false});
  check_int16_add_sub({true, 0.0003f, 0, 0.0005f, 0, 0.0006f, 0, kNone, false});
  // Equal input scales (the factor 1/2 on both, exactly 2^30) and power-of-two scales with
  // pot_scale_int16 set, where TFLite (not Micro) would take its power-of-two path.
  check_int16_add_sub({false, 1.0f / 4096, 0, 1.0f / 4096, 0, 1.0f / 2048, 0, kNone, true});
  check_int16_add_sub({true, 1.0f / 4096, 0, 1.0f / 8192, 0, 1.0f / 4096, 0, kRelu, true});
  // Zero points off 0 (TFLite Micro accepts them) and the fused activations' clamps.
  check_int16_add_sub({false, 0.0002f, -300, 0.0007f, 1200, 0.0004f, 55, kRelu, false});
  check_int16_add_sub({true, 0.001f, 7, 0.0002f, -9, 0.0003f, -1000, kRelu6, true});
  // The scales of TensorFlow Lite Micro's seanet sub0 model: combined in double (ADD) and in
  // float (SUB) they give multipliers a few units apart, and 144 of these outputs one apart,
  // so each operator must combine them as its own Prepare does.
  for (bool subtract : {false, true})
    check_int16_add_sub({subtract, 0.0009693715837784111f, 0, 8.709842404641677e-06f, 0, 0.0005941494018770754f, 0, kNone, false});
}

// ---------------------------------------------------------------- SQUARED_DIFFERENCE

// SquaredDifference(x, y, params) with PrepareQuantized's parameters.
template <typename T>
T quantized_squared_difference(T a, T b, float sa, int32_t za, float sb, int32_t zb, float sy, int32_t zy) {
  const int left_shift = sizeof(T) == 1 ? 7 : 0;
  const double twice_max_input_scale = 2.0 * static_cast<double>(std::max(sa, sb));
  Multiplier ma = quantize(static_cast<double>(sa) / twice_max_input_scale);
  Multiplier mb = quantize(static_cast<double>(sb) / twice_max_input_scale);
  Multiplier my = quantize((twice_max_input_scale * twice_max_input_scale) /
                           static_cast<double>((1 << left_shift * 2) * sy));
  const int32_t shifted_a = (-za + a) * (1 << left_shift), shifted_b = (-zb + b) * (1 << left_shift);
  const int32_t raw_diff = mbqm(shifted_a, ma.multiplier, ma.shift) - mbqm(shifted_b, mb.multiplier, mb.shift);
  return saturate<T>(mbqm(raw_diff * raw_diff, my.multiplier, my.shift) + zy);
}

// a [n, 1] against b [1, n], broadcast to every pair.
template <typename T>
void check_squared_difference(tfl::TensorType type, const std::vector<T>& a, const std::vector<T>& b, float sa, int32_t za,
                              float sb, int32_t zb, float sy, int32_t zy) {
  int32_t n = static_cast<int32_t>(a.size()), m = static_cast<int32_t>(b.size());
  TfliteModelBuilder builder;
  int32_t ia = builder.input("a", type, {n, 1}, sa, za), ib = builder.input("b", type, {1, m}, sb, zb);
  int32_t out = builder.output("y", type, {n, m}, sy, zy);
  builder.op(tfl::BuiltinOperator_SQUARED_DIFFERENCE, {ia, ib}, {out});
  std::vector<std::string> got = run_model(builder, {bytes_of(a), bytes_of(b)}, 1);
  ASSERT_EQ(got.size(), 1u);
  std::vector<T> y = values_of<T>(got[0]);
  ASSERT_EQ(y.size(), a.size() * b.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      T want = sa == 0 ? static_cast<T>((a[i] - b[j]) * (a[i] - b[j]))
                       : quantized_squared_difference(a[i], b[j], sa, za, sb, zb, sy, zy);
      ASSERT_EQ(y[i * b.size() + j], want) << "a = " << a[i] << ", b = " << b[j];
    }
}

TEST(TfliteSquaredDifference, Int8Int16AndInt32MatchTfliteMicro) {
  std::vector<int8_t> all8 = every_value<int8_t>();
  // Every pair of int8 values; zero points at the ends, outputs that saturate.
  check_squared_difference<int8_t>(kI8, all8, all8, 0.02f, -128, 0.05f, 127, 1.0f, -128);
  check_squared_difference<int8_t>(kI8, all8, all8, 0.04f, 10, 0.04f, -3, 0.5f, 127);
  std::vector<int16_t> some16;
  for (int v = -32768; v <= 32767; v += 257) some16.push_back(static_cast<int16_t>(v));
  for (int v : {-1, 0, 1, 32767, -32767}) some16.push_back(static_cast<int16_t>(v));
  check_squared_difference<int16_t>(kI16, some16, some16, 0.001f, 0, 0.0005f, 0, 0.002f, 0);
  check_squared_difference<int16_t>(kI16, some16, some16, 0.0001f, 0, 0.0001f, 0, 0.2f, 0);
  // int32 (no quantization): differences up to 46340, whose square is the largest in int32.
  std::vector<int32_t> ints = {-21340, -1000, -7, 0, 3, 999, 20000, 21340};
  check_squared_difference<int32_t>(kI32, ints, std::vector<int32_t>{-3, 0, 12, 25000}, 0, 0, 0, 0, 0, 0);
}

// ---------------------------------------------------------------- RESIZE_BILINEAR

struct ResizeCase {
  int in_h, in_w, out_h, out_w;
  bool align_corners, half_pixel_centers;
};

// reference_ops::ResizeBilinear (float) and ResizeBilinearInteger (int8) for one channel
// layout [1, h, w, depth].
template <typename T>
std::vector<T> resize_bilinear(const std::vector<T>& x, const ResizeCase& c, int depth) {
  std::vector<T> y(static_cast<size_t>(c.out_h * c.out_w * depth));
  auto at = [&](int yy, int xx, int ch) { return x[static_cast<size_t>((yy * c.in_w + xx) * depth + ch)]; };
  if constexpr (std::is_same_v<T, float>) {
    float hs = static_cast<float>(c.in_h) / c.out_h, ws = static_cast<float>(c.in_w) / c.out_w;
    if (c.align_corners && c.out_h > 1) hs = static_cast<float>(c.in_h - 1) / (c.out_h - 1);
    if (c.align_corners && c.out_w > 1) ws = static_cast<float>(c.in_w - 1) / (c.out_w - 1);
    auto interpolation = [&](int v, float scale, int size, float* scaled, int32_t* lo, int32_t* hi) {
      *scaled = c.half_pixel_centers ? (static_cast<float>(v) + 0.5f) * scale - 0.5f : static_cast<float>(v) * scale;
      *lo = std::max(static_cast<int32_t>(std::floor(*scaled)), 0);
      *hi = std::min(static_cast<int32_t>(std::ceil(*scaled)), size - 1);
    };
    for (int oy = 0; oy < c.out_h; ++oy)
      for (int ox = 0; ox < c.out_w; ++ox) {
        float iy, ix;
        int32_t y0, y1, x0, x1;
        interpolation(oy, hs, c.in_h, &iy, &y0, &y1);
        interpolation(ox, ws, c.in_w, &ix, &x0, &x1);
        for (int ch = 0; ch < depth; ++ch)
          y[static_cast<size_t>((oy * c.out_w + ox) * depth + ch)] =
              at(y0, x0, ch) * (1 - (iy - y0)) * (1 - (ix - x0)) + at(y1, x0, ch) * (iy - y0) * (1 - (ix - x0)) +
              at(y0, x1, ch) * (1 - (iy - y0)) * (ix - x0) + at(y1, x1, ch) * (iy - y0) * (ix - x0);
      }
  } else {
    auto scale_10 = [&](int in, int out) {
      return c.align_corners && out > 1 ? ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1) : ((1 << 10) * in + out / 2) / out;
    };
    auto interpolation = [&](int v, int32_t scale, int size, int32_t* scaled, int32_t* lo, int32_t* hi) {
      *scaled = c.half_pixel_centers ? v * scale + scale / 2 - (1 << 9) : v * scale;
      *lo = std::max(*scaled / (1 << 10), 0);
      *hi = std::min((*scaled + (1 << 10) - 1) / (1 << 10), size - 1);
    };
    for (int oy = 0; oy < c.out_h; ++oy)
      for (int ox = 0; ox < c.out_w; ++ox) {
        int32_t iy, ix, y0, y1, x0, x1;
        interpolation(oy, scale_10(c.in_h, c.out_h), c.in_h, &iy, &y0, &y1);
        interpolation(ox, scale_10(c.in_w, c.out_w), c.in_w, &ix, &x0, &x1);
        const int32_t dy = iy - (1 << 10) * y0, dx = ix - (1 << 10) * x0;  // as TFLite spells them out
        for (int ch = 0; ch < depth; ++ch) {
          const int64_t sum = static_cast<int64_t>(at(y0, x0, ch)) * ((1 << 10) - dy) * ((1 << 10) - dx) +
                              static_cast<int64_t>(at(y1, x0, ch)) * dy * ((1 << 10) - dx) +
                              static_cast<int64_t>(at(y0, x1, ch)) * ((1 << 10) - dy) * dx +
                              static_cast<int64_t>(at(y1, x1, ch)) * dy * dx;
          const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
          y[static_cast<size_t>((oy * c.out_w + ox) * depth + ch)] = static_cast<T>((sum + round) / (1 << 20));
        }
      }
  }
  return y;
}

template <typename T>
void check_resize_bilinear(const ResizeCase& c) {
  SCOPED_TRACE(std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + " to " + std::to_string(c.out_h) + "x" +
               std::to_string(c.out_w) + (c.align_corners ? " align_corners" : "") +
               (c.half_pixel_centers ? " half_pixel_centers" : ""));
  const int depth = 3;
  bool integer = std::is_same_v<T, int8_t>;
  std::vector<T> x(static_cast<size_t>(c.in_h * c.in_w * depth));
  uint32_t state = 777;
  for (T& v : x) {
    state = state * 1664525u + 1013904223u;
    v = integer ? static_cast<T>(static_cast<int32_t>(state >> 24) - 128) : static_cast<T>((state >> 8) / 16777216.0 * 4 - 2);
  }
  if (integer) x[0] = static_cast<T>(-128), x[1] = static_cast<T>(127);
  TfliteModelBuilder b;
  tfl::TensorType type = integer ? kI8 : kF32;
  int32_t in = b.input("x", type, {1, c.in_h, c.in_w, depth}, integer ? 0.05f : 0, integer ? 3 : 0);
  int32_t size = b.constant("size", kI32, {2}, std::vector<int32_t>{c.out_h, c.out_w});
  int32_t out = b.output("y", type, {1, c.out_h, c.out_w, depth}, integer ? 0.05f : 0, integer ? 3 : 0);
  b.op(tfl::BuiltinOperator_RESIZE_BILINEAR, {in, size}, {out}, tfl::BuiltinOptions_ResizeBilinearOptions,
       [c](FBB& f) { return tfl::CreateResizeBilinearOptions(f, c.align_corners, c.half_pixel_centers).Union(); });
  std::vector<std::string> got = run_model(b, {bytes_of(x)}, 1);
  ASSERT_EQ(got.size(), 1u);
  std::vector<T> y = values_of<T>(got[0]), want = resize_bilinear(x, c, depth);
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], want[i]) << "element " << i;
}

TEST(TfliteResizeBilinear, FloatAndInt8MatchTfliteMicro) {
  for (ResizeCase c : {ResizeCase{3, 4, 7, 5, false, false}, ResizeCase{3, 4, 7, 5, true, false},
                       ResizeCase{3, 4, 7, 5, false, true}, ResizeCase{5, 6, 2, 4, false, true},
                       ResizeCase{4, 4, 1, 1, true, false}}) {
    check_resize_bilinear<float>(c);
    check_resize_bilinear<int8_t>(c);
  }
}

// ---------------------------------------------------------------- folded at compile time

// The same kernels on constant operands: fold_constants evaluates them at compile time in
// the IR interpreter, whose fixed-point calls run the runtime's C through
// lowering/ir/runtime_calls.cc, and the values must be the same. `add_op` adds the
// constants and the operator writing tensor `t`; a MAXIMUM with an input at T's minimum
// carries t to the output.
template <typename T>
std::vector<T> run_folded(tfl::TensorType type, std::vector<int32_t> shape, float t_scale, int64_t t_zero,
                          const std::function<void(TfliteModelBuilder&, int32_t)>& add_op) {
  TfliteModelBuilder b;
  size_t size = 1;
  for (int32_t d : shape) size *= static_cast<size_t>(d);
  int32_t t = b.tensor(TfliteModelBuilder::spec("t", type, shape, t_scale, t_zero));
  add_op(b, t);
  int32_t z = b.input("z", type, shape, t_scale, t_zero);
  int32_t y = b.output("y", type, shape, t_scale, t_zero);
  b.op(tfl::BuiltinOperator_MAXIMUM, {t, z}, {y});
  // Only the MAXIMUM is left after fold_constants.
  TempDir dir("aotc-tflite-values");
  b.write(dir.path() + "/model.tflite");
  Result ir = run({"compile", dir.path() + "/model.tflite", "-o", dir.path() + "/out", "--print-after", "fold_constants"});
  EXPECT_EQ(ir.status, 0) << ir.output;
  size_t kernels = 0;
  for (size_t at = ir.output.find(" = tfl."); at != std::string::npos; at = ir.output.find(" = tfl.", at + 1)) ++kernels;
  EXPECT_EQ(kernels, 1u) << ir.output;
  std::vector<std::string> out = run_model(b, {bytes_of(std::vector<T>(size, std::numeric_limits<T>::min()))}, 1);
  return out.empty() ? std::vector<T>{} : values_of<T>(out[0]);
}

TEST(TfliteFoldedOperators, MatchTfliteMicroToo) {
  std::vector<int16_t> all16 = every_value<int16_t>();
  for (bool tanh : {false, true}) {
    SCOPED_TRACE(tanh ? "TANH" : "LOGISTIC");
    std::vector<int16_t> y = run_folded<int16_t>(kI16, {256, 256}, 1.0f / 32768, 0, [&](TfliteModelBuilder& b, int32_t t) {
      int32_t x = b.constant("x", kI16, {256, 256}, all16, 0.3f, 0);
      b.op(tanh ? tfl::BuiltinOperator_TANH : tfl::BuiltinOperator_LOGISTIC, {x}, {t});
    });
    ASSERT_EQ(y.size(), all16.size());
    Multiplier m = int16_lut_prepare(0.3f, tanh);
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], int16_logistic_or_tanh(all16[i], m, tanh)) << all16[i];
  }
  {
    SCOPED_TRACE("L2_NORMALIZATION");
    std::vector<int8_t> x = every_value<int8_t>();
    std::vector<int8_t> y = run_folded<int8_t>(kI8, {16, 16}, 1.0f / 128, 0, [&](TfliteModelBuilder& b, int32_t t) {
      b.op(tfl::BuiltinOperator_L2_NORMALIZATION, {b.constant("x", kI8, {16, 16}, x, 0.05f, -5)}, {t});
    });
    EXPECT_EQ(y, int8_l2_normalization(x, -5, 16));
  }
  {
    SCOPED_TRACE("RSQRT");
    std::vector<int8_t> x;
    for (int v = 0; v <= 127; ++v) x.push_back(static_cast<int8_t>(v));
    std::vector<int8_t> y = run_folded<int8_t>(kI8, {128}, 0.05f, -60, [&](TfliteModelBuilder& b, int32_t t) {
      b.op(tfl::BuiltinOperator_RSQRT, {b.constant("x", kI8, {128}, x, 0.02f, 0)}, {t});
    });
    ASSERT_EQ(y.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], quantized_rsqrt(x[i], 0.02f, 0, 0.05f, -60)) << int{x[i]};
  }
  {
    SCOPED_TRACE("ABS");
    std::vector<int16_t> y = run_folded<int16_t>(kI16, {256, 256}, 0.0004f, 0, [&](TfliteModelBuilder& b, int32_t t) {
      b.op(tfl::BuiltinOperator_ABS, {b.constant("x", kI16, {256, 256}, all16, 0.001f, 0)}, {t});
    });
    ASSERT_EQ(y.size(), all16.size());
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], quantized_abs<int16_t>(all16[i], 0.001f, 0, 0.0004f, 0)) << all16[i];
  }
  {
    SCOPED_TRACE("PRELU");
    std::vector<int8_t> alpha = {-128, -1, 0, 1, 77, 127, 5, 50};
    std::vector<int16_t> y = run_folded<int16_t>(kI16, {8192, 8}, 0.001f, -40, [&](TfliteModelBuilder& b, int32_t t) {
      int32_t x = b.constant("x", kI16, {8192, 8}, all16, 0.0002f, 300);
      b.op(tfl::BuiltinOperator_PRELU, {x, b.constant("alpha", kI8, {8}, alpha, 0.02f, 5)}, {t});
    });
    EXPECT_EQ(y, quantized_prelu(all16, alpha, 0.0002f, 300, 0.02f, 5, 0.001f, -40));
  }
  {
    SCOPED_TRACE("SQUARED_DIFFERENCE");
    std::vector<int8_t> a = every_value<int8_t>();
    std::vector<int8_t> y = run_folded<int8_t>(kI8, {256, 256}, 1.0f, -128, [&](TfliteModelBuilder& b, int32_t t) {
      int32_t ca = b.constant("a", kI8, {256, 1}, a, 0.02f, -128), cb = b.constant("b", kI8, {1, 256}, a, 0.05f, 127);
      b.op(tfl::BuiltinOperator_SQUARED_DIFFERENCE, {ca, cb}, {t});
    });
    ASSERT_EQ(y.size(), a.size() * a.size());
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = 0; j < a.size(); ++j)
        ASSERT_EQ(y[i * a.size() + j], quantized_squared_difference(a[i], a[j], 0.02f, -128, 0.05f, 127, 1.0f, -128))
            << int{a[i]} << " " << int{a[j]};
  }
}

// ---------------------------------------------------------------- fused int8 chains

// An elementwise operator fused behind another (aot/passes/fuse_operators.cc) must still
// requantize to its own output, not to the chain's last one: a folded batch norm
// x * gamma + beta (MUL, then ADD of a per-channel constant with a fused RELU, as in a
// MiniResNet audio classifier), an ADD before a MUL, and a requantizing RELU (the generic
// elementwise kernel) before an ADD. Each intermediate tensor has its own quantization.
std::vector<int8_t> pseudo_random_s8(size_t n, uint32_t seed) {
  std::vector<int8_t> v(n);
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<int8_t>(seed >> 24);
  }
  return v;
}

TEST(TfliteFusedChains, EachStepRequantizesToItsOwnOutputAsTfliteMicroDoes) {
  using tfl::BuiltinOperator_ADD, tfl::BuiltinOperator_MUL, tfl::BuiltinOperator_RELU;
  const std::vector<int32_t> shape = {1, 16, 13, 64};
  const size_t n = 16 * 13 * 64, channels = 64;
  const QParams qx{0.0473f, -3}, qg{0.0112f, 0}, qm{0.0515f, 7}, qb{0.0194f, -20}, qy{0.0362f, -128};
  const std::vector<int8_t> x = pseudo_random_s8(n, 1), gamma = pseudo_random_s8(channels, 2),
                            beta = pseudo_random_s8(channels, 3);
  auto relu_options = [](FBB& f) { return tfl::CreateAddOptions(f, tfl::ActivationFunctionType_RELU).Union(); };
  // x -> first operator -> m (quantized qm) -> second operator -> y; `add_ops` adds the two
  // given the tensors x, gamma, beta, m and y. `want` gives output element i of channel c.
  auto check = [&](const std::function<void(TfliteModelBuilder&, int32_t, int32_t, int32_t, int32_t, int32_t)>& add_ops,
                   const std::function<int8_t(size_t, size_t)>& want) {
    TfliteModelBuilder b;
    int32_t in = b.input("x", kI8, shape, qx.scale, qx.zero_point);
    int32_t g = b.constant("gamma", kI8, {64}, gamma, qg.scale, qg.zero_point);
    int32_t bt = b.constant("beta", kI8, {64}, beta, qb.scale, qb.zero_point);
    int32_t m = b.tensor(TfliteModelBuilder::spec("m", kI8, shape, qm.scale, qm.zero_point));
    add_ops(b, in, g, bt, m, b.output("y", kI8, shape, qy.scale, qy.zero_point));
    std::vector<std::string> got = run_model(b, {bytes_of(x)}, 1);
    ASSERT_EQ(got.size(), 1u);
    std::vector<int8_t> y = values_of<int8_t>(got[0]);
    ASSERT_EQ(y.size(), n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += y[i] != want(i, i % channels);
    EXPECT_EQ(wrong, 0u) << "of " << n << " elements";
  };
  {
    SCOPED_TRACE("MUL(x, gamma) then ADD(m, beta) with RELU");
    check(
        [&](TfliteModelBuilder& b, int32_t in, int32_t g, int32_t bt, int32_t m, int32_t y) {
          b.op(BuiltinOperator_MUL, {in, g}, {m});
          b.op(BuiltinOperator_ADD, {m, bt}, {y}, tfl::BuiltinOptions_AddOptions, relu_options);
        },
        [&](size_t i, size_t c) {
          int8_t mv = mul_s8(x[i], gamma[c], qx, qg, qm);
          return add_sub_s8(mv, beta[c], qm, qb, qy, false, relu_min_s8(true, qy));
        });
  }
  {
    SCOPED_TRACE("ADD(beta, x) then MUL(m, gamma)");
    check(
        [&](TfliteModelBuilder& b, int32_t in, int32_t g, int32_t bt, int32_t m, int32_t y) {
          b.op(BuiltinOperator_ADD, {bt, in}, {m});
          b.op(BuiltinOperator_MUL, {m, g}, {y});
        },
        [&](size_t i, size_t c) { return mul_s8(add_sub_s8(beta[c], x[i], qb, qx, qm, false), gamma[c], qm, qg, qy); });
  }
  {
    SCOPED_TRACE("RELU(x) requantized, then ADD(m, beta)");
    check(
        [&](TfliteModelBuilder& b, int32_t in, int32_t, int32_t bt, int32_t m, int32_t y) {
          b.op(BuiltinOperator_RELU, {in}, {m});
          b.op(BuiltinOperator_ADD, {m, bt}, {y});
        },
        [&](size_t i, size_t c) { return add_sub_s8(relu_s8(x[i], qx, qm), beta[c], qm, qb, qy, false); });
  }
}

// ---------------------------------------------------------------- SHAPE and what is computed from it

// The IR after fold_constants of `model` (aotc compile --print-after fold_constants).
std::string folded_ir(const TfliteModelBuilder& model) {
  TempDir dir("aotc-tflite-values");
  model.write(dir.path() + "/model.tflite");
  Result ir = run({"compile", dir.path() + "/model.tflite", "-o", dir.path() + "/out", "--print-after", "fold_constants"});
  EXPECT_EQ(ir.status, 0) << ir.output;
  return ir.output;
}

int32_t int32_scalar(TfliteModelBuilder& b, const std::string& name, int32_t value) {
  return b.constant(name, kI32, {}, std::vector<int32_t>{value});
}

int32_t int32_vector(TfliteModelBuilder& b, const std::string& name, const std::vector<int32_t>& values) {
  return b.constant(name, kI32, {static_cast<int32_t>(values.size())}, values);
}

TfliteModelBuilder::OptionsFn shape_options(tfl::TensorType out_type) {
  return [out_type](FBB& f) { return tfl::CreateShapeOptions(f, out_type).Union(); };
}

// dim = STRIDED_SLICE(shape, [index], [index + 1], [1]) with shrink_axis_mask 1: one
// dimension of a SHAPE as a scalar, as converters write it.
int32_t shape_dim(TfliteModelBuilder& b, int32_t shape, int32_t index, const std::string& name) {
  int32_t dim = b.tensor(TfliteModelBuilder::spec(name, kI32, {}));
  b.op(tfl::BuiltinOperator_STRIDED_SLICE,
       {shape, int32_vector(b, name + "_begin", {index}), int32_vector(b, name + "_end", {index + 1}),
        int32_vector(b, name + "_strides", {1})},
       {dim}, tfl::BuiltinOptions_StridedSliceOptions,
       [](FBB& f) { return tfl::CreateStridedSliceOptions(f, 0, 0, 0, 0, 1).Union(); });
  return dim;
}

// An SSD box head as the converter writes it: x -> SHAPE -> STRIDED_SLICE(shrink) -> the
// batch b -> PACK([b, -1, 3]) -> RESHAPE(x, that) -> ADD. The shape arithmetic folds away
// (no SHAPE, STRIDED_SLICE or PACK kernel is left) and the values are x's, reshaped, plus
// the bias along the last axis.
TEST(TfliteShapeArithmetic, SsdHeadReshapeFoldsAndComputesTheSpecsValues) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kF32, {1, 4, 3, 6});
  int32_t shape = b.tensor(TfliteModelBuilder::spec("x_shape", kI32, {4}));
  b.op(tfl::BuiltinOperator_SHAPE, {x}, {shape}, tfl::BuiltinOptions_ShapeOptions, shape_options(kI32));
  int32_t batch = shape_dim(b, shape, 0, "batch");
  int32_t packed = b.tensor(TfliteModelBuilder::spec("boxes_shape", kI32, {3}));
  b.op(tfl::BuiltinOperator_PACK, {batch, int32_scalar(b, "rest", -1), int32_scalar(b, "coords", 3)}, {packed},
       tfl::BuiltinOptions_PackOptions, [](FBB& f) { return tfl::CreatePackOptions(f, 3, 0).Union(); });
  int32_t boxes = b.tensor(TfliteModelBuilder::spec("boxes", kF32, {1, 24, 3}));
  b.op(tfl::BuiltinOperator_RESHAPE, {x, packed}, {boxes});
  std::vector<float> bias = {0.5f, -1.0f, 2.0f};
  int32_t y = b.output("y", kF32, {1, 24, 3});
  b.op(tfl::BuiltinOperator_ADD, {boxes, b.constant("bias", kF32, {3}, bias)}, {y});

  std::string ir = folded_ir(b);
  for (const char* folded : {"tfl.SHAPE", "tfl.STRIDED_SLICE", "tfl.PACK"})
    EXPECT_EQ(ir.find(folded), std::string::npos) << folded << " is left after fold_constants:\n" << ir;
  EXPECT_NE(ir.find("= tfl.ADD("), std::string::npos) << ir;

  std::vector<float> xs(72);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i) * 0.25f - 9.0f;
  std::vector<std::string> got = run_model(b, {bytes_of(xs)}, 1);
  ASSERT_EQ(got.size(), 1u);
  std::vector<float> ys = values_of<float>(got[0]);
  ASSERT_EQ(ys.size(), 72u);
  for (size_t row = 0; row < 24; ++row)
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(ys[row * 3 + k], xs[row * 3 + k] + bias[k]) << row << ", " << k;
}

// SHAPE with out_type INT64 -> GATHER -> CONCATENATION with [-1] -> RESHAPE's shape, on
// int8; and a SHAPE that is itself a graph output keeps a kernel that writes the dimensions.
TEST(TfliteShapeArithmetic, Int64ShapeThroughGatherAndConcatenationAndAShapeOutput) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kI8, {2, 3, 4}, 0.1f, -3);
  int32_t shape = b.tensor(TfliteModelBuilder::spec("x_shape", tfl::TensorType_INT64, {3}));
  b.op(tfl::BuiltinOperator_SHAPE, {x}, {shape}, tfl::BuiltinOptions_ShapeOptions, shape_options(tfl::TensorType_INT64));
  int32_t outer = b.tensor(TfliteModelBuilder::spec("outer", tfl::TensorType_INT64, {2}));
  b.op(tfl::BuiltinOperator_GATHER, {shape, int32_vector(b, "which", {0, 2})}, {outer}, tfl::BuiltinOptions_GatherOptions,
       [](FBB& f) { return tfl::CreateGatherOptions(f, 0).Union(); });
  int32_t requested = b.tensor(TfliteModelBuilder::spec("requested", tfl::TensorType_INT64, {3}));
  b.op(tfl::BuiltinOperator_CONCATENATION,
       {outer, b.constant("rest", tfl::TensorType_INT64, {1}, std::vector<int64_t>{-1})}, {requested},
       tfl::BuiltinOptions_ConcatenationOptions, [](FBB& f) { return tfl::CreateConcatenationOptions(f, 0).Union(); });
  int32_t r = b.output("r", kI8, {2, 4, 3}, 0.1f, -3);
  b.op(tfl::BuiltinOperator_RESHAPE, {x, requested}, {r});
  int32_t r_shape = b.output("r_shape", kI32, {3});
  b.op(tfl::BuiltinOperator_SHAPE, {r}, {r_shape}, tfl::BuiltinOptions_ShapeOptions, shape_options(kI32));

  std::string ir = folded_ir(b);
  for (const char* folded : {"tfl.GATHER", "tfl.CONCATENATION"})
    EXPECT_EQ(ir.find(folded), std::string::npos) << folded << " is left after fold_constants:\n" << ir;
  EXPECT_NE(ir.find("= tfl.SHAPE("), std::string::npos) << "the SHAPE that is a graph output keeps its kernel:\n" << ir;

  std::vector<int8_t> xs(24);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<int8_t>(5 * static_cast<int>(i) - 60);
  std::vector<std::string> got = run_model(b, {bytes_of(xs)}, 2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(values_of<int8_t>(got[0]), xs);  // a reshape keeps the elements in order
  EXPECT_EQ(values_of<int32_t>(got[1]), (std::vector<int32_t>{2, 4, 3}));
}

// TILE, BROADCAST_TO and FILL with operands computed from SHAPE: multiples are x's shape
// reversed (STRIDED_SLICE with stride -1), BROADCAST_TO and FILL take x's shape.
TEST(TfliteShapeArithmetic, TileBroadcastToAndFillTakeComputedShapes) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kF32, {2, 3});
  int32_t row = b.input("row", kF32, {3});
  int32_t value = b.input("value", kF32, {});
  int32_t shape = b.tensor(TfliteModelBuilder::spec("x_shape", kI32, {2}));
  b.op(tfl::BuiltinOperator_SHAPE, {x}, {shape}, tfl::BuiltinOptions_ShapeOptions, shape_options(kI32));
  int32_t reversed = b.tensor(TfliteModelBuilder::spec("reversed", kI32, {2}));
  b.op(tfl::BuiltinOperator_STRIDED_SLICE,
       {shape, int32_vector(b, "rb", {0}), int32_vector(b, "re", {0}), int32_vector(b, "rs", {-1})}, {reversed},
       tfl::BuiltinOptions_StridedSliceOptions, [](FBB& f) { return tfl::CreateStridedSliceOptions(f, 1, 1).Union(); });
  int32_t tiled = b.output("tiled", kF32, {6, 6});
  b.op(tfl::BuiltinOperator_TILE, {x, reversed}, {tiled});
  int32_t broadcast = b.output("broadcast", kF32, {2, 3});
  b.op(tfl::BuiltinOperator_BROADCAST_TO, {row, shape}, {broadcast});
  int32_t filled = b.output("filled", kF32, {2, 3});
  b.op(tfl::BuiltinOperator_FILL, {shape, value}, {filled});

  std::vector<float> xs = {1, 2, 3, 4, 5, 6}, rows = {-1.5f, 0.25f, 8}, values = {3.75f};
  std::vector<std::string> got = run_model(b, {bytes_of(xs), bytes_of(rows), bytes_of(values)}, 3);
  ASSERT_EQ(got.size(), 3u);
  std::vector<float> t = values_of<float>(got[0]), br = values_of<float>(got[1]), f = values_of<float>(got[2]);
  ASSERT_EQ(t.size(), 36u);
  for (size_t i = 0; i < 6; ++i)
    for (size_t j = 0; j < 6; ++j) EXPECT_EQ(t[i * 6 + j], xs[(i % 2) * 3 + j % 3]) << i << ", " << j;
  ASSERT_EQ(br.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(br[i], rows[i % 3]) << i;
  EXPECT_EQ(f, std::vector<float>(6, 3.75f));
}

// A flatten as the converter writes it: the kept batch and the product of the other
// dimensions, an int32 MUL of two SHAPE entries, PACKed into RESHAPE's shape; all folded.
TEST(TfliteShapeArithmetic, FlattenMultipliesShapeEntriesInInt32) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kI8, {2, 3, 4}, 0.5f, 1);
  int32_t shape = b.tensor(TfliteModelBuilder::spec("x_shape", kI32, {3}));
  b.op(tfl::BuiltinOperator_SHAPE, {x}, {shape}, tfl::BuiltinOptions_ShapeOptions, shape_options(kI32));
  int32_t rows = shape_dim(b, shape, 1, "rows"), cols = shape_dim(b, shape, 2, "cols");
  int32_t features = b.tensor(TfliteModelBuilder::spec("features", kI32, {}));
  b.op(tfl::BuiltinOperator_MUL, {rows, cols}, {features});
  int32_t flat_shape = b.tensor(TfliteModelBuilder::spec("flat_shape", kI32, {2}));
  b.op(tfl::BuiltinOperator_PACK, {shape_dim(b, shape, 0, "batch"), features}, {flat_shape}, tfl::BuiltinOptions_PackOptions,
       [](FBB& f) { return tfl::CreatePackOptions(f, 2, 0).Union(); });
  int32_t flat = b.tensor(TfliteModelBuilder::spec("flat", kI8, {2, 12}, 0.5f, 1));
  b.op(tfl::BuiltinOperator_RESHAPE, {x, flat_shape}, {flat});
  int32_t y = b.output("y", kI8, {2, 12}, 0.5f, 1);
  b.op(tfl::BuiltinOperator_RELU, {flat}, {y});

  std::string ir = folded_ir(b);
  for (const char* folded : {"tfl.SHAPE", "tfl.MUL", "tfl.PACK"})
    EXPECT_EQ(ir.find(folded), std::string::npos) << folded << " is left after fold_constants:\n" << ir;
  EXPECT_NE(ir.find("= tfl.RELU("), std::string::npos) << ir;
  std::vector<int8_t> xs(24);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<int8_t>(7 * static_cast<int>(i) - 80);
  std::vector<std::string> got = run_model(b, {bytes_of(xs)}, 1);
  ASSERT_EQ(got.size(), 1u);
  std::vector<int8_t> want;
  for (int8_t v : xs) want.push_back(std::max<int8_t>(v, 1));  // RELU at the zero point, same scale
  EXPECT_EQ(values_of<int8_t>(got[0]), want);
}

// int32 ADD, SUB and MUL at run time (reference_ops::Add, SubWithActivation, Mul on
// int32): the plain sums, differences and products, SUB and MUL clamped to their fused
// activation's range (CalculateActivationRange), ADD to the whole int32 range whatever
// its activation says (add.cc sets no other), on values that do not overflow.
TEST(TfliteInt32Arithmetic, AddSubAndMulMatchTfliteMicro) {
  std::vector<int32_t> a = {-2000000000, -40000, -7, -1, 0, 1, 6, 9, 40000, 2000000000};
  std::vector<int32_t> c = {-3, 0, 2, 5};
  for (auto code : {tfl::BuiltinOperator_ADD, tfl::BuiltinOperator_SUB, tfl::BuiltinOperator_MUL}) {
    for (auto act : {tfl::ActivationFunctionType_NONE, tfl::ActivationFunctionType_RELU6}) {
      SCOPED_TRACE(std::string(tfl::EnumNameBuiltinOperator(code)) + " " + tfl::EnumNameActivationFunctionType(act));
      TfliteModelBuilder b;
      int32_t ia = b.input("a", kI32, {10, 1}), ic = b.input("c", kI32, {1, 4});
      int32_t y = b.output("y", kI32, {10, 4});
      if (code == tfl::BuiltinOperator_ADD)
        b.op(code, {ia, ic}, {y}, tfl::BuiltinOptions_AddOptions, [act](FBB& f) { return tfl::CreateAddOptions(f, act).Union(); });
      else if (code == tfl::BuiltinOperator_SUB)
        b.op(code, {ia, ic}, {y}, tfl::BuiltinOptions_SubOptions, [act](FBB& f) { return tfl::CreateSubOptions(f, act).Union(); });
      else
        b.op(code, {ia, ic}, {y}, tfl::BuiltinOptions_MulOptions, [act](FBB& f) { return tfl::CreateMulOptions(f, act).Union(); });
      std::vector<std::string> got = run_model(b, {bytes_of(a), bytes_of(c)}, 1);
      ASSERT_EQ(got.size(), 1u);
      std::vector<int32_t> ys = values_of<int32_t>(got[0]);
      ASSERT_EQ(ys.size(), 40u);
      for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = 0; j < c.size(); ++j) {
          int64_t raw = code == tfl::BuiltinOperator_ADD   ? int64_t{a[i]} + c[j]
                        : code == tfl::BuiltinOperator_SUB ? int64_t{a[i]} - c[j]
                                                           : int64_t{a[i]} * c[j];
          bool clamps = act == tfl::ActivationFunctionType_RELU6 && code != tfl::BuiltinOperator_ADD;
          if (raw < INT32_MIN || raw > INT32_MAX) continue;  // undefined in TFLite
          int64_t want = clamps ? std::min<int64_t>(std::max<int64_t>(raw, 0), 6) : raw;
          EXPECT_EQ(ys[i * c.size() + j], want) << a[i] << ", " << c[j];
        }
    }
  }
}

// A BROADCAST_TO that would need x's sizes to widen the requested shape (which Expand
// allows and TFLite does not) is a compile error naming the node.
TEST(TfliteShapeArithmetic, BroadcastToRejectsAShapeItCannotReach) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kF32, {2, 3});
  int32_t y = b.output("y", kF32, {2, 3});
  b.op(tfl::BuiltinOperator_BROADCAST_TO, {x, int32_vector(b, "to", {1, 3})}, {y});
  TempDir dir("aotc-tflite-values");
  b.write(dir.path() + "/model.tflite");
  Result r = run({"compile", dir.path() + "/model.tflite", "-o", dir.path() + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("node y (tfl.BROADCAST_TO): cannot broadcast [2, 3] to [1, 3]"), std::string::npos) << r.output;
}

// reference_ops::TransposeConv (float): every input pixel scattered through the filter
// (output row iy * stride - pad + fy), then the bias; pad from ComputePaddingHeightWidth
// with the output as a convolution's input (SAME).
std::vector<float> transpose_conv_reference(const std::vector<float>& x, const std::vector<float>& w,
                                            const std::vector<float>& bias, int in_hw, int in_c, int out_hw, int out_c,
                                            int k, int stride) {
  const int conv_out = (out_hw + stride - 1) / stride;
  const int pad = std::max((conv_out - 1) * stride + k - out_hw, 0) / 2;
  std::vector<float> y(static_cast<size_t>(out_hw * out_hw * out_c), 0.0f);
  for (int iy = 0; iy < in_hw; ++iy)
    for (int ix = 0; ix < in_hw; ++ix)
      for (int ic = 0; ic < in_c; ++ic)
        for (int fy = 0; fy < k; ++fy)
          for (int fx = 0; fx < k; ++fx) {
            int oy = iy * stride - pad + fy, ox = ix * stride - pad + fx;
            if (oy < 0 || oy >= out_hw || ox < 0 || ox >= out_hw) continue;
            for (int oc = 0; oc < out_c; ++oc)
              y[static_cast<size_t>((oy * out_hw + ox) * out_c + oc)] +=
                  x[static_cast<size_t>((iy * in_hw + ix) * in_c + ic)] * w[static_cast<size_t>(((oc * k + fy) * k + fx) * in_c + ic)];
          }
  for (size_t i = 0; i < y.size(); ++i) y[i] += bias[i % static_cast<size_t>(out_c)];
  return y;
}

// TRANSPOSE_CONV's output_shape computed from SHAPE (x -> SHAPE -> STRIDED_SLICE -> PACK
// with the constant sizes, folded), and given as a graph input as TensorFlow Lite Micro's
// seanet models give it (TFLite Micro reads the declared output shape, never the operand).
TEST(TfliteShapeArithmetic, TransposeConvTakesAComputedOutputShape) {
  std::vector<float> xs(18), ws(72), bias = {1, -2, 0.5f, 4};
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = static_cast<float>(static_cast<int>(i % 5) - 2) * 0.5f;
  std::vector<float> want = transpose_conv_reference(xs, ws, bias, 3, 2, 6, 4, 3, 2);
  for (bool shape_is_input : {false, true}) {
    SCOPED_TRACE(shape_is_input ? "output_shape a graph input" : "output_shape computed from SHAPE");
    TfliteModelBuilder b;
    int32_t out_shape = shape_is_input ? b.input("out_shape", kI32, {4}) : -1;
    int32_t x = b.input("x", kF32, {1, 3, 3, 2});
    if (!shape_is_input) {
      int32_t shape = b.tensor(TfliteModelBuilder::spec("x_shape", kI32, {4}));
      b.op(tfl::BuiltinOperator_SHAPE, {x}, {shape}, tfl::BuiltinOptions_ShapeOptions, shape_options(kI32));
      int32_t batch = shape_dim(b, shape, 0, "batch");
      out_shape = b.tensor(TfliteModelBuilder::spec("stack", kI32, {4}));
      b.op(tfl::BuiltinOperator_PACK,
           {batch, int32_scalar(b, "h", 6), int32_scalar(b, "w", 6), int32_scalar(b, "c", 4)}, {out_shape},
           tfl::BuiltinOptions_PackOptions, [](FBB& f) { return tfl::CreatePackOptions(f, 4, 0).Union(); });
    }
    int32_t w = b.constant("w", kF32, {4, 3, 3, 2}, ws), bias_id = b.constant("bias", kF32, {4}, bias);
    int32_t y = b.output("y", kF32, {1, 6, 6, 4});
    b.op(tfl::BuiltinOperator_TRANSPOSE_CONV, {out_shape, w, x, bias_id}, {y}, tfl::BuiltinOptions_TransposeConvOptions,
         [](FBB& f) { return tfl::CreateTransposeConvOptions(f, tfl::Padding_SAME, 2, 2).Union(); });
    std::vector<std::string> inputs = {bytes_of(xs)};
    if (shape_is_input) inputs.insert(inputs.begin(), bytes_of(std::vector<int32_t>{1, 6, 6, 4}));
    std::vector<std::string> got = run_model(b, inputs, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(values_of<float>(got[0]), want);
  }
}

// A constant output_shape that disagrees with the declared output is still an error.
TEST(TfliteShapeArithmetic, TransposeConvRejectsAnOutputShapeThatDisagreesWithTheModel) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kF32, {1, 3, 3, 2});
  int32_t w = b.constant("w", kF32, {4, 3, 3, 2}, std::vector<float>(72, 1.0f));
  int32_t y = b.output("y", kF32, {1, 6, 6, 4});
  b.op(tfl::BuiltinOperator_TRANSPOSE_CONV, {int32_vector(b, "shape", {1, 5, 5, 4}), w, x, -1}, {y},
       tfl::BuiltinOptions_TransposeConvOptions,
       [](FBB& f) { return tfl::CreateTransposeConvOptions(f, tfl::Padding_SAME, 2, 2).Union(); });
  TempDir dir("aotc-tflite-values");
  b.write(dir.path() + "/model.tflite");
  Result r = run({"compile", dir.path() + "/model.tflite", "-o", dir.path() + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("node y (tfl.TRANSPOSE_CONV): output 'y' is [1, 6, 6, 4] in the model but the operator computes [1, 5, 5, 4]"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace aotc::e2e
