// ONNX's integer operators of dynamic quantization: MatMulInteger and ConvInteger (8-bit
// operands minus their zero points, products summed into an int32 output, no
// requantization) and DynamicQuantizeLinear (float32 to uint8 with a scale and zero point
// computed at run time from the data).
//
// A dynamically quantized model computes the activations' zero point at run time
// (DynamicQuantizeLinear -> MatMulInteger), so zero points may be run-time tensors here,
// unlike the scales of the QLinear operators (onnx_quant.cc). A zero point is per tensor
// (one element) or, for MatMulInteger, per row of A / per column of B, for ConvInteger per
// output channel of w; a constant one that is the same everywhere becomes an immediate.
//
// Sums are int32, as ONNX defines the output. A sum that could leave the int32 range for
// some inputs (255 * 255 per product: more than 33,025 products per output element) is
// summed in int64 and narrowed, so that no input can make the generated C overflow a
// signed integer.
#include <algorithm>
#include <cmath>
#include <limits>

#include "lowering/kernels/conv_kernels.h"
#include "aot/graph/op_registry.h"
#include "lowering/compute/convolution.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/matmul.h"
#include "lowering/compute/reduction.h"
#include "lowering/compute/window.h"

namespace aotc {
namespace {

using ir::Expr;

bool is_8bit(DataType t) { return (t.is_int() || t.is_uint()) && t.bits == 8; }

void require_8bit(const Graph& g, const Node& node, size_t index) {
  const Tensor& t = require_input(g, node, index);
  if (!is_8bit(t.dtype)) node_error(node, "input '" + t.name + "' is " + t.dtype.str() + "; expected int8 or uint8");
}

// The zero point at input `index` for the values at input `values`: absent, or of the
// values' type. Returns its element count (1 when absent).
int64_t check_zero_point(const Graph& g, const Node& node, size_t index, size_t values) {
  if (node.input(index) == kNoTensor) return 1;
  const Tensor& zp = require_input(g, node, index);
  const Tensor& v = g.tensor(node.inputs[values]);
  if (zp.dtype != v.dtype)
    node_error(node, "zero point '" + zp.name + "' is " + zp.dtype.str() + " but '" + v.name + "' is " + v.dtype.str());
  return zp.num_elements();
}

// The sum's type: int32 unless `terms` products of 8-bit values minus zero points (each
// at most 255 * 255 in magnitude) could leave its range.
DataType sum_type(int64_t terms) {
  return terms <= std::numeric_limits<int32_t>::max() / (255 * 255) ? DataType::Int(32) : DataType::Int(64);
}

// `value` - zero point in int32; `zero_point` is empty when there is none.
Expr centered(const Expr& value, const Expr& zero_point) {
  Expr widened = ir::cast(DataType::Int(32), value);
  if (!zero_point) return widened;
  if (auto* imm = zero_point.as<ir::IntImmNode>(); imm && imm->value == 0) return widened;
  return widened - ir::cast(DataType::Int(32), zero_point);
}

// A zero point's value for element `index` of its own shape: an immediate when it is a
// constant that is the same everywhere, else a load.
Expr zero_point_at(KernelBuilder& kb, const Node& node, size_t input, const std::string& name,
                   const std::vector<Expr>& index) {
  TensorId id = node.input(input);
  if (id == kNoTensor) return Expr();
  const Tensor& zp = kb.graph().tensor(id);
  if (zp.is_constant()) {
    std::vector<int64_t> values = zp.ints();
    if (std::all_of(values.begin(), values.end(), [&](int64_t v) { return v == values[0]; }))
      return ir::make_int(values[0], DataType::Int(32));
  }
  ir::Buffer buffer = kb.tensor_param(id, name);
  if (zp.num_elements() == 1) return ir::load(buffer, std::vector<Expr>(buffer->shape.size(), Expr(0)));
  return broadcast_load(buffer, index);
}

// ---------------------------------------------------------------- MatMulInteger

// Inputs: A, B, a_zero_point, b_zero_point. a_zero_point is a scalar, [M] for a matrix A,
// or A's shape with K replaced by 1; b_zero_point a scalar, [N], or B's shape with K
// replaced by 1.
MatMulShape integer_matmul_shape(const Graph& g, const Node& node) {
  require_8bit(g, node, 0);
  require_8bit(g, node, 1);
  const std::vector<int64_t>& a = g.tensor(node.inputs[0]).shape;
  const std::vector<int64_t>& b = g.tensor(node.inputs[1]).shape;
  MatMulShape s = matmul_shape(node, a, b);
  int64_t a_count = check_zero_point(g, node, 2, 0), b_count = check_zero_point(g, node, 3, 1);
  if (a_count != 1) {
    const std::vector<int64_t>& zp = g.tensor(node.inputs[2]).shape;
    std::vector<int64_t> per_row = a;
    if (!per_row.empty()) per_row.back() = 1;
    bool ok = (zp == std::vector<int64_t>{s.m} && a.size() == 2) || (zp == per_row && a.size() >= 2);
    if (!ok)
      node_error(node, "a_zero_point has shape " + shape_str(zp) + "; expected one element, one per row of A " +
                           shape_str(a) + " or " + shape_str(per_row));
  }
  if (b_count != 1) {
    const std::vector<int64_t>& zp = g.tensor(node.inputs[3]).shape;
    std::vector<int64_t> per_column = b;
    if (b.size() >= 2) per_column[b.size() - 2] = 1;
    bool ok = (zp == std::vector<int64_t>{s.n} && !s.b_is_vector) || (zp == per_column && b.size() >= 2);
    if (!ok)
      node_error(node, "b_zero_point has shape " + shape_str(zp) + "; expected one element, one per column of B " +
                           shape_str(b) + " or " + shape_str(per_column));
  }
  return s;
}

void infer_matmul_integer(Graph& g, Node& node) {
  MatMulShape s = integer_matmul_shape(g, node);
  set_output(g, node, 0, DataType::Int(32), s.output);
}

LoweredOp lower_matmul_integer(const Graph& g, const Node& node, KernelBuilder& kb) {
  MatMulShape s = integer_matmul_shape(g, node);
  ir::Buffer a = kb.input(0, "A");
  ir::Buffer b = kb.input(1, "B");
  DataType acc_type = sum_type(s.k);

  ir::Stmt body = for_each_product_element(s, [&](const std::vector<Expr>& out_index, const std::vector<Expr>& batch,
                                                  const Expr& m, const Expr& n) {
    // A 1-D zero point of a matrix operand is per row (A) or per column (B); any other
    // indexes like its operand, the K axis being 1.
    auto a_zero_point = [&](const Expr& k) {
      TensorId id = node.input(2);
      if (id != kNoTensor && g.tensor(id).shape.size() == 1 && g.tensor(id).num_elements() > 1)
        return zero_point_at(kb, node, 2, "a_zero_point", {m});
      return zero_point_at(kb, node, 2, "a_zero_point", matmul_operand_index(a, s.a_is_vector, batch, m, k, k));
    };
    auto b_zero_point = [&](const Expr& k) {
      return zero_point_at(kb, node, 3, "b_zero_point", matmul_operand_index(b, s.b_is_vector, batch, k, n, k));
    };
    ir::Var k_var = ir::make_var("k");
    Expr k = ir::var_expr(k_var);
    Expr a_term = centered(ir::load(a, matmul_operand_index(a, s.a_is_vector, batch, m, k, k)), a_zero_point(k));
    Expr b_term = centered(ir::load(b, matmul_operand_index(b, s.b_is_vector, batch, k, n, k)), b_zero_point(k));
    return with_accumulator("acc", ir::make_zero(acc_type), [&](const Accumulator& acc) {
      Expr product = ir::cast(acc_type, a_term * b_term);
      return ir::seq({ir::for_loop(k_var, 0, s.k, acc.set(acc.value() + product)),
                      ir::store(kb.output(0, "Y"), out_index, ir::cast(DataType::Int(32), acc.value()))});
    });
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- ConvInteger

// Inputs: x, w, x_zero_point (one element), w_zero_point (one element or one per output
// channel). Attributes as Conv's.
ConvGeometry integer_conv_geometry(const Graph& g, const Node& node) {
  require_8bit(g, node, 0);
  require_8bit(g, node, 1);
  ConvGeometry geo = onnx_conv_geometry(node, g.tensor(node.inputs[0]), g.tensor(node.inputs[1]));
  if (check_zero_point(g, node, 2, 0) != 1) node_error(node, "x_zero_point must have one element");
  int64_t w_count = check_zero_point(g, node, 3, 1);
  if (w_count != 1 && (w_count != geo.out_channels || g.tensor(node.inputs[3]).shape.size() != 1))
    node_error(node, "w_zero_point has shape " + shape_str(g.tensor(node.inputs[3]).shape) +
                         "; expected one element or [" + std::to_string(geo.out_channels) + "]");
  return geo;
}

void infer_conv_integer(Graph& g, Node& node) {
  ConvGeometry geo = integer_conv_geometry(g, node);
  set_output(g, node, 0, DataType::Int(32), geo.output_shape());
}

// Terms (x - x_zero_point) and (w - w_zero_point[oc]), summed as they are. Padding is
// x's zero point, a term of 0: the shared kernel skips padded taps, which is the same.
class IntegerConvArithmetic : public ConvArithmetic {
 public:
  IntegerConvArithmetic(DataType sum, Expr x_zero_point, std::function<Expr(const Expr&)> w_zero_point)
      : sum_(sum), x_zero_point_(std::move(x_zero_point)), w_zero_point_(std::move(w_zero_point)) {}
  DataType accumulator() const override { return sum_; }
  Expr input_term(const Expr& x) const override { return ir::cast(sum_, centered(x, x_zero_point_)); }
  Expr filter_term(const Expr& w, const Expr& oc) const override {
    return ir::cast(sum_, centered(w, w_zero_point_(oc)));
  }
  Expr output(const Expr& sum, const Expr&) const override { return ir::cast(DataType::Int(32), sum); }
  // A centred 8-bit value fits in int16.
  DataType staged_type(DataType) const override { return DataType::Int(16); }

 private:
  DataType sum_;
  Expr x_zero_point_;
  std::function<Expr(const Expr&)> w_zero_point_;
};

// A ConvProblem for the kernel strategy (lowering/kernels/conv_kernels.h); with run-time
// zero points and an int32 result no register-block kernel applies, so it takes the
// generic loops ("portable.conv").
LoweredOp lower_conv_integer(const Graph& g, const Node& node, KernelBuilder& kb) {
  ConvProblem p;
  p.geometry = integer_conv_geometry(g, node);
  int64_t terms = p.geometry.in_per_group();
  for (const WindowAxis& axis : p.geometry.axes) terms *= axis.kernel;
  Expr x_zero_point = zero_point_at(kb, node, 2, "x_zero_point", {});
  IntegerConvArithmetic arithmetic(sum_type(terms), x_zero_point, [&kb, &node](const Expr& oc) {
    return zero_point_at(kb, node, 3, "w_zero_point", {oc});
  });
  p.arithmetic = &arithmetic;
  p.input = node.inputs[0];
  p.filter = node.inputs[1];
  p.output = node.outputs[0];
  p.input_name = "x", p.filter_name = "w", p.output_name = "y";
  return build_conv_kernel(kb, p);
}

// ---------------------------------------------------------------- DynamicQuantizeLinear

// y, y_scale, y_zero_point = DynamicQuantizeLinear(x), all in float32 as ONNX defines it:
//   lo = min(0, min(x)), hi = max(0, max(x)), y_scale = (hi - lo) / 255,
//   y_zero_point = saturate(round_half_even(0 - lo / y_scale)),
//   y = saturate(round_half_even(x / y_scale) + y_zero_point)
// with uint8 saturation. An input of zeros only (hi == lo) gets y_scale 1 instead of a
// division by zero, as ONNX Runtime computes it. Rounding and clamping happen in float,
// and a NaN clamps to 0, so no float-to-integer conversion can be out of range in C.
void infer_dynamic_quantize_linear(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.dtype != DataType::Float32()) node_error(node, "input '" + x.name + "' is " + x.dtype.str() + "; expected float32");
  std::vector<int64_t> shape = x.shape;
  set_output(g, node, 0, DataType::UInt(8), shape);
  if (node.outputs.size() > 1 && node.outputs[1] != kNoTensor) set_output(g, node, 1, DataType::Float32(), {});
  if (node.outputs.size() > 2 && node.outputs[2] != kNoTensor) set_output(g, node, 2, DataType::UInt(8), {});
}

// round_half_even(v) + offset (a whole number) clamped to [0, 255], as a float; NaN
// gives 0 (ir::max(0, NaN) is 0). Rounding comes first: round(2.5) + 1 is 3, where
// round(2.5 + 1) would be 4.
Expr round_and_saturate(const Expr& v, const Expr& offset) {
  Expr lo = ir::make_float(0.0), hi = ir::make_float(255.0);
  return ir::min(ir::max(lo, ir::call("nearbyintf", {v}, DataType::Float32()) + offset), hi);
}

LoweredOp lower_dynamic_quantize_linear(const Graph& g, const Node& node, KernelBuilder& kb) {
  const Tensor& x_tensor = g.tensor(node.inputs[0]);
  std::vector<int64_t> shape = x_tensor.shape.empty() ? std::vector<int64_t>{1} : x_tensor.shape;
  ir::Buffer x = kb.input(0, "x");
  ir::Buffer y = kb.output(0, "y");
  ir::Buffer y_scale = node.outputs.size() > 1 && node.outputs[1] != kNoTensor ? kb.output(1, "y_scale") : nullptr;
  ir::Buffer y_zero_point =
      node.outputs.size() > 2 && node.outputs[2] != kNoTensor ? kb.output(2, "y_zero_point") : nullptr;
  DataType f32 = DataType::Float32();

  // lo and hi start at 0: the range always includes zero.
  ir::Stmt body = with_accumulator("lo", ir::make_float(0.0), [&](const Accumulator& lo) {
    return with_accumulator("hi", ir::make_float(0.0), [&](const Accumulator& hi) {
      ir::Stmt range = ir::loop_nest(shape, {}, [&](const std::vector<Expr>& i) {
        Expr v = ir::load(x, i);
        return ir::seq({lo.set(ir::min(lo.value(), v)), hi.set(ir::max(hi.value(), v))});
      });
      ir::Var scale_var = ir::make_var("scale", f32), zero_point_var = ir::make_var("zero_point", f32);
      Expr scale = ir::var_expr(scale_var), zero_point = ir::var_expr(zero_point_var);
      Expr computed_scale =
          ir::select(hi.value() == lo.value(), ir::make_float(1.0), (hi.value() - lo.value()) / ir::make_float(255.0));
      std::vector<ir::Stmt> stores;
      if (y_scale) stores.push_back(ir::store(y_scale, {0}, scale));
      if (y_zero_point)
        stores.push_back(ir::store(y_zero_point, {0}, ir::cast(DataType::UInt(8), ir::cast(DataType::Int(32), zero_point))));
      stores.push_back(ir::loop_nest(shape, {}, [&](const std::vector<Expr>& i) {
        Expr q = round_and_saturate(ir::load(x, i) / scale, zero_point);
        return ir::store(y, i, ir::cast(DataType::UInt(8), ir::cast(DataType::Int(32), q)));
      }));
      Expr computed_zero_point = round_and_saturate(ir::make_float(0.0) - lo.value() / scale, ir::make_float(0.0));
      return ir::seq({range, ir::let(scale_var, computed_scale,
                                     ir::let(zero_point_var, computed_zero_point, ir::seq(stores)))});
    });
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("MatMulInteger", kernel_op(infer_matmul_integer, lower_matmul_integer));
AOTC_REGISTER_OP("ConvInteger", kernel_op(infer_conv_integer, lower_conv_integer));
AOTC_REGISTER_OP("DynamicQuantizeLinear", kernel_op(infer_dynamic_quantize_linear, lower_dynamic_quantize_linear));

}  // namespace
}  // namespace aotc
