#include "aot/executor/model_analysis.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "aot/base/text.h"
#include "aot/executor/executor_codegen.h"
#include "aot/executor/memory_report.h"
#include "aot/executor/offload.h"

namespace aotc {
namespace {

std::string attr_or_empty(const ir::PrimFunc& f, const char* key) {
  auto it = f.attrs.find(key);
  return it == f.attrs.end() ? "" : it->second;
}

// The constant tensors a step is given, each once.
int64_t constant_tensor_bytes(const CompiledModel& m, const Step& step) {
  std::set<TensorId> seen;
  int64_t bytes = 0;
  for (TensorId arg : step.args) {
    const Storage& s = m.storage.at(arg);
    if (s.kind == Storage::Kind::kConstant && seen.insert(s.tensor).second) bytes += m.graph.tensor(s.tensor).size_bytes();
  }
  return bytes;
}

// The cost of one call with the target's [cycles] table; nullopt without one.
std::optional<double> estimated_cycles(const Target& target, const LayerAnalysis& layer) {
  if (target.kernel_costs.empty()) return std::nullopt;
  auto it = target.kernel_costs.find(layer.kernel);
  if (it == target.kernel_costs.end()) it = target.kernel_costs.find("default");
  if (it == target.kernel_costs.end()) return std::nullopt;
  const KernelCost& c = it->second;
  return c.per_mac * static_cast<double>(layer.macs) + c.per_output * static_cast<double>(layer.output_elements) +
         c.per_call;
}

std::string millions(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f M", v / 1e6);
  return text;
}

// The cycles of the steps from `i` to the end of their block (an else, end_if or end_loop,
// where it leaves `i`): kernel calls add their estimate, an If its larger branch, a Loop its
// body times its most trips: the worst case, as a firmware's timing budget needs it.
class WorstCaseCycles {
 public:
  WorstCaseCycles(const CompiledModel& m, const std::map<int, double>& by_step) : m_(m), by_step_(by_step) {}

  double block(size_t& i) const {
    double total = 0;
    while (i < m_.steps.size()) {
      const Step& s = m_.steps[i];
      if (s.kind == Step::Kind::kElse || s.kind == Step::Kind::kEndIf || s.kind == Step::Kind::kEndLoop) return total;
      if (s.kind == Step::Kind::kIf) {
        double then_cycles = block(++i), else_cycles = 0;
        if (i < m_.steps.size() && m_.steps[i].kind == Step::Kind::kElse) else_cycles = block(++i);
        ++i;  // end_if
        total += std::max(then_cycles, else_cycles);
        continue;
      }
      if (s.kind == Step::Kind::kLoop) {
        const double trips = static_cast<double>(std::max<int64_t>(1, s.max_trips));
        total += trips * block(++i);
        ++i;  // end_loop
        continue;
      }
      if (auto it = by_step_.find(static_cast<int>(i)); it != by_step_.end()) total += it->second;
      ++i;
    }
    return total;
  }

 private:
  const CompiledModel& m_;
  const std::map<int, double>& by_step_;
};

}  // namespace

int64_t output_elements(const CompiledModel& m, const Step& step) {
  int64_t n = 0;
  for (TensorId id : step.outputs)
    if (id != kNoTensor) n += m.graph.tensor(id).num_elements();
  return n;
}

ModelAnalysis analyze_model(const CompiledModel& m, const std::string& model_file_name) {
  ModelAnalysis a;
  a.model = model_file_name;
  a.target = m.target.name;
  a.cycles_source = m.target.cycles_source;
  std::vector<PlannedTensor> planned = planned_tensors(m);
  OffloadSummary offload = offload_summary(m);
  std::map<int, double> by_step;  // estimated cycles of each kernel step
  int64_t peak = -1;
  for (size_t i = 0; i < m.steps.size(); ++i) {
    const Step& step = m.steps[i];
    if (!step.is_call()) continue;
    LayerAnalysis l;
    l.step = static_cast<int>(i);
    l.function = m.name + "_" + step.c_name;
    l.node = step.label;
    l.kernel = attr_or_empty(step.func, "kernel");
    l.geometry = attr_or_empty(step.func, "geometry");
    l.device = step.on_device ? m.target.npu->backend : "cpu";
    std::string macs = attr_or_empty(step.func, "macs");
    l.macs = macs.empty() ? 0 : std::stoll(macs);
    l.output_elements = output_elements(m, step);
    const int64_t tables = kernel_table_bytes(step.func);  // what the kernel holds itself
    l.constant_bytes = constant_tensor_bytes(m, step) + tables;
    a.table_bytes += tables;
    // The bytes the plan holds at this step: an output placed over part of its kernel's
    // input shares those bytes with it at the step that writes it (and only then: the
    // input dies there).
    l.live_bytes = step.memory.workspace_bytes;
    for (const PlannedTensor& t : planned) {
      if (t.first_step <= l.step && l.step <= t.last_step) l.live_bytes += t.bytes;
      if (t.first_step == l.step) l.live_bytes -= t.overlap_bytes;
    }
    if (step.on_device) {
      // The device's figures (metadata.json's offload): its MACs and its own cycle estimate
      // from the [npu] table's rates; the CPU waits for it.
      for (const OffloadedFunction& f : offload.functions) {
        if (f.c_function != l.function) continue;
        l.macs = f.macs;
        l.cycles = static_cast<double>(f.estimated_cycles);
        for (const Artifact* artifact : f.artifacts) {
          l.constant_bytes += static_cast<int64_t>(artifact->bytes.size());
          a.artifact_bytes += static_cast<int64_t>(artifact->bytes.size());
        }
      }
    } else {
      l.cycles = estimated_cycles(m.target, l);
    }
    if (l.live_bytes > peak) peak = l.live_bytes, a.peak_step = l.step;
    a.macs += l.macs;
    if (l.cycles) by_step[l.step] = *l.cycles;
    a.layers.push_back(std::move(l));
  }
  for (const Step& step : m.steps) a.control_flow = a.control_flow || (!step.is_call() && step.kind != Step::Kind::kCopy);
  if (!by_step.empty()) {
    size_t first = 0;
    a.cycles = WorstCaseCycles(m, by_step).block(first);
  }
  for (TensorId id : m.graph.inputs) a.io_bytes += m.graph.tensor(id).size_bytes();
  for (TensorId id : m.graph.outputs) a.io_bytes += m.graph.tensor(id).size_bytes();
  if (m.io_in_arena) a.io_bytes = 0;
  a.activation_bytes = m.arena.total_bytes;
  a.state_bytes = state_bytes(m);
  a.ram_bytes = a.activation_bytes + a.io_bytes + a.state_bytes;
  a.constant_bytes = constant_bytes(m);
  return a;
}

std::string analysis_table(const ModelAnalysis& a) {
  std::ostringstream os;
  os << "model " << display_text(a.model) << " for target " << a.target << "\n";
  os << "  MACs          " << with_commas(a.macs) << "\n";
  os << "  RAM           " << with_commas(a.ram_bytes) << " B: activations " << with_commas(a.activation_bytes)
     << " B (peak at step " << a.peak_step << "), inputs and outputs " << with_commas(a.io_bytes) << " B"
     << (a.state_bytes ? ", state " + with_commas(a.state_bytes) + " B" : "") << "\n";
  os << "  flash         " << with_commas(a.constant_bytes) << " B of constants (code not estimated)\n";
  if (a.cycles)
    os << "  cycles        " << millions(*a.cycles) << " estimated"
       << (a.control_flow ? ", worst case (the larger branch of each If, each Loop at its most trips)" : "") << " ("
       << display_text(a.cycles_source) << ")\n";
  else
    os << "  cycles        not estimated: target " << a.target << " has no [cycles] table\n";
  os << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %4s  %-22s %-26s %-30s %12s %10s %10s %12s %8s  %s\n", "step", "operator", "kernel",
                "shape", "MACs", "const B", "live B", "est. cycles", "cyc/MAC", "node");
  os << line;
  for (const LayerAnalysis& l : a.layers) {
    // A step's label is "node (operator)"; long TFLite node names keep their end.
    std::string node = display_text(l.node), op;
    size_t open = node.rfind(" (");
    if (open != std::string::npos && node.back() == ')') op = node.substr(open + 2, node.size() - open - 3), node.resize(open);
    if (node.size() > 48) node = "..." + node.substr(node.size() - 45);
    std::string kernel = l.device != "cpu" ? l.device : l.kernel.empty() ? "-" : l.kernel;
    std::string cycles = l.cycles ? with_commas(static_cast<int64_t>(*l.cycles + 0.5)) : "-";
    char per_mac[16] = "";
    if (l.cycles && l.macs > 0) std::snprintf(per_mac, sizeof per_mac, "%.2f", *l.cycles / static_cast<double>(l.macs));
    std::snprintf(line, sizeof line, "  %4d  %-22s %-26s %-30s %12s %10s %10s %12s %8s  %s\n", l.step,
                  op.substr(0, 22).c_str(), kernel.c_str(), l.geometry.substr(0, 30).c_str(),
                  l.macs ? with_commas(l.macs).c_str() : "", with_commas(l.constant_bytes).c_str(),
                  with_commas(l.live_bytes).c_str(), cycles.c_str(), per_mac, node.c_str());
    os << line;
  }
  return os.str();
}

std::string analysis_json(const ModelAnalysis& a) {
  auto cycles = [](const std::optional<double>& c) { return c ? nlohmann::json(*c) : nlohmann::json(nullptr); };
  nlohmann::json j = {{"model", valid_utf8(a.model)},
                      {"target", a.target},
                      {"macs", a.macs},
                      {"ram_bytes", a.ram_bytes},
                      {"activation_bytes", a.activation_bytes},
                      {"io_bytes", a.io_bytes},
                      {"state_bytes", a.state_bytes},
                      {"peak_step", a.peak_step},
                      {"constant_bytes", a.constant_bytes},
                      {"kernel_table_bytes", a.table_bytes},
                      {"artifact_bytes", a.artifact_bytes},
                      {"cycles", cycles(a.cycles)},
                      {"cycles_worst_case_over_control_flow", a.control_flow},
                      {"cycles_source", a.cycles_source},
                      {"layers", nlohmann::json::array()}};
  for (const LayerAnalysis& l : a.layers)
    j["layers"].push_back({{"step", l.step},
                           {"function", l.function},
                           {"node", valid_utf8(l.node)},
                           {"kernel", l.kernel},
                           {"geometry", l.geometry},
                           {"device", l.device},
                           {"macs", l.macs},
                           {"output_elements", l.output_elements},
                           {"constant_bytes", l.constant_bytes},
                           {"live_bytes", l.live_bytes},
                           {"cycles", cycles(l.cycles)}});
  return j.dump(2) + "\n";
}

}  // namespace aotc
