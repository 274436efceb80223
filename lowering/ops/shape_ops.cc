// Operators that move data without computing on it: Flatten and Reshape (views), and
// Transpose and Concat (copy kernels).
//
// Flatten and Reshape do not change the row-major order of the elements, so they have no
// kernel: the memory planner makes the output an alias of the input, and constant
// folding reuses the constant's bytes. Only their shape functions live here. Reshape's
// target shape must therefore be known at compile time: a constant input (or, before
// opset 5, an attribute).
//
// Transpose and Concat loop over the elements they write, so that each output element
// is stored once, and contiguously for Transpose.
#include <algorithm>
#include <numeric>

#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

int64_t product(std::vector<int64_t>::const_iterator begin, std::vector<int64_t>::const_iterator end) {
  return std::accumulate(begin, end, int64_t{1}, [](int64_t a, int64_t b) { return a * b; });
}

// ---------------------------------------------------------------- Flatten

// Output [d0 * ... * d(axis-1), d(axis) * ... * d(rank-1)]; axis may equal the rank.
void infer_flatten(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = node.attr_int("axis", 1);
  if (axis < -rank || axis > rank)
    node_error(node, "axis " + std::to_string(axis) + " is out of range [" + std::to_string(-rank) + ", " +
                         std::to_string(rank) + "] for rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  auto split = x.shape.begin() + axis;
  set_output(g, node, 0, x.dtype, {product(x.shape.begin(), split), product(split, x.shape.end())});
}

// ---------------------------------------------------------------- Reshape

// The requested shape, with its 0 and -1 entries not yet resolved.
std::vector<int64_t> requested_shape(const Graph& g, const Node& node) {
  if (node.input(1) == kNoTensor) {
    if (node.has_attr("shape")) return node.attr_ints("shape");  // opset < 5
    node_error(node, "the shape input is required");
  }
  const Tensor& shape = require_input(g, node, 1);
  if (!shape.is_constant()) node_error(node, "Reshape needs a constant shape (static shapes only)");
  if (!shape.dtype.is_integer()) node_error(node, "the shape input must be an integer tensor, got " + shape.dtype.str());
  if (shape.shape.size() != 1) node_error(node, "the shape input must be 1-D, got " + shape_str(shape.shape));
  return shape.ints();
}

// Resolves ONNX's special entries: 0 copies the input's dimension at the same position
// (unless allowzero is set, when it is a real zero), and a single -1 takes whatever
// size makes the element counts agree.
std::vector<int64_t> resolve_reshape(const Node& node, const std::vector<int64_t>& input_shape,
                                     std::vector<int64_t> shape, bool allow_zero) {
  int64_t inferred_axis = -1;
  int64_t known_elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred_axis >= 0) node_error(node, "the shape " + shape_str(shape) + " has more than one -1");
      inferred_axis = static_cast<int64_t>(i);
      continue;
    }
    if (shape[i] < -1) node_error(node, "the shape " + shape_str(shape) + " has a negative dimension");
    if (shape[i] == 0 && !allow_zero) {
      if (i >= input_shape.size())
        node_error(node, "shape entry " + std::to_string(i) + " is 0 (copy the input's dimension) but the input " +
                             shape_str(input_shape) + " has no dimension " + std::to_string(i));
      shape[i] = input_shape[i];
    }
    known_elements *= shape[i];
  }
  int64_t input_elements = product(input_shape.begin(), input_shape.end());
  if (inferred_axis >= 0) {
    if (known_elements == 0 || input_elements % known_elements != 0)
      node_error(node, "cannot infer the -1 in " + shape_str(shape) + " for an input of shape " + shape_str(input_shape));
    shape[static_cast<size_t>(inferred_axis)] = input_elements / known_elements;
  } else if (known_elements != input_elements) {
    node_error(node, "cannot reshape " + shape_str(input_shape) + " (" + std::to_string(input_elements) +
                         " elements) to " + shape_str(shape) + " (" + std::to_string(known_elements) + " elements)");
  }
  return shape;
}

void infer_reshape(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  std::vector<int64_t> shape = requested_shape(g, node);
  bool allow_zero = node.attr_int("allowzero", 0) != 0;
  if (allow_zero && std::count(shape.begin(), shape.end(), 0) && std::count(shape.begin(), shape.end(), -1))
    node_error(node, "with allowzero=1 the shape cannot contain both 0 and -1");
  set_output(g, node, 0, x.dtype, resolve_reshape(node, x.shape, std::move(shape), allow_zero));
}

// ---------------------------------------------------------------- Transpose

// Output dimension i is input dimension perm[i]; the default reverses the dimensions.
std::vector<int64_t> transpose_perm(const Node& node, size_t rank) {
  std::vector<int64_t> perm(rank);
  std::iota(perm.rbegin(), perm.rend(), int64_t{0});
  if (!node.has_attr("perm")) return perm;
  std::vector<int64_t> given = node.attr_ints("perm");
  std::vector<int64_t> sorted = given;
  std::sort(sorted.begin(), sorted.end());
  std::iota(perm.begin(), perm.end(), int64_t{0});
  if (sorted != perm)
    node_error(node, "perm " + shape_str(given) + " is not a permutation of the " + std::to_string(rank) +
                         " input dimensions");
  return given;
}

void infer_transpose(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  std::vector<int64_t> perm = transpose_perm(node, x.shape.size());
  std::vector<int64_t> shape;
  for (int64_t axis : perm) shape.push_back(x.shape[static_cast<size_t>(axis)]);
  set_output(g, node, 0, x.dtype, shape);
}

// Walks the output in order (contiguous stores) and gathers from the input.
LoweredOp lower_transpose(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  // A scalar is stored as a one-element array: transposing it is a copy.
  size_t rank = g.tensor(node.inputs[0]).shape.size();
  std::vector<int64_t> perm = rank == 0 ? std::vector<int64_t>{0} : transpose_perm(node, rank);
  ir::Stmt body = ir::loop_nest(y->shape, {}, [&](const std::vector<Expr>& out_index) {
    std::vector<Expr> in_index(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) in_index[static_cast<size_t>(perm[i])] = out_index[i];
    return ir::store(y, out_index, kb.epilogue(ir::load(x, in_index), out_index));
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- Concat

void infer_concat(Graph& g, Node& node) {
  if (node.inputs.empty()) node_error(node, "Concat needs at least one input");
  const Tensor& first = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(first.shape.size());
  if (rank == 0) node_error(node, "Concat inputs must have rank >= 1");
  if (!node.has_attr("axis")) node_error(node, "the axis attribute is required");
  size_t axis = static_cast<size_t>(normalize_axis(node, node.attr_int("axis", 0), rank));
  std::vector<int64_t> shape = first.shape;
  shape[axis] = 0;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Tensor& in = require_input(g, node, i);
    if (in.dtype != first.dtype)
      node_error(node, "inputs have different types " + first.dtype.str() + " and " + in.dtype.str());
    bool compatible = in.shape.size() == first.shape.size();
    for (size_t d = 0; compatible && d < in.shape.size(); ++d) compatible = d == axis || in.shape[d] == first.shape[d];
    if (!compatible)
      node_error(node, "input shapes " + shape_str(first.shape) + " and " + shape_str(in.shape) +
                           " differ outside axis " + std::to_string(axis));
    shape[axis] += in.shape[axis];
  }
  set_output(g, node, 0, first.dtype, shape);
}

// One loop nest per input, each copying into its slice of the output along the axis.
LoweredOp lower_concat(const LowerContext& ctx) {
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  std::vector<ir::Buffer> inputs;
  for (size_t i = 0; i < node.inputs.size(); ++i) inputs.push_back(kb.input(i, "X" + std::to_string(i)));
  ir::Buffer y = kb.output(0, "Y");
  size_t axis = static_cast<size_t>(normalize_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(y->shape.size())));
  std::vector<ir::Stmt> copies;
  int64_t offset = 0;
  for (const ir::Buffer& x : inputs) {
    if (x->num_elements() == 0) continue;
    copies.push_back(ir::loop_nest(x->shape, {}, [&](const std::vector<Expr>& in_index) {
      std::vector<Expr> out_index = in_index;
      out_index[axis] = in_index[axis] + ir::make_int(offset);
      return ir::store(y, out_index, kb.epilogue(ir::load(x, in_index), out_index));
    }));
    offset += x->shape[axis];
  }
  return kb.finish(ir::seq(copies));
}

AOTC_REGISTER_OP("Flatten", view_op(infer_flatten));
AOTC_REGISTER_OP("Reshape", view_op(infer_reshape));
AOTC_REGISTER_OP("Transpose", kernel_op(infer_transpose, lower_transpose).with({Role::kAnchor}));
AOTC_REGISTER_OP("Concat", kernel_op(infer_concat, lower_concat).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
