// AOT executor code generation: turns a CompiledModel into the files a firmware project
// compiles.
//
//   <name>.h            the API: input/output structs, <name>_run, every size as a macro
//   <name>.c            the kernels and <name>_run, which calls them in order on
//                       statically planned memory; for a model with variable tensors
//                       (TFLite SVDF and LSTM state), their static arrays and <name>_reset
//   <name>_constants.c  the weights as const arrays (flash on a microcontroller)
//   aotc_runtime.[ch]   the runtime the kernels use (workspace allocator, error codes), the
//                       header's default workspace alignment set to the target's
//   aotc_quant*.h, ...  the runtime headers whose fixed-point arithmetic and micro-kernels
//                       the chosen kernels call (runtime_calls.h names each function's
//                       header), and what they include: only those
//   aotc_dlpack.[ch]    the DLPack calling convention over <name>_run
//   aotc_npu*, ...      a device driver's files, where a kernel calls it
//   metadata.json       inputs, outputs, memory figures, operators, the memory plan, target
//   <name>.cflags       the target's compiler flags, for `cc @<name>.cflags`
#pragma once

#include <map>
#include <string>

#include "aot/executor/compiled_model.h"

namespace aotc {

struct GeneratedFiles {
  std::map<std::string, std::string> files;  // file name -> contents
};

GeneratedFiles generate_sources(const CompiledModel& model, const std::string& model_file_name);

// C member names of the model's inputs and outputs, in model order (unique, valid C).
std::vector<std::string> input_member_names(const CompiledModel& model);
std::vector<std::string> output_member_names(const CompiledModel& model);

// The C array of each constant the code reads, in the order they are emitted:
// <name>_w<index>_<operator that reads it>, e.g. kws_w3_conv_2d.
std::vector<std::pair<TensorId, std::string>> constant_symbols(const CompiledModel& model);

// Bytes of const data: the constant tensors the code reads, and the tables kernels hold
// themselves (requantization multipliers, packed weights).
int64_t constant_bytes(const CompiledModel& model);
// Bytes of the tables one kernel holds itself (`static const` data in its C: packed weights,
// requantization constants).
int64_t kernel_table_bytes(const ir::PrimFunc& func);
// Bytes of the variable tensors (state kept between runs in static arrays of their own).
int64_t state_bytes(const CompiledModel& model);

}  // namespace aotc
