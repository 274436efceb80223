// compile_external, the pipeline's pass between the graph passes and lowering: compiles
// every external function (aot/graph/external.h) with its backend, or reads what an
// earlier compile wrote with --emit-artifacts (--artifacts DIR). Its artifacts go into the
// module's attributes (CompiledModel::attrs under kExternalArtifactsAttr), its call onto
// its node, where the lowering of kExternalOp finds it.
//
// On disk (--emit-artifacts DIR, read back with --artifacts DIR): each artifact's bytes as
// DIR/<artifact>.bin, unchanged (a command stream can be inspected or replaced), and
// DIR/artifacts.json, which lists the external functions with their backend, driver call,
// region table, figures and artifacts (name, format, file, size). A compile that reads
// them back emits the same C, byte for byte, as the compile that wrote them.
#pragma once

#include <map>
#include <string>

#include "aot/executor/compiled_model.h"

namespace aotc {

// `artifacts_dir`: "" to compile every function with its backend, else the directory to
// read them from. Throws CompileError naming the function for anything missing or wrong.
void compile_external(CompiledModel& model, const std::string& artifacts_dir);

// The files --emit-artifacts writes: artifacts.json and one .bin per artifact.
std::map<std::string, std::string> artifact_files(const CompiledModel& model);

}  // namespace aotc
