// Helpers for end-to-end tests: run the aotc binary, read and compare tensors.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "aot/driver/file_utils.h"

namespace aotc::e2e {

struct Result {
  int status;
  std::string output;  // stdout and stderr
};

inline Result run(std::vector<std::string> args) {
  args.insert(args.begin(), AOTC_BINARY);
  Result r;
  r.status = run_process(args, &r.output);
  return r;
}

// Sets environment variables (for aotc and the compilers it runs: CC, CFLAGS) until the
// end of the scope, then puts back what was there before, unset variables unset. A test
// that stops at a failed ASSERT restores them too, so no later test of this process runs
// with another test's settings.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(std::initializer_list<std::pair<std::string, std::string>> variables) {
    for (const auto& [name, value] : variables) {
      const char* previous = std::getenv(name.c_str());
      saved_.emplace_back(name, previous ? std::optional<std::string>(previous) : std::nullopt);
      setenv(name.c_str(), value.c_str(), 1);
    }
  }
  ~ScopedEnvironment() {
    // Newest first, so that a variable set twice ends as it was before the first.
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

inline std::string source_path(const std::string& rel) { return std::string(AOTC_SOURCE_DIR) + "/" + rel; }
inline std::string shared_path(const std::string& rel) { return std::string(AOTC_SHARED_DIR) + "/" + rel; }

inline std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A vector's elements as raw bytes (little-endian on the test machines), and back.
template <typename T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
template <typename T>
std::vector<T> values_of(const std::string& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

inline std::vector<float> read_floats(const std::string& path) {
  std::string b = read_bytes(path);
  std::vector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

// |got - want| <= atol + rtol * |want| elementwise; reports the worst element.
inline void expect_close(const std::vector<float>& got, const std::vector<float>& want, double rtol, double atol) {
  ASSERT_EQ(got.size(), want.size());
  size_t worst = 0;
  double worst_excess = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    // NaN matches only NaN, an infinity only itself: the arithmetic below would make
    // either comparison NaN, which no test of `excess` would catch.
    double excess;
    if (std::isnan(g) || std::isnan(w)) excess = std::isnan(g) && std::isnan(w) ? -1 : HUGE_VAL;
    else if (g == w) excess = -1;
    else if (std::isinf(g) || std::isinf(w)) excess = HUGE_VAL;
    else excess = std::fabs(g - w) - (atol + rtol * std::fabs(w));
    if (excess > worst_excess) worst_excess = excess, worst = i;
  }
  EXPECT_LE(worst_excess, 0.0) << "element " << worst << ": got " << got[worst] << ", want " << want[worst];
}

// Compiles `c_file` (headers from `include_dir`) to `object` with `cc` as strict C99
// (-Wall -Wextra -Werror -pedantic -O2), as generated C must build; returns the exit
// status, with what the compiler printed in *log.
inline int compile_strict_c99(const std::string& cc, const std::string& c_file, const std::string& include_dir,
                              const std::string& object, std::string* log) {
  return run_process(
      {cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-c", c_file, "-I" + include_dir, "-o", object},
      log);
}

// The same with arm-none-eabi-gcc and the target's flags that `aotc compile --target` wrote
// to `cflags_file` (<name>.cflags): the generated C built as firmware builds it.
inline int cross_compile_strict_c99(const std::string& cflags_file, const std::string& c_file, const std::string& include_dir,
                                    const std::string& object, std::string* log) {
  return run_process({"arm-none-eabi-gcc", "@" + cflags_file, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-c",
                      c_file, "-I" + include_dir, "-o", object},
                     log);
}

// The full path of `program` on the PATH, or "" if there is none.
inline std::string find_program(const std::string& program) {
  std::string path;
  if (run_process({"sh", "-c", "command -v " + program}, &path) != 0) return "";
  while (!path.empty() && std::isspace(static_cast<unsigned char>(path.back()))) path.pop_back();
  return path;
}

// The newlib that arm-none-eabi-gcc builds with (the sysroot beside it, as
// cmake/toolchains/arm-none-eabi-common.cmake finds it): where clang finds <string.h> and
// <math.h> for a bare-metal Arm compile. "" when it is not installed.
inline std::string arm_newlib_sysroot() {
  std::string gcc = find_program("arm-none-eabi-gcc");
  if (gcc.empty()) return "";
  std::filesystem::path sysroot = std::filesystem::path(gcc).parent_path() / ".." / "lib" / "arm-none-eabi";
  if (!std::filesystem::exists(sysroot / "include" / "string.h")) return "";
  return std::filesystem::canonical(sysroot).string();
}

// The same with clang for `triple` (thumbv7em-none-eabi, ...), the target's flags from
// `cflags_file` and arm-none-eabi-gcc's newlib headers.
inline int clang_cross_compile_strict_c99(const std::string& triple, const std::string& cflags_file, const std::string& c_file,
                                          const std::string& include_dir, const std::string& object, std::string* log) {
  return run_process({"clang", "--target=" + triple, "--sysroot=" + arm_newlib_sysroot(), "@" + cflags_file, "-std=c99",
                      "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-c", c_file, "-I" + include_dir, "-o", object},
                     log);
}

// Writes `source`, a C program that calls the model, to `program`.c and builds it into
// `program` with the C that `aotc compile` wrote to `model_dir` (model.c, model_constants.c,
// aotc_runtime.c), as C99 at -O2 with `warnings` (which make warnings errors). Returns the
// compiler's exit status, with what it printed in *log.
inline int build_harness(const std::string& source, const std::string& model_dir, const std::string& program,
                         const std::vector<std::string>& warnings, std::string* log) {
  {
    std::ofstream file(program + ".c");
    file << source;
  }
  std::vector<std::string> command = {"cc", "-std=c99"};
  command.insert(command.end(), warnings.begin(), warnings.end());
  std::vector<std::string> files = {"-O2", "-I" + model_dir, program + ".c", model_dir + "/model.c",
                                    model_dir + "/model_constants.c", model_dir + "/aotc_runtime.c", "-lm", "-o", program};
  command.insert(command.end(), files.begin(), files.end());
  return run_process(command, log);
}

// A fixture (Base: ::testing::Test or TestWithParam<...>) with a fresh temporary directory
// for each test, named from `prefix` and removed after it; tmp(name) is a path in it.
template <typename Base = ::testing::Test>
class TempDirTest : public Base {
 protected:
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override { dir_ = std::make_unique<TempDir>(prefix_); }
  std::string tmp(const std::string& name) const { return dir_->path() + "/" + name; }
  std::unique_ptr<TempDir> dir_;

 private:
  std::string prefix_;
};

// `aotc run` of `model` (with further `options`) on each of its four reference inputs
// (input_<k>.bin in `reference_dir`, which ends in '/') must write output_<k>.bin: the
// same bytes, or for a float output the same values within a relative error of 1e-5.
// Outputs go to `scratch_dir`.
inline void expect_reference_outputs(const std::string& model, const std::string& reference_dir, bool float_output,
                                     const std::string& scratch_dir, const std::vector<std::string>& options = {}) {
  for (int k = 0; k < 4; ++k) {
    std::string out = scratch_dir + "/output_" + std::to_string(k) + ".bin";
    std::string want = reference_dir + "output_" + std::to_string(k) + ".bin";
    std::vector<std::string> args = {"run", model, "--inputs", reference_dir + "input_" + std::to_string(k) + ".bin",
                                     "--outputs", out};
    args.insert(args.end(), options.begin(), options.end());
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    if (float_output) {
      expect_close(read_floats(out), read_floats(want), 1e-5, 0.0);
    } else {
      EXPECT_EQ(read_bytes(out), read_bytes(want)) << "input " << k;
    }
  }
}

}  // namespace aotc::e2e
