// The compiler pipeline, top to bottom, as one table of named passes: import, graph
// passes, lowering, loop-IR passes, memory planning. Code generation (aot/executor/executor_codegen.h) turns its result into files.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "aot/executor/compiled_model.h"
#include "aot/driver/input_bindings.h"
#include "aot/import/shape_bindings.h"

namespace aotc {

struct CompileOptions {
  std::string model_path;
  // The model's contents, when they are not to be read from model_path (which still names
  // the model and its format): the fuzzers compile from memory.
  std::optional<std::string> model_bytes;
  std::string name = "model";  // C prefix of every symbol
  ShapeBindings shape_bindings;  // --input-shape, --dim
  InputBindings input_bindings;  // --bind, --state, --max-trip
  Target target;
  std::vector<PoolConfig> pools;  // overrides target.pools when not empty (--pool)
  bool in_place = true;           // let kernels write over inputs that die (--no-in-place turns it off)
  // Plan the inputs and outputs in the activation pool like other tensors (--io-in-arena):
  // an input's memory is reused once it is dead; the application gets their addresses
  // from <name>_io().
  bool io_in_arena = false;
  // Read the external functions' artifacts from this directory (written by an earlier
  // compile's --emit-artifacts) instead of compiling them: "" to compile.
  std::string artifacts_dir;
  // Compile for `aotc run --dump-tensors`: every intermediate tensor becomes a graph output
  // (expose_intermediates, which also keeps it from being fused away).
  bool dump_tensors = false;
  // Passes after which to print the IR ("infer_shapes", "lower", "simplify", ...).
  std::set<std::string> print_after;
  bool print_after_all = false;
  std::ostream* print_stream = nullptr;  // where the printed IR goes
  std::ostream* warning_stream = nullptr;  // where the model's warnings go ("warning: ..."), if anywhere
};

// One step of the pipeline. The table of them (pipeline()) is both what compile_model
// runs and what --print-after accepts.
struct Pass {
  // What --print-after shows: the operator graph, the kernels' loop IR, or the memory plan.
  enum class Shows { kGraph, kKernels, kMemoryPlan };
  const char* name;
  Shows shows;
  void (*run)(CompiledModel& model, const CompileOptions& options);
};

// The passes in the order they run.
const std::vector<Pass>& pipeline();
// Their names, in order.
std::vector<std::string> pass_names();

// Runs every pass of pipeline() on options.model_path, printing as options ask.
CompiledModel compile_model(const CompileOptions& options);

// Imports ONNX or TFLite by the file's extension, from the file or, when given, from
// `bytes` (the file's contents). Throws CompileError.
Graph import_model(const std::string& path, const ShapeBindings& bindings = {}, const std::string* bytes = nullptr);

}  // namespace aotc
