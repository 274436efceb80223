// HoistAllocations: a temporary allocated in every iteration moves out of its loops; one
// that would then be live beside another temporary stays; results and peak memory do not
// change.
#include <gtest/gtest.h>

#include "lowering/ir/ir_interpreter.h"
#include "lowering/ir/ir_printer.h"
#include "lowering/passes/hoist_allocations.h"
#include "lowering/passes/lower_builtin.h"

namespace aotc::ir {
namespace {

TargetFacts workspace_only_target() {
  TargetFacts t;
  t.name = "test";
  t.max_stack_alloca_size = 0;  // every temporary in the workspace, as on microcontrollers
  return t;
}

// Y[n, c, i] = 2 * X[n, c, i] through a per-channel copy T, the way a staged depthwise
// convolution allocates its channel plane inside `for n, c`.
PrimFunc per_channel_copy(const std::string& scope) {
  Buffer x = make_buffer("X", DataType::Int(32), {2, 3, 4});
  Buffer y = make_buffer("Y", DataType::Int(32), {2, 3, 4});
  Buffer t = make_buffer("T", DataType::Int(32), {4}, scope);
  Var n = make_var("n"), c = make_var("c"), i = make_var("i"), j = make_var("j");
  Stmt stage = for_loop(i, 0, 4, store(t, {var_expr(i)}, load(x, {var_expr(n), var_expr(c), var_expr(i)})));
  Stmt compute = for_loop(j, 0, 4, store(y, {var_expr(n), var_expr(c), var_expr(j)}, load(t, {var_expr(j)}) * 2));
  PrimFunc f;
  f.name = "per_channel_copy";
  f.params = {x, y};
  f.body = for_loop(n, 0, 2, for_loop(c, 0, 3, allocate(t, seq({stage, compute}))));
  return f;
}

std::vector<int32_t> run(const PrimFunc& f) {
  std::vector<int32_t> x(24), y(24, -1);
  for (int k = 0; k < 24; ++k) x[k] = k * 7 - 50;
  EXPECT_EQ(interpret(f, {{f.params[0], x.data()}, {f.params[1], y.data()}}), 0);
  return y;
}

// The body of the per-channel loops, indented by `indent` levels.
std::string per_channel_body(int indent) {
  std::string pad(2 * indent, ' ');
  return pad + "for (i, 0, 4) {\n" + pad + "  T[i] = X[n, c, i]\n" + pad + "}\n" + pad + "for (j, 0, 4) {\n" + pad +
         "  Y[n, c, j] = (T[j] * 2)\n" + pad + "}\n";
}

Buffer temporary(const std::string& name, int64_t n, const std::string& scope = "global") {
  return make_buffer(name, DataType::Int(32), {n}, scope);
}

// The small loops of the later tests: `for (c, 0, 3)` writing Y[c], with temporaries of
// int32.
class HoistAllocations : public ::testing::Test {
 protected:
  Buffer y = temporary("Y", 3);
  Var c = make_var("c");
};

TEST_F(HoistAllocations, PerChannelTemporaryLeavesBothLoops) {
  PrimFunc f = per_channel_copy("global");
  EXPECT_EQ(to_string(f.body),
            "for (n, 0, 2) {\n"
            "  for (c, 0, 3) {\n"
            "    allocate T: int32[4] \"global\" {\n" +
                per_channel_body(3) +
                "    }\n"
                "  }\n"
                "}\n");
  EXPECT_EQ(to_string(hoist_allocations(f.body)),
            "allocate T: int32[4] \"global\" {\n"
            "  for (n, 0, 2) {\n"
            "    for (c, 0, 3) {\n" +
                per_channel_body(3) +
                "    }\n"
                "  }\n"
                "}\n");
}

TEST_F(HoistAllocations, EveryPlacedScopeMovesButLocalScalarsStay) {
  for (const char* scope : {"global", "global.workspace", "global.stack"}) {
    std::string text = to_string(hoist_allocations(per_channel_copy(scope).body));
    EXPECT_EQ(text.rfind("allocate T", 0), 0u) << scope << "\n" << text;
  }
  Stmt local = per_channel_copy("local").body;
  EXPECT_TRUE(hoist_allocations(local).same_as(local));
}

// After LowerBuiltin the block is allocated, checked and freed once, outside the loops.
TEST_F(HoistAllocations, OneWorkspaceCallPerKernelCall) {
  Stmt lowered = lower_builtin(hoist_allocations(per_channel_copy("global").body), workspace_only_target());
  std::string text = to_string(lowered);
  EXPECT_EQ(text.rfind("let T: int32* = aotc_workspace_alloc(16) {\n", 0), 0u) << text;
  EXPECT_LT(text.find("aotc_workspace_free(T)"), text.size());
  EXPECT_GT(text.find("aotc_workspace_free(T)"), text.rfind("Y[n, c, j]")) << text;
}

TEST_F(HoistAllocations, ResultsAndPeakMemoryUnchanged) {
  const TargetFacts target = workspace_only_target();
  PrimFunc before = per_channel_copy("global");
  PrimFunc after = before;
  after.body = hoist_allocations(before.body);
  std::vector<int32_t> expected(24);
  for (int k = 0; k < 24; ++k) expected[k] = (k * 7 - 50) * 2;
  EXPECT_EQ(run(before), expected);
  EXPECT_EQ(run(after), expected);

  before.body = lower_builtin(before.body, target);
  after.body = lower_builtin(after.body, target);
  EXPECT_EQ(run(before), expected);
  EXPECT_EQ(run(after), expected);
  KernelMemory m_before = measure_kernel_memory(before.body, target);
  KernelMemory m_after = measure_kernel_memory(after.body, target);
  EXPECT_EQ(m_after.workspace_bytes, m_before.workspace_bytes);
  EXPECT_EQ(m_after.stack_bytes, m_before.stack_bytes);
}


// Statements beside the temporary that allocate nothing come along into its scope.
TEST_F(HoistAllocations, SiblingsWithoutAllocationsStayInTheLoop) {
  Buffer t = temporary("T", 1);
  Stmt use = allocate(t, seq({store(t, {0}, var_expr(c)), store(y, {var_expr(c)}, load(t, {0}))}));
  Stmt body = for_loop(c, 0, 3, seq({store(y, {var_expr(c)}, 0), use}));
  EXPECT_EQ(to_string(hoist_allocations(body)),
            "allocate T: int32[1] \"global\" {\n"
            "  for (c, 0, 3) {\n"
            "    Y[c] = 0\n"
            "    T[0] = c\n"
            "    Y[c] = T[0]\n"
            "  }\n"
            "}\n");
}

// Nested temporaries leave together, in their order.
TEST_F(HoistAllocations, NestedTemporariesLeaveTogether) {
  Buffer a = temporary("A", 1);
  Buffer b = temporary("B", 2, "global.workspace");
  Stmt body = for_loop(c, 0, 3, allocate(a, allocate(b, store(y, {var_expr(c)}, load(a, {0}) + load(b, {1})))));
  EXPECT_EQ(to_string(hoist_allocations(body)),
            "allocate A: int32[1] \"global\" {\n"
            "  allocate B: int32[2] \"global.workspace\" {\n"
            "    for (c, 0, 3) {\n"
            "      Y[c] = (A[0] + B[1])\n"
            "    }\n"
            "  }\n"
            "}\n");
}

// Two temporaries of one loop body are live one after the other; hoisting either would
// make both live at once and raise the peak, so neither moves.
TEST_F(HoistAllocations, SiblingTemporariesStay) {
  Buffer a = temporary("A", 64);
  Buffer b = temporary("B", 64);
  Stmt first = allocate(a, seq({store(a, {0}, var_expr(c)), store(y, {var_expr(c)}, load(a, {0}))}));
  Stmt second = allocate(b, seq({store(b, {0}, 1), store(y, {var_expr(c)}, load(y, {var_expr(c)}) + load(b, {0}))}));
  Stmt body = for_loop(c, 0, 3, seq({first, second}));
  EXPECT_TRUE(hoist_allocations(body).same_as(body));
}

// A loop body whose other statement allocates deeper down (a local accumulator in an
// inner loop) keeps its temporary too: the accumulator's bytes would join it.
TEST_F(HoistAllocations, TemporaryBesideANestedAllocationStays) {
  Buffer t = temporary("T", 8);
  Buffer acc = temporary("acc", 1, "local");
  Var k = make_var("k");
  Stmt accumulate = for_loop(
      k, 0, 2, allocate(acc, seq({store(acc, {0}, var_expr(k)), store(y, {var_expr(c)}, load(acc, {0}))})));
  Stmt body = for_loop(c, 0, 3, seq({allocate(t, store(t, {0}, var_expr(c))), accumulate}));
  EXPECT_TRUE(hoist_allocations(body).same_as(body));
}

// A temporary under an If might never be allocated; it stays under the If.
TEST_F(HoistAllocations, ConditionalTemporaryStays) {
  Buffer t = temporary("T", 16);
  Stmt use = allocate(t, seq({store(t, {0}, 5), store(y, {var_expr(c)}, load(t, {0}))}));
  Stmt body = for_loop(c, 0, 3, if_then_else(var_expr(c) == 1, use));
  EXPECT_TRUE(hoist_allocations(body).same_as(body));
}

}  // namespace
}  // namespace aotc::ir
