// Tests of RNN, GRU and LSTM (lowering/ops/onnx/recurrent.cc).
//
// Each case builds one node with its run-time operands, runs the kernel in the IR
// interpreter (as lowered and after Simplify, tests/unit/one_node.h) and compares every
// output it asks for with a reference written here from the ONNX operator definitions:
// plain loops over directions, batch entries, time steps and gates, in double precision.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"

namespace aotc::test {
namespace {

// One activation function of the ONNX recurrent operators, by name, with alpha and beta.
struct Fn {
  std::string name;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    if (name == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (name == "Tanh") return std::tanh(x);
    if (name == "Relu") return x > 0 ? x : 0;
    if (name == "HardSigmoid") return std::min(1.0, std::max(0.0, alpha * x + beta));
    if (name == "LeakyRelu") return x >= 0 ? x : alpha * x;
    if (name == "Affine") return alpha * x + beta;
    if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
    if (name == "Softsign") return x / (1 + std::fabs(x));
    if (name == "Elu") return x >= 0 ? x : alpha * (std::exp(x) - 1);
    ADD_FAILURE() << "no reference for " << name;
    return 0;
  }
};

// A recurrent node's operands (float values; absent ones empty) and attributes, set by
// name in each test: Case("GRU").bidirectional().initial_h().clipped(0.5).
struct Case {
  std::string op;  // RNN, GRU, LSTM
  int64_t seq = 3, batch = 2, input = 3, hidden = 4;
  std::string direction = "forward";
  int64_t layout = 0;
  bool with_bias = true, with_initial_h = false, with_initial_c = false, with_peepholes = false;
  std::vector<std::vector<Fn>> activations;  // per direction; empty: the defaults
  std::optional<double> clip;
  bool linear_before_reset = false;
  bool want_y = true, want_y_h = true, want_y_c = false;

  explicit Case(std::string op_name) : op(std::move(op_name)) {}
  Case& bidirectional() { return set(direction, std::string("bidirectional")); }
  Case& reversed() { return set(direction, std::string("reverse")); }
  Case& batch_first() { return set(layout, int64_t{1}); }
  Case& sized(int64_t seq_length, int64_t batch_size) { return set(seq, seq_length).set(batch, batch_size); }
  Case& no_bias() { return set(with_bias, false); }
  Case& initial_h() { return set(with_initial_h, true); }
  Case& initial_c() { return set(with_initial_c, true); }
  Case& peepholes() { return set(with_peepholes, true); }
  Case& acts(std::vector<std::vector<Fn>> per_direction) { return set(activations, std::move(per_direction)); }
  Case& clipped(double threshold) { return set(clip, std::optional<double>(threshold)); }
  Case& linear_reset(bool on) { return set(linear_before_reset, on); }
  Case& outputs(bool y, bool y_h, bool y_c) { return set(want_y, y).set(want_y_h, y_h).set(want_y_c, y_c); }

  int64_t directions() const { return direction == "bidirectional" ? 2 : 1; }
  int64_t gates() const { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }
  Shape x_shape() const { return layout ? Shape{batch, seq, input} : Shape{seq, batch, input}; }
  Shape state_shape() const { return layout ? Shape{batch, directions(), hidden} : Shape{directions(), batch, hidden}; }
  Shape y_shape() const {
    return layout ? Shape{batch, seq, directions(), hidden} : Shape{seq, directions(), batch, hidden};
  }

 private:
  template <typename V>
  Case& set(V& field, V value) {
    field = std::move(value);
    return *this;
  }
};

struct Operands {
  std::vector<float> x, w, r, b, initial_h, initial_c, p;
};

Operands random_operands(const Case& c) {
  int64_t d = c.directions(), rows = c.gates() * c.hidden;
  Operands o;
  o.x = random_floats(static_cast<size_t>(element_count(c.x_shape())), 11, 1.5f);
  o.w = random_floats(static_cast<size_t>(d * rows * c.input), 12, 0.8f);
  o.r = random_floats(static_cast<size_t>(d * rows * c.hidden), 13, 0.8f);
  if (c.with_bias) o.b = random_floats(static_cast<size_t>(d * 2 * rows), 14, 0.5f);
  if (c.with_initial_h) o.initial_h = random_floats(static_cast<size_t>(element_count(c.state_shape())), 15);
  if (c.with_initial_c) o.initial_c = random_floats(static_cast<size_t>(element_count(c.state_shape())), 16);
  if (c.with_peepholes) o.p = random_floats(static_cast<size_t>(d * 3 * c.hidden), 17, 0.5f);
  return o;
}

struct Outputs {
  std::vector<double> y, y_h, y_c;
};

// The ONNX equations, step by step.
Outputs reference(const Case& c, const Operands& o) {
  int64_t D = c.directions(), H = c.hidden, I = c.input, G = c.gates();
  auto x_at = [&](int64_t t, int64_t b, int64_t k) -> double {
    return o.x[static_cast<size_t>(c.layout ? (b * c.seq + t) * I + k : (t * c.batch + b) * I + k)];
  };
  auto state_at = [&](const std::vector<float>& v, int64_t d, int64_t b, int64_t j) -> double {
    if (v.empty()) return 0;
    return v[static_cast<size_t>(c.layout ? (b * D + d) * H + j : (d * c.batch + b) * H + j)];
  };
  auto y_index = [&](int64_t t, int64_t d, int64_t b, int64_t j) {
    return static_cast<size_t>(c.layout ? ((b * c.seq + t) * D + d) * H + j : ((t * D + d) * c.batch + b) * H + j);
  };
  auto state_index = [&](int64_t d, int64_t b, int64_t j) {
    return static_cast<size_t>(c.layout ? (b * D + d) * H + j : (d * c.batch + b) * H + j);
  };
  std::vector<std::string> defaults = c.op == "RNN" ? std::vector<std::string>{"Tanh"}
                                      : c.op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                      : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  Outputs out;
  out.y.assign(static_cast<size_t>(element_count(c.y_shape())), 0);
  out.y_h.assign(static_cast<size_t>(element_count(c.state_shape())), 0);
  out.y_c = out.y_h;
  for (int64_t d = 0; d < D; ++d) {
    std::vector<Fn> fns;
    if (c.activations.empty()) {
      for (const std::string& n : defaults) fns.push_back(Fn{n});
    } else {
      fns = c.activations[static_cast<size_t>(d)];
    }
    auto clip = [&](double v) { return c.clip ? std::min(*c.clip, std::max(-*c.clip, v)) : v; };
    // X_t W_g^T + Wb_g (gate g, unit j) and H W_g^T + Rb_g with a given H.
    auto w_part = [&](int64_t g, int64_t j, int64_t t, int64_t b) {
      double s = c.with_bias ? o.b[static_cast<size_t>(d * 2 * G * H + g * H + j)] : 0.0;
      for (int64_t k = 0; k < I; ++k) s += x_at(t, b, k) * o.w[static_cast<size_t>((d * G * H + g * H + j) * I + k)];
      return s;
    };
    auto r_part = [&](int64_t g, int64_t j, const std::vector<double>& h) {
      double s = c.with_bias ? o.b[static_cast<size_t>(d * 2 * G * H + G * H + g * H + j)] : 0.0;
      for (int64_t k = 0; k < H; ++k) s += h[static_cast<size_t>(k)] * o.r[static_cast<size_t>((d * G * H + g * H + j) * H + k)];
      return s;
    };
    bool reverse = c.direction == "reverse" || d == 1;
    for (int64_t b = 0; b < c.batch; ++b) {
      std::vector<double> h(static_cast<size_t>(H)), cell(static_cast<size_t>(H));
      for (int64_t j = 0; j < H; ++j) {
        h[static_cast<size_t>(j)] = state_at(o.initial_h, d, b, j);
        cell[static_cast<size_t>(j)] = state_at(o.initial_c, d, b, j);
      }
      for (int64_t s = 0; s < c.seq; ++s) {
        int64_t t = reverse ? c.seq - 1 - s : s;
        std::vector<double> next(static_cast<size_t>(H)), next_cell = cell;
        for (int64_t j = 0; j < H; ++j) {
          size_t uj = static_cast<size_t>(j);
          if (c.op == "RNN") {
            next[uj] = fns[0](clip(w_part(0, j, t, b) + r_part(0, j, h)));
          } else if (c.op == "GRU") {
            double z = fns[0](clip(w_part(0, j, t, b) + r_part(0, j, h)));
            double hh;
            if (c.linear_before_reset) {
              double r = fns[0](clip(w_part(1, j, t, b) + r_part(1, j, h)));
              hh = fns[1](clip(w_part(2, j, t, b) + r * r_part(2, j, h)));
            } else {
              std::vector<double> rh(static_cast<size_t>(H));
              for (int64_t k = 0; k < H; ++k)
                rh[static_cast<size_t>(k)] = fns[0](clip(w_part(1, k, t, b) + r_part(1, k, h))) * h[static_cast<size_t>(k)];
              hh = fns[1](clip(w_part(2, j, t, b) + r_part(2, j, rh)));
            }
            next[uj] = (1 - z) * hh + z * h[uj];
          } else {
            auto peephole = [&](int64_t g) { return c.with_peepholes ? o.p[static_cast<size_t>(d * 3 * H + g * H + j)] : 0.0; };
            double i = fns[0](clip(w_part(0, j, t, b) + r_part(0, j, h) + peephole(0) * cell[uj]));
            double f = fns[0](clip(w_part(2, j, t, b) + r_part(2, j, h) + peephole(2) * cell[uj]));
            double g = fns[1](clip(w_part(3, j, t, b) + r_part(3, j, h)));
            next_cell[uj] = f * cell[uj] + i * g;
            double ot = fns[0](clip(w_part(1, j, t, b) + r_part(1, j, h) + peephole(1) * next_cell[uj]));
            next[uj] = ot * fns[2](next_cell[uj]);
          }
        }
        h = next;
        cell = next_cell;
        for (int64_t j = 0; j < H; ++j) out.y[y_index(t, d, b, j)] = h[static_cast<size_t>(j)];
      }
      for (int64_t j = 0; j < H; ++j) {
        out.y_h[state_index(d, b, j)] = h[static_cast<size_t>(j)];
        out.y_c[state_index(d, b, j)] = cell[static_cast<size_t>(j)];
      }
    }
  }
  return out;
}

// One input of a recurrent node: a run-time tensor (its bytes; none for a tensor whose
// values no test reads) or a constant. std::nullopt leaves the input out.
struct Input {
  Shape shape;
  DataType dtype;
  std::vector<uint8_t> bytes;
  bool constant = false;
};
using Inputs = std::vector<std::optional<Input>>;

// The operands of `c` as run-time inputs of type T, in ONNX's order: X, W, R, B,
// sequence_lens (left out), initial_h, and for LSTM initial_c and P.
template <typename T>
Inputs inputs_of(const Case& c, const Operands& o) {
  auto typed = [](const Shape& shape, const std::vector<float>& values) -> std::optional<Input> {
    if (values.empty()) return std::nullopt;
    return Input{shape, dtype_of<T>(), to_bytes(std::vector<T>(values.begin(), values.end()))};
  };
  int64_t d = c.directions(), rows = c.gates() * c.hidden;
  Inputs inputs = {typed(c.x_shape(), o.x), typed({d, rows, c.input}, o.w), typed({d, rows, c.hidden}, o.r),
                   typed({d, 2 * rows}, o.b), std::nullopt, typed(c.state_shape(), o.initial_h)};
  if (c.op == "LSTM") {
    inputs.push_back(typed(c.state_shape(), o.initial_c));
    inputs.push_back(typed({d, 3 * c.hidden}, o.p));
  }
  return inputs;
}

// The one recurrent node of `c` with these inputs (those after the last one given are left
// off) and the outputs the case wants (the others left out).
OneNode recurrent_node(const Case& c, Inputs inputs) {
  OneNode node(c.op, 14);
  while (!inputs.empty() && !inputs.back()) inputs.pop_back();
  for (const std::optional<Input>& in : inputs) {
    if (!in) {
      node.absent_input();
    } else if (in->constant) {
      node.constant_bytes(in->dtype, in->shape, in->bytes);
    } else {
      node.input_bytes(in->dtype, in->shape, in->bytes);
    }
  }
  std::vector<bool> wanted = {c.want_y, c.want_y_h, c.want_y_c};
  wanted.resize(c.op == "LSTM" ? 3 : 2);
  for (bool want : wanted) node.optional_output(want);
  node.attr("hidden_size", c.hidden).attr("direction", c.direction).attr("layout", c.layout);
  if (c.clip) node.attr("clip", *c.clip);
  if (c.op == "GRU") node.attr("linear_before_reset", int64_t{c.linear_before_reset ? 1 : 0});
  if (!c.activations.empty()) {
    std::vector<std::string> names;
    std::vector<double> alphas, betas;
    for (const auto& per_direction : c.activations)
      for (const Fn& f : per_direction) {
        names.push_back(f.name);
        if (f.name == "HardSigmoid" || f.name == "LeakyRelu" || f.name == "Affine" || f.name == "ScaledTanh" ||
            f.name == "Elu")
          alphas.push_back(f.alpha);
        if (f.name == "HardSigmoid" || f.name == "Affine" || f.name == "ScaledTanh") betas.push_back(f.beta);
      }
    node.attr("activations", names);
    if (!alphas.empty()) node.attr("activation_alpha", alphas);
    if (!betas.empty()) node.attr("activation_beta", betas);
  }
  return node;
}

template <typename T = float>
OneNode recurrent_node(const Case& c, const Operands& o) {
  return recurrent_node(c, inputs_of<T>(c, o));
}

template <typename T>
void expect_close(const std::vector<T>& got, const std::vector<double>& expected, const char* what, double tolerance) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(static_cast<double>(got[i]), expected[i], tolerance) << what << " element " << i;
}

template <typename T = float>
void check(const Case& c, double tolerance = 2e-5) {
  Operands o = random_operands(c);
  Outputs expected = reference(c, o);
  OneNode node = recurrent_node<T>(c, o);
  std::vector<std::vector<T>> got = node.run_outputs<T>();
  if (c.want_y) expect_close(got[0], expected.y, "Y", tolerance);
  if (c.want_y_h) expect_close(got.at(1), expected.y_h, "Y_h", tolerance);
  if (c.want_y_c) expect_close(got.at(2), expected.y_c, "Y_c", tolerance);
}

// The error of the node of `c` (with float32 inputs) after `change`.
std::string error_of(const Case& c, const std::function<void(OneNode&)>& change) {
  OneNode node = recurrent_node(c, random_operands(c));
  change(node);
  return node.error();
}

void expect_error(const std::string& message, const std::string& text) {
  EXPECT_NE(message.find("under_test ("), std::string::npos) << "error does not name the node: '" << message << "'";
  EXPECT_NE(message.find(text), std::string::npos) << "error was: '" << message << "'";
}

// ---------------------------------------------------------------- RNN

TEST(RecurrentLowering, RnnForwardWithDefaults) { check(Case("RNN")); }

TEST(RecurrentLowering, RnnBidirectionalBatchFirstWithInitialStateReluAndClip) {
  check(Case("RNN").bidirectional().batch_first().initial_h().clipped(0.7).acts(
      {{Fn{"Relu"}}, {Fn{"LeakyRelu", 0.1}}}));
}

TEST(RecurrentLowering, RnnReverseWithoutBiasOnlyYh) {
  check(Case("RNN").reversed().no_bias().outputs(false, true, false));
}

TEST(RecurrentLowering, RnnOneActivationListServesBothDirections) {
  Case c = Case("RNN").bidirectional().acts({{Fn{"Affine", 0.5, 0.25}}, {Fn{"Affine", 0.5, 0.25}}});
  Operands o = random_operands(c);
  Outputs expected = reference(c, o);
  OneNode node = recurrent_node(c, o);
  node.attr("activations", std::vector<std::string>{"Affine"});
  node.attr("activation_alpha", std::vector<double>{0.5}).attr("activation_beta", std::vector<double>{0.25});
  expect_close(node.run(), expected.y, "Y", 2e-5);
}

// ---------------------------------------------------------------- GRU

TEST(RecurrentLowering, GruLinearBeforeResetZeroAndOne) {
  for (bool linear_before_reset : {false, true}) {
    SCOPED_TRACE(linear_before_reset ? "linear_before_reset=1" : "linear_before_reset=0");
    check(Case("GRU").linear_reset(linear_before_reset).initial_h());
  }
}

TEST(RecurrentLowering, GruBidirectionalBatchFirstWithActivationsPerDirection) {
  // Alphas and betas are consumed in order by the functions that take them.
  check(Case("GRU").bidirectional().batch_first().sized(4, 3).acts(
      {{Fn{"HardSigmoid", 0.3, 0.4}, Fn{"Softsign"}}, {Fn{"Sigmoid"}, Fn{"ScaledTanh", 1.5, 0.7}}}));
}

TEST(RecurrentLowering, GruReverseWithClip) { check(Case("GRU").reversed().clipped(0.5).linear_reset(true)); }

// ---------------------------------------------------------------- LSTM

TEST(RecurrentLowering, LstmForwardAllOutputs) { check(Case("LSTM").outputs(true, true, true)); }

TEST(RecurrentLowering, LstmBidirectionalBatchFirstWithPeepholesAndInitialStates) {
  check(Case("LSTM").bidirectional().batch_first().initial_h().initial_c().peepholes().outputs(true, true, true));
}

TEST(RecurrentLowering, LstmOnlyCellStateOutputWithElu) {
  check(Case("LSTM").reversed().outputs(false, false, true).peepholes().clipped(1.0).acts(
      {{Fn{"Sigmoid"}, Fn{"Elu", 0.8}, Fn{"Tanh"}}}));
}

TEST(RecurrentLowering, LstmFloat64) {
  check<double>(Case("LSTM").bidirectional().initial_h().peepholes().outputs(true, true, true), 1e-12);
}

// ---------------------------------------------------------------- sequence_lens

TEST(RecurrentLowering, ConstantSequenceLensOfTheFullLengthAreAccepted) {
  Case c("GRU");
  Operands o = random_operands(c);
  Outputs expected = reference(c, o);
  Inputs inputs = inputs_of<float>(c, o);
  std::vector<int32_t> lens(static_cast<size_t>(c.batch), static_cast<int32_t>(c.seq));
  inputs[4] = Input{{c.batch}, DataType::Int(32), to_bytes(lens), true};
  expect_close(recurrent_node(c, inputs).run_output(1), expected.y_h, "Y_h", 2e-5);
}

TEST(RecurrentLowering, ConstantSequenceLensShorterThanTheSequenceAreRejected) {
  Case c("RNN");
  Inputs inputs = inputs_of<float>(c, random_operands(c));
  inputs[4] = Input{{2}, DataType::Int(32), to_bytes(std::vector<int32_t>{3, 2}), true};
  expect_error(recurrent_node(c, inputs).error(),
               "sequence_lens holds 2; only sequences of the full length 3 are supported");
}

TEST(RecurrentLowering, RunTimeSequenceLensAreCheckedByTheKernel) {
  Case c("RNN");
  for (int32_t second : {3, 2}) {
    Inputs inputs = inputs_of<float>(c, random_operands(c));
    inputs[4] = Input{{2}, DataType::Int(32), to_bytes(std::vector<int32_t>{3, second})};
    EXPECT_EQ(recurrent_node(c, inputs).kernel_status() != 0, second != 3) << "lengths 3, " << second;
  }
}

// ---------------------------------------------------------------- errors

TEST(RecurrentLowering, ErrorsNameTheNodeAndTheProblem) {
  Case rnn("RNN");
  Case lstm("LSTM");
  expect_error(error_of(rnn, [](OneNode& n) { n.attr("layout", int64_t{2}); }), "layout must be 0 or 1, not 2");
  expect_error(error_of(rnn, [](OneNode& n) { n.attr("direction", std::string("sideways")); }),
               "direction must be forward, reverse or bidirectional");
  expect_error(error_of(rnn, [](OneNode& n) { n.attr("hidden_size", int64_t{5}); }),
               "W 'in1' has shape [1, 4, 3]; expected [1, 5, 3]");
  expect_error(error_of(rnn, [](OneNode& n) { n.attr("activations", std::vector<std::string>{"Swish"}); }),
               "activation function 'Swish' is not supported");
  expect_error(error_of(rnn, [](OneNode& n) {
                 n.attr("activations", std::vector<std::string>{"Tanh", "Tanh", "Tanh"});
               }),
               "activations lists 3 functions; RNN takes 1 per direction");
  expect_error(error_of(rnn, [](OneNode& n) { n.attr("activations", std::vector<std::string>{"Affine"}); }),
               "activation 'Affine' needs a value in activation_alpha");
  expect_error(error_of(rnn, [](OneNode& n) { n.attr("clip", 0.0); }), "clip must be positive");
  expect_error(error_of(lstm, [](OneNode& n) { n.attr("input_forget", int64_t{1}); }),
               "input_forget=1 (coupled input and forget gates) is not supported");
  Inputs wrong_p = inputs_of<float>(lstm, random_operands(lstm));
  wrong_p[7] = Input{{1, 9}, DataType::Float32(), {}};
  expect_error(recurrent_node(lstm, wrong_p).error(), "P 'in7' has shape [1, 9]; expected [1, 12]");
  Inputs int_x = inputs_of<float>(rnn, random_operands(rnn));
  int_x[0] = Input{{3, 2, 3}, DataType::Int(32), {}};
  expect_error(recurrent_node(rnn, int_x).error(), "X 'in0' is int32; only float32 and float64 are supported");
}

}  // namespace
}  // namespace aotc::test
