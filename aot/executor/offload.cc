#include "aot/executor/offload.h"

#include <functional>

namespace aotc {

OffloadSummary offload_summary(const CompiledModel& m) {
  OffloadSummary s;
  if (!m.target.npu) return s;
  s.backend = m.target.npu->backend;
  const std::vector<Artifact>* artifacts = nullptr;
  if (auto it = m.attrs.find(kExternalArtifactsAttr); it != m.attrs.end()) artifacts = &it->second;
  std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& nodes) {
    for (const Node& node : nodes) {
      if (node.op == kExternalOp) {
        ExternalFunction f = external_call(node);
        OffloadedFunction o;
        o.name = f.name;
        o.nodes = f.nodes;
        o.macs = f.macs;
        o.estimated_cycles = f.cycles;
        for (const RegionEntry& e : f.table)
          if (e.kind == RegionEntry::Kind::kScratch) o.scratch_bytes += e.bytes;
        for (const Artifact& sized : f.artifacts)
          for (size_t i = 0; artifacts && i < artifacts->size(); ++i)
            if ((*artifacts)[i].name == sized.name) o.artifacts.push_back(&(*artifacts)[i]);
        for (const Step& k : m.steps)
          if (k.on_device && k.label == node.label()) o.c_function = m.name + "_" + k.c_name;
        s.npu_macs += o.macs;
        s.estimated_cycles += o.estimated_cycles;
        s.functions.push_back(std::move(o));
        continue;
      }
      s.cpu_macs += multiply_accumulates(m.graph, node);
      s.cpu_nodes.push_back({node.label(), node.attr_string(kNotOffloadedAttr, "")});
      for (const Subgraph& sub : node.subgraphs) walk(sub.nodes);
    }
  };
  walk(m.graph.nodes);
  return s;
}

}  // namespace aotc
