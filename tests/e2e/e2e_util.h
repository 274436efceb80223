// Helpers for end-to-end tests: run the aotc binary, read and compare tensors.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
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
    double excess = std::fabs(double(got[i]) - want[i]) - (atol + rtol * std::fabs(double(want[i])));
    if (excess > worst_excess) worst_excess = excess, worst = i;
  }
  EXPECT_LE(worst_excess, 0.0) << "element " << worst << ": got " << got[worst] << ", want " << want[worst];
}

}  // namespace aotc::e2e
