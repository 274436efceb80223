#include "aot/graph/external.h"

#include <map>

namespace aotc {
namespace {

std::map<std::string, ExternalBackend>& backends() {
  static std::map<std::string, ExternalBackend> registry;
  return registry;
}

// How set_external_call writes a region table entry: "artifact:NAME", "scratch:BYTES",
// "input:I", "output:I".
std::string entry_text(const RegionEntry& e) {
  switch (e.kind) {
    case RegionEntry::Kind::kArtifact: return "artifact:" + e.artifact;
    case RegionEntry::Kind::kScratch: return "scratch:" + std::to_string(e.bytes);
    case RegionEntry::Kind::kInput: return "input:" + std::to_string(e.index);
    case RegionEntry::Kind::kOutput: return "output:" + std::to_string(e.index);
  }
  return "";
}

}  // namespace

RegionEntry parse_region_entry(const Node& node, const std::string& text) {
  size_t colon = text.find(':');
  std::string kind = text.substr(0, colon), value = colon == std::string::npos ? "" : text.substr(colon + 1);
  RegionEntry e;
  auto number = [&] {
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || value.size() > 15)
      node_error(node, "bad region table entry '" + text + "'");
    return std::stoll(value);
  };
  if (kind == "artifact" && !value.empty()) {
    e.kind = RegionEntry::Kind::kArtifact;
    e.artifact = value;
  } else if (kind == "scratch") {
    e.kind = RegionEntry::Kind::kScratch;
    e.bytes = number();
  } else if (kind == "input" || kind == "output") {
    e.kind = kind == "input" ? RegionEntry::Kind::kInput : RegionEntry::Kind::kOutput;
    e.index = number();
    size_t count = kind == "input" ? node.inputs.size() : node.outputs.size();
    if (e.index >= static_cast<int64_t>(count)) node_error(node, "region table entry '" + text + "' names no " + kind);
  } else {
    node_error(node, "bad region table entry '" + text + "'");
  }
  return e;
}

void register_external_backend(const std::string& name, ExternalBackend backend) { backends()[name] = std::move(backend); }

const ExternalBackend* find_external_backend(const std::string& name) {
  auto it = backends().find(name);
  return it == backends().end() ? nullptr : &it->second;
}

std::vector<std::string> external_backend_names() {
  std::vector<std::string> names;
  for (auto& [name, backend] : backends()) names.push_back(name);
  return names;
}

void set_external_call(Node& node, const ExternalFunction& f) {
  std::vector<std::string> table, names, formats;
  std::vector<int64_t> sizes;
  for (const RegionEntry& e : f.table) table.push_back(entry_text(e));
  for (const Artifact& a : f.artifacts) {
    names.push_back(a.name);
    formats.push_back(a.format);
    sizes.push_back(static_cast<int64_t>(a.bytes.size()));
  }
  node.attrs[kExternalBackendAttr] = f.backend;
  node.attrs["external.invoke"] = f.invoke;
  node.attrs["external.stream"] = f.stream;
  node.attrs["external.table"] = table;
  node.attrs["external.artifacts"] = names;
  node.attrs["external.artifact_formats"] = formats;
  node.attrs["external.artifact_bytes"] = sizes;
  node.attrs["external.macs"] = f.macs;
  node.attrs["external.cycles"] = f.cycles;
  node.attrs["external.nodes"] = f.nodes;
}

ExternalFunction external_call(const Node& node) {
  if (!node.has_attr("external.invoke")) node_error(node, "external function was not compiled");
  ExternalFunction f;
  f.name = node.name;
  f.backend = node.attr_string(kExternalBackendAttr, "");
  f.invoke = node.attr_string("external.invoke", "");
  f.stream = node.attr_string("external.stream", "");
  for (const std::string& text : node.attr_strings("external.table")) f.table.push_back(parse_region_entry(node, text));
  std::vector<std::string> names = node.attr_strings("external.artifacts"), formats = node.attr_strings("external.artifact_formats");
  std::vector<int64_t> sizes = node.attr_ints("external.artifact_bytes");
  if (formats.size() != names.size() || sizes.size() != names.size()) node_error(node, "malformed external function attributes");
  for (size_t i = 0; i < names.size(); ++i) {
    if (sizes[i] < 0) node_error(node, "malformed external function attributes");
    f.artifacts.push_back({names[i], formats[i], std::vector<uint8_t>(static_cast<size_t>(sizes[i]))});
  }
  f.macs = node.attr_int("external.macs", 0);
  f.cycles = node.attr_int("external.cycles", 0);
  f.nodes = node.attr_strings("external.nodes");
  return f;
}

int64_t multiply_accumulates(const Graph& g, const Node& node) {
  auto shape = [&](size_t input) -> const std::vector<int64_t>& { return g.tensor(node.inputs.at(input)).shape; };
  auto elements = [&](const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  };
  if (node.outputs.empty() || node.outputs[0] == kNoTensor || !g.tensor(node.outputs[0]).shape_known) return 0;
  const int64_t out = elements(g.tensor(node.outputs[0]).shape);
  const std::string& op = node.op;
  // Convolutions: each output element sums the filter's elements of one output channel.
  size_t filter = op == "QLinearConv" ? 3 : 1;
  if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv" || op == "tfl.CONV_2D" || op == "tfl.DEPTHWISE_CONV_2D") {
    const std::vector<int64_t>& w = shape(filter);
    int64_t channels = op == "tfl.DEPTHWISE_CONV_2D" ? w.back() : w.front();
    return channels > 0 ? out * (elements(w) / channels) : 0;
  }
  if (op == "tfl.FULLY_CONNECTED") return out * shape(1).back();
  if (op == "Gemm") return out * (node.attr_int("transA", 0) ? shape(0).front() : shape(0).back());
  if (op == "MatMul" || op == "MatMulInteger" || op == "tfl.BATCH_MATMUL")
    return shape(0).empty() ? 0 : out * (op == "tfl.BATCH_MATMUL" && node.attr_int("adj_x", 0) ? shape(0)[shape(0).size() - 2] : shape(0).back());
  return 0;
}

std::string tflite_operator_name(const Node& node) {
  const std::string prefix = "tfl.";
  return node.op.compare(0, prefix.size(), prefix) == 0 ? node.op.substr(prefix.size()) : "";
}

}  // namespace aotc
