#include "lowering/compute/data_movement.h"

#include <algorithm>

#include "lowering/ir/builtins.h"

namespace aotc {
namespace {

const Tensor& constant_list(const Graph& g, const Node& node, size_t index, const std::string& what) {
  const Tensor& t = require_input(g, node, index);
  if (!t.is_constant()) node_error(node, node.op + " needs constant " + what + " (static shapes only)");
  if (t.shape.size() > 1) node_error(node, what + " must be 1-D, got shape " + shape_str(t.shape));
  return t;
}

}  // namespace

std::vector<int64_t> constant_ints(const Graph& g, const Node& node, size_t index, const std::string& what) {
  const Tensor& t = constant_list(g, node, index, what);
  if (!t.dtype.is_integer()) node_error(node, what + " must be an integer tensor, got " + t.dtype.str());
  return t.ints();
}

std::vector<double> constant_floats(const Graph& g, const Node& node, size_t index, const std::string& what) {
  const Tensor& t = constant_list(g, node, index, what);
  if (t.dtype.is_bool()) node_error(node, what + " must be a numeric tensor, got bool");
  return t.floats();
}

int64_t constant_int_scalar(const Graph& g, const Node& node, size_t index, const std::string& what) {
  std::vector<int64_t> values = constant_ints(g, node, index, what);
  if (values.size() != 1) node_error(node, what + " must be a scalar, got " + std::to_string(values.size()) + " values");
  return values[0];
}

std::vector<int64_t> normalized_axes(const Node& node, std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& axis : axes) axis = normalize_axis(node, axis, rank);
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    node_error(node, "axes " + shape_str(axes) + " name an axis twice");
  return axes;
}

void require_elements(const Node& node, const std::vector<int64_t>& shape, const std::string& what) {
  if (num_elements(shape) == 0)
    node_error(node, what + " would have shape " + shape_str(shape) +
                         ", without elements; tensors without elements are not supported");
}

ir::Expr element(const ir::Buffer& buffer, std::vector<ir::Expr> index) {
  if (index.empty()) index.push_back(0);
  return ir::load(buffer, std::move(index));
}

ir::Stmt store_element(const ir::Buffer& buffer, std::vector<ir::Expr> index, ir::Expr value) {
  if (index.empty()) index.push_back(0);
  return ir::store(buffer, std::move(index), std::move(value));
}

std::vector<ir::Expr> unflatten(const ir::Expr& flat, const std::vector<int64_t>& shape) {
  std::vector<ir::Expr> index(shape.size());
  int64_t inner = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    ir::Expr quotient = inner == 1 ? flat : flat / ir::make_int(inner);
    index[d] = d == 0 ? quotient : quotient % ir::make_int(shape[d]);
    inner *= shape[d];
  }
  return index;
}

ir::Stmt for_each_element(const std::vector<int64_t>& shape,
                          const std::function<ir::Stmt(const std::vector<ir::Expr>&)>& body) {
  return ir::loop_nest(shape, {}, body);
}

ir::Stmt gather_elements(KernelBuilder& kb, const ir::Buffer& x, const std::vector<int64_t>& y_shape, const ir::Buffer& y,
                         const std::function<std::vector<ir::Expr>(const std::vector<ir::Expr>&)>& source) {
  return for_each_element(y_shape, [&](const std::vector<ir::Expr>& out) {
    std::vector<ir::Expr> kernel_index = out.empty() ? std::vector<ir::Expr>{0} : out;
    return store_element(y, out, kb.epilogue(element(x, source(out)), kernel_index));
  });
}

LoweredOp lower_rearrangement(KernelBuilder& kb,
                              const std::function<std::vector<ir::Expr>(const std::vector<ir::Expr>&)>& source) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  return kb.finish(gather_elements(kb, x, kb.graph().tensor(kb.node().outputs[0]).shape, y, source));
}

ir::Expr wrap_index(ir::Expr raw, int64_t extent) {
  DataType t = raw.dtype();
  if (t.is_uint()) return ir::cast(DataType::Int(32), raw);  // never negative
  ir::Expr wrapped = ir::select(raw < ir::make_int(0, t), raw + ir::make_int(extent, t), raw);
  return ir::cast(DataType::Int(32), wrapped);
}

ir::Stmt check_range(ir::Expr raw, int64_t lo, int64_t hi) {
  DataType t = raw.dtype();
  ir::Expr outside = ir::binary(ir::BinaryOp::kOr, raw < ir::make_int(lo, t), raw > ir::make_int(hi, t));
  if (t.is_uint() && lo <= 0) outside = raw > ir::make_int(hi, t);  // unsigned: never below 0
  return ir::if_then_else(outside, ir::return_stmt(ir::call(ir::builtin::kErrInvalidArgument, {}, DataType::Int(32))));
}

ir::Stmt check_all_indices(const Graph& g, TensorId indices, const ir::Buffer& buffer, int64_t extent) {
  const Tensor& t = g.tensor(indices);
  if (t.is_constant()) return ir::Stmt();
  return for_each_element(t.shape, [&](const std::vector<ir::Expr>& i) {
    return check_range(element(buffer, i), -extent, extent - 1);
  });
}

namespace {

void check_constant_index(const Node& node, int64_t v, int64_t i, int64_t extent, const std::string& what) {
  if (v < -extent || v >= extent)
    node_error(node, what + " " + std::to_string(v) + " (element " + std::to_string(i) + ") is out of range [" +
                         std::to_string(-extent) + ", " + std::to_string(extent - 1) + "]");
}

}  // namespace

void check_constant_indices(const Node& node, const Tensor& indices, int64_t extent, const std::string& what) {
  for (int64_t i = 0; i < indices.num_elements(); ++i) check_constant_index(node, indices.element_as_int(i), i, extent, what);
}

const Tensor& require_index_tensor(const Graph& g, const Node& node, size_t index) {
  const Tensor& t = require_input(g, node, index);
  if (t.dtype != DataType::Int(32) && t.dtype != DataType::Int(64))
    node_error(node, "the indices must be int32 or int64, got " + t.dtype.str());
  return t;
}

size_t elements_axis(const Node& node, const Tensor& data, const Tensor& indices) {
  int64_t rank = static_cast<int64_t>(data.shape.size());
  if (rank == 0) node_error(node, "the data must have rank >= 1");
  size_t axis = static_cast<size_t>(normalize_axis(node, node.attr_int("axis", 0), rank));
  if (indices.shape.size() != data.shape.size())
    node_error(node, "indices " + shape_str(indices.shape) + " and data " + shape_str(data.shape) + " differ in rank");
  for (size_t d = 0; d < data.shape.size(); ++d)
    if (d != axis && indices.shape[d] > data.shape[d])
      node_error(node, "indices " + shape_str(indices.shape) + " are larger than data " + shape_str(data.shape) +
                           " on axis " + std::to_string(d));
  if (indices.is_constant()) check_constant_indices(node, indices, data.shape[axis], "index");
  return axis;
}

Indexing elements_indexing(const Graph& g, const Node& node) {
  const Tensor& data = g.tensor(node.inputs[0]);
  TensorId indices_id = node.inputs[1];
  size_t axis = elements_axis(node, data, g.tensor(indices_id));
  int64_t extent = data.shape[axis];
  Indexing indexing;
  indexing.check = [&g, indices_id, extent](const ir::Buffer& indices) {
    return check_all_indices(g, indices_id, indices, extent);
  };
  indexing.position = [axis, extent](const ir::Buffer& indices, const std::vector<ir::Expr>& i) {
    std::vector<ir::Expr> at = i;
    at[axis] = wrap_index(ir::load(indices, i), extent);
    return at;
  };
  return indexing;
}

void check_constant_nd_indices(const Node& node, const Tensor& indices, const std::vector<int64_t>& extents) {
  int64_t k = static_cast<int64_t>(extents.size());
  for (int64_t i = 0; i < indices.num_elements(); ++i)
    check_constant_index(node, indices.element_as_int(i), i, extents[static_cast<size_t>(i % k)], "index");
}

ir::Expr nd_index(const ir::Buffer& indices, const std::vector<ir::Expr>& row, size_t j) {
  std::vector<ir::Expr> at = row;
  at.push_back(ir::make_int(static_cast<int64_t>(j)));
  return ir::load(indices, at);
}

ir::Stmt check_nd_indices(const Graph& g, TensorId indices, const ir::Buffer& buffer, const std::vector<int64_t>& extents) {
  const Tensor& t = g.tensor(indices);
  if (t.is_constant()) return ir::Stmt();
  std::vector<int64_t> rows(t.shape.begin(), t.shape.end() - 1);
  return for_each_element(rows, [&](const std::vector<ir::Expr>& row) {
    std::vector<ir::Stmt> checks;
    for (size_t j = 0; j < extents.size(); ++j)
      checks.push_back(check_range(nd_index(buffer, row, j), -extents[j], extents[j] - 1));
    return ir::seq(checks);
  });
}

Indexing nd_indexing(const Graph& g, const Node& node, size_t batch_dims, const std::vector<int64_t>& extents) {
  TensorId indices_id = node.inputs[1];
  auto rows = static_cast<std::ptrdiff_t>(g.tensor(indices_id).shape.size() - 1);
  Indexing indexing;
  indexing.check = [&g, indices_id, extents](const ir::Buffer& indices) {
    return check_nd_indices(g, indices_id, indices, extents);
  };
  indexing.position = [rows, batch_dims, extents](const ir::Buffer& indices, const std::vector<ir::Expr>& i) {
    std::vector<ir::Expr> row(i.begin(), i.begin() + rows);
    std::vector<ir::Expr> at(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(batch_dims));
    for (size_t j = 0; j < extents.size(); ++j) at.push_back(wrap_index(nd_index(indices, row, j), extents[j]));
    at.insert(at.end(), i.begin() + rows, i.end());
    return at;
  };
  return indexing;
}

LoweredOp lower_indexed(KernelBuilder& kb, bool with_updates, const Indexing& indexing,
                        const std::function<ir::Stmt(const IndexedParams& params)>& move) {
  IndexedParams params;
  params.data = kb.input(0, "data");
  params.indices = kb.input(1, "indices");
  if (with_updates) params.updates = kb.input(2, "updates");
  params.y = kb.output(0, "Y");
  ir::Stmt checked = indexing.check(params.indices);
  return kb.finish(ir::seq({checked, move(params)}));
}

}  // namespace aotc
