// Sliding windows of the convolution and pooling operators; see window.h.
#include "lowering/compute/window.h"

#include <algorithm>
#include <stdexcept>

#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); }


enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

AutoPad read_auto_pad(const Node& node) {
  std::string mode = node.attr_string("auto_pad", "NOTSET");
  if (mode == "NOTSET" || mode.empty()) return AutoPad::kNotSet;
  if (mode == "SAME_UPPER") return AutoPad::kSameUpper;
  if (mode == "SAME_LOWER") return AutoPad::kSameLower;
  if (mode == "VALID") return AutoPad::kValid;
  node_error(node, "auto_pad '" + mode + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
}

bool read_ceil_mode(const Node& node) {
  int64_t ceil_mode = node.attr_int("ceil_mode", 0);
  if (ceil_mode != 0 && ceil_mode != 1) node_error(node, "ceil_mode must be 0 or 1");
  return ceil_mode == 1;
}

// Explicit pads: the output counts the window positions that fit in the padded input,
// rounding a partial last step down, or up with ceil_mode. With ceil_mode a last window
// that would start inside the end padding is dropped (it would see only padding).
void resolve_explicit(WindowAxis& axis, bool ceil_mode) {
  int64_t room = axis.input + axis.pad_begin + axis.pad_end - axis.span();
  if (room < 0) return;  // output stays 0: reported by the caller
  axis.output = (ceil_mode ? ceil_div(room, axis.stride) : room / axis.stride) + 1;
  if (ceil_mode && axis.last_start() >= axis.input) --axis.output;
}

// SAME_*: one output per stride step, padding split evenly with the odd element at the
// end (SAME_UPPER) or at the beginning (SAME_LOWER). ceil_mode makes no difference here.
void resolve_same(WindowAxis& axis, bool extra_at_begin) {
  axis.output = ceil_div(axis.input, axis.stride);
  int64_t total = std::max<int64_t>(0, (axis.output - 1) * axis.stride + axis.span() - axis.input);
  axis.pad_begin = extra_at_begin ? total - total / 2 : total / 2;
  axis.pad_end = total - axis.pad_begin;
}

// VALID: no padding, only windows entirely inside the input (ceil_mode again makes no
// difference: ceil((I - S + 1) / s) == floor((I - S) / s) + 1).
void resolve_valid(WindowAxis& axis) {
  axis.pad_begin = axis.pad_end = 0;
  int64_t room = axis.input - axis.span();
  axis.output = room < 0 ? 0 : room / axis.stride + 1;
}

// A pooling window that lies entirely in the padding would have nothing to reduce.
void check_pads_within_window(const Node& node, size_t index, const WindowAxis& axis) {
  if (std::max(axis.pad_begin, axis.pad_end) < axis.span()) return;
  node_error(node, "spatial axis " + std::to_string(index) + ": pads " + std::to_string(axis.pad_begin) + "+" +
                       std::to_string(axis.pad_end) + " must be smaller than the window extent " +
                       std::to_string(axis.span()));
}

}  // namespace

std::vector<int64_t> per_axis_attr(const Node& node, const std::string& name, size_t count, int64_t fallback,
                                   int64_t minimum) {
  if (!node.has_attr(name)) return std::vector<int64_t>(count, fallback);
  std::vector<int64_t> values = node.attr_ints(name);
  if (values.size() != count)
    node_error(node, "'" + name + "' has " + std::to_string(values.size()) + " values; expected " +
                         std::to_string(count));
  for (int64_t v : values) {
    if (v < minimum) node_error(node, "'" + name + "' values must be at least " + std::to_string(minimum));
    check_tensor_sized(node, "'" + name + "' value", v);  // window arithmetic adds and multiplies them
  }
  return values;
}

std::vector<WindowAxis> resolve_window(const Node& node, const std::vector<int64_t>& input_extents,
                                       const std::vector<int64_t>& kernel_extents, WindowKind kind) {
  size_t rank = input_extents.size();
  std::vector<int64_t> strides = per_axis_attr(node, "strides", rank, 1, 1);
  std::vector<int64_t> dilations = per_axis_attr(node, "dilations", rank, 1, 1);
  std::vector<int64_t> pads = per_axis_attr(node, "pads", 2 * rank, 0, 0);
  AutoPad auto_pad = read_auto_pad(node);
  bool pooling = kind == WindowKind::kPooling;
  bool ceil_mode = pooling && read_ceil_mode(node);

  std::vector<WindowAxis> axes(rank);
  for (size_t i = 0; i < rank; ++i) {
    WindowAxis& axis = axes[i];
    axis.input = input_extents[i];
    axis.kernel = kernel_extents[i];
    axis.stride = strides[i];
    axis.dilation = dilations[i];
    // ONNX lists all the begin pads, then all the end pads.
    axis.pad_begin = pads[i];
    axis.pad_end = pads[rank + i];
    if (pooling && auto_pad == AutoPad::kNotSet) check_pads_within_window(node, i, axis);
    switch (auto_pad) {
      case AutoPad::kNotSet: resolve_explicit(axis, ceil_mode); break;
      case AutoPad::kSameUpper: resolve_same(axis, false); break;
      case AutoPad::kSameLower: resolve_same(axis, true); break;
      case AutoPad::kValid: resolve_valid(axis); break;
    }
    if (axis.output < 1)
      node_error(node, "spatial axis " + std::to_string(i) + ": a window of extent " + std::to_string(axis.span()) +
                           " does not fit in the input extent " + std::to_string(axis.input) + " with pads " +
                           std::to_string(axis.pad_begin) + "+" + std::to_string(axis.pad_end));
  }
  return axes;
}

WindowAxis tflite_window_axis(const Node& node, const std::string& padding, int64_t input, int64_t filter,
                              int64_t stride, int64_t dilation, int spatial_axis) {
  WindowAxis axis;
  axis.input = input;
  axis.kernel = filter;
  axis.stride = stride;
  axis.dilation = dilation;
  if (padding == "SAME") {
    axis.output = (input + stride - 1) / stride;
    int64_t total = std::max<int64_t>((axis.output - 1) * stride + axis.span() - input, 0);
    axis.pad_begin = total / 2;
    axis.pad_end = total - axis.pad_begin;
  } else if (padding == "VALID") {
    axis.output = (input - axis.span() + stride) / stride;
  } else if (padding == "EXPLICIT" && (spatial_axis == 0 || spatial_axis == 1)) {
    std::vector<int64_t> pads = node.attr_ints("aotc.pads");
    if (pads.size() != 4) node_error(node, "aotc.pads must hold [top, bottom, left, right]");
    axis.pad_begin = pads[static_cast<size_t>(2 * spatial_axis)];
    axis.pad_end = pads[static_cast<size_t>(2 * spatial_axis + 1)];
    axis.output = (input + axis.pad_begin + axis.pad_end - axis.span() + stride) / stride;
  } else {
    node_error(node, "unknown padding '" + padding + "'");
  }
  if (axis.output <= 0) node_error(node, "the filter is larger than the input");
  return axis;
}

std::vector<int64_t> pooling_kernel_shape(const Node& node, size_t spatial_rank) {
  if (!node.has_attr("kernel_shape")) node_error(node, "the kernel_shape attribute is required");
  return per_axis_attr(node, "kernel_shape", spatial_rank, 1, 1);
}

void require_spatial_input(const Graph& g, const Node& node, size_t index) {
  require_float32(g, node, index);
  const Tensor& x = g.tensor(node.inputs[index]);
  if (x.shape.size() < 3)
    node_error(node, "input '" + x.name + "' has shape " + shape_str(x.shape) +
                         "; expected [N, C, D1, ...] with at least one spatial axis");
}

std::vector<std::string> spatial_names(char prefix, size_t rank) {
  static const char kAxisLetters[] = "dhw";
  std::vector<std::string> names;
  for (size_t i = 0; i < rank; ++i) {
    std::string suffix = rank <= 3 ? std::string(1, kAxisLetters[3 - rank + i]) : std::to_string(i);
    names.push_back(std::string(1, prefix) + suffix);
  }
  return names;
}

Expr tap_coordinate(const WindowAxis& axis, const Expr& o, const Expr& k) {
  return o * axis.stride + k * axis.dilation - axis.pad_begin;
}

TapRange tap_range(const WindowAxis& axis, const Expr& o, int64_t lo, int64_t hi) {
  bool clipped_low = axis.first_start() < lo;
  bool clipped_high = axis.last_start() + axis.span() > hi;
  // The window starts at o * stride - pad_begin, so taps k in [first, end) have
  // lo <= start + k * d < hi, with first = ceil((lo - start) / d) and end likewise for
  // hi. (a + d - 1) / d is ceil(a / d) for a > 0 and is <= 0 for a <= 0, where the clamp
  // to [0, kernel] applies (C division truncates toward zero).
  int64_t d = axis.dilation;
  auto ceil_steps_to = [&](int64_t bound) { return (Expr(bound + axis.pad_begin + d - 1) - o * axis.stride) / d; };
  Expr first = clipped_low ? ir::max(Expr(0), ceil_steps_to(lo)) : Expr(0);
  Expr end = clipped_high ? ir::min(Expr(axis.kernel), ceil_steps_to(hi)) : Expr(axis.kernel);
  return {first, end};
}

WindowTaps::WindowTaps(std::vector<WindowAxis> axes, std::vector<Expr> out_pos, TapBounds bounds)
    : axes_(std::move(axes)), out_pos_(std::move(out_pos)), bounds_(bounds), names_(spatial_names('k', axes_.size())) {
  for (size_t i = 0; i < axes_.size(); ++i) {
    bool clipped = bounds == TapBounds::kClip && axes_[i].can_leave_input();
    first_.push_back(clipped ? ir::make_var(names_[i] + "_first") : nullptr);
    end_.push_back(clipped ? ir::make_var(names_[i] + "_end") : nullptr);
  }
}

ir::Stmt WindowTaps::bind(ir::Stmt body) const {
  for (size_t i = axes_.size(); i-- > 0;) {
    if (!first_[i]) continue;
    TapRange range = tap_range(axes_[i], out_pos_[i], 0, axes_[i].input);
    body = ir::let(first_[i], range.first, ir::let(end_[i], range.end, body));
  }
  return body;
}

ir::Stmt WindowTaps::loops(const Visit& visit) const {
  size_t rank = axes_.size();
  std::vector<ir::Var> kernel_vars;
  std::vector<Expr> kernel_pos, input_pos;
  for (size_t i = 0; i < rank; ++i) {
    kernel_vars.push_back(ir::make_var(names_[i]));
    kernel_pos.push_back(ir::var_expr(kernel_vars.back()));
    input_pos.push_back(tap_coordinate(axes_[i], out_pos_[i], kernel_pos.back()));
  }
  // Innermost axis first; with kGuard each axis's check sits just inside its own loop, so
  // a row of padding is skipped whole.
  ir::Stmt body = visit(kernel_pos, input_pos);
  for (size_t i = rank; i-- > 0;) {
    const WindowAxis& axis = axes_[i];
    if (bounds_ == TapBounds::kGuard && axis.can_leave_input()) {
      bool low = axis.first_start() < 0, high = axis.last_start() + axis.span() > axis.input;
      Expr inside;
      if (low && high) {
        // 0 <= x < input as one unsigned comparison: a negative x wraps to a large value.
        inside = ir::cast(DataType::UInt(32), input_pos[i]) < ir::make_int(axis.input, DataType::UInt(32));
      } else {
        inside = low ? input_pos[i] >= 0 : input_pos[i] < axis.input;
      }
      body = ir::if_then_else(inside, body);
    }
    if (first_[i]) {
      Expr first = ir::var_expr(first_[i]);
      body = ir::for_loop(kernel_vars[i], first, ir::var_expr(end_[i]) - first, body);
    } else {
      body = ir::for_loop(kernel_vars[i], 0, axes_[i].kernel, body);
    }
  }
  return body;
}

Expr WindowTaps::count() const {
  if (bounds_ == TapBounds::kGuard) throw std::logic_error("WindowTaps::count needs clipped bounds");
  Expr n = 1;
  for (size_t i = 0; i < axes_.size(); ++i)
    n = n * (first_[i] ? ir::var_expr(end_[i]) - ir::var_expr(first_[i]) : Expr(axes_[i].kernel));
  return n;
}

ir::Stmt for_each_tap(const std::vector<WindowAxis>& axes, const std::vector<Expr>& out_pos,
                      const WindowTaps::Visit& visit) {
  WindowTaps taps(axes, out_pos);
  return taps.bind(taps.loops(visit));
}

std::vector<int64_t> windowed_output_shape(const std::vector<int64_t>& input_shape, int64_t channels,
                                           const std::vector<WindowAxis>& axes) {
  std::vector<int64_t> shape = {input_shape[0], channels};
  for (const WindowAxis& axis : axes) shape.push_back(axis.output);
  return shape;
}

Expr inside_input(const WindowAxis& y, const WindowAxis& x, const Expr& iy, const Expr& ix, bool check_x) {
  Expr valid;
  if (y.can_leave_input()) valid = ir::logical_and(iy >= 0, iy < ir::make_int(y.input));
  if (check_x && x.can_leave_input()) {
    Expr in_x = ir::logical_and(ix >= 0, ix < ir::make_int(x.input));
    valid = valid ? ir::logical_and(valid, in_x) : in_x;
  }
  return valid;
}

}  // namespace aotc
