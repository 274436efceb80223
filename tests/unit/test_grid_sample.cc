// Tests of GridSample (lowering/ops/onnx/grid_sample.cc).
//
// The kernel runs in the IR interpreter (tests/unit/one_node.h) on grids that reach past
// the image on every side, for every mode, padding mode and align_corners. The reference
// is written here from the operator's definition (ONNX Runtime's, which ONNX's reference
// follows) in double precision: un-normalize, for nearest round half to even, bring an
// outside point in (border: clamp to the pixel centres; reflection: reflect at the bounds
// until inside), then read pixels with the padding rule and interpolate.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

struct Options {
  std::string mode = "bilinear", padding = "zeros";
  bool align_corners = false;
};

// Reflects v at lo and hi until it lies in [lo, hi].
double reflect(double v, double lo, double hi) {
  double span = hi - lo;
  if (span <= 0) return lo;
  while (v < lo || v > hi) v = v < lo ? lo + (lo - v) : hi - (v - hi);
  return v;
}

std::vector<double> reference_grid_sample(const Shape& x_shape, const std::vector<float>& x, const Shape& grid_shape,
                                          const std::vector<float>& grid, const Options& o) {
  int64_t N = x_shape[0], C = x_shape[1], H = x_shape[2], W = x_shape[3], HO = grid_shape[1], WO = grid_shape[2];
  double x_lo = o.align_corners ? 0 : -0.5, x_hi = o.align_corners ? W - 1 : W - 0.5;
  double y_lo = o.align_corners ? 0 : -0.5, y_hi = o.align_corners ? H - 1 : H - 0.5;
  auto pixel = [&](int64_t n, int64_t c, int64_t r, int64_t k) -> double {
    if (o.padding == "zeros") {
      if (r < 0 || r >= H || k < 0 || k >= W) return 0;
    } else if (o.padding == "border") {
      r = std::min(std::max<int64_t>(r, 0), H - 1);
      k = std::min(std::max<int64_t>(k, 0), W - 1);
    } else {
      r = static_cast<int64_t>(reflect(static_cast<double>(r), y_lo, y_hi));
      k = static_cast<int64_t>(reflect(static_cast<double>(k), x_lo, x_hi));
    }
    return x[static_cast<size_t>(((n * C + c) * H + r) * W + k)];
  };
  auto cubic = [](double t) {
    const double a = -0.75;
    t = std::fabs(t);
    if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
    return 0.0;
  };
  std::vector<double> y;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t oy = 0; oy < HO; ++oy)
        for (int64_t ox = 0; ox < WO; ++ox) {
          size_t g = static_cast<size_t>(((n * HO + oy) * WO + ox) * 2);
          double gx = grid[g], gy = grid[g + 1];
          double px = o.align_corners ? (gx + 1) / 2 * (W - 1) : ((gx + 1) * W - 1) / 2;
          double py = o.align_corners ? (gy + 1) / 2 * (H - 1) : ((gy + 1) * H - 1) / 2;
          if (o.mode == "nearest") px = std::nearbyint(px), py = std::nearbyint(py);
          if (px < x_lo || px > x_hi || py < y_lo || py > y_hi) {
            if (o.padding == "border") {
              px = std::min(std::max(px, 0.0), W - 1.0);
              py = std::min(std::max(py, 0.0), H - 1.0);
            } else if (o.padding == "reflection") {
              px = reflect(px, x_lo, x_hi);
              py = reflect(py, y_lo, y_hi);
            }
          }
          double v = 0;
          if (o.mode == "nearest") {
            v = pixel(n, c, static_cast<int64_t>(py), static_cast<int64_t>(px));
          } else if (o.mode == "bilinear") {
            int64_t x1 = static_cast<int64_t>(std::floor(px)), y1 = static_cast<int64_t>(std::floor(py));
            double fx = px - x1, fy = py - y1;
            v = (1 - fy) * ((1 - fx) * pixel(n, c, y1, x1) + fx * pixel(n, c, y1, x1 + 1)) +
                fy * ((1 - fx) * pixel(n, c, y1 + 1, x1) + fx * pixel(n, c, y1 + 1, x1 + 1));
          } else {
            int64_t x1 = static_cast<int64_t>(std::floor(px)), y1 = static_cast<int64_t>(std::floor(py));
            for (int64_t i = -1; i <= 2; ++i)
              for (int64_t j = -1; j <= 2; ++j)
                v += cubic(py - static_cast<double>(y1 + i)) * cubic(px - static_cast<double>(x1 + j)) * pixel(n, c, y1 + i, x1 + j);
          }
          y.push_back(v);
        }
  return y;
}

template <typename T>
void expect_within(const std::vector<T>& got, const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(static_cast<double>(got[i]), expected[i], tolerance) << "element " << i;
}

TEST(GridSampleLowering, EveryModePaddingAndAlignment) {
  Shape x_shape = {2, 3, 4, 5}, grid_shape = {2, 3, 6, 2};
  std::vector<float> x = random_floats(static_cast<size_t>(element_count(x_shape)), 21);
  // Points up to 2.7 image sizes out, so that reflection folds more than once.
  std::vector<float> grid = random_floats(static_cast<size_t>(element_count(grid_shape)), 22, 2.7f);
  // Exactly on a corner; and x = 0.0 with align_corners=1 on a 5-wide image lands on 2.0,
  // y = -0.5 with align_corners=0 on 4 rows lands on 0.5: a tie for nearest (to even).
  grid[0] = 1.0f;
  grid[1] = -1.0f;
  grid[2] = 0.0f;
  grid[3] = -0.5f;
  for (const std::string mode : {"nearest", "bilinear", "bicubic"})
    for (const std::string padding : {"zeros", "border", "reflection"})
      for (bool align : {false, true}) {
        SCOPED_TRACE(mode + " " + padding + (align ? " align_corners" : ""));
        Options o{mode, padding, align};
        OneNode node("GridSample", 16);
        node.input(x_shape, x).input(grid_shape, grid).attr("mode", mode).attr("padding_mode", padding);
        node.attr("align_corners", int64_t{align});
        EXPECT_EQ(node.infer(), (Shape{2, 3, 3, 6}));
        expect_within(node.run<float>(), reference_grid_sample(x_shape, x, grid_shape, grid, o), 2e-5);
      }
}

TEST(GridSampleLowering, Opset20ModeNamesAndDefaults) {
  Shape x_shape = {1, 1, 3, 3}, grid_shape = {1, 2, 2, 2};
  std::vector<float> x = random_floats(9, 23), grid = random_floats(8, 24, 1.2f);
  OneNode linear("GridSample", 20);
  linear.input(x_shape, x).input(grid_shape, grid);  // mode "linear", zeros, align_corners 0
  expect_within(linear.run<float>(), reference_grid_sample(x_shape, x, grid_shape, grid, Options{}), 2e-5);
  OneNode cubic("GridSample", 20);
  cubic.input(x_shape, x).input(grid_shape, grid).attr("mode", std::string("cubic"));
  expect_within(cubic.run<float>(), reference_grid_sample(x_shape, x, grid_shape, grid, Options{"bicubic"}), 2e-5);
}

TEST(GridSampleLowering, Float64AndSinglePixelImage) {
  Shape x_shape = {1, 2, 1, 1}, grid_shape = {1, 1, 3, 2};
  std::vector<double> x = {0.5, -2.0};
  std::vector<float> x_float(x.begin(), x.end());
  std::vector<double> grid = {-3.0, 0.4, 0.0, 0.0, 2.5, -1.5};
  std::vector<float> grid_float(grid.begin(), grid.end());
  for (bool align : {false, true})
    for (const std::string padding : {"border", "reflection"}) {
      SCOPED_TRACE(padding + (align ? " align_corners" : ""));
      OneNode node("GridSample", 16);
      node.input<double>(x_shape, x).input<double>(grid_shape, grid).attr("padding_mode", padding);
      node.attr("align_corners", int64_t{align});
      Options o{"bilinear", padding, align};
      expect_within(node.run<double>(), reference_grid_sample(x_shape, x_float, grid_shape, grid_float, o), 1e-12);
    }
}

TEST(GridSampleLowering, NanGridPointsReadPadding) {
  Shape x_shape = {1, 1, 2, 2}, grid_shape = {1, 1, 2, 2};
  std::vector<float> x = {1, 2, 3, 4}, grid = {NAN, 0.0f, 0.0f, NAN};
  for (const std::string mode : {"nearest", "bilinear", "bicubic"}) {
    SCOPED_TRACE(mode);
    OneNode node("GridSample", 16);
    node.input(x_shape, x).input(grid_shape, grid).attr("mode", mode);
    for (float v : node.run<float>()) EXPECT_TRUE(v == 0.0f || std::isnan(v)) << v;
  }
}

TEST(GridSampleLowering, Errors) {
  auto expect = [](const std::function<void(OneNode&)>& build, const std::string& text) {
    expect_node_error("GridSample", 16, build, text);
  };
  expect([](OneNode& n) { n.input({1, 1, 2, 2, 2}).input({1, 1, 1, 1, 3}); },
         "only 2-D sampling ([N, C, H, W]) is supported");
  expect([](OneNode& n) { n.input({1, 1, 2, 2}).input({2, 1, 1, 2}); }, "Grid has shape [2, 1, 1, 2]; expected [1, H_out, W_out, 2]");
  expect([](OneNode& n) { n.input({1, 1, 2, 2}).input({1, 1, 1, 2}).attr("mode", std::string("area")); },
         "mode 'area' is not supported");
  expect([](OneNode& n) { n.input({1, 1, 2, 2}).input({1, 1, 1, 2}).attr("padding_mode", std::string("wrap")); },
         "padding_mode 'wrap' is not supported");
  expect([](OneNode& n) { n.input<int32_t>({1, 1, 2, 2}, {1, 2, 3, 4}).input({1, 1, 1, 2}); },
         "is int32; only float32 and float64 are supported");
}

}  // namespace
}  // namespace aotc::test
