#include "aot/executor/metadata.h"

#include <nlohmann/json.hpp>
#include <functional>
#include <set>

#include "aot/executor/executor_codegen.h"
#include "aot/executor/memory_report.h"
#include "aot/executor/model_analysis.h"
#include "aot/executor/offload.h"

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
  // What the code was generated for, so that a build system can check it compiles the
  // code for the same machine (the flags are also in <name>.cflags).
  j["target_triple"] = m.target.triple;
  j["target_features"] = feature_names(m.target);
  j["target_cflags"] = m.target.cflags;
  auto in_names = input_member_names(m), out_names = output_member_names(m);
  j["inputs"] = nlohmann::json::array();
  for (size_t i = 0; i < g.inputs.size(); ++i) j["inputs"].push_back(tensor_json(g.tensor(g.inputs[i]), in_names[i]));
  j["outputs"] = nlohmann::json::array();
  for (size_t i = 0; i < g.outputs.size(); ++i) j["outputs"].push_back(tensor_json(g.tensor(g.outputs[i]), out_names[i]));

  // RAM the model needs: the arena, the state, and the inputs and outputs unless they are
  // planned in the arena (--io-in-arena). Stack use is apart (max_stack_bytes).
  int64_t io_bytes = 0;
  for (TensorId id : g.inputs) io_bytes += g.tensor(id).size_bytes();
  for (TensorId id : g.outputs) io_bytes += g.tensor(id).size_bytes();
  j["memory"] = {{"ram_bytes", m.arena.total_bytes + state_bytes(m) + (m.io_in_arena ? 0 : io_bytes)},
                 {"io_bytes", io_bytes},
                 {"io_in_arena", m.io_in_arena},
                 {"workspace_bytes", m.arena.total_bytes},
                 {"activation_bytes", m.arena.total_bytes},
                 {"largest_kernel_scratch_bytes", m.scratch_bytes},
                 {"lower_bound_bytes", m.arena.lower_bound},
                 {"constant_bytes", constant_bytes(m)},
                 {"state_bytes", state_bytes(m)},
                 {"max_stack_bytes", m.max_stack_bytes},
                 {"plan_strategy", m.arena.strategy}};

  // The weights by C symbol, with the model's names for them.
  j["constants"] = nlohmann::json::array();
  for (auto& [id, symbol] : constant_symbols(m))
    j["constants"].push_back({{"name", g.tensor(id).name}, {"c_name", symbol}, {"bytes", g.tensor(id).size_bytes()}});

  j["pools"] = nlohmann::json::array();
  for (size_t i = 0; i < m.pools.size(); ++i)
    j["pools"].push_back({{"name", m.pools[i].name},
                          {"capacity_bytes", m.pools[i].size_bytes},
                          {"used_bytes", i < m.arena.pool_bytes.size() ? m.arena.pool_bytes[i] : 0},
                          {"runtime_provided", m.pools[i].runtime_provided},
                          {"section", m.pools[i].section}});

  std::set<std::string> ops;
  for_each_node(g.nodes, [&](const Node& n) {
    ops.insert(n.op);
    for (const Node& s : n.body) ops.insert(s.op);
  });
  j["operators"] = ops;

  // Every step of <name>_run in order (the plan's first_step and last_step count these):
  // kernel calls, copies, and the control flow around them.
  j["steps"] = nlohmann::json::array();
  for (size_t i = 0; i < m.steps.size(); ++i) {
    const Step& k = m.steps[i];
    nlohmann::json sj = {{"step", i}, {"kind", step_kind_name(k.kind)}, {"node", k.label}};
    if (k.is_call()) sj["function"] = m.name + "_" + k.c_name;
    if (k.is_call()) sj["device"] = k.on_device ? m.target.npu->backend : "cpu";
    if (k.kind == Step::Kind::kCopy) sj["bytes"] = k.copy.bytes * k.copy.blocks;
    if (k.kind == Step::Kind::kLoop) {
      sj["max_trips"] = k.max_trips;
      sj["trips_known"] = k.trip_count == kNoTensor && k.condition == kNoTensor;
    }
    j["steps"].push_back(sj);
  }

  j["kernels"] = nlohmann::json::array();
  for (auto& k : m.steps) {
    if (!k.is_call()) continue;
    nlohmann::json kj = {{"function", m.name + "_" + k.c_name},
                         {"node", k.func.attrs.at("source_node")},
                         {"stack_bytes", k.memory.stack_bytes},
                         {"scratch_bytes", k.memory.workspace_bytes},
                         {"device", k.on_device ? m.target.npu->backend : "cpu"}};
    if (k.memory.workspace_bytes > 0) kj["scratch_pool"] = m.pools[static_cast<size_t>(k.scratch_pool)].name;
    if (k.func.attrs.count("fused")) kj["fused"] = k.func.attrs.at("fused");
    // Multiply-accumulates and shape of the kernels that say (convolutions, fully connected).
    if (k.func.attrs.count("macs")) kj["macs"] = std::stoll(k.func.attrs.at("macs"));
    if (k.func.attrs.count("geometry")) kj["geometry"] = k.func.attrs.at("geometry");
    if (k.func.attrs.count("kernel")) kj["kernel"] = k.func.attrs.at("kernel");
    kj["output_elements"] = output_elements(m, k);
    j["kernels"].push_back(kj);
  }

  // What runs where, with a target that has an NPU.
  OffloadSummary offload = offload_summary(m);
  if (!offload.backend.empty()) {
    nlohmann::json o = {{"backend", offload.backend},
                        {"mac_fraction", offload.mac_fraction()},
                        {"npu_macs", offload.npu_macs},
                        {"cpu_macs", offload.cpu_macs},
                        {"estimated_npu_cycles", offload.estimated_cycles}};
    o["functions"] = nlohmann::json::array();
    for (const OffloadedFunction& f : offload.functions) {
      nlohmann::json fj = {{"name", f.name},         {"function", f.c_function},       {"nodes", f.nodes},
                           {"macs", f.macs},         {"estimated_cycles", f.estimated_cycles},
                           {"scratch_bytes", f.scratch_bytes}};
      fj["artifacts"] = nlohmann::json::array();
      for (const Artifact* a : f.artifacts)
        fj["artifacts"].push_back({{"name", a->name}, {"c_name", m.name + "_" + a->name}, {"format", a->format}, {"bytes", a->bytes.size()}});
      o["functions"].push_back(fj);
    }
    o["cpu_nodes"] = nlohmann::json::array();
    for (const CpuNode& c : offload.cpu_nodes) {
      nlohmann::json cj = {{"node", c.node}};
      if (!c.reason.empty()) cj["not_offloaded_because"] = c.reason;
      o["cpu_nodes"].push_back(cj);
    }
    j["offload"] = o;
  }

  // The plan: each arena tensor with its pool, offset and the steps it is live.
  j["activations"] = nlohmann::json::array();
  // An output placed over part of its kernel's input names it ("overlaps", "overlap_bytes").
  for (const PlannedTensor& t : planned_tensors(m)) {
    nlohmann::json a = {{"tensor", t.name},
                        {"pool", m.pools[static_cast<size_t>(t.pool)].name},
                        {"offset", t.offset},
                        {"bytes", t.bytes},
                        {"first_step", t.first_step},
                        {"last_step", t.last_step}};
    if (t.overlap_bytes > 0) a["overlaps"] = t.overlaps, a["overlap_bytes"] = t.overlap_bytes;
    j["activations"].push_back(a);
  }
  // Names come from the model: bytes that are not UTF-8 become U+FFFD instead of an error.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace aotc
