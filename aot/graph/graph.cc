#include "aot/graph/graph.h"

#include <algorithm>
#include <cstring>

namespace aotc {

int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Tensor::num_elements() const { return aotc::num_elements(shape); }

template <typename T>
static T read_as(const std::vector<uint8_t>& bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

double Tensor::element_as_double(int64_t i) const {
  const auto& b = *data;
  switch (dtype.kind) {
    case DataType::Kind::kFloat: return dtype.bits == 64 ? read_as<double>(b, i) : read_as<float>(b, i);
    case DataType::Kind::kBool: return b[static_cast<size_t>(i)] ? 1.0 : 0.0;
    default: return static_cast<double>(element_as_int(i));
  }
}

int64_t Tensor::element_as_int(int64_t i) const {
  const auto& b = *data;
  switch (dtype.kind) {
    case DataType::Kind::kFloat: return static_cast<int64_t>(element_as_double(i));
    case DataType::Kind::kBool: return b[static_cast<size_t>(i)] ? 1 : 0;
    case DataType::Kind::kInt:
      switch (dtype.bits) {
        case 8: return read_as<int8_t>(b, i);
        case 16: return read_as<int16_t>(b, i);
        case 32: return read_as<int32_t>(b, i);
        default: return read_as<int64_t>(b, i);
      }
    case DataType::Kind::kUInt:
      switch (dtype.bits) {
        case 8: return read_as<uint8_t>(b, i);
        case 16: return read_as<uint16_t>(b, i);
        case 32: return read_as<uint32_t>(b, i);
        default: return static_cast<int64_t>(read_as<uint64_t>(b, i));
      }
  }
  return 0;
}

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

int64_t Node::attr_int(const std::string& key, int64_t fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
  if (auto* v = std::get_if<double>(&it->second)) return static_cast<int64_t>(*v);
  node_error(*this, "attribute '" + key + "' should be an integer");
}

double Node::attr_float(const std::string& key, double fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<double>(&it->second)) return *v;
  if (auto* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  node_error(*this, "attribute '" + key + "' should be a float");
}

std::string Node::attr_string(const std::string& key, const std::string& fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::string>(&it->second)) return *v;
  node_error(*this, "attribute '" + key + "' should be a string");
}

std::vector<int64_t> Node::attr_ints(const std::string& key, std::vector<int64_t> fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  if (auto* v = std::get_if<int64_t>(&it->second)) return {*v};
  node_error(*this, "attribute '" + key + "' should be a list of integers");
}

std::vector<double> Node::attr_floats(const std::string& key, std::vector<double> fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::vector<double>>(&it->second)) return *v;
  if (auto* v = std::get_if<double>(&it->second)) return {*v};
  node_error(*this, "attribute '" + key + "' should be a list of floats");
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

TensorId anchor_output(const Node& node) {
  if (node.body.empty()) return node.outputs.at(0);
  return static_cast<TensorId>(node.attr_int(kAnchorOutputAttr, node.outputs.at(0)));
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
