#include "aot/driver/pipeline.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "aot/base/text.h"
#include "aot/driver/external_functions.h"
#include "aot/driver/lower_graph.h"
#include "aot/graph/graph_printer.h"
#include "aot/import/onnx_importer.h"
#include "aot/import/tflite_importer.h"
#include "aot/passes/graph_passes.h"
#include "aot/executor/memory_report.h"
#include "aot/executor/storage_planner.h"
#include "lowering/ir/ir_printer.h"
#include "aot/graph/op_registry.h"
#include "lowering/passes/hoist_allocations.h"
#include "lowering/passes/lower_builtin.h"
#include "lowering/passes/reorder_loops.h"
#include "lowering/passes/schedule_loops.h"
#include "lowering/passes/simplify.h"
#include "lowering/passes/split_loops.h"
#include "lowering/passes/tensorize.h"
#include "lowering/passes/unroll_loops.h"

namespace aotc {

Graph import_model(const std::string& path, const ShapeBindings& bindings, const std::string* bytes) {
  auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".onnx")) return bytes ? import_onnx_bytes(*bytes, path, bindings) : import_onnx(path, bindings);
  if (ends_with(".tflite")) {
    return bytes ? import_tflite_bytes(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), path, bindings)
                 : import_tflite(path, bindings);
  }
  throw CompileError(path + ": unknown model format (expected a .onnx or .tflite file)");
}

namespace {

// Each loop-IR pass runs over every kernel.
void for_each_kernel(CompiledModel& m, const std::function<ir::Stmt(const ir::Stmt&)>& pass) {
  for (Step& k : m.steps)
    if (k.is_call()) k.func.body = pass(k.func.body);
}

// The kernels' loop IR in step order; control flow and copies as comment lines around
// them, so that --print-after shows where each kernel runs.
std::string steps_text(const CompiledModel& m) {
  std::ostringstream os;
  auto name = [&](TensorId id) { return "%" + m.graph.tensor(id).name; };
  for (const Step& k : m.steps) {
    switch (k.kind) {
      case Step::Kind::kCall: os << ir::to_string(k.func) << "\n"; break;
      case Step::Kind::kCopy: os << "// copy " << name(k.args[0]) << " -> " << name(k.args[1]) << "\n"; break;
      case Step::Kind::kIf: os << "// if " << name(k.args[0]) << " {  " << k.label << "\n"; break;
      case Step::Kind::kElse: os << "// } else {\n"; break;
      case Step::Kind::kEndIf: os << "// }  end if " << k.label << "\n"; break;
      case Step::Kind::kLoop:
        os << "// loop at most " << k.max_trips << " times";
        if (k.trip_count != kNoTensor) os << ", while iteration < " << name(k.trip_count);
        if (k.condition != kNoTensor) os << ", while " << name(k.condition);
        os << " {  " << k.label << "\n";
        break;
      case Step::Kind::kEndLoop: os << "// }  end loop " << k.label << "\n"; break;
      case Step::Kind::kSetIteration: os << "// " << name(k.args[0]) << " = iteration number\n"; break;
    }
  }
  return os.str();
}

}  // namespace

// The pipeline, top to bottom. `--print-after=NAME` prints what `shows` says after NAME.
const std::vector<Pass>& pipeline() {
  static const std::vector<Pass> kPasses = {
      // 1. Import.
      {"import", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions& o) {
         m.graph = import_model(o.model_path, o.shape_bindings, o.model_bytes ? &*o.model_bytes : nullptr);
         if (o.dump_tensors) m.model_tensors = model_tensors(m.graph);
         if (o.warning_stream)
           for (const std::string& w : m.graph.warnings) *o.warning_stream << "warning: " << display_text(w) << "\n";
       }},
      {"bind_inputs", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions& o) { bind_inputs(m.graph, o.input_bindings); }},
      // 2. Graph passes.
      {"initialize_variables", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions&) { initialize_variables(m.graph); }},
      {"infer_shapes", Pass::Shows::kGraph, [](CompiledModel& m, const CompileOptions&) { infer_shapes(m.graph); }},
      // The other graph passes work in the subgraphs of control flow too.
      {"fold_qdq", Pass::Shows::kGraph, [](CompiledModel& m, const CompileOptions&) { run_everywhere(m.graph, fold_qdq); }},
      {"fold_constants", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions&) { run_everywhere(m.graph, fold_constants); }},
      // Only for --dump-tensors: before channels_last and fuse_operators, which would move
      // and fuse them away.
      {"expose_intermediates", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions& o) {
         if (o.dump_tensors) m.exposed = expose_intermediates(m.graph, m.model_tensors);
       }},
      // After expose_intermediates: a PAD whose output a dump writes stays.
      {"fold_pad", Pass::Shows::kGraph, [](CompiledModel& m, const CompileOptions&) { run_everywhere(m.graph, fold_pad); }},
      // The layout before the partition: an NPU reads channels-last convolutions, whichever
      // front end made them.
      {"channels_last", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions&) { channels_last(m.graph, m.target); }},
      {"partition_external", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions&) { partition_external(m.graph, m.target); }},
      {"fuse_operators", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions&) { run_everywhere(m.graph, fuse_operators); }},
      {"remove_dead_nodes", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions&) { run_everywhere(m.graph, remove_dead_nodes); }},
      // External functions: their backends compile them into artifacts (or --artifacts
      // reads what an earlier compile wrote).
      {"compile_external", Pass::Shows::kGraph,
       [](CompiledModel& m, const CompileOptions& o) { compile_external(m, o.artifacts_dir); }},
      // 3. Lowering: one kernel per (fused) node, control flow as steps around them.
      {"lower", Pass::Shows::kKernels, [](CompiledModel& m, const CompileOptions&) { lower_graph(m); }},
      // 4. Loop-IR passes.
      {"simplify", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) { for_each_kernel(m, [](const ir::Stmt& s) { return ir::simplify(s); }); }},
      // Scheduling: schedule_loops annotates loops from their shapes and the target's
      // features; the next four passes carry the annotations out, and simplify_scheduled
      // folds the constants that unrolled copies leave behind.
      {"schedule_loops", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) {
         for_each_kernel(m, [&](const ir::Stmt& s) { return ir::schedule_loops(s, m.target); });
       }},
      {"tensorize", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) { for_each_kernel(m, [](const ir::Stmt& s) { return ir::tensorize(s); }); }},
      {"reorder_loops", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) {
         for_each_kernel(m, [](const ir::Stmt& s) { return ir::reorder_loops(s); });
       }},
      {"split_loops", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) { for_each_kernel(m, [](const ir::Stmt& s) { return ir::split_loops(s); }); }},
      {"unroll_loops", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) {
         for_each_kernel(m, [](const ir::Stmt& s) { return ir::unroll_loops(s); });
       }},
      {"simplify_scheduled", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) { for_each_kernel(m, [](const ir::Stmt& s) { return ir::simplify(s); }); }},
      {"hoist_allocations", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) {
         for_each_kernel(m, [](const ir::Stmt& s) { return ir::hoist_allocations(s); });
       }},
      {"lower_builtin", Pass::Shows::kKernels,
       [](CompiledModel& m, const CompileOptions&) {
         for_each_kernel(m, [&](const ir::Stmt& s) { return ir::lower_builtin(s, m.target); });
         for (Step& k : m.steps) {
           if (!k.is_call()) continue;
           k.memory = ir::measure_kernel_memory(k.func.body, m.target);
           m.scratch_bytes = std::max(m.scratch_bytes, k.memory.workspace_bytes);
           m.max_stack_bytes = std::max(m.max_stack_bytes, k.memory.stack_bytes);
         }
       }},
      // 5. Static memory plan for the tensors between kernels.
      {"plan_storage", Pass::Shows::kMemoryPlan, [](CompiledModel& m, const CompileOptions&) { plan_storage(m); }},
  };
  return kPasses;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const Pass& p : pipeline()) names.push_back(p.name);
  return names;
}

CompiledModel compile_model(const CompileOptions& options) {
  CompiledModel m;
  m.name = options.name;
  m.target = options.target;
  m.pools = options.pools.empty() ? options.target.pools : options.pools;
  m.in_place = options.in_place;
  m.io_in_arena = options.io_in_arena;
  if (m.pools.empty()) m.pools.push_back({"workspace", 0, false, "", ""});

  for (const Pass& pass : pipeline()) {
    pass.run(m, options);
    bool wanted = options.print_after_all || options.print_after.count(pass.name);
    if (!options.print_stream || !wanted) continue;
    std::ostream& os = *options.print_stream;
    os << "// ---- IR after " << pass.name << "\n";
    switch (pass.shows) {
      case Pass::Shows::kGraph: os << to_string(m.graph) << "\n"; break;
      case Pass::Shows::kKernels:
        os << steps_text(m);
        break;
      case Pass::Shows::kMemoryPlan: os << memory_report_table(m); break;
    }
  }
  return m;
}

}  // namespace aotc
