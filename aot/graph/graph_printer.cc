#include "aot/graph/graph_printer.h"

#include <sstream>

namespace aotc {
namespace {

std::string attr_text(const AttrValue& v) {
  std::ostringstream os;
  if (auto* i = std::get_if<int64_t>(&v)) os << *i;
  if (auto* f = std::get_if<double>(&v)) os << *f;
  if (auto* s = std::get_if<std::string>(&v)) os << '"' << *s << '"';
  if (auto* is = std::get_if<std::vector<int64_t>>(&v)) os << shape_str(*is);
  if (auto* fs = std::get_if<std::vector<double>>(&v)) {
    os << "[";
    for (size_t k = 0; k < fs->size(); ++k) os << (k ? ", " : "") << (*fs)[k];
    os << "]";
  }
  return os.str();
}

std::string tensor_ref(const Graph& g, TensorId id) { return id == kNoTensor ? "_" : "%" + g.tensor(id).name; }

std::string typed(const Graph& g, TensorId id) {
  const Tensor& t = g.tensor(id);
  return tensor_ref(g, id) + ": " + t.dtype.str() + (t.shape_known ? shape_str(t.shape) : "[?]");
}

std::string call_text(const Graph& g, const Node& n) {
  std::string s = n.op + "(";
  for (size_t i = 0; i < n.inputs.size(); ++i) s += (i ? ", " : "") + tensor_ref(g, n.inputs[i]);
  s += ")";
  std::string attrs;
  for (auto& [k, v] : n.attrs) {
    if (k.rfind("fused.", 0) == 0) continue;
    attrs += (attrs.empty() ? "" : ", ") + k + "=" + attr_text(v);
  }
  if (!attrs.empty()) s += " {" + attrs + "}";
  return s;
}

}  // namespace

std::string to_string(const Graph& g) {
  std::ostringstream os;
  os << "graph (" << g.source_format;
  if (g.opset) os << ", opset " << g.opset;
  os << ") {\n";
  for (TensorId in : g.inputs) os << "  input " << typed(g, in) << "\n";
  for (const Node& n : g.nodes) {
    os << "  ";
    for (size_t i = 0; i < n.outputs.size(); ++i) os << (i ? ", " : "") << (n.outputs[i] == kNoTensor ? "_" : typed(g, n.outputs[i]));
    os << " = " << call_text(g, n);
    if (!n.name.empty()) os << "  # " << n.name;
    os << "\n";
    for (const Node& step : n.body) os << "    + " << call_text(g, step) << "\n";
  }
  for (TensorId out : g.outputs) os << "  output " << tensor_ref(g, out) << "\n";
  os << "}\n";
  return os.str();
}

}  // namespace aotc
