// A compilation target: what the generated C may assume about the machine it runs on.
//
// Targets are TOML files (targets/<name>.toml for the built-in ones, or a user's own
// file). The loader rejects unknown keys and bad values with the file, line and key, so a
// typo in a firmware project's target file never silently falls back to a default.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "aot/base/target_facts.h"

namespace aotc {

struct PoolConfig {
  std::string name;            // "sram", "dtcm"
  int64_t size_bytes = 0;      // 0 = unbounded (host)
  bool runtime_provided = false;  // handed in by the application through <name>_run
  std::string section;         // linker section for a static pool ("" = default .bss)
  // Which activation tensors may live here: a shell glob over tensor names ("" or "*" =
  // any). Kernel scratch may go anywhere. Tensors that match no pool's glob go to pools
  // without a glob.
  std::string tensors;
};

// Estimated cycles of one call of a kernel on the target (`aotc analyze`):
// per_mac x multiply-accumulates + per_output x output elements + per_call.
struct KernelCost {
  double per_mac = 0, per_output = 0, per_call = 0;
};

// A target file's contents: the facts the compiler's lower layers read (TargetFacts: name,
// stack limit, workspace alignment, word size, ISA features) and what only the executor and
// the tools that build generated code need.
struct Target : TargetFacts {
  std::string description;
  std::string triple;               // clang --target value; "" = the host compiler's default
  std::vector<std::string> cflags;  // flags for compiling generated code for this target
  int64_t constant_alignment = 16;  // bytes, for const weight arrays
  std::vector<PoolConfig> pools;    // default memory pools
  std::string source_path;          // file it was loaded from
  // The [cycles] table: each kernel's cost ("default" for kernels it does not list) and how
  // the coefficients were found; empty for a target without one.
  std::map<std::string, KernelCost> kernel_costs;
  std::string cycles_source;
};

// Loads a built-in target by name ("host", "cortex-m4", ...). Throws CompileError.
Target load_builtin_target(const std::string& name);
// Loads a user's target file. Throws CompileError naming the file, line and key.
Target load_target_file(const std::string& path);
// Parses a pool given on the command line: NAME:SIZE[:runtime][:section=NAME][:tensors=GLOB], where
// SIZE is bytes with an optional K/M/G suffix (powers of 1024) and "runtime" means the
// application passes the memory to <name>_run instead of the generated code owning it.
// Throws CompileError naming the problem.
PoolConfig parse_pool_spec(const std::string& spec);

// The target's features in the order of known_features() ("fpu", "fp64", "dsp", ...),
// for people to read.
std::vector<std::string> feature_names(const TargetFacts& target);

// `flags` as a response file that gcc and clang read with @FILE: one flag a line, quoted
// and escaped where the flag has white space, quotes or backslashes.
std::string cflags_response_file(const std::vector<std::string>& flags);

// Names of the built-in targets, sorted.
std::vector<std::string> builtin_target_names();

}  // namespace aotc
