#include "aot/import/tflite_ethos_u.h"

#include <algorithm>

#include "aot/graph/external.h"

namespace aotc::tflite_import {

Node ethos_u_node(const std::vector<Tensor>& tensors, const std::vector<bool>& produced,
                  const std::vector<TensorId>& graph_inputs, const std::vector<TensorId>& inputs,
                  const std::vector<TensorId>& outputs, const std::vector<uint8_t>& custom_options, int ordinal,
                  const std::string& label) {
  auto fail = [&](const std::string& problem) -> void { throw CompileError(label + ": " + problem); };
  // TFLite Micro checks that the options (a FlexBuffer) hold the co-processor type 1,
  // Ethos-U; Vela writes that as the three bytes of a FlexBuffer whose root is the
  // integer 1, or leaves the options out.
  const std::vector<uint8_t> kEthosUType = {1, 4, 1};
  if (!custom_options.empty() && custom_options != kEthosUType)
    fail("the options of custom operator 'ethos-u' do not name co-processor type 1 (Ethos-U)");
  if (inputs.empty() || inputs[0] == kNoTensor) fail("custom operator 'ethos-u' has no command stream (input 0)");
  const Tensor& stream = tensors.at(static_cast<size_t>(inputs[0]));
  if (!stream.is_constant() || stream.dtype != DataType::UInt(8))
    fail("the command stream '" + stream.name + "' (input 0 of custom operator 'ethos-u') is not a constant uint8 tensor");
  if (inputs.size() - 1 + outputs.size() > kEthosUMaxBaseAddresses)
    fail("custom operator 'ethos-u' addresses " + std::to_string(inputs.size() - 1 + outputs.size()) +
         " tensors; the Ethos-U kernel takes at most " + std::to_string(kEthosUMaxBaseAddresses));

  Node node;
  node.name = "ethosu" + std::to_string(ordinal);
  node.op = kExternalOp;
  node.attrs[kExternalBackendAttr] = std::string("ethos-u");
  node.inputs = {inputs[0]};
  std::vector<std::string> table;
  for (size_t i = 1; i < inputs.size(); ++i) {
    TensorId id = inputs[i];
    if (id == kNoTensor) fail("custom operator 'ethos-u' has an omitted input " + std::to_string(i));
    const Tensor& t = tensors.at(static_cast<size_t>(id));
    bool from_outside = t.is_constant() || produced.at(static_cast<size_t>(id)) ||
                        std::count(graph_inputs.begin(), graph_inputs.end(), id) > 0;
    if (from_outside) {
      table.push_back("input:" + std::to_string(node.inputs.size()));
      node.inputs.push_back(id);
    } else {  // nothing writes it before: memory the NPU works in (Vela's scratch)
      if (t.size_bytes() <= 0) fail("scratch tensor '" + t.name + "' has no size");
      table.push_back("scratch:" + std::to_string(t.size_bytes()));
    }
  }
  for (size_t k = 0; k < outputs.size(); ++k) table.push_back("output:" + std::to_string(k));
  node.outputs = outputs;
  node.attrs[kEthosUBaseAddressesAttr] = table;
  return node;
}

}  // namespace aotc::tflite_import
