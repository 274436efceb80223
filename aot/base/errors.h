// The one kind of error a user can cause: a model, option or target file aotc cannot
// compile. Every layer throws it; the CLI prints "error: <message>" and exits with 1.
// Anything else that escapes is a bug in aotc ("internal error", exit 3).
#pragma once

#include <stdexcept>
#include <string>

namespace aotc {

class CompileError : public std::runtime_error {
 public:
  explicit CompileError(const std::string& message) : std::runtime_error(without_nul(message)) {}
  explicit CompileError(const char* message) : CompileError(std::string(message)) {}

 private:
  // Messages quote names from the model, which may hold NUL bytes, and what() is a C
  // string: each NUL is written "\0" instead of ending the message there (fuzz_compile
  // found a node name with one, which cut its error down to the name).
  static std::string without_nul(const std::string& message) {
    std::string out;
    for (char c : message) out += c == '\0' ? std::string("\\0") : std::string(1, c);
    return out;
  }
};

}  // namespace aotc
