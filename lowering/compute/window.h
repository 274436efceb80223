// Sliding windows: the geometry shared by every convolution and pooling operator, ONNX's
// and TFLite's, and the loops that visit the taps of one window.
//
// ONNX describes a window with kernel_shape, strides, dilations, pads, auto_pad and (for
// pooling) ceil_mode; TFLite with a filter size, strides, dilations and SAME or VALID
// padding. Both are resolved here, once, into explicit per-axis padding and output extents
// (WindowAxis), so that no two operators can disagree on what SAME_LOWER, ceil_mode or
// TFLite's SAME means.
//
// WindowTaps builds the loops over the taps of the window at one output position. Taps in
// the padding are never visited. On an axis where no window can reach past the input, the
// tap loop runs over the whole kernel with constant bounds and no check. On an axis where
// some window can, either the tap loop's bounds are clipped to the input (computed once
// per window, no branch per tap: TapBounds::kClip, what pooling uses, as its average
// needs the count), or the loop keeps its constant bounds and one unsigned comparison
// per axis skips the taps outside (TapBounds::kGuard: constant trip counts, which C
// compilers unroll; what convolutions use, measured fewer instructions on Cortex-M with
// gcc and clang). Either way the taps that are visited come in the same order, so a float
// sum over them is the same whatever the padding.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/graph/graph.h"
#include "lowering/ir/ir.h"

namespace aotc {

// One spatial axis of a sliding window, padding resolved.
struct WindowAxis {
  int64_t input = 0;  // extent of the (unpadded) input
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_begin = 0;
  int64_t pad_end = 0;
  int64_t output = 0;

  // Extent of one window in input coordinates.
  int64_t span() const { return (kernel - 1) * dilation + 1; }
  // Input coordinate of the first tap of the first and of the last window.
  int64_t first_start() const { return -pad_begin; }
  int64_t last_start() const { return (output - 1) * stride - pad_begin; }
  // True if some window has a tap before the input's start or after its end.
  bool can_leave_input() const { return first_start() < 0 || last_start() + span() > input; }
};

// Whether input position (iy, ix) lies inside the input, tested only on the axes where some
// window can leave it (x only if check_x); null when it always does.
ir::Expr inside_input(const WindowAxis& y, const WindowAxis& x, const ir::Expr& iy, const ir::Expr& ix, bool check_x);

// Pooling windows differ from convolution windows in two ways: they have a ceil_mode
// attribute, and (as in ONNX's shape inference) explicit pads must be smaller than the
// window, so that no window lies entirely in the padding.
enum class WindowKind { kConvolution, kPooling };

// Reads the ONNX window attributes of `node` for an input with spatial extents
// `input_extents` and a kernel with extents `kernel_extents`, validates them, and
// resolves auto_pad and ceil_mode. Reports anything invalid or unsupported with
// node_error.
std::vector<WindowAxis> resolve_window(const Node& node, const std::vector<int64_t>& input_extents,
                                       const std::vector<int64_t>& kernel_extents, WindowKind kind);

// One axis of a TFLite window: `padding` is "SAME" (output ceil(input / stride), the odd
// padding element at the end) or "VALID" (no padding), as TFLite's ComputePaddingHeightWidth
// computes them, or "EXPLICIT": the pads of a PAD folded into a convolution
// (aot/passes/fold_pad.cc), the node's aotc.pads [top, bottom, left, right] for
// `spatial_axis` 0 (height) or 1 (width). node_error if the window does not fit.
WindowAxis tflite_window_axis(const Node& node, const std::string& padding, int64_t input, int64_t filter,
                              int64_t stride, int64_t dilation, int spatial_axis = -1);

// A per-axis integer attribute (strides, dilations, pads...): `count` values, each at
// least `minimum` and at most kMaxTensorElements, or `fallback` for every axis when the
// attribute is absent.
std::vector<int64_t> per_axis_attr(const Node& node, const std::string& name, size_t count, int64_t fallback,
                                   int64_t minimum);

// The kernel_shape attribute of a pooling node: required, one positive value per
// spatial axis.
std::vector<int64_t> pooling_kernel_shape(const Node& node, size_t spatial_rank);

// Checks that `x` is a float32 [N, C, D1, ...] tensor with at least one spatial axis.
void require_spatial_input(const Graph& g, const Node& node, size_t index);

// Loop variable names for the spatial axes: {"oh", "ow"} for prefix 'o' and rank 2,
// {"od", "oh", "ow"} for rank 3, {"o0", "o1", ...} beyond.
std::vector<std::string> spatial_names(char prefix, size_t rank);

// Input coordinate of tap `k` of the window at output position `o`.
ir::Expr tap_coordinate(const WindowAxis& axis, const ir::Expr& o, const ir::Expr& k);

// The taps k in [first, end) of the window at output position `o` whose input coordinate
// lies in [lo, hi): constants when no window reaches outside [lo, hi), else expressions
// in `o`. end - first may be negative when no tap qualifies.
struct TapRange {
  ir::Expr first, end;
};
TapRange tap_range(const WindowAxis& axis, const ir::Expr& o, int64_t lo, int64_t hi);

enum class TapBounds { kClip, kGuard };

// The taps of the window at one output position that lie inside the input. `bind`
// computes the clipped tap bounds (once per window: wrap it around everything that loops
// over the window, e.g. a channel loop around the taps), `loops` visits the taps,
// outermost axis first, calling `visit(kernel_pos, input_pos)` for each.
class WindowTaps {
 public:
  using Visit = std::function<ir::Stmt(const std::vector<ir::Expr>& kernel_pos, const std::vector<ir::Expr>& input_pos)>;

  WindowTaps(std::vector<WindowAxis> axes, std::vector<ir::Expr> out_pos, TapBounds bounds = TapBounds::kClip);
  ir::Stmt bind(ir::Stmt body) const;
  ir::Stmt loops(const Visit& visit) const;
  // How many taps `loops` visits (kClip only).
  ir::Expr count() const;

 private:
  std::vector<WindowAxis> axes_;
  std::vector<ir::Expr> out_pos_;
  TapBounds bounds_;
  std::vector<std::string> names_;
  std::vector<ir::Var> first_, end_;  // set for clipped axes only
};

// WindowTaps(axes, out_pos).bind(....loops(visit)).
ir::Stmt for_each_tap(const std::vector<WindowAxis>& axes, const std::vector<ir::Expr>& out_pos,
                      const WindowTaps::Visit& visit);

// The input shape with the spatial extents replaced by the windows' output extents:
// [N, C, D1, ...] -> [N, C, O1, ...] (with C replaced by `channels`).
std::vector<int64_t> windowed_output_shape(const std::vector<int64_t>& input_shape, int64_t channels,
                                           const std::vector<WindowAxis>& axes);

}  // namespace aotc
