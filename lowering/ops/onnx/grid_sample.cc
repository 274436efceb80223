// GridSample (ONNX opset 16, and opset 20's spelling of the modes): samples the image X
// [N, C, H, W] at the points of Grid [N, H_out, W_out, 2], which holds (x, y) pairs
// normalized to [-1, 1]; Y is [N, C, H_out, W_out].
//
// The computation is ONNX Runtime's (which ONNX's reference follows):
//   denormalize  x = (gx + 1) / 2 (W - 1)          align_corners=1: -1 and 1 are the corner pixels' centres
//                x = ((gx + 1) W - 1) / 2          align_corners=0: -1 and 1 are the image's outer edges
//   nearest      x = round half to even (x)
//   out of [x_min, x_max] x [y_min, y_max] (the corner centres with align_corners=1, the
//   edges [-0.5, W - 0.5] without): padding_mode border clamps both coordinates to the
//   pixel centres [0, W - 1], reflection reflects them at the bounds (repeatedly);
//   modes   nearest: the pixel at (y, x); bilinear (linear): the 2x2 pixels around;
//           bicubic (cubic): the 4x4 pixels around, cubic convolution with a = -0.75;
//   a pixel outside the image reads 0 (zeros), the nearest edge pixel (border) or its
//   reflection at the bounds (reflection).
// X and Grid are float32 or float64 (computed in X's type). Coordinates are converted to
// integers only after being clamped to a small range around the image, so that a NaN or
// huge grid value is never an out-of-range conversion in C; such points read padding.
#include <cmath>
#include <string>
#include <vector>

#include "aot/graph/op_registry.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"

namespace aotc {
namespace {

using ir::Expr;

enum class Mode { kNearest, kLinear, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

struct GridSamplePlan {
  Mode mode;
  Padding padding;
  bool align_corners;
};

GridSamplePlan plan_grid_sample(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  const Tensor& grid = require_input(g, node, 1);
  for (const Tensor* t : {&x, &grid})
    if (t->dtype != DataType::Float32() && t->dtype != DataType::Float64())
      node_error(node, "input '" + t->name + "' is " + t->dtype.str() + "; only float32 and float64 are supported");
  if (x.shape.size() != 4)
    node_error(node, "X has shape " + shape_str(x.shape) + "; only 2-D sampling ([N, C, H, W]) is supported");
  if (grid.shape.size() != 4 || grid.shape[0] != x.shape[0] || grid.shape[3] != 2)
    node_error(node, "Grid has shape " + shape_str(grid.shape) + "; expected [" + std::to_string(x.shape[0]) +
                         ", H_out, W_out, 2]");
  GridSamplePlan p;
  std::string mode = node.attr_string("mode", g.opset >= 20 ? "linear" : "bilinear");
  if (mode == "nearest") p.mode = Mode::kNearest;
  else if (mode == "bilinear" || mode == "linear") p.mode = Mode::kLinear;
  else if (mode == "bicubic" || mode == "cubic") p.mode = Mode::kCubic;
  else node_error(node, "mode '" + mode + "' is not supported (nearest, bilinear / linear, bicubic / cubic)");
  std::string padding = node.attr_string("padding_mode", "zeros");
  if (padding == "zeros") p.padding = Padding::kZeros;
  else if (padding == "border") p.padding = Padding::kBorder;
  else if (padding == "reflection") p.padding = Padding::kReflection;
  else node_error(node, "padding_mode '" + padding + "' is not supported (zeros, border, reflection)");
  p.align_corners = node.attr_int("align_corners", 0) != 0;
  return p;
}

void infer_grid_sample(Graph& g, Node& node) {
  plan_grid_sample(g, node);
  const Tensor& x = g.tensor(node.inputs[0]);
  const Tensor& grid = g.tensor(node.inputs[1]);
  set_output(g, node, 0, x.dtype, {x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]});
}

// lo if v < lo or v is NaN, hi if v > hi, else v.
Expr clamp_float(const Expr& v, const Expr& lo, const Expr& hi) {
  return ir::select(v >= lo, ir::select(v <= hi, v, hi), lo);
}

// The sampler of one image axis of `length` pixels.
class Axis {
 public:
  Axis(DataType t, int64_t length, const GridSamplePlan& plan) : t_(t), length_(length), plan_(plan) {
    lo_ = plan.align_corners ? 0.0 : -0.5;
    hi_ = plan.align_corners ? static_cast<double>(length - 1) : static_cast<double>(length) - 0.5;
  }

  Expr denormalize(const Expr& v) const {
    Expr n = constant(static_cast<double>(length_), t_);
    if (plan_.align_corners) return (v + constant(1.0, t_)) / constant(2.0, t_) * (n - constant(1.0, t_));
    return ((v + constant(1.0, t_)) * n - constant(1.0, t_)) / constant(2.0, t_);
  }
  Expr outside(const Expr& v) const {
    return ir::binary(ir::BinaryOp::kOr, v < constant(lo_, t_), v > constant(hi_, t_));
  }
  // The coordinate brought inside, for border and reflection padding.
  Expr pad(const Expr& v) const {
    if (plan_.padding == Padding::kBorder) return clamp_float(v, constant(0.0, t_), constant(static_cast<double>(length_ - 1), t_));
    return reflect(v);
  }
  // The pixel index of integral coordinate v (a float), for a load: inside the image.
  // Also says whether v was inside (zeros padding reads 0 where it was not).
  std::pair<Expr, Expr> index(const Expr& v) const {
    Expr last = constant(static_cast<double>(length_ - 1), t_);
    Expr inside = ir::logical_and(v >= constant(0.0, t_), v <= last);
    Expr position = v;
    if (plan_.padding == Padding::kReflection) position = reflect(v);
    // Reflected coordinates are whole numbers in [0, length - 1]; clamping again only
    // guards the conversion.
    return {ir::cast(DataType::Int(32), clamp_float(position, constant(0.0, t_), last)), inside};
  }

 private:
  // Reflects v at lo and hi until it lies between them (ONNX Runtime's GsReflect).
  Expr reflect(const Expr& v) const {
    Expr lo = constant(lo_, t_), hi = constant(hi_, t_);
    double span = hi_ - lo_;
    if (span <= 0) return lo;  // one pixel with align_corners=1: every point is its centre
    Expr range = constant(span, t_);
    auto fold = [&](const Expr& distance, const Expr& near, const Expr& far, bool toward_hi) {
      Expr turns = math("floor", {distance / range});
      Expr rest = distance - turns * range;
      Expr even = math("fmod", {turns, constant(2.0, t_)}) == constant(0.0, t_);
      Expr from_near = toward_hi ? near + rest : near - rest;
      Expr from_far = toward_hi ? far - rest : far + rest;
      return ir::select(even, from_near, from_far);
    };
    return ir::select(v < lo, fold(lo - v, lo, hi, true), ir::select(v > hi, fold(v - hi, hi, lo, false), v));
  }

  DataType t_;
  int64_t length_;
  const GridSamplePlan& plan_;
  double lo_, hi_;
};

LoweredOp lower_grid_sample(const Graph& g, const Node& node, KernelBuilder& kb) {
  GridSamplePlan plan = plan_grid_sample(g, node);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer grid = kb.input(1, "Grid");
  ir::Buffer y = kb.output(0, "Y");
  DataType t = x->dtype;
  int64_t batch = x->shape[0], channels = x->shape[1];
  Axis along_y(t, x->shape[2], plan), along_x(t, x->shape[3], plan);

  auto grid_at = [&](const Expr& n, const Expr& oy, const Expr& ox, int part) {
    Expr v = ir::load(grid, {n, oy, ox, part});
    return v.dtype() == t ? v : ir::cast(t, v);
  };
  ir::Stmt body = ir::loop_nest({batch, grid->shape[1], grid->shape[2]}, {"n", "oy", "ox"}, [&](const std::vector<Expr>& i) {
    Expr n = i[0], oy = i[1], ox = i[2];
    ir::Var raw_x = ir::make_var("raw_x", t), raw_y = ir::make_var("raw_y", t);
    ir::Var px = ir::make_var("px", t), py = ir::make_var("py", t);
    Expr rx = ir::var_expr(raw_x), ry = ir::var_expr(raw_y);
    if (plan.mode == Mode::kNearest) {
      rx = math("nearbyint", {rx});
      ry = math("nearbyint", {ry});
    }
    Expr point_x = rx, point_y = ry;
    if (plan.padding != Padding::kZeros) {
      Expr out = ir::binary(ir::BinaryOp::kOr, along_x.outside(rx), along_y.outside(ry));
      point_x = ir::select(out, along_x.pad(rx), rx);
      point_y = ir::select(out, along_y.pad(ry), ry);
    }
    Expr fx = ir::var_expr(px), fy = ir::var_expr(py);
    // The pixel of channel c at integral coordinates (row, col), with padding.
    auto pixel = [&](const Expr& c, const Expr& row, const Expr& col) {
      auto [r, r_inside] = along_y.index(row);
      auto [k, k_inside] = along_x.index(col);
      Expr v = ir::load(x, {n, c, r, k});
      if (plan.padding != Padding::kZeros) return v;
      return ir::select(ir::logical_and(r_inside, k_inside), v, ir::make_zero(t));
    };
    ir::Stmt per_channel = ir::loop_nest({channels}, {"c"}, [&](const std::vector<Expr>& ci) {
      Expr c = ci[0];
      Expr value;
      if (plan.mode == Mode::kNearest) {
        value = pixel(c, fy, fx);
      } else if (plan.mode == Mode::kLinear) {
        Expr x1 = math("floor", {fx}), y1 = math("floor", {fy});
        Expr one = constant(1.0, t);
        Expr x2 = x1 + one, y2 = y1 + one;
        Expr dx1 = fx - x1, dx2 = x2 - fx, dy1 = fy - y1, dy2 = y2 - fy;
        value = dy2 * (dx2 * pixel(c, y1, x1) + dx1 * pixel(c, y1, x2)) + dy1 * (dx2 * pixel(c, y2, x1) + dx1 * pixel(c, y2, x2));
      } else {
        Expr one = constant(1.0, t);
        Expr x0 = math("floor", {fx}) - one, y0 = math("floor", {fy}) - one;
        auto coefficients = [&](const Expr& d) {
          Expr a = constant(-0.75, t);
          auto outer = [&](const Expr& s) {  // |s| in [1, 2]
            return ((a * s - constant(5.0, t) * a) * s + constant(8.0, t) * a) * s - constant(4.0, t) * a;
          };
          auto inner = [&](const Expr& s) {  // |s| in [0, 1]
            return ((a + constant(2.0, t)) * s - (a + constant(3.0, t))) * s * s + one;
          };
          return std::vector<Expr>{outer(d + one), inner(d), inner(one - d), outer(constant(2.0, t) - d)};
        };
        std::vector<Expr> cx = coefficients(fx - x0 - one), cy = coefficients(fy - y0 - one);
        for (int h = 0; h < 4; ++h) {
          Expr row;
          for (int w = 0; w < 4; ++w) {
            Expr term = cx[static_cast<size_t>(w)] * pixel(c, y0 + constant(h, t), x0 + constant(w, t));
            row = row ? row + term : term;
          }
          Expr term = cy[static_cast<size_t>(h)] * row;
          value = value ? value + term : term;
        }
      }
      return ir::store(y, {n, c, oy, ox}, kb.epilogue(value, {n, c, oy, ox}));
    });
    return ir::let(raw_x, along_x.denormalize(grid_at(n, oy, ox, 0)),
                   ir::let(raw_y, along_y.denormalize(grid_at(n, oy, ox, 1)),
                           ir::let(px, point_x, ir::let(py, point_y, per_channel))));
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("GridSample", kernel_op(infer_grid_sample, lower_grid_sample).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
