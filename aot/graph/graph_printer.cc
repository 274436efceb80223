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
    if (k.rfind("fused.", 0) == 0 || k.rfind("control.", 0) == 0) continue;
    attrs += (attrs.empty() ? "" : ", ") + k + "=" + attr_text(v);
  }
  if (!attrs.empty()) s += " {" + attrs + "}";
  return s;
}

// The nodes of a graph or subgraph, each line indented by `indent`; a control-flow node's
// subgraphs follow it, indented further.
void print_nodes(std::ostream& os, const Graph& g, const std::vector<Node>& nodes, const std::string& indent) {
  for (const Node& n : nodes) {
    os << indent;
    for (size_t i = 0; i < n.outputs.size(); ++i) os << (i ? ", " : "") << (n.outputs[i] == kNoTensor ? "_" : typed(g, n.outputs[i]));
    os << " = " << call_text(g, n);
    if (!n.name.empty()) os << "  # " << n.name;
    os << "\n";
    for (const Node& step : n.body) os << indent << "  + " << call_text(g, step) << "\n";
    for (const Subgraph& sub : n.subgraphs) {
      os << indent << "  " << sub.name << "(";
      for (size_t i = 0; i < sub.inputs.size(); ++i) os << (i ? ", " : "") << typed(g, sub.inputs[i]);
      os << ") {\n";
      print_nodes(os, g, sub.nodes, indent + "    ");
      os << indent << "    return";
      for (size_t i = 0; i < sub.outputs.size(); ++i) os << (i ? ", " : " ") << tensor_ref(g, sub.outputs[i]);
      os << "\n" << indent << "  }\n";
    }
  }
}

}  // namespace

std::string to_string(const Graph& g) {
  std::ostringstream os;
  os << "graph (" << g.source_format;
  if (g.opset) os << ", opset " << g.opset;
  os << ") {\n";
  for (TensorId in : g.inputs) os << "  input " << typed(g, in) << "\n";
  print_nodes(os, g, g.nodes, "  ");
  for (TensorId out : g.outputs) os << "  output " << tensor_ref(g, out) << "\n";
  os << "}\n";
  return os.str();
}

}  // namespace aotc
