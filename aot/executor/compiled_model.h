// The compiled model as the executor sees it: the graph after the graph passes, one
// step of `<name>_run` (kernel calls and the control flow around them), and where every tensor lives at run time.
// The driver (aot/driver/pipeline.h) builds it; the storage planner fills in `storage`
// and `arena`; executor codegen and metadata read it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aot/base/memory_planner.h"
#include "aot/graph/external.h"
#include "aot/graph/graph.h"
#include "aot/passes/graph_passes.h"
#include "lowering/ir/ir.h"
#include "lowering/passes/lower_builtin.h"
#include "targets/target.h"

namespace aotc {

// How a copy step moves bytes: `blocks` blocks of `bytes` each, block b from
// `from + b * from_stride` to `to + b * to_stride`. Inside a loop, the innermost loop's
// iteration i (counted from the last, trips - 1 - i, when reversed) adds `i * from_step`
// and `i * to_step`: that is how a Scan reads its inputs and a Loop or Scan writes its
// scan outputs one slice per iteration.
struct CopyShape {
  int64_t bytes = 0;
  int64_t blocks = 1;
  int64_t from_stride = 0, to_stride = 0;
  int64_t from_step = 0, to_step = 0;
  bool from_reverse = false, to_reverse = false;
  int64_t trips = 0;  // of the innermost loop, for the reversed directions
};

// One step of the generated `<name>_run`, in execution order: a kernel call, a copy, or
// the control flow around them, bracketed as kIf ... kElse ... kEndIf and kLoop ...
// kEndLoop (nested to any depth). The memory planner numbers time by step index.
struct Step {
  enum class Kind {
    kCall,          // calls `func` on `args`
    kCopy,          // copies args[0] into args[1] as `copy` says
    kIf,            // runs the steps up to kElse if the boolean args[0] is true, else those up to kEndIf
    kElse,
    kEndIf,
    kLoop,          // runs the steps up to kEndLoop up to `max_trips` times (see below)
    kEndLoop,
    kSetIteration,  // stores the innermost loop's iteration number in the int64 args[0]
  };
  Kind kind = Kind::kCall;
  std::string label;            // the model node it comes from, for comments and reports

  // kCall
  std::string c_name;
  ir::PrimFunc func;
  std::vector<TensorId> args;   // kCall: tensor bound to each parameter; others as above
  std::vector<TensorId> outputs;  // kCall: the (fused) node's outputs, what the kernel computes
  ir::KernelMemory memory;
  // For elementwise kernels: the output may take the memory of one of these inputs.
  TensorId in_place_output = kNoTensor;
  std::vector<TensorId> in_place_inputs;
  // The input the output (in_place_output) may overlap from `overlap_distance` bytes below
  // its start (LoweredOp::overlap_input); kNoTensor for none.
  TensorId overlap_input = kNoTensor;
  int64_t overlap_distance = 0;
  bool overlap_at_start = false;  // LoweredOp::overlap_at_start
  // The kernel's scratch (LowerBuiltin's workspace blocks) is planned in the arena like
  // a tensor that lives for this one step; its allocator is set up over this slice.
  int64_t scratch_offset = 0;
  int scratch_pool = 0;

  // Runs on a device beside the CPU (an external function's kernel, lowering/ops/
  // onnx/external.cc): its tensors and scratch go only to the pools the device reaches.
  bool on_device = false;

  // kCopy
  CopyShape copy;

  // kLoop: iteration i runs while i < max_trips, i < *trip_count (an int64, when given) and
  // *condition (a boolean, when given; the body may change it). When the bound max_trips
  // is reached while trip_count and condition would go on, <name>_run returns
  // AOTC_ERR_TRIP_LIMIT. args lists trip_count and condition, the tensors it reads.
  int64_t max_trips = 0;
  TensorId trip_count = kNoTensor;
  TensorId condition = kNoTensor;
  bool bounded_by_max = false;  // max_trips came from --max-trip, not from the model

  bool is_call() const { return kind == Kind::kCall; }
};

// Where a tensor's bytes live at run time. A variable tensor (state kept from one run to
// the next, graph.h) has a static array of its own, outside the arena.
struct Storage {
  enum class Kind { kInput, kOutput, kConstant, kArena, kVariable };
  Kind kind = Kind::kArena;
  TensorId tensor = kNoTensor;  // the tensor whose storage this is (the root of a view chain)
  int64_t offset = 0;           // for kArena: offset in the pool
  int pool = 0;                 // for kArena: index into CompiledModel::pools
  bool next_value = false;      // for kVariable: the state's second buffer, where a run
                                // computes its next value (CompiledModel::next_values)
};

// A view whose bytes cannot be shared with its source (e.g. a graph output that reshapes
// a graph input) is copied after the step that makes the source.
struct CopyStep {
  Storage from;  // where the bytes are
  TensorId to;   // a graph output
};

// "call", "copy", "if", "else", "end_if", "loop", "end_loop", "set_iteration".
const char* step_kind_name(Step::Kind kind);

// The module attribute under which the compiled model carries the artifacts of its
// external functions (aot/graph/external.h; command streams, packed weights), in the
// order of the functions: executor codegen makes each a const array in the section of the
// target's [npu] table, and --emit-artifacts writes them to disk.
constexpr const char* kExternalArtifactsAttr = "external.artifacts";

struct CompiledModel {
  std::string name;
  Target target;
  Graph graph;
  // Named attributes that passes attach to the module for later passes and code
  // generation, each a list of artifacts (serializable bytes): kExternalArtifactsAttr.
  std::map<std::string, std::vector<Artifact>> attrs;
  std::vector<Step> steps;
  std::vector<CopyStep> copies;             // run after all steps
  // Tensors that share another's storage besides views: a branch's result computed in
  // place in its If's output, a loop body's parameter that is its loop-carried buffer.
  std::map<TensorId, TensorId> aliases;
  // A state's next value (Graph::state_updates) that a step computes, -> the state. It is
  // computed straight into a second buffer of the state, and the two buffers swap roles at
  // the end of the run: the state is never copied. (A next value no step computes, e.g. a
  // graph input passed through, is copied into the state instead.)
  std::map<TensorId, TensorId> next_values;
  std::map<TensorId, Storage> storage;      // every tensor a kernel or copy touches
  std::vector<PoolConfig> pools;            // where the arena goes (the target's, or --pool)
  bool in_place = true;                     // CompileOptions::in_place
  bool io_in_arena = false;                 // CompileOptions::io_in_arena
  // With io_in_arena: the planned place of each graph input and output (kind kInput or
  // kOutput, with offset and pool), which the application's structs must point at.
  std::map<TensorId, Storage> io_places;
  Placement arena;                          // activations and kernel scratch, over the pools
  int64_t scratch_bytes = 0;                // largest scratch of one kernel (inside the arena)
  int64_t max_stack_bytes = 0;
  // For `aotc run --dump-tensors` (CompileOptions::dump_tensors): every node output of the
  // model as imported, and the intermediates made graph outputs (after the model's own
  // outputs in graph.outputs) so that the program writes them out.
  std::vector<ModelTensor> model_tensors;
  std::vector<TensorId> exposed;
};

}  // namespace aotc
