#include "aot/graph/graph.h"

#include "aot/base/element_bytes.h"
#include "aot/graph/external.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace aotc {

int64_t num_elements(const std::vector<int64_t>& shape) {
  // Saturates instead of wrapping (2^40 * 2^40 is not 0), so that a shape from a damaged
  // model reaches shape_size_problem's message instead of passing for an empty tensor.
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n)) return INT64_MAX;
  return n;
}

std::string shape_size_problem(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) return "dimension " + std::to_string(i) + " is " + std::to_string(shape[i]);
    // Checked on its own too: after a 0 the product stays 0, and shape arithmetic on an
    // empty tensor's other dimensions would still overflow.
    if (shape[i] > kMaxTensorElements)
      return "dimension " + std::to_string(i) + " is " + std::to_string(shape[i]) + ", larger than any tensor (at most " +
             std::to_string(kMaxTensorElements) + " elements)";
    if (shape[i] != 0 && n > kMaxTensorElements / shape[i])
      return "its shape " + shape_str(shape) + " has more than " + std::to_string(kMaxTensorElements) +
             " elements, the most the generated C can index";
    n *= shape[i];
  }
  return "";
}

void check_tensor_sized(const Node& node, const std::string& what, int64_t value) {
  if (value > kMaxTensorElements || value < -kMaxTensorElements)
    node_error(node, what + " " + std::to_string(value) + " is larger than any tensor (at most " +
                         std::to_string(kMaxTensorElements) + " elements)");
}

int64_t Tensor::num_elements() const { return aotc::num_elements(shape); }

double Tensor::element_as_double(int64_t i) const { return read_element_double(dtype, data->data(), i); }

int64_t Tensor::element_as_int(int64_t i) const { return read_element_int(dtype, data->data(), i); }

std::vector<int64_t> Tensor::ints() const {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < num_elements(); ++i) v.push_back(element_as_int(i));
  return v;
}

std::vector<double> Tensor::floats() const {
  std::vector<double> v;
  for (int64_t i = 0; i < num_elements(); ++i) v.push_back(element_as_double(i));
  return v;
}

namespace {

// Attribute `key` of `node` as a Wanted: stored as one, or as the one Other type that
// `convert` turns into one (a float for an integer, an integer for a float, one integer
// for a list of them); `fallback` when the node has no such attribute. Any other type
// is an error.
template <typename Wanted, typename Other, typename Convert>
Wanted typed_attr(const Node& node, const std::string& key, Wanted fallback, const char* what, Convert convert) {
  auto it = node.attrs.find(key);
  if (it == node.attrs.end()) return fallback;
  if (auto* v = std::get_if<Wanted>(&it->second)) return *v;
  if (auto* v = std::get_if<Other>(&it->second)) return convert(*v);
  node_error(node, "attribute '" + key + "' should be " + what);
}

}  // namespace

int64_t Node::attr_int(const std::string& key, int64_t fallback) const {
  return typed_attr<int64_t, double>(*this, key, fallback, "an integer",
                                     [](double v) { return float_as_int(v); });
}

double Node::attr_float(const std::string& key, double fallback) const {
  return typed_attr<double, int64_t>(*this, key, fallback, "a float", [](int64_t v) { return static_cast<double>(v); });
}

std::string Node::attr_string(const std::string& key, const std::string& fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::string>(&it->second)) return *v;
  node_error(*this, "attribute '" + key + "' should be a string");
}

std::vector<int64_t> Node::attr_ints(const std::string& key, std::vector<int64_t> fallback) const {
  return typed_attr<std::vector<int64_t>, int64_t>(*this, key, std::move(fallback), "a list of integers",
                                                   [](int64_t v) { return std::vector<int64_t>{v}; });
}

std::vector<double> Node::attr_floats(const std::string& key, std::vector<double> fallback) const {
  return typed_attr<std::vector<double>, double>(*this, key, std::move(fallback), "a list of floats",
                                                 [](double v) { return std::vector<double>{v}; });
}

std::vector<std::string> Node::attr_strings(const std::string& key, std::vector<std::string> fallback) const {
  return typed_attr<std::vector<std::string>, std::string>(*this, key, std::move(fallback), "a list of strings",
                                                           [](const std::string& v) { return std::vector<std::string>{v}; });
}

const Tensor* Node::attr_tensor(const std::string& key) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return nullptr;
  if (auto* v = std::get_if<TensorAttr>(&it->second)) return &v->value;
  node_error(*this, "attribute '" + key + "' should be a tensor");
}

size_t Node::declared_inputs() const {
  if (subgraphs.empty()) return inputs.size();
  return static_cast<size_t>(attr_int(kDeclaredInputsAttr, static_cast<int64_t>(inputs.size())));
}

std::string Node::label() const { return (name.empty() ? std::string("<unnamed>") : name) + " (" + op + ")"; }

TensorId Graph::add_tensor(Tensor t) {
  tensors.push_back(std::move(t));
  return static_cast<TensorId>(tensors.size() - 1);
}

TensorId Graph::add_constant(const std::string& name, DataType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes) {
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.shape_known = true;
  t.data = std::move(bytes);
  return add_tensor(std::move(t));
}

std::vector<int> Graph::consumers(TensorId id) const {
  std::vector<int> out;
  for (size_t n = 0; n < nodes.size(); ++n) {
    bool reads = std::count(nodes[n].inputs.begin(), nodes[n].inputs.end(), id) > 0;
    for (const Node& step : nodes[n].body) reads |= std::count(step.inputs.begin(), step.inputs.end(), id) > 0;
    if (reads) out.push_back(static_cast<int>(n));
  }
  return out;
}

bool Graph::is_graph_output(TensorId id) const {
  for (TensorId o : outputs)
    if (o == id) return true;
  return false;
}

void with_subgraph_as_graph(Graph& g, Subgraph& sub, const std::vector<TensorId>& captured,
                            const std::function<void(Graph&)>& fn) {
  std::vector<TensorId> inputs = sub.inputs;
  inputs.insert(inputs.end(), captured.begin(), captured.end());
  std::swap(g.nodes, sub.nodes);
  std::swap(g.inputs, inputs);
  std::swap(g.outputs, sub.outputs);
  auto restore = [&] {
    std::swap(g.nodes, sub.nodes);
    std::swap(g.inputs, inputs);
    std::swap(g.outputs, sub.outputs);
  };
  try {
    fn(g);
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

void run_everywhere(Graph& g, const std::function<void(Graph&)>& pass) {
  pass(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    // An external function's region belongs to its device's code generator, not to the
    // CPU's passes.
    if (g.nodes[n].subgraphs.empty() || g.nodes[n].op == kExternalOp) continue;
    // Moved out while the pass runs inside: g.nodes is the subgraph's then.
    Node node = std::move(g.nodes[n]);
    std::vector<TensorId> captured(node.inputs.begin() + static_cast<long>(node.declared_inputs()), node.inputs.end());
    try {
      for (Subgraph& sub : node.subgraphs)
        with_subgraph_as_graph(g, sub, captured, [&](Graph& inner) { run_everywhere(inner, pass); });
    } catch (...) {
      g.nodes[n] = std::move(node);
      throw;
    }
    g.nodes[n] = std::move(node);
  }
}

void for_each_node(const std::vector<Node>& nodes, const std::function<void(const Node&)>& fn) {
  for (const Node& n : nodes) {
    fn(n);
    for (const Subgraph& sub : n.subgraphs) for_each_node(sub.nodes, fn);
  }
}

std::vector<TensorId> captured_values(const Graph& g, const Subgraph& sub) {
  std::set<TensorId> defined(sub.inputs.begin(), sub.inputs.end());
  std::vector<TensorId> captured;
  for (const Node& n : sub.nodes) {
    auto read = [&](TensorId id) {
      if (id == kNoTensor || defined.count(id) || g.tensor(id).is_constant()) return;
      if (std::find(captured.begin(), captured.end(), id) == captured.end()) captured.push_back(id);
    };
    for (TensorId in : n.inputs) read(in);  // a nested control node lists what its subgraphs read
    for (const Node& step : n.body)
      for (TensorId in : step.inputs) read(in);
    for (TensorId out : n.outputs) defined.insert(out);
  }
  for (TensorId out : sub.outputs)
    if (out != kNoTensor && !defined.count(out) && !g.tensor(out).is_constant() &&
        std::find(captured.begin(), captured.end(), out) == captured.end())
      captured.push_back(out);  // a branch may return an outer value as it is
  return captured;
}

void declare_captured_inputs(const Graph& g, Node& node) {
  node.attrs[kDeclaredInputsAttr] = static_cast<int64_t>(node.inputs.size());
  for (const Subgraph& sub : node.subgraphs)
    for (TensorId id : captured_values(g, sub))
      if (std::find(node.inputs.begin(), node.inputs.end(), id) == node.inputs.end()) node.inputs.push_back(id);
}

TensorId anchor_output(const Node& node) {
  if (node.body.empty()) return node.outputs.at(0);
  return static_cast<TensorId>(node.attr_int(kAnchorOutputAttr, node.outputs.at(0)));
}

Node unfused_anchor(const Node& node) {
  Node anchor = node;
  anchor.outputs.at(0) = anchor_output(node);
  anchor.body.clear();
  anchor.attrs.erase(kAnchorOutputAttr);
  return anchor;
}

void node_error(const Node& node, const std::string& message) {
  throw CompileError("node " + node.label() + ": " + message);
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace aotc
