#include "aot/executor/memory_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "aot/base/text.h"
#include "aot/executor/executor_codegen.h"
#include "aot/executor/offload.h"
#include "aot/executor/storage_planner.h"

namespace aotc {

std::vector<PlannedTensor> planned_tensors(const CompiledModel& m) {
  std::map<TensorId, const Storage*> place;
  for (auto& [id, s] : m.storage)
    if (s.kind == Storage::Kind::kArena) place[s.tensor] = &s;
  for (auto& [id, s] : m.io_places) place[id] = &s;
  const std::map<TensorId, LiveRange> ranges = planned_live_ranges(m);
  // The outputs the plan put over their kernels' inputs: the input and the bytes shared.
  std::map<TensorId, std::pair<TensorId, int64_t>> over;
  for (const Step& k : m.steps) {
    if (k.overlap_input == kNoTensor || !m.storage.count(k.overlap_input) || !m.storage.count(k.in_place_output)) continue;
    TensorId in = m.storage.at(k.overlap_input).tensor, out = m.storage.at(k.in_place_output).tensor;
    if (in == out || !place.count(in) || !place.count(out) || place[in]->pool != place[out]->pool) continue;
    int64_t shared = std::min(place[in]->offset + ranges.at(in).size, place[out]->offset + ranges.at(out).size) -
                     std::max(place[in]->offset, place[out]->offset);
    if (shared > 0) over[out] = {in, shared};
  }
  std::vector<PlannedTensor> out;
  for (auto& [root, range] : ranges) {
    const Storage& s = *place.at(root);
    out.push_back({m.graph.tensor(root).name, s.pool, s.offset, range.size, range.first, range.last, "", 0});
    if (!over.count(root)) continue;
    out.back().overlaps = m.graph.tensor(over[root].first).name;
    out.back().overlap_bytes = over[root].second;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const PlannedTensor& a, const PlannedTensor& b) { return a.first_step < b.first_step; });
  return out;
}

namespace {

bool has_control_flow(const CompiledModel& m) {
  return std::any_of(m.steps.begin(), m.steps.end(), [](const Step& k) {
    return k.kind != Step::Kind::kCall && k.kind != Step::Kind::kCopy;
  });
}

// The steps, indented by control flow, for a model that has any: what `first` and `last`
// in the table count.
std::string control_flow_steps(const CompiledModel& m) {
  if (!has_control_flow(m)) return "";
  std::ostringstream os;
  os << "\n  steps (first and last above count these):\n";
  int depth = 0;
  char line[64];
  for (size_t i = 0; i < m.steps.size(); ++i) {
    const Step& k = m.steps[i];
    if (k.kind == Step::Kind::kElse || k.kind == Step::Kind::kEndIf || k.kind == Step::Kind::kEndLoop) --depth;
    std::snprintf(line, sizeof line, "  %6zu  ", i);
    os << line << std::string(static_cast<size_t>(2 * depth), ' ') << step_kind_name(k.kind);
    if (k.is_call()) os << " " << m.name << "_" << k.c_name;
    if (k.kind == Step::Kind::kLoop) os << " (at most " << k.max_trips << " iterations)";
    os << "  " << display_text(k.label) << "\n";
    if (k.kind == Step::Kind::kIf || k.kind == Step::Kind::kElse || k.kind == Step::Kind::kLoop) ++depth;
  }
  return os.str();
}

// What runs on the NPU and what on the CPU, for a target with an NPU.
std::string offload_text(const CompiledModel& m) {
  OffloadSummary s = offload_summary(m);
  if (s.backend.empty()) return "";
  std::ostringstream os;
  char share[32];
  std::snprintf(share, sizeof share, "%.1f%%", 100.0 * s.mac_fraction());
  os << "\n  NPU (" << s.backend << "): ";
  if (s.npu_macs + s.cpu_macs > 0)
    os << share << " of the model's " << with_commas(s.npu_macs + s.cpu_macs) << " multiply-accumulates, about "
       << with_commas(s.estimated_cycles) << " NPU cycles\n";
  else
    os << "its multiply-accumulates and cycles are not known (compiled by another tool)\n";
  for (const OffloadedFunction& f : s.functions) {
    os << "    " << f.name << " (" << f.c_function << "): " << f.nodes.size() << " nodes, " << with_commas(f.macs)
       << " MACs, about " << with_commas(f.estimated_cycles) << " cycles, scratch " << with_commas(f.scratch_bytes) << " B\n";
    for (const std::string& n : f.nodes) os << "      " << display_text(n) << "\n";
  }
  os << "  CPU:\n";
  for (const CpuNode& c : s.cpu_nodes)
    os << "    " << display_text(c.node) << (c.reason.empty() ? "" : "  (not on the NPU: " + display_text(c.reason) + ")") << "\n";
  return os.str();
}

}  // namespace

std::string memory_report_table(const CompiledModel& m) {
  std::ostringstream os;
  char line[256];
  os << "memory plan of '" << m.name << "' for target " << m.target.name << "\n";
  auto row = [&](const char* what, int64_t bytes, const std::string& note) {
    std::snprintf(line, sizeof line, "  %-22s %12s B  %s\n", what, with_commas(bytes).c_str(), note.c_str());
    os << line;
  };
  row("workspace (RAM)", m.arena.total_bytes, "activations and scratch; strategy " + m.arena.strategy);
  row("  lower bound", m.arena.lower_bound, "largest sum of tensors live at one step");
  row("  largest scratch", m.scratch_bytes, "one kernel's workspace blocks, planned in the arena");
  for (size_t i = 0; i < m.pools.size(); ++i) {
    const PoolConfig& p = m.pools[i];
    std::string note = (p.size_bytes ? "of " + with_commas(p.size_bytes) + " B" : std::string("unbounded")) +
                       (p.runtime_provided ? ", provided at run time" : ", static") +
                       (p.section.empty() ? "" : ", section " + p.section);
    row(("  pool " + p.name).c_str(), m.arena.pool_bytes[i], note);
  }
  row("constants (flash)", constant_bytes(m), "");
  row("max stack arrays", m.max_stack_bytes, "largest in one kernel");
  os << "\n";
  std::snprintf(line, sizeof line, "  %-40s %-8s %10s %10s %6s %6s\n", "tensor", "pool", "offset", "bytes", "first", "last");
  os << line;
  const std::vector<PlannedTensor> planned = planned_tensors(m);
  for (const PlannedTensor& t : planned) {
    std::string name = t.name.size() > 40 ? "..." + t.name.substr(t.name.size() - 37) : t.name;
    std::snprintf(line, sizeof line, "  %-40s %-8s %10lld %10lld %6d %6d\n", name.c_str(),
                  m.pools[static_cast<size_t>(t.pool)].name.c_str(), static_cast<long long>(t.offset),
                  static_cast<long long>(t.bytes), t.first_step, t.last_step);
    os << line;
  }
  bool overlaps = std::any_of(planned.begin(), planned.end(), [](const PlannedTensor& t) { return t.overlap_bytes > 0; });
  if (overlaps) os << "\n  outputs over the inputs their kernels read (each byte written after its last read):\n";
  for (const PlannedTensor& t : planned)
    if (t.overlap_bytes > 0)
      os << "    " << display_text(t.name) << " over " << display_text(t.overlaps) << ": " << with_commas(t.overlap_bytes)
         << " B shared\n";
  os << control_flow_steps(m);
  os << offload_text(m);
  return os.str();
}

std::string memory_plan_svg(const CompiledModel& m) {
  std::vector<PlannedTensor> tensors = planned_tensors(m);
  const int kHeight = 600, kMarginLeft = 80, kMarginTop = 40;
  int steps = std::max<int>(1, static_cast<int>(m.steps.size()) + (m.io_in_arena ? 1 : 0));  // io: the moment after
  const int kStepWidth = std::max(24, 640 / steps);  // at least 640 px across
  double bytes = static_cast<double>(std::max<int64_t>(1, m.arena.total_bytes));
  double scale = kHeight / bytes;
  int width = kMarginLeft + steps * kStepWidth + 20;
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << kHeight + kMarginTop + 30
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << "<text x=\"" << kMarginLeft << "\" y=\"16\">" << xml_escape(m.name) << ": activations "
     << with_commas(m.arena.total_bytes) << " B (lower bound " << with_commas(m.arena.lower_bound)
     << " B); kernel steps across, addresses down; hover a box for its tensor</text>\n";
  os << "<rect x=\"" << kMarginLeft << "\" y=\"" << kMarginTop << "\" width=\"" << steps * kStepWidth << "\" height=\""
     << kHeight << "\" fill=\"#f4f4f4\" stroke=\"#999\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    int64_t addr = static_cast<int64_t>(bytes * i / 4);
    os << "<text x=\"4\" y=\"" << kMarginTop + kHeight * i / 4 + 4 << "\">" << with_commas(addr) << "</text>\n";
  }
  // Control flow in the background: loops blue, then branches green, else branches orange.
  std::vector<size_t> open;
  for (size_t i = 0; i < m.steps.size(); ++i) {
    Step::Kind kind = m.steps[i].kind;
    if (kind == Step::Kind::kLoop || kind == Step::Kind::kIf || kind == Step::Kind::kElse) open.push_back(i);
    if (kind != Step::Kind::kElse && kind != Step::Kind::kEndIf && kind != Step::Kind::kEndLoop) continue;
    size_t begin = open.back();
    open.pop_back();
    const char* fill = kind == Step::Kind::kEndLoop ? "#dde8f8" : m.steps[begin].kind == Step::Kind::kIf ? "#e0f2e0" : "#fbe8d6";
    os << "<rect x=\"" << kMarginLeft + static_cast<int>(begin) * kStepWidth << "\" y=\"" << kMarginTop << "\" width=\""
       << static_cast<int>(i - begin + 1) * kStepWidth << "\" height=\"" << kHeight << "\" fill=\"" << fill
       << "\" fill-opacity=\"0.7\"><title>" << xml_escape(m.steps[begin].label) << ": "
       << (kind == Step::Kind::kEndLoop ? "loop" : m.steps[begin].kind == Step::Kind::kIf ? "then branch" : "else branch")
       << ", steps " << begin << "-" << i << "</title></rect>\n";
    if (kind == Step::Kind::kElse) open.push_back(i);
  }
  const char* kColors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"};
  for (size_t i = 0; i < tensors.size(); ++i) {
    const PlannedTensor& t = tensors[i];
    double y = kMarginTop + t.offset * scale, h = std::max(1.0, t.bytes * scale);
    os << "<rect x=\"" << kMarginLeft + t.first_step * kStepWidth << "\" y=\"" << y << "\" width=\""
       << (t.last_step - t.first_step + 1) * kStepWidth << "\" height=\"" << h << "\" fill=\"" << kColors[i % 8]
       << "\" stroke=\"#333\" stroke-width=\"0.5\"><title>" << xml_escape(t.name) << ": " << with_commas(t.bytes)
       << " B at offset " << t.offset << ", steps " << t.first_step << "-" << t.last_step
       << (t.overlap_bytes > 0 ? ", over " + xml_escape(t.overlaps) + " (" + with_commas(t.overlap_bytes) + " B shared)"
                               : "")
       << "</title></rect>\n";
  }
  os << "<text x=\"" << kMarginLeft << "\" y=\"" << kMarginTop + kHeight + 20 << "\">kernel steps 0-" << steps - 1
     << "</text>\n</svg>\n";
  return os.str();
}

}  // namespace aotc
