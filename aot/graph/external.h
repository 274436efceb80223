// External functions: regions of the graph that a device beside the CPU (an NPU) runs.
//
// The compiler sees such a region as a black box, a tensor-to-tensor function implemented
// elsewhere. partition_external (aot/passes) replaces each maximal run of operators the
// target's NPU supports by one node of operator kExternalOp whose one subgraph holds them;
// the node's inputs and outputs are the region's. A model may also arrive with regions
// compiled already (a Vela-compiled TFLite model's `ethos-u` custom operator): the
// importer makes such a node directly, without a subgraph, with the compiled stream
// among its constant inputs.
//
// An external backend, registered by name (codegen/external/), says which nodes it can
// run and compiles a region into an ExternalFunction: artifacts (a command stream, packed
// weights: named bytes the compiled module carries and the C emitter turns into const
// arrays) and how the generated code calls the device for it: which runtime function,
// with which table of memory regions. The driver's compile_external pass stores the
// artifacts in the module's attributes and the call on the node (set_external_call), from
// where the lowering of kExternalOp (lowering/ops/onnx/external.cc) builds the region's kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aot/base/target_facts.h"
#include "aot/graph/graph.h"

namespace aotc {

constexpr const char* kExternalOp = "aotc.external";
// The node's attribute naming the backend that compiles it ("npu-ref", "ethos-u").
constexpr const char* kExternalBackendAttr = "external.backend";
// On a node the NPU could run by its operator but not as it is: why it stays on the CPU.
constexpr const char* kNotOffloadedAttr = "external.not_offloaded";

// Bytes an external code generator made, carried by the compiled module under its name.
struct Artifact {
  std::string name;    // unique in the module: a C identifier, e.g. "npu0_stream"
  std::string format;  // what the bytes are, e.g. "aotc-npu-ref/stream-1.0"
  std::vector<uint8_t> bytes;
};

// One entry of the table of memory regions the device addresses for one call.
struct RegionEntry {
  enum class Kind {
    kArtifact,  // an artifact's bytes (read-only)
    kScratch,   // working memory of `bytes` bytes the device needs for the call only
    kInput,     // the node's input `index` (read-only)
    kOutput,    // the node's output `index`
  };
  Kind kind = Kind::kScratch;
  std::string artifact;  // kArtifact
  int64_t bytes = 0;     // kScratch
  int64_t index = 0;     // kInput, kOutput
};

// A compiled region: what the device runs and how the generated code calls it.
struct ExternalFunction {
  std::string name;     // the node's name: "npu0"
  std::string backend;  // "npu-ref"
  // The runtime function the region's kernel calls: "aotc_npu_invoke" (aotc_npu.h's
  // generic driver interface) or "aotc_ethosu_invoke" (Arm's Ethos-U driver).
  std::string invoke;
  std::string stream;  // the artifact that is the command stream
  std::vector<RegionEntry> table;
  std::vector<Artifact> artifacts;
  // For the report: multiply-accumulates on the device and its estimated cycles (0 when
  // the backend cannot tell, as for a stream compiled by another tool).
  int64_t macs = 0;
  int64_t cycles = 0;
  std::vector<std::string> nodes;  // the model nodes it runs, for the report
};

// A device's code generator.
struct ExternalBackend {
  // The operators it can run, by TFLite's builtin names ("CONV_2D", ...): what a target's
  // [npu] `operators` may list. Empty for a backend that takes regions compiled by another tool.
  std::vector<std::string> operators;
  // Which of those `node` is, "" for none: an ONNX QLinearConv is a CONV_2D or a
  // DEPTHWISE_CONV_2D as much as TFLite's are (the backend asks the kernel strategy's
  // problem of the node, whichever front end made it).
  std::function<std::string(const Graph& g, const Node& node)> operator_of;
  // Whether `node` (one of those operators) can run on the device with these facts: ""
  // if so, else why not.
  std::function<std::string(const Graph& g, const Node& node, const NpuFacts& npu)> unsupported_reason;
  // Compiles a kExternalOp node into an ExternalFunction named node.name. Throws
  // CompileError naming the node for anything it cannot compile.
  std::function<ExternalFunction(const Graph& g, const Node& node, const NpuFacts& npu)> compile;
};

void register_external_backend(const std::string& name, ExternalBackend backend);
// nullptr when no backend of that name is registered.
const ExternalBackend* find_external_backend(const std::string& name);
std::vector<std::string> external_backend_names();

struct ExternalBackendRegistrar {
  ExternalBackendRegistrar(const std::string& name, ExternalBackend backend) {
    register_external_backend(name, std::move(backend));
  }
};

// The call of a compiled function, on its node: everything but the artifacts' bytes
// (their sizes stay), so that the lowering can build the kernel and the report can read
// what runs where. external_call() reads it back; node_error if it is not there.
void set_external_call(Node& node, const ExternalFunction& function);
ExternalFunction external_call(const Node& node);
// One region table entry as set_external_call writes it: "artifact:NAME",
// "scratch:BYTES", "input:I" or "output:I" (an input or output `node` has); node_error
// otherwise.
RegionEntry parse_region_entry(const Node& node, const std::string& text);

// Multiply-accumulates of one node (its fused epilogue adds none): output elements times
// the products each sums, for convolutions, fully connected layers and matrix products
// (ONNX and TFLite); 0 for every other operator. What the report's share of work on the
// NPU (offload.mac_fraction) counts, on both sides.
int64_t multiply_accumulates(const Graph& g, const Node& node);

// The TFLite operator name of a graph operator ("tfl.CONV_2D" -> "CONV_2D"), "" for
// other operators.
std::string tflite_operator_name(const Node& node);

}  // namespace aotc
