// The scheduling passes (schedule_loops, tensorize, reorder_loops, split_loops,
// unroll_loops): the IR each makes of small hand-built kernels, the policy's choices per
// target, the interchanges it must refuse, and bit-identical results before and after on
// seeded random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "lowering/ir/ir_functor.h"
#include "lowering/ir/ir_interpreter.h"
#include "lowering/ir/ir_printer.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/passes/reorder_loops.h"
#include "lowering/passes/schedule_loops.h"
#include "lowering/passes/simplify.h"
#include "lowering/passes/split_loops.h"
#include "lowering/passes/tensorize.h"
#include "lowering/passes/unroll_loops.h"
#include "targets/target.h"

namespace aotc::ir {
namespace {

Expr v(const Var& x) { return var_expr(x); }

// The innermost loop of `s` (following loop bodies, Allocates and Seqs), to annotate it.
const ForNode* find_loop(const Stmt& s, const std::string& name) {
  if (!s) return nullptr;
  if (auto* loop = s.as<ForNode>()) return loop->var->name == name ? loop : find_loop(loop->body, name);
  if (auto* alloc = s.as<AllocateNode>()) return find_loop(alloc->body, name);
  if (auto* block = s.as<SeqNode>()) {
    for (const Stmt& st : block->stmts)
      if (const ForNode* found = find_loop(st, name)) return found;
  }
  return nullptr;
}

// `s` with the loop named `name` given `schedule`.
class Annotate : public IRMutator {
 public:
  Annotate(std::string name, LoopSchedule schedule) : name_(std::move(name)), schedule_(std::move(schedule)) {}

 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* op) override {
    Stmt mutated = IRMutator::mutate_for(s, op);
    if (op->var->name != name_) return mutated;
    return with_schedule(mutated.as<ForNode>(), schedule_);
  }

 private:
  std::string name_;
  LoopSchedule schedule_;
};

Stmt annotate(const Stmt& s, const std::string& loop, LoopSchedule schedule) { return Annotate(loop, schedule).mutate(s); }

LoopSchedule tensorize_with(const std::string& kernel) {
  LoopSchedule s;
  s.tensorize = kernel;
  return s;
}

// Every scheduling pass, as the pipeline runs them.
Stmt schedule_and_apply(const Stmt& s, const TargetFacts& target) {
  return simplify(unroll_loops(split_loops(reorder_loops(tensorize(schedule_loops(s, target))))));
}

// Gemm as the generic lowering writes it: Y[m, n] = sum over k of A[m, k] * B[k, n].
PrimFunc float_gemm(int64_t m_size, int64_t k_size, int64_t n_size) {
  Buffer a = make_buffer("A", DataType::Float32(), {m_size, k_size});
  Buffer b = make_buffer("B", DataType::Float32(), {k_size, n_size});
  Buffer y = make_buffer("Y", DataType::Float32(), {m_size, n_size});
  Buffer acc = make_buffer("acc", DataType::Float32(), {1}, "local");
  Var m = make_var("m"), n = make_var("n"), k = make_var("k");
  Stmt reduce = for_loop(k, 0, k_size, store(acc, {0}, load(acc, {0}) + load(a, {v(m), v(k)}) * load(b, {v(k), v(n)})));
  PrimFunc f;
  f.name = "gemm";
  f.params = {a, b, y};
  f.body = for_loop(m, 0, m_size,
                    for_loop(n, 0, n_size,
                             allocate(acc, seq({store(acc, {0}, make_float(0.0)), reduce,
                                                store(y, {v(m), v(n)}, load(acc, {0}))}))));
  return f;
}

// MatMulInteger: Y[m, n] = sum over k of (int32(A[m, k]) - a_zp) * (int32(B[k, n]) - b_zp),
// A int8 and B uint8 (the kernel takes uint8 first: the pass swaps them).
PrimFunc int8_matmul(int64_t m_size, int64_t k_size, int64_t n_size) {
  Buffer a = make_buffer("A", DataType::Int(8), {m_size, k_size});
  Buffer a_zp = make_buffer("a_zero_point", DataType::Int(8), {1});
  Buffer b = make_buffer("B", DataType::UInt(8), {k_size, n_size});
  Buffer b_zp = make_buffer("b_zero_point", DataType::UInt(8), {1});
  Buffer y = make_buffer("Y", DataType::Int(32), {m_size, n_size});
  Buffer acc = make_buffer("acc", DataType::Int(32), {1}, "local");
  Var m = make_var("m"), n = make_var("n"), k = make_var("k");
  DataType i32 = DataType::Int(32);
  Expr product = (cast(i32, load(a, {v(m), v(k)})) - cast(i32, load(a_zp, {0}))) *
                 (cast(i32, load(b, {v(k), v(n)})) - cast(i32, load(b_zp, {0})));
  Stmt reduce = for_loop(k, 0, k_size, store(acc, {0}, load(acc, {0}) + product));
  PrimFunc f;
  f.name = "matmul_integer";
  f.params = {a, a_zp, b, b_zp, y};
  f.body = for_loop(m, 0, m_size,
                    for_loop(n, 0, n_size,
                             allocate(acc, seq({store(acc, {0}, make_int(0)), reduce, store(y, {v(m), v(n)}, load(acc, {0}))}))));
  return f;
}

// A 3x3 convolution of one channel without padding: the taps are the inner loops.
PrimFunc float_conv3x3(int64_t h, int64_t w) {
  Buffer x = make_buffer("X", DataType::Float32(), {h, w});
  Buffer wt = make_buffer("W", DataType::Float32(), {3, 3});
  Buffer y = make_buffer("Y", DataType::Float32(), {h - 2, w - 2});
  Buffer acc = make_buffer("acc", DataType::Float32(), {1}, "local");
  Var oh = make_var("oh"), ow = make_var("ow"), kh = make_var("kh"), kw = make_var("kw");
  Stmt taps = for_loop(kh, 0, 3,
                       for_loop(kw, 0, 3,
                                store(acc, {0}, load(acc, {0}) + load(x, {v(oh) + v(kh), v(ow) + v(kw)}) * load(wt, {v(kh), v(kw)}))));
  PrimFunc f;
  f.name = "conv";
  f.params = {x, wt, y};
  f.body = for_loop(oh, 0, h - 2,
                    for_loop(ow, 0, w - 2,
                             allocate(acc, seq({store(acc, {0}, make_float(0.0)), taps, store(y, {v(oh), v(ow)}, load(acc, {0}))}))));
  return f;
}

// A row maximum: acc = max(acc, X[r, c]) over c, a reduction no kernel computes.
PrimFunc row_max(int64_t rows, int64_t cols) {
  Buffer x = make_buffer("X", DataType::Float32(), {rows, cols});
  Buffer y = make_buffer("Y", DataType::Float32(), {rows});
  Buffer acc = make_buffer("acc", DataType::Float32(), {1}, "local");
  Var r = make_var("r"), c = make_var("c");
  PrimFunc f;
  f.name = "row_max";
  f.params = {x, y};
  f.body = for_loop(r, 0, rows,
                    allocate(acc, seq({store(acc, {0}, load(x, {v(r), 0})),
                                       for_loop(c, 0, cols, store(acc, {0}, max(load(acc, {0}), load(x, {v(r), v(c)})))),
                                       store(y, {v(r)}, load(acc, {0}))})));
  return f;
}

// Y[j, i] = X[i, j] * 2 + Y[j, i], loops i then j: the inner loop strides through Y.
PrimFunc transpose_accumulate(int64_t rows, int64_t cols) {
  Buffer x = make_buffer("X", DataType::Float32(), {rows, cols});
  Buffer y = make_buffer("Y", DataType::Float32(), {cols, rows});
  Var i = make_var("i"), j = make_var("j");
  PrimFunc f;
  f.name = "transpose_accumulate";
  f.params = {x, y};
  f.body = for_loop(i, 0, rows,
                    for_loop(j, 0, cols, store(y, {v(j), v(i)}, load(x, {v(i), v(j)}) * make_float(2.0) + load(y, {v(j), v(i)}))));
  return f;
}

// Seeded random contents for every parameter: floats of widely varying magnitudes (so
// that another order of additions would round differently), integers over their range.
std::vector<std::vector<uint8_t>> random_inputs(const PrimFunc& f, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<uint8_t>> memory;
  for (const Buffer& b : f.params) {
    std::vector<uint8_t> bytes(static_cast<size_t>(b->size_bytes()));
    for (int64_t i = 0; i < b->num_elements(); ++i) {
      if (b->dtype == DataType::Float32()) {
        float value = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng) *
                      std::pow(10.0f, static_cast<float>(std::uniform_int_distribution<int>(-3, 3)(rng)));
        std::memcpy(bytes.data() + 4 * i, &value, 4);
      } else {
        for (int64_t byte = 0; byte < b->dtype.bytes(); ++byte)
          bytes[static_cast<size_t>(i * b->dtype.bytes() + byte)] = static_cast<uint8_t>(rng());
      }
    }
    memory.push_back(std::move(bytes));
  }
  return memory;
}

// Every parameter's bytes after running `f` on `inputs`.
std::vector<std::vector<uint8_t>> run(const PrimFunc& f, std::vector<std::vector<uint8_t>> memory) {
  std::vector<BufferBinding> bindings;
  for (size_t i = 0; i < f.params.size(); ++i) bindings.push_back({f.params[i], memory[i].data()});
  EXPECT_EQ(interpret(f, bindings), 0);
  return memory;
}

// Runs `f` before and after the passes on random inputs; the outputs must be the same
// bytes (floats bit for bit).
void expect_same_results(const PrimFunc& before, const Stmt& after_body, const std::string& what) {
  PrimFunc after = before;
  after.body = after_body;
  for (uint32_t seed : {1u, 2u, 3u}) {
    auto inputs = random_inputs(before, seed);
    EXPECT_EQ(run(before, inputs), run(after, inputs)) << what << ", seed " << seed << "\n" << to_string(after);
  }
}

// ---------------------------------------------------------------- the annotations

TEST(LoopSchedule, PrintedAfterTheLoopAndKeptByOtherPasses) {
  LoopSchedule s;
  s.split = 4;
  s.unroll = true;
  Stmt body = annotate(float_gemm(2, 10, 3).body, "k", s);
  std::string text = to_string(body);
  EXPECT_NE(text.find("for (k, 0, 10) [split 4, unroll inner] {"), std::string::npos) << text;
  // Simplify rebuilds the loop (its body folds) and keeps the annotation.
  Stmt unfolded = annotate(for_loop(make_var("k"), 0, 10, store(make_buffer("Y", DataType::Int(32), {1}), {0}, make_int(1) + 2)),
                           "k", s);
  EXPECT_EQ(to_string(simplify(unfolded)), "for (k, 0, 10) [split 4, unroll inner] {\n  Y[0] = 3\n}\n");
}

// ---------------------------------------------------------------- tensorize

TEST(Tensorize, FloatDotProductBecomesAKernelCall) {
  PrimFunc f = float_gemm(4, 10, 2);
  Stmt marked = annotate(f.body, "k", tensorize_with("aotc_dot_f32"));
  // A[m, k] steps by 1, B[k, n] by n's extent 2; the sum starts at k = 0.
  EXPECT_EQ(to_string(tensorize(marked)),
            "for (m, 0, 4) {\n"
            "  for (n, 0, 2) {\n"
            "    allocate acc: float32[1] \"local\" {\n"
            "      acc[0] = 0.0f\n"
            "      aotc_dot_f32(address_of(A[m, 0]), 1, address_of(B[0, n]), 2, 10, address_of(acc[0]))\n"
            "      Y[m, n] = acc[0]\n"
            "    }\n"
            "  }\n"
            "}\n");
  expect_same_results(f, tensorize(marked), "float gemm");
}

TEST(Tensorize, IntegerDotProductWithZeroPointsTakesUint8First) {
  PrimFunc f = int8_matmul(4, 3, 2);
  const ForNode* k = find_loop(f.body, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(dot_product_kernel(k), "aotc_dot_u8_s8");
  Stmt done = tensorize(annotate(f.body, "k", tensorize_with("aotc_dot_u8_s8")));
  std::string text = to_string(done);
  EXPECT_NE(text.find("aotc_dot_u8_s8(address_of(B[0, n]), 2, int32(b_zero_point[0]), address_of(A[m, 0]), 1, "
                      "int32(a_zero_point[0]), 3, address_of(acc[0]))"),
            std::string::npos)
      << text;
  expect_same_results(f, done, "int8 matmul");
}

TEST(Tensorize, KernelsForEachIntegerTypePair) {
  // int32(A) * int32(B) without zero points, for every pairing of int8 and uint8.
  struct Case {
    DataType a, b;
    const char* kernel;
  };
  for (const Case& c : {Case{DataType::Int(8), DataType::Int(8), "aotc_dot_s8_s8"},
                        Case{DataType::UInt(8), DataType::UInt(8), "aotc_dot_u8_u8"},
                        Case{DataType::UInt(8), DataType::Int(8), "aotc_dot_u8_s8"},
                        Case{DataType::Int(8), DataType::UInt(8), "aotc_dot_u8_s8"}}) {
    Buffer a = make_buffer("A", c.a, {23}), b = make_buffer("B", c.b, {23}), y = make_buffer("Y", DataType::Int(32), {1});
    Buffer acc = make_buffer("acc", DataType::Int(32), {1}, "local");
    Var k = make_var("k");
    DataType i32 = DataType::Int(32);
    PrimFunc f;
    f.name = "dot";
    f.params = {a, b, y};
    f.body = allocate(acc, seq({store(acc, {0}, load(y, {0})),
                                for_loop(k, 0, 23, store(acc, {0}, load(acc, {0}) + cast(i32, load(a, {v(k)})) * cast(i32, load(b, {v(k)})))),
                                store(y, {0}, load(acc, {0}))}));
    EXPECT_EQ(dot_product_kernel(find_loop(f.body, "k")), c.kernel);
    Stmt done = tensorize(annotate(f.body, "k", tensorize_with(c.kernel)));
    EXPECT_NE(to_string(done).find(std::string(c.kernel) + "("), std::string::npos) << to_string(done);
    expect_same_results(f, done, c.kernel);
  }
}

TEST(Tensorize, ZeroPointFoldedIntoAnOffset) {
  // ONNX's QDQ Gemm with a constant zero point of -38: (int32(a[k]) + 38) * int32(b[k]).
  Buffer a = make_buffer("a", DataType::UInt(8), {13}), b = make_buffer("b", DataType::Int(8), {13});
  Buffer y = make_buffer("y", DataType::Int(32), {1});
  Buffer acc = make_buffer("acc", DataType::Int(32), {1}, "local");
  Var k = make_var("k");
  DataType i32 = DataType::Int(32);
  PrimFunc f;
  f.name = "offset_dot";
  f.params = {a, b, y};
  f.body = allocate(acc, seq({store(acc, {0}, make_int(0)),
                              for_loop(k, 0, 13, store(acc, {0}, load(acc, {0}) + (cast(i32, load(a, {v(k)})) + 38) * cast(i32, load(b, {v(k)})))),
                              store(y, {0}, load(acc, {0}))}));
  Stmt done = tensorize(annotate(f.body, "k", tensorize_with("aotc_dot_u8_s8")));
  EXPECT_NE(to_string(done).find("aotc_dot_u8_s8(address_of(a[0]), 1, -38, address_of(b[0]), 1, 0, 13, address_of(acc[0]))"),
            std::string::npos)
      << to_string(done);
  expect_same_results(f, done, "offset");
}

TEST(Tensorize, LoopsThatAreNotDotProductsStayAndLoseTheAnnotation) {
  // A maximum, not a sum of products.
  PrimFunc f = row_max(2, 9);
  EXPECT_EQ(dot_product_kernel(find_loop(f.body, "c")), "");
  Stmt marked = annotate(f.body, "c", tensorize_with("aotc_dot_f32"));
  EXPECT_EQ(to_string(tensorize(marked)), to_string(f.body));
  // An index that is not affine in k (k * k).
  Buffer a = make_buffer("A", DataType::Float32(), {16}), acc = make_buffer("acc", DataType::Float32(), {1}, "local");
  Var k = make_var("k");
  Stmt squares = for_loop(k, 0, 4, store(acc, {0}, load(acc, {0}) + load(a, {v(k) * v(k)}) * load(a, {v(k)})));
  EXPECT_EQ(dot_product_kernel(squares.as<ForNode>()), "");
  // An accumulator that is not a C local (a parameter might alias an operand).
  Buffer y = make_buffer("Y", DataType::Float32(), {1});
  Stmt into_param = for_loop(k, 0, 4, store(y, {0}, load(y, {0}) + load(a, {v(k)}) * load(a, {v(k)})));
  EXPECT_EQ(dot_product_kernel(into_param.as<ForNode>()), "");
}

// ---------------------------------------------------------------- unroll and split

TEST(UnrollLoops, TapsBecomeOneStatementEach) {
  PrimFunc f = float_conv3x3(5, 6);
  LoopSchedule unroll;
  unroll.unroll = true;
  Stmt done = simplify(unroll_loops(annotate(f.body, "kw", unroll)));
  std::string text = to_string(done);
  EXPECT_NE(text.find("      for (kh, 0, 3) {\n"
                      "        acc[0] = (acc[0] + (X[(oh + kh), ow] * W[kh, 0]))\n"
                      "        acc[0] = (acc[0] + (X[(oh + kh), (ow + 1)] * W[kh, 1]))\n"
                      "        acc[0] = (acc[0] + (X[(oh + kh), (ow + 2)] * W[kh, 2]))\n"
                      "      }\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("kw"), std::string::npos) << text;
  expect_same_results(f, done, "unrolled taps");
}

TEST(SplitLoops, BlocksOfFourThenATail) {
  PrimFunc f = row_max(3, 10);
  LoopSchedule s;
  s.split = 4;
  s.unroll = true;
  Stmt split = split_loops(annotate(f.body, "c", s));
  // 10 = 2 blocks of 4 + a tail of 2; the inner and tail loops are marked for unrolling.
  EXPECT_EQ(to_string(simplify(split)),
            "for (r, 0, 3) {\n"
            "  allocate acc: float32[1] \"local\" {\n"
            "    acc[0] = X[r, 0]\n"
            "    for (c.outer, 0, 2) {\n"
            "      for (c.inner, 0, 4) [unroll] {\n"
            "        acc[0] = max(acc[0], X[r, ((c.outer * 4) + c.inner)])\n"
            "      }\n"
            "    }\n"
            "    for (c.tail, 0, 2) [unroll] {\n"
            "      acc[0] = max(acc[0], X[r, (c.tail + 8)])\n"
            "    }\n"
            "    Y[r] = acc[0]\n"
            "  }\n"
            "}\n");
  Stmt unrolled = simplify(unroll_loops(split));
  std::string text = to_string(unrolled);
  EXPECT_NE(text.find("acc[0] = max(acc[0], X[r, ((c.outer * 4) + 3)])\n"), std::string::npos) << text;
  EXPECT_NE(text.find("acc[0] = max(acc[0], X[r, 9])\n"), std::string::npos) << text;
  expect_same_results(f, split, "split");
  expect_same_results(f, unrolled, "split and unrolled");
}

TEST(SplitLoops, ExactMultipleHasNoTailAndShortLoopsStay) {
  PrimFunc f = float_gemm(2, 8, 2);
  LoopSchedule s;
  s.split = 4;
  std::string text = to_string(split_loops(annotate(f.body, "k", s)));
  EXPECT_NE(text.find("for (k.outer, 0, 2) {\n"), std::string::npos) << text;
  EXPECT_NE(text.find("for (k.inner, 0, 4) {\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("k.tail"), std::string::npos) << text;
  // An extent no larger than the factor is not split (and the annotation goes).
  PrimFunc small = float_gemm(2, 4, 2);
  EXPECT_EQ(to_string(split_loops(annotate(small.body, "k", s))), to_string(small.body));
}

// ---------------------------------------------------------------- reorder

TEST(ReorderLoops, InnerLoopWalksTheStoredRow) {
  PrimFunc f = transpose_accumulate(3, 4);
  const ForNode* outer = f.body.as<ForNode>();
  EXPECT_TRUE(reorder_is_legal(outer));
  LoopSchedule s;
  s.reorder = true;
  Stmt done = reorder_loops(annotate(f.body, "i", s));
  EXPECT_EQ(to_string(done),
            "for (j, 0, 4) {\n"
            "  for (i, 0, 3) {\n"
            "    Y[j, i] = ((X[i, j] * 2.0f) + Y[j, i])\n"
            "  }\n"
            "}\n");
  expect_same_results(f, done, "reordered");
}

TEST(ReorderLoops, IllegalInterchangesAreRefused) {
  Buffer x = make_buffer("X", DataType::Float32(), {4, 4});
  Buffer y = make_buffer("Y", DataType::Float32(), {4, 4});
  Buffer total = make_buffer("T", DataType::Float32(), {1});
  Var i = make_var("i"), j = make_var("j");
  LoopSchedule s;
  s.reorder = true;
  auto refused = [&](const Stmt& nest, const char* why) {
    EXPECT_FALSE(reorder_is_legal(nest.as<ForNode>())) << why;
    // The pass leaves the nest as it was, without the annotation.
    EXPECT_EQ(to_string(reorder_loops(annotate(nest, "i", s))), to_string(nest)) << why;
  };
  // Y[j, i] reads Y[i, j], which another iteration writes: the order decides what it reads.
  refused(for_loop(i, 0, 4, for_loop(j, 0, 4, store(y, {v(j), v(i)}, load(y, {v(i), v(j)}) + 1.0))),
          "reads another iteration's element");
  // The inner loop's bounds depend on the outer variable (a triangle).
  refused(for_loop(i, 0, 4, for_loop(j, 0, v(i), store(y, {v(j), v(i)}, load(x, {v(i), v(j)})))), "triangular");
  // Every iteration updates T[0]: the float sum's order would change.
  refused(for_loop(i, 0, 4, for_loop(j, 0, 4, store(total, {0}, load(total, {0}) + load(x, {v(i), v(j)})))),
          "one element for all iterations");
  // An index that mixes both variables.
  refused(for_loop(i, 0, 2, for_loop(j, 0, 2, store(y, {v(j) + v(i), v(i)}, load(x, {v(i), v(j)})))), "mixed index");
}

TEST(ReorderLoops, ReductionAlongOneLoopKeepsEachSumsOrder) {
  // S[i] += X[j, i] summed over j: S[i]'s additions happen in j order either way.
  Buffer x = make_buffer("X", DataType::Float32(), {5, 3});
  Buffer sums = make_buffer("S", DataType::Float32(), {3});
  Var i = make_var("i"), j = make_var("j");
  PrimFunc f;
  f.name = "column_sums";
  f.params = {x, sums};
  f.body = for_loop(i, 0, 3, for_loop(j, 0, 5, store(sums, {v(i)}, load(sums, {v(i)}) + load(x, {v(j), v(i)}))));
  EXPECT_TRUE(reorder_is_legal(f.body.as<ForNode>()));
  LoopSchedule s;
  s.reorder = true;
  expect_same_results(f, reorder_loops(annotate(f.body, "i", s)), "column sums");
}

// ---------------------------------------------------------------- the policy

std::string scheduled(const PrimFunc& f, const std::string& target) {
  return to_string(schedule_loops(f.body, load_builtin_target(target)));
}

TEST(ScheduleLoops, ChoicesPerTarget) {
  // Cortex-M4 (FPU and DSP): dot products become kernels, float and int8 alike; the taps
  // of a window are unrolled; a long reduction without a kernel is split by 4.
  EXPECT_NE(scheduled(float_gemm(4, 10, 2), "cortex-m4").find("for (k, 0, 10) [tensorize aotc_dot_f32] {"), std::string::npos);
  EXPECT_NE(scheduled(int8_matmul(4, 12, 2), "cortex-m4").find("for (k, 0, 12) [tensorize aotc_dot_u8_s8] {"), std::string::npos);
  // A dot product of 3 is written out instead (3 x 22 nodes is within the budget of 128).
  EXPECT_NE(scheduled(int8_matmul(4, 3, 2), "cortex-m4").find("for (k, 0, 3) [unroll] {"), std::string::npos);
  std::string conv = scheduled(float_conv3x3(6, 6), "cortex-m4");
  EXPECT_NE(conv.find("for (kw, 0, 3) [unroll] {"), std::string::npos) << conv;
  EXPECT_NE(conv.find("for (kh, 0, 3) {"), std::string::npos) << conv;  // not innermost
  EXPECT_NE(scheduled(row_max(2, 10), "cortex-m4").find("for (c, 0, 10) [split 4, unroll inner] {"), std::string::npos);
  // Cortex-M0+ (neither): no kernels and no splitting; only small loops unroll, within a
  // smaller budget.
  EXPECT_EQ(scheduled(float_gemm(4, 10, 2), "cortex-m0plus"), to_string(float_gemm(4, 10, 2).body));
  EXPECT_EQ(scheduled(row_max(2, 10), "cortex-m0plus"), to_string(row_max(2, 10).body));
  // The taps' body has 16 nodes (3 x 16 = 48 fits the budget of 48), the integer
  // product's 22 (3 x 22 = 66 does not).
  EXPECT_NE(scheduled(float_conv3x3(6, 6), "cortex-m0plus").find("for (kw, 0, 3) [unroll] {"), std::string::npos);
  EXPECT_EQ(scheduled(int8_matmul(4, 3, 2), "cortex-m0plus"), to_string(int8_matmul(4, 3, 2).body));
  // The host (simd): its compiler unrolls and vectorizes; only the interchange.
  for (const PrimFunc& f : {float_gemm(4, 10, 2), int8_matmul(4, 3, 2), float_conv3x3(6, 6), row_max(2, 10)})
    EXPECT_EQ(scheduled(f, "host"), to_string(f.body)) << f.name;
  for (const char* target : {"host", "cortex-m4", "cortex-m0plus"})
    EXPECT_EQ(scheduled(transpose_accumulate(3, 4), target).rfind("for (i, 0, 3) [reorder] {", 0), 0u) << target;
}

TEST(ScheduleLoops, KernelsThatCallMicroKernelsAreLeftAlone) {
  // A staging copy of 3 channels beside a call of an aotc_dot.h block: as lowered.
  Buffer x = make_buffer("X", DataType::Int(8), {4, 3}), staged = make_buffer("S", DataType::Int(8), {4, 3});
  Buffer w = make_buffer("W", DataType::Int(32), {2}), acc = make_buffer("acc", DataType::Int(32), {4});
  Var p = make_var("p"), c = make_var("c");
  Stmt copy = for_loop(p, 0, 4, for_loop(c, 0, 3, store(staged, {v(p), v(c)}, load(x, {v(p), v(c)}))));
  Stmt kernel = seq({copy, evaluate(dot_s8_1x4(address_of(staged, {0, 0}), address_of(w, {0}), 12, address_of(acc, {0})))});
  EXPECT_TRUE(schedule_loops(kernel, load_builtin_target("cortex-m4")).same_as(kernel));
  // The same copy alone is a generic kernel: its channel loop is unrolled.
  EXPECT_NE(to_string(schedule_loops(copy, load_builtin_target("cortex-m4"))).find("for (c, 0, 3) [unroll] {"),
            std::string::npos);
}

TEST(ScheduleLoops, ResultsBitIdenticalOnEveryTarget) {
  for (const char* target : {"cortex-m4", "cortex-m0plus", "cortex-m7", "host", "riscv32"}) {
    Target t = load_builtin_target(target);
    for (const PrimFunc& f : {float_gemm(3, 10, 2), float_gemm(2, 17, 3), int8_matmul(3, 13, 2), int8_matmul(2, 3, 5),
                              float_conv3x3(5, 7), row_max(3, 11), transpose_accumulate(3, 5)}) {
      expect_same_results(f, schedule_and_apply(f.body, t), std::string(target) + " " + f.name);
    }
  }
}

}  // namespace
}  // namespace aotc::ir
