// TFLite RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (lowering/ops/tflite/tflite_resize.cc), in the
// IR interpreter, against TFLite's reference_ops written out here per output element:
// GetNearestNeighbor (int8 and int16); ResizeBilinear (float) and ResizeBilinearInteger (int8, 10-bit
// positions, rounding half away from zero), for each combination of align_corners and
// half_pixel_centers, upscaling and downscaling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

struct ResizeCase {
  int in_h, in_w, out_h, out_w;
  bool align_corners, half_pixel_centers;
};

std::string case_name(const ResizeCase& c) {
  return std::to_string(c.in_h) + "x" + std::to_string(c.in_w) + "_to_" + std::to_string(c.out_h) + "x" +
         std::to_string(c.out_w) + (c.align_corners ? "_align" : "") + (c.half_pixel_centers ? "_half" : "");
}

constexpr int kChannels = 2;

float scale_of(int in, int out, bool align) {
  return align && out > 1 ? (in - 1) / static_cast<float>(out - 1) : in / static_cast<float>(out);
}

int nearest(int i, int in, int out, bool align, bool half) {
  float scale = scale_of(in, out, align), offset = half ? 0.5f : 0.0f;
  int v = std::min(align ? static_cast<int>(std::round((i + offset) * scale)) : static_cast<int>(std::floor((i + offset) * scale)),
                   in - 1);
  return half ? std::max(0, v) : v;
}

class TfliteResize : public ::testing::TestWithParam<ResizeCase> {
 protected:
  template <typename T>
  OneNode node(const std::string& op, const std::vector<T>& x, Quant q) const {
    const ResizeCase& c = GetParam();
    OneNode n(op);
    n.input({1, c.in_h, c.in_w, kChannels}, x, q);
    n.constant(Shape{2}, std::vector<int32_t>{c.out_h, c.out_w});
    n.attr("align_corners", int64_t{c.align_corners}).attr("half_pixel_centers", int64_t{c.half_pixel_centers});
    n.output(dtype_of<T>(), {1, c.out_h, c.out_w, kChannels}, q);
    return n;
  }
  size_t in_index(int y, int x, int ch) const { return static_cast<size_t>((y * GetParam().in_w + x) * kChannels + ch); }
};

// int8 and int16 (TFLite Micro copies both; int16 values beyond int8's range).
TEST_P(TfliteResize, NearestNeighbourPicksTflitesSource) {
  const ResizeCase& c = GetParam();
  auto check = [&](auto type_tag, int lo, int hi) {
    using T = decltype(type_tag);
    std::vector<T> x = random_ints<T>(static_cast<size_t>(c.in_h * c.in_w * kChannels), lo, hi, 1);
    std::vector<T> got = node("tfl.RESIZE_NEAREST_NEIGHBOR", x, {0.1f, 0}).template run<T>();
    for_each_index({c.out_h, c.out_w, kChannels}, [&](const Index& o, size_t flat) {
      int sy = nearest(static_cast<int>(o[0]), c.in_h, c.out_h, c.align_corners, c.half_pixel_centers);
      int sx = nearest(static_cast<int>(o[1]), c.in_w, c.out_w, c.align_corners, c.half_pixel_centers);
      EXPECT_EQ(got[flat], x[in_index(sy, sx, static_cast<int>(o[2]))]) << flat;
    });
  };
  check(int8_t{}, -128, 127);
  check(int16_t{}, -32768, 32767);
}

TEST_P(TfliteResize, BilinearFloatFollowsReferenceOps) {
  const ResizeCase& c = GetParam();
  std::vector<float> x = random_floats(static_cast<size_t>(c.in_h * c.in_w * kChannels), 2);
  std::vector<float> got = node("tfl.RESIZE_BILINEAR", x, {}).run<float>();
  float hs = scale_of(c.in_h, c.out_h, c.align_corners), ws = scale_of(c.in_w, c.out_w, c.align_corners);
  auto interp = [&](int i, float scale, int in, float* v, int* lo, int* hi) {
    *v = c.half_pixel_centers ? (i + 0.5f) * scale - 0.5f : i * scale;
    *lo = std::max(static_cast<int>(std::floor(*v)), 0);
    *hi = std::min(static_cast<int>(std::ceil(*v)), in - 1);
  };
  for_each_index({c.out_h, c.out_w, kChannels}, [&](const Index& o, size_t flat) {
    float iy, ix;
    int y0, y1, x0, x1, ch = static_cast<int>(o[2]);
    interp(static_cast<int>(o[0]), hs, c.in_h, &iy, &y0, &y1);
    interp(static_cast<int>(o[1]), ws, c.in_w, &ix, &x0, &x1);
    float want = x[in_index(y0, x0, ch)] * (1 - (iy - y0)) * (1 - (ix - x0)) +
                 x[in_index(y1, x0, ch)] * (iy - y0) * (1 - (ix - x0)) +
                 x[in_index(y0, x1, ch)] * (1 - (iy - y0)) * (ix - x0) + x[in_index(y1, x1, ch)] * (iy - y0) * (ix - x0);
    EXPECT_EQ(got[flat], want) << flat;
  });
}

TEST_P(TfliteResize, BilinearInt8FollowsResizeBilinearInteger) {
  const ResizeCase& c = GetParam();
  std::vector<int8_t> x = random_ints<int8_t>(static_cast<size_t>(c.in_h * c.in_w * kChannels), -128, 127, 3);
  std::vector<int8_t> got = node("tfl.RESIZE_BILINEAR", x, {0.05f, 3}).run<int8_t>();
  auto scale_10 = [&](int in, int out) {
    return c.align_corners && out > 1 ? ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1) : ((1 << 10) * in + out / 2) / out;
  };
  auto interp = [&](int i, int s, int in, int* v, int* lo, int* hi) {
    *v = c.half_pixel_centers ? i * s + s / 2 - (1 << 9) : i * s;
    *lo = std::max(*v / (1 << 10), 0);
    *hi = std::min((*v + (1 << 10) - 1) / (1 << 10), in - 1);
  };
  for_each_index({c.out_h, c.out_w, kChannels}, [&](const Index& o, size_t flat) {
    int iy, ix, y0, y1, x0, x1, ch = static_cast<int>(o[2]);
    interp(static_cast<int>(o[0]), scale_10(c.in_h, c.out_h), c.in_h, &iy, &y0, &y1);
    interp(static_cast<int>(o[1]), scale_10(c.in_w, c.out_w), c.in_w, &ix, &x0, &x1);
    int64_t dy = iy - (1 << 10) * y0, dx = ix - (1 << 10) * x0;
    int64_t sum = int64_t{x[in_index(y0, x0, ch)]} * ((1 << 10) - dy) * ((1 << 10) - dx) +
                  int64_t{x[in_index(y1, x0, ch)]} * dy * ((1 << 10) - dx) +
                  int64_t{x[in_index(y0, x1, ch)]} * ((1 << 10) - dy) * dx + int64_t{x[in_index(y1, x1, ch)]} * dy * dx;
    int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
    EXPECT_EQ(got[flat], static_cast<int8_t>((sum + round) / (1 << 20))) << flat;
  });
}

INSTANTIATE_TEST_SUITE_P(Cases, TfliteResize,
                         ::testing::Values(ResizeCase{3, 4, 6, 8, false, false}, ResizeCase{3, 4, 7, 5, true, false},
                                           ResizeCase{3, 4, 7, 9, false, true}, ResizeCase{5, 6, 2, 3, false, false},
                                           ResizeCase{5, 6, 3, 4, false, true}, ResizeCase{4, 4, 1, 1, true, false}),
                         [](const auto& info) { return case_name(info.param); });

TEST(TfliteResizeErrors, BothCornerModesAreRejected) {
  OneNode n("tfl.RESIZE_BILINEAR");
  n.input({1, 2, 2, 1}, random_floats(4, 1)).constant<int32_t>({2}, {4, 4});
  n.attr("align_corners", int64_t{1}).attr("half_pixel_centers", int64_t{1}).output(DataType::Float32(), {1, 4, 4, 1});
  EXPECT_NE(n.error().find("align_corners and half_pixel_centers are both set"), std::string::npos) << n.error();
}

}  // namespace
}  // namespace aotc::test
