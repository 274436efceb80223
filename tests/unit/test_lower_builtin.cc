// LowerBuiltin: every storage scope, and the stack limit at, below and above the size.
#include <gtest/gtest.h>

#include "aot/base/errors.h"
#include "lowering/ir/ir_interpreter.h"
#include "lowering/ir/ir_printer.h"
#include "lowering/passes/lower_builtin.h"

namespace aotc::ir {
namespace {

TargetFacts target_with_stack_limit(int64_t bytes) {
  TargetFacts t;
  t.name = "test";
  t.max_stack_alloca_size = bytes;
  return t;
}

// Y[i] = X[i] * 2 through a temporary T of `n` floats in `scope`.
PrimFunc scaled_copy(int64_t n, const std::string& scope) {
  Buffer x = make_buffer("X", DataType::Float32(), {n});
  Buffer y = make_buffer("Y", DataType::Float32(), {n});
  Buffer t = make_buffer("T", DataType::Float32(), {n}, scope);
  Var i = make_var("i"), j = make_var("j");
  Stmt fill = for_loop(i, 0, make_int(n), store(t, {var_expr(i)}, load(x, {var_expr(i)}) * Expr(2.0)));
  Stmt copy = for_loop(j, 0, make_int(n), store(y, {var_expr(j)}, load(t, {var_expr(j)})));
  PrimFunc f;
  f.name = "scaled_copy";
  f.params = {x, y};
  f.body = allocate(t, seq({fill, copy}));
  return f;
}

std::string lowered_allocation_line(int64_t n, const std::string& scope, int64_t limit) {
  Stmt s = lower_builtin(scaled_copy(n, scope).body, target_with_stack_limit(limit));
  std::string text = to_string(s);
  return text.substr(0, text.find('\n'));
}

TEST(LowerBuiltin, GlobalBelowLimitGoesToStack) {
  EXPECT_EQ(lowered_allocation_line(4, "global", 32), "allocate T: float32[4] \"stack\" {");
}

TEST(LowerBuiltin, GlobalAtLimitGoesToStack) {
  EXPECT_EQ(lowered_allocation_line(8, "global", 32), "allocate T: float32[8] \"stack\" {");
}

TEST(LowerBuiltin, GlobalAboveLimitGoesToWorkspace) {
  EXPECT_EQ(lowered_allocation_line(9, "global", 32), "let T: float32* = aotc_workspace_alloc(36) {");
}

TEST(LowerBuiltin, ZeroLimitSendsEveryGlobalToWorkspace) {
  EXPECT_EQ(lowered_allocation_line(1, "global", 0), "let T: float32* = aotc_workspace_alloc(4) {");
}

TEST(LowerBuiltin, StackScopeWithinLimit) {
  EXPECT_EQ(lowered_allocation_line(8, "global.stack", 32), "allocate T: float32[8] \"stack\" {");
}

TEST(LowerBuiltin, StackScopeAboveLimitIsAnErrorNamingTheBuffer) {
  try {
    lower_builtin(scaled_copy(9, "global.stack").body, target_with_stack_limit(32));
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("buffer 'T' (36 bytes) has scope global.stack"), std::string::npos) << e.what();
  }
}

TEST(LowerBuiltin, WorkspaceScopeIgnoresTheLimit) {
  EXPECT_EQ(lowered_allocation_line(1, "global.workspace", 1 << 20), "let T: float32* = aotc_workspace_alloc(4) {");
}

TEST(LowerBuiltin, LocalScopeIsUntouched) {
  EXPECT_EQ(lowered_allocation_line(1, "local", 0), "allocate T: float32[1] \"local\" {");
}

TEST(LowerBuiltin, WorkspaceCallIsCheckedAndFreed) {
  Stmt s = lower_builtin(scaled_copy(16, "global").body, target_with_stack_limit(0));
  EXPECT_EQ(to_string(s),
            "let T: float32* = aotc_workspace_alloc(64) {\n"
            "  if isnull(T) {\n"
            "    return AOTC_ERR_WORKSPACE_EXHAUSTED()\n"
            "  }\n"
            "  for (i, 0, 16) {\n"
            "    T[i] = (X[i] * 2.0f)\n"
            "  }\n"
            "  for (j, 0, 16) {\n"
            "    Y[j] = T[j]\n"
            "  }\n"
            "  if (aotc_workspace_free(T) != 0) {\n"
            "    return AOTC_ERR_WORKSPACE_FREE_ORDER()\n"
            "  }\n"
            "}\n");
}

TEST(LowerBuiltin, NestedFailureFreesOuterBlocksInLifoOrder) {
  Buffer a = make_buffer("A", DataType::Float32(), {4});
  Buffer b = make_buffer("B", DataType::Float32(), {4});
  Buffer c = make_buffer("C", DataType::Float32(), {4});
  Stmt inner = store(c, {0}, Expr(1.0));
  Stmt body = allocate(a, allocate(b, allocate(c, inner)));
  std::string text = to_string(lower_builtin(body, target_with_stack_limit(0)));
  // When C cannot be allocated, B then A are freed before returning.
  size_t check = text.find("if isnull(C)");
  ASSERT_NE(check, std::string::npos) << text;
  size_t free_b = text.find("aotc_workspace_free(B)", check);
  size_t free_a = text.find("aotc_workspace_free(A)", check);
  size_t ret = text.find("return AOTC_ERR_WORKSPACE_EXHAUSTED", check);
  EXPECT_LT(free_b, free_a);
  EXPECT_LT(free_a, ret);
}

TEST(LowerBuiltin, MeasuresStackAndWorkspace) {
  TargetFacts stack64 = target_with_stack_limit(64), stack0 = target_with_stack_limit(0);
  KernelMemory on_stack = measure_kernel_memory(lower_builtin(scaled_copy(8, "global").body, stack64), stack64);
  EXPECT_EQ(on_stack.stack_bytes, 32);
  EXPECT_EQ(on_stack.workspace_bytes, 0);
  KernelMemory in_workspace = measure_kernel_memory(lower_builtin(scaled_copy(9, "global").body, stack0), stack0);
  EXPECT_EQ(in_workspace.stack_bytes, 0);
  EXPECT_EQ(in_workspace.workspace_bytes, 16 + 48);  // header + 36 bytes rounded up to 16
}

// AOTC_WORKSPACE_BLOCK_BYTES(n) as runtime-c/aotc_runtime.h computes it, for a runtime built
// with AOTC_WORKSPACE_ALIGNMENT `alignment` where size_t has `size_t_bytes` bytes.
int64_t runtime_block_bytes(int64_t n, int64_t alignment, int64_t size_t_bytes) {
  int64_t header = (2 * size_t_bytes + alignment - 1) / alignment * alignment;
  return header + ((n + alignment - 1) & ~(alignment - 1));
}

TargetFacts workspace_target(int64_t alignment, int word_size) {
  TargetFacts t = target_with_stack_limit(0);
  t.workspace_alignment = alignment;
  t.word_size = word_size;
  return t;
}

// The block a float temporary of 9 elements (36 bytes) takes, by alignment and word size.
TEST(LowerBuiltin, MeasuresBlocksWithTheTargetsAlignmentAndWordSize) {
  struct Case {
    int64_t alignment;
    int word_size;
    int64_t block_bytes;  // header + payload
  };
  const Case cases[] = {
      {4, 32, 8 + 36},  {8, 32, 8 + 40},  {16, 32, 16 + 48}, {32, 32, 32 + 64},
      {4, 64, 16 + 36}, {8, 64, 16 + 40}, {16, 64, 16 + 48}, {32, 64, 32 + 64},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("alignment " + std::to_string(c.alignment) + ", word size " + std::to_string(c.word_size));
    TargetFacts target = workspace_target(c.alignment, c.word_size);
    KernelMemory m = measure_kernel_memory(lower_builtin(scaled_copy(9, "global").body, target), target);
    EXPECT_EQ(m.workspace_bytes, c.block_bytes);
    EXPECT_EQ(m.workspace_bytes, runtime_block_bytes(36, c.alignment, c.word_size / 8));
  }
}

// Nested blocks add up, each exactly as the runtime's macro says, for every payload size
// around the alignment boundaries.
TEST(LowerBuiltin, NestedBlocksMeasureAsTheRuntimeFormula) {
  for (int64_t alignment : {4, 8, 16, 32}) {
    for (int word_size : {32, 64}) {
      TargetFacts target = workspace_target(alignment, word_size);
      for (int64_t outer = 1; outer <= 40; ++outer) {
        int64_t inner = 41 - outer;
        Buffer a = make_buffer("A", DataType::Int(8), {outer});
        Buffer b = make_buffer("B", DataType::Int(8), {inner});
        Stmt body = allocate(a, allocate(b, store(b, {0}, load(a, {0}))));
        KernelMemory m = measure_kernel_memory(lower_builtin(body, target), target);
        EXPECT_EQ(m.workspace_bytes, runtime_block_bytes(outer, alignment, word_size / 8) +
                                         runtime_block_bytes(inner, alignment, word_size / 8))
            << "alignment " << alignment << ", word size " << word_size << ", blocks of " << outer << " and " << inner;
        EXPECT_EQ(m.workspace_bytes, target.workspace_block_bytes(outer) + target.workspace_block_bytes(inner));
      }
    }
  }
}

// Correctness never depends on the choice: both placements compute the same values.
TEST(LowerBuiltin, PlacementDoesNotChangeResults) {
  for (int64_t limit : {0, 1 << 20}) {
    PrimFunc f = scaled_copy(5, "global");
    f.body = lower_builtin(f.body, target_with_stack_limit(limit));
    float x[5] = {1, -2, 3.5f, 0, 7}, y[5] = {};
    EXPECT_EQ(interpret(f, {{f.params[0], x}, {f.params[1], y}}), 0);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(y[i], x[i] * 2) << "limit " << limit;
  }
}

}  // namespace
}  // namespace aotc::ir
