// Sliding-window geometry shared by Conv, MaxPool and AveragePool.
//
// ONNX describes a window with kernel_shape, strides, dilations, pads, auto_pad and (for
// pooling) ceil_mode. These are resolved here, once, into explicit per-axis padding and
// output extents, so that the operators cannot disagree on what SAME_LOWER or ceil_mode
// means. The same file builds the loop IR that visits the taps of one window, skipping
// taps that fall into the padding; guards are emitted only on the axes where a tap can
// actually leave the input, so an unpadded convolution has no branches at all.
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
};

// Pooling windows differ from convolution windows in two ways: they have a ceil_mode
// attribute, and (as in ONNX's shape inference) explicit pads must be smaller than the
// window, so that no window lies entirely in the padding.
enum class WindowKind { kConvolution, kPooling };

// Reads the window attributes of `node` for an input with spatial extents
// `input_extents` and a kernel with extents `kernel_extents`, validates them, and
// resolves auto_pad and ceil_mode. Reports anything invalid or unsupported with
// node_error.
std::vector<WindowAxis> resolve_window(const Node& node, const std::vector<int64_t>& input_extents,
                                       const std::vector<int64_t>& kernel_extents, WindowKind kind);

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

// Loops over the taps of the window at `out_pos` (one output coordinate per axis) and
// calls `visit(kernel_pos, input_pos)` for each tap inside the input; taps in the
// padding are skipped.
ir::Stmt for_each_tap(const std::vector<WindowAxis>& axes, const std::vector<ir::Expr>& out_pos,
                      const std::function<ir::Stmt(const std::vector<ir::Expr>& kernel_pos,
                                                   const std::vector<ir::Expr>& input_pos)>& visit);

// The input shape with the spatial extents replaced by the windows' output extents:
// [N, C, D1, ...] -> [N, C, O1, ...] (with C replaced by `channels`).
std::vector<int64_t> windowed_output_shape(const std::vector<int64_t>& input_shape, int64_t channels,
                                           const std::vector<WindowAxis>& axes);

}  // namespace aotc
