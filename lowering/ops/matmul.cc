// Matrix products: Gemm (alpha * A' * B' + beta * C, with optional transposes and a C
// broadcast to [M, N]) and MatMul (numpy matmul: 1-D operands and broadcast batch
// dimensions, matmul.h).
//
// Both lower to one dot-product reduction per output element, accumulated in a local
// scalar; the fused epilogue (bias add, activation) is applied to the finished value
// before the only store. The operand indexing is what differs, and it is all in the
// index functions below. On hosts with wide SIMD, a Gemm of one row by constant weights
// (a classifier) takes the packed kernel of conv_host_f32.h.
//
// On a core with an FPU (the target's `fpu` feature), a float32 product with a constant B
// (2-D) and rows of A in memory order takes four columns at a time instead: B packed at
// compile time four columns side by side, [k][4], and runtime-c/aotc_dot_f32.h's
// aotc_dot_f32_1x4 sums a row of A against them in FPU registers (each loaded element of A
// serves four products), each sum from zero in k order, as the plain loop adds them.
//
// Types: Gemm float32 and float64; MatMul also int32, int64, uint32 and uint64. Integer
// products wrap like numpy's: they are summed in uint64 (unsigned arithmetic wraps in C,
// where a signed overflow would be undefined) and the sum narrowed.
#include "lowering/ops/matmul.h"

#include <algorithm>
#include <cstring>

#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/host_simd/conv_host_f32.h"
#include "lowering/ops/fused_clamp.h"
#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

// Emits: for k in [0, depth): acc += a(k) * b(k) in the accumulator type of y; then
// Y[out_index] = finish(acc) in y's type, through the epilogue.
ir::Stmt dot_product(KernelBuilder& kb, const ir::Buffer& y, const std::vector<Expr>& out_index, int64_t depth,
                     const std::function<Expr(const Expr& k)>& a, const std::function<Expr(const Expr& k)>& b,
                     const std::function<Expr(const Expr& sum)>& finish) {
  ir::Var k = ir::make_var("k");
  Expr kx = ir::var_expr(k);
  DataType acc_type = product_sum_type(y->dtype);
  return with_accumulator("acc", ir::make_zero(acc_type), [&](const Accumulator& acc) {
    Expr product = ir::cast(acc_type, a(kx)) * ir::cast(acc_type, b(kx));
    return ir::seq({ir::for_loop(k, 0, depth, acc.set(acc.value() + product)),
                    ir::store(y, out_index, kb.epilogue(finish(ir::cast(y->dtype, acc.value())), out_index))});
  });
}

// Whether the float32 column blocks apply: an `fpu` target, float32 operands and a
// constant 2-D B.
bool column_blocks_apply(KernelBuilder& kb, const Tensor& a, const Tensor& b) {
  return kb.target().has("fpu") && a.dtype == DataType::Float32() && b.dtype == DataType::Float32() && b.is_constant() &&
         b.shape.size() == 2;
}

// For each row of A (the loop nest `rows`; `a_row` its first element's address) and each
// block of four columns of the constant B ([k, n], or [n, k] if trans_b), the four sums
// of aotc_dot_f32_1x4 over B packed [k][4] per block (zero past the last column); `store`
// writes one finished sum (row, column n).
ir::Stmt column_blocks(const Tensor& b, int64_t k, int64_t n, bool trans_b, const std::vector<int64_t>& rows,
                       const std::function<Expr(const std::vector<Expr>&)>& a_row,
                       const std::function<ir::Stmt(const std::vector<Expr>&, const Expr&, const Expr&)>& store) {
  constexpr int64_t kColumns = 4;
  int64_t blocks = (n + kColumns - 1) / kColumns;
  std::vector<float> packed;
  for (int64_t blk = 0; blk < blocks; ++blk)
    for (int64_t d = 0; d < k; ++d)
      for (int64_t j = 0; j < kColumns; ++j) {
        int64_t col = blk * kColumns + j;
        packed.push_back(col < n ? static_cast<float>(b.element_as_double(trans_b ? col * k + d : d * n + col)) : 0.0f);
      }
  std::vector<uint8_t> bytes(packed.size() * sizeof(float));
  std::memcpy(bytes.data(), packed.data(), bytes.size());
  // rows, then the column blocks; built whole, as gcc 12 warns falsely (-Warray-bounds)
  // on a copy of `rows` followed by push_back
  std::vector<int64_t> shape(rows.size() + 1, blocks);
  std::copy(rows.begin(), rows.end(), shape.begin());
  return ir::allocate_const("packed_b", DataType::Float32(), {blocks * k * kColumns}, std::move(bytes), [&](const ir::Buffer& w) {
    return ir::loop_nest(shape, {}, [&](const std::vector<Expr>& index) {
      std::vector<Expr> row(index.begin(), index.end() - 1);
      Expr blk = index.back();
      ir::Buffer acc = ir::make_buffer("acc", DataType::Float32(), {kColumns}, "local");
      std::vector<ir::Stmt> body;
      for (int64_t j = 0; j < kColumns; ++j) body.push_back(ir::store(acc, {j}, ir::make_float(0.0)));
      body.push_back(ir::evaluate(ir::dot_f32_1x4(a_row(row), ir::address_of(w, {blk * (k * kColumns)}), ir::make_int(k),
                                                  ir::address_of(acc, {0}))));
      for (int64_t j = 0; j < kColumns; ++j) {
        Expr col = blk * kColumns + j;
        ir::Stmt one = store(row, col, ir::load(acc, {j}));
        body.push_back(n % kColumns != 0 && j >= n % kColumns ? ir::if_then_else(col < ir::make_int(n), one) : one);
      }
      return ir::allocate(acc, ir::seq(body));
    });
  });
}

// Requires inputs 0 and 1 (and `more`) to have one type among `types`; returns it.
DataType require_same_type(const Graph& g, const Node& node, const std::vector<DataType>& types,
                           std::vector<size_t> more = {}) {
  DataType t = require_input(g, node, 0).dtype;
  bool allowed = false;
  std::string names;
  for (DataType u : types) {
    allowed = allowed || u == t;
    names += (names.empty() ? "" : ", ") + u.str();
  }
  if (!allowed) node_error(node, "input '" + g.tensor(node.inputs[0]).name + "' is " + t.str() + "; supported: " + names);
  more.insert(more.begin(), 1);
  for (size_t i : more) {
    if (node.input(i) == kNoTensor) continue;
    const Tensor& other = require_input(g, node, i);
    if (other.dtype != t)
      node_error(node, "input '" + other.name + "' is " + other.dtype.str() + " but '" + g.tensor(node.inputs[0]).name +
                           "' is " + t.str());
  }
  return t;
}

// ---------------------------------------------------------------- Gemm

struct GemmShape {
  int64_t m = 0, k = 0, n = 0;
  bool trans_a = false, trans_b = false;
};

bool read_flag(const Node& node, const std::string& name) {
  int64_t v = node.attr_int(name, 0);
  if (v != 0 && v != 1) node_error(node, name + " must be 0 or 1");
  return v == 1;
}

// C must broadcast to [M, N] without growing: each of its trailing dimensions is 1 or
// equal to the output's.
void check_gemm_bias(const Graph& g, const Node& node, int64_t m, int64_t n) {
  if (node.input(2) == kNoTensor) return;
  const Tensor& c = g.tensor(node.inputs[2]);
  std::vector<int64_t> target = {m, n};
  bool ok = c.shape.size() <= 2;
  for (size_t i = 0; ok && i < c.shape.size(); ++i) {
    int64_t want = target[2 - c.shape.size() + i];
    ok = c.shape[i] == 1 || c.shape[i] == want;
  }
  if (!ok)
    node_error(node, "C '" + c.name + "' has shape " + shape_str(c.shape) + ", which does not broadcast to " +
                         shape_str(target));
}

GemmShape gemm_shape(const Graph& g, const Node& node) {
  require_same_type(g, node, {DataType::Float32(), DataType::Float64()}, {2});
  const Tensor& a = g.tensor(node.inputs[0]);
  const Tensor& b = g.tensor(node.inputs[1]);
  if (a.shape.size() != 2 || b.shape.size() != 2)
    node_error(node, "A and B must be matrices; got " + shape_str(a.shape) + " and " + shape_str(b.shape));
  GemmShape s;
  s.trans_a = read_flag(node, "transA");
  s.trans_b = read_flag(node, "transB");
  s.m = s.trans_a ? a.shape[1] : a.shape[0];
  s.k = s.trans_a ? a.shape[0] : a.shape[1];
  int64_t b_depth = s.trans_b ? b.shape[1] : b.shape[0];
  s.n = s.trans_b ? b.shape[0] : b.shape[1];
  if (b_depth != s.k)
    node_error(node, "inner dimensions differ: A" + std::string(s.trans_a ? "'" : "") + " is " +
                         std::to_string(s.m) + "x" + std::to_string(s.k) + ", B" + (s.trans_b ? "'" : "") +
                         " is " + std::to_string(b_depth) + "x" + std::to_string(s.n));
  check_gemm_bias(g, node, s.m, s.n);
  return s;
}

void infer_gemm(Graph& g, Node& node) {
  GemmShape s = gemm_shape(g, node);
  set_output(g, node, 0, g.tensor(node.inputs[0]).dtype, {s.m, s.n});
}

LoweredOp lower_gemm(const Graph& g, const Node& node, KernelBuilder& kb) {
  GemmShape s = gemm_shape(g, node);
  // Hosts with wide SIMD: a fully connected layer over packed weights (conv_host_f32.h).
  if (host_f32_gemm_applies(g, node, kb)) {
    ir::Buffer a = kb.input(0, "A");
    ir::Buffer y = kb.output(0, "Y");
    return kb.finish(lower_host_f32_gemm(g, node, kb, a, y, leading_clamp(g, node)));
  }
  ir::Buffer a = kb.input(0, "A");
  ir::Buffer b = kb.input(1, "B");
  ir::Buffer c = node.input(2) != kNoTensor ? kb.input(2, "C") : nullptr;
  ir::Buffer y = kb.output(0, "Y");
  double alpha = node.attr_float("alpha", 1.0), beta = node.attr_float("beta", 1.0);
  auto finish_at = [&](const std::vector<Expr>& out_index, const Expr& sum) {
    Expr result = alpha == 1.0 ? sum : ir::make_float(alpha, sum.dtype()) * sum;
    if (!c) return result;
    Expr bias = broadcast_load(c, out_index);
    return result + (beta == 1.0 ? bias : ir::make_float(beta, bias.dtype()) * bias);
  };
  if (!s.trans_a && column_blocks_apply(kb, g.tensor(node.inputs[0]), g.tensor(node.inputs[1]))) {
    ir::Stmt body = column_blocks(
        g.tensor(node.inputs[1]), s.k, s.n, s.trans_b, {s.m}, [&](const std::vector<Expr>& row) { return ir::address_of(a, {row[0], 0}); },
        [&](const std::vector<Expr>& row, const Expr& col, const Expr& sum) {
          std::vector<Expr> out_index = {row[0], col};
          return ir::store(y, out_index, kb.epilogue(finish_at(out_index, sum), out_index));
        });
    return kb.finish(body);
  }

  ir::Stmt body = ir::loop_nest({s.m, s.n}, {"m", "n"}, [&](const std::vector<Expr>& out_index) {
    Expr m = out_index[0], n = out_index[1];
    auto a_at = [&](const Expr& k) { return ir::load(a, s.trans_a ? std::vector<Expr>{k, m} : std::vector<Expr>{m, k}); };
    auto b_at = [&](const Expr& k) { return ir::load(b, s.trans_b ? std::vector<Expr>{n, k} : std::vector<Expr>{k, n}); };
    auto finish = [&](const Expr& sum) {
      Expr result = alpha == 1.0 ? sum : ir::make_float(alpha, sum.dtype()) * sum;
      if (!c) return result;
      Expr bias = broadcast_load(c, out_index);
      return result + (beta == 1.0 ? bias : ir::make_float(beta, bias.dtype()) * bias);
    };
    return dot_product(kb, y, out_index, s.k, a_at, b_at, finish);
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- MatMul

const std::vector<DataType> kMatMulTypes = {DataType::Float32(), DataType::Float64(), DataType::Int(32),
                                            DataType::Int(64),   DataType::UInt(32),  DataType::UInt(64)};

MatMulShape typed_matmul_shape(const Graph& g, const Node& node) {
  require_same_type(g, node, kMatMulTypes);
  return matmul_shape(node, g.tensor(node.inputs[0]).shape, g.tensor(node.inputs[1]).shape);
}

void infer_matmul(Graph& g, Node& node) {
  MatMulShape s = typed_matmul_shape(g, node);
  set_output(g, node, 0, g.tensor(node.inputs[0]).dtype, s.output);
}

LoweredOp lower_matmul(const Graph& g, const Node& node, KernelBuilder& kb) {
  MatMulShape s = typed_matmul_shape(g, node);
  ir::Buffer a = kb.input(0, "A");
  ir::Buffer b = kb.input(1, "B");
  ir::Buffer y = kb.output(0, "Y");
  // A's rows (its leading dimensions, the output's but the last) against a constant 2-D B.
  if (column_blocks_apply(kb, g.tensor(node.inputs[0]), g.tensor(node.inputs[1]))) {
    std::vector<int64_t> rows(s.output.begin(), s.output.end() - 1);
    ir::Stmt body = column_blocks(
        g.tensor(node.inputs[1]), s.k, s.n, false, rows,
        [&](const std::vector<Expr>& row) {
          std::vector<Expr> at = row;
          at.push_back(0);
          return ir::address_of(a, at);
        },
        [&](const std::vector<Expr>& row, const Expr& col, const Expr& sum) {
          std::vector<Expr> out_index = row;
          out_index.push_back(col);
          return ir::store(y, out_index, kb.epilogue(sum, out_index));
        });
    return kb.finish(body);
  }

  ir::Stmt body = for_each_product_element(s, [&](const std::vector<Expr>& out_index, const std::vector<Expr>& batch,
                                                  const Expr& m, const Expr& n) {
    auto a_at = [&](const Expr& k) { return ir::load(a, matmul_operand_index(a, s.a_is_vector, batch, m, k, k)); };
    auto b_at = [&](const Expr& k) { return ir::load(b, matmul_operand_index(b, s.b_is_vector, batch, k, n, k)); };
    return dot_product(kb, y, out_index, s.k, a_at, b_at, [](const Expr& sum) { return sum; });
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("Gemm", kernel_op(infer_gemm, lower_gemm).with({Role::kAnchor}));
AOTC_REGISTER_OP("MatMul", kernel_op(infer_matmul, lower_matmul).with({Role::kAnchor}));

}  // namespace

MatMulShape matmul_shape(const Node& node, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.empty() || b.empty()) node_error(node, "matrix product operands must have at least one dimension");
  auto batch_dims = [](const std::vector<int64_t>& shape) {
    return shape.size() <= 2 ? std::vector<int64_t>{} : std::vector<int64_t>(shape.begin(), shape.end() - 2);
  };
  MatMulShape s;
  s.a_is_vector = a.size() == 1;
  s.b_is_vector = b.size() == 1;
  s.m = s.a_is_vector ? 1 : a[a.size() - 2];
  s.k = a.back();
  int64_t b_depth = s.b_is_vector ? b[0] : b[b.size() - 2];
  s.n = s.b_is_vector ? 1 : b.back();
  if (b_depth != s.k) node_error(node, "inner dimensions differ: " + shape_str(a) + " x " + shape_str(b));
  s.batch = broadcast_shapes(node, batch_dims(a), batch_dims(b));
  s.output = s.batch;
  if (!s.a_is_vector) s.output.push_back(s.m);
  if (!s.b_is_vector) s.output.push_back(s.n);
  return s;
}

std::vector<Expr> matmul_operand_index(const ir::Buffer& operand, bool is_vector, const std::vector<Expr>& batch,
                                       const Expr& row, const Expr& col, const Expr& vector_position) {
  if (is_vector) return {vector_position};
  std::vector<Expr> index;
  size_t operand_batch = operand->shape.size() - 2;
  for (size_t i = 0; i < operand_batch; ++i) {
    Expr out = batch[batch.size() - operand_batch + i];
    index.push_back(operand->shape[i] == 1 ? Expr(0) : out);
  }
  index.push_back(row);
  index.push_back(col);
  return index;
}

ir::Stmt for_each_product_element(
    const MatMulShape& s,
    const std::function<ir::Stmt(const std::vector<Expr>& out_index, const std::vector<Expr>& batch, const Expr& m,
                                 const Expr& n)>& body) {
  std::vector<std::string> names;
  for (size_t i = 0; i < s.batch.size(); ++i) names.push_back(s.batch.size() == 1 ? "batch" : "b" + std::to_string(i));
  if (!s.a_is_vector) names.push_back("m");
  if (!s.b_is_vector) names.push_back("n");
  // A scalar output (vector . vector) is stored as a one-element buffer.
  std::vector<int64_t> loop_shape = s.output.empty() ? std::vector<int64_t>{1} : s.output;
  return ir::loop_nest(loop_shape, names, [&](const std::vector<Expr>& out_index) {
    std::vector<Expr> batch(out_index.begin(), out_index.begin() + static_cast<std::ptrdiff_t>(s.batch.size()));
    size_t next = s.batch.size();
    Expr m = s.a_is_vector ? Expr(0) : out_index[next++];
    Expr n = s.b_is_vector ? Expr(0) : out_index[next++];
    return body(out_index, batch, m, n);
  });
}

DataType product_sum_type(DataType t) { return t.is_float() ? t : DataType::UInt(64); }

}  // namespace aotc
