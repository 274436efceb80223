// TFLite UNIDIRECTIONAL_SEQUENCE_LSTM as TensorFlow Lite Micro's reference kernel computes
// it (lstm_eval.h: LstmStep, CalculateLstmGate, UpdateLstmCell, UpdateLstmHidden): the
// geometry and loops both lowerings share, the float32 lowering, and the operator's
// registration (integer models go to tflite_lstm_integer.cc).
//
// The layer runs a sequence of T steps; its hidden state h (output_state) and cell state c
// are variable tensors [B, n_cell] that the kernel updates in place and that live on from
// one run to the next (graph.h; the executor keeps them in static arrays). Each step of
// each batch:
//   gate_g = act_g(FC(x_t, W_g, bias_g) + FC(h, R_g))   for g = forget, input, cell, output
//            (act: sigmoid, except the cell gate's, the fused activation: tanh or sigmoid)
//   c      = clip(forget * c + input * cell_gate)        (clip: cell_clip, when > 0)
//   h      = tanh(c) * output
//   y_t    = h
// Every gate reads the hidden state of the previous step, so all four are computed into a
// scratch array before h and c change. Batches are independent, so running each batch's
// steps in turn (TFLite Micro's order for batch-major inputs) also gives what it computes
// for time-major ones, where it runs each step for all batches.
//
// In float, each FC is TFLite's FULLY_CONNECTED: a dot product summed in order from 0, then
// the bias added; so are the sums here.
//
// TFLite Micro's kernel has no peephole, projection, layer normalization or CIFG (coupled
// input and forget gates) path: models with those tensors are rejected.
#include "aot/graph/op_registry.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/ops/tflite/tflite_infer.h"
#include "lowering/ops/tflite/tflite_lstm.h"

namespace aotc::tflite_lstm {

LstmGeometry lstm_geometry(const Graph& g, const Node& node) {
  if (node.inputs.size() != kInputCount)
    node_error(node, "has " + std::to_string(node.inputs.size()) + " inputs; UNIDIRECTIONAL_SEQUENCE_LSTM has 24");
  for (size_t i = kPeepholeWeights; i < kPeepholeWeights + 3; ++i)
    if (node.input(i) != kNoTensor) node_error(node, "peephole connections are not supported");
  if (node.input(kProjectionWeights) != kNoTensor || node.input(kProjectionBias) != kNoTensor)
    node_error(node, "a projection layer is not supported");
  for (size_t i = kLayerNorm; i < kLayerNorm + 4; ++i)
    if (node.input(i) != kNoTensor) node_error(node, "layer normalization is not supported");
  if (node.input(kInputWeights) == kNoTensor || node.input(kRecurrentWeights) == kNoTensor)
    node_error(node, "CIFG (no input gate) is not supported");

  const Tensor& x = require_input(g, node, kInput);
  if (x.shape.size() != 3) node_error(node, "input must be 3-D, got " + shape_str(x.shape));
  LstmGeometry s;
  s.time_major = node.attr_int("time_major", 0) != 0;
  s.batches = s.time_major ? x.shape[1] : x.shape[0];
  s.steps = s.time_major ? x.shape[0] : x.shape[1];
  s.n_input = x.shape[2];
  const Tensor& w = require_input(g, node, kInputWeights + kForgetGate);
  if (w.shape.size() != 2) node_error(node, "input weights must be 2-D [n_cell, n_input]");
  s.n_cell = w.shape[0];

  auto expect_shape = [&](size_t index, const std::vector<int64_t>& shape, const std::string& what) {
    const Tensor& t = require_input(g, node, index);
    if (t.shape != shape) node_error(node, what + " '" + t.name + "' is " + shape_str(t.shape) + ", expected " + shape_str(shape));
  };
  for (int gate = 0; gate < 4; ++gate) {
    std::string name = kGateNames[gate];
    expect_shape(kInputWeights + gate, {s.n_cell, s.n_input}, "input-to-" + name + " weights");
    expect_shape(kRecurrentWeights + gate, {s.n_cell, s.n_cell}, "recurrent-to-" + name + " weights");
    expect_shape(kGateBias + gate, {s.n_cell}, name + " gate bias");
  }
  for (size_t state : {size_t{kHiddenState}, size_t{kCellState}}) {
    expect_shape(state, {s.batches, s.n_cell}, state == kHiddenState ? "output state" : "cell state");
    const Tensor& t = g.tensor(node.input(state));
    if (!t.is_variable) node_error(node, "state '" + t.name + "' must be a variable tensor (TFLite's is_variable)");
  }
  return s;
}

LstmBuffers lstm_buffers(KernelBuilder& kb) {
  LstmBuffers p;
  p.x = kb.input(kInput, "input");
  for (int gate = 0; gate < 4; ++gate) {
    std::string name = kGateNames[gate];
    p.w[gate] = kb.input(kInputWeights + gate, "input_to_" + name);
    p.r[gate] = kb.input(kRecurrentWeights + gate, "recurrent_to_" + name);
    p.bias[gate] = kb.input(kGateBias + gate, name + "_bias");
  }
  p.h = kb.input(kHiddenState, "output_state");
  p.c = kb.input(kCellState, "cell_state");
  p.y = kb.output(0, "output");
  return p;
}

ir::Stmt dot_product(const std::string& name, const std::string& index, Expr init, int64_t n,
                     const std::function<Expr(const Expr&)>& term, const std::function<ir::Stmt(const Expr&)>& then) {
  return with_accumulator(name, std::move(init), [&](const Accumulator& acc) {
    ir::Var k = ir::make_var(index);
    return ir::seq({ir::for_loop(k, 0, ir::make_int(n), acc.set(acc.value() + term(ir::var_expr(k)))), then(acc.value())});
  });
}

ir::Stmt lstm_steps(const LstmGeometry& s, DataType gate_type, const GateFn& gate, const UpdateFn& update) {
  ir::Buffer gates = ir::make_buffer("gates", gate_type, {4, s.n_cell});
  return ir::loop_nest({s.batches, s.steps}, {"b", "t"}, [&](const std::vector<Expr>& bt) {
    std::vector<ir::Stmt> steps;
    for (int g = 0; g < 4; ++g) {
      steps.push_back(ir::loop_nest({s.n_cell}, {"cell"}, [&](const std::vector<Expr>& cell) {
        return gate(bt, static_cast<Gate>(g), cell[0], [&](const Expr& value) { return ir::store(gates, {g, cell[0]}, value); });
      }));
    }
    steps.push_back(ir::loop_nest({s.n_cell}, {"cell"}, [&](const std::vector<Expr>& cell) {
      Expr gate_value[4];
      for (int g = 0; g < 4; ++g) gate_value[g] = ir::load(gates, {g, cell[0]});
      return update(bt, cell[0], gate_value);
    }));
    return ir::allocate(gates, ir::seq(steps));
  });
}

namespace {

void check_float_lstm(const Graph& g, const Node& node) {
  for (size_t i = 0; i < kInputCount; ++i) {
    TensorId id = node.input(i);
    if (id == kNoTensor || g.tensor(id).dtype == DataType::Float32()) continue;
    node_error(node, "tensor '" + g.tensor(id).name + "' is " + g.tensor(id).dtype.str() +
                         " in a float32 LSTM (hybrid models, float activations with integer weights, are not "
                         "supported; TFLite Micro has no hybrid LSTM either)");
  }
}

void infer_lstm(Graph& g, Node& node) {
  LstmGeometry s = lstm_geometry(g, node);
  DataType type = g.tensor(node.inputs[kInput]).dtype;
  if (type == DataType::Float32()) {
    check_float_lstm(g, node);
  } else if (type == DataType::Int(8) || type == DataType::Int(16)) {
    check_integer_lstm(g, node);
  } else {
    node_error(node, "input '" + g.tensor(node.inputs[kInput]).name + "' is " + type.str() +
                         "; supported: float32, int8 (8x8->16) and int16 (16x8->16)");
  }
  std::string act = node.attr_string("fused_activation", "NONE");
  if (act != "TANH" && act != "SIGMOID")
    node_error(node, "fused activation " + act + " is not supported (TFLite Micro takes TANH or SIGMOID)");
  if (node.attr_float("proj_clip", 0.0) != 0.0) node_error(node, "proj_clip without a projection layer");
  std::vector<int64_t> shape = s.time_major ? std::vector<int64_t>{s.steps, s.batches, s.n_cell}
                                            : std::vector<int64_t>{s.batches, s.steps, s.n_cell};
  tflite::set_declared_output(g, node, 0, type, shape);
}

LoweredOp lower_float_lstm(const LowerContext& ctx) {
  LstmGeometry s = lstm_geometry(ctx.graph, ctx.node);
  KernelBuilder kb(ctx);
  LstmBuffers p = lstm_buffers(kb);
  bool sigmoid_cell_gate = ctx.node.attr_string("fused_activation", "NONE") == "SIGMOID";
  float cell_clip = static_cast<float>(ctx.node.attr_float("cell_clip", 0.0));
  Expr zero = ir::make_float(0.0);
  const DataType f32 = DataType::Float32();

  // 1. Each gate from x_t and the previous h.
  auto gate = [&](const std::vector<Expr>& bt, Gate g, const Expr& cell, const StoreFn& store) {
    auto input_term = [&](const Expr& i) { return ir::load(p.x, s.at_step(bt, i)) * ir::load(p.w[g], {cell, i}); };
    auto recurrent_term = [&](const Expr& j) { return ir::load(p.h, {bt[0], j}) * ir::load(p.r[g], {cell, j}); };
    return dot_product("input_fc", "i", zero, s.n_input, input_term, [&](const Expr& in) {
      return dot_product("recurrent_fc", "j", zero, s.n_cell, recurrent_term, [&](const Expr& rec) {
        Expr pre = (in + ir::load(p.bias[g], {cell})) + rec;
        return store(g == kCellGate && !sigmoid_cell_gate ? ir::call("tanhf", {pre}, f32) : tflite::float_logistic(pre));
      });
    });
  };
  // 2. The new cell and hidden states, and the step's output.
  auto update = [&](const std::vector<Expr>& bt, const Expr& cell, const Expr* gate_value) {
    std::vector<Expr> state_at = {bt[0], cell};
    Expr updated = gate_value[kForgetGate] * ir::load(p.c, state_at) + gate_value[kInputGate] * gate_value[kCellGate];
    if (cell_clip > 0) updated = ir::max(ir::min(updated, ir::make_float(cell_clip)), ir::make_float(-cell_clip));
    Expr hidden = ir::call("tanhf", {ir::load(p.c, state_at)}, f32) * gate_value[kOutputGate];
    return ir::seq({ir::store(p.c, state_at, updated), ir::store(p.h, state_at, hidden),
                    ir::store(p.y, s.at_step(bt, cell), ir::load(p.h, state_at))});
  };
  return kb.finish(lstm_steps(s, f32, gate, update));
}

LoweredOp lower_lstm(const LowerContext& ctx) {
  if (ctx.graph.tensor(ctx.node.inputs[kInput]).dtype == DataType::Float32()) return lower_float_lstm(ctx);
  return lower_integer_lstm(ctx);
}

AOTC_REGISTER_OP("tfl.UNIDIRECTIONAL_SEQUENCE_LSTM", kernel_op(infer_lstm, lower_lstm));

}  // namespace
}  // namespace aotc::tflite_lstm
