// Operators whose output is their input with another shape: Flatten, Reshape, Squeeze and
// Unsqueeze (Identity and Dropout are in elementwise.cc).
//
// None of them changes the row-major order of the elements, so they have no kernel: the
// memory planner makes the output an alias of the input, and constant folding reuses the
// constant's bytes. Only their shape functions live here, and they serve every data type.
//
// The operands that decide the new shape must be known at compile time: Reshape's shape,
// Squeeze's and Unsqueeze's axes (attributes before opset 13, inputs since). Exporters
// often compute Reshape's shape from Shape (a PyTorch `view`); infer_shapes folds that
// arithmetic into a constant before Reshape's shape function reads it.
#include <algorithm>
#include <numeric>

#include "lowering/compute/data_movement.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

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
  if (!has_input(node, 1)) {
    if (node.has_attr("shape")) return node.attr_ints("shape");  // opset < 5
    node_error(node, "the shape input is required");
  }
  if (!require_input(g, node, 1).is_constant()) node_error(node, "Reshape needs a constant shape (static shapes only)");
  return constant_ints(g, node, 1, "shape");
}

// Resolves ONNX's special entries: 0 copies the input's dimension at the same position
// (unless allowzero is set, when it is a real zero), and a single -1 takes whatever
// size makes the element counts agree.
std::vector<int64_t> resolve_reshape(const Node& node, const std::vector<int64_t>& input_shape,
                                     std::vector<int64_t> shape, bool allow_zero) {
  int64_t inferred_axis = -1;
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
  }
  std::vector<int64_t> known = shape;
  if (inferred_axis >= 0) known[static_cast<size_t>(inferred_axis)] = 1;
  const int64_t known_elements = num_elements(known);  // saturates: a damaged shape overflows
  int64_t input_elements = product(input_shape.begin(), input_shape.end());
  if (inferred_axis >= 0) {
    if (known_elements == 0 || input_elements % known_elements != 0)
      node_error(node, "cannot infer the -1 in " + shape_str(shape) + " for an input of shape " + shape_str(input_shape));
    shape[static_cast<size_t>(inferred_axis)] = input_elements / known_elements;
  } else if (known_elements != input_elements) {
    node_error(node, "cannot reshape " + shape_str(input_shape) + " (" + std::to_string(input_elements) +
                         " elements) to " + shape_str(shape) + " (" +
                         (known_elements == INT64_MAX ? std::string("too many") : std::to_string(known_elements)) + " elements)");
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

// ---------------------------------------------------------------- Squeeze, Unsqueeze

// The axes: an attribute before opset 13, an (optional for Squeeze) input since.
std::vector<int64_t> listed_axes(const Graph& g, const Node& node, bool* given) {
  *given = true;
  if (g.opset < 13) {
    *given = node.has_attr("axes");
    return node.attr_ints("axes");
  }
  if (!has_input(node, 1)) {
    *given = false;
    return {};
  }
  return constant_ints(g, node, 1, "axes");
}

// Removes the listed axes, each of size 1; without axes, every axis of size 1.
void infer_squeeze(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  bool given = false;
  std::vector<int64_t> axes = listed_axes(g, node, &given);
  std::vector<bool> removed(x.shape.size(), false);
  if (given) {
    for (int64_t axis : normalized_axes(node, axes, rank)) {
      if (x.shape[static_cast<size_t>(axis)] != 1)
        node_error(node, "cannot squeeze axis " + std::to_string(axis) + " of shape " + shape_str(x.shape) +
                             ": its size is not 1");
      removed[static_cast<size_t>(axis)] = true;
    }
  } else {
    for (size_t d = 0; d < x.shape.size(); ++d) removed[d] = x.shape[d] == 1;
  }
  std::vector<int64_t> shape;
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (!removed[d]) shape.push_back(x.shape[d]);
  set_output(g, node, 0, x.dtype, shape);
}

// Inserts axes of size 1 at the listed positions of the output (negative ones count
// from the end of the output's dimensions).
void infer_unsqueeze(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  bool given = false;
  std::vector<int64_t> axes = listed_axes(g, node, &given);
  if (!given) node_error(node, "the axes are required");
  int64_t out_rank = static_cast<int64_t>(x.shape.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t axis : normalized_axes(node, axes, out_rank)) inserted[static_cast<size_t>(axis)] = true;
  std::vector<int64_t> shape;
  size_t next = 0;
  for (bool one : inserted) shape.push_back(one ? 1 : x.shape[next++]);
  set_output(g, node, 0, x.dtype, shape);
}

AOTC_REGISTER_OP("Flatten", view_op(infer_flatten));
AOTC_REGISTER_OP("Reshape", view_op(infer_reshape));
AOTC_REGISTER_OP("Squeeze", view_op(infer_squeeze));
AOTC_REGISTER_OP("Unsqueeze", view_op(infer_unsqueeze));

}  // namespace
}  // namespace aotc
