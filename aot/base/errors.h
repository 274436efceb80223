// The one kind of error a user can cause: a model, option or target file aotc cannot
// compile. Every layer throws it; the CLI prints "error: <message>" and exits with 1.
// Anything else that escapes is a bug in aotc ("internal error", exit 3).
#pragma once

#include <stdexcept>

namespace aotc {

class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace aotc
