// RNN, GRU and LSTM (ONNX): a one-layer recurrent network run over a whole sequence, for
// inference with static shapes.
//
//   RNN   H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)                              (f = Tanh)
//   GRU   z = f(X_t Wz^T + H_{t-1} Rz^T + Wbz + Rbz), r likewise with Wr, Rr,
//         h = g(X_t Wh^T + (r . H_{t-1}) Rh^T + Rbh + Wbh)         linear_before_reset = 0
//         h = g(X_t Wh^T + r . (H_{t-1} Rh^T + Rbh) + Wbh)         linear_before_reset = 1
//         H_t = (1 - z) . h + z . H_{t-1}                                   (f = Sigmoid, g = Tanh)
//   LSTM  i = f(X_t Wi^T + H_{t-1} Ri^T + Pi . C_{t-1} + Wbi + Rbi), f likewise,
//         c = g(X_t Wc^T + H_{t-1} Rc^T + Wbc + Rbc),  C_t = f . C_{t-1} + i . c,
//         o = f(X_t Wo^T + H_{t-1} Ro^T + Po . C_t + Wbo + Rbo),  H_t = o . h(C_t)
//                                                                  (f = Sigmoid, g = h = Tanh)
// W and R stack the gates' matrices in ONNX's orders (GRU z r h, LSTM i o f c), B is
// [Wb, Rb] per direction, P the LSTM peepholes (i o f). Every operand may be a run-time
// tensor: the kernel reads them where they are.
//
// Supported: float32 and float64; direction forward, reverse and bidirectional (each
// direction with its own weights and activations); layout 0 ([seq, batch, ...]) and 1
// ([batch, seq, ...]); initial states; the optional outputs Y, Y_h, Y_c in any
// combination; the `activations` attribute (Relu, Tanh, Sigmoid, Affine, LeakyRelu,
// ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus, with
// activation_alpha / activation_beta consumed in order by the functions that take them,
// as ONNX Runtime reads them; a bidirectional node may give one direction's list for
// both); `clip`, applied to the input of every gate activation.
// sequence_lens must equal the sequence length for every batch entry: a constant that
// does not is a compile-time error, a run-time tensor is checked before anything is
// computed (AOTC_ERR_INVALID_ARGUMENT). LSTM's input_forget=1 is rejected.
//
// The kernel runs each direction and batch entry separately: the state is a vector of
// hidden_size values, each time step first computes every gate's pre-activation (a
// matrix-vector product with W and one with R, in a gates buffer), then updates the
// state element by element. Y is written at every step, Y_h and Y_c at the end.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "aot/graph/op_registry.h"
#include "lowering/compute/axis_split.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/elementwise.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

enum class CellKind { kRnn, kGru, kLstm };

// Operand and output positions (ONNX's).
enum : size_t { kX = 0, kW = 1, kR = 2, kB = 3, kSequenceLens = 4, kInitialH = 5, kInitialC = 6, kP = 7 };
enum : size_t { kY = 0, kYh = 1, kYc = 2 };

struct Activation {
  std::string name;  // lower case, as matched
  double alpha = 0, beta = 0;
};

// The recurrence of one node, validated.
struct Recurrence {
  CellKind kind;
  int64_t gates;  // blocks of hidden_size rows in W and R: RNN 1, GRU 3, LSTM 4
  DataType dtype;
  int64_t seq_length, batch, input_size, hidden, directions;
  bool batch_first;                                   // layout = 1
  std::vector<bool> reverse;                          // per direction
  std::vector<std::vector<Activation>> activations;   // per direction: f (, g (, h))
  std::optional<double> clip;
  bool linear_before_reset = false;
};

CellKind kind_of(const Node& node) {
  if (node.op == "RNN") return CellKind::kRnn;
  if (node.op == "GRU") return CellKind::kGru;
  return CellKind::kLstm;
}

std::string lower_case(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Whether a function takes alpha / beta, and their defaults (those of the ONNX operator
// of the same name; Affine and ScaledTanh have none and need values).
struct ActivationInfo {
  const char* name;
  bool takes_alpha, takes_beta;
  std::optional<double> default_alpha, default_beta;
};

const std::vector<ActivationInfo>& known_activations() {
  static const std::vector<ActivationInfo> kKnown = {
      {"relu", false, false, {}, {}},          {"tanh", false, false, {}, {}},
      {"sigmoid", false, false, {}, {}},       {"softsign", false, false, {}, {}},
      {"softplus", false, false, {}, {}},      {"affine", true, true, {}, {}},
      {"leakyrelu", true, false, 0.01, {}},    {"thresholdedrelu", true, false, 1.0, {}},
      {"scaledtanh", true, true, {}, {}},      {"hardsigmoid", true, true, 0.2, 0.5},
      {"elu", true, false, 1.0, {}},
  };
  return kKnown;
}

// The activation functions of every direction, with their alpha and beta.
std::vector<std::vector<Activation>> parse_activations(const Node& node, const std::vector<std::string>& defaults,
                                                       int64_t directions) {
  std::vector<std::string> names = node.attr_strings("activations", {});
  size_t per_direction = defaults.size();
  // One list (with its alphas and betas) may serve both directions.
  bool shared = names.size() == per_direction && directions == 2;
  if (names.empty()) {
    for (int64_t d = 0; d < directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (!shared && names.size() != per_direction * static_cast<size_t>(directions)) {
    node_error(node, "activations lists " + std::to_string(names.size()) + " functions; " + node.op + " takes " +
                         std::to_string(per_direction) + " per direction (" +
                         std::to_string(per_direction * static_cast<size_t>(directions)) + " here)");
  }
  std::vector<double> alphas = node.attr_floats("activation_alpha", {});
  std::vector<double> betas = node.attr_floats("activation_beta", {});
  size_t next_alpha = 0, next_beta = 0;
  // The next value of `values` (activation_alpha or _beta), else the function's default.
  auto parameter = [&](const std::vector<double>& values, size_t* next, const std::optional<double>& fallback,
                       const std::string& function, const char* attribute) {
    if (*next < values.size()) return values[(*next)++];
    if (!fallback) node_error(node, "activation '" + function + "' needs a value in " + attribute);
    return *fallback;
  };
  std::vector<std::vector<Activation>> result(static_cast<size_t>(directions));
  for (size_t i = 0; i < names.size(); ++i) {
    std::string name = lower_case(names[i]);
    auto info = std::find_if(known_activations().begin(), known_activations().end(),
                             [&](const ActivationInfo& a) { return name == a.name; });
    if (info == known_activations().end())
      node_error(node, "activation function '" + names[i] +
                           "' is not supported (Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                           "HardSigmoid, Elu, Softsign, Softplus)");
    Activation a{name};
    if (info->takes_alpha) a.alpha = parameter(alphas, &next_alpha, info->default_alpha, names[i], "activation_alpha");
    if (info->takes_beta) a.beta = parameter(betas, &next_beta, info->default_beta, names[i], "activation_beta");
    result[i / per_direction].push_back(a);
  }
  if (shared) result[1] = result[0];
  return result;
}

// Input `index`, if present, must have `shape` and the recurrence's type.
void check_operand(const Graph& g, const Node& node, size_t index, const char* what, DataType dtype,
                   const std::vector<int64_t>& shape) {
  if (!has_input(node, index)) return;
  const Tensor& t = require_input(g, node, index);
  if (t.dtype != dtype) node_error(node, std::string(what) + " '" + t.name + "' is " + t.dtype.str() + ", X is " + dtype.str());
  if (t.shape != shape)
    node_error(node, std::string(what) + " '" + t.name + "' has shape " + shape_str(t.shape) + "; expected " + shape_str(shape));
}

Recurrence describe(const Graph& g, const Node& node) {
  Recurrence rec;
  rec.kind = kind_of(node);
  rec.gates = rec.kind == CellKind::kRnn ? 1 : rec.kind == CellKind::kGru ? 3 : 4;
  const Tensor& x = require_input(g, node, kX);
  const Tensor& w = require_input(g, node, kW);
  const Tensor& r = require_input(g, node, kR);
  rec.dtype = x.dtype;
  if (rec.dtype != DataType::Float32() && rec.dtype != DataType::Float64())
    node_error(node, "X '" + x.name + "' is " + x.dtype.str() + "; only float32 and float64 are supported");
  if (x.shape.size() != 3) node_error(node, "X '" + x.name + "' has shape " + shape_str(x.shape) + "; expected rank 3");
  int64_t layout = node.attr_int("layout", 0);
  if (layout != 0 && layout != 1) node_error(node, "layout must be 0 or 1, not " + std::to_string(layout));
  rec.batch_first = layout == 1;
  rec.seq_length = x.shape[rec.batch_first ? 1 : 0];
  rec.batch = x.shape[rec.batch_first ? 0 : 1];
  rec.input_size = x.shape[2];

  std::string direction = node.attr_string("direction", "forward");
  if (direction == "forward" || direction == "reverse") {
    rec.directions = 1;
    rec.reverse = {direction == "reverse"};
  } else if (direction == "bidirectional") {
    rec.directions = 2;
    rec.reverse = {false, true};
  } else {
    node_error(node, "direction must be forward, reverse or bidirectional, not '" + direction + "'");
  }

  if (r.shape.size() != 3) node_error(node, "R '" + r.name + "' has shape " + shape_str(r.shape) + "; expected rank 3");
  rec.hidden = node.attr_int("hidden_size", r.shape[2]);
  if (rec.hidden <= 0) node_error(node, "hidden_size must be positive, not " + std::to_string(rec.hidden));
  check_tensor_sized(node, "hidden_size", rec.hidden);
  int64_t rows = rec.gates * rec.hidden, dirs = rec.directions;
  if (w.shape != std::vector<int64_t>{dirs, rows, rec.input_size})
    node_error(node, "W '" + w.name + "' has shape " + shape_str(w.shape) + "; expected " +
                         shape_str({dirs, rows, rec.input_size}) + " (directions, " + std::to_string(rec.gates) +
                         " x hidden_size, input_size)");
  check_operand(g, node, kW, "W", rec.dtype, {dirs, rows, rec.input_size});
  check_operand(g, node, kR, "R", rec.dtype, {dirs, rows, rec.hidden});
  check_operand(g, node, kB, "B", rec.dtype, {dirs, 2 * rows});
  std::vector<int64_t> state_shape =
      rec.batch_first ? std::vector<int64_t>{rec.batch, dirs, rec.hidden} : std::vector<int64_t>{dirs, rec.batch, rec.hidden};
  check_operand(g, node, kInitialH, "initial_h", rec.dtype, state_shape);
  if (rec.kind == CellKind::kLstm) {
    check_operand(g, node, kInitialC, "initial_c", rec.dtype, state_shape);
    check_operand(g, node, kP, "P", rec.dtype, {dirs, 3 * rec.hidden});
    if (node.attr_int("input_forget", 0) != 0) node_error(node, "input_forget=1 (coupled input and forget gates) is not supported");
  } else if (node.inputs.size() > kInitialC) {
    node_error(node, node.op + " takes at most 6 inputs, got " + std::to_string(node.inputs.size()));
  }

  if (has_input(node, kSequenceLens)) {
    const Tensor& lens = require_input(g, node, kSequenceLens);
    if (lens.dtype != DataType::Int(32) || lens.shape != std::vector<int64_t>{rec.batch})
      node_error(node, "sequence_lens '" + lens.name + "' must be int32 of shape " + shape_str({rec.batch}) + ", got " +
                           lens.dtype.str() + " " + shape_str(lens.shape));
    if (lens.is_constant()) {
      for (int64_t n : lens.ints())
        if (n != rec.seq_length)
          node_error(node, "sequence_lens holds " + std::to_string(n) + "; only sequences of the full length " +
                               std::to_string(rec.seq_length) + " are supported (static shapes)");
    }
  }

  std::vector<std::string> defaults = rec.kind == CellKind::kRnn   ? std::vector<std::string>{"Tanh"}
                                      : rec.kind == CellKind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                   : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  rec.activations = parse_activations(node, defaults, dirs);
  if (node.has_attr("clip")) {
    rec.clip = node.attr_float("clip", 0.0);
    if (!(*rec.clip > 0)) node_error(node, "clip must be positive, not " + std::to_string(*rec.clip));
  }
  rec.linear_before_reset = rec.kind == CellKind::kGru && node.attr_int("linear_before_reset", 0) != 0;
  return rec;
}

void infer_recurrent(Graph& g, Node& node) {
  Recurrence rec = describe(g, node);
  size_t outputs = rec.kind == CellKind::kLstm ? 3 : 2;
  if (node.outputs.size() > outputs)
    node_error(node, node.op + " has at most " + std::to_string(outputs) + " outputs, got " + std::to_string(node.outputs.size()));
  int64_t seq = rec.seq_length, dirs = rec.directions, batch = rec.batch, hidden = rec.hidden;
  std::vector<int64_t> y_shape = rec.batch_first ? std::vector<int64_t>{batch, seq, dirs, hidden}
                                                 : std::vector<int64_t>{seq, dirs, batch, hidden};
  std::vector<int64_t> state_shape =
      rec.batch_first ? std::vector<int64_t>{batch, dirs, hidden} : std::vector<int64_t>{dirs, batch, hidden};
  if (node.outputs.size() > kY && node.outputs[kY] != kNoTensor) set_output(g, node, kY, rec.dtype, y_shape);
  if (node.outputs.size() > kYh && node.outputs[kYh] != kNoTensor) set_output(g, node, kYh, rec.dtype, state_shape);
  if (node.outputs.size() > kYc && node.outputs[kYc] != kNoTensor) set_output(g, node, kYc, rec.dtype, state_shape);
}

// The kernel of one node: the buffers and how each step reads and writes them.
class RecurrentKernel {
 public:
  RecurrentKernel(const Graph& g, const Node& node, KernelBuilder& kb)
      : graph_(g), node_(node), rec_(describe(g, node)) {
    x_ = kb.input(kX, "X");
    w_ = kb.input(kW, "W");
    r_ = kb.input(kR, "R");
    if (has_input(node, kB)) b_ = kb.input(kB, "B");
    if (has_input(node, kSequenceLens)) lens_ = kb.input(kSequenceLens, "sequence_lens");
    if (has_input(node, kInitialH)) initial_h_ = kb.input(kInitialH, "initial_h");
    if (rec_.kind == CellKind::kLstm && has_input(node, kInitialC)) initial_c_ = kb.input(kInitialC, "initial_c");
    if (rec_.kind == CellKind::kLstm && has_input(node, kP)) p_ = kb.input(kP, "P");
    if (output_is_used(g, node, kY)) y_ = kb.output(kY, "Y");
    if (output_is_used(g, node, kYh)) y_h_ = kb.output(kYh, "Y_h");
    if (rec_.kind == CellKind::kLstm && output_is_used(g, node, kYc)) y_c_ = kb.output(kYc, "Y_c");
    DataType t = rec_.dtype;
    h_ = ir::make_buffer("hidden_state", t, {rec_.hidden});
    c_ = ir::make_buffer("cell_state", t, {rec_.hidden});
    gates_ = ir::make_buffer("gates", t, {rec_.gates * rec_.hidden});
  }

  ir::Stmt body() const {
    std::vector<ir::Stmt> steps;
    if (lens_ && !graph_.tensor(node_.inputs[kSequenceLens]).is_constant()) {
      // A length other than the full sequence would need masking that aotc does not do.
      steps.push_back(ir::loop_nest({rec_.batch}, {"b"}, [&](const std::vector<Expr>& b) {
        return check_range(ir::load(lens_, {b[0]}), rec_.seq_length, rec_.seq_length);
      }));
    }
    for (int64_t d = 0; d < rec_.directions; ++d) steps.push_back(direction(d));
    ir::Stmt all = ir::allocate(gates_, ir::allocate(h_, ir::seq(steps)));
    return rec_.kind == CellKind::kLstm ? ir::allocate(c_, all) : all;
  }

 private:
  // Every batch entry of direction d: initial state, the time steps, the final state.
  ir::Stmt direction(int64_t d) const {
    ir::Var b_var = ir::make_var("b");
    Expr b = ir::var_expr(b_var);
    ir::Var s_var = ir::make_var("step");
    Expr t = rec_.reverse[static_cast<size_t>(d)] ? ir::make_int(rec_.seq_length - 1) - ir::var_expr(s_var)
                                                  : ir::var_expr(s_var);
    std::vector<ir::Stmt> per_batch;
    per_batch.push_back(over_hidden("j", [&](const Expr& j) {
      std::vector<ir::Stmt> init;
      init.push_back(ir::store(h_, {j}, initial_h_ ? ir::load(initial_h_, state_index(d, b, j)) : zero()));
      if (rec_.kind == CellKind::kLstm)
        init.push_back(ir::store(c_, {j}, initial_c_ ? ir::load(initial_c_, state_index(d, b, j)) : zero()));
      return ir::seq(init);
    }));
    per_batch.push_back(ir::for_loop(s_var, 0, ir::make_int(rec_.seq_length), time_step(d, b, t)));
    per_batch.push_back(over_hidden("j", [&](const Expr& j) {
      std::vector<ir::Stmt> out;
      if (y_h_) out.push_back(ir::store(y_h_, state_index(d, b, j), ir::load(h_, {j})));
      if (y_c_) out.push_back(ir::store(y_c_, state_index(d, b, j), ir::load(c_, {j})));
      return ir::seq(out);
    }));
    return ir::for_loop(b_var, 0, ir::make_int(rec_.batch), ir::seq(per_batch));
  }

  ir::Stmt time_step(int64_t d, const Expr& b, const Expr& t) const {
    switch (rec_.kind) {
      case CellKind::kRnn: return rnn_step(d, b, t);
      case CellKind::kGru: return gru_step(d, b, t);
      case CellKind::kLstm: return lstm_step(d, b, t);
    }
    return ir::Stmt();
  }

  // H_t = f(pre): all of H_{t-1} is read before any of H_t is written.
  ir::Stmt rnn_step(int64_t d, const Expr& b, const Expr& t) const {
    const Activation& f = activation(d, 0);
    ir::Stmt gates = over_hidden("j", [&](const Expr& j) {
      return gate_sums(d, b, t, j, nullptr, [&](const Expr& x_sum, const Expr& h_sum) {
        return ir::store(gates_, {j}, apply(f, clipped(x_sum + h_sum)));
      });
    });
    ir::Stmt update = over_hidden("j", [&](const Expr& j) { return write_hidden(d, b, t, j, ir::load(gates_, {j})); });
    return ir::seq({gates, update});
  }

  // z and r (activated) into gates[0, 2H), then h into gates[2H, 3H), then the state.
  ir::Stmt gru_step(int64_t d, const Expr& b, const Expr& t) const {
    const Activation& f = activation(d, 0);
    const Activation& g = activation(d, 1);
    int64_t hidden = rec_.hidden;
    ir::Stmt z_and_r = ir::loop_nest({2, hidden}, {"gate", "j"}, [&](const std::vector<Expr>& i) {
      Expr row = i[0] * ir::make_int(hidden) + i[1];
      return gate_sums(d, b, t, row, nullptr, [&](const Expr& x_sum, const Expr& h_sum) {
        return ir::store(gates_, {row}, apply(f, clipped(x_sum + h_sum)));
      });
    });
    auto reset = [&](const Expr& k) { return ir::load(gates_, {ir::make_int(hidden) + k}); };
    ir::Stmt candidate = over_hidden("j", [&](const Expr& j) {
      Expr row = ir::make_int(2 * hidden) + j;
      if (rec_.linear_before_reset) {
        return gate_sums(d, b, t, row, nullptr, [&](const Expr& x_sum, const Expr& h_sum) {
          return ir::store(gates_, {row}, apply(g, clipped(x_sum + reset(j) * h_sum)));
        });
      }
      return gate_sums(d, b, t, row, reset, [&](const Expr& x_sum, const Expr& h_sum) {
        return ir::store(gates_, {row}, apply(g, clipped(x_sum + h_sum)));
      });
    });
    ir::Stmt update = over_hidden("j", [&](const Expr& j) {
      Expr z = ir::load(gates_, {j}), h = ir::load(gates_, {ir::make_int(2 * hidden) + j});
      return write_hidden(d, b, t, j, (constant(1.0, rec_.dtype) - z) * h + z * ir::load(h_, {j}));
    });
    return ir::seq({z_and_r, candidate, update});
  }

  // The four pre-activations (without peepholes) into gates, then cell and hidden state.
  ir::Stmt lstm_step(int64_t d, const Expr& b, const Expr& t) const {
    const Activation& f = activation(d, 0);
    const Activation& g = activation(d, 1);
    const Activation& h = activation(d, 2);
    int64_t hidden = rec_.hidden;
    ir::Stmt pre = ir::loop_nest({4 * hidden}, {"row"}, [&](const std::vector<Expr>& row) {
      return gate_sums(d, b, t, row[0], nullptr, [&](const Expr& x_sum, const Expr& h_sum) {
        return ir::store(gates_, {row[0]}, x_sum + h_sum);
      });
    });
    auto gate = [&](int64_t index, const Expr& j) { return ir::load(gates_, {ir::make_int(index * hidden) + j}); };
    // Peephole k (0 i, 1 o, 2 f) times the cell state.
    auto peephole = [&](int64_t k, const Expr& j, const Expr& cell) {
      return p_ ? ir::load(p_, {ir::make_int(d), ir::make_int(k * hidden) + j}) * cell : zero();
    };
    ir::Stmt update = over_hidden("j", [&](const Expr& j) {
      Expr previous = ir::load(c_, {j});
      Expr input_gate = apply(f, clipped(gate(0, j) + peephole(0, j, previous)));
      Expr forget_gate = apply(f, clipped(gate(2, j) + peephole(2, j, previous)));
      Expr candidate = apply(g, clipped(gate(3, j)));
      ir::Stmt cell = ir::store(c_, {j}, forget_gate * previous + input_gate * candidate);
      Expr current = ir::load(c_, {j});
      Expr output_gate = apply(f, clipped(gate(1, j) + peephole(1, j, current)));
      return ir::seq({cell, write_hidden(d, b, t, j, output_gate * apply(h, current))});
    });
    return ir::seq({pre, update});
  }

  // The two sums of row `row` of W and R (direction d) for batch entry b at time t, each
  // starting from its bias:
  //   x_sum = Wb[row] + sum_k X[t, b, k] W[d, row, k]
  //   h_sum = Rb[row] + sum_m factor(m) H[m] R[d, row, m]   (factor: GRU's reset gate)
  // then `use(x_sum, h_sum)`.
  ir::Stmt gate_sums(int64_t d, const Expr& b, const Expr& t, const Expr& full_row,
                     const std::function<Expr(const Expr&)>& factor,
                     const std::function<ir::Stmt(const Expr&, const Expr&)>& use) const {
    Expr dir = ir::make_int(d);
    int64_t rows = rec_.gates * rec_.hidden;
    Expr w_bias = b_ ? ir::load(b_, {dir, full_row}) : zero();
    Expr r_bias = b_ ? ir::load(b_, {dir, ir::make_int(rows) + full_row}) : zero();
    return with_accumulator("x_sum", w_bias, [&](const Accumulator& x_sum) {
      return with_accumulator("h_sum", r_bias, [&](const Accumulator& h_sum) {
        ir::Var k_var = ir::make_var("k");
        Expr k = ir::var_expr(k_var);
        Expr x_k = ir::load(x_, rec_.batch_first ? std::vector<Expr>{b, t, k} : std::vector<Expr>{t, b, k});
        ir::Stmt input_product = ir::for_loop(
            k_var, 0, ir::make_int(rec_.input_size), x_sum.set(x_sum.value() + x_k * ir::load(w_, {dir, full_row, k})));
        ir::Var m_var = ir::make_var("m");
        Expr m = ir::var_expr(m_var);
        Expr h_m = factor ? factor(m) * ir::load(h_, {m}) : ir::load(h_, {m});
        ir::Stmt recurrent_product = ir::for_loop(
            m_var, 0, ir::make_int(rec_.hidden), h_sum.set(h_sum.value() + h_m * ir::load(r_, {dir, full_row, m})));
        return ir::seq({input_product, recurrent_product, use(x_sum.value(), h_sum.value())});
      });
    });
  }

  // H[j] = value, and Y at (t, d, b, j).
  ir::Stmt write_hidden(int64_t d, const Expr& b, const Expr& t, const Expr& j, const Expr& value) const {
    ir::Stmt state = ir::store(h_, {j}, value);
    if (!y_) return state;
    Expr dir = ir::make_int(d);
    std::vector<Expr> index = rec_.batch_first ? std::vector<Expr>{b, t, dir, j} : std::vector<Expr>{t, dir, b, j};
    return ir::seq({state, ir::store(y_, index, ir::load(h_, {j}))});
  }

  // Index of (direction d, batch entry b, unit j) in initial_h / initial_c / Y_h / Y_c.
  std::vector<Expr> state_index(int64_t d, const Expr& b, const Expr& j) const {
    Expr dir = ir::make_int(d);
    return rec_.batch_first ? std::vector<Expr>{b, dir, j} : std::vector<Expr>{dir, b, j};
  }

  ir::Stmt over_hidden(const std::string& name, const std::function<ir::Stmt(const Expr&)>& body) const {
    return ir::loop_nest({rec_.hidden}, {name}, [&](const std::vector<Expr>& i) { return body(i[0]); });
  }

  const Activation& activation(int64_t d, size_t index) const {
    return rec_.activations[static_cast<size_t>(d)][index];
  }

  Expr zero() const { return ir::make_zero(rec_.dtype); }

  Expr clipped(const Expr& v) const {
    if (!rec_.clip) return v;
    Expr bound = constant(*rec_.clip, rec_.dtype);
    return ir::min(ir::max(v, -bound), bound);
  }

  // The activation of x. The functions that are ONNX operators use their scalar forms
  // (activations.cc), so that both compute the same.
  Expr apply(const Activation& a, const Expr& x) const {
    DataType t = rec_.dtype;
    Expr alpha = constant(a.alpha, t), beta = constant(a.beta, t);
    if (a.name == "affine") return alpha * x + beta;
    if (a.name == "scaledtanh") return alpha * math("tanh", {beta * x});
    static const std::vector<std::pair<std::string, std::string>> kOperators = {
        {"relu", "Relu"},   {"tanh", "Tanh"},     {"sigmoid", "Sigmoid"}, {"softsign", "Softsign"}, {"softplus", "Softplus"},
        {"elu", "Elu"},     {"leakyrelu", "LeakyRelu"}, {"thresholdedrelu", "ThresholdedRelu"}, {"hardsigmoid", "HardSigmoid"}};
    auto it = std::find_if(kOperators.begin(), kOperators.end(), [&](const auto& p) { return p.first == a.name; });
    Node op;
    op.op = it->second;
    op.name = node_.name + "." + a.name;
    op.attrs["alpha"] = a.alpha;
    op.attrs["beta"] = a.beta;
    return find_op(op.op)->scalar(graph_, op, {x});
  }

  const Graph& graph_;
  const Node& node_;
  Recurrence rec_;
  ir::Buffer x_, w_, r_, b_, lens_, initial_h_, initial_c_, p_, y_, y_h_, y_c_;
  ir::Buffer h_, c_, gates_;  // temporaries
};

LoweredOp lower_recurrent(const Graph& g, const Node& node, KernelBuilder& kb) {
  RecurrentKernel kernel(g, node, kb);
  return kb.finish(kernel.body());
}

AOTC_REGISTER_OPS(kernel_op(infer_recurrent, lower_recurrent), "RNN", "GRU", "LSTM");

}  // namespace
}  // namespace aotc
