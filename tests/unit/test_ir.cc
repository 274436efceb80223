// The loop IR: printer text, simplification, the interpreter's C arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "aot/base/element_bytes.h"
#include "codegen/codegen_c.h"
#include "lowering/ir/ir_interpreter.h"
#include "lowering/ir/ir_printer.h"
#include "lowering/passes/simplify.h"

namespace aotc::ir {
namespace {

TEST(IRPrinter, PrintsAFunction) {
  Buffer x = make_buffer("X", DataType::Float32(), {2, 3});
  Buffer y = make_buffer("Y", DataType::Float32(), {2, 3});
  PrimFunc f;
  f.name = "relu";
  f.params = {x, y};
  f.body = loop_nest({2, 3}, {"i", "j"}, [&](const std::vector<Expr>& idx) {
    return store(y, idx, max(load(x, idx), Expr(0.0)));
  });
  EXPECT_EQ(to_string(f),
            "func relu(X: float32[2, 3], Y: float32[2, 3]) {\n"
            "  for (i, 0, 2) {\n"
            "    for (j, 0, 3) {\n"
            "      Y[i, j] = max(X[i, j], 0.0f)\n"
            "    }\n"
            "  }\n"
            "}\n");
}

TEST(IRPrinter, FloatLiteralsRoundTrip) {
  EXPECT_EQ(float_literal(0.1, DataType::Float32()), "0.1");
  // The shortest text that reads back as the same float32 (not the same double).
  EXPECT_EQ(float_literal(1.0 / 3.0, DataType::Float32()), "0.33333333");
  EXPECT_EQ(static_cast<float>(std::strtod("0.33333333", nullptr)), static_cast<float>(1.0 / 3.0));
  EXPECT_EQ(float_literal(2.0, DataType::Float32()), "2.0");
  EXPECT_EQ(float_literal(1e-30, DataType::Float32()), "1e-30");
}

// The C reads as a person writes it: negative literals bare where C allows (`x * -2`),
// parentheses where -Wparentheses wants them (a comparison inside a comparison), and
// never the `--` operator by accident.
TEST(CCode, ParenthesesOnlyWhereNeeded) {
  Buffer a = make_buffer("A", DataType::Int(32), {4});
  Buffer y = make_buffer("Y", DataType::Int(32), {4});
  PrimFunc f;
  f.params = {a, y};
  f.body = loop_nest({4}, {"i"}, [&](const std::vector<Expr>& i) {
    Expr x = load(a, i);
    return store(y, i, select((x < 0) != (x < -3), x * -2, -Expr(make_int(-1, DataType::Int(32))) - x));
  });
  CFileContext ctx;
  std::string c = emit_c_function(f, "f", &ctx);
  EXPECT_NE(c.find("Y[i] = (A[i] < 0) != (A[i] < -3) ? A[i] * -2 : -(-1) - A[i];"), std::string::npos) << c;
}

TEST(Simplify, FoldsIndexArithmetic) {
  Var h = make_var("h"), k = make_var("k");
  Expr e = (var_expr(h) * 1 + var_expr(k) - 0) * 1 + (Expr(2) * 3 - 6);
  EXPECT_EQ(to_string(simplify(e)), "(h + k)");
  EXPECT_EQ(to_string(simplify((var_expr(h) + 3) + 4)), "(h + 7)");
  EXPECT_EQ(to_string(simplify((var_expr(h) + 3) - 5)), "(h - 2)");
  EXPECT_EQ(to_string(simplify(Expr(4) * var_expr(h))), "(h * 4)");
  // A position split into row and column, flattened again: (p / 5) * 5 + p % 5 is p for
  // every p (C's division truncates and the remainder takes the dividend's sign).
  Expr p = var_expr(h);
  EXPECT_EQ(to_string(simplify((p / 5) * 5 + p % 5)), "h");
  EXPECT_EQ(to_string(simplify((p / 5) * 4 + p % 5)), "(((h / 5) * 4) + (h % 5))");
  EXPECT_EQ(to_string(simplify((p / 5) * 5 + var_expr(k) % 5)), "(((h / 5) * 5) + (k % 5))");
}

// Constant folding of int64 at the type's edges wraps as two's complement (a damaged model's
// constants reach it; C++'s operators would be undefined there). Oracle: 128-bit
// arithmetic reduced modulo 2^64, and INT64_MIN / -1 = INT64_MIN, INT64_MIN % -1 = 0.
TEST(Simplify, FoldsInt64EdgesAsTwosComplement) {
  DataType i64 = DataType::Int(64);
  auto mod64 = [](__int128 v) { return static_cast<int64_t>(static_cast<uint64_t>(static_cast<unsigned __int128>(v))); };
  auto folded = [](const Expr& e) {
    const auto* imm = simplify(e).as<IntImmNode>();
    EXPECT_NE(imm, nullptr) << to_string(e);
    return imm ? imm->value : 0;
  };
  const int64_t values[] = {INT64_MIN, INT64_MIN + 1, -7, -1, 0, 1, 3, INT64_MAX - 1, INT64_MAX};
  for (int64_t x : values)
    for (int64_t y : values) {
      Expr a = make_int(x, i64), b = make_int(y, i64);
      EXPECT_EQ(folded(a + b), mod64(static_cast<__int128>(x) + y)) << x << " + " << y;
      EXPECT_EQ(folded(a - b), mod64(static_cast<__int128>(x) - y)) << x << " - " << y;
      EXPECT_EQ(folded(a * b), mod64(static_cast<__int128>(x) * y)) << x << " * " << y;
      if (y == 0) continue;
      EXPECT_EQ(folded(a / b), mod64(static_cast<__int128>(x) / y)) << x << " / " << y;
      EXPECT_EQ(folded(a % b), static_cast<int64_t>(static_cast<__int128>(x) % y)) << x << " % " << y;
    }
  // x + INT64_MIN and x - INT64_MIN keep the constant: its negation does not exist.
  Var h = make_var("h", i64);
  EXPECT_EQ(to_string(simplify(var_expr(h) + make_int(INT64_MIN, i64))), "(h + int64(-9223372036854775808))");
  EXPECT_EQ(to_string(simplify(var_expr(h) - make_int(INT64_MIN, i64))), "(h - int64(-9223372036854775808))");
}

TEST(Simplify, RemovesUnitLoopsAndConstantBranches) {
  Buffer y = make_buffer("Y", DataType::Float32(), {1, 4});
  Stmt s = loop_nest({1, 4}, {"n", "c"}, [&](const std::vector<Expr>& idx) {
    return if_then_else(Expr(1) < Expr(2), store(y, idx, Expr(1.0)), store(y, idx, Expr(2.0)));
  });
  EXPECT_EQ(to_string(simplify(s)),
            "for (c, 0, 4) {\n"
            "  Y[0, c] = 1.0f\n"
            "}\n");
}

// A table or a Let that only a branch read, once the branch is gone, goes too (the C would
// declare a variable nobody uses: an error under -Werror); one that is still read stays, and
// so does a Let whose value calls a function.
TEST(Simplify, DropsTablesAndLetsNothingReads) {
  Buffer y = make_buffer("Y", DataType::Int(32), {4});
  Var tap = make_var("tap");
  Stmt s = allocate_const("bias", DataType::Int(32), std::vector<double>{1, 2, 3, 4}, [&](const Buffer& bias) {
    return let(tap, load(y, {0}) * 3, loop_nest({4}, {"c"}, [&](const std::vector<Expr>& c) {
      // The branch that reads both is never taken.
      return if_then_else(Expr(2) < Expr(1), store(y, c, load(bias, c) + var_expr(tap)), store(y, c, c[0]));
    }));
  });
  EXPECT_EQ(to_string(simplify(s)),
            "for (c, 0, 4) {\n"
            "  Y[c] = c\n"
            "}\n");
  Stmt kept = allocate_const("bias", DataType::Int(32), std::vector<double>{1, 2, 3, 4}, [&](const Buffer& bias) {
    return let(tap, call("aotc_workspace_alloc", {Expr(16)}, DataType::Int(32)),
               loop_nest({4}, {"c"}, [&](const std::vector<Expr>& c) { return store(y, c, load(bias, c)); }));
  });
  std::string text = to_string(simplify(kept));
  EXPECT_NE(text.find("bias"), std::string::npos) << text;
  EXPECT_NE(text.find("aotc_workspace_alloc"), std::string::npos) << text;
}

TEST(Interpreter, Int8ArithmeticWrapsAndCastsTruncate) {
  Buffer y = make_buffer("Y", DataType::Int(8), {2});
  PrimFunc f;
  f.params = {y};
  f.body = seq({store(y, {0}, cast(DataType::Int(8), make_int(127, DataType::Int(32)) + 1)),
                store(y, {1}, cast(DataType::Int(8), Expr(-2.7)))});
  int8_t out[2] = {};
  interpret(f, {{y, out}});
  EXPECT_EQ(out[0], -128);
  EXPECT_EQ(out[1], -2);
}

TEST(Interpreter, OutOfBoundsIsAnError) {
  Buffer y = make_buffer("Y", DataType::Float32(), {2});
  PrimFunc f;
  f.params = {y};
  f.body = store(y, {2}, Expr(1.0));
  float out[2];
  EXPECT_THROW(interpret(f, {{y, out}}), std::runtime_error);
}

// Constants are typed bytes of any dtype and shape: here int16 weights [2, 3], "packed"
// column-major (the order a kernel might read them), read back row-major by index.
PrimFunc transpose_packed_constant(const std::vector<int16_t>& packed) {
  Buffer y = make_buffer("Y", DataType::Int(32), {2, 3});
  PrimFunc f;
  f.name = "unpack";
  f.params = {y};
  std::vector<int64_t> as_ints(packed.begin(), packed.end());
  f.body = allocate_const("W", DataType::Int(16), {3, 2}, encode_int_elements(DataType::Int(16), as_ints),
                          [&](const Buffer& w) {
                            return loop_nest({2, 3}, {"r", "c"}, [&](const std::vector<Expr>& i) {
                              return store(y, i, cast(DataType::Int(32), load(w, {i[1], i[0]})));
                            });
                          });
  return f;
}

TEST(TypedConstants, InterpreterReadsTheBytesAsTheirType) {
  PrimFunc f = transpose_packed_constant({1, -4, 2, 300, -3, -32768});
  int32_t y[6] = {};
  EXPECT_EQ(interpret(f, {{f.params[0], y}}), 0);
  EXPECT_EQ(std::vector<int32_t>(y, y + 6), (std::vector<int32_t>{1, 2, -3, -4, 300, -32768}));
}

// A float element read as an integer truncates toward zero; NaN and values beyond int64's
// range, where C++'s conversion is undefined, saturate (NaN to the lowest value).
TEST(TypedConstants, FloatsReadAsIntegersAreDefinedForEveryValue) {
  const float values[] = {2.9f, -2.9f, std::nanf(""), -std::nanf(""), INFINITY, -INFINITY, 1e30f, -1e30f};
  std::vector<uint8_t> bytes(sizeof(values));
  std::memcpy(bytes.data(), values, sizeof(values));
  std::vector<int64_t> got;
  for (int64_t i = 0; i < 8; ++i) got.push_back(read_element_int(DataType::Float32(), bytes.data(), i));
  EXPECT_EQ(got, (std::vector<int64_t>{2, -2, INT64_MIN, INT64_MIN, INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN}));
}

TEST(TypedConstants, PrinterAndCCodeShowTheElements) {
  PrimFunc f = transpose_packed_constant({1, -4, 2, 300, -3, -32768});
  EXPECT_NE(to_string(f).find("constant W: int16[3, 2] = [1, -4, 2, 300, -3, -32768]"), std::string::npos)
      << to_string(f);
  CFileContext ctx;
  std::string c = emit_c_function(f, "unpack", &ctx);
  EXPECT_NE(c.find("static const int16_t W[6] = {1, -4, 2, 300, -3, -32768};"), std::string::npos) << c;
}

TEST(TypedConstants, LongTablesAreEightElementsALine) {
  std::vector<double> values(20);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i);
  Buffer y = make_buffer("Y", DataType::Int(8), {20});
  PrimFunc f;
  f.params = {y};
  f.body = allocate_const("T", DataType::Int(8), values, [&](const Buffer& t) {
    return loop_nest({20}, {"i"}, [&](const std::vector<Expr>& i) { return store(y, i, load(t, i)); });
  });
  CFileContext ctx;
  std::string c = emit_c_function(f, "table", &ctx);
  EXPECT_NE(c.find("static const int8_t T[20] = {\n      0, 1, 2, 3, 4, 5, 6, 7,\n      8, 9,"), std::string::npos) << c;
  int8_t out[20];
  interpret(f, {{y, out}});
  EXPECT_EQ(out[19], 19);
}

TEST(TypedConstants, ValuesThatDoNotFitTheirTypeAreRejected) {
  EXPECT_THROW(encode_elements(DataType::Int(8), {128.0}), std::invalid_argument);
  EXPECT_THROW(encode_elements(DataType::Int(32), {0.5}), std::invalid_argument);
  EXPECT_THROW(allocate_const("T", DataType::Int(8), {2, 2}, std::vector<uint8_t>(3), [](const Buffer&) { return Stmt(); }),
               std::invalid_argument);
}

}  // namespace
}  // namespace aotc::ir
