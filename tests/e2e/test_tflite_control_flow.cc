// TFLite control flow end to end: IF, WHILE, CALL_ONCE and resource variables, on the
// models of tests/models/tflite_control_flow (JSON built with flatc at build time). The
// expected values are computed here from TFLite's semantics (and, for the int8
// comparison, from TensorFlow Lite Micro's fixed-point arithmetic as its documentation
// and reference kernels define it), not by aotc.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <fstream>

#include "e2e_util.h"

namespace aotc::e2e {
namespace {

std::string json_model(const std::string& stem) { return std::string(AOTC_TFLITE_JSON_DIR) + "/" + stem + ".tflite"; }

// if_branches' output from TFLite's semantics: y = x * score + [1, 2, 3, 4] when score > 0.5
// (GREATER is strict), else y = x.
std::vector<float> if_branches_output(const std::vector<float>& x, float score) {
  std::vector<float> y = x;
  if (score > 0.5f)
    for (size_t i = 0; i < y.size(); ++i) y[i] = x[i] * score + static_cast<float>(i + 1);
  return y;
}

class TfliteControlFlow : public TempDirTest<> {
 protected:
  TfliteControlFlow() : TempDirTest("aotc-tflite-control-flow") {}

  std::string write(const std::string& name, const std::vector<float>& values) {
    std::ofstream(tmp(name), std::ios::binary).write(reinterpret_cast<const char*>(values.data()), values.size() * 4);
    return tmp(name);
  }
  std::string write(const std::string& name, const std::vector<int8_t>& values) {
    std::ofstream(tmp(name), std::ios::binary).write(reinterpret_cast<const char*>(values.data()), values.size());
    return tmp(name);
  }
};

// y = x * score + [1, 2, 3, 4] when score > 0.5, else y = x (TFLite's GREATER is strict, so
// 0.5 takes the else branch). The IF stays an if/else in the C.
TEST_F(TfliteControlFlow, IfRunsTheBranchItsConditionPicks) {
  std::vector<float> x = {1.0f, -2.0f, 3.0f, 0.5f};
  std::string x_file = write("x.bin", x);
  for (float score : {0.8f, 0.2f, 0.5f, 0.5000001f}) {
    SCOPED_TRACE("score " + std::to_string(score));
    Result r = run({"run", json_model("if_branches"), "--inputs", x_file + "," + write("score.bin", std::vector<float>{score}), "--outputs",
                    tmp("y.bin")});
    ASSERT_EQ(r.status, 0) << r.output;
    expect_close(read_floats(tmp("y.bin")), if_branches_output(x, score), 0, 0);
  }
  Result r = run({"compile", json_model("if_branches"), "-o", tmp("out")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string c = read_bytes(tmp("out/model.c"));
  EXPECT_NE(c.find("if (*(uint8_t*)"), std::string::npos) << c;
  EXPECT_NE(c.find("} else {"), std::string::npos) << c;
}

// The converter's form of an ONNX If (openWakeWord's hey_jarvis): the [1, 1] condition is
// reshaped to a scalar by a RESHAPE whose shape [] is a [0]-element tensor with no buffer,
// in subgraph 0 and in the then branch. y = x * score + [1, 2, 3, 4] when score >= 0.5
// (GREATER_EQUAL: 0.5 takes the then branch), else y = x.
TEST_F(TfliteControlFlow, IfOnAConditionReshapedByAnEmptyShapeTensor) {
  std::vector<float> x = {1.0f, -2.0f, 3.0f, 0.5f};
  std::string x_file = write("x.bin", x);
  for (float score : {0.8f, 0.2f, 0.5f, 0.49999997f}) {
    SCOPED_TRACE("score " + std::to_string(score));
    Result r = run({"run", json_model("if_on_reshaped_condition"), "--inputs",
                    x_file + "," + write("score.bin", std::vector<float>{score}), "--outputs", tmp("y.bin")});
    ASSERT_EQ(r.status, 0) << r.output;
    std::vector<float> y = x;
    if (score >= 0.5f)
      for (size_t i = 0; i < y.size(); ++i) y[i] = x[i] * score + static_cast<float>(i + 1);
    expect_close(read_floats(tmp("y.bin")), y, 0, 0);
  }
}

// An IF whose operand and branches have dynamic shapes ([-1, -1], placeholders [1, 1]),
// resized with --input-shape x=2,3: y = x + x when c, else y = x.
TEST_F(TfliteControlFlow, IfWithResizedDynamicShapes) {
  std::vector<float> x = {0.5f, -1.0f, 2.0f, 3.0f, -4.5f, 6.0f};
  for (bool c : {true, false}) {
    SCOPED_TRACE(c ? "then" : "else");
    std::ofstream(tmp("c.bin"), std::ios::binary).put(c ? 1 : 0);
    Result r = run({"run", json_model("if_dynamic_shapes"), "--input-shape", "x=2,3", "--inputs",
                    write("x.bin", x) + "," + tmp("c.bin"), "--outputs", tmp("y.bin")});
    ASSERT_EQ(r.status, 0) << r.output;
    std::vector<float> y = x;
    if (c)
      for (float& v : y) v += v;
    expect_close(read_floats(tmp("y.bin")), y, 0, 0);
  }
}

// (i, acc, x) = (0, x, x); while i < 5: (i + 1, acc * 0.5 + x, x). The condition follows
// from constants, so aotc counts the iterations at compile time: a plain `for` of 5, no
// --max-trip, no trip-limit check.
TEST_F(TfliteControlFlow, WhileWithACounterBecomesACountedFor) {
  std::vector<float> x = {1.0f, 2.0f, -4.0f};
  Result r = run({"run", json_model("while_counter"), "--inputs", write("x.bin", x), "--outputs",
                  tmp("acc.bin") + "," + tmp("count.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<float> acc = x;
  float i = 0;
  while (i < 5) {
    for (size_t k = 0; k < 3; ++k) acc[k] = acc[k] * 0.5f + x[k];
    i += 1;
  }
  expect_close(read_floats(tmp("acc.bin")), acc, 1e-6, 0);
  expect_close(read_floats(tmp("count.bin")), {i}, 0, 0);

  r = run({"compile", json_model("while_counter"), "-o", tmp("out")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string c = read_bytes(tmp("out/model.c"));
  EXPECT_NE(c.find("for (int32_t iter0 = 0; iter0 < 5; ++iter0) {"), std::string::npos) << c;
  EXPECT_EQ(c.find("AOTC_ERR_TRIP_LIMIT"), std::string::npos) << c;
}

// CALL_ONCE assigns acc = [1, 2, 3] + [1, 2, 3]; each run outputs y = acc + x and assigns
// it to acc. aotc computes the initial value at compile time (a static initializer, no
// init code); the runs accumulate, and model_reset() starts over.
TEST_F(TfliteControlFlow, CallOnceInitialisesAVariableThatRunsKeep) {
  Result r = run({"compile", json_model("call_once_accumulator"), "-o", tmp("out")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string header = read_bytes(tmp("out/model.h"));
  EXPECT_NE(header.find("#define MODEL_STATE_SIZE 12 "), std::string::npos) << header;
  EXPECT_NE(header.find("TFLite resource variable 'acc'"), std::string::npos) << header;
  EXPECT_NE(header.find("#define MODEL_INPUT_COUNT 1\n"), std::string::npos) << header;
  EXPECT_NE(header.find("#define MODEL_OUTPUT_COUNT 1\n"), std::string::npos) << header;
  std::string c = read_bytes(tmp("out/model.c"));
  EXPECT_NE(c.find("2.0f, 4.0f, 6.0f"), std::string::npos) << c;

  const char* harness = R"(#include <stdio.h>
#include "model.h"
/* Three runs accumulate into the variable, then a reset starts from CALL_ONCE's value again. */
static int check(float* x, const float* want) {
  float y[3];
  struct model_inputs in;
  struct model_outputs out;
  int i;
  in.x = x;
  out.y = y;
  if (model_run(&in, &out) != 0) return 1;
  for (i = 0; i < 3; ++i)
    if (y[i] != want[i]) {
      printf("y[%d] = %g, want %g\n", i, (double)y[i], (double)want[i]);
      return 1;
    }
  return 0;
}
int main(void) {
  float xs[3][3] = {{1, 2, -4}, {0.5f, -1, 2}, {3, 3, 3}};
  float acc[3] = {2, 4, 6};
  int run, i;
  for (run = 0; run < 3; ++run) {
    for (i = 0; i < 3; ++i) acc[i] += xs[run][i];
    if (check(xs[run], acc)) return 1;
  }
  model_reset();
  for (i = 0; i < 3; ++i) acc[i] = (float)(2 * (i + 1)) + xs[0][i];
  return check(xs[0], acc);
}
)";
  std::string log;
  ASSERT_EQ(build_harness(harness, tmp("out"), tmp("harness"), {"-Wall", "-Wextra", "-Werror", "-pedantic"}, &log), 0) << log;
  EXPECT_EQ(run_process({tmp("harness")}, &log), 0) << log;
}

// ---------------------------------------------------------------- int8 GREATER

// TFLite's QuantizeMultiplierSmallerThanOneExp: scale = q * 2^shift / 2^31, q in [2^30, 2^31).
void quantize_below_one(double scale, int32_t* q, int* shift) {
  double fraction = std::frexp(scale, shift);
  int64_t fixed = std::llround(fraction * (int64_t{1} << 31));
  if (fixed == (int64_t{1} << 31)) fixed /= 2, ++*shift;
  *q = static_cast<int32_t>(fixed);
}

// gemmlowp's SaturatingRoundingDoublingHighMul and RoundingDivideByPOT.
int32_t doubling_high_mul(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  int64_t ab = static_cast<int64_t>(a) * b;
  int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}
int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  int32_t remainder = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// One side of TFLite Micro's quantized comparison (reference_ops.h, comparisons.cc):
// (value - zero point) << 8, times the scale in fixed point.
int32_t rescaled(int8_t value, int32_t zero_point, double scale) {
  int32_t q;
  int shift;
  quantize_below_one(scale, &q, &shift);
  return rounding_divide_by_pot(doubling_high_mul((value - zero_point) * 256, q), -shift);
}

TEST_F(TfliteControlFlow, Int8GreaterRescalesBothSidesLikeTfliteMicro) {
  // Pairs around equal real values (a: 0.02 * (a - 3), b: 0.003 * (b + 2)), where the
  // rounding of the rescaling decides.
  std::vector<int8_t> a = {3, 3, 4, 4, 6, 6, -128, 127, 10, 10, 10, 11, 0, -5, 20, 20};
  std::vector<int8_t> b = {-2, -3, 4, 5, 18, 17, -128, 127, 44, 45, 43, 50, -22, -56, 111, 112};
  Result r = run({"run", json_model("compare_int8"), "--inputs", write("a.bin", a) + "," + write("b.bin", b), "--outputs",
                  tmp("out.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string got = read_bytes(tmp("out.bin"));
  ASSERT_EQ(got.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    bool want = rescaled(a[i], 3, 0.02f) > rescaled(b[i], -2, 0.003f);
    EXPECT_EQ(got[i], want ? 1 : 0) << "a " << int(a[i]) << ", b " << int(b[i]);
  }
}

// The generated C of each model builds as strict C99 with arm-none-eabi-gcc for the
// Cortex-M4 and with clang.
TEST_F(TfliteControlFlow, GeneratedCodeIsStrictC99ForCortexM4AndClang) {
  for (const char* stem :
       {"if_branches", "if_on_reshaped_condition", "while_counter", "call_once_accumulator", "compare_int8"}) {
    SCOPED_TRACE(stem);
    std::string out = tmp(stem);
    Result r = run({"compile", json_model(stem), "-o", out, "--target", "cortex-m4"});
    ASSERT_EQ(r.status, 0) << r.output;
    for (const char* file : {"model.c", "model_constants.c"}) {
      std::string log;
      EXPECT_EQ(cross_compile_strict_c99(out + "/model.cflags", out + "/" + file, out, out + "/gcc.o", &log), 0) << log;
      EXPECT_EQ(compile_strict_c99("clang", out + "/" + file, out, out + "/clang.o", &log), 0) << log;
    }
  }
}

// Both branches of the IF, the counted WHILE and the CALL_ONCE model under ASan and UBSan.
TEST_F(TfliteControlFlow, GeneratedCodeIsCleanUnderSanitizers) {
  ScopedEnvironment env({{"CC", "clang"}, {"CFLAGS", "-fsanitize=address,undefined -fno-sanitize-recover=all -g"}});
  std::vector<float> x = {1.0f, -2.0f, 3.0f, 0.5f};
  for (float score : {0.8f, 0.2f}) {
    Result r = run({"run", json_model("if_branches"), "--inputs", write("x.bin", x) + "," + write("s.bin", std::vector<float>{score}),
                    "--outputs", tmp("y.bin")});
    ASSERT_EQ(r.status, 0) << r.output;
    expect_close(read_floats(tmp("y.bin")), if_branches_output(x, score), 0, 0);
  }
  std::vector<float> x3 = {1.0f, 2.0f, -4.0f};
  Result r = run({"run", json_model("while_counter"), "--inputs", write("x3.bin", x3), "--outputs", tmp("a.bin") + "," + tmp("c.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_close(read_floats(tmp("c.bin")), {5.0f}, 0, 0);
  r = run({"run", json_model("call_once_accumulator"), "--inputs", tmp("x3.bin"), "--outputs", tmp("y3.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_close(read_floats(tmp("y3.bin")), {3.0f, 6.0f, 2.0f}, 0, 0);  // [2, 4, 6] + x
}

// A subgraph that runs itself is refused with the operator's name, and nothing is written.
TEST_F(TfliteControlFlow, RecursionIsAClearError) {
  Result r = run({"compile", json_model("bad_recursion"), "-o", tmp("out")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("operator 0 (tfl.IF): subgraph 0 runs itself (recursion)"), std::string::npos) << r.output;
  EXPECT_FALSE(std::ifstream(tmp("out/model.c")).good());
}

}  // namespace
}  // namespace aotc::e2e
