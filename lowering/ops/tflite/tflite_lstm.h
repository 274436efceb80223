// Shared by the two lowerings of TFLite UNIDIRECTIONAL_SEQUENCE_LSTM: float32
// (tflite_lstm.cc) and integer (tflite_lstm_integer.cc, TFLite Micro's 8x8->16 and 16x8->16
// schemes). Both read the same 24 inputs, run the same sequence of steps over the same
// geometry and keep the hidden and cell states in variable tensors; they differ in the
// arithmetic of a step.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/graph/graph.h"
#include "aot/graph/op_registry.h"
#include "lowering/ir/ir.h"
#include "lowering/compute/kernel_builder.h"

namespace aotc::tflite_lstm {

using ir::Expr;

enum LstmInput : size_t {
  kInput = 0,
  kInputWeights = 1,      // 1..4: input to the input, forget, cell and output gates [n_cell, n_input]
  kRecurrentWeights = 5,  // 5..8: hidden state to the same gates [n_cell, n_output]
  kPeepholeWeights = 9,   // 9..11
  kGateBias = 12,         // 12..15: the four gates' biases [n_cell]
  kProjectionWeights = 16,
  kProjectionBias = 17,
  kHiddenState = 18,
  kCellState = 19,
  kLayerNorm = 20,  // 20..23
  kInputCount = 24,
};

// The gates, in the order of their tensors in the operator's inputs.
enum Gate { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };
inline const char* const kGateNames[] = {"input", "forget", "cell", "output"};

struct LstmGeometry {
  int64_t batches, steps, n_input, n_cell;
  bool time_major;

  // The index of element `last` of batch bt[0] at step bt[1] in the input or the output.
  std::vector<Expr> at_step(const std::vector<Expr>& bt, const Expr& last) const {
    return time_major ? std::vector<Expr>{bt[1], bt[0], last} : std::vector<Expr>{bt[0], bt[1], last};
  }
};

// The geometry, after checking what both lowerings need: 24 inputs, no peephole,
// projection, layer normalization or CIFG (TFLite Micro has none of them), the weights',
// biases' and states' shapes, and states that are variable tensors.
LstmGeometry lstm_geometry(const Graph& g, const Node& node);

// The kernel's parameters: the input, each gate's weights and bias, the two states and the
// output.
struct LstmBuffers {
  ir::Buffer x, w[4], r[4], bias[4], h, c, y;
};
LstmBuffers lstm_buffers(KernelBuilder& kb);

// A local accumulator set to `init`, then acc += term(k) for k in [0, n) (loop variable
// `index`), then then(acc).
ir::Stmt dot_product(const std::string& name, const std::string& index, Expr init, int64_t n,
                     const std::function<Expr(const Expr&)>& term, const std::function<ir::Stmt(const Expr&)>& then);

// The loops of a run, for each batch b = bt[0] and step t = bt[1]: gate(bt, g, cell, store)
// computes gate g's activation for one cell and passes it to store, which keeps it in a
// scratch array of `gate_type` [4, n_cell]; after all four gates,
// update(bt, cell, gate_values) updates the states and writes the output of one cell.
using StoreFn = std::function<ir::Stmt(const Expr&)>;
using GateFn = std::function<ir::Stmt(const std::vector<Expr>& bt, Gate g, const Expr& cell, const StoreFn& store)>;
using UpdateFn = std::function<ir::Stmt(const std::vector<Expr>& bt, const Expr& cell, const Expr* gate_values)>;
ir::Stmt lstm_steps(const LstmGeometry& s, DataType gate_type, const GateFn& gate, const UpdateFn& update);

// The integer LSTM's types and quantization (tflite_lstm_integer.cc); node_error when the
// node is not one that TFLite Micro's integer kernel computes.
void check_integer_lstm(const Graph& g, const Node& node);
LoweredOp lower_integer_lstm(const LowerContext& ctx);

}  // namespace aotc::tflite_lstm
