// The compiler pipeline, top to bottom: import, graph passes, lowering, loop-IR passes,
// memory planning. Code generation (aot/executor/executor_codegen.h) turns its result into files.
#pragma once

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "aot/executor/compiled_model.h"

namespace aotc {

struct CompileOptions {
  std::string model_path;
  std::string name = "model";  // C prefix of every symbol
  Target target;
  std::vector<PoolConfig> pools;  // overrides target.pools when not empty (--pool)
  bool in_place = true;           // let kernels write over inputs that die (--no-in-place turns it off)
  // Passes after which to print the IR ("infer_shapes", "lower", "simplify", ...).
  std::set<std::string> print_after;
  bool print_after_all = false;
  std::ostream* print_stream = nullptr;  // where the printed IR goes
};

// Names of the passes, in order, accepted by --print-after.
const std::vector<std::string>& pass_names();

CompiledModel compile_model(const CompileOptions& options);

// Imports ONNX or TFLite by the file's extension. Throws CompileError.
Graph import_model(const std::string& path);

}  // namespace aotc
