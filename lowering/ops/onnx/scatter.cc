// Operators that write their updates at positions given by indices: ScatterElements (and
// Scatter, its deprecated name), ScatterND and MaxUnpool.
//
// The output is the data (zeros for MaxUnpool) with the updates written over it, one at a
// time in the order of the updates, so that with repeated indices the last one wins, as
// in ONNX's reference. Since opset 16 (ScatterElements, ScatterND) the `reduction`
// attribute combines an update with the element already there instead: add, mul, and
// (opset 18) max, min.
//
// Indices are usually constants (checked at compile time); run-time indices are checked
// before anything is written, and one out of range makes the kernel return
// AOTC_ERR_INVALID_ARGUMENT. The output may take the data's memory: the copy reads each
// element before writing it, and the scatter reads only the output and the updates.
#include <algorithm>

#include "lowering/compute/data_movement.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/window.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

// The element written at a scattered position, from the one there and the update, as
// numpy computes it: integers wrap (a signed overflow in C would be undefined), max and
// min propagate NaN.
Expr combine(const Node& node, Expr current, Expr update) {
  std::string reduction = node.attr_string("reduction", "none");
  if (reduction == "add") return wrapping_add(current, update);
  if (reduction == "mul") return wrapping_mul(current, update);
  if (reduction == "max") return nan_max(current, update);
  if (reduction == "min") return nan_min(current, update);
  return update;
}

void check_reduction(const Node& node, DataType dtype) {
  std::string reduction = node.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
    node_error(node, "reduction '" + reduction + "' is not none, add, mul, max or min");
  if (reduction != "none" && dtype.is_bool()) node_error(node, "reduction '" + reduction + "' does not apply to bool");
}

// y[i] = x[i] for every element.
ir::Stmt copy_all(const std::vector<int64_t>& shape, const ir::Buffer& x, const ir::Buffer& y) {
  return for_each_element(shape, [&](const std::vector<Expr>& i) { return store_element(y, i, element(x, i)); });
}

// The kernel of ScatterElements and ScatterND (lower_indexed): data copied to the output,
// then each update combined into the output at the position `indexing` gives for it.
LoweredOp lower_indexed_update(const Graph& g, const Node& node, KernelBuilder& kb, const Indexing& indexing) {
  return lower_indexed(kb, true, indexing, [&](const IndexedParams& p) {
    kb.allow_in_place(node.inputs[0]);
    ir::Stmt scatter = for_each_element(g.tensor(node.inputs[2]).shape, [&](const std::vector<Expr>& u) {
      std::vector<Expr> at = indexing.position(p.indices, u);
      return store_element(p.y, at, combine(node, element(p.y, at), element(p.updates, u)));
    });
    return ir::seq({copy_all(g.tensor(node.inputs[0]).shape, p.data, p.y), scatter});
  });
}

// ---------------------------------------------------------------- ScatterElements, Scatter

// indices and updates share one shape, of data's rank: update i goes to position i of
// data with i[axis] replaced by indices[i].
void infer_scatter_elements(Graph& g, Node& node) {
  const Tensor& data = require_input(g, node, 0);
  const Tensor& indices = require_index_tensor(g, node, 1);
  const Tensor& updates = require_input(g, node, 2);
  if (updates.dtype != data.dtype) node_error(node, "updates are " + updates.dtype.str() + " but data is " + data.dtype.str());
  if (indices.shape != updates.shape)
    node_error(node, "indices " + shape_str(indices.shape) + " and updates " + shape_str(updates.shape) + " differ in shape");
  elements_axis(node, data, indices);
  check_reduction(node, data.dtype);
  set_output(g, node, 0, data.dtype, data.shape);
}

LoweredOp lower_scatter_elements(const Graph& g, const Node& node, KernelBuilder& kb) {
  return lower_indexed_update(g, node, kb, elements_indexing(g, node));
}

// ---------------------------------------------------------------- ScatterND

// indices [i0, ..., i(q-2), k]: each row of k indices names an element (k = rank) or a
// slice of data, which the matching update (updates: indices.shape[:-1] + data.shape[k:])
// replaces.
size_t scatter_nd_depth(const Graph& g, const Node& node) {
  const Tensor& data = require_input(g, node, 0);
  const Tensor& indices = require_input(g, node, 1);
  const Tensor& updates = require_input(g, node, 2);
  if (indices.dtype != DataType::Int(64)) node_error(node, "the indices must be int64, got " + indices.dtype.str());
  if (updates.dtype != data.dtype) node_error(node, "updates are " + updates.dtype.str() + " but data is " + data.dtype.str());
  if (data.shape.empty() || indices.shape.empty()) node_error(node, "data and indices must have rank >= 1");
  int64_t k = indices.shape.back();
  if (k < 1 || static_cast<size_t>(k) > data.shape.size())
    node_error(node, "the last dimension of indices, " + std::to_string(k) + ", must be in [1, " +
                         std::to_string(data.shape.size()) + "]");
  std::vector<int64_t> expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), data.shape.begin() + k, data.shape.end());
  if (updates.shape != expected)
    node_error(node, "updates have shape " + shape_str(updates.shape) + "; expected " + shape_str(expected));
  if (indices.is_constant())
    check_constant_nd_indices(node, indices, std::vector<int64_t>(data.shape.begin(), data.shape.begin() + k));
  return static_cast<size_t>(k);
}

void infer_scatter_nd(Graph& g, Node& node) {
  scatter_nd_depth(g, node);
  const Tensor& data = g.tensor(node.inputs[0]);
  check_reduction(node, data.dtype);
  set_output(g, node, 0, data.dtype, data.shape);
}

LoweredOp lower_scatter_nd(const Graph& g, const Node& node, KernelBuilder& kb) {
  size_t k = scatter_nd_depth(g, node);
  const std::vector<int64_t>& data_shape = g.tensor(node.inputs[0]).shape;
  std::vector<int64_t> extents(data_shape.begin(), data_shape.begin() + static_cast<std::ptrdiff_t>(k));
  return lower_indexed_update(g, node, kb, nd_indexing(g, node, 0, extents));
}

// ---------------------------------------------------------------- MaxUnpool

// X and I (MaxPool's output and Indices) -> zeros with X's elements at the flat positions
// I gives, as MaxPool counts them over the unpooled shape: spatial sizes (in - 1) stride -
// pads + kernel. A constant output_shape at least as large pads that result with zeros at
// the end of each axis (ONNX's reference implementation and its test data), so the
// indices keep their meaning in the unpooled shape.
std::vector<int64_t> unpooled_shape(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  const Tensor& indices = require_input(g, node, 1);
  if (x.shape.size() < 3) node_error(node, "the input must be (N, C, D1, ...), got " + shape_str(x.shape));
  if (indices.shape != x.shape) node_error(node, "indices " + shape_str(indices.shape) + " and X " + shape_str(x.shape) + " differ");
  if (!indices.dtype.is_integer()) node_error(node, "the indices must be integers, got " + indices.dtype.str());
  size_t spatial = x.shape.size() - 2;
  if (!node.has_attr("kernel_shape")) node_error(node, "the kernel_shape attribute is required");
  // per_axis_attr bounds each value by the largest tensor, so the arithmetic below cannot overflow.
  std::vector<int64_t> kernel = per_axis_attr(node, "kernel_shape", spatial, 1, 1);
  std::vector<int64_t> strides = per_axis_attr(node, "strides", spatial, 1, 1);
  std::vector<int64_t> pads = per_axis_attr(node, "pads", 2 * spatial, 0, 0);
  std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
  for (size_t d = 0; d < spatial; ++d)
    shape.push_back((x.shape[d + 2] - 1) * strides[d] - pads[d] - pads[d + spatial] + kernel[d]);
  require_elements(node, shape);
  return shape;
}

void infer_max_unpool(Graph& g, Node& node) {
  std::vector<int64_t> unpooled = unpooled_shape(g, node);
  std::vector<int64_t> shape = unpooled;
  if (has_input(node, 2)) {
    shape = constant_ints(g, node, 2, "output_shape");
    if (shape.size() != unpooled.size()) node_error(node, "output_shape must have " + std::to_string(unpooled.size()) + " entries");
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] < unpooled[d] || (d < 2 && shape[d] != unpooled[d]))
        node_error(node, "output_shape " + shape_str(shape) + " is smaller than the unpooled " + shape_str(unpooled));
  }
  const Tensor& indices = g.tensor(node.inputs[1]);
  if (indices.is_constant()) check_constant_indices(node, indices, num_elements(unpooled), "index");
  for (int64_t i = 0; indices.is_constant() && i < indices.num_elements(); ++i)
    if (indices.element_as_int(i) < 0) node_error(node, "index " + std::to_string(indices.element_as_int(i)) + " is negative");
  set_output(g, node, 0, g.tensor(node.inputs[0]).dtype, shape);
}

LoweredOp lower_max_unpool(const Graph& g, const Node& node, KernelBuilder& kb) {
  const Tensor& x_tensor = g.tensor(node.inputs[0]);
  const Tensor& y_tensor = g.tensor(node.outputs[0]);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer indices = kb.input(1, "I");
  ir::Buffer y = kb.output(0, "Y");
  const std::vector<int64_t> unpooled = unpooled_shape(g, node);
  ir::Stmt check;
  if (!g.tensor(node.inputs[1]).is_constant())
    check = for_each_element(x_tensor.shape, [&](const std::vector<Expr>& i) {
      return check_range(ir::load(indices, i), 0, num_elements(unpooled) - 1);
    });
  ir::Stmt zero = for_each_element(y_tensor.shape, [&](const std::vector<Expr>& i) {
    return ir::store(y, i, ir::make_zero(y->dtype));
  });
  ir::Stmt scatter = for_each_element(x_tensor.shape, [&](const std::vector<Expr>& i) {
    return ir::store(y, unflatten(ir::cast(DataType::Int(32), ir::load(indices, i)), unpooled), ir::load(x, i));
  });
  return kb.finish(ir::seq({check, zero, scatter}));
}

AOTC_REGISTER_OPS(kernel_op(infer_scatter_elements, lower_scatter_elements), "ScatterElements", "Scatter");
AOTC_REGISTER_OP("ScatterND", kernel_op(infer_scatter_nd, lower_scatter_nd));
AOTC_REGISTER_OP("MaxUnpool", kernel_op(infer_max_unpool, lower_max_unpool));

}  // namespace
}  // namespace aotc
