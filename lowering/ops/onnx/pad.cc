// Pad: grows (or, with negative pads, crops) each axis of a tensor, filling the new
// elements with a constant or from the data itself (modes reflect, edge and wrap, as in
// numpy.pad); and CenterCropPad (opset 18), a centred crop or zero pad of each axis to a
// given size. Both copy elements as they are, for every data type.
//
// The pads decide the output shape, so they must be known at compile time: attributes
// before opset 11, constant inputs since (the optional `axes` input of opset 18 too).
// The constant fill value may be a run-time input.
//
// Negative pads crop first, and the padding modes then apply to what is left; this is
// onnxruntime's behaviour, which numpy (ONNX's reference) leaves undefined.
//
// Lowering: constant mode fills the whole output with the value, then copies the kept
// input into its interior: no per-element bounds test. The other modes compute, per
// axis, which input element each output element repeats, and gather it.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

// Along one axis the output is `before` filled elements, the `kept` input elements that
// start at `crop_begin`, and `after` filled elements.
struct AxisPadding {
  int64_t before = 0, after = 0;
  int64_t crop_begin = 0;
  int64_t kept = 0;
  int64_t output_extent() const { return before + kept + after; }
  bool is_identity() const { return before == 0 && after == 0; }
};

struct PadPlan {
  std::string mode;
  std::vector<AxisPadding> axes;  // one per input dimension
};

const std::vector<std::string>& supported_modes() {
  static const std::vector<std::string> kModes = {"constant", "reflect", "edge", "wrap"};
  return kModes;
}

// The pads in ONNX's layout [begin of each listed axis..., end of each listed axis...],
// spread over all `rank` dimensions.
std::vector<int64_t> full_rank_pads(const Graph& g, const Node& node, int64_t rank) {
  std::vector<int64_t> pads;
  std::vector<int64_t> axes(static_cast<size_t>(rank));
  std::iota(axes.begin(), axes.end(), int64_t{0});
  if (g.opset < 11) {
    pads = node.has_attr("paddings") ? node.attr_ints("paddings") : node.attr_ints("pads");  // opset 1 : 2
  } else {
    pads = constant_ints(g, node, 1, "pads");
    if (node.input(3) != kNoTensor) {
      axes = constant_ints(g, node, 3, "axes");
      for (int64_t& axis : axes) axis = normalize_axis(node, axis, rank);
      std::vector<int64_t> sorted = axes;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        node_error(node, "axes " + shape_str(axes) + " lists an axis twice");
    }
  }
  for (int64_t pad : pads) check_tensor_sized(node, "pads value", pad);  // the output extent adds them
  size_t listed = axes.size();
  if (pads.size() != 2 * listed)
    node_error(node, "pads has " + std::to_string(pads.size()) + " entries; expected " + std::to_string(2 * listed) +
                         " (a begin and an end for each of " + std::to_string(listed) + " axes)");
  std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
  for (size_t i = 0; i < listed; ++i) {
    full[static_cast<size_t>(axes[i])] = pads[i];
    full[static_cast<size_t>(axes[i] + rank)] = pads[i + listed];
  }
  return full;
}

PadPlan plan_pad(const Graph& g, const Node& node) {
  PadPlan plan;
  plan.mode = node.attr_string("mode", "constant");
  const auto& modes = supported_modes();
  if (std::find(modes.begin(), modes.end(), plan.mode) == modes.end())
    node_error(node, "mode '" + plan.mode + "' is not supported (constant, reflect, edge, wrap)");
  const std::vector<int64_t>& shape = require_input(g, node, 0).shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> pads = full_rank_pads(g, node, rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t begin = pads[static_cast<size_t>(d)], end = pads[static_cast<size_t>(d + rank)];
    AxisPadding axis;
    axis.before = std::max<int64_t>(begin, 0);
    axis.after = std::max<int64_t>(end, 0);
    axis.crop_begin = std::max<int64_t>(-begin, 0);
    axis.kept = shape[static_cast<size_t>(d)] - axis.crop_begin - std::max<int64_t>(-end, 0);
    if (axis.kept < 0)
      node_error(node, "pads " + std::to_string(begin) + ", " + std::to_string(end) + " remove more than the " +
                           std::to_string(shape[static_cast<size_t>(d)]) + " elements of axis " + std::to_string(d));
    if (axis.kept == 0 && !axis.is_identity() && plan.mode != "constant")
      node_error(node, "mode '" + plan.mode + "' cannot pad axis " + std::to_string(d) + ", which has no elements");
    plan.axes.push_back(axis);
  }
  return plan;
}

void infer_pad(Graph& g, Node& node) {
  PadPlan plan = plan_pad(g, node);
  const Tensor& x = g.tensor(node.inputs[0]);
  if (g.opset >= 11 && node.input(2) != kNoTensor) {
    const Tensor& value = require_input(g, node, 2);
    if (value.dtype != x.dtype)
      node_error(node, "constant_value is " + value.dtype.str() + " but the data is " + x.dtype.str());
    if (value.num_elements() != 1) node_error(node, "constant_value must be a scalar, got " + shape_str(value.shape));
  }
  std::vector<int64_t> shape;
  for (const AxisPadding& axis : plan.axes) shape.push_back(axis.output_extent());
  set_output(g, node, 0, x.dtype, shape);
}

// ---------------------------------------------------------------- index arithmetic

Expr absolute(Expr v) { return ir::max(v, -v); }

// v mod n in [0, n) for v >= lowest, with a single C `%` (which truncates toward zero).
Expr positive_mod(Expr v, int64_t n, int64_t lowest) {
  int64_t lift = lowest < 0 ? (-lowest + n - 1) / n * n : 0;
  return (v + ir::make_int(lift)) % ir::make_int(n);
}

// Index j of an axis of `n` elements, mirrored at both ends without repeating the end
// element (numpy's "reflect"): the sequence is periodic with period 2 (n - 1).
Expr reflect_index(Expr j, const AxisPadding& axis) {
  int64_t n = axis.kept;
  if (n == 1) return 0;
  Expr last = ir::make_int(n - 1);
  auto mirror_at_last = [&](Expr m) { return last - absolute(last - m); };  // for m in [0, 2 (n - 1)]
  // Pads wider than n - 1 reflect more than once: reduce j modulo the period first.
  if (axis.before > n - 1 || axis.after > n - 1) return mirror_at_last(positive_mod(j, 2 * (n - 1), -axis.before));
  // Otherwise at most one mirror per end, and only where there is padding (the modulo
  // is slow on small cores, and the simpler index is easier to read in the C).
  Expr m = axis.before > 0 ? absolute(j) : j;
  return axis.after > 0 ? mirror_at_last(m) : m;
}

// The input index along one axis that output index `out` repeats.
Expr source_index(const std::string& mode, const AxisPadding& axis, Expr out) {
  Expr j = out - ir::make_int(axis.before);  // relative to the first kept element
  Expr within = j;
  if (!axis.is_identity()) {
    if (mode == "edge") within = ir::min(ir::max(j, 0), ir::make_int(axis.kept - 1));
    else if (mode == "wrap") within = positive_mod(j, axis.kept, -axis.before);
    else within = reflect_index(j, axis);
  }
  return within + ir::make_int(axis.crop_begin);
}

// ---------------------------------------------------------------- lowering

// The fill value as an expression of the data's type.
Expr fill_value(KernelBuilder& kb, const Graph& g, const Node& node, DataType dtype) {
  double value = node.attr_float("value", 0.0);
  if (g.opset >= 11) {
    TensorId id = node.input(2);
    if (id == kNoTensor) return ir::make_zero(dtype);
    const Tensor& t = g.tensor(id);
    if (!t.is_constant()) {
      ir::Buffer buffer = kb.input(2, "constant_value");
      return ir::load(buffer, std::vector<Expr>(buffer->shape.size(), Expr(0)));
    }
    if (!dtype.is_float()) return ir::make_int(t.element_as_int(0), dtype);  // exact, even for int64
    value = t.element_as_double(0);
  }
  if (dtype.is_float()) return ir::make_float(value, dtype);
  if (!(std::fabs(value) < 9223372036854775808.0))
    node_error(node, "the fill value does not fit " + dtype.str() + " (it is not a finite number within int64's range)");
  return ir::make_int(static_cast<int64_t>(value), dtype);
}

// Constant padding with a fused epilogue, in one pass that writes each output element once:
// the epilogue's operands may share the output's memory (KernelBuilder::finish: element i is
// read just before output element i is written), which a fill and then a copy over it would
// break, the copy reading an operand element the fill has overwritten.
ir::Stmt pad_in_one_pass(KernelBuilder& kb, const PadPlan& plan, const ir::Buffer& x, const ir::Buffer& y, Expr value) {
  return ir::loop_nest(y->shape, {}, [&](const std::vector<Expr>& out_index) {
    std::vector<Expr> in_index;
    Expr inside;
    for (size_t d = 0; d < plan.axes.size(); ++d) {
      const AxisPadding& axis = plan.axes[d];
      in_index.push_back(source_index("edge", axis, out_index[d]));  // clamped: a valid load
      if (axis.is_identity()) continue;
      Expr j = out_index[d] - ir::make_int(axis.before);
      Expr within = ir::logical_and(j >= 0, j < ir::make_int(axis.kept));
      inside = inside ? ir::logical_and(inside, within) : within;
    }
    Expr element = ir::load(x, in_index);
    return ir::store(y, out_index, kb.epilogue(inside ? ir::select(inside, element, value) : element, out_index));
  });
}

ir::Stmt fill_then_copy(KernelBuilder& kb, const PadPlan& plan, const ir::Buffer& x, const ir::Buffer& y, Expr value) {
  bool fills_something = std::any_of(plan.axes.begin(), plan.axes.end(), [](const AxisPadding& a) { return !a.is_identity(); });
  bool copies_something = std::all_of(plan.axes.begin(), plan.axes.end(), [](const AxisPadding& a) { return a.kept > 0; });
  if (fills_something && copies_something && !kb.node().body.empty()) return pad_in_one_pass(kb, plan, x, y, value);
  ir::Stmt fill = ir::loop_nest(y->shape, {}, [&](const std::vector<Expr>& out_index) {
    return ir::store(y, out_index, kb.epilogue(value, out_index));
  });
  std::vector<int64_t> kept_shape;
  for (const AxisPadding& axis : plan.axes) kept_shape.push_back(axis.kept);
  ir::Stmt copy = ir::loop_nest(kept_shape, {}, [&](const std::vector<Expr>& kept_index) {
    std::vector<Expr> in_index, out_index;
    for (size_t d = 0; d < plan.axes.size(); ++d) {
      in_index.push_back(kept_index[d] + ir::make_int(plan.axes[d].crop_begin));
      out_index.push_back(kept_index[d] + ir::make_int(plan.axes[d].before));
    }
    return ir::store(y, out_index, kb.epilogue(ir::load(x, in_index), out_index));
  });
  return ir::seq({fills_something ? fill : ir::Stmt(), copy});
}

ir::Stmt gather(KernelBuilder& kb, const PadPlan& plan, const ir::Buffer& x, const ir::Buffer& y) {
  return ir::loop_nest(y->shape, {}, [&](const std::vector<Expr>& out_index) {
    std::vector<Expr> in_index;
    for (size_t d = 0; d < plan.axes.size(); ++d) in_index.push_back(source_index(plan.mode, plan.axes[d], out_index[d]));
    return ir::store(y, out_index, kb.epilogue(ir::load(x, in_index), out_index));
  });
}

LoweredOp lower_pad(const Graph& g, const Node& node, KernelBuilder& kb) {
  PadPlan plan = plan_pad(g, node);
  // A scalar is stored as a one-element array: treat it as one unpadded axis.
  if (plan.axes.empty()) plan.axes.push_back(AxisPadding{0, 0, 0, 1});
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  if (y->num_elements() == 0) return kb.finish(ir::seq({}));
  if (plan.mode == "constant") return kb.finish(fill_then_copy(kb, plan, x, y, fill_value(kb, g, node, x->dtype)));
  return kb.finish(gather(kb, plan, x, y));
}

// ---------------------------------------------------------------- CenterCropPad

// Each listed axis (all, without `axes`) becomes the size the shape input gives: centred,
// by cropping a longer axis or padding a shorter one with zeros. When the difference is
// odd, the extra element is cropped (or padded) at the end. That is a Pad with the
// difference split into pads, negative where it crops.
PadPlan plan_center_crop_pad(const Graph& g, const Node& node) {
  const std::vector<int64_t>& shape = require_input(g, node, 0).shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> sizes = constant_ints(g, node, 1, "shape");
  std::vector<int64_t> axes(static_cast<size_t>(rank));
  std::iota(axes.begin(), axes.end(), int64_t{0});
  if (node.has_attr("axes")) axes = node.attr_ints("axes");
  if (sizes.size() != axes.size())
    node_error(node, "shape has " + std::to_string(sizes.size()) + " entries for " + std::to_string(axes.size()) + " axes");
  PadPlan plan;
  plan.mode = "constant";
  for (int64_t dim : shape) plan.axes.push_back(AxisPadding{0, 0, 0, dim});
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t axis = static_cast<size_t>(normalize_axis(node, axes[i], rank));
    if (seen[axis]) node_error(node, "axes " + shape_str(axes) + " name an axis twice");
    seen[axis] = true;
    if (sizes[i] < 1) node_error(node, "shape " + shape_str(sizes) + " has a size below 1");
    int64_t difference = sizes[i] - shape[axis];
    AxisPadding& a = plan.axes[axis];
    if (difference >= 0) {
      a.before = difference / 2;
      a.after = difference - a.before;
    } else {
      a.crop_begin = -difference / 2;
      a.kept = sizes[i];
    }
  }
  return plan;
}

void infer_center_crop_pad(Graph& g, Node& node) {
  PadPlan plan = plan_center_crop_pad(g, node);
  std::vector<int64_t> shape;
  for (const AxisPadding& axis : plan.axes) shape.push_back(axis.output_extent());
  set_output(g, node, 0, g.tensor(node.inputs[0]).dtype, shape);
}

LoweredOp lower_center_crop_pad(const Graph& g, const Node& node, KernelBuilder& kb) {
  PadPlan plan = plan_center_crop_pad(g, node);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  return kb.finish(fill_then_copy(kb, plan, x, y, ir::make_zero(x->dtype)));
}

AOTC_REGISTER_OP("Pad", kernel_op(infer_pad, lower_pad).with({Role::kAnchor}));
AOTC_REGISTER_OP("CenterCropPad", kernel_op(infer_center_crop_pad, lower_center_crop_pad).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
