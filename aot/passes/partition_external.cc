// partition_external: cuts the graph into regions the target's NPU runs and the rest,
// which stays on the CPU.
//
// A node goes to the NPU when the target's [npu] table lists its operator (as the backend
// names it: an ONNX QLinearConv is a CONV_2D) and the backend says it can run it (types, quantization, window sizes within the table's limits). Each
// maximal run of such nodes, in the graph's execution order, becomes one kExternalOp node
// (aot/graph/external.h) holding the run as its subgraph: the device runs a whole run
// from one command stream, and the region's intermediate tensors never leave its scratch
// memory. Regions are cut in execution order, so every value a region reads from outside
// is computed before it and every value it gives is used after it: the regions and the
// CPU's kernels keep the graph's order.
//
// Views (RESHAPE) cost nothing on the device, but a region's inputs and outputs must be
// tensors of their own: a view joins a region only when the node that makes its input is
// in the region and everything that reads it is too. A run of views alone stays on the
// CPU. Control flow stays on the CPU (its subgraphs are not partitioned).
#include <algorithm>
#include <set>

#include "aot/graph/external.h"
#include "aot/graph/op_registry.h"
#include "aot/passes/graph_passes.h"

namespace aotc {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& item : items) s += (s.empty() ? "" : ", ") + item;
  return s;
}

// The backend of the target's NPU, with the target's operator list checked against it.
const ExternalBackend& npu_backend(const TargetFacts& target) {
  const NpuFacts& npu = *target.npu;
  const ExternalBackend* backend = find_external_backend(npu.backend);
  if (!backend)
    throw CompileError("target '" + target.name + "': unknown NPU backend '" + npu.backend + "' (known: " +
                       join(external_backend_names()) + ")");
  for (const std::string& op : npu.operators)
    if (std::find(backend->operators.begin(), backend->operators.end(), op) == backend->operators.end())
      throw CompileError("target '" + target.name + "': the NPU backend '" + npu.backend + "' cannot run operator '" + op +
                         "' (it runs: " + join(backend->operators) + ")");
  return *backend;
}

bool is_view(const Node& node) {
  const OpDef* def = find_op(node.op);
  return def && def->is_view;
}

class Partitioner {
 public:
  Partitioner(Graph& g, const NpuFacts& npu, const ExternalBackend& backend) : g_(g), npu_(npu), backend_(backend) {}

  void run() {
    std::vector<bool> on_npu(g_.nodes.size());
    for (size_t i = 0; i < g_.nodes.size(); ++i) on_npu[i] = supported(g_.nodes[i]);
    drop_boundary_views(on_npu);
    std::vector<Node> nodes;
    for (size_t i = 0; i < g_.nodes.size();) {
      if (!on_npu[i]) {
        nodes.push_back(std::move(g_.nodes[i++]));
        continue;
      }
      size_t end = i;
      while (end < g_.nodes.size() && on_npu[end]) ++end;
      nodes.push_back(region(i, end));
      i = end;
    }
    g_.nodes = std::move(nodes);
  }

 private:
  // Whether `node` goes to the NPU; if its operator is one the NPU runs but this node
  // cannot (a type, a window size), the reason goes into its kNotOffloadedAttr.
  bool supported(Node& node) const {
    std::string op = backend_.operator_of(g_, node);
    if (op.empty() || std::find(npu_.operators.begin(), npu_.operators.end(), op) == npu_.operators.end()) return false;
    std::string reason = backend_.unsupported_reason(g_, node, npu_);
    if (!reason.empty()) node.attrs[kNotOffloadedAttr] = reason;
    return reason.empty();
  }

  // Clears on_npu for views whose input is made outside their run or whose output is read
  // outside it (or is a graph output), until no such view is left; then for runs of views
  // alone.
  void drop_boundary_views(std::vector<bool>& on_npu) const {
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<int> run = run_ids(on_npu);
      for (size_t i = 0; i < g_.nodes.size(); ++i) {
        if (!on_npu[i] || !is_view(g_.nodes[i])) continue;
        const Node& view = g_.nodes[i];
        int producer = producer_of(view.inputs.at(0));
        bool inside = producer >= 0 && run[static_cast<size_t>(producer)] == run[i];
        for (int reader : g_.consumers(view.outputs.at(0))) inside = inside && run[static_cast<size_t>(reader)] == run[i];
        if (g_.is_graph_output(view.outputs.at(0))) inside = false;
        if (!inside) on_npu[i] = false, changed = true;
      }
    }
    std::vector<int> run = run_ids(on_npu);
    std::set<int> with_work;
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (on_npu[i] && !is_view(g_.nodes[i])) with_work.insert(run[i]);
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (on_npu[i] && !with_work.count(run[i])) on_npu[i] = false;
  }

  // For each node, the index of its run of consecutive on_npu nodes (-1 if off).
  static std::vector<int> run_ids(const std::vector<bool>& on_npu) {
    std::vector<int> ids(on_npu.size(), -1);
    int current = -1;
    for (size_t i = 0; i < on_npu.size(); ++i) {
      if (on_npu[i] && (i == 0 || !on_npu[i - 1])) ++current;
      if (on_npu[i]) ids[i] = current;
    }
    return ids;
  }

  int producer_of(TensorId id) const {
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      if (std::count(g_.nodes[i].outputs.begin(), g_.nodes[i].outputs.end(), id)) return static_cast<int>(i);
    return -1;
  }

  // The nodes [begin, end) as one kExternalOp node. Its outputs are the values the run
  // makes that a node after it reads or that are graph outputs, in the order made.
  Node region(size_t begin, size_t end) {
    Node node;
    node.name = "npu" + std::to_string(regions_++);
    node.op = kExternalOp;
    node.attrs[kExternalBackendAttr] = npu_.backend;
    Subgraph sub;
    sub.name = "region";
    std::set<TensorId> read_after;
    for (size_t i = end; i < g_.nodes.size(); ++i) {
      for (TensorId in : g_.nodes[i].inputs) read_after.insert(in);
      for (const Node& step : g_.nodes[i].body) read_after.insert(step.inputs.begin(), step.inputs.end());
    }
    for (size_t i = begin; i < end; ++i) {
      for (TensorId out : g_.nodes[i].outputs)
        if (out != kNoTensor && (read_after.count(out) || g_.is_graph_output(out))) node.outputs.push_back(out);
      sub.nodes.push_back(std::move(g_.nodes[i]));
    }
    sub.outputs = node.outputs;
    node.subgraphs.push_back(std::move(sub));
    declare_captured_inputs(g_, node);  // the region's inputs: values from outside it reads
    return node;
  }

  Graph& g_;
  const NpuFacts& npu_;
  const ExternalBackend& backend_;
  int regions_ = 0;
};

}  // namespace

void partition_external(Graph& g, const TargetFacts& target) {
  if (!target.npu) return;
  const ExternalBackend& backend = npu_backend(target);
  if (backend.operators.empty()) return;  // its regions come compiled (ethos-u)
  Partitioner(g, *target.npu, backend).run();
}

}  // namespace aotc
