// The typed operator graph that both importers produce and the graph passes rewrite.
//
// Tensors live in one table indexed by TensorId; nodes refer to them by id. A tensor with
// `data` is a constant (an ONNX initializer or a TFLite buffer). Shapes are static: the
// importer rejects anything else. Operator names are ONNX's ("Conv", "Gemm") where ONNX
// has the operator; the TFLite importer maps onto them or onto "tfl."-prefixed operators.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "aot/base/dtype.h"
#include "aot/base/errors.h"

namespace aotc {

using TensorId = int;
constexpr TensorId kNoTensor = -1;  // an omitted optional input

// Per-tensor (axis < 0, one scale) or per-channel (scale per index along axis).
struct Quantization {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int axis = -1;
  bool empty() const { return scale.empty(); }
};

struct Tensor {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;
  bool shape_known = false;
  std::optional<std::vector<uint8_t>> data;  // set for constants, little-endian
  Quantization quant;
  // A TFLite variable tensor (SVDF and LSTM state): the operators that take it as an input
  // also write it, and it keeps its value from one run of the model to the next. Never a
  // constant (`data` stays empty); its initial value is `initial_value` (little-endian
  // elements), or zeros when that is empty. The executor gives it memory of its own.
  bool is_variable = false;
  std::vector<uint8_t> initial_value;

  bool is_constant() const { return data.has_value(); }
  int64_t num_elements() const;
  int64_t size_bytes() const { return num_elements() * dtype.bytes(); }
  // Constant element i converted to double / int64 (any dtype).
  double element_as_double(int64_t i) const;
  int64_t element_as_int(int64_t i) const;
  std::vector<int64_t> ints() const;    // all elements as int64
  std::vector<double> floats() const;   // all elements as double
};

// A tensor-valued attribute (ONNX's TENSOR attributes: ConstantOfShape's value, ...).
struct TensorAttr {
  Tensor value;
};

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                               std::vector<std::string>, TensorAttr>;

struct Node;

// A graph that a control-flow node runs: an If's branches, a Loop's or a Scan's body. Its
// nodes use the one tensor table of the enclosing Graph: a value from an enclosing scope
// is read by its id, and the control-flow node lists every such value among its own
// inputs, after the operator's declared inputs (see kDeclaredInputsAttr), so that the
// graph passes see that the node reads it.
struct Subgraph {
  std::string name;               // the attribute it came from: then_branch, else_branch, body
  std::vector<TensorId> inputs;   // its parameters (a Loop body: iteration, condition, carried values)
  std::vector<Node> nodes;        // in a valid execution order
  std::vector<TensorId> outputs;  // its results, in the operator's order
};

// Of a control-flow node: how many of its inputs the operator declares; the rest are the
// values of enclosing scopes its subgraphs read.
constexpr const char* kDeclaredInputsAttr = "control.declared_inputs";

struct Node {
  std::string name;
  std::string op;
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  std::map<std::string, AttrValue> attrs;

  // For a fused elementwise chain: the original nodes in order; the last one's output
  // is the fused node's output. Empty for every other node.
  std::vector<Node> body;

  // For If, Loop and Scan: the graphs they run.
  std::vector<Subgraph> subgraphs;

  bool has_attr(const std::string& key) const { return attrs.count(key) != 0; }
  int64_t attr_int(const std::string& key, int64_t fallback) const;
  double attr_float(const std::string& key, double fallback) const;
  std::string attr_string(const std::string& key, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& key, std::vector<int64_t> fallback = {}) const;
  std::vector<double> attr_floats(const std::string& key, std::vector<double> fallback = {}) const;
  std::vector<std::string> attr_strings(const std::string& key, std::vector<std::string> fallback = {}) const;
  // A tensor attribute, or nullptr when the node has none of that name.
  const Tensor* attr_tensor(const std::string& key) const;

  // "name (Op)" for messages; "<unnamed> (Op)" when the node has no name (importers name
  // unnamed nodes after their first output, so this is rare).
  std::string label() const;
  // The i-th input if present (id != kNoTensor), else kNoTensor.
  TensorId input(size_t i) const { return i < inputs.size() ? inputs[i] : kNoTensor; }
  // The inputs the operator declares (all of them, for a node without subgraphs).
  size_t declared_inputs() const;
};

// Graph-level tensor id of the un-fused output that node.body[0] consumes (an attribute
// of a node with a fused epilogue).
constexpr const char* kAnchorOutputAttr = "fused.anchor_output";

// Of an ONNX convolution the channels_last pass rewrote (int 1): its input and output are
// channels-last [N, D1, ..., C] and its weights [M, K1, ..., C / group], or [1, K1, ..., M]
// when each group has one input channel (depthwise).
constexpr const char* kChannelsLastAttr = "aotc.channels_last";

// The tensor the node itself computes, before its fused epilogue: its quantization is
// what the node's own requantization targets. outputs[0] when nothing is fused.
TensorId anchor_output(const Node& node);

// The node as it was before fusion: its own output (anchor_output), no epilogue. What an
// anchor's element function must see, so that it targets its own output's quantization,
// not that of the fused chain's last step (an int8 MUL followed by an ADD).
Node unfused_anchor(const Node& node);

struct Graph {
  std::string source_format;  // "onnx" or "tflite"
  int64_t opset = 0;          // ONNX default-domain opset
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;    // in a valid execution order
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  // --state IN=OUT (aot/driver/input_bindings.h): after each run, the variable tensor
  // `first` (once input IN) takes the value of `second` (output OUT). OUT stays in
  // `outputs` through the graph passes, which keep what outputs need; lowering turns it
  // into that update.
  std::vector<std::pair<TensorId, TensorId>> state_updates;
  // TFLite CALL_ONCE: nodes that run once, before the first run, on constants; after them
  // each variable `first` of init_assignments takes the value of `second`. The pass
  // initialize_variables runs them at compile time and empties both.
  std::vector<Node> init_nodes;
  std::vector<std::pair<TensorId, TensorId>> init_assignments;
  // What a variable tensor is, for the generated header ("a TFLite resource variable
  // 'acc'"); variables not listed are TFLite variable tensors (SVDF and LSTM memory).
  std::map<TensorId, std::string> variable_origins;
  // Things about the model worth saying that do not stop it compiling (the CLI prints
  // them as "warning: ...").
  std::vector<std::string> warnings;

  Tensor& tensor(TensorId id) { return tensors.at(static_cast<size_t>(id)); }
  const Tensor& tensor(TensorId id) const { return tensors.at(static_cast<size_t>(id)); }
  TensorId add_tensor(Tensor t);
  TensorId add_constant(const std::string& name, DataType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes);
  std::vector<int> consumers(TensorId id) const;  // node indices that read `id` (also in fused bodies)
  bool is_graph_output(TensorId id) const;
};

// Runs `fn` on `sub` as if it were the whole graph: while it runs, g.nodes, g.inputs and
// g.outputs are the subgraph's nodes, its parameters followed by `captured` (values of
// enclosing scopes, which are computed before it runs), and its outputs. Tensors stay in
// the one table, so what `fn` adds there stays. Lets a graph pass work in a subgraph.
void with_subgraph_as_graph(Graph& g, Subgraph& sub, const std::vector<TensorId>& captured,
                            const std::function<void(Graph&)>& fn);

// Runs `pass` on the graph, then on every subgraph of its control-flow nodes, nested ones
// too (outer scopes first, so that a subgraph sees what the pass made of the values it
// reads). Not in the regions of external functions (external.h), which their device's
// code generator compiles.
void run_everywhere(Graph& g, const std::function<void(Graph&)>& pass);

// Calls `fn` on every node of `nodes` and, after each control-flow node, on the nodes of
// its subgraphs (nested ones too), in order.
void for_each_node(const std::vector<Node>& nodes, const std::function<void(const Node&)>& fn);

// The values of enclosing scopes that `sub` reads, in order of first use: tensors its nodes
// (and nested subgraphs) read that are neither its parameters, nor computed in it, nor
// constants.
std::vector<TensorId> captured_values(const Graph& g, const Subgraph& sub);

// For a control-flow node whose inputs so far are the operator's declared ones: records
// their count (kDeclaredInputsAttr) and appends the values of enclosing scopes its
// subgraphs read (captured_values), each once. Importers call it once the subgraphs are in.
void declare_captured_inputs(const Graph& g, Node& node);

// Throws CompileError("node <label>: <message>").
[[noreturn]] void node_error(const Node& node, const std::string& message);

// Runs `work` for `node`: a CompileError from it that names no node (a helper deep in the
// arithmetic, e.g. a requantization factor that is not finite) is given this node's name.
template <typename Work>
auto for_node(const Node& node, Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const CompileError& e) {
    if (std::string(e.what()).rfind("node ", 0) == 0) throw;
    node_error(node, e.what());
  }
}

std::string shape_str(const std::vector<int64_t>& shape);
// The product of the dimensions (1 for a scalar); INT64_MAX when it overflows.
int64_t num_elements(const std::vector<int64_t>& shape);

// The most elements a tensor may have: the generated C counts elements in int32_t.
constexpr int64_t kMaxTensorElements = 0x7FFFFFFF;
// "" for a shape aotc can compile; else why not ("dimension 1 is -3", "2^80 elements are
// more than ..."), without overflowing on the way. Dimensions of 0 are left to the caller.
std::string shape_size_problem(const std::vector<int64_t>& shape);
// A size-like value from the model (a pad, a split size, a window attribute, a hidden
// size): node_error when it is beyond the largest tensor either way. Shape arithmetic adds
// and multiplies such values, so larger ones from a damaged model would overflow it, and
// no tensor is that large anyway. `what` names the value in the message ("pads value").
void check_tensor_sized(const Node& node, const std::string& what, int64_t value);

}  // namespace aotc
