// Resize (opsets 10 to 13, and 18's `axes`) and Upsample (its deprecated predecessor):
// each output coordinate, mapped back into the input, interpolates the input elements
// around it, axis by axis: nearest (one element), linear (two) or cubic (four).
//
// The mapping depends only on the axis, the output coordinate and compile-time operands
// (scales or sizes, roi), so it is computed here, in double precision, as ONNX's
// reference implementation computes it (onnx/backend/test/case/node/resize.py):
// for each resized axis a table of the input indices each output coordinate reads and,
// for linear and cubic, their weights. The kernel only reads the tables:
//   y[o] = sum over taps t of (prod over axes d of weight_d[o_d][t_d]) x[index_d[o_d][t_d]].
// Axes that keep their size and map every coordinate to itself read the input directly.
//
// The reference's rules, axis by axis, for input length `in`, output length `out` and
// scale s (given, or out / in with sizes):
//   x_original: half_pixel (x + 0.5) / s - 0.5; pytorch_half_pixel the same, or 0 when
//     out is 1; align_corners x (in - 1) / (s in - 1), or 0 when s in is 1; asymmetric
//     x / s; tf_half_pixel_for_nn (x + 0.5) / s; tf_crop_and_resize
//     roi_start (in - 1) + x (roi_end - roi_start) (in - 1) / (s in - 1), and a coordinate
//     outside [0, in - 1] gives extrapolation_value. (align_corners and
//     tf_crop_and_resize divide by s in - 1, not out - 1, as the reference does.)
//   Its neighbours: f = floor(x_original) and ratio r = x_original - f, except that an
//   integer x_original has f = x_original - 1 and r = 1. Nearest picks f or f + 1 by
//   nearest_mode; linear weighs f and f + 1 by 1 - r and r; cubic weighs f - 1 .. f + 2 by
//   Keys' cubic with coefficient cubic_coeff_a. A neighbour outside the input reads the
//   nearest edge element, or (exclude_outside) gets weight 0, the others renormalized.
// Resize before opset 11 and Upsample map x to x / s and pick the nearest neighbour as
// onnxruntime does: floor(x / s) when upsampling, ceil when downsampling.
//
// Nearest copies elements and serves every data type; linear and cubic need float32 or
// float64 (they sum in the input's type).
#include <algorithm>
#include <cmath>

#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "aot/base/element_bytes.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

// The coefficient tables of an axis grow with its output extent (taps per output element,
// computed at compile time); no model for a microcontroller resizes an axis beyond this,
// and a damaged one must not take the compiler's memory (fuzz_compile found sizes of
// 12884901891).
constexpr int64_t kMostResizedExtent = int64_t{1} << 20;

using ir::Expr;

struct ResizeAttributes {
  std::string mode = "nearest";  // nearest, linear, cubic
  std::string coordinates = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
  bool legacy_nearest = false;  // Upsample, Resize-10
};

// What one output coordinate of an axis reads.
struct AxisTaps {
  std::vector<int64_t> index;  // [out][taps], inside [0, in)
  std::vector<double> weight;  // [out][taps]
  bool identity = false;       // out == in and coordinate x reads x alone
  int64_t valid_lo = 0, valid_hi = 0;  // tf_crop_and_resize: outside these, extrapolation
};

struct ResizePlan {
  ResizeAttributes attrs;
  int64_t taps = 1;
  std::vector<int64_t> output_shape;
  std::vector<AxisTaps> axes;
};

ResizeAttributes read_attributes(const Graph& g, const Node& node) {
  ResizeAttributes a;
  a.mode = node.attr_string("mode", "nearest");
  if (node.op == "Upsample" || g.opset < 11) {
    if (a.mode == "bilinear") a.mode = "linear";
    if (a.mode != "nearest" && a.mode != "linear") node_error(node, "mode '" + a.mode + "' is not nearest or linear");
    a.coordinates = "asymmetric";
    a.legacy_nearest = true;
    return a;
  }
  a.coordinates = node.attr_string("coordinate_transformation_mode", "half_pixel");
  a.nearest_mode = node.attr_string("nearest_mode", "round_prefer_floor");
  a.cubic_a = node.attr_float("cubic_coeff_a", -0.75);
  a.exclude_outside = node.attr_int("exclude_outside", 0) != 0;
  a.extrapolation = node.attr_float("extrapolation_value", 0.0);
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic")
    node_error(node, "mode '" + a.mode + "' is not nearest, linear or cubic");
  static const char* kCoordinates[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                       "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (std::find(std::begin(kCoordinates), std::end(kCoordinates), a.coordinates) == std::end(kCoordinates))
    node_error(node, "coordinate_transformation_mode '" + a.coordinates + "' is not supported");
  static const char* kNearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (std::find(std::begin(kNearest), std::end(kNearest), a.nearest_mode) == std::end(kNearest))
    node_error(node, "nearest_mode '" + a.nearest_mode + "' is not supported");
  if (node.attr_int("antialias", 0) != 0) node_error(node, "antialias (opset 18) is not supported");
  if (node.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch")
    node_error(node, "keep_aspect_ratio_policy '" + node.attr_string("keep_aspect_ratio_policy", "") + "' is not supported");
  return a;
}

// Keys' cubic convolution weights of the four neighbours f - 1 .. f + 2 at ratio r.
std::vector<double> cubic_weights(double r, double a) {
  double s = 1 - r;
  return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a, ((a + 2) * r - (a + 3)) * r * r + 1,
          ((a + 2) * s - (a + 3)) * s * s + 1, ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
}

double original_coordinate(const ResizeAttributes& a, int64_t x, double scale, int64_t in, int64_t out, double roi_start,
                           double roi_end) {
  double resized_length = scale * static_cast<double>(in);
  double last = static_cast<double>(in - 1);
  const std::string& c = a.coordinates;
  if (c == "half_pixel") return (static_cast<double>(x) + 0.5) / scale - 0.5;
  if (c == "pytorch_half_pixel") return out > 1 ? (static_cast<double>(x) + 0.5) / scale - 0.5 : 0.0;
  if (c == "align_corners") return resized_length == 1 ? 0.0 : static_cast<double>(x) * last / (resized_length - 1);
  if (c == "asymmetric") return static_cast<double>(x) / scale;
  if (c == "tf_half_pixel_for_nn") return (static_cast<double>(x) + 0.5) / scale;
  // tf_crop_and_resize
  if (resized_length == 1) return (roi_end - roi_start) * last / 2 + roi_start * last;
  return static_cast<double>(x) * (roi_end - roi_start) * last / (resized_length - 1) + roi_start * last;
}

// The taps of output coordinate x of one axis, appended to `taps`.
void coordinate_taps(const ResizeAttributes& a, double x_original, double scale, int64_t in, AxisTaps* taps) {
  auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  if (a.legacy_nearest) {
    taps->index.push_back(clamp(static_cast<int64_t>(scale < 1 ? std::ceil(x_original) : std::floor(x_original))));
    taps->weight.push_back(1);
    return;
  }
  bool integral = x_original == std::floor(x_original);
  double ratio = integral ? 1.0 : x_original - std::floor(x_original);
  int64_t f = static_cast<int64_t>(std::floor(x_original)) - (integral ? 1 : 0);
  std::vector<int64_t> neighbours;
  std::vector<double> weights;
  if (a.mode == "nearest") {
    bool second = integral;
    if (!integral) {
      if (a.nearest_mode == "round_prefer_floor") second = ratio > 0.5;
      else if (a.nearest_mode == "round_prefer_ceil") second = ratio >= 0.5;
      else second = a.nearest_mode == "ceil";
    }
    neighbours = {second ? f + 1 : f};
    weights = {1.0};
  } else if (a.mode == "linear") {
    neighbours = {f, f + 1};
    weights = {1 - ratio, ratio};
  } else {
    neighbours = {f - 1, f, f + 1, f + 2};
    weights = cubic_weights(ratio, a.cubic_a);
  }
  if (a.exclude_outside && a.mode != "nearest") {
    double sum = 0;
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (neighbours[i] < 0 || neighbours[i] >= in) weights[i] = 0;
      sum += weights[i];
    }
    for (double& w : weights) w /= sum;
  }
  for (size_t i = 0; i < neighbours.size(); ++i) {
    taps->index.push_back(clamp(neighbours[i]));
    taps->weight.push_back(weights[i]);
  }
}

// The resized axes: all, or (opset 18) those the `axes` attribute lists, in its order.
std::vector<int64_t> resized_axes(const Node& node, int64_t rank) {
  std::vector<int64_t> axes(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) axes[static_cast<size_t>(d)] = d;
  if (node.has_attr("axes")) axes = normalized_axes(node, node.attr_ints("axes"), rank);
  return axes;
}

// Scales and the output shape, from scales or sizes (for the listed axes only, with
// opset 18's `axes`).
void output_geometry(const Graph& g, const Node& node, std::vector<double>* scales, std::vector<int64_t>* shape) {
  const Tensor& x = require_input(g, node, 0);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<double> given_scales;
  std::vector<int64_t> given_sizes;
  if (node.op == "Upsample" && g.opset < 9) {
    given_scales = node.attr_floats("scales");
  } else if (node.op == "Upsample" || g.opset < 11) {
    given_scales = constant_floats(g, node, 1, "scales");
  } else {
    if (has_input(node, 2)) given_scales = constant_floats(g, node, 2, "scales");
    if (has_input(node, 3)) given_sizes = constant_ints(g, node, 3, "sizes");
  }
  if (given_scales.empty() == given_sizes.empty()) node_error(node, "exactly one of scales and sizes must be given");
  std::vector<int64_t> axes = resized_axes(node, rank);
  size_t listed = std::max(given_scales.size(), given_sizes.size());
  if (listed != axes.size())
    node_error(node, (given_scales.empty() ? "sizes" : "scales") + std::string(" has ") + std::to_string(listed) +
                         " entries for " + std::to_string(axes.size()) + " axes");
  *shape = x.shape;
  scales->assign(x.shape.size(), 1.0);
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t d = static_cast<size_t>(axes[i]);
    double in = static_cast<double>(x.shape[d]);
    if (!given_scales.empty()) {
      double s = given_scales[i];
      if (!(s > 0) || !std::isfinite(s)) node_error(node, "scale " + std::to_string(s) + " must be positive");
      (*scales)[d] = s;
      double out = std::floor(in * s);
      if (!(out <= kMostResizedExtent))
        node_error(node, "scale " + std::to_string(s) + " makes axis " + std::to_string(d) + " longer than " +
                             std::to_string(kMostResizedExtent) + " elements, the most aotc resizes to");
      (*shape)[d] = static_cast<int64_t>(out);
    } else {
      if (given_sizes[i] < 1) node_error(node, "sizes " + shape_str(given_sizes) + " has a size below 1");
      if (given_sizes[i] > kMostResizedExtent)
        node_error(node, "sizes " + shape_str(given_sizes) + " makes axis " + std::to_string(d) + " longer than " +
                             std::to_string(kMostResizedExtent) + " elements, the most aotc resizes to");
      (*shape)[d] = given_sizes[i];
      (*scales)[d] = static_cast<double>(given_sizes[i]) / in;
    }
  }
  require_elements(node, *shape);
  if (std::string problem = shape_size_problem(*shape); !problem.empty()) node_error(node, "the output: " + problem);
}

ResizePlan plan_resize(const Graph& g, const Node& node) {
  ResizePlan plan;
  plan.attrs = read_attributes(g, node);
  const ResizeAttributes& a = plan.attrs;
  const Tensor& x = require_input(g, node, 0);
  if (a.mode != "nearest" && !x.dtype.is_float())
    node_error(node, "mode '" + a.mode + "' needs float32 or float64 data, got " + x.dtype.str());
  plan.taps = a.mode == "nearest" ? 1 : a.mode == "linear" ? 2 : 4;
  std::vector<double> scales;
  output_geometry(g, node, &scales, &plan.output_shape);
  size_t rank = x.shape.size();
  // roi: [starts..., ends...] of the resized axes, in normalized coordinates; the whole
  // axis [0, 1] elsewhere.
  std::vector<double> roi;
  if (a.coordinates == "tf_crop_and_resize") {
    if (!has_input(node, 1)) node_error(node, "tf_crop_and_resize needs the roi input");
    std::vector<double> given = constant_floats(g, node, 1, "roi");
    std::vector<int64_t> axes = resized_axes(node, static_cast<int64_t>(rank));
    if (given.size() != 2 * axes.size())
      node_error(node, "roi must have " + std::to_string(2 * axes.size()) + " entries (start and end of each resized axis)");
    // Normalized coordinates: beyond this the sampled positions no longer fit an integer index.
    for (size_t i = 0; i < given.size(); ++i)
      if (!(std::fabs(given[i]) <= 1e6))
        node_error(node, "roi entry " + std::to_string(i) + " is not a finite number within +-1e6");
    roi.assign(rank, 0.0);
    roi.resize(2 * rank, 1.0);
    for (size_t i = 0; i < axes.size(); ++i) {
      roi[static_cast<size_t>(axes[i])] = given[i];
      roi[rank + static_cast<size_t>(axes[i])] = given[axes.size() + i];
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    int64_t in = x.shape[d], out = plan.output_shape[d];
    double roi_start = roi.empty() ? 0 : roi[d], roi_end = roi.empty() ? 1 : roi[d + rank];
    AxisTaps taps;
    taps.valid_lo = out;
    taps.valid_hi = -1;
    bool identity = in == out;
    for (int64_t o = 0; o < out; ++o) {
      double x_original = original_coordinate(a, o, scales[d], in, out, roi_start, roi_end);
      bool valid = a.coordinates != "tf_crop_and_resize" || (x_original >= 0 && x_original <= static_cast<double>(in - 1));
      if (valid) {
        taps.valid_lo = std::min(taps.valid_lo, o);
        taps.valid_hi = std::max(taps.valid_hi, o);
      }
      size_t first = taps.index.size();
      coordinate_taps(a, x_original, scales[d], in, &taps);
      double own = 0, others = 0;
      for (size_t t = first; t < taps.index.size(); ++t) (taps.index[t] == o ? own : others) += std::fabs(taps.weight[t]);
      identity &= valid && own == 1 && others == 0;
    }
    taps.identity = identity;
    plan.axes.push_back(std::move(taps));
  }
  return plan;
}

void infer_resize(Graph& g, Node& node) {
  ResizePlan plan = plan_resize(g, node);
  set_output(g, node, 0, g.tensor(node.inputs[0]).dtype, plan.output_shape);
}

// Declares the constant tables of the resized axes, then builds the body with them.
ir::Stmt with_tables(const ResizePlan& plan, DataType weight_type, size_t axis, std::vector<ir::Buffer>* indices,
                     std::vector<ir::Buffer>* weights, const std::function<ir::Stmt()>& body) {
  if (axis == plan.axes.size()) return body();
  const AxisTaps& taps = plan.axes[axis];
  if (taps.identity) return with_tables(plan, weight_type, axis + 1, indices, weights, body);
  int64_t out = plan.output_shape[axis];
  std::vector<int64_t> shape = plan.taps == 1 ? std::vector<int64_t>{out} : std::vector<int64_t>{out, plan.taps};
  std::string suffix = std::to_string(axis);
  return ir::allocate_const("index" + suffix, DataType::Int(32), shape, encode_int_elements(DataType::Int(32), taps.index),
                            [&](const ir::Buffer& index_table) {
                              (*indices)[axis] = index_table;
                              if (plan.taps == 1) return with_tables(plan, weight_type, axis + 1, indices, weights, body);
                              std::vector<double> w = taps.weight;
                              if (weight_type == DataType::Float32())
                                for (double& v : w) v = static_cast<double>(static_cast<float>(v));
                              return ir::allocate_const("weight" + suffix, weight_type, shape, encode_elements(weight_type, w),
                                                        [&](const ir::Buffer& weight_table) {
                                                          (*weights)[axis] = weight_table;
                                                          return with_tables(plan, weight_type, axis + 1, indices, weights, body);
                                                        });
                            });
}

LoweredOp lower_resize(const Graph& g, const Node& node, KernelBuilder& kb) {
  ResizePlan plan = plan_resize(g, node);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  DataType t = x->dtype;
  size_t rank = plan.axes.size();
  std::vector<ir::Buffer> indices(rank), weights(rank);
  std::vector<size_t> resized;
  for (size_t d = 0; d < rank; ++d)
    if (!plan.axes[d].identity) resized.push_back(d);

  auto body = [&]() {
    return ir::loop_nest(plan.output_shape, {}, [&](const std::vector<Expr>& out) {
      // Outside the crop box of tf_crop_and_resize, the extrapolation value.
      Expr inside;
      for (size_t d = 0; d < rank && plan.attrs.coordinates == "tf_crop_and_resize"; ++d) {
        const AxisTaps& a = plan.axes[d];
        if (a.valid_lo == 0 && a.valid_hi == plan.output_shape[d] - 1) continue;
        Expr within = a.valid_lo > a.valid_hi ? Expr(ir::make_int(0, DataType::Bool()))
                                              : logical_and(out[d] >= ir::make_int(a.valid_lo), out[d] <= ir::make_int(a.valid_hi));
        inside = inside ? logical_and(inside, within) : within;
      }
      auto finish = [&](Expr value) {
        if (inside) value = ir::select(inside, value, t.is_float() ? ir::make_float(plan.attrs.extrapolation, t)
                                                                   : ir::make_int(static_cast<int64_t>(plan.attrs.extrapolation), t));
        return store_element(y, out, kb.epilogue(value, out.empty() ? std::vector<Expr>{0} : out));
      };
      auto source = [&](const std::vector<Expr>& tap) {
        std::vector<Expr> in = out;
        for (size_t i = 0; i < resized.size(); ++i) {
          size_t d = resized[i];
          in[d] = plan.taps == 1 ? ir::load(indices[d], {out[d]}) : ir::load(indices[d], {out[d], tap[i]});
        }
        return in;
      };
      if (plan.taps == 1) return finish(element(x, source({})));
      std::vector<int64_t> tap_shape(resized.size(), plan.taps);
      return accumulate(
          ir::make_zero(t),
          [&](const Accumulator& acc) {
            return ir::loop_nest(tap_shape, {"t"}, [&](const std::vector<Expr>& tap) {
              Expr weight;
              for (size_t i = 0; i < resized.size(); ++i) {
                Expr w = ir::load(weights[resized[i]], {out[resized[i]], tap[i]});
                weight = weight ? weight * w : w;
              }
              Expr value = element(x, source(tap));
              return acc.set(acc.value() + (weight ? weight * value : value));
            });
          },
          finish);
    });
  };
  return kb.finish(with_tables(plan, t, 0, &indices, &weights, body));
}

AOTC_REGISTER_OP("Resize", kernel_op(infer_resize, lower_resize).with({Role::kAnchor}));
AOTC_REGISTER_OP("Upsample", kernel_op(infer_resize, lower_resize).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
