// TFLite's custom operator "ethos-u": a part of the model that Arm's Vela compiler has
// already compiled for an Ethos-U NPU.
//
// Vela replaces what the NPU runs by one such operator. Its input 0 is the command
// stream (a constant uint8 tensor); every other input, then every output, is one entry of
// the base-address table the stream addresses: the weights Vela packed ("flash", a
// constant), its scratch memory ("scratch", "scratch_fast": tensors nothing writes before,
// which the runtime provides), and the tensors it reads and writes. TensorFlow Lite Micro
// hands the stream and the table to the Ethos-U driver's ethosu_invoke_v3; aotc does the
// same from generated code (external backend "ethos-u", codegen/external/ethos_u.cc). The
// importer makes the operator an external function node (aot/graph/external.h) whose
// inputs are the stream and the tensors of the table, with the table's order in
// kEthosUBaseAddressesAttr ("input:K" for the node's input K, "scratch:BYTES" for a
// scratch tensor, "output:K"); scratch becomes the kernel's own, planned memory.
#pragma once

#include <string>
#include <vector>

#include "aot/graph/graph.h"

namespace aotc::tflite_import {

constexpr const char* kEthosUCustomCode = "ethos-u";
constexpr const char* kEthosUBaseAddressesAttr = "ethos_u.base_addresses";
// Base addresses TFLite Micro's ethos-u kernel passes at most.
constexpr size_t kEthosUMaxBaseAddresses = 8;

// The node of the `ordinal`-th ethos-u operator of a subgraph. `tensors` is the
// subgraph's tensor table, `produced` whether an earlier operator writes each tensor,
// `graph_inputs` the subgraph's inputs; `inputs` and `outputs` are the operator's, and
// `custom_options` its options (may be empty). Throws CompileError naming `label`.
Node ethos_u_node(const std::vector<Tensor>& tensors, const std::vector<bool>& produced,
                  const std::vector<TensorId>& graph_inputs, const std::vector<TensorId>& inputs,
                  const std::vector<TensorId>& outputs, const std::vector<uint8_t>& custom_options, int ordinal,
                  const std::string& label);

}  // namespace aotc::tflite_import
