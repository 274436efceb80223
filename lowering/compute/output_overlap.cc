#include "lowering/compute/output_overlap.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace aotc {

int64_t pixel_order_overlap_distance(const std::vector<WindowAxis>& axes, int64_t in_pixel_bytes, int64_t out_pixel_bytes,
                                     int pixels_in_flight) {
  if (axes.empty() || axes.size() > 2 || pixels_in_flight < 1)
    throw std::logic_error("pixel_order_overlap_distance: one or two axes, a pixel in flight at least");
  const WindowAxis one_row{1, 1, 1, 1, 0, 0, 1};
  const WindowAxis& y = axes.size() == 2 ? axes[0] : one_row;
  const WindowAxis& x = axes.back();
  auto clamp = [](int64_t v, int64_t extent) { return std::min(std::max<int64_t>(v, 0), extent - 1); };
  const int64_t pixels = y.output * x.output;
  // need_from[p]: the first input byte the windows of pixels p, p+1, ... read.
  std::vector<int64_t> need_from(static_cast<size_t>(pixels) + 1, std::numeric_limits<int64_t>::max());
  for (int64_t p = pixels - 1; p >= 0; --p) {
    int64_t oy = p / x.output, ox = p % x.output;
    int64_t first = (clamp(oy * y.stride - y.pad_begin, y.input) * x.input + clamp(ox * x.stride - x.pad_begin, x.input)) *
                    in_pixel_bytes;
    need_from[static_cast<size_t>(p)] = std::min(need_from[static_cast<size_t>(p) + 1], first);
  }
  int64_t distance = 0;
  for (int64_t p = 0; p < pixels; ++p) {
    int64_t still_read = need_from[static_cast<size_t>(std::max<int64_t>(0, p - (pixels_in_flight - 1)))];
    distance = std::max(distance, (p + 1) * out_pixel_bytes - still_read);
  }
  return distance;
}

void allow_channel_plane_overlap(LoweredOp& lowered, const Graph& graph, TensorId input, TensorId output) {
  if (input == kNoTensor || output == kNoTensor) return;
  if (std::count(lowered.in_place_inputs.begin(), lowered.in_place_inputs.end(), input)) return;
  const Tensor& in = graph.tensor(input);
  const Tensor& out = graph.tensor(output);
  if (in.shape.empty() || out.shape.empty() || in.shape.back() != out.shape.back()) return;
  if (in.dtype.bits % 8 != 0 || in.dtype.bytes() != out.dtype.bytes()) return;
  lowered.overlap_input = input;
  lowered.overlap_distance = 0;
  lowered.overlap_at_start = true;
}

void allow_pixel_order_overlap(LoweredOp& lowered, const Graph& graph, TensorId input, TensorId output,
                               const std::vector<WindowAxis>& axes, int pixels_in_flight) {
  if (input == kNoTensor || output == kNoTensor || axes.empty() || axes.size() > 2) return;
  if (std::count(lowered.in_place_inputs.begin(), lowered.in_place_inputs.end(), input)) return;
  const Tensor& in = graph.tensor(input);
  const Tensor& out = graph.tensor(output);
  if (in.dtype.bits % 8 != 0 || out.dtype.bits % 8 != 0) return;  // packed sub-byte elements
  if (in.shape.size() != axes.size() + 2 || out.shape.size() != axes.size() + 2 || in.shape[0] != 1 || out.shape[0] != 1)
    return;
  for (size_t a = 0; a < axes.size(); ++a)
    if (in.shape[a + 1] != axes[a].input || out.shape[a + 1] != axes[a].output) return;
  int64_t in_pixel_bytes = in.shape.back() * in.dtype.bytes(), out_pixel_bytes = out.shape.back() * out.dtype.bytes();
  lowered.overlap_input = input;
  lowered.overlap_distance = pixel_order_overlap_distance(axes, in_pixel_bytes, out_pixel_bytes, pixels_in_flight);
}

}  // namespace aotc
