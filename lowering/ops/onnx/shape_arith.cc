// Operators that make tensors from shapes and scalars: Shape, Size, ConstantOfShape and
// Range.
//
// Shape and Size read only their input's shape, which is static: they declare
// reads_only_shapes, and infer_shapes makes their outputs constants right away, so that
// the shape arithmetic exporters build on them (Gather, Unsqueeze, Concat, Add, ...) folds
// into the constant operands that Reshape, Expand, Slice or Resize need. Only a Shape or
// Size whose result is a graph output keeps a kernel, which stores the known values.
// ConstantOfShape and Range take their shape (their scalars) as compile-time constants.
#include <algorithm>
#include <cmath>

#include "lowering/compute/data_movement.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

// Value i of `t` (a constant) as an immediate of its type.
Expr immediate(const Tensor& t, int64_t i) {
  return t.dtype.is_float() ? ir::make_float(t.element_as_double(i), t.dtype) : ir::make_int(t.element_as_int(i), t.dtype);
}

// A kernel that stores `values` (int64) into output 0, of shape `shape`.
LoweredOp store_values(KernelBuilder& kb, const std::vector<int64_t>& values) {
  ir::Buffer y = kb.output(0, "Y");
  std::vector<ir::Stmt> stores;
  for (size_t i = 0; i < values.size(); ++i)
    stores.push_back(ir::store(y, {ir::make_int(static_cast<int64_t>(i))}, ir::make_int(values[i], DataType::Int(64))));
  return kb.finish(ir::seq(stores));
}

// ---------------------------------------------------------------- Shape, Size

// The dimensions [start, end) of the input's shape; start and end (opset 15) count from
// the back when negative and are clamped to [0, rank].
std::vector<int64_t> shape_values(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  int64_t start = clamp(node.attr_int("start", 0)), end = clamp(node.attr_int("end", rank));
  if (end <= start)
    node_error(node, "the shape slice [" + std::to_string(start) + ", " + std::to_string(end) + ") of a rank-" +
                         std::to_string(rank) + " input has no elements; tensors without elements are not supported");
  return std::vector<int64_t>(x.shape.begin() + start, x.shape.begin() + end);
}

void infer_shape(Graph& g, Node& node) {
  std::vector<int64_t> values = shape_values(g, node);
  set_output(g, node, 0, DataType::Int(64), {static_cast<int64_t>(values.size())});
}

LoweredOp lower_shape(const Graph& g, const Node& node, KernelBuilder& kb) {
  return store_values(kb, shape_values(g, node));
}

void infer_size(Graph& g, Node& node) {
  require_input(g, node, 0);
  set_output(g, node, 0, DataType::Int(64), {});
}

LoweredOp lower_size(const Graph& g, const Node& node, KernelBuilder& kb) {
  return store_values(kb, {g.tensor(node.inputs[0]).num_elements()});
}

OpDef shape_query(InferFn infer, BuilderLowerFn lower) {
  OpDef def = kernel_op(std::move(infer), std::move(lower));
  def.reads_only_shapes = true;
  return def;
}

// ---------------------------------------------------------------- ConstantOfShape

// The fill value: the `value` attribute (one element of any type), float32 0 without it.
Tensor fill_value(const Node& node) {
  if (const Tensor* value = node.attr_tensor("value")) {
    if (value->num_elements() != 1)
      node_error(node, "the value attribute must hold one element, got shape " + shape_str(value->shape));
    return *value;
  }
  Tensor zero;
  zero.dtype = DataType::Float32();
  zero.shape = {1};
  zero.data = std::vector<uint8_t>(4, 0);
  return zero;
}

void infer_constant_of_shape(Graph& g, Node& node) {
  std::vector<int64_t> shape = constant_ints(g, node, 0, "shape");
  for (int64_t d : shape)
    if (d < 0) node_error(node, "the shape " + shape_str(shape) + " has a negative dimension");
  require_elements(node, shape);
  set_output(g, node, 0, fill_value(node).dtype, shape);
}

LoweredOp lower_constant_of_shape(const Graph& g, const Node& node, KernelBuilder& kb) {
  const Tensor& y_tensor = g.tensor(node.outputs[0]);
  Expr value = immediate(fill_value(node), 0);
  ir::Buffer y = kb.output(0, "Y");
  return kb.finish(for_each_element(y_tensor.shape, [&](const std::vector<Expr>& i) { return store_element(y, i, value); }));
}

// ---------------------------------------------------------------- Range

struct RangePlan {
  const Tensor* start;
  const Tensor* delta;
  int64_t count;
};

// start, limit and delta are constant scalars of one type; the output has
// max(ceil((limit - start) / delta), 0) elements start + i delta.
RangePlan plan_range(const Graph& g, const Node& node) {
  const char* names[] = {"start", "limit", "delta"};
  const Tensor* operands[3];
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& t = require_input(g, node, i);
    if (!t.is_constant()) node_error(node, std::string(names[i]) + " must be a compile-time constant (static shapes only)");
    if (t.num_elements() != 1) node_error(node, std::string(names[i]) + " must be a scalar, got " + shape_str(t.shape));
    if (t.dtype != g.tensor(node.inputs[0]).dtype)
      node_error(node, "start, limit and delta have different types");
    DataType type = t.dtype;
    if (type != DataType::Float32() && type != DataType::Float64() && type != DataType::Int(16) &&
        type != DataType::Int(32) && type != DataType::Int(64))
      node_error(node, "Range takes float32, float64, int16, int32 or int64, not " + type.str());
    operands[i] = &t;
  }
  const Tensor& start = *operands[0];
  const Tensor& limit = *operands[1];
  const Tensor& delta = *operands[2];
  int64_t count = 0;
  if (start.dtype.is_float()) {
    double d = delta.element_as_double(0);
    if (d == 0 || !std::isfinite(d)) node_error(node, "delta must be finite and nonzero");
    double n = std::ceil((limit.element_as_double(0) - start.element_as_double(0)) / d);
    if (!(n < 1e9)) node_error(node, "the range would have too many elements");
    count = n > 0 ? static_cast<int64_t>(n) : 0;
  } else {
    int64_t d = delta.element_as_int(0), from = start.element_as_int(0), to = limit.element_as_int(0);
    if (d == 0) node_error(node, "delta must be nonzero");
    if (d > 0 ? to > from : to < from) {
      // In uint64: limit - start and |delta| may not fit int64.
      uint64_t distance = d > 0 ? static_cast<uint64_t>(to) - static_cast<uint64_t>(from)
                                : static_cast<uint64_t>(from) - static_cast<uint64_t>(to);
      uint64_t step = d > 0 ? static_cast<uint64_t>(d) : uint64_t{0} - static_cast<uint64_t>(d);
      uint64_t n = (distance - 1) / step + 1;
      if (n >= 1000000000) node_error(node, "the range would have too many elements");
      count = static_cast<int64_t>(n);
    }
  }
  if (count == 0) node_error(node, "the range is empty; tensors without elements are not supported");
  return {&start, &delta, count};
}

void infer_range(Graph& g, Node& node) {
  RangePlan plan = plan_range(g, node);
  set_output(g, node, 0, plan.start->dtype, {plan.count});
}

LoweredOp lower_range(const Graph& g, const Node& node, KernelBuilder& kb) {
  RangePlan plan = plan_range(g, node);
  ir::Buffer y = kb.output(0, "Y");
  DataType t = plan.start->dtype;
  return kb.finish(ir::loop_nest({plan.count}, {"i"}, [&](const std::vector<Expr>& i) {
    // Integers wrap on the way (i * delta may leave the type), never in the result.
    return ir::store(y, i, wrapping_add(immediate(*plan.start, 0), wrapping_mul(ir::cast(t, i[0]), immediate(*plan.delta, 0))));
  }));
}

AOTC_REGISTER_OP("Shape", shape_query(infer_shape, lower_shape));
AOTC_REGISTER_OP("Size", shape_query(infer_size, lower_size));
AOTC_REGISTER_OP("ConstantOfShape", kernel_op(infer_constant_of_shape, lower_constant_of_shape));
AOTC_REGISTER_OP("Range", kernel_op(infer_range, lower_range));

}  // namespace
}  // namespace aotc
