// Operators that read their input at positions given by indices: Gather, GatherElements,
// GatherND, and the two whose positions follow from other operands: Compress (the
// positions where a constant condition holds) and OneHot (the position an index names).
//
// The output's shape depends only on the indices' shape, so the indices may be run-time
// inputs. Such indices are checked before the kernel writes anything: one outside
// [-n, n) makes the kernel return AOTC_ERR_INVALID_ARGUMENT instead of reading outside a
// buffer; negative ones count from the end of their axis. Constant indices are checked
// at compile time. The kernels copy elements as they are, for every data type.
#include <algorithm>
#include <cmath>
#include <optional>

#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

std::vector<Expr> slice_of(const std::vector<Expr>& index, size_t begin, size_t end) {
  return std::vector<Expr>(index.begin() + static_cast<std::ptrdiff_t>(begin), index.begin() + static_cast<std::ptrdiff_t>(end));
}

// The kernel of Gather, GatherElements and GatherND (lower_indexed): each output element
// copied from data at the position `indexing` gives for it.
LoweredOp lower_indexed_copy(KernelBuilder& kb, const std::vector<int64_t>& output_shape, const Indexing& indexing) {
  return lower_indexed(kb, false, indexing, [&](const IndexedParams& p) {
    return gather_elements(kb, p.data, output_shape, p.y,
                           [&](const std::vector<Expr>& out) { return indexing.position(p.indices, out); });
  });
}

// ---------------------------------------------------------------- Gather

// data [d0, ..., d(r-1)], indices of shape Q -> data.shape[:axis] + Q + data.shape[axis+1:]:
// out[a..., q..., b...] = data[a..., indices[q...], b...].
void infer_gather(Graph& g, Node& node) {
  const Tensor& data = require_input(g, node, 0);
  const Tensor& indices = require_index_tensor(g, node, 1);
  int64_t rank = static_cast<int64_t>(data.shape.size());
  if (rank == 0) node_error(node, "the data must have rank >= 1");
  size_t axis = static_cast<size_t>(normalize_axis(node, node.attr_int("axis", 0), rank));
  if (indices.is_constant()) check_constant_indices(node, indices, data.shape[axis], "index");
  std::vector<int64_t> shape(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.shape.end());
  require_elements(node, shape);
  set_output(g, node, 0, data.dtype, shape);
}

LoweredOp lower_gather(const Graph& g, const Node& node, KernelBuilder& kb) {
  const Tensor& data = g.tensor(node.inputs[0]);
  size_t axis = static_cast<size_t>(normalize_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(data.shape.size())));
  size_t q = g.tensor(node.inputs[1]).shape.size();
  int64_t extent = data.shape[axis];
  Indexing indexing;
  indexing.check = [&](const ir::Buffer& indices) { return check_all_indices(g, node.inputs[1], indices, extent); };
  indexing.position = [&](const ir::Buffer& indices, const std::vector<Expr>& out) {
    std::vector<Expr> in = slice_of(out, 0, axis);
    in.push_back(wrap_index(element(indices, slice_of(out, axis, axis + q)), extent));
    std::vector<Expr> rest = slice_of(out, axis + q, out.size());
    in.insert(in.end(), rest.begin(), rest.end());
    return in;
  };
  return lower_indexed_copy(kb, g.tensor(node.outputs[0]).shape, indexing);
}

AOTC_REGISTER_OP("Gather", kernel_op(infer_gather, lower_gather).with({Role::kAnchor}));

// ---------------------------------------------------------------- GatherElements

// indices has data's rank; out[i] = data[i with i[axis] replaced by indices[i]].
void infer_gather_elements(Graph& g, Node& node) {
  const Tensor& data = require_input(g, node, 0);
  const Tensor& indices = require_index_tensor(g, node, 1);
  elements_axis(node, data, indices);
  require_elements(node, indices.shape);
  set_output(g, node, 0, data.dtype, indices.shape);
}

LoweredOp lower_gather_elements(const Graph& g, const Node& node, KernelBuilder& kb) {
  return lower_indexed_copy(kb, g.tensor(node.outputs[0]).shape, elements_indexing(g, node));
}

AOTC_REGISTER_OP("GatherElements", kernel_op(infer_gather_elements, lower_gather_elements).with({Role::kAnchor}));

// ---------------------------------------------------------------- GatherND

// indices [i0, ..., i(q-2), k]: each row of k indices picks an element (k = rank - b) or a
// slice of data, after the first b = batch_dims axes, which data and indices share.
struct GatherNdPlan {
  size_t batch_dims, k;
  std::vector<int64_t> extents;  // of the k axes the index rows address
  std::vector<int64_t> output_shape;
};

GatherNdPlan plan_gather_nd(const Graph& g, const Node& node) {
  const Tensor& data = require_input(g, node, 0);
  const Tensor& indices = require_input(g, node, 1);
  if (indices.dtype != DataType::Int(64)) node_error(node, "the indices must be int64, got " + indices.dtype.str());
  size_t r = data.shape.size(), q = indices.shape.size();
  int64_t b = node.attr_int("batch_dims", 0);
  if (r < 1 || q < 1) node_error(node, "data and indices must have rank >= 1");
  if (b < 0 || static_cast<size_t>(b) >= std::min(r, q))
    node_error(node, "batch_dims " + std::to_string(b) + " must be less than the ranks of data and indices");
  GatherNdPlan plan{static_cast<size_t>(b), 0, {}, {}};
  int64_t k = indices.shape[q - 1];
  if (k < 1 || static_cast<size_t>(k) > r - plan.batch_dims)
    node_error(node, "the last dimension of indices, " + std::to_string(k) + ", must be in [1, " +
                         std::to_string(r - plan.batch_dims) + "]");
  plan.k = static_cast<size_t>(k);
  for (size_t d = 0; d < plan.batch_dims; ++d)
    if (data.shape[d] != indices.shape[d])
      node_error(node, "data " + shape_str(data.shape) + " and indices " + shape_str(indices.shape) +
                           " differ in the batch dimensions");
  plan.extents.assign(data.shape.begin() + static_cast<std::ptrdiff_t>(plan.batch_dims),
                      data.shape.begin() + static_cast<std::ptrdiff_t>(plan.batch_dims + plan.k));
  if (indices.is_constant()) check_constant_nd_indices(node, indices, plan.extents);
  plan.output_shape.assign(indices.shape.begin(), indices.shape.end() - 1);
  plan.output_shape.insert(plan.output_shape.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(plan.batch_dims + plan.k),
                           data.shape.end());
  return plan;
}

void infer_gather_nd(Graph& g, Node& node) {
  GatherNdPlan plan = plan_gather_nd(g, node);
  require_elements(node, plan.output_shape);
  set_output(g, node, 0, g.tensor(node.inputs[0]).dtype, plan.output_shape);
}

LoweredOp lower_gather_nd(const Graph& g, const Node& node, KernelBuilder& kb) {
  GatherNdPlan plan = plan_gather_nd(g, node);
  return lower_indexed_copy(kb, plan.output_shape, nd_indexing(g, node, plan.batch_dims, plan.extents));
}

AOTC_REGISTER_OP("GatherND", kernel_op(infer_gather_nd, lower_gather_nd).with({Role::kAnchor}));

// ---------------------------------------------------------------- Compress

// The positions along the axis (or in the flattened input, without an axis) where the
// constant condition holds; positions past the condition's end are dropped.
struct CompressPlan {
  std::optional<size_t> axis;  // none: the input flattened
  std::vector<int64_t> kept;
};

CompressPlan plan_compress(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  const Tensor& condition = require_input(g, node, 1);
  if (!condition.is_constant())
    node_error(node, "the condition must be a compile-time constant (it decides the output's shape)");
  if (condition.shape.size() != 1) node_error(node, "the condition must be 1-D, got " + shape_str(condition.shape));
  CompressPlan plan;
  int64_t extent = x.num_elements();
  if (node.has_attr("axis")) {
    plan.axis = static_cast<size_t>(normalize_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(x.shape.size())));
    extent = x.shape[*plan.axis];
  }
  for (int64_t i = 0; i < condition.num_elements(); ++i) {
    if (condition.element_as_double(i) == 0) continue;
    if (i >= extent)
      node_error(node, "the condition selects position " + std::to_string(i) + " of an axis of " + std::to_string(extent));
    plan.kept.push_back(i);
  }
  if (plan.kept.empty()) node_error(node, "the condition selects nothing; tensors without elements are not supported");
  return plan;
}

std::vector<int64_t> compress_shape(const Tensor& x, const CompressPlan& plan) {
  if (!plan.axis) return {static_cast<int64_t>(plan.kept.size())};
  std::vector<int64_t> shape = x.shape;
  shape[*plan.axis] = static_cast<int64_t>(plan.kept.size());
  return shape;
}

void infer_compress(Graph& g, Node& node) {
  CompressPlan plan = plan_compress(g, node);
  const Tensor& x = g.tensor(node.inputs[0]);
  set_output(g, node, 0, x.dtype, compress_shape(x, plan));
}

// Reads through a constant table of the kept positions.
LoweredOp lower_compress(const Graph& g, const Node& node, KernelBuilder& kb) {
  CompressPlan plan = plan_compress(g, node);
  const Tensor& x_tensor = g.tensor(node.inputs[0]);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  std::vector<double> kept(plan.kept.begin(), plan.kept.end());
  return kb.finish(ir::allocate_const("kept", DataType::Int(32), kept, [&](const ir::Buffer& table) {
    return gather_elements(kb, x, compress_shape(x_tensor, plan), y, [&](const std::vector<Expr>& out) {
      if (plan.axis) {
        std::vector<Expr> in = out;
        in[*plan.axis] = ir::load(table, {out[*plan.axis]});
        return in;
      }
      return unflatten(ir::load(table, {out[0]}), x_tensor.shape);
    });
  }));
}

AOTC_REGISTER_OP("Compress", kernel_op(infer_compress, lower_compress).with({Role::kAnchor}));

// ---------------------------------------------------------------- OneHot

// indices of shape S, depth, values [off, on] -> S with a new axis of `depth` at `axis`:
// on where the position along the new axis is the index (counting from the end when
// negative), off elsewhere (everywhere, for an index outside [-depth, depth)).
struct OneHotPlan {
  int64_t depth;
  size_t axis;
  std::vector<int64_t> output_shape;
};

OneHotPlan plan_one_hot(const Graph& g, const Node& node) {
  const Tensor& indices = require_input(g, node, 0);
  std::vector<double> depth_values = constant_floats(g, node, 1, "depth");
  if (depth_values.size() != 1) node_error(node, "depth must be a scalar");
  const Tensor& values = require_input(g, node, 2);
  if (values.shape != std::vector<int64_t>{2})
    node_error(node, "values must be a 1-D tensor of two elements [off, on], got shape " + shape_str(values.shape));
  if (indices.dtype.is_bool()) node_error(node, "the indices must be numeric, got bool");
  double depth = std::trunc(depth_values[0]);
  if (!(depth >= 1 && depth <= 1e9)) node_error(node, "depth " + std::to_string(depth_values[0]) + " must be at least 1");
  OneHotPlan plan{static_cast<int64_t>(depth), 0, indices.shape};
  int64_t out_rank = static_cast<int64_t>(indices.shape.size()) + 1;
  int64_t axis = node.attr_int("axis", -1);
  if (axis < -out_rank || axis >= out_rank)
    node_error(node, "axis " + std::to_string(axis) + " is out of range for an output of rank " + std::to_string(out_rank));
  plan.axis = static_cast<size_t>(axis < 0 ? axis + out_rank : axis);
  plan.output_shape.insert(plan.output_shape.begin() + static_cast<std::ptrdiff_t>(plan.axis), plan.depth);
  return plan;
}

void infer_one_hot(Graph& g, Node& node) {
  OneHotPlan plan = plan_one_hot(g, node);
  set_output(g, node, 0, g.tensor(node.inputs[2]).dtype, plan.output_shape);
}

// Whether index `v` (as ONNX reads it: truncated toward zero to an integer) names
// position `d` of `depth`. Floating-point indices are compared as they are, never
// converted: a C conversion of a value outside the integer range is undefined.
Expr names_position(Expr v, Expr d, int64_t depth) {
  DataType t = v.dtype();
  if (t.is_float()) {
    Expr position = ir::cast(t, d);
    // v > -1: trunc(v) = floor(max(v, 0)), so it is d when d <= max(v, 0) < d + 1.
    Expr from_start = ir::max(v, ir::make_zero(t));
    Expr counted_from_start = logical_and(position <= from_start, from_start < position + ir::make_float(1.0, t));
    // v <= -1: trunc(v) = ceil(v) = m = d - depth when m - 1 < v <= m.
    Expr m = position - ir::make_float(static_cast<double>(depth), t);
    Expr counted_from_end = logical_and(m - ir::make_float(1.0, t) < v, v <= m);
    return ir::select(v > ir::make_float(-1.0, t), counted_from_start, counted_from_end);
  }
  if (t.is_uint()) return ir::cast(DataType::UInt(64), v) == ir::cast(DataType::UInt(64), d);
  Expr wide = ir::cast(DataType::Int(64), v);
  Expr position = ir::cast(DataType::Int(64), d);
  Expr depth_value = ir::make_int(depth, DataType::Int(64));
  return ir::select(wide < ir::make_int(0, DataType::Int(64)), wide + depth_value, wide) == position;
}

LoweredOp lower_one_hot(const Graph& g, const Node& node, KernelBuilder& kb) {
  OneHotPlan plan = plan_one_hot(g, node);
  ir::Buffer indices = kb.input(0, "indices");
  ir::Buffer values = kb.input(2, "values");
  ir::Buffer y = kb.output(0, "Y");
  return kb.finish(for_each_element(plan.output_shape, [&](const std::vector<Expr>& out) {
    std::vector<Expr> at = out;
    at.erase(at.begin() + static_cast<std::ptrdiff_t>(plan.axis));
    Expr hit = names_position(element(indices, at), out[plan.axis], plan.depth);
    Expr value = ir::select(hit, ir::load(values, {1}), ir::load(values, {0}));
    return ir::store(y, out, kb.epilogue(value, out));
  }));
}

AOTC_REGISTER_OP("OneHot", kernel_op(infer_one_hot, lower_one_hot).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
