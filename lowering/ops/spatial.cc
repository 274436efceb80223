// Sliding-window geometry shared by Conv, MaxPool and AveragePool; see spatial.h.
#include "lowering/ops/spatial.h"

#include <algorithm>

#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -(-a / b); }

// A per-axis integer attribute: `count` values, each at least `minimum`, or `fallback`
// for every axis when the attribute is absent.
std::vector<int64_t> per_axis_attr(const Node& node, const std::string& name, size_t count, int64_t fallback,
                                   int64_t minimum) {
  if (!node.has_attr(name)) return std::vector<int64_t>(count, fallback);
  std::vector<int64_t> values = node.attr_ints(name);
  if (values.size() != count)
    node_error(node, "'" + name + "' has " + std::to_string(values.size()) + " values; expected " +
                         std::to_string(count));
  for (int64_t v : values)
    if (v < minimum) node_error(node, "'" + name + "' values must be at least " + std::to_string(minimum));
  return values;
}

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

ir::Stmt for_each_tap(const std::vector<WindowAxis>& axes, const std::vector<Expr>& out_pos,
                      const std::function<ir::Stmt(const std::vector<Expr>& kernel_pos,
                                                   const std::vector<Expr>& input_pos)>& visit) {
  size_t rank = axes.size();
  std::vector<std::string> names = spatial_names('k', rank);
  std::vector<ir::Var> kernel_vars;
  std::vector<Expr> kernel_pos, input_pos;
  for (size_t i = 0; i < rank; ++i) {
    kernel_vars.push_back(ir::make_var(names[i]));
    kernel_pos.push_back(ir::var_expr(kernel_vars.back()));
    input_pos.push_back(tap_coordinate(axes[i], out_pos[i], kernel_pos.back()));
  }
  // Innermost axis first; each axis's guard sits just inside its own loop, so a row of
  // padding is skipped whole.
  ir::Stmt body = visit(kernel_pos, input_pos);
  for (size_t i = rank; i-- > 0;) {
    const WindowAxis& axis = axes[i];
    Expr inside;
    auto require = [&](Expr condition) { inside = inside ? ir::logical_and(inside, condition) : condition; };
    if (axis.first_start() < 0) require(input_pos[i] >= 0);
    if (axis.last_start() + axis.span() > axis.input) require(input_pos[i] < axis.input);
    if (inside) body = ir::if_then_else(inside, body);
    body = ir::for_loop(kernel_vars[i], 0, axis.kernel, body);
  }
  return body;
}

std::vector<int64_t> windowed_output_shape(const std::vector<int64_t>& input_shape, int64_t channels,
                                           const std::vector<WindowAxis>& axes) {
  std::vector<int64_t> shape = {input_shape[0], channels};
  for (const WindowAxis& axis : axes) shape.push_back(axis.output);
  return shape;
}

}  // namespace aotc
