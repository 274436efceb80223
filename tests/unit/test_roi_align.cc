// Tests of RoiAlign (lowering/ops/onnx/roi_align.cc).
//
// The kernel runs in the IR interpreter (tests/unit/one_node.h); the reference is written
// here from the operator's definition (ONNX Runtime's, which ONNX's reference follows) in
// double precision: each bin of each region is sampled on a regular sub-grid, each sample
// interpolated bilinearly from the 2x2 pixels around it (clamped at the image's first and
// last pixels, zero more than one pixel outside), then averaged or maximized.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "lowering/ir/ir_interpreter.h"
#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

struct Params {
  std::string mode = "avg";
  bool half_pixel = true;
  int64_t out_h = 3, out_w = 2, sampling_ratio = 2;
  double spatial_scale = 1.0;
};

std::vector<double> reference_roi_align(const Shape& x_shape, const std::vector<float>& x, const std::vector<float>& rois,
                                        const std::vector<int64_t>& batch, const Params& p) {
  int64_t C = x_shape[1], H = x_shape[2], W = x_shape[3];
  double offset = p.half_pixel ? 0.5 : 0.0;
  std::vector<double> y;
  for (size_t r = 0; r < batch.size(); ++r) {
    double x1 = rois[4 * r] * p.spatial_scale - offset, y1 = rois[4 * r + 1] * p.spatial_scale - offset;
    double x2 = rois[4 * r + 2] * p.spatial_scale - offset, y2 = rois[4 * r + 3] * p.spatial_scale - offset;
    double roi_w = x2 - x1, roi_h = y2 - y1;
    if (!p.half_pixel) roi_w = std::max(roi_w, 1.0), roi_h = std::max(roi_h, 1.0);
    double bin_h = roi_h / p.out_h, bin_w = roi_w / p.out_w;
    int64_t grid_h = p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<int64_t>(std::ceil(roi_h / p.out_h));
    int64_t grid_w = p.sampling_ratio > 0 ? p.sampling_ratio : static_cast<int64_t>(std::ceil(roi_w / p.out_w));
    grid_h = std::max<int64_t>(grid_h, 0);
    grid_w = std::max<int64_t>(grid_w, 0);
    for (int64_t c = 0; c < C; ++c) {
      auto at = [&](int64_t row, int64_t col) {
        return static_cast<double>(x[static_cast<size_t>(((batch[r] * C + c) * H + row) * W + col)]);
      };
      for (int64_t ph = 0; ph < p.out_h; ++ph)
        for (int64_t pw = 0; pw < p.out_w; ++pw) {
          double sum = 0, largest = 0;
          bool any = false;
          for (int64_t iy = 0; iy < grid_h; ++iy)
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              double sy = y1 + ph * bin_h + (iy + 0.5) * bin_h / grid_h;
              double sx = x1 + pw * bin_w + (ix + 0.5) * bin_w / grid_w;
              double terms[4] = {0, 0, 0, 0};
              if (!(sy < -1.0 || sy > H || sx < -1.0 || sx > W)) {
                sy = std::max(sy, 0.0);
                sx = std::max(sx, 0.0);
                int64_t y_low = static_cast<int64_t>(sy), x_low = static_cast<int64_t>(sx), y_high, x_high;
                if (y_low >= H - 1) y_high = y_low = H - 1, sy = static_cast<double>(y_low);
                else y_high = y_low + 1;
                if (x_low >= W - 1) x_high = x_low = W - 1, sx = static_cast<double>(x_low);
                else x_high = x_low + 1;
                double ly = sy - y_low, lx = sx - x_low;
                terms[0] = (1 - ly) * (1 - lx) * at(y_low, x_low);
                terms[1] = (1 - ly) * lx * at(y_low, x_high);
                terms[2] = ly * (1 - lx) * at(y_high, x_low);
                terms[3] = ly * lx * at(y_high, x_high);
              }
              sum += terms[0] + terms[1] + terms[2] + terms[3];
              double m = std::max(std::max(std::max(terms[0], terms[1]), terms[2]), terms[3]);
              largest = any ? std::max(largest, m) : m;
              any = true;
            }
          y.push_back(p.mode == "avg" ? sum / std::max<int64_t>(grid_h * grid_w, 1) : largest);
        }
    }
  }
  return y;
}

// Regions inside, across the edges, entirely outside, tiny and reversed.
const std::vector<float> kRois = {1.0f, 1.0f, 6.0f, 4.0f,   0.5f, -2.0f, 9.5f, 3.5f,  -3.0f, 4.0f, 2.0f, 9.0f,
                                  12.0f, 12.0f, 14.0f, 15.0f, 2.2f, 2.2f, 2.4f, 2.3f,  5.0f, 5.0f, 3.0f, 1.0f};
const std::vector<int64_t> kBatch = {0, 1, 1, 0, 1, 0};

std::vector<float> run_roi_align(const Shape& x_shape, const std::vector<float>& x, const Params& p, int64_t opset = 16) {
  OneNode node("RoiAlign", opset);
  node.input(x_shape, x).input(Shape{6, 4}, kRois).input<int64_t>(Shape{6}, kBatch);
  node.attr("mode", p.mode).attr("output_height", p.out_h).attr("output_width", p.out_w);
  node.attr("sampling_ratio", p.sampling_ratio).attr("spatial_scale", p.spatial_scale);
  if (opset >= 16) node.attr("coordinate_transformation_mode", std::string(p.half_pixel ? "half_pixel" : "output_half_pixel"));
  EXPECT_EQ(node.infer(), (Shape{6, x_shape[1], p.out_h, p.out_w}));
  return node.run<float>();
}

void expect_near_all(const std::vector<float>& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 2e-5) << "element " << i;
}

TEST(RoiAlignLowering, AverageAndMaxOverFixedAndAdaptiveGrids) {
  Shape x_shape = {2, 3, 7, 8};
  std::vector<float> x = random_floats(static_cast<size_t>(element_count(x_shape)), 51, 2.0f);
  for (const std::string mode : {"avg", "max"})
    for (bool half_pixel : {true, false})
      for (int64_t ratio : {0, 1, 3}) {
        SCOPED_TRACE(mode + (half_pixel ? " half_pixel" : " output_half_pixel") + " sampling_ratio " + std::to_string(ratio));
        Params p;
        p.mode = mode;
        p.half_pixel = half_pixel;
        p.sampling_ratio = ratio;
        expect_near_all(run_roi_align(x_shape, x, p), reference_roi_align(x_shape, x, kRois, kBatch, p));
      }
}

TEST(RoiAlignLowering, SpatialScaleAndOpset10Default) {
  Shape x_shape = {2, 2, 5, 6};
  std::vector<float> x = random_floats(static_cast<size_t>(element_count(x_shape)), 52);
  Params p;
  p.spatial_scale = 0.5;
  p.out_h = 2;
  p.out_w = 4;
  p.sampling_ratio = 0;
  expect_near_all(run_roi_align(x_shape, x, p), reference_roi_align(x_shape, x, kRois, kBatch, p));
  p.half_pixel = false;  // opset 10 has no coordinate_transformation_mode: output_half_pixel
  expect_near_all(run_roi_align(x_shape, x, p, 10), reference_roi_align(x_shape, x, kRois, kBatch, p));
}

// batch_indices arrive at run time: one outside [0, N) makes the kernel return an error
// before it reads X (the harness's run expects success, so this runs the kernel itself).
TEST(RoiAlignLowering, BatchIndexOutOfRangeIsARunTimeError) {
  for (int64_t index : {0, 1, -1}) {
    SCOPED_TRACE("batch index " + std::to_string(index));
    GraphBuilder b(16);
    TensorId x = b.input<float>("x", {1, 1, 4, 4}, random_floats(16, 53));
    TensorId rois = b.input<float>("rois", {1, 4}, {0.0f, 0.0f, 2.0f, 2.0f});
    TensorId batch = b.input<int64_t>("batch", {1}, {index});
    TensorId y = b.node("RoiAlign", {x, rois, batch});
    b.graph.outputs = {y};
    infer_shapes(b.graph);
    LoweredOp op = lower_node(b.graph, b.graph.nodes[0]);
    Memory memory = b.input_values;
    std::vector<ir::BufferBinding> bindings;
    for (size_t i = 0; i < op.args.size(); ++i) {
      std::vector<uint8_t>& bytes = memory[op.args[i]];
      if (bytes.empty()) bytes.resize(static_cast<size_t>(b.graph.tensor(op.args[i]).size_bytes()));
      bindings.push_back({op.func.params[i], bytes.data()});
    }
    EXPECT_EQ(ir::interpret(op.func, bindings) != 0, index != 0);
  }
}

TEST(RoiAlignLowering, Errors) {
  auto expect = [](const std::function<void(OneNode&)>& build, const std::string& text) {
    expect_node_error("RoiAlign", 16, build, text);
  };
  expect([](OneNode& n) { n.input({1, 1, 4, 4}).input({1, 5}).input<int64_t>({1}, {0}); },
         "rois must be float32 of shape [num_rois, 4], got float32 [1, 5]");
  expect([](OneNode& n) { n.input({1, 1, 4, 4}).input({2, 4}).input<int64_t>({1}, {0}); },
         "batch_indices must be an integer tensor of shape [2]");
  expect([](OneNode& n) {
           n.input({1, 1, 4, 4}).input({1, 4}).input<int64_t>({1}, {0}).attr("mode", std::string("median"));
         },
         "mode must be avg or max, not 'median'");
  expect([](OneNode& n) {
           n.input({1, 1, 4, 4}).input({1, 4}).input<int64_t>({1}, {0}).attr("coordinate_transformation_mode",
                                                                              std::string("align_corners"));
         },
         "coordinate_transformation_mode must be half_pixel or output_half_pixel");
  expect([](OneNode& n) { n.input({4, 4}).input({1, 4}).input<int64_t>({1}, {0}); }, "expected [N, C, H, W]");
}

}  // namespace
}  // namespace aotc::test
