// The overlap distance of a kernel that writes pixels in order (lowering/compute/
// output_overlap.h) against a simulation written from the contract: every input byte's
// last reader (the last output pixel whose window, all taps and channels inside the input,
// reads it), and the smallest distance at which no output pixel p lands on a byte that a
// pixel from p - (n - 1) on still reads. The formula must never be below that (else a
// kernel would overwrite what it has yet to read); where every window's first tap lies in
// the input (no padding), it must be exactly that.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "lowering/compute/output_overlap.h"

namespace aotc {
namespace {

struct Layer {
  WindowAxis y, x;
  int64_t in_channels = 1, out_channels = 1;
};

// The smallest distance D >= 0 at which no output byte of pixel p lies on an input byte
// whose last reader is p - (in_flight - 1) or later.
int64_t simulated_distance(const Layer& l, int in_flight) {
  const int64_t in_bytes = l.y.input * l.x.input * l.in_channels;
  std::vector<int64_t> last_reader(static_cast<size_t>(in_bytes), -1);
  for (int64_t oy = 0; oy < l.y.output; ++oy)
    for (int64_t ox = 0; ox < l.x.output; ++ox)
      for (int64_t ky = 0; ky < l.y.kernel; ++ky)
        for (int64_t kx = 0; kx < l.x.kernel; ++kx) {
          int64_t iy = oy * l.y.stride - l.y.pad_begin + ky * l.y.dilation;
          int64_t ix = ox * l.x.stride - l.x.pad_begin + kx * l.x.dilation;
          if (iy < 0 || iy >= l.y.input || ix < 0 || ix >= l.x.input) continue;
          for (int64_t c = 0; c < l.in_channels; ++c)
            last_reader[static_cast<size_t>((iy * l.x.input + ix) * l.in_channels + c)] = oy * l.x.output + ox;
        }
  const int64_t out_pixels = l.y.output * l.x.output;
  for (int64_t distance = 0;; ++distance) {
    bool clobbers = false;
    for (int64_t o = 0; o < out_pixels * l.out_channels && !clobbers; ++o) {
      int64_t b = o - distance, p = o / l.out_channels;
      clobbers = b >= 0 && b < in_bytes && last_reader[static_cast<size_t>(b)] >= p - (in_flight - 1);
    }
    if (!clobbers) return distance;
  }
}

WindowAxis random_axis(std::mt19937& rng, bool padded) {
  WindowAxis a;
  a.kernel = 1 + static_cast<int64_t>(rng() % 4);
  a.stride = 1 + static_cast<int64_t>(rng() % 3);
  a.dilation = 1 + static_cast<int64_t>(rng() % 2);
  a.input = a.span() + static_cast<int64_t>(rng() % 9);
  if (padded) {
    a.pad_begin = static_cast<int64_t>(rng() % static_cast<unsigned>(a.span()));
    a.pad_end = static_cast<int64_t>(rng() % static_cast<unsigned>(a.span()));
  }
  a.output = (a.input + a.pad_begin + a.pad_end - a.span()) / a.stride + 1;
  return a;
}

// Layers drawn at random, with or without padding, and how many pixels a kernel has in
// flight: the formula's distance and the simulated one for each.
std::vector<std::pair<int64_t, int64_t>> formula_and_simulation(unsigned seed, bool padded) {
  std::mt19937 rng(seed);
  std::vector<std::pair<int64_t, int64_t>> distances;
  for (int trial = 0; trial < 300; ++trial) {
    Layer l{random_axis(rng, padded), random_axis(rng, padded), 1 + static_cast<int64_t>(rng() % 5),
            1 + static_cast<int64_t>(rng() % 9)};
    int in_flight = 1 + static_cast<int>(rng() % 4);
    distances.emplace_back(pixel_order_overlap_distance({l.y, l.x}, l.in_channels, l.out_channels, in_flight),
                           simulated_distance(l, in_flight));
  }
  return distances;
}

TEST(OutputOverlap, DistanceIsTheSimulatedOneWithoutPadding) {
  for (auto& [formula, simulated] : formula_and_simulation(29, false)) EXPECT_EQ(formula, simulated);
}

TEST(OutputOverlap, DistanceIsNeverBelowTheSimulatedOneWithPadding) {
  for (auto& [formula, simulated] : formula_and_simulation(30, true)) EXPECT_GE(formula, simulated);
}

TEST(OutputOverlap, PointwiseExpansionNeedsItsOutputAndOnePixel) {
  // 1x1, 8 -> 16 channels over 4x4 pixels, pixel by pixel: the input (128 B) may begin
  // 136 B after the output (256 B) begins, so both fit in 264 B instead of 384 B.
  WindowAxis a;
  a.input = a.output = 4;
  EXPECT_EQ(pixel_order_overlap_distance({a, a}, 8, 16, 1), 136);
  // Pairs of pixels: one pixel more.
  EXPECT_EQ(pixel_order_overlap_distance({a, a}, 8, 16, 2), 144);
}

TEST(OutputOverlap, OneAxisIsARowOfPixels) {
  WindowAxis a;
  a.input = 10, a.kernel = 3, a.output = 8;
  Layer l{WindowAxis{1, 1, 1, 1, 0, 0, 1}, a, 2, 3};
  EXPECT_EQ(pixel_order_overlap_distance({a}, 2, 3, 1), simulated_distance(l, 1));
}

}  // namespace
}  // namespace aotc
