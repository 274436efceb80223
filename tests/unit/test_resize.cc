// Tests of Resize and Upsample (lowering/ops/onnx/resize.cc) against a reference written here
// from the ONNX specification and its reference implementation
// (onnx/reference/ops/op_resize.py), by a different route than aotc's tables: for each
// output coordinate of an axis, its original coordinate by the coordinate transformation
// mode, the n input positions nearest to it (ties to the smaller one) in the input padded
// at both ends with its edge values, the coefficients of the mode (nearest, linear, Keys'
// cubic) on them, zeroed outside the input and renormalized with exclude_outside; the
// axes combine as a tensor product. tf_crop_and_resize gives extrapolation_value where a
// coordinate falls outside the input. Where the specification and the Python reference
// differ (pytorch_half_pixel with an output of length 1), the specification is followed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

struct ResizeSpec {
  std::string mode = "nearest";
  std::string coordinates = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
};

// What one output coordinate of an axis reads: positions (clamped into the input) and
// their coefficients, or nothing (outside the crop of tf_crop_and_resize).
struct AxisTaps {
  bool outside = false;
  std::vector<int64_t> positions;
  std::vector<double> weights;
};

AxisTaps axis_taps(const ResizeSpec& r, int64_t x, int64_t in, int64_t out, double scale, double roi_start, double roi_end) {
  double length = scale * static_cast<double>(in), xd = static_cast<double>(x), last = static_cast<double>(in - 1);
  double x_original = 0;
  if (r.coordinates == "half_pixel") x_original = (xd + 0.5) / scale - 0.5;
  else if (r.coordinates == "pytorch_half_pixel") x_original = out > 1 ? (xd + 0.5) / scale - 0.5 : 0;
  else if (r.coordinates == "align_corners") x_original = length == 1 ? 0 : xd * last / (length - 1);
  else if (r.coordinates == "asymmetric") x_original = xd / scale;
  else if (r.coordinates == "tf_half_pixel_for_nn") x_original = (xd + 0.5) / scale;
  else x_original = (length == 1 ? (roi_end - roi_start) * last / 2 : xd * (roi_end - roi_start) * last / (length - 1)) + roi_start * last;
  AxisTaps taps;
  if (r.coordinates == "tf_crop_and_resize" && (x_original < 0 || x_original > last)) {
    taps.outside = true;
    return taps;
  }
  double ratio = x_original == std::floor(x_original) ? 1.0 : x_original - std::floor(x_original);
  std::vector<double> coeffs;
  if (r.mode == "nearest") {
    bool second = ratio == 1.0 || (r.nearest_mode == "round_prefer_floor"  ? ratio > 0.5
                                   : r.nearest_mode == "round_prefer_ceil" ? ratio >= 0.5
                                                                           : r.nearest_mode == "ceil");
    coeffs = {second ? 0.0 : 1.0, second ? 1.0 : 0.0};
  } else if (r.mode == "linear") {
    coeffs = {1 - ratio, ratio};
  } else {
    double a = r.cubic_a, s = 1 - ratio;
    coeffs = {((a * (ratio + 1) - 5 * a) * (ratio + 1) + 8 * a) * (ratio + 1) - 4 * a,
              ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1, ((a + 2) * s - (a + 3)) * s * s + 1,
              ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
  }
  // The n positions nearest to x_original in the input padded by ceil(n / 2) edge values.
  int64_t n = static_cast<int64_t>(coeffs.size()), pad = (n + 1) / 2;
  std::vector<int64_t> candidates(static_cast<size_t>(in + 2 * pad));
  std::iota(candidates.begin(), candidates.end(), -pad);
  std::stable_sort(candidates.begin(), candidates.end(), [&](int64_t i, int64_t j) {
    return std::fabs(x_original - static_cast<double>(i)) < std::fabs(x_original - static_cast<double>(j));
  });
  candidates.resize(static_cast<size_t>(n));
  std::sort(candidates.begin(), candidates.end());
  if (r.exclude_outside) {  // as ONNX's reference: zero the taps outside, then renormalize
    for (size_t i = 0; i < coeffs.size(); ++i)
      if (candidates[i] < 0 || candidates[i] >= in) coeffs[i] = 0;
    double sum = std::accumulate(coeffs.begin(), coeffs.end(), 0.0);
    for (double& c : coeffs) c /= sum;
  }
  for (size_t i = 0; i < coeffs.size(); ++i) {
    taps.positions.push_back(std::clamp<int64_t>(candidates[i], 0, in - 1));
    taps.weights.push_back(coeffs[i]);
  }
  return taps;
}

// The resized tensor: `scales` per axis (the output shape floor(in * scale)) or `sizes`.
std::vector<double> resize_reference(const ResizeSpec& r, const Shape& shape, const std::vector<double>& x,
                                     const std::vector<double>& scales, const Shape& out_shape,
                                     const std::vector<double>& roi = {}) {
  size_t rank = shape.size();
  std::vector<std::vector<AxisTaps>> taps(rank);
  for (size_t d = 0; d < rank; ++d)
    for (int64_t o = 0; o < out_shape[d]; ++o)
      taps[d].push_back(axis_taps(r, o, shape[d], out_shape[d], scales[d], roi.empty() ? 0 : roi[d],
                                  roi.empty() ? 1 : roi[rank + d]));
  std::vector<double> y;
  for_each_index(out_shape, [&](const Index& o, size_t) {
    std::vector<const AxisTaps*> at;
    bool outside = false;
    for (size_t d = 0; d < rank; ++d) {
      at.push_back(&taps[d][static_cast<size_t>(o[d])]);
      outside = outside || at.back()->outside;
    }
    if (outside) {
      y.push_back(r.extrapolation);
      return;
    }
    Shape tap_counts;
    for (const AxisTaps* t : at) tap_counts.push_back(static_cast<int64_t>(t->positions.size()));
    double sum = 0;
    for_each_index(tap_counts, [&](const Index& t, size_t) {
      double weight = 1;
      Index in(rank);
      for (size_t d = 0; d < rank; ++d) {
        weight *= at[d]->weights[static_cast<size_t>(t[d])];
        in[d] = at[d]->positions[static_cast<size_t>(t[d])];
      }
      sum += weight * x[static_cast<size_t>(flat_index(shape, in))];
    });
    y.push_back(sum);
  });
  return y;
}

Shape scaled_shape(const Shape& shape, const std::vector<double>& scales) {
  Shape out;
  for (size_t d = 0; d < shape.size(); ++d) out.push_back(static_cast<int64_t>(std::floor(static_cast<double>(shape[d]) * scales[d])));
  return out;
}

void set_attributes(OneNode& node, const ResizeSpec& r) {
  node.attr("mode", r.mode).attr("coordinate_transformation_mode", r.coordinates).attr("nearest_mode", r.nearest_mode);
  node.attr("cubic_coeff_a", r.cubic_a).attr("exclude_outside", int64_t{r.exclude_outside ? 1 : 0});
  node.attr("extrapolation_value", r.extrapolation);
}

const char* const kCoordinateModes[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                        "tf_half_pixel_for_nn"};

TEST(Resize, NearestEveryModeAndCoordinateTransformation) {
  Shape shape = {1, 2, 4, 5};
  std::vector<int32_t> x(40);
  for (size_t i = 0; i < 40; ++i) x[i] = static_cast<int32_t>(i * 3 - 50);
  std::vector<double> xd(x.begin(), x.end());
  for (std::vector<float> scales32 : {std::vector<float>{1, 1, 1.75f, 0.6f}, {1, 1, 0.5f, 2.3f}}) {
    std::vector<double> scales(scales32.begin(), scales32.end());  // the float32 values aotc reads
    Shape out_shape = scaled_shape(shape, scales);
    for (const char* coordinates : kCoordinateModes) {
      for (const char* nearest_mode : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
        SCOPED_TRACE(std::string(coordinates) + " " + nearest_mode + " scale " + std::to_string(scales[2]));
        ResizeSpec r;
        r.coordinates = coordinates;
        r.nearest_mode = nearest_mode;
        std::vector<double> want = resize_reference(r, shape, xd, scales, out_shape);
        OneNode node("Resize");
        node.input<int32_t>(shape, x).absent_input().constant<float>(scales32);
        set_attributes(node, r);
        EXPECT_EQ(node.infer(), out_shape);
        expect_equal(node.run<int32_t>(), std::vector<int32_t>(want.begin(), want.end()));
      }
    }
  }
}

TEST(Resize, LinearEveryCoordinateTransformationWithScalesAndSizes) {
  Shape shape = {1, 1, 3, 4};
  std::vector<float> x = random_floats(12, 41, 3.0f);
  std::vector<double> xd(x.begin(), x.end());
  for (const char* coordinates : kCoordinateModes) {
    SCOPED_TRACE(coordinates);
    ResizeSpec r;
    r.mode = "linear";
    r.coordinates = coordinates;
    // Scales: [3, 4] -> [floor(4.5), 2] = [4, 2].
    std::vector<double> scales = {1, 1, 1.5, 0.5};
    Shape out_shape = {1, 1, 4, 2};
    OneNode by_scales("Resize");
    by_scales.input(shape, x).absent_input().constant<float>(std::vector<float>(scales.begin(), scales.end()));
    set_attributes(by_scales, r);
    EXPECT_EQ(by_scales.infer(), out_shape);
    std::vector<float> got = by_scales.run();
    std::vector<double> want = resize_reference(r, shape, xd, scales, out_shape);
    expect_close(got, std::vector<float>(want.begin(), want.end()), 1e-5, 1e-5);
    // Sizes: the scale is out / in.
    Shape sizes = {1, 1, 7, 3};
    OneNode by_sizes("Resize");
    by_sizes.input(shape, x).absent_input().absent_input().constant<int64_t>(sizes);
    set_attributes(by_sizes, r);
    EXPECT_EQ(by_sizes.infer(), sizes);
    want = resize_reference(r, shape, xd, {1, 1, 7.0 / 3, 3.0 / 4}, sizes);
    expect_close(by_sizes.run(), std::vector<float>(want.begin(), want.end()), 1e-5, 1e-5);
  }
}

TEST(Resize, CubicWithAndWithoutExcludeOutside) {
  Shape shape = {1, 1, 4, 4};
  std::vector<double> x(16);
  for (size_t i = 0; i < 16; ++i) x[i] = std::sin(static_cast<double>(i)) * 4;
  for (bool exclude : {false, true}) {
    for (double a : {-0.75, -0.5}) {
      SCOPED_TRACE("exclude_outside " + std::to_string(exclude) + " a " + std::to_string(a));
      ResizeSpec r;
      r.mode = "cubic";
      r.cubic_a = a;
      r.exclude_outside = exclude;
      std::vector<double> scales = {1, 1, 2, 0.75};
      Shape out_shape = {1, 1, 8, 3};
      OneNode node("Resize");
      node.input<double>(shape, x).absent_input().constant<float>({1, 1, 2, 0.75f});
      set_attributes(node, r);
      expect_close(node.run<double>(), resize_reference(r, shape, x, scales, out_shape), 1e-9, 1e-9);
    }
  }
}

// Difftest seed 1092066: output row 16 reads source row 16/3 with coefficients -1/9, 43/54,
// 10/27, -1/18, on inputs whose terms cancel (0.37037 * 12.675878 - 0.05556 * 84.094994 =
// 0.022825382). Weights computed in float32, as ONNX Runtime does from its float32 coordinate
// 5.3333335, come out up to 7.8e-7 off and move that output by 6.0e-5; aotc's weights must
// keep every output within float32 rounding of the terms (1e-6 and 1e-6 relative here).
TEST(Resize, CubicWeightsExactWhereTermsCancel) {
  Shape shape = {1, 1, 12, 1};
  std::vector<float> x = {0.0f, 106.52872467041016f, 32.242950439453125f, 143.8000030517578f, 0.0f, 0.0f,
                          12.675877571105957f, 84.0949935913086f, 41.776702880859375f, 120.4278335571289f, 0.0f, 0.0f};
  ResizeSpec r;
  r.mode = "cubic";
  r.coordinates = "asymmetric";
  r.exclude_outside = true;
  OneNode node("Resize");
  node.input(shape, x).absent_input().constant<float>({1, 1, 3, 1});
  set_attributes(node, r);
  std::vector<double> want = resize_reference(r, shape, std::vector<double>(x.begin(), x.end()), {1, 1, 3, 1}, {1, 1, 36, 1});
  ASSERT_NEAR(want[16], 0.022825382, 1e-9);
  expect_close(node.run(), std::vector<float>(want.begin(), want.end()), 1e-6, 1e-6);
}

TEST(Resize, TfCropAndResizeExtrapolates) {
  Shape shape = {1, 1, 4, 4};
  std::vector<float> x = random_floats(16, 43, 2.0f);
  std::vector<double> xd(x.begin(), x.end());
  // The crop box [0.4, 0.6] x [-0.5, 1.2] in normalized coordinates: part of it is outside.
  std::vector<double> roi = {0, 0, 0.4, -0.5, 1, 1, 0.6, 1.2};
  for (const char* mode : {"linear", "nearest"}) {
    SCOPED_TRACE(mode);
    ResizeSpec r;
    r.mode = mode;
    r.coordinates = "tf_crop_and_resize";
    r.extrapolation = 10;
    Shape sizes = {1, 1, 3, 5};
    OneNode node("Resize");
    node.input(shape, x).constant<float>(std::vector<float>(roi.begin(), roi.end())).absent_input().constant<int64_t>(sizes);
    set_attributes(node, r);
    std::vector<float> roi32(roi.begin(), roi.end());
    std::vector<double> want = resize_reference(r, shape, xd, {1, 1, 3.0 / 4, 5.0 / 4}, sizes,
                                                std::vector<double>(roi32.begin(), roi32.end()));
    expect_close(node.run(), std::vector<float>(want.begin(), want.end()), 1e-5, 1e-5);
  }
}

TEST(Resize, AxesListTheResizedAxesAndTheirRoi) {
  // Opset 18: scales and roi only for the listed axes (negative ones count from the end).
  Shape shape = {1, 2, 3, 4};
  std::vector<float> x = random_floats(24, 47);
  std::vector<double> xd(x.begin(), x.end());
  ResizeSpec r;
  r.mode = "linear";
  r.coordinates = "tf_crop_and_resize";
  r.extrapolation = -1;
  std::vector<float> roi = {0.25f, -0.2f, 1.0f, 0.8f};  // axis 3: [0.25, 1], axis 2: [-0.2, 0.8]
  Shape sizes = {3, 2};                               // axis 3 to 3, axis 2 to 2
  OneNode node("Resize", 18);
  node.input(shape, x).constant<float>(roi).absent_input().constant<int64_t>(sizes).attr("axes", Shape{-1, 2});
  set_attributes(node, r);
  Shape out_shape = {1, 2, 2, 3};
  EXPECT_EQ(node.infer(), out_shape);
  std::vector<double> full_roi = {0, 0, -0.2f, 0.25f, 1, 1, 0.8f, 1.0f};
  std::vector<double> want = resize_reference(r, shape, xd, {1, 1, 2.0 / 3, 3.0 / 4}, out_shape, full_roi);
  expect_close(node.run(), std::vector<float>(want.begin(), want.end()), 1e-5, 1e-5);
  OneNode wrong_roi("Resize", 18);
  wrong_roi.input(shape, x).constant<float>({0, 0, 0, 1, 1, 1}).absent_input().constant<int64_t>(sizes).attr("axes", Shape{-1, 2});
  set_attributes(wrong_roi, r);
  expect_error(wrong_roi, "roi must have 4 entries");
}

TEST(Resize, PytorchHalfPixelToOneElementReadsTheFirst) {
  // The specification: x_original = 0 when the resized length is 1.
  OneNode node("Resize");
  node.input<float>({1, 4}, {3, 5, 7, 9}).absent_input().absent_input().constant<int64_t>({1, 1});
  node.attr("mode", std::string("linear")).attr("coordinate_transformation_mode", std::string("pytorch_half_pixel"));
  expect_equal(node.run(), std::vector<float>{3});
}

TEST(Resize, UpsampleRepeatsByIntegerScales) {
  std::vector<uint8_t> x = {1, 2, 3, 4};
  std::vector<uint8_t> want;
  for_each_index({1, 4, 6}, [&](const Index& i, size_t) { want.push_back(x[static_cast<size_t>((i[1] / 2) * 2 + i[2] / 3)]); });
  OneNode upsample("Upsample", 9);
  upsample.input<uint8_t>({1, 2, 2}, x).constant<float>({1, 2, 3});
  EXPECT_EQ(upsample.infer(), (Shape{1, 4, 6}));
  expect_equal(upsample.run<uint8_t>(), want);
  OneNode old("Upsample", 7);
  old.input<uint8_t>({1, 2, 2}, x).attr("scales", std::vector<double>{1, 2, 3});
  expect_equal(old.run<uint8_t>(), want);
}

TEST(Resize, RejectsUnsupportedOrInvalidNodes) {
  OneNode both("Resize");
  both.input({1, 4}).absent_input().constant<float>({1, 2}).constant<int64_t>({1, 8});
  expect_error(both, "exactly one of scales and sizes");
  OneNode linear_ints("Resize");
  linear_ints.input<int32_t>({4}, {1, 2, 3, 4}).absent_input().constant<float>({2}).attr("mode", std::string("linear"));
  expect_error(linear_ints, "needs float32 or float64");
  OneNode antialias("Resize", 18);
  antialias.input({4}).absent_input().constant<float>({0.5f}).attr("antialias", int64_t{1});
  expect_error(antialias, "antialias");
  OneNode coordinates("Resize");
  coordinates.input({4}).absent_input().constant<float>({2}).attr("coordinate_transformation_mode", std::string("bogus"));
  expect_error(coordinates, "coordinate_transformation_mode 'bogus'");
  OneNode no_roi("Resize");
  no_roi.input({4}).absent_input().constant<float>({2}).attr("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
  expect_error(no_roi, "needs the roi input");
  OneNode count("Resize");
  count.input({2, 4}).absent_input().constant<float>({2});
  expect_error(count, "scales has 1 entries for 2 axes");
  OneNode negative("Resize");
  negative.input({4}).absent_input().constant<float>({-1});
  expect_error(negative, "must be positive");
  OneNode runtime("Resize");
  runtime.input({4}).absent_input().input<float>({1}, {2});
  expect_error(runtime, "Resize needs constant scales");
  OneNode policy("Resize", 18);
  policy.input({4}).absent_input().absent_input().constant<int64_t>({3}).attr("keep_aspect_ratio_policy", std::string("not_larger"));
  expect_error(policy, "keep_aspect_ratio_policy");
}

}  // namespace
}  // namespace aotc::test
