// The external backend "ethos-u": Arm's Ethos-U NPU running what Vela compiled.
//
// Vela has done the compiling: a TFLite model's ethos-u operators hold the command streams
// (aot/import/tflite_ethos_u.h). This backend takes the stream and the constant tensors of
// the base-address table (the weights Vela packed) as artifacts, keeps the table's order,
// and has the generated code call aotc_ethosu_invoke (runtime-c/npu/aotc_ethosu.c), which hands
// them to the Ethos-U core driver's ethosu_invoke_v3 as TensorFlow Lite Micro does. It
// partitions nothing (no operators of its own) and cannot count MACs or cycles.
#include "aot/graph/external.h"
#include "aot/import/tflite_ethos_u.h"
#include "lowering/ir/builtins.h"

namespace aotc {
namespace {

ExternalFunction compile_ethos_u(const Graph& g, const Node& node, const NpuFacts&) {
  ExternalFunction f;
  f.name = node.name;
  f.backend = "ethos-u";
  f.invoke = ir::builtin::kEthosuInvoke;
  f.stream = node.name + "_stream";
  const Tensor& stream = g.tensor(node.inputs.at(0));
  if (!stream.is_constant()) node_error(node, "the command stream is not a constant");
  f.artifacts.push_back({f.stream, "ethos-u/command-stream", *stream.data});
  int weights = 0;
  for (const std::string& text : node.attr_strings(tflite_import::kEthosUBaseAddressesAttr)) {
    RegionEntry e = parse_region_entry(node, text);
    const Tensor* t = e.kind == RegionEntry::Kind::kInput ? &g.tensor(node.inputs.at(static_cast<size_t>(e.index))) : nullptr;
    if (t && t->is_constant()) {  // the weights Vela packed: flash
      std::string name = node.name + "_weights" + (weights ? std::to_string(weights) : "");
      ++weights;
      f.artifacts.push_back({name, "ethos-u/weights", *t->data});
      e = {RegionEntry::Kind::kArtifact, name, 0, 0};
    }
    f.table.push_back(e);
  }
  f.nodes = {node.label()};
  return f;
}

ExternalBackend backend() {
  ExternalBackend b;
  b.unsupported_reason = [](const Graph&, const Node&, const NpuFacts&) { return std::string("Vela partitions for the Ethos-U"); };
  b.compile = compile_ethos_u;
  return b;
}

const ExternalBackendRegistrar registrar("ethos-u", backend());

}  // namespace
}  // namespace aotc
