// Tests of the target loader (targets/target.cc) and the built-in targets/*.toml.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "aot/base/errors.h"
#include "targets/target.h"

namespace aotc {
namespace {

// Writes `text` to a file named after the running test in gtest's temp dir.
std::string write_temp_target(const std::string& text, const std::string& suffix = "") {
  const testing::TestInfo* info = testing::UnitTest::GetInstance()->current_test_info();
  std::string path = testing::TempDir() + "aotc_target_" + info->test_suite_name() + "_" +
                     info->name() + suffix + ".toml";
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

// Loads `text` as a user target file and returns the error message ("" if it loaded).
std::string load_error(const std::string& text, std::string* path_out = nullptr) {
  std::string path = write_temp_target(text);
  if (path_out != nullptr) *path_out = path;
  try {
    load_target_file(path);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

// The error names the file and line and quotes the key.
void expect_error_at(const std::string& text, int line, const std::string& key,
                     const std::string& problem) {
  std::string path;
  std::string message = load_error(text, &path);
  SCOPED_TRACE(text);
  ASSERT_FALSE(message.empty()) << "expected an error";
  EXPECT_EQ(message.rfind(path + ":" + std::to_string(line) + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("'" + key + "'"), std::string::npos) << message;
  EXPECT_NE(message.find(problem), std::string::npos) << message;
}

// A minimal valid target, for error tests to break one thing in.
const char* const kValidHeader = "name = \"board\"\n";
const char* const kValidPool = "[[pool]]\nname = \"sram\"\nsize = \"64K\"\n";

struct ExpectedTarget {
  std::string name;
  std::string triple;
  std::vector<std::string> cflags;
  int64_t max_stack_alloca_size;
  int word_size;
  std::set<std::string> features;
  std::string pool_name;
  int64_t pool_size;
};

const std::vector<ExpectedTarget>& expected_builtins() {
  static const std::vector<ExpectedTarget> targets = {
      {"cortex-m0plus", "thumbv6m-none-eabi",
       {"-mcpu=cortex-m0plus", "-mfloat-abi=soft", "-mthumb"}, 0, 32, {}, "sram", 32 << 10},
      {"cortex-m4", "thumbv7em-none-eabi",
       {"-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-mthumb"}, 0, 32, {"fpu", "dsp"},
       "sram", 128 << 10},
      {"cortex-m55", "thumbv8.1m.main-none-eabi",
       {"-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb"}, 0, 32, {"fpu", "fp64", "dsp", "mve", "mve.fp"},
       "sram", 256 << 10},
      {"cortex-m7", "thumbv7em-none-eabi",
       {"-mcpu=cortex-m7", "-mfloat-abi=hard", "-mfpu=fpv5-d16", "-mthumb"}, 0, 32, {"fpu", "fp64", "dsp"}, "sram",
       512 << 10},
      {"host", "", {}, 1024, 64, {"fpu", "fp64"}, "workspace", 0},
      {"riscv32", "riscv32-unknown-elf", {"-march=rv32imac", "-mabi=ilp32"}, 0, 32, {}, "sram",
       64 << 10},
  };
  return targets;
}

TEST(Targets, BuiltinNamesAreSorted) {
  std::vector<std::string> expected;
  for (const ExpectedTarget& t : expected_builtins()) expected.push_back(t.name);
  EXPECT_EQ(builtin_target_names(), expected);
}

TEST(Targets, EveryBuiltinLoadsWithExpectedValues) {
  for (const ExpectedTarget& e : expected_builtins()) {
    SCOPED_TRACE(e.name);
    Target t = load_builtin_target(e.name);
    EXPECT_EQ(t.name, e.name);
    EXPECT_FALSE(t.description.empty());
    EXPECT_EQ(t.triple, e.triple);
    EXPECT_EQ(t.cflags, e.cflags);
    EXPECT_EQ(t.max_stack_alloca_size, e.max_stack_alloca_size);
    EXPECT_EQ(t.word_size, e.word_size);
    EXPECT_EQ(t.features, e.features);
    // The runtime's AOTC_WORKSPACE_ALIGNMENT default; see runtime-c/aotc_runtime.h.
    EXPECT_EQ(t.workspace_alignment, 16);
    EXPECT_GE(t.constant_alignment, 4);
    EXPECT_EQ(t.constant_alignment & (t.constant_alignment - 1), 0);
    ASSERT_EQ(t.pools.size(), 1u);
    EXPECT_EQ(t.pools[0].name, e.pool_name);
    EXPECT_EQ(t.pools[0].size_bytes, e.pool_size);
    EXPECT_FALSE(t.pools[0].runtime_provided);
    EXPECT_EQ(t.pools[0].section, "");
    EXPECT_EQ(t.source_path, "builtin:" + e.name + ".toml");
  }
}

TEST(Targets, MicroTargetsHaveNoStackAllocasAndFpuFlagsMatch) {
  for (const std::string& name : builtin_target_names()) {
    if (name == "host") continue;
    SCOPED_TRACE(name);
    Target t = load_builtin_target(name);
    EXPECT_EQ(t.max_stack_alloca_size, 0);
    EXPECT_EQ(t.word_size, 32);
    EXPECT_GT(t.pools[0].size_bytes, 0);
    bool soft_float = false;
    for (const std::string& flag : t.cflags) soft_float |= flag == "-mfloat-abi=soft";
    if (t.triple.rfind("thumb", 0) == 0) {
      EXPECT_EQ(soft_float, !t.has("fpu"));
    }
  }
}

TEST(Targets, UnknownBuiltinListsTheBuiltins) {
  try {
    load_builtin_target("cortex-m3000");
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("'cortex-m3000'"), std::string::npos) << message;
    for (const std::string& name : builtin_target_names()) {
      EXPECT_NE(message.find(name), std::string::npos) << message;
    }
  }
}

TEST(Targets, UserFileLoads) {
  std::string path = write_temp_target(R"(# A board with two memories.
name = "my-board"
description = "STM32H7 with DTCM"
triple = "thumbv7em-none-eabi"
cflags = ["-mcpu=cortex-m7", "-mthumb"]
max_stack_alloca_size = 256
workspace_alignment = 32
constant_alignment = 8
word_size = 32
features = ["dsp"]

[[pool]]
name = "dtcm"
size = "64K"
runtime_provided = true
section = ".dtcm_bss"

[[pool]]
name = "sram"
size = 1000

[[pool]]
name = "sdram"
size = "8MiB"
)");
  Target t = load_target_file(path);
  EXPECT_EQ(t.name, "my-board");
  EXPECT_EQ(t.description, "STM32H7 with DTCM");
  EXPECT_EQ(t.triple, "thumbv7em-none-eabi");
  EXPECT_EQ(t.cflags, (std::vector<std::string>{"-mcpu=cortex-m7", "-mthumb"}));
  EXPECT_EQ(t.max_stack_alloca_size, 256);
  EXPECT_EQ(t.workspace_alignment, 32);
  EXPECT_EQ(t.constant_alignment, 8);
  EXPECT_EQ(t.word_size, 32);
  EXPECT_EQ(t.features, std::set<std::string>{"dsp"});
  ASSERT_EQ(t.pools.size(), 3u);
  EXPECT_EQ(t.pools[0].name, "dtcm");
  EXPECT_EQ(t.pools[0].size_bytes, 64 * 1024);
  EXPECT_TRUE(t.pools[0].runtime_provided);
  EXPECT_EQ(t.pools[0].section, ".dtcm_bss");
  EXPECT_EQ(t.pools[1].name, "sram");
  EXPECT_EQ(t.pools[1].size_bytes, 1000);
  EXPECT_FALSE(t.pools[1].runtime_provided);
  EXPECT_EQ(t.pools[1].section, "");
  EXPECT_EQ(t.pools[2].size_bytes, 8 * 1024 * 1024);
  EXPECT_EQ(t.source_path, path);
}

TEST(Targets, MinimalUserFileTakesDefaults) {
  Target t = load_target_file(write_temp_target(std::string(kValidHeader) + kValidPool));
  Target defaults;
  EXPECT_EQ(t.name, "board");
  EXPECT_EQ(t.triple, defaults.triple);
  EXPECT_EQ(t.word_size, defaults.word_size);
  EXPECT_EQ(t.max_stack_alloca_size, defaults.max_stack_alloca_size);
  ASSERT_EQ(t.pools.size(), 1u);
  EXPECT_EQ(t.pools[0].size_bytes, 64 * 1024);
}

TEST(Targets, SizeSuffixes) {
  const std::vector<std::pair<std::string, int64_t>> cases = {
      {"0", 0},          {"512", 512},          {"1K", 1024},         {"3KB", 3 * 1024},
      {"2KiB", 2048},    {"1M", 1 << 20},       {"5MB", 5 << 20},     {"2MiB", 2 << 20},
      {"1G", 1 << 30},   {"4GB", int64_t{4} << 30}, {"1GiB", 1 << 30},
  };
  for (const auto& [text, bytes] : cases) {
    SCOPED_TRACE(text);
    Target t = load_target_file(write_temp_target(
        std::string(kValidHeader) + "[[pool]]\nname = \"p\"\nsize = \"" + text + "\"\n"));
    EXPECT_EQ(t.pools[0].size_bytes, bytes);
  }
}

TEST(Targets, BaseTargetIsOverridden) {
  Target t = load_target_file(write_temp_target(R"(base = "cortex-m4"
name = "nucleo-f446re"

[[pool]]
name = "sram"
size = "112K"
)"));
  Target m4 = load_builtin_target("cortex-m4");
  EXPECT_EQ(t.name, "nucleo-f446re");
  EXPECT_EQ(t.triple, m4.triple);
  EXPECT_EQ(t.cflags, m4.cflags);
  EXPECT_EQ(t.word_size, 32);
  EXPECT_EQ(t.max_stack_alloca_size, 0);
  ASSERT_EQ(t.pools.size(), 1u);
  EXPECT_EQ(t.pools[0].size_bytes, 112 * 1024);

  // Without [[pool]] the base's pools are kept; base may come after other keys.
  t = load_target_file(write_temp_target("name = \"x\"\nfeatures = [\"-fp64\"]\nbase = \"cortex-m7\"\n",
                                         "_2"));
  EXPECT_EQ(t.features, (std::set<std::string>{"fpu", "dsp"}));
  EXPECT_EQ(t.cflags, load_builtin_target("cortex-m7").cflags);
  ASSERT_EQ(t.pools.size(), 1u);
  EXPECT_EQ(t.pools[0].size_bytes, 512 * 1024);
}

TEST(TargetErrors, UnknownKey) {
  expect_error_at(
      std::string(kValidHeader) + "triple = \"\"\nwokspace_alignment = 16\n" + kValidPool, 3,
      "wokspace_alignment", "unknown key");
  // A close misspelling gets a suggestion; anything else the list of keys.
  std::string message =
      load_error(std::string(kValidHeader) + "wokspace_alignment = 16\n" + kValidPool);
  EXPECT_NE(message.find("did you mean 'workspace_alignment'"), std::string::npos) << message;
  message = load_error(std::string(kValidHeader) + "frobnicate = 1\n" + kValidPool);
  EXPECT_NE(message.find("max_stack_alloca_size"), std::string::npos) << message;
}

TEST(TargetErrors, UnknownPoolKey) {
  expect_error_at(std::string(kValidHeader) + kValidPool + "sise = 5\n", 5, "pool.sise",
                  "unknown key");
}

TEST(TargetErrors, FirstProblemInTheFileIsReported) {
  // toml++ keeps keys sorted; the loader must still report line 2 before line 3.
  expect_error_at(std::string(kValidHeader) + "zzz = 1\naaa = 2\n" + kValidPool, 2, "zzz",
                  "unknown key");
}

TEST(TargetErrors, WrongTypes) {
  expect_error_at(std::string(kValidHeader) + "word_size = \"32\"\n" + kValidPool, 2, "word_size",
                  "expected an integer, got a string");
  expect_error_at(std::string(kValidHeader) + "features = \"fpu\"\n" + kValidPool, 2, "features",
                  "expected an array, got a string");
  expect_error_at(std::string(kValidHeader) + "cflags = \"-O2\"\n" + kValidPool, 2, "cflags",
                  "expected an array");
  expect_error_at(std::string(kValidHeader) + "cflags = [\n  \"-O2\",\n  3,\n]\n" + kValidPool, 4,
                  "cflags", "expected a string, got an integer");
  expect_error_at("name = 5\n" + std::string(kValidPool), 1, "name", "expected a string");
  expect_error_at(std::string(kValidHeader) + "pool = 5\n", 2, "pool", "expected an array");
  expect_error_at(std::string(kValidHeader) + "pool = [1]\n", 2, "pool", "expected a table");
  expect_error_at(std::string(kValidHeader) + "[[pool]]\nname = \"p\"\nsize = 1.5\n", 4,
                  "pool.size", "expected an integer or a string");
  expect_error_at(std::string(kValidHeader) + kValidPool + "runtime_provided = \"yes\"\n", 5,
                  "pool.runtime_provided", "expected a boolean");
}

TEST(TargetErrors, BadValues) {
  expect_error_at(std::string(kValidHeader) + "[[pool]]\nname = \"p\"\nsize = -1\n", 4,
                  "pool.size", "negative size");
  expect_error_at(std::string(kValidHeader) + "[[pool]]\nname = \"p\"\nsize = \"-4K\"\n", 4,
                  "pool.size", "negative size");
  for (const char* bad : {"12X", "K", "", "1.5M", "64 K", "0x100", "1k"}) {
    expect_error_at(std::string(kValidHeader) + "[[pool]]\nname = \"p\"\nsize = \"" + bad + "\"\n",
                    4, "pool.size", "bad size");
  }
  expect_error_at(std::string(kValidHeader) + "[[pool]]\nname = \"p\"\nsize = \"99999999999G\"\n",
                  4, "pool.size", "too large");
  expect_error_at(std::string(kValidHeader) + "max_stack_alloca_size = -8\n" + kValidPool, 2,
                  "max_stack_alloca_size", "negative size");
  expect_error_at(std::string(kValidHeader) + "workspace_alignment = 12\n" + kValidPool, 2,
                  "workspace_alignment", "power of two");
  expect_error_at(std::string(kValidHeader) + "constant_alignment = 0\n" + kValidPool, 2,
                  "constant_alignment", "power of two");
  expect_error_at(std::string(kValidHeader) + "constant_alignment = -4\n" + kValidPool, 2,
                  "constant_alignment", "power of two");
  expect_error_at(std::string(kValidHeader) + "word_size = 24\n" + kValidPool, 2, "word_size",
                  "word size must be");
  expect_error_at("name = \"\"\n" + std::string(kValidPool), 1, "name", "non-empty");
  expect_error_at(std::string(kValidHeader) + "[[pool]]\nname = \"my-pool\"\nsize = 1\n", 3,
                  "pool.name", "not a C identifier");
  expect_error_at(std::string(kValidHeader) + kValidPool + kValidPool, 6, "pool.name",
                  "duplicate pool name");
  expect_error_at(std::string(kValidHeader) + "word_size = 64\nworkspace_alignment = 8\n" +
                      kValidPool,
                  3, "workspace_alignment", "block header");
  expect_error_at("base = \"cortex-m3000\"\n" + std::string(kValidHeader), 1, "base",
                  "unknown built-in target");
  expect_error_at(std::string(kValidHeader) + "pool = []\n", 2, "pool", "at least one pool");
}

TEST(TargetErrors, MissingKeys) {
  std::string path;
  std::string message = load_error(kValidPool, &path);
  EXPECT_EQ(message, path + ": missing required key 'name'");
  message = load_error(kValidHeader, &path);
  EXPECT_EQ(message, path + ": missing required key 'pool'");
  expect_error_at(std::string(kValidHeader) + "[[pool]]\nname = \"p\"\n", 2, "pool.size",
                  "missing required key");
  expect_error_at(std::string(kValidHeader) + "[[pool]]\nsize = 1\n", 2, "pool.name",
                  "missing required key");
}

TEST(TargetErrors, SyntaxError) {
  std::string path;
  std::string message = load_error(std::string(kValidHeader) + "triple = \"thumb\n" + kValidPool,
                                   &path);
  EXPECT_EQ(message.rfind(path + ":2:", 0), 0u) << message;
  EXPECT_NE(message.find("TOML syntax error"), std::string::npos) << message;

  message = load_error(std::string(kValidHeader) + kValidPool + "name = \"again\"\n", &path);
  EXPECT_EQ(message.rfind(path + ":5:", 0), 0u) << message;
  EXPECT_NE(message.find("TOML syntax error"), std::string::npos) << message;

  message = load_error(std::string(kValidHeader) + "word_size 32\n" + kValidPool, &path);
  EXPECT_EQ(message.rfind(path + ":2:", 0), 0u) << message;
}

TEST(TargetErrors, MissingFile) {
  std::string path = testing::TempDir() + "aotc_no_such_target.toml";
  try {
    load_target_file(path);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open target file");
  }
}

// The built-in triples and flags must be ones a compiler accepts; checked with clang when
// it is installed (it is a cross compiler for every target).
TEST(Targets, BuiltinFlagsAreAcceptedByClang) {
  if (std::system("clang --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no clang";
  std::string source = write_temp_target("", "_src");
  source.replace(source.size() - 5, 5, ".c");
  {
    std::ofstream out(source);
    out << "#include <stdint.h>\nfloat scale(float x, int32_t n) { return x * (float)n; }\n";
  }
  for (const std::string& name : builtin_target_names()) {
    SCOPED_TRACE(name);
    Target t = load_builtin_target(name);
    std::string command = "clang -std=c99 -Werror -ffreestanding -c -o /dev/null";
    if (!t.triple.empty()) command += " --target=" + t.triple;
    for (const std::string& flag : t.cflags) command += " " + flag;
    command += " " + source + " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }
  std::remove(source.c_str());
}

}  // namespace
}  // namespace aotc
