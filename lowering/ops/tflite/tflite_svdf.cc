// TFLite SVDF (singular value decomposition filter), float32 and int8 with an int16 or
// int8 state, as TensorFlow Lite Micro's reference kernels compute it (svdf_common.cc).
//
// An SVDF layer keeps, for each batch and each of its F filters, the last M values of a
// feature (a dot product of the input with the filter's feature weights): its state, a
// variable tensor [B, F * M] that the kernel updates in place and that lives on from one
// run to the next (graph.h, and the executor's static state arrays). Each run:
//   1. shifts every filter's memory one step to the left (the oldest value drops out);
//   2. writes the new feature into each memory's last slot (int8: rescaled into the
//      state's quantization and clamped to its type);
//   3. for each unit u, sums over its `rank` filters f the dot product of the filter's
//      memory with its time weights, adds the bias and (int8) requantizes.
// Float sums run in TFLite's order (each dot product from 0, then bias + dot products in
// filter order). The int8 kernel applies no fused activation, as TFLite Micro's doesn't:
// its output is only clamped to int8.
#include <cmath>
#include <functional>

#include "aot/graph/op_registry.h"
#include "lowering/ir/runtime_calls.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

using ir::Expr;
using tflite::float_scale;

enum SvdfInput { kInput = 0, kWeightsFeature = 1, kWeightsTime = 2, kBias = 3, kState = 4 };

struct SvdfGeometry {
  int64_t batches, input_size, filters, units, rank, memory;
};

SvdfGeometry svdf_geometry(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, kInput);
  const Tensor& wf = require_input(g, node, kWeightsFeature);
  const Tensor& wt = require_input(g, node, kWeightsTime);
  const Tensor& state = require_input(g, node, kState);
  if (x.shape.size() != 2 || wf.shape.size() != 2 || wt.shape.size() != 2 || state.shape.size() != 2)
    node_error(node, "input, weights and state must be 2-D");
  SvdfGeometry s;
  s.batches = x.shape[0];
  s.input_size = x.shape[1];
  s.filters = wf.shape[0];
  s.rank = node.attr_int("rank", 1);
  s.memory = wt.shape[1];
  if (s.rank < 1 || s.filters % s.rank != 0)
    node_error(node, std::to_string(s.filters) + " filters do not divide by rank " + std::to_string(s.rank));
  s.units = s.filters / s.rank;
  if (wf.shape[1] != s.input_size)
    node_error(node, "feature weights " + shape_str(wf.shape) + " do not match input " + shape_str(x.shape));
  if (wt.shape[0] != s.filters)
    node_error(node, "time weights " + shape_str(wt.shape) + " do not have one row per filter (" +
                         std::to_string(s.filters) + ")");
  if (state.shape != std::vector<int64_t>{s.batches, s.memory * s.filters})
    node_error(node, "state '" + state.name + "' is " + shape_str(state.shape) + ", expected " +
                         shape_str({s.batches, s.memory * s.filters}));
  if (!state.is_variable)
    node_error(node, "state '" + state.name + "' must be a variable tensor (TFLite's is_variable)");
  TensorId bias = node.input(kBias);
  tflite::require_bias_length(g, node, bias, s.units);
  return s;
}

void require_dtype(const Graph& g, const Node& node, TensorId id, std::initializer_list<DataType> allowed,
                   const std::string& what) {
  DataType t = g.tensor(id).dtype;
  std::string names;
  for (DataType a : allowed) {
    if (t == a) return;
    names += (names.empty() ? "" : " or ") + a.str();
  }
  node_error(node, what + " '" + g.tensor(id).name + "' is " + t.str() + "; " + names + " is required");
}

// The scales TFLite Micro's PrepareSvdf computes, products and quotient in float.
struct SvdfScaling {
  QuantizedMultiplier feature_to_state, time_to_output;
};

SvdfScaling svdf_scaling(const Graph& g, const Node& node) {
  float in = float_scale(g, node.inputs[kInput]), wf = float_scale(g, node.inputs[kWeightsFeature]);
  float wt = float_scale(g, node.inputs[kWeightsTime]), state = float_scale(g, node.inputs[kState]);
  float out = float_scale(g, node.outputs[0]);
  return {quantize_multiplier(static_cast<double>(in * wf / state)),
          quantize_multiplier(static_cast<double>(state * wt / out))};
}

void infer_svdf(Graph& g, Node& node) {
  SvdfGeometry s = svdf_geometry(g, node);
  TensorId x = node.inputs[kInput], wf = node.inputs[kWeightsFeature], wt = node.inputs[kWeightsTime];
  TensorId state = node.inputs[kState], bias = node.input(kBias);
  DataType t = g.tensor(x).dtype;
  if (t == DataType::Float32()) {
    for (TensorId id : {wf, wt, state}) require_dtype(g, node, id, {DataType::Float32()}, "float32 SVDF operand");
    if (bias != kNoTensor) require_dtype(g, node, bias, {DataType::Float32()}, "bias");
  } else if (t == DataType::Int(8)) {
    if (g.tensor(wf).dtype.is_float()) node_error(node, "hybrid models (float activations with int8 weights) are not supported");
    require_dtype(g, node, wf, {DataType::Int(8)}, "feature weights");
    require_dtype(g, node, wt, {DataType::Int(16), DataType::Int(8)}, "time weights");
    if (g.tensor(state).dtype != g.tensor(wt).dtype)
      node_error(node, "state '" + g.tensor(state).name + "' must have the time weights' type " + g.tensor(wt).dtype.str());
    if (bias != kNoTensor) require_dtype(g, node, bias, {DataType::Int(32)}, "bias");
    for (TensorId id : {x, wf, wt, state, node.outputs[0]}) tflite::require_per_tensor_quantized(g, node, id);
    // TFLite Micro's PrepareSvdf: the bias must be in the units of state * time weights.
    if (bias != kNoTensor) {
      tflite::require_quantized(g, node, bias);
      double expected = static_cast<double>(float_scale(g, state) * float_scale(g, wt));
      if (std::fabs(static_cast<double>(float_scale(g, bias)) - expected) >= 1e-5)
        node_error(node, "bias scale " + std::to_string(tflite::scale_of(g, bias)) +
                             " is not state scale * time weights scale (" + std::to_string(expected) + ")");
    }
  } else {
    node_error(node, "input '" + g.tensor(x).name + "' is " + t.str() + "; only float32 and int8 are supported");
  }
  std::string act = node.attr_string("fused_activation", "NONE");
  if (t == DataType::Float32() && act != "NONE" && act != "RELU" && act != "RELU6" && act != "RELU_N1_TO_1" && act != "TANH")
    node_error(node, "fused activation " + act + " is not supported");
  tflite::set_declared_output(g, node, 0, t, {s.batches, s.units});
}

// The fused activation of a float SVDF (TFLite's ActivationValFloat).
Expr float_activation(const Node& node, Expr v) {
  if (node.attr_string("fused_activation", "NONE") == "TANH") return ir::call("tanhf", {v}, DataType::Float32());
  return tflite::apply_float_activation(node, v);
}

// for each (b, f): memory[b, f, 0..M-2] = memory[b, f, 1..M-1]. TFLite shifts the whole
// state by one element, which also moves each next filter's first value into this
// filter's last slot; that slot is overwritten by the new feature anyway.
ir::Stmt shift_memories(const SvdfGeometry& s, const ir::Buffer& state) {
  return ir::loop_nest({s.batches, s.filters}, {"b", "f"}, [&](const std::vector<Expr>& bf) {
    ir::Var j = ir::make_var("j");
    Expr at = bf[1] * static_cast<int>(s.memory) + ir::var_expr(j);
    return ir::for_loop(j, 0, ir::make_int(s.memory - 1), ir::store(state, {bf[0], at}, ir::load(state, {bf[0], at + 1})));
  });
}

LoweredOp lower_svdf(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  SvdfGeometry s = svdf_geometry(g, node);
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(kInput, "input"), wf = kb.input(kWeightsFeature, "weights_feature");
  ir::Buffer wt = kb.input(kWeightsTime, "weights_time");
  ir::Buffer bias = node.input(kBias) != kNoTensor ? kb.input(kBias, "bias") : nullptr;
  ir::Buffer state = kb.input(kState, "state"), y = kb.output(0, "output");
  bool quantized = x->dtype == DataType::Int(8);
  DataType acc_type = quantized ? DataType::Int(32) : DataType::Float32();
  auto widen = [&](Expr v) { return quantized ? ir::cast(DataType::Int(32), std::move(v)) : v; };

  int32_t input_zp = quantized ? tflite::zero_point_of(g, node.inputs[kInput]) : 0;
  int32_t state_zp = quantized ? tflite::zero_point_of(g, node.inputs[kState]) : 0;
  SvdfScaling scaling = quantized ? svdf_scaling(g, node) : SvdfScaling{};
  int32_t state_min = quantized ? -(1 << (state->dtype.bits - 1)) : 0, state_max = quantized ? -state_min - 1 : 0;

  // 2. The new feature of each filter, into the last slot of its memory.
  ir::Stmt features = ir::loop_nest({s.batches, s.filters}, {"b", "f"}, [&](const std::vector<Expr>& bf) {
    auto sum = [&](const Accumulator& acc) {
      ir::Var c = ir::make_var("c");
      Expr in = ir::load(x, {bf[0], ir::var_expr(c)});
      Expr term = widen(ir::load(wf, {bf[1], ir::var_expr(c)})) * (quantized ? widen(in) - input_zp : in);
      return ir::for_loop(c, 0, ir::make_int(s.input_size), acc.set(acc.value() + term));
    };
    auto write = [&](const Expr& dot) {
      Expr value = dot;
      if (quantized) {
        Expr scaled = ir::mul_by_quantized_multiplier(dot, scaling.feature_to_state.multiplier,
                                                      scaling.feature_to_state.shift) + state_zp;
        value = tflite::clamp(scaled, {state_min, state_max});
      }
      return ir::store(state, {bf[0], bf[1] * static_cast<int>(s.memory) + static_cast<int>(s.memory - 1)}, value);
    };
    return accumulate(ir::make_zero(acc_type), sum, write);
  });

  // 3. Each unit: bias + the memories of its filters weighted in time.
  QuantizedRange out_range{-128, 127};
  int32_t output_zp = quantized ? tflite::zero_point_of(g, node.outputs[0]) : 0;
  ir::Stmt outputs = ir::loop_nest({s.batches, s.units}, {"b", "u"}, [&](const std::vector<Expr>& bu) {
    Expr init = bias ? ir::load(bias, {bu[1]}) : ir::make_zero(acc_type);
    auto sum_filters = [&](const Accumulator& acc) {
      ir::Var r = ir::make_var("r");
      Expr f = bu[1] * static_cast<int>(s.rank) + ir::var_expr(r);
      ir::Stmt dot = with_accumulator("dot", ir::make_zero(acc_type), [&](const Accumulator& d) {
        ir::Var j = ir::make_var("j");
        Expr remembered = ir::load(state, {bu[0], f * static_cast<int>(s.memory) + ir::var_expr(j)});
        Expr term = widen(ir::load(wt, {f, ir::var_expr(j)})) * (quantized ? widen(remembered) - state_zp : remembered);
        return ir::seq({ir::for_loop(j, 0, ir::make_int(s.memory), d.set(d.value() + term)), acc.set(acc.value() + d.value())});
      });
      return ir::for_loop(r, 0, ir::make_int(s.rank), dot);
    };
    auto write = [&](const Expr& total) {
      if (!quantized) return ir::store(y, bu, float_activation(node, total));
      Expr scaled = ir::mul_by_quantized_multiplier(total, scaling.time_to_output.multiplier,
                                                    scaling.time_to_output.shift) + output_zp;
      return ir::store(y, bu, tflite::clamp(scaled, out_range));
    };
    return accumulate(init, sum_filters, write);
  });

  return kb.finish(ir::seq({shift_memories(s, state), features, outputs}));
}

AOTC_REGISTER_OP("tfl.SVDF", kernel_op(infer_svdf, lower_svdf));

}  // namespace
}  // namespace aotc
