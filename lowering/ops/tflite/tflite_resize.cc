// TFLite RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR on NHWC tensors, as TensorFlow Lite
// Micro's reference kernels compute them (reference_ops::ResizeNearestNeighbor,
// ResizeBilinear for float, ResizeBilinearInteger for int8).
//
// Everything that depends only on the output row or column (source indices, float
// interpolation weights, the integer kernel's 10-bit fixed-point positions) is computed
// at compile time with TFLite's own float / integer arithmetic and stored in small tables;
// the kernel then reads the four neighbours and combines them as TFLite does, in its order:
//   float: v00 * (1 - dy) * (1 - dx) + v10 * dy * (1 - dx) + v01 * (1 - dy) * dx + v11 * dy * dx
//   int8:  the same sum with weights in units of 2^-10, in int64, then divided by 2^20
//          rounding half away from zero (TFLite's default, without TFLITE_SINGLE_ROUNDING).
// Nearest neighbour copies values, so it serves every type.
#include <algorithm>
#include <cmath>

#include "aot/graph/op_registry.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;

struct ResizeGeometry {
  int64_t batches, in_h, in_w, channels, out_h, out_w;
  bool align_corners, half_pixel_centers;
};

ResizeGeometry resize_geometry(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  if (x.shape.size() != 4) node_error(node, "input must be 4-D NHWC, got " + shape_str(x.shape));
  std::vector<int64_t> size = constant_ints(g, node, 1, "size");
  if (size.size() != 2 || size[0] < 1 || size[1] < 1) node_error(node, "size " + shape_str(size) + " is not two positive sizes");
  ResizeGeometry r{x.shape[0], x.shape[1], x.shape[2], x.shape[3], size[0], size[1],
                   node.attr_int("align_corners", 0) != 0, node.attr_int("half_pixel_centers", 0) != 0};
  if (r.align_corners && r.half_pixel_centers) node_error(node, "align_corners and half_pixel_centers are both set");
  return r;
}

void infer_resize(Graph& g, Node& node, bool bilinear) {
  ResizeGeometry r = resize_geometry(g, node);
  DataType t = g.tensor(node.inputs[0]).dtype;
  if (bilinear && t != DataType::Float32() && t != DataType::Int(8))
    node_error(node, "input is " + t.str() + "; supported: float32 and int8");
  tflite::set_declared_output(g, node, 0, t, {r.batches, r.out_h, r.out_w, r.channels});
}

// TFLite's scale of one axis: (in - 1) / (out - 1) with align_corners, else in / out, in float.
float axis_scale(int64_t in, int64_t out, bool align_corners) {
  if (align_corners && out > 1) return static_cast<float>(in - 1) / static_cast<float>(out - 1);
  return static_cast<float>(in) / static_cast<float>(out);
}

// ---------------------------------------------------------------- nearest neighbour

// GetNearestNeighbor for every output index of one axis.
std::vector<double> nearest_sources(int64_t in, int64_t out, bool align_corners, bool half_pixel_centers) {
  float scale = axis_scale(in, out, align_corners);
  float offset = half_pixel_centers ? 0.5f : 0.0f;
  std::vector<double> sources;
  for (int64_t i = 0; i < out; ++i) {
    float scaled = (static_cast<float>(i) + offset) * scale;
    int64_t v = static_cast<int64_t>(align_corners ? std::round(scaled) : std::floor(scaled));
    v = std::min(v, in - 1);
    if (half_pixel_centers) v = std::max<int64_t>(v, 0);
    sources.push_back(static_cast<double>(v));
  }
  return sources;
}

LoweredOp lower_nearest(const LowerContext& ctx) {
  ResizeGeometry r = resize_geometry(ctx.graph, ctx.node);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  const DataType i32 = DataType::Int(32);
  ir::Stmt body = ir::allocate_const("source_y", i32, nearest_sources(r.in_h, r.out_h, r.align_corners, r.half_pixel_centers),
                                     [&](const ir::Buffer& sy) {
    return ir::allocate_const("source_x", i32, nearest_sources(r.in_w, r.out_w, r.align_corners, r.half_pixel_centers),
                              [&](const ir::Buffer& sx) {
      return gather_elements(kb, x, {r.batches, r.out_h, r.out_w, r.channels}, y, [&](const std::vector<Expr>& o) {
        return std::vector<Expr>{o[0], ir::load(sy, {o[1]}), ir::load(sx, {o[2]}), o[3]};
      });
    });
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- bilinear

// One axis's interpolation: for each output index the two source indices and the weights
// of the lower (w0) and upper (w1) one.
struct AxisTables {
  std::vector<double> lower, upper, w0, w1;
};

// ComputeInterpolationValues (float): weights 1 - (v - lower) and v - lower, in float.
AxisTables float_tables(int64_t in, int64_t out, bool align_corners, bool half_pixel_centers) {
  float scale = axis_scale(in, out, align_corners);
  AxisTables t;
  for (int64_t i = 0; i < out; ++i) {
    float v = half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f : static_cast<float>(i) * scale;
    int64_t lo = std::max<int64_t>(static_cast<int64_t>(std::floor(v)), 0);
    int64_t hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(v)), in - 1);
    float frac = v - static_cast<float>(lo);
    t.lower.push_back(static_cast<double>(lo));
    t.upper.push_back(static_cast<double>(hi));
    t.w0.push_back(static_cast<double>(1.0f - frac));
    t.w1.push_back(static_cast<double>(frac));
  }
  return t;
}

// ComputeInterpolationValuesInteger: positions in units of 2^-10, C's truncating division.
AxisTables integer_tables(int64_t in, int64_t out, bool align_corners, bool half_pixel_centers) {
  int64_t scale_10 = (1024 * in + out / 2) / out;
  if (align_corners && out > 1) scale_10 = (1024 * (in - 1) + (out - 1) / 2) / (out - 1);
  AxisTables t;
  for (int64_t i = 0; i < out; ++i) {
    int64_t v = half_pixel_centers ? i * scale_10 + scale_10 / 2 - 512 : i * scale_10;
    int64_t lo = std::max<int64_t>(v / 1024, 0);
    int64_t hi = std::min<int64_t>((v + 1023) / 1024, in - 1);
    t.lower.push_back(static_cast<double>(lo));
    t.upper.push_back(static_cast<double>(hi));
    t.w0.push_back(static_cast<double>(1024 - (v - 1024 * lo)));
    t.w1.push_back(static_cast<double>(v - 1024 * lo));
  }
  return t;
}

LoweredOp lower_bilinear(const LowerContext& ctx) {
  ResizeGeometry r = resize_geometry(ctx.graph, ctx.node);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "input"), y = kb.output(0, "output");
  bool integer = x->dtype != DataType::Float32();
  AxisTables ty = integer ? integer_tables(r.in_h, r.out_h, r.align_corners, r.half_pixel_centers)
                          : float_tables(r.in_h, r.out_h, r.align_corners, r.half_pixel_centers);
  AxisTables tx = integer ? integer_tables(r.in_w, r.out_w, r.align_corners, r.half_pixel_centers)
                          : float_tables(r.in_w, r.out_w, r.align_corners, r.half_pixel_centers);
  const DataType i32 = DataType::Int(32), i64 = DataType::Int(64);
  DataType weight_type = integer ? i64 : DataType::Float32();

  // Nests the eight tables around the loop nest.
  struct Table {
    std::string name;
    DataType dtype;
    const std::vector<double>* values;
  };
  std::vector<Table> tables = {{"y0", i32, &ty.lower}, {"y1", i32, &ty.upper}, {"wy0", weight_type, &ty.w0},
                               {"wy1", weight_type, &ty.w1}, {"x0", i32, &tx.lower}, {"x1", i32, &tx.upper},
                               {"wx0", weight_type, &tx.w0}, {"wx1", weight_type, &tx.w1}};
  std::vector<ir::Buffer> b(tables.size());
  std::function<ir::Stmt(size_t)> nest = [&](size_t k) -> ir::Stmt {
    if (k < tables.size())
      return ir::allocate_const(tables[k].name, tables[k].dtype, *tables[k].values, [&](const ir::Buffer& buf) {
        b[k] = buf;
        return nest(k + 1);
      });
    return ir::loop_nest({r.batches, r.out_h, r.out_w, r.channels}, {"n", "oy", "ox", "c"}, [&](const std::vector<Expr>& o) {
      Expr y0 = ir::load(b[0], {o[1]}), y1 = ir::load(b[1], {o[1]}), wy0 = ir::load(b[2], {o[1]}), wy1 = ir::load(b[3], {o[1]});
      Expr x0 = ir::load(b[4], {o[2]}), x1 = ir::load(b[5], {o[2]}), wx0 = ir::load(b[6], {o[2]}), wx1 = ir::load(b[7], {o[2]});
      auto at = [&](const Expr& iy, const Expr& ix) {
        Expr v = ir::load(x, {o[0], iy, ix, o[3]});
        return integer ? ir::cast(i64, v) : v;
      };
      Expr sum = at(y0, x0) * wy0 * wx0 + at(y1, x0) * wy1 * wx0 + at(y0, x1) * wy0 * wx1 + at(y1, x1) * wy1 * wx1;
      Expr value = sum;
      if (integer) {
        Expr round = ir::select(sum > ir::make_int(0, i64), ir::make_int(1 << 19, i64), ir::make_int(-(1 << 19), i64));
        value = ir::cast(x->dtype, (sum + round) / ir::make_int(1 << 20, i64));
      }
      return ir::store(y, o, kb.epilogue(value, o));
    });
  };
  return kb.finish(nest(0));
}

AOTC_REGISTER_OP("tfl.RESIZE_NEAREST_NEIGHBOR", kernel_op([](Graph& g, Node& n) { infer_resize(g, n, false); }, lower_nearest)
                                                    .with({Role::kAnchor}));
AOTC_REGISTER_OP("tfl.RESIZE_BILINEAR", kernel_op([](Graph& g, Node& n) { infer_resize(g, n, true); }, lower_bilinear)
                                            .with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
