// RoiAlign (ONNX opset 10 and 16): for each region of interest rois[r] = (x1, y1, x2, y2)
// on image batch_indices[r] of X [N, C, H, W], an output_height x output_width grid of
// bins, each the average (mode "avg") or maximum ("max") of bilinear samples of X;
// Y is [num_rois, C, output_height, output_width].
//
// The computation is ONNX Runtime's (which ONNX's reference follows):
//   the region in pixels: x1 * spatial_scale - offset ... (offset 0.5 with
//     coordinate_transformation_mode "half_pixel", opset 16's default; 0 with
//     "output_half_pixel", opset 10's behaviour, where the region is also at least 1x1);
//   each bin has sampling_ratio x sampling_ratio samples at the centres of a regular
//     sub-grid (sampling_ratio 0: ceil(region size / bins) per axis, decided at run time);
//   a sample more than one pixel outside the image weighs 0; otherwise it is clamped at 0,
//     at the last row / column it reads that pixel, else it interpolates its 2x2 pixels;
//   avg divides the sum by the number of samples (at least 1); max takes the largest of
//     the four weighted pixels of each sample, then of the samples (0 without samples).
// X and rois float32 or float64 of one type, batch_indices int64 (checked at run time to
// lie in [0, N)). An adaptive sampling grid is capped at 16384 samples per axis, which
// only a region thousands of times larger than its bins would reach.
#include <limits>
#include <string>
#include <vector>

#include "aot/graph/op_registry.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

constexpr double kMaxAdaptiveSamples = 16384;

struct RoiAlignPlan {
  bool average;
  bool half_pixel;
  int64_t out_h, out_w, sampling_ratio;
  double spatial_scale;
};

RoiAlignPlan plan_roi_align(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  const Tensor& rois = require_input(g, node, 1);
  const Tensor& indices = require_input(g, node, 2);
  if (x.dtype != DataType::Float32() && x.dtype != DataType::Float64())
    node_error(node, "X is " + x.dtype.str() + "; only float32 and float64 are supported");
  if (x.shape.size() != 4) node_error(node, "X has shape " + shape_str(x.shape) + "; expected [N, C, H, W]");
  if (rois.dtype != x.dtype || rois.shape.size() != 2 || rois.shape[1] != 4)
    node_error(node, "rois must be " + x.dtype.str() + " of shape [num_rois, 4], got " + rois.dtype.str() + " " +
                         shape_str(rois.shape));
  if (!indices.dtype.is_integer() || indices.shape != std::vector<int64_t>{rois.shape[0]})
    node_error(node, "batch_indices must be an integer tensor of shape " + shape_str({rois.shape[0]}) + ", got " +
                         indices.dtype.str() + " " + shape_str(indices.shape));
  RoiAlignPlan p;
  std::string mode = node.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") node_error(node, "mode must be avg or max, not '" + mode + "'");
  p.average = mode == "avg";
  std::string transform = node.attr_string("coordinate_transformation_mode", g.opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    node_error(node, "coordinate_transformation_mode must be half_pixel or output_half_pixel, not '" + transform + "'");
  p.half_pixel = transform == "half_pixel";
  p.out_h = node.attr_int("output_height", 1);
  p.out_w = node.attr_int("output_width", 1);
  p.sampling_ratio = node.attr_int("sampling_ratio", 0);
  p.spatial_scale = node.attr_float("spatial_scale", 1.0);
  if (p.out_h <= 0 || p.out_w <= 0) node_error(node, "output_height and output_width must be positive");
  if (p.sampling_ratio < 0) node_error(node, "sampling_ratio must not be negative");
  // The generated C counts a bin's sampling_ratio^2 samples in int32.
  if (p.sampling_ratio > 46340) node_error(node, "sampling_ratio " + std::to_string(p.sampling_ratio) + " is larger than 46340");
  return p;
}

void infer_roi_align(Graph& g, Node& node) {
  RoiAlignPlan p = plan_roi_align(g, node);
  const Tensor& x = g.tensor(node.inputs[0]);
  set_output(g, node, 0, x.dtype, {g.tensor(node.inputs[1]).shape[0], x.shape[1], p.out_h, p.out_w});
}

// lo if v < lo or v is NaN, hi if v > hi, else v.
Expr clamp_float(const Expr& v, const Expr& lo, const Expr& hi) {
  return ir::select(v >= lo, ir::select(v <= hi, v, hi), lo);
}

LoweredOp lower_roi_align(const Graph& g, const Node& node, KernelBuilder& kb) {
  RoiAlignPlan p = plan_roi_align(g, node);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer rois = kb.input(1, "rois");
  ir::Buffer indices = kb.input(2, "batch_indices");
  ir::Buffer y = kb.output(0, "Y");
  DataType t = x->dtype;
  int64_t images = x->shape[0], channels = x->shape[1], height = x->shape[2], width = x->shape[3];
  int64_t num_rois = rois->shape[0];
  auto c = [&](double v) { return constant(v, t); };

  ir::Stmt check = ir::loop_nest({num_rois}, {"r"}, [&](const std::vector<Expr>& r) {
    return check_range(ir::load(indices, {r[0]}), 0, images - 1);
  });

  ir::Stmt per_roi = ir::loop_nest({num_rois}, {"r"}, [&](const std::vector<Expr>& ri) {
    Expr r = ri[0];
    std::vector<ir::Var> vars;
    auto bind = [&](const std::string& name, DataType type) {
      vars.push_back(ir::make_var(name, type));
      return ir::var_expr(vars.back());
    };
    Expr offset = c(p.half_pixel ? 0.5 : 0.0), scale = c(p.spatial_scale);
    Expr image = bind("image", DataType::Int(32)), start_w = bind("start_w", t), start_h = bind("start_h", t);
    Expr roi_w = bind("roi_w", t), roi_h = bind("roi_h", t);
    Expr grid_h = bind("grid_h", DataType::Int(32)), grid_w = bind("grid_w", DataType::Int(32));
    Expr end_w = ir::load(rois, {r, 2}) * scale - offset, end_h = ir::load(rois, {r, 3}) * scale - offset;
    Expr begin_w = ir::load(rois, {r, 0}) * scale - offset, begin_h = ir::load(rois, {r, 1}) * scale - offset;
    std::vector<Expr> values = {ir::cast(DataType::Int(32), ir::load(indices, {r})), begin_w, begin_h,
                                p.half_pixel ? end_w - start_w : ir::max(end_w - start_w, c(1.0)),
                                p.half_pixel ? end_h - start_h : ir::max(end_h - start_h, c(1.0))};
    auto samples_per_bin = [&](const Expr& size, int64_t bins) -> Expr {
      if (p.sampling_ratio > 0) return ir::make_int(p.sampling_ratio);
      Expr n = math("ceil", {size / c(static_cast<double>(bins))});
      return ir::cast(DataType::Int(32), clamp_float(n, c(0.0), c(kMaxAdaptiveSamples)));
    };
    values.push_back(samples_per_bin(roi_h, p.out_h));
    values.push_back(samples_per_bin(roi_w, p.out_w));
    Expr bin_h = roi_h / c(static_cast<double>(p.out_h)), bin_w = roi_w / c(static_cast<double>(p.out_w));
    Expr samples = grid_h * grid_w;

    ir::Stmt bins = ir::loop_nest({channels, p.out_h, p.out_w}, {"ch", "ph", "pw"}, [&](const std::vector<Expr>& i) {
      Expr ch = i[0], ph = i[1], pw = i[2];
      // max starts below every finite value; a bin without samples gives 0 (below).
      Expr lowest = c(t == DataType::Float32() ? static_cast<double>(std::numeric_limits<float>::lowest())
                                               : std::numeric_limits<double>::lowest());
      return with_accumulator("acc", p.average ? ir::make_zero(t) : lowest, [&](const Accumulator& acc) {
        ir::Var iy_var = ir::make_var("iy"), ix_var = ir::make_var("ix");
        Expr iy = ir::var_expr(iy_var), ix = ir::var_expr(ix_var);
        Expr sy = start_h + ir::cast(t, ph) * bin_h + (ir::cast(t, iy) + c(0.5)) * bin_h / ir::cast(t, grid_h);
        Expr sx = start_w + ir::cast(t, pw) * bin_w + (ir::cast(t, ix) + c(0.5)) * bin_w / ir::cast(t, grid_w);
        ir::Var yv = ir::make_var("sample_y", t), xv = ir::make_var("sample_x", t);
        Expr sample_y = ir::var_expr(yv), sample_x = ir::var_expr(xv);
        Expr valid = ir::logical_and(ir::logical_and(sample_y >= c(-1.0), sample_y <= c(static_cast<double>(height))),
                                     ir::logical_and(sample_x >= c(-1.0), sample_x <= c(static_cast<double>(width))));
        // Low and high pixel along one axis, and the sample's position between them.
        struct Corners {
          Expr low, high, frac;
        };
        auto corners = [&](const Expr& v, int64_t length) {
          Expr last = c(static_cast<double>(length - 1));
          Expr clamped = clamp_float(v, c(0.0), c(static_cast<double>(length)));
          Expr low = math("floor", {clamped});
          Expr at_end = low >= last;
          Expr position = ir::select(at_end, last, clamped);
          Expr low_index = ir::cast(DataType::Int(32), ir::select(at_end, last, low));
          Expr high_index = ir::select(at_end, low_index, low_index + 1);
          return Corners{low_index, high_index, position - ir::select(at_end, last, low)};
        };
        Corners cy = corners(sample_y, height), cx = corners(sample_x, width);
        Expr one = c(1.0);
        auto pixel = [&](const Expr& row, const Expr& col) { return ir::load(x, {image, ch, row, col}); };
        Expr w1 = (one - cy.frac) * (one - cx.frac), w2 = (one - cy.frac) * cx.frac;
        Expr w3 = cy.frac * (one - cx.frac), w4 = cy.frac * cx.frac;
        Expr zero = ir::make_zero(t);
        auto weighted = [&](const Expr& w, const Expr& v) { return ir::select(valid, w, zero) * v; };
        Expr v1 = weighted(w1, pixel(cy.low, cx.low)), v2 = weighted(w2, pixel(cy.low, cx.high));
        Expr v3 = weighted(w3, pixel(cy.high, cx.low)), v4 = weighted(w4, pixel(cy.high, cx.high));
        ir::Stmt add = p.average ? acc.set(acc.value() + v1 + v2 + v3 + v4)
                                 : acc.set(ir::max(acc.value(), ir::max(ir::max(ir::max(v1, v2), v3), v4)));
        ir::Stmt sampling = ir::for_loop(
            iy_var, 0, grid_h, ir::for_loop(ix_var, 0, grid_w, ir::let(yv, sy, ir::let(xv, sx, add))));
        Expr result = p.average ? acc.value() / ir::cast(t, ir::max(samples, ir::make_int(1)))
                                : ir::select(samples > ir::make_int(0), acc.value(), zero);
        return ir::seq({sampling, ir::store(y, {r, ch, ph, pw}, kb.epilogue(result, {r, ch, ph, pw}))});
      });
    });
    ir::Stmt body = bins;
    for (size_t k = vars.size(); k-- > 0;) body = ir::let(vars[k], values[k], body);
    return body;
  });
  return kb.finish(ir::seq({check, per_roi}));
}

AOTC_REGISTER_OP("RoiAlign", kernel_op(infer_roi_align, lower_roi_align).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
