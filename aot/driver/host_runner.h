// `aotc run`: compiles a model, builds the generated C with the host compiler ($CC,
// default cc, plus $CFLAGS), runs it on input files and writes the output files. It is
// the fastest way to check that generated code computes what the model computes, and
// with CFLAGS=-fsanitize=address it runs the generated code under a sanitizer.
#pragma once

#include <string>
#include <vector>

#include "aot/driver/pipeline.h"

namespace aotc {

struct RunOptions {
  CompileOptions compile;
  std::vector<std::string> input_files;   // one per model input, in order
  std::vector<std::string> output_files;  // one per model output, in order
  bool keep_build = false;                // leave the build directory and print its path
  // --dump-tensors: write every intermediate tensor of the run here (aot/driver/tensor_dump.h).
  // The dump build keeps each intermediate as an output of the program, which keeps it
  // from being fused into the kernel that reads it; the model's outputs are the same.
  std::string dump_dir;
};

// Throws CompileError for user errors (wrong number or size of files, build failure).
void run_on_host(const RunOptions& options);

}  // namespace aotc
