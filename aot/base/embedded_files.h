// Files compiled into the aotc binary (see cmake/embed_files.cmake): the built-in target
// descriptions and the C runtime that `aotc compile` copies beside generated code.
#pragma once

namespace aotc {

struct EmbeddedFile {
  const char* name;      // base name, e.g. "cortex-m4.toml"
  const char* contents;  // the whole file
};

// Each array ends with {nullptr, nullptr}.
extern const EmbeddedFile kEmbeddedTargets[];
extern const EmbeddedFile kEmbeddedRuntime[];

}  // namespace aotc
