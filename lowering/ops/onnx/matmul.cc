// Matrix products: Gemm (alpha * A' * B' + beta * C, with optional transposes and a C
// broadcast to [M, N]) and MatMul (numpy matmul: 1-D operands and broadcast batch
// dimensions, matmul.h).
//
// A float32 product with a constant matrix B is a fully connected layer: a Gemm with A
// not transposed and a C of one value per output column, of one value, or none (alpha and
// beta become the problem's sum and bias scales); a MatMul whose B is 2-D (A's rows, its leading dimensions, are the
// layer's batches). It is described as an FcProblem and takes the kernel strategy's choice
// (lowering/kernels/fc_kernels.h): FPU register blocks over B packed at compile time on a
// microcontroller with an FPU, a packed SIMD kernel on a host, else the generic loop.
//
// The others lower to one dot-product reduction per output element, accumulated in a local
// scalar; the fused epilogue (bias add, activation) is applied to the finished value
// before the only store. The operand indexing is what differs, and it is all in the
// index functions below.
//
// Types: Gemm float32 and float64; MatMul also int32, int64, uint32 and uint64. Integer
// products wrap like numpy's: they are summed in uint64 (unsigned arithmetic wraps in C,
// where a signed overflow would be undefined) and the sum narrowed.
#include "lowering/compute/matmul.h"

#include <algorithm>
#include <optional>

#include "lowering/ir/runtime_calls.h"
#include "lowering/kernels/fc_kernels.h"
#include "lowering/ops/onnx/fused_clamp.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"
#include "lowering/compute/reduction.h"

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

// The fully connected layer of a float32 product whose B is a constant matrix [k, n] (or
// [n, k] when trans_b), A's rows its batches; `bias` a C of n values or of one, or none.
std::optional<FcProblem> float_fully_connected(const Graph& g, const Node& node, int64_t k, int64_t n, bool trans_b,
                                               TensorId bias) {
  const Tensor& a = g.tensor(node.inputs[0]);
  const Tensor& b = g.tensor(node.inputs[1]);
  const Tensor& y = g.tensor(node.outputs[0]);
  if (a.dtype != DataType::Float32() || b.dtype != DataType::Float32() || !b.is_constant() || b.shape.size() != 2)
    return std::nullopt;
  FcProblem p;
  p.geometry = {y.num_elements() / n, k, n};
  p.input = node.inputs[0];
  p.filter = node.inputs[1];
  p.output = node.outputs[0];
  p.filter_depth_major = !trans_b;
  p.float32_constant_filter = true;
  if (bias != kNoTensor) {
    const Tensor& c = g.tensor(bias);
    p.bias = bias;
    p.bias_scalar = c.num_elements() == 1;
    p.bias_constant = c.is_constant();
  }
  if (y.shape.size() != 2) p.output_shape = y.shape;
  p.clamp = leading_clamp(g, node);
  p.planned_input = std::find(g.inputs.begin(), g.inputs.end(), p.input) == g.inputs.end();
  return p;
}

LoweredOp build_float_fully_connected(KernelBuilder& kb, FcProblem p) {
  FloatConvArithmetic arithmetic;
  p.arithmetic = &arithmetic;
  return build_fc_kernel(kb, p);
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
  double alpha = node.attr_float("alpha", 1.0), beta = node.attr_float("beta", 1.0);
  TensorId c_id = node.input(2);
  // C of one value, or of one value per column ([N] or [1, N]; not an [M, 1] column).
  auto per_column = [&](const Tensor& c) {
    return c.num_elements() == 1 || (c.num_elements() == s.n && c.shape.back() == s.n);
  };
  if (!s.trans_a && (c_id == kNoTensor || per_column(g.tensor(c_id)))) {
    if (auto fc = float_fully_connected(g, node, s.k, s.n, s.trans_b, c_id)) {
      fc->sum_scale = alpha;
      fc->bias_scale = beta;
      return build_float_fully_connected(kb, *fc);
    }
  }
  ir::Buffer a = kb.input(0, "A");
  ir::Buffer b = kb.input(1, "B");
  ir::Buffer c = node.input(2) != kNoTensor ? kb.input(2, "C") : nullptr;
  ir::Buffer y = kb.output(0, "Y");

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
  if (!s.b_is_vector) {
    if (auto fc = float_fully_connected(g, node, s.k, s.n, false, kNoTensor)) return build_float_fully_connected(kb, *fc);
  }
  ir::Buffer a = kb.input(0, "A");
  ir::Buffer b = kb.input(1, "B");
  ir::Buffer y = kb.output(0, "Y");
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
}  // namespace aotc
