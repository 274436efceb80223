// TFLite operators that move data without computing on it: TRANSPOSE, CONCATENATION,
// PAD, PADV2, SPLIT, SPLIT_V, SLICE, GATHER, TILE, BROADCAST_TO, FILL, STRIDED_SLICE, PACK,
// UNPACK, DEPTH_TO_SPACE and SPACE_TO_DEPTH.
//
// TensorFlow Lite Micro copies quantized values as they are (an int8 TRANSPOSE or
// CONCATENATION does not requantize: the converter gives input and output one
// quantization), so each kernel here serves every type. Where TFLite's semantics are an
// ONNX operator's once the compile-time operands are known, the operator is translated
// into that one and uses its index logic (tflite_common.h: translated_op): TRANSPOSE,
// CONCATENATION, PAD, PADV2, SPLIT, SPLIT_V, SLICE, GATHER, TILE, BROADCAST_TO and FILL
// (the last two as Expand). STRIDED_SLICE (its masks),
// PACK, UNPACK and the NHWC DEPTH_TO_SPACE / SPACE_TO_DEPTH have rules of their own,
// written here over the shared gather_elements.
#include <algorithm>

#include "aot/graph/op_registry.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

int64_t rank_of(const Graph& g, const Node& node, size_t index) {
  return static_cast<int64_t>(require_input(g, node, index).shape.size());
}

// TFLite Micro's kernels take no fused activation here.
void require_no_activation(const Node& node) {
  std::string act = node.attr_string("fused_activation", "NONE");
  if (act != "NONE") node_error(node, "fused activation " + act + " is not supported (TFLite Micro takes none here)");
}

// ---------------------------------------------------------------- translated to ONNX operators

// TRANSPOSE(x, perm): Transpose with the perm tensor's values.
Node translate_transpose(const Graph& g, const Node& node) {
  Node t = tflite::as_operator(node, "Transpose");
  t.attrs["perm"] = constant_ints(g, node, 1, "perm");
  t.inputs.resize(1);
  return t;
}

Node translate_concatenation(const Graph&, const Node& node) {
  require_no_activation(node);
  Node t = tflite::as_operator(node, "Concat");
  t.attrs["axis"] = node.attr_int("axis", 0);
  return t;
}

// PAD(x, paddings) and PADV2(x, paddings, constant_values): paddings is [rank, 2] of
// (before, after) pairs, ONNX's pads are all befores then all afters. PAD fills with 0, a
// quantized tensor with its zero point (the real value 0); PADV2 with its constant.
Node translate_pad(const Graph& g, const Node& node) {
  const Tensor& paddings = require_input(g, node, 1);
  int64_t rank = rank_of(g, node, 0);
  if (!paddings.is_constant()) node_error(node, "needs constant paddings (static shapes only)");
  if (paddings.shape != std::vector<int64_t>{rank, 2})
    node_error(node, "paddings is " + shape_str(paddings.shape) + ", expected [" + std::to_string(rank) + ", 2]");
  std::vector<int64_t> pairs = paddings.ints(), pads(static_cast<size_t>(2 * rank));
  for (int64_t d = 0; d < rank; ++d) {
    for (int64_t side = 0; side < 2; ++side) {
      int64_t p = pairs[static_cast<size_t>(2 * d + side)];
      if (p < 0) node_error(node, "paddings " + shape_str(pairs) + " has a negative entry");
      pads[static_cast<size_t>(side * rank + d)] = p;
    }
  }
  Node t = tflite::as_operator(node, "Pad");
  t.attrs["pads"] = pads;
  t.attrs["mode"] = std::string("constant");
  double value = 0;
  if (node.input(2) != kNoTensor) {
    const Tensor& c = require_input(g, node, 2);
    if (!c.is_constant() || c.num_elements() != 1) node_error(node, "constant_values must be a constant scalar");
    if (c.dtype != g.tensor(node.inputs[0]).dtype)
      node_error(node, "constant_values is " + c.dtype.str() + ", the input " + g.tensor(node.inputs[0]).dtype.str());
    value = c.dtype.is_float() ? c.element_as_double(0) : static_cast<double>(c.element_as_int(0));
  } else if (!g.tensor(node.outputs[0]).quant.empty()) {
    value = static_cast<double>(tflite::zero_point_of(g, node.outputs[0]));
  }
  t.attrs["value"] = value;
  t.inputs.resize(1);
  return t;
}

// SPLIT(axis, x): num_splits equal parts.
Node translate_split(const Graph& g, const Node& node) {
  int64_t splits = node.attr_int("num_splits", 1);
  if (splits != static_cast<int64_t>(node.outputs.size()))
    node_error(node, "num_splits " + std::to_string(splits) + " but " + std::to_string(node.outputs.size()) + " outputs");
  Node t = tflite::as_operator(node, "Split");
  t.attrs["axis"] = constant_int_scalar(g, node, 0, "axis");
  t.inputs = {node.input(1)};
  return t;
}

// SPLIT_V(x, size_splits, axis): the given sizes, of which one may be -1 (the rest).
Node translate_split_v(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t axis = normalize_axis(node, constant_int_scalar(g, node, 2, "axis"), static_cast<int64_t>(x.shape.size()));
  std::vector<int64_t> sizes = constant_ints(g, node, 1, "size_splits");
  int64_t known = 0, unknown = 0;
  for (int64_t s : sizes) {
    // Checked before the sum, which larger values could overflow.
    if (s < -1 || s > kMaxTensorElements)
      node_error(node, "size_splits " + shape_str(sizes) + " has a size that is negative or larger than any tensor");
    s == -1 ? ++unknown : known += s;
  }
  if (unknown > 1) node_error(node, "size_splits " + shape_str(sizes) + " has more than one -1");
  for (int64_t& s : sizes)
    if (s == -1) s = x.shape[static_cast<size_t>(axis)] - known;
  Node t = tflite::as_operator(node, "Split");
  t.attrs["axis"] = axis;
  t.attrs["split"] = sizes;
  t.inputs.resize(1);
  return t;
}

// SLICE(x, begin, size): size -1 takes the rest of the axis. TFLite requires the box to
// lie inside the input (ONNX would clamp it).
Node translate_slice(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  std::vector<int64_t> begin = constant_ints(g, node, 1, "begin"), size = constant_ints(g, node, 2, "size");
  if (begin.size() != x.shape.size() || size.size() != x.shape.size())
    node_error(node, "begin " + shape_str(begin) + " and size " + shape_str(size) + " must have one entry per dimension of " +
                         shape_str(x.shape));
  std::vector<int64_t> ends, axes;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    bool inside = begin[d] >= 0 && begin[d] <= x.shape[d] && size[d] >= -1 && size[d] <= x.shape[d];  // no overflow below
    int64_t end = !inside ? 0 : size[d] == -1 ? x.shape[d] : begin[d] + size[d];
    if (!inside || end > x.shape[d])
      node_error(node, "begin " + shape_str(begin) + " and size " + shape_str(size) + " leave the input " + shape_str(x.shape));
    ends.push_back(end);
    axes.push_back(static_cast<int64_t>(d));
  }
  Node t = tflite::as_operator(node, "Slice");
  t.attrs["starts"] = begin;
  t.attrs["ends"] = ends;
  t.attrs["axes"] = axes;
  t.inputs.resize(1);
  return t;
}

// GATHER(params, indices) along `axis`. TFLite Micro returns an error for a negative
// index; the ONNX kernel takes it from the end. Indices past either end are an error in both.
Node translate_gather(const Graph&, const Node& node) {
  if (node.attr_int("batch_dims", 0) != 0) node_error(node, "batch_dims other than 0 is not supported");
  Node t = tflite::as_operator(node, "Gather");
  t.attrs["axis"] = node.attr_int("axis", 0);
  return t;
}

// TILE(x, multiples): Tile, the same operands.
Node translate_tile(const Graph&, const Node& node) { return tflite::as_operator(node, "Tile"); }

// BROADCAST_TO(x, shape): Expand to `shape`. TFLite broadcasts one way only: each
// dimension of x (aligned at the back) is 1 or the requested size, and x has no more
// dimensions than `shape` (Expand would also widen the requested 1s to x's sizes).
void check_broadcast_to(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  std::vector<int64_t> shape = constant_ints(g, node, 1, "shape");
  bool fits = x.shape.size() <= shape.size();
  for (size_t d = 0; fits && d < x.shape.size(); ++d) {
    int64_t in = x.shape[x.shape.size() - 1 - d], out = shape[shape.size() - 1 - d];
    fits = in == 1 || in == out;
  }
  if (!fits) node_error(node, "cannot broadcast " + shape_str(x.shape) + " to " + shape_str(shape));
}

Node translate_broadcast_to(const Graph&, const Node& node) { return tflite::as_operator(node, "Expand"); }

// FILL(dims, value): the scalar `value` broadcast to shape `dims`, an Expand of value (which
// may be computed at run time) to dims.
void check_fill(const Graph& g, const Node& node) {
  const Tensor& value = require_input(g, node, 1);
  if (!value.shape.empty()) node_error(node, "value must be a scalar, got " + shape_str(value.shape));
  const Tensor& dims = require_input(g, node, 0);
  if (dims.dtype != DataType::Int(32) && dims.dtype != DataType::Int(64))
    node_error(node, "dims is " + dims.dtype.str() + "; TFLite takes int32 or int64");
}

Node translate_fill(const Graph&, const Node& node) {
  Node t = tflite::as_operator(node, "Expand");
  t.inputs = {node.inputs.at(1), node.inputs.at(0)};
  return t;
}

// ---------------------------------------------------------------- STRIDED_SLICE

// Along one input axis: `count` elements from `start` by `stride`; a shrunk axis (one
// element, removed from the output) has count 1.
struct StridedAxis {
  int64_t start, stride, count;
  bool shrink;
};

int64_t clamp_index(int64_t v, int64_t lo, int64_t hi) { return std::min(hi, std::max(lo, v)); }

// TFLite's strided_slice_logic.h: StridedSliceStartForAxis and StridedSliceEndForAxis,
// the operand lists padded in front to the input's rank (StridedSlicePadIndices).
std::vector<StridedAxis> plan_strided_slice(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> begin = constant_ints(g, node, 1, "begin"), end = constant_ints(g, node, 2, "end");
  std::vector<int64_t> strides = constant_ints(g, node, 3, "strides");
  if (node.attr_int("ellipsis_mask", 0) != 0) node_error(node, "ellipsis_mask is not supported (TFLite Micro rejects it)");
  if (node.attr_int("new_axis_mask", 0) != 0) node_error(node, "new_axis_mask is not supported (TFLite Micro rejects it)");
  if (begin.size() != end.size() || begin.size() != strides.size() || static_cast<int64_t>(begin.size()) > rank)
    node_error(node, "begin, end and strides have " + std::to_string(begin.size()) + ", " + std::to_string(end.size()) +
                         " and " + std::to_string(strides.size()) + " entries for an input of rank " + std::to_string(rank));
  // The masks are int32 in TFLite's schema: one bit per axis.
  if (rank > 32) node_error(node, "the input has rank " + std::to_string(rank) + "; the masks describe at most 32 axes");
  int64_t pad = rank - static_cast<int64_t>(begin.size());
  auto mask = [&](const char* name) { return static_cast<uint64_t>(static_cast<uint32_t>(node.attr_int(name, 0))) << pad; };
  uint64_t begin_mask = mask("begin_mask"), end_mask = mask("end_mask"), shrink_mask = mask("shrink_axis_mask");
  begin_mask |= (uint64_t{1} << pad) - 1;
  end_mask |= (uint64_t{1} << pad) - 1;
  begin.insert(begin.begin(), static_cast<size_t>(pad), 0);
  end.insert(end.begin(), static_cast<size_t>(pad), 1);
  strides.insert(strides.begin(), static_cast<size_t>(pad), 1);
  bool offset = node.attr_int("offset", 0) != 0;

  std::vector<StridedAxis> plan;
  for (int64_t d = 0; d < rank; ++d) {
    size_t i = static_cast<size_t>(d);
    int64_t size = x.shape[i], stride = strides[i];
    if (stride == 0) node_error(node, "stride 0 on axis " + std::to_string(d));
    // A stride longer than the axis takes at most one element: limited, so that the
    // arithmetic below stays small.
    stride = std::clamp<int64_t>(stride, -(size + 1), size + 1);
    int64_t start = begin[i] < 0 ? begin[i] + size : begin[i];
    start = stride > 0 ? clamp_index(start, 0, size) : clamp_index(start, -1, size - 1);
    if (begin_mask & (uint64_t{1} << d)) start = stride > 0 ? 0 : size - 1;
    bool shrink = (shrink_mask & (uint64_t{1} << d)) != 0;
    int64_t stop;
    if (shrink) {
      stop = start >= size ? start : start + 1;
    } else {
      // An offset end beyond +-(2 size + 2) clamps as that bound does; limited first, so the sum cannot overflow.
      stop = offset ? std::clamp<int64_t>(end[i], -(2 * size + 2), 2 * size + 2) + start : end[i];
      if (stop < 0) stop += size;
      stop = stride > 0 ? clamp_index(stop, 0, size) : clamp_index(stop, -1, size - 1);
      if (end_mask & (uint64_t{1} << d)) stop = stride > 0 ? size : -1;
    }
    // ceil((stop - start) / stride), at least 0
    int64_t span = stop - start;
    int64_t count = stride > 0 ? (span + stride - 1) / stride : (-span + -stride - 1) / -stride;
    count = std::max<int64_t>(count, 0);
    if (shrink && count != 1) node_error(node, "shrinks axis " + std::to_string(d) + " at " + std::to_string(begin[i]) + ", outside its " + std::to_string(size) + " elements");
    plan.push_back({start, stride, count, shrink});
  }
  return plan;
}

void infer_strided_slice(Graph& g, Node& node) {
  std::vector<int64_t> shape;
  for (const StridedAxis& a : plan_strided_slice(g, node))
    if (!a.shrink) shape.push_back(a.count);
  require_elements(node, shape);
  tflite::set_declared_output(g, node, 0, g.tensor(node.inputs[0]).dtype, shape);
}

LoweredOp lower_strided_slice(const LowerContext& ctx) {
  std::vector<StridedAxis> plan = plan_strided_slice(ctx.graph, ctx.node);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  const std::vector<int64_t>& y_shape = ctx.graph.tensor(ctx.node.outputs[0]).shape;
  return kb.finish(gather_elements(kb, x, y_shape, y, [&](const std::vector<Expr>& out) {
    std::vector<Expr> in;
    size_t next = 0;
    for (const StridedAxis& a : plan) {
      if (a.shrink) {
        in.push_back(ir::make_int(a.start));
        continue;
      }
      Expr strided = a.stride == 1 ? out[next] : out[next] * ir::make_int(a.stride);
      in.push_back(a.start == 0 ? strided : strided + ir::make_int(a.start));
      ++next;
    }
    return in;
  }));
}

// ---------------------------------------------------------------- PACK, UNPACK

// `shape` with `value` inserted before dimension `axis`.
template <typename T>
std::vector<T> inserted(std::vector<T> shape, int64_t axis, T value) {
  shape.insert(shape.begin() + axis, std::move(value));
  return shape;
}

// PACK: values_count tensors of one shape stacked along a new axis.
void infer_pack(Graph& g, Node& node) {
  const Tensor& first = require_input(g, node, 0);
  int64_t count = node.attr_int("values_count", static_cast<int64_t>(node.inputs.size()));
  if (count != static_cast<int64_t>(node.inputs.size()))
    node_error(node, "values_count " + std::to_string(count) + " but " + std::to_string(node.inputs.size()) + " inputs");
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    const Tensor& t = require_input(g, node, i);
    if (t.shape != first.shape || t.dtype != first.dtype)
      node_error(node, "input " + std::to_string(i) + " is " + t.dtype.str() + shape_str(t.shape) + ", input 0 " +
                           first.dtype.str() + shape_str(first.shape));
  }
  int64_t axis = normalize_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(first.shape.size()) + 1);
  tflite::set_declared_output(g, node, 0, first.dtype, inserted(first.shape, axis, count));
}

LoweredOp lower_pack(const LowerContext& ctx) {
  const Node& node = ctx.node;
  const std::vector<int64_t>& shape = ctx.graph.tensor(node.inputs[0]).shape;
  int64_t axis = normalize_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(shape.size()) + 1);
  KernelBuilder kb(ctx);
  ir::Buffer y = kb.output(0, "output");
  std::vector<ir::Stmt> copies;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    ir::Buffer x = kb.input(i, "input" + std::to_string(i));
    copies.push_back(for_each_element(shape, [&](const std::vector<Expr>& at) {
      return ir::store(y, inserted(at, axis, ir::make_int(static_cast<int64_t>(i))), element(x, at));
    }));
  }
  return kb.finish(ir::seq(copies));
}

// UNPACK: one output per index of `axis`, without that axis.
void infer_unpack(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  int64_t axis = normalize_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(x.shape.size()));
  int64_t num = node.attr_int("num", x.shape[static_cast<size_t>(axis)]);
  if (num != x.shape[static_cast<size_t>(axis)] || num != static_cast<int64_t>(node.outputs.size()))
    node_error(node, "num " + std::to_string(num) + " and " + std::to_string(node.outputs.size()) + " outputs for axis " +
                         std::to_string(axis) + " of " + shape_str(x.shape));
  std::vector<int64_t> shape = x.shape;
  shape.erase(shape.begin() + axis);
  for (size_t i = 0; i < node.outputs.size(); ++i) tflite::set_declared_output(g, node, i, x.dtype, shape);
}

LoweredOp lower_unpack(const LowerContext& ctx) {
  const Node& node = ctx.node;
  const Tensor& x_tensor = ctx.graph.tensor(node.inputs[0]);
  int64_t axis = normalize_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(x_tensor.shape.size()));
  std::vector<int64_t> shape = x_tensor.shape;
  shape.erase(shape.begin() + axis);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input");
  std::vector<ir::Stmt> copies;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] == kNoTensor) continue;
    ir::Buffer y = kb.output(i, "output" + std::to_string(i));
    copies.push_back(for_each_element(shape, [&](const std::vector<Expr>& at) {
      return store_element(y, at, ir::load(x, inserted(at, axis, ir::make_int(static_cast<int64_t>(i)))));
    }));
  }
  return kb.finish(ir::seq(copies));
}

// ---------------------------------------------------------------- DEPTH_TO_SPACE, SPACE_TO_DEPTH

// NHWC, TFLite's reference_ops: DEPTH_TO_SPACE moves channel block ((h % bs) * bs + w % bs)
// of input pixel (h / bs, w / bs) to output pixel (h, w); SPACE_TO_DEPTH is its inverse.
struct BlockGeometry {
  std::vector<int64_t> in, out;
  int64_t block;
};

BlockGeometry block_geometry(const Graph& g, const Node& node, bool to_space) {
  const Tensor& x = require_input(g, node, 0);
  if (x.shape.size() != 4) node_error(node, "input must be 4-D NHWC, got " + shape_str(x.shape));
  int64_t bs = node.attr_int("block_size", 0);
  if (bs < 1) node_error(node, "block_size must be at least 1");
  BlockGeometry b{x.shape, x.shape, bs};
  if (to_space) {
    if (x.shape[3] % (bs * bs) != 0)
      node_error(node, std::to_string(x.shape[3]) + " channels do not divide by block_size^2 = " + std::to_string(bs * bs));
    b.out = {x.shape[0], x.shape[1] * bs, x.shape[2] * bs, x.shape[3] / (bs * bs)};
  } else {
    if (x.shape[1] % bs != 0 || x.shape[2] % bs != 0)
      node_error(node, "height and width of " + shape_str(x.shape) + " do not divide by block_size " + std::to_string(bs));
    b.out = {x.shape[0], x.shape[1] / bs, x.shape[2] / bs, x.shape[3] * bs * bs};
  }
  return b;
}

void infer_block(Graph& g, Node& node, bool to_space) {
  BlockGeometry b = block_geometry(g, node, to_space);
  tflite::set_declared_output(g, node, 0, g.tensor(node.inputs[0]).dtype, b.out);
}

LoweredOp lower_block(const LowerContext& ctx, bool to_space) {
  BlockGeometry b = block_geometry(ctx.graph, ctx.node, to_space);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  Expr bs = ir::make_int(b.block);
  return kb.finish(gather_elements(kb, x, b.out, y, [&](const std::vector<Expr>& o) -> std::vector<Expr> {
    if (to_space) {
      Expr block = (o[1] % bs) * bs + o[2] % bs;
      return {o[0], o[1] / bs, o[2] / bs, block * ir::make_int(b.out[3]) + o[3]};
    }
    Expr block = o[3] / ir::make_int(b.in[3]);
    return {o[0], o[1] * bs + block / bs, o[2] * bs + block % bs, o[3] % ir::make_int(b.in[3])};
  }));
}

AOTC_REGISTER_OP("tfl.TRANSPOSE", tflite::translated_op(translate_transpose).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.CONCATENATION", tflite::translated_op(translate_concatenation).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.PAD", tflite::translated_op(translate_pad).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.PADV2", tflite::translated_op(translate_pad).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.SPLIT", tflite::translated_op(translate_split));
AOTC_REGISTER_OP("tfl.SPLIT_V", tflite::translated_op(translate_split_v));
AOTC_REGISTER_OP("tfl.SLICE", tflite::translated_op(translate_slice).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.GATHER", tflite::translated_op(translate_gather).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.TILE", tflite::translated_op(translate_tile).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.BROADCAST_TO", tflite::translated_op(translate_broadcast_to, check_broadcast_to).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.FILL", tflite::translated_op(translate_fill, check_fill).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.STRIDED_SLICE", kernel_op(infer_strided_slice, lower_strided_slice).with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.PACK", kernel_op(infer_pack, lower_pack));
AOTC_REGISTER_OP("tfl.UNPACK", kernel_op(infer_unpack, lower_unpack));
AOTC_REGISTER_OP("tfl.DEPTH_TO_SPACE", kernel_op([](Graph& g, Node& n) { infer_block(g, n, true); },
                                                 [](const LowerContext& ctx) { return lower_block(ctx, true); })
                                           .with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.SPACE_TO_DEPTH", kernel_op([](Graph& g, Node& n) { infer_block(g, n, false); },
                                                 [](const LowerContext& ctx) { return lower_block(ctx, false); })
                                           .with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
