// TFLite AVERAGE_POOL_2D and MAX_POOL_2D on NHWC float32, int8 and int16 tensors.
//
// As in TFLite's reference kernels (reference/pooling.h, integer_ops/pooling.h), a window
// that reaches into the padding is clipped to the input (window.h): the loops run over the
// taps that fall inside it, and an average divides by their number. The int8 and int16 average
// is an int32 sum divided with rounding half away from zero; quantized values are pooled as
// stored, without rescaling, because TFLite requires input and output to share their
// quantization. On a
// core with Helium the int8 sums of windows inside the input are vector sums
// (lowering/kernels/mve/pool_mve_s8.cc, chosen by the kernel strategy).
#include <cmath>
#include <functional>
#include <limits>

#include "aot/graph/op_registry.h"
#include "lowering/kernels/pool_kernels.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"
#include "lowering/compute/window.h"

namespace aotc {
namespace {

using ir::Expr;

enum class PoolKind { kAverage, kMax };

struct PoolGeometry {
  int64_t batches, channels;
  std::vector<WindowAxis> axes;  // height, width
};

PoolGeometry pool_geometry(const Graph& g, const Node& node) {
  const Tensor& in = require_input(g, node, 0);
  if (in.shape.size() != 4) node_error(node, "input '" + in.name + "' must be 4-D (NHWC), not " + shape_str(in.shape));
  PoolGeometry p;
  p.batches = in.shape[0], p.channels = in.shape[3];
  std::string padding = node.attr_string("padding", "SAME");
  p.axes = {tflite_window_axis(node, padding, in.shape[1], node.attr_int("filter_h", 1), node.attr_int("stride_h", 1), 1),
            tflite_window_axis(node, padding, in.shape[2], node.attr_int("filter_w", 1), node.attr_int("stride_w", 1), 1)};
  return p;
}

// TFLite Micro's PoolingPrepare: int8 and int16 input and output must share scale and zero point.
void require_same_quantization(const Graph& g, const Node& node) {
  TensorId in = node.inputs[0], out = node.outputs[0];
  for (TensorId id : {in, out}) tflite::require_per_tensor_quantized(g, node, id);
  if (std::fabs(tflite::scale_of(g, in) - tflite::scale_of(g, out)) > 1e-6 ||
      tflite::zero_point_of(g, in) != tflite::zero_point_of(g, out))
    node_error(node, "input '" + g.tensor(in).name + "' and output '" + g.tensor(out).name +
                         "' have different quantization; TFLite pools quantized values without rescaling");
}

void infer_pool(Graph& g, Node& node) {
  PoolGeometry p = pool_geometry(g, node);
  DataType t = g.tensor(node.inputs[0]).dtype;
  if (t != DataType::Float32() && t != DataType::Int(8) && t != DataType::Int(16))
    node_error(node, "input '" + g.tensor(node.inputs[0]).name + "' is " + t.str() +
                         "; only float32, int8 and int16 are supported");
  tflite::set_declared_output(g, node, 0, t, {p.batches, p.axes[0].output, p.axes[1].output, p.channels});
  if (t != DataType::Float32()) require_same_quantization(g, node);
}

// int8 and int16 (reference_integer_ops::AveragePool and MaxPool, one formula for both).
WindowReduction quantized_average(const Graph& g, const Node& node) {
  QuantizedRange range = tflite::output_range(g, node, node.outputs[0]);
  return {ir::make_int(0), [](Expr acc, Expr x) { return acc + ir::cast(DataType::Int(32), x); },
          [range](Expr sum, Expr count) {
            // Rounds half away from zero; C division truncates toward zero.
            Expr half = count / 2;
            return tflite::clamp(ir::select(sum > 0, (sum + half) / count, (sum - half) / count), range);
          },
          true};
}

WindowReduction quantized_max(const Graph& g, const Node& node) {
  QuantizedRange range = tflite::output_range(g, node, node.outputs[0]);
  bool int16 = g.tensor(node.inputs[0]).dtype == DataType::Int(16);
  return {ir::make_int(int16 ? std::numeric_limits<int16_t>::min() : std::numeric_limits<int8_t>::min()),
          [](Expr acc, Expr x) { return ir::max(acc, ir::cast(DataType::Int(32), x)); },
          [range](Expr max, Expr) { return tflite::clamp(max, range); }, false};
}

WindowReduction float_average(const Node& node) {
  return {ir::make_float(0.0), [](Expr acc, Expr x) { return acc + x; },
          [&node](Expr sum, Expr count) {
            return tflite::apply_float_activation(node, sum / ir::cast(DataType::Float32(), count));
          },
          true};
}

WindowReduction float_max(const Node& node) {
  // std::max(acc, x) as TFLite writes it: acc is kept unless acc < x.
  return {ir::make_float(std::numeric_limits<float>::lowest()),
          [](Expr acc, Expr x) { return ir::select(acc < x, x, acc); },
          [&node](Expr max, Expr) { return tflite::apply_float_activation(node, max); }, false};
}

WindowReduction window_reduction(const Graph& g, const Node& node, PoolKind kind) {
  bool quantized = g.tensor(node.inputs[0]).dtype != DataType::Float32();
  if (kind == PoolKind::kAverage) return quantized ? quantized_average(g, node) : float_average(node);
  return quantized ? quantized_max(g, node) : float_max(node);
}

// The pooling as a PoolProblem for the kernel strategy (lowering/kernels/pool_kernels.h):
// on a core with Helium an int8 average over windows inside the input takes the runtime's
// vector window sums, anything else the portable loops.
LoweredOp lower_pool(const LowerContext& ctx, PoolKind kind) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  PoolGeometry geometry = pool_geometry(g, node);
  PoolProblem p;
  p.batches = geometry.batches;
  p.channels = geometry.channels;
  p.axes = geometry.axes;
  p.type = g.tensor(node.inputs[0]).dtype;
  p.average = kind == PoolKind::kAverage;
  p.reduction = window_reduction(g, node, kind);
  p.input = node.inputs[0];
  p.output = node.outputs[0];
  KernelBuilder kb(ctx);
  return build_pool_kernel(kb, p);
}

OpDef pool_op(PoolKind kind) {
  return kernel_op(infer_pool, [kind](const LowerContext& ctx) { return lower_pool(ctx, kind); });
}

AOTC_REGISTER_OP("tfl.AVERAGE_POOL_2D", pool_op(PoolKind::kAverage));
AOTC_REGISTER_OP("tfl.MAX_POOL_2D", pool_op(PoolKind::kMax));

}  // namespace
}  // namespace aotc
