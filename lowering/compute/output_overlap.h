// How far below its input a window kernel's output may begin, when the kernel writes its
// output pixel by pixel: the distance the memory planner's overlap needs
// (aot/base/memory_planner.h, LoweredOp::overlap_input).
//
// The contract a kernel declares (Kernel::pixels_in_flight = n, kernel_registry.h): on a
// channels-last input of one batch, it writes output pixels in row-major order, and when
// it writes a byte of output pixel p it has read, for the last time, all that the windows
// of the pixels before p - (n - 1) read. Whatever it reads from then on lies in the
// windows of pixels p - (n - 1), p - (n - 2), ..., each of which begins at its first tap
// (top row, left column, channel 0; clamped into the input, since a window that starts in
// the padding reads from the input's edge): from byte
//   need(p) = min over q >= p - (n - 1) of first(q)
// of the input on. With the output D bytes below the input, pixel p's bytes end at
// (p + 1) * out_pixel_bytes - D from the input's start, so nothing still to be read is
// overwritten if
//   D >= max over p of ((p + 1) * out_pixel_bytes - need(p)).
// That maximum is the distance. Stride, dilation and kernel size enter only through the
// first taps. A 1x1 convolution that doubles the channels, pixel by pixel, then needs its
// output and one input pixel, where apart they need output and input; a stride-2 3x3
// convolution about its input and one output row.
//
// Pixels rather than whole rows, because a kernel that works on pairs of pixels (the DSP
// blocks) straddles the ends of rows, and a pointwise convolution, the peak of most
// mobile networks, overlaps all but a pixel or two.
#pragma once

#include <cstdint>
#include <vector>

#include "aot/graph/lowered_op.h"
#include "lowering/compute/window.h"

namespace aotc {

// The distance for a window over `axes` (one or two spatial axes: width, or height and
// width), an input of `in_pixel_bytes` per pixel, an output of `out_pixel_bytes`, and a
// kernel with `pixels_in_flight` >= 1.
int64_t pixel_order_overlap_distance(const std::vector<WindowAxis>& axes, int64_t in_pixel_bytes, int64_t out_pixel_bytes,
                                     int pixels_in_flight);

// Declares the overlap of such a kernel (LoweredOp::overlap_input) when `input` and
// `output` are channels-last tensors of one batch over `axes`: shapes [1, (height,) width,
// channels] whose spatial extents are the axes' input and output, of whole bytes per
// element. Not where the kernel writes in place over `input` (a staged kernel, in
// LoweredOp::in_place_inputs): staging keeps an order of its own (channel by channel).
void allow_pixel_order_overlap(LoweredOp& lowered, const Graph& graph, TensorId input, TensorId output,
                               const std::vector<WindowAxis>& axes, int pixels_in_flight);

// Declares the overlap at the start (LoweredOp::overlap_at_start) of a kernel that works
// channel plane by channel plane (Kernel::channel_planes), when `input` and `output` are
// channels-last tensors of as many channels, of elements of the same whole number of bytes,
// and the kernel does not already write in place over `input`.
void allow_channel_plane_overlap(LoweredOp& lowered, const Graph& graph, TensorId input, TensorId output);

}  // namespace aotc
