// The loop IR: printer text, simplification, the interpreter's C arithmetic.
#include <gtest/gtest.h>

#include <cstdlib>

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

TEST(Simplify, FoldsIndexArithmetic) {
  Var h = make_var("h"), k = make_var("k");
  Expr e = (var_expr(h) * 1 + var_expr(k) - 0) * 1 + (Expr(2) * 3 - 6);
  EXPECT_EQ(to_string(simplify(e)), "(h + k)");
  EXPECT_EQ(to_string(simplify((var_expr(h) + 3) + 4)), "(h + 7)");
  EXPECT_EQ(to_string(simplify((var_expr(h) + 3) - 5)), "(h - 2)");
  EXPECT_EQ(to_string(simplify(Expr(4) * var_expr(h))), "(h * 4)");
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

}  // namespace
}  // namespace aotc::ir
