// The harness of the operator tests in tests/unit: a graph of one node (OneNode) or of a
// few (GraphBuilder), with the run-time values of its inputs, taken through the operators'
// shape functions and lowerings, and each kernel run in the IR interpreter.
//
// Every kernel runs twice, as lowered and after ir::simplify, and both runs must write the
// same bytes: Simplify may change how a kernel computes, never what. The values a test
// expects come from the test itself (plain loops written from the operator's definition),
// never from here. This is the one place the tests call the lowering API.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "aot/graph/graph.h"
#include "aot/graph/lowered_op.h"
#include "aot/graph/op_registry.h"
#include "aot/passes/graph_passes.h"
#include "lowering/ir/ir_interpreter.h"
#include "lowering/ir/ir_printer.h"
#include "lowering/passes/simplify.h"

namespace aotc::test {

using Shape = std::vector<int64_t>;
using Index = std::vector<int64_t>;

inline int64_t element_count(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Calls f(index, flat) for every element of `shape`, in row-major order.
template <typename F>
void for_each_index(const Shape& shape, F f) {
  Index index(shape.size(), 0);
  for (int64_t flat = 0; flat < element_count(shape); ++flat) {
    f(static_cast<const Index&>(index), static_cast<size_t>(flat));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

// ---------------------------------------------------------------- typed values as bytes

template <typename T>
std::vector<uint8_t> to_bytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> from_bytes(const std::vector<uint8_t>& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// The tensor element type whose C type is T.
template <typename T>
DataType dtype_of() {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "a numeric element type");
  if constexpr (std::is_floating_point_v<T>) {
    return sizeof(T) == 4 ? DataType::Float32() : DataType::Float64();
  } else if constexpr (std::is_signed_v<T>) {
    return DataType::Int(8 * static_cast<int>(sizeof(T)));
  } else {
    return DataType::UInt(8 * static_cast<int>(sizeof(T)));
  }
}

// Uniform in [-scale, scale); the same values for the same seed.
inline std::vector<float> random_floats(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(n);
  for (float& v : values) v = uniform(generator);
  return values;
}

// Uniform in [lo, hi]; the same values for the same seed.
template <typename T>
std::vector<T> random_ints(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> uniform(lo, hi);
  std::vector<T> values(n);
  for (T& v : values) v = static_cast<T>(uniform(generator));
  return values;
}

// ---------------------------------------------------------------- tensors and kernels

// Per-tensor quantization of a test tensor; scale 0 means not quantized.
struct Quant {
  float scale = 0;
  int64_t zero_point = 0;
};

// A tensor of known shape.
inline TensorId add_tensor(Graph& graph, const std::string& name, DataType dtype, const Shape& shape,
                           Quant quant = {}) {
  Tensor tensor{name, dtype, shape, true};
  if (quant.scale != 0) {
    tensor.quant.scale = {quant.scale};
    tensor.quant.zero_point = {quant.zero_point};
  }
  return graph.add_tensor(tensor);
}

// The contents of run-time tensors, by id: little-endian elements.
using Memory = std::map<TensorId, std::vector<uint8_t>>;

// The node's kernel for `target` (by default one with no particular facts).
// Facts of a test target with these ISA features (they choose kernel variants).
inline TargetFacts with_features(std::set<std::string> features) {
  TargetFacts t;
  t.name = "test";
  t.features = std::move(features);
  return t;
}

inline LoweredOp lower_node(const Graph& graph, const Node& node, const TargetFacts& target = TargetFacts{}) {
  return find_op(node.op)->lower(LowerContext{graph, node, "kernel", target});
}

// Binds the kernel's parameters to the tensors in *memory. Constants come from the graph;
// a tensor *memory lacks (an output) starts as bytes a kernel would not write by chance:
// NaN for floating-point tensors.
inline std::vector<ir::BufferBinding> bind_kernel(const Graph& graph, const LoweredOp& op, Memory* memory) {
  std::vector<ir::BufferBinding> bindings;
  for (size_t i = 0; i < op.args.size(); ++i) {
    TensorId id = op.args[i];
    const Tensor& tensor = graph.tensor(id);
    if (tensor.is_constant()) {
      (*memory)[id] = *tensor.data;
    } else if (!memory->count(id)) {
      uint8_t unwritten = tensor.dtype.is_float() ? 0xFF : 0xAB;
      (*memory)[id] = std::vector<uint8_t>(static_cast<size_t>(tensor.size_bytes()), unwritten);
    }
    bindings.push_back({op.func.params[i], (*memory)[id].data()});
  }
  return bindings;
}

// Runs the kernel on `memory`, which must succeed, and returns it with the kernel's writes.
inline Memory interpret_kernel(const Graph& graph, const LoweredOp& op, Memory memory) {
  std::vector<ir::BufferBinding> bindings = bind_kernel(graph, op, &memory);
  EXPECT_EQ(ir::interpret(op.func, bindings), 0);
  return memory;
}

// Lowers `node` and runs its kernel on the tensors in *memory twice, as lowered and after
// ir::simplify; both runs must write the same bytes. Adds the node's outputs to *memory.
inline void run_node(const Graph& graph, const Node& node, Memory* memory, const TargetFacts& target = TargetFacts{}) {
  LoweredOp op = lower_node(graph, node, target);
  Memory inputs = *memory;
  for (TensorId id : node.outputs) inputs.erase(id);
  Memory lowered = interpret_kernel(graph, op, inputs);
  op.func.body = ir::simplify(op.func.body);
  Memory simplified = interpret_kernel(graph, op, inputs);
  for (TensorId id : node.outputs) {
    if (!lowered.count(id)) continue;  // an output nobody reads, which the kernel skips
    EXPECT_TRUE(simplified.at(id) == lowered.at(id))
        << "Simplify changed output '" << graph.tensor(id).name << "' of " << node.label();
    (*memory)[id] = lowered.at(id);
  }
}

// ---------------------------------------------------------------- one node

// A graph of one node under test. Inputs, constants and attributes are added in the
// node's order; without a declared output, infer() gives the node a float32 output of
// unknown shape, which the shape function fills in.
class OneNode {
 public:
  explicit OneNode(const std::string& op, int64_t opset = 13) {
    bool tflite = op.rfind("tfl.", 0) == 0;
    graph_.source_format = tflite ? "tflite" : "onnx";
    graph_.opset = tflite ? 0 : opset;
    node_.op = op;
    node_.name = "under_test";
  }

  // A run-time input with these values; T is its element type.
  template <typename T = float>
  OneNode& input(const Shape& shape, const std::vector<T>& values, Quant quant = {}) {
    TensorId id = add_tensor(graph_, "in" + std::to_string(node_.inputs.size()), dtype_of<T>(), shape, quant);
    values_[id] = to_bytes(values);
    node_.inputs.push_back(id);
    return *this;
  }
  // A run-time input, or a constant, of `dtype` given by its little-endian bytes: for bool
  // tensors (a byte 0 or 1 per element), which have no element type T here.
  OneNode& input_bytes(DataType dtype, const Shape& shape, std::vector<uint8_t> bytes) {
    TensorId id = add_tensor(graph_, "in" + std::to_string(node_.inputs.size()), dtype, shape);
    values_[id] = std::move(bytes);
    node_.inputs.push_back(id);
    return *this;
  }
  OneNode& constant_bytes(DataType dtype, const Shape& shape, std::vector<uint8_t> bytes) {
    node_.inputs.push_back(graph_.add_constant("const" + std::to_string(node_.inputs.size()), dtype, shape, std::move(bytes)));
    return *this;
  }
  // A float32 input with random values in [-1, 1), different for each input.
  OneNode& input(const Shape& shape) {
    uint32_t seed = static_cast<uint32_t>(node_.inputs.size() + 1);
    return input(shape, random_floats(static_cast<size_t>(element_count(shape)), seed));
  }
  template <typename T = float>
  OneNode& constant(const Shape& shape, const std::vector<T>& values, Quant quant = {}) {
    std::string name = "const" + std::to_string(node_.inputs.size());
    TensorId id = graph_.add_constant(name, dtype_of<T>(), shape, to_bytes(values));
    if (quant.scale != 0) graph_.tensor(id).quant = {{quant.scale}, {quant.zero_point}, -1};
    node_.inputs.push_back(id);
    return *this;
  }
  // A 1-D constant (a shape, pads, axes).
  template <typename T>
  OneNode& constant(const std::vector<T>& values) {
    return constant(Shape{static_cast<int64_t>(values.size())}, values);
  }
  // Quantizes input `index` per channel along `axis`: one scale per channel, zero points 0.
  OneNode& per_channel_scales(size_t index, const std::vector<float>& scales, int64_t axis = 0) {
    Quantization& q = graph_.tensor(node_.inputs.at(index)).quant;
    q.scale.assign(scales.begin(), scales.end());
    q.zero_point.assign(scales.size(), 0);
    q.axis = static_cast<int>(axis);
    return *this;
  }
  // An optional input left out.
  OneNode& absent_input() {
    node_.inputs.push_back(kNoTensor);
    return *this;
  }
  OneNode& attr(const std::string& key, AttrValue value) {
    node_.attrs[key] = std::move(value);
    return *this;
  }
  // Lowers for a target with these facts (features choose kernel variants).
  OneNode& target(TargetFacts facts) {
    target_ = std::move(facts);
    return *this;
  }
  // Fuses `op` (an elementwise operator whose only input is the output) behind the node.
  OneNode& epilogue(const std::string& op) {
    Node step;
    step.op = op;
    epilogue_ops_.push_back(step);
    return *this;
  }
  // Fuses `op` behind the node with the output as its first input and float32 scalar
  // constants after it (Clip's bounds).
  OneNode& epilogue(const std::string& op, const std::vector<float>& constants) {
    Node step;
    step.op = op;
    for (float v : constants)
      step.inputs.push_back(graph_.add_constant("epilogue" + std::to_string(graph_.tensors.size()), DataType::Float32(),
                                                {}, to_bytes(std::vector<float>{v})));
    epilogue_ops_.push_back(step);
    return *this;
  }
  // Fuses `op` behind the node with the output as its first input and a float32 constant
  // of `shape` after it (an Add of a bias or of a whole tensor).
  OneNode& epilogue(const std::string& op, const Shape& shape, const std::vector<float>& values) {
    Node step;
    step.op = op;
    step.inputs.push_back(graph_.add_constant("epilogue" + std::to_string(graph_.tensors.size()), DataType::Float32(),
                                              shape, to_bytes(values)));
    epilogue_ops_.push_back(step);
    return *this;
  }
  // An output with the type, shape and quantization the model declares (TFLite declares
  // every tensor; its shape functions check what they infer against it).
  OneNode& output(DataType dtype, const Shape& declared_shape, Quant quant = {}) {
    TensorId id = add_tensor(graph_, next_output_name(), dtype, declared_shape, quant);
    node_.outputs.push_back(id);
    graph_.outputs.push_back(id);
    return *this;
  }
  // The next output, of unknown shape, read as a graph output; or left out (`present`
  // false), as a recurrent node's Y when only Y_h is wanted.
  OneNode& optional_output(bool present) {
    TensorId id = kNoTensor;
    if (present) {
      id = graph_.add_tensor(Tensor{next_output_name(), DataType::Float32()});
      graph_.outputs.push_back(id);
    }
    node_.outputs.push_back(id);
    return *this;
  }
  // One more output of unknown shape, after output 0 (MaxPool's Indices, BatchNormalization's
  // training statistics); `graph_output` says whether anything reads it.
  OneNode& extra_output(bool graph_output) {
    add_default_output();
    TensorId id = graph_.add_tensor(Tensor{next_output_name(), DataType::Float32()});
    node_.outputs.push_back(id);
    if (graph_output) graph_.outputs.push_back(id);
    return *this;
  }

  // The values of run-time input `input`.
  template <typename T = float>
  std::vector<T> values_of(size_t input) const {
    return from_bytes<T>(values_.at(node_.inputs.at(input)));
  }

  // Runs the shape function (again, when called again), then fuses the epilogue; returns
  // the shape of output 0 (none when it is left out).
  Shape infer() {
    add_default_output();
    if (node_.body.empty()) {
      find_op(node_.op)->infer(graph_, node_);
      attach_epilogue();
    }
    inferred_ = true;
    return node_.outputs[0] == kNoTensor ? Shape{} : graph_.tensor(node_.outputs[0]).shape;
  }

  // The message of the CompileError that shape inference or lowering throws ("" if none).
  std::string error() {
    try {
      infer();
      lower_node(graph_, node_);
    } catch (const CompileError& e) {
      return e.what();
    }
    return "";
  }

  // Runs the kernel (see run_node) after infer(), unless that ran already; returns the
  // elements of output 0.
  template <typename T = float>
  std::vector<T> run() {
    return run_output<T>(0);
  }

  // The same for output `index` (TopK's Indices, LayerNormalization's Mean...).
  template <typename T = float>
  std::vector<T> run_output(size_t index) {
    return run_outputs<T>().at(index);
  }

  // The elements of every output from one run (Split's pieces); none for one left out or
  // that nothing reads (which the kernel may skip).
  template <typename T = float>
  std::vector<std::vector<T>> run_outputs() {
    if (!inferred_) infer();
    Memory memory = values_;
    run_node(graph_, node_, &memory, target_);
    std::vector<std::vector<T>> outputs;
    for (TensorId id : node_.outputs)
      outputs.push_back(memory.count(id) ? from_bytes<T>(memory.at(id)) : std::vector<T>{});
    return outputs;
  }

  // The status the kernel returns on the inputs' values (0, or AOTC_ERR_INVALID_ARGUMENT
  // for a run-time index out of range), as lowered.
  int64_t kernel_status() {
    if (!inferred_) infer();
    LoweredOp op = lower_node(graph_, node_, target_);
    Memory memory = values_;
    return ir::interpret(op.func, bind_kernel(graph_, op, &memory));
  }

  // The type and shape infer() gave output `index`.
  DataType output_type(size_t index = 0) const { return graph_.tensor(node_.outputs.at(index)).dtype; }
  Shape output_shape(size_t index) const { return graph_.tensor(node_.outputs.at(index)).shape; }

  // The kernel after Simplify, as text.
  std::string printed_ir() {
    if (!inferred_) infer();
    LoweredOp op = lower_node(graph_, node_, target_);
    op.func.body = ir::simplify(op.func.body);
    return ir::to_string(op.func);
  }

 private:
  void add_default_output() {
    if (node_.outputs.empty()) optional_output(true);
  }
  // "out", then "out1", "out2"...
  std::string next_output_name() const {
    return "out" + (node_.outputs.empty() ? std::string() : std::to_string(node_.outputs.size()));
  }

  // Chains the epilogue steps the way fuse_operators does: the node's own output becomes
  // an internal tensor read by the first step, the last step's output is the node's.
  void attach_epilogue() {
    if (epilogue_ops_.empty()) return;
    TensorId carried = node_.outputs[0];
    Tensor anchor = graph_.tensor(carried);
    node_.attrs[kAnchorOutputAttr] = static_cast<int64_t>(carried);
    for (Node step : epilogue_ops_) {
      step.inputs.insert(step.inputs.begin(), carried);
      carried = add_tensor(graph_, "fused", anchor.dtype, anchor.shape);
      step.outputs = {carried};
      node_.body.push_back(step);
    }
    node_.outputs[0] = carried;
    graph_.outputs = {carried};
  }

  Graph graph_;
  Node node_;
  TargetFacts target_;
  Memory values_;
  std::vector<Node> epilogue_ops_;
  bool inferred_ = false;
};

// ---------------------------------------------------------------- several nodes

// A graph built node by node, in execution order, with the run-time values of its inputs.
class GraphBuilder {
 public:
  explicit GraphBuilder(int64_t opset = 13) {
    graph.source_format = "onnx";
    graph.opset = opset;
  }

  // A graph input with these values; T is its element type.
  template <typename T>
  TensorId input(const std::string& name, const Shape& shape, const std::vector<T>& values) {
    TensorId id = input(name, shape, dtype_of<T>());
    input_values[id] = to_bytes(values);
    return id;
  }
  // A graph input whose values nothing reads (the graph passes only look at shapes).
  TensorId input(const std::string& name, const Shape& shape, DataType dtype = DataType::Float32()) {
    TensorId id = add_tensor(graph, name, dtype, shape);
    graph.inputs.push_back(id);
    return id;
  }

  template <typename T>
  TensorId constant(const std::string& name, const Shape& shape, const std::vector<T>& values) {
    return graph.add_constant(name, dtype_of<T>(), shape, to_bytes(values));
  }
  TensorId constant(const std::string& name, const Shape& shape, const std::vector<float>& values) {
    return constant<float>(name, shape, values);
  }

  // A node with one output, which it returns; named after its operator and position, or
  // `name` (its output then `name`_out).
  TensorId node(const std::string& op, const std::vector<TensorId>& inputs,
                const std::map<std::string, AttrValue>& attrs = {}) {
    return named_node(op, op + std::to_string(graph.nodes.size()), inputs, attrs);
  }
  TensorId named_node(const std::string& op, const std::string& name, const std::vector<TensorId>& inputs,
                      const std::map<std::string, AttrValue>& attrs = {}) {
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = inputs;
    n.outputs = {graph.add_tensor(Tensor{n.name + "_out", DataType::Float32()})};
    n.attrs = attrs;
    graph.nodes.push_back(n);
    return n.outputs[0];
  }

  // Makes `outputs` the graph's outputs, infers shapes and runs the graph pass `pass`.
  const Graph& after(std::vector<TensorId> outputs, void (*pass)(Graph&)) {
    graph.outputs = std::move(outputs);
    infer_shapes(graph);
    pass(graph);
    return graph;
  }

  // Makes `out` the graph's output, infers shapes and runs every kernel; returns the
  // elements of `out`.
  template <typename T>
  std::vector<T> run(TensorId out) {
    graph.outputs = {out};
    infer_shapes(graph);
    return from_bytes<T>(execute().at(out));
  }

  // The message of the CompileError that shape inference throws for the graph with output
  // `out` ("" if none).
  std::string error(TensorId out) {
    graph.outputs = {out};
    try {
      infer_shapes(graph);
    } catch (const CompileError& e) {
      return e.what();
    }
    return "";
  }

  // Runs every node's kernel in order (see run_node), shapes already inferred; returns
  // the inputs and every node's outputs.
  Memory execute() const {
    Memory memory = input_values;
    for (const Node& n : graph.nodes) run_node(graph, n, &memory);
    return memory;
  }

  Graph graph;
  Memory input_values;
};

}  // namespace aotc::test
