#include "aot/metadata.h"

#include <nlohmann/json.hpp>
#include <set>

#include "aot/executor_codegen.h"

namespace aotc {

namespace {

nlohmann::json tensor_json(const Tensor& t, const std::string& member) {
  return {{"name", t.name}, {"c_name", member}, {"dtype", t.dtype.str()}, {"shape", t.shape}, {"bytes", t.size_bytes()}};
}

}  // namespace

std::string metadata_json(const CompiledModel& m, const std::string& model_file_name) {
  const Graph& g = m.graph;
  nlohmann::json j;
  j["aotc_version"] = AOTC_VERSION;
  j["model"] = model_file_name;
  j["name"] = m.name;
  j["target"] = m.target.name;
  auto in_names = input_member_names(m), out_names = output_member_names(m);
  j["inputs"] = nlohmann::json::array();
  for (size_t i = 0; i < g.inputs.size(); ++i) j["inputs"].push_back(tensor_json(g.tensor(g.inputs[i]), in_names[i]));
  j["outputs"] = nlohmann::json::array();
  for (size_t i = 0; i < g.outputs.size(); ++i) j["outputs"].push_back(tensor_json(g.tensor(g.outputs[i]), out_names[i]));

  j["memory"] = {{"workspace_bytes", m.arena.total_bytes},
                 {"activation_bytes", m.arena.total_bytes},
                 {"largest_kernel_scratch_bytes", m.scratch_bytes},
                 {"lower_bound_bytes", m.arena.lower_bound},
                 {"constant_bytes", constant_bytes(m)},
                 {"max_stack_bytes", m.max_stack_bytes},
                 {"plan_strategy", m.arena.strategy}};

  std::set<std::string> ops;
  for (const Node& n : g.nodes) {
    ops.insert(n.op);
    for (const Node& s : n.body) ops.insert(s.op);
  }
  j["operators"] = ops;

  j["kernels"] = nlohmann::json::array();
  for (auto& k : m.kernels) {
    nlohmann::json kj = {{"function", m.name + "_" + k.c_name},
                         {"node", k.func.attrs.at("source_node")},
                         {"stack_bytes", k.memory.stack_bytes},
                         {"scratch_bytes", k.memory.workspace_bytes}};
    if (k.func.attrs.count("fused")) kj["fused"] = k.func.attrs.at("fused");
    j["kernels"].push_back(kj);
  }

  // The plan: each arena tensor with its offset and the steps it is live.
  j["activations"] = nlohmann::json::array();
  std::set<TensorId> listed;
  for (size_t step = 0; step < m.kernels.size(); ++step) {
    for (TensorId id : m.kernels[step].args) {
      const Storage& s = m.storage.at(id);
      if (s.kind != Storage::Kind::kArena || !listed.insert(s.tensor).second) continue;
      int last = static_cast<int>(step);
      for (size_t later = step; later < m.kernels.size(); ++later)
        for (TensorId a : m.kernels[later].args)
          if (m.storage.at(a).kind == Storage::Kind::kArena && m.storage.at(a).tensor == s.tensor) last = static_cast<int>(later);
      j["activations"].push_back({{"tensor", g.tensor(s.tensor).name},
                                  {"offset", s.offset},
                                  {"bytes", g.tensor(s.tensor).size_bytes()},
                                  {"first_step", step},
                                  {"last_step", last}});
    }
  }
  return j.dump(2) + "\n";
}

}  // namespace aotc
