// Operators that copy their input's elements to new places: Transpose, Concat, Expand,
// Tile, DepthToSpace, SpaceToDepth and ReverseSequence.
//
// Each kernel walks the output in order and reads the input element that belongs there
// (gather_elements in data_movement.h), so every output element is stored once and
// contiguously; Concat walks each input instead, copying it into its slice of the
// output. The kernels copy elements as they are and serve every data type. What decides
// the output shape (Expand's shape, Tile's repeats) must be a compile-time constant.
#include <algorithm>
#include <numeric>

#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

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

LoweredOp lower_transpose(const Graph& g, const Node& node, KernelBuilder& kb) {
  std::vector<int64_t> perm = transpose_perm(node, g.tensor(node.outputs[0]).shape.size());
  return lower_rearrangement(kb, [&](const std::vector<Expr>& out) {
    std::vector<Expr> in(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) in[static_cast<size_t>(perm[i])] = out[i];
    return in;
  });
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
  require_elements(node, shape);
  set_output(g, node, 0, first.dtype, shape);
}

// One loop nest per input, each copying into its slice of the output along the axis.
LoweredOp lower_concat(const Graph& g, const Node& node, KernelBuilder& kb) {
  std::vector<ir::Buffer> inputs;
  for (size_t i = 0; i < node.inputs.size(); ++i)  // an empty input (a constant) is not a parameter
    if (g.tensor(node.inputs[i]).num_elements() != 0) inputs.push_back(kb.input(i, "X" + std::to_string(i)));
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

// ---------------------------------------------------------------- Expand

// The output has the numpy broadcast of the input's shape and the requested one (either
// may have 1s where the other does not).
void infer_expand(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  std::vector<int64_t> requested = constant_ints(g, node, 1, "shape");
  for (int64_t d : requested)
    if (d < 0) node_error(node, "the shape " + shape_str(requested) + " has a negative dimension");
  std::vector<int64_t> shape = broadcast_shapes(node, x.shape, requested);
  require_elements(node, shape);
  set_output(g, node, 0, x.dtype, shape);
}

LoweredOp lower_expand(const Graph& g, const Node& node, KernelBuilder& kb) {
  const std::vector<int64_t>& x_shape = g.tensor(node.inputs[0]).shape;
  size_t lead = g.tensor(node.outputs[0]).shape.size() - x_shape.size();
  return lower_rearrangement(kb, [&](const std::vector<Expr>& out) {
    std::vector<Expr> in;
    for (size_t d = 0; d < x_shape.size(); ++d) in.push_back(x_shape[d] == 1 ? Expr(0) : out[lead + d]);
    return in;
  });
}

// ---------------------------------------------------------------- Tile

std::vector<int64_t> tile_repeats(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  std::vector<int64_t> repeats = constant_ints(g, node, 1, "repeats");
  if (repeats.size() != x.shape.size())
    node_error(node, "repeats has " + std::to_string(repeats.size()) + " entries for an input of rank " +
                         std::to_string(x.shape.size()));
  for (int64_t r : repeats)
    if (r < 0) node_error(node, "repeats " + shape_str(repeats) + " has a negative entry");
  return repeats;
}

void infer_tile(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  std::vector<int64_t> repeats = tile_repeats(g, node);
  std::vector<int64_t> shape = x.shape;
  for (size_t d = 0; d < shape.size(); ++d)
    if (__builtin_mul_overflow(shape[d], repeats[d], &shape[d]))
      node_error(node, "repeats " + shape_str(repeats) + " make dimension " + std::to_string(d) + " of " +
                           shape_str(x.shape) + " larger than a 64-bit count holds");
  require_elements(node, shape);
  set_output(g, node, 0, x.dtype, shape);
}

LoweredOp lower_tile(const Graph& g, const Node& node, KernelBuilder& kb) {
  const std::vector<int64_t>& x_shape = g.tensor(node.inputs[0]).shape;
  const std::vector<int64_t>& y_shape = g.tensor(node.outputs[0]).shape;
  return lower_rearrangement(kb, [&](const std::vector<Expr>& out) {
    std::vector<Expr> in;
    for (size_t d = 0; d < out.size(); ++d) {
      int64_t n = x_shape[d];
      in.push_back(n == y_shape[d] ? out[d] : n == 1 ? Expr(0) : out[d] % ir::make_int(n));
    }
    return in;
  });
}

// ---------------------------------------------------------------- DepthToSpace, SpaceToDepth

int64_t block_size(const Node& node) {
  if (!node.has_attr("blocksize")) node_error(node, "the blocksize attribute is required");
  int64_t b = node.attr_int("blocksize", 0);
  if (b < 1) node_error(node, "blocksize " + std::to_string(b) + " must be at least 1");
  // b * b channels make one block; a larger b than this overflows that product, and no
  // tensor has that many channels anyway.
  if (b > 46340) node_error(node, "blocksize " + std::to_string(b) + " is larger than any tensor allows (at most 46340)");
  return b;
}

const Tensor& require_nchw(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.shape.size() != 4) node_error(node, "the input must be 4-D (N, C, H, W), got " + shape_str(x.shape));
  return x;
}

std::string depth_to_space_mode(const Node& node) {
  std::string mode = node.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") node_error(node, "mode '" + mode + "' is not DCR or CRD");
  return mode;
}

// [N, C, H, W] -> [N, C / b^2, H b, W b]: the channels hold b x b blocks of pixels.
void infer_depth_to_space(Graph& g, Node& node) {
  const Tensor& x = require_nchw(g, node);
  int64_t b = block_size(node);
  depth_to_space_mode(node);
  if (x.shape[1] % (b * b) != 0)
    node_error(node, "the " + std::to_string(x.shape[1]) + " channels are not a multiple of blocksize^2 = " +
                         std::to_string(b * b));
  set_output(g, node, 0, x.dtype, {x.shape[0], x.shape[1] / (b * b), x.shape[2] * b, x.shape[3] * b});
}

// Output pixel (h b + i, w b + j) of channel c comes from input channel
//   DCR (depth, column, row): (i b + j) C' + c;   CRD: c b^2 + i b + j,   C' = C / b^2.
LoweredOp lower_depth_to_space(const Graph& g, const Node& node, KernelBuilder& kb) {
  int64_t b = block_size(node);
  bool dcr = depth_to_space_mode(node) == "DCR";
  int64_t out_channels = g.tensor(node.outputs[0]).shape[1];
  Expr block = ir::make_int(b);
  return lower_rearrangement(kb, [&](const std::vector<Expr>& out) {
    Expr i = out[2] % block, j = out[3] % block;
    Expr channel = dcr ? (i * block + j) * ir::make_int(out_channels) + out[1] : out[1] * ir::make_int(b * b) + i * block + j;
    return std::vector<Expr>{out[0], channel, out[2] / block, out[3] / block};
  });
}

// [N, C, H, W] -> [N, C b^2, H / b, W / b], the inverse of DepthToSpace in DCR mode.
void infer_space_to_depth(Graph& g, Node& node) {
  const Tensor& x = require_nchw(g, node);
  int64_t b = block_size(node);
  if (x.shape[2] % b != 0 || x.shape[3] % b != 0)
    node_error(node, "height and width " + std::to_string(x.shape[2]) + " x " + std::to_string(x.shape[3]) +
                         " are not multiples of blocksize " + std::to_string(b));
  set_output(g, node, 0, x.dtype, {x.shape[0], x.shape[1] * b * b, x.shape[2] / b, x.shape[3] / b});
}

// Output channel (i b + j) C + c at (h, w) is input channel c at (h b + i, w b + j).
LoweredOp lower_space_to_depth(const Graph& g, const Node& node, KernelBuilder& kb) {
  int64_t b = block_size(node);
  Expr channels = ir::make_int(g.tensor(node.inputs[0]).shape[1]);
  Expr block = ir::make_int(b);
  return lower_rearrangement(kb, [&](const std::vector<Expr>& out) {
    Expr c = out[1] % channels, ij = out[1] / channels;
    return std::vector<Expr>{out[0], c, out[2] * block + ij / block, out[3] * block + ij % block};
  });
}

// ---------------------------------------------------------------- ReverseSequence

struct SequenceAxes {
  size_t batch, time;
};

SequenceAxes sequence_axes(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.shape.size() < 2) node_error(node, "the input must have rank >= 2, got " + shape_str(x.shape));
  int64_t batch = node.attr_int("batch_axis", 1), time = node.attr_int("time_axis", 0);
  if ((batch != 0 && batch != 1) || (time != 0 && time != 1) || batch == time)
    node_error(node, "batch_axis " + std::to_string(batch) + " and time_axis " + std::to_string(time) +
                         " must be 0 and 1 or 1 and 0");
  return {static_cast<size_t>(batch), static_cast<size_t>(time)};
}

void infer_reverse_sequence(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  SequenceAxes axes = sequence_axes(g, node);
  const Tensor& lens = require_input(g, node, 1);
  if (!lens.dtype.is_integer()) node_error(node, "sequence_lens must be an integer tensor, got " + lens.dtype.str());
  if (lens.shape != std::vector<int64_t>{x.shape[axes.batch]})
    node_error(node, "sequence_lens has shape " + shape_str(lens.shape) + "; expected [" +
                         std::to_string(x.shape[axes.batch]) + "] (one length per batch entry)");
  int64_t steps = x.shape[axes.time];
  if (lens.is_constant())
    for (int64_t len : lens.ints())
      if (len < 0 || len > steps)
        node_error(node, "sequence length " + std::to_string(len) + " is out of range [0, " + std::to_string(steps) + "]");
  set_output(g, node, 0, x.dtype, x.shape);
}

// Along the time axis the first len[b] elements of batch entry b come in reverse order,
// the rest in place. Lengths read at run time are checked to lie in [0, steps] first.
LoweredOp lower_reverse_sequence(const Graph& g, const Node& node, KernelBuilder& kb) {
  SequenceAxes axes = sequence_axes(g, node);
  const Tensor& x_tensor = g.tensor(node.inputs[0]);
  const Tensor& lens_tensor = g.tensor(node.inputs[1]);
  int64_t steps = x_tensor.shape[axes.time];
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer lens = kb.input(1, "sequence_lens");
  ir::Buffer y = kb.output(0, "Y");
  ir::Stmt check;
  if (!lens_tensor.is_constant())
    check = ir::loop_nest(lens->shape, {"b"}, [&](const std::vector<Expr>& b) { return check_range(ir::load(lens, b), 0, steps); });
  ir::Stmt copy = gather_elements(kb, x, x_tensor.shape, y, [&](const std::vector<Expr>& out) {
    Expr len = ir::cast(DataType::Int(32), ir::load(lens, {out[axes.batch]}));
    Expr t = out[axes.time];
    std::vector<Expr> in = out;
    in[axes.time] = ir::select(t < len, len - 1 - t, t);
    return in;
  });
  return kb.finish(ir::seq({check, copy}));
}

AOTC_REGISTER_OP("Transpose", kernel_op(infer_transpose, lower_transpose).with({Role::kAnchor}));
AOTC_REGISTER_OP("Concat", kernel_op(infer_concat, lower_concat).with({Role::kAnchor}));
AOTC_REGISTER_OP("Expand", kernel_op(infer_expand, lower_expand).with({Role::kAnchor}));
AOTC_REGISTER_OP("Tile", kernel_op(infer_tile, lower_tile).with({Role::kAnchor}));
AOTC_REGISTER_OP("DepthToSpace", kernel_op(infer_depth_to_space, lower_depth_to_space).with({Role::kAnchor}));
AOTC_REGISTER_OP("SpaceToDepth", kernel_op(infer_space_to_depth, lower_space_to_depth).with({Role::kAnchor}));
AOTC_REGISTER_OP("ReverseSequence", kernel_op(infer_reverse_sequence, lower_reverse_sequence).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
