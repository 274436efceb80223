// Tests of the target loader (targets/target.cc) and the built-in targets/*.toml.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
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
// A valid file with `lines` between its name (line 1) and its pool.
std::string valid_file_with(const std::string& lines) { return kValidHeader + lines + kValidPool; }

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
       {"-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-mthumb", "-fomit-frame-pointer"}, 0, 32, {"fpu", "dsp"},
       "sram", 128 << 10},
      {"cortex-m55", "thumbv8.1m.main-none-eabi",
       {"-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb"}, 0, 32, {"fpu", "fp64", "dsp", "mve", "mve.fp"},
       "sram", 256 << 10},
      {"cortex-m55-ethos-u55", "thumbv8.1m.main-none-eabi",
       {"-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb"}, 0, 32, {"fpu", "fp64", "dsp", "mve", "mve.fp"},
       "sram", 256 << 10},
      {"cortex-m7", "thumbv7em-none-eabi",
       {"-mcpu=cortex-m7", "-mfloat-abi=hard", "-mfpu=fpv5-d16", "-mthumb", "-fomit-frame-pointer"}, 0, 32,
       {"fpu", "fp64", "dsp"}, "sram",
       512 << 10},
      {"host", "", {}, 1024, 64, {"fpu", "fp64", "simd"}, "workspace", 0},
      {"npu-ref", "thumbv7em-none-eabi",
       {"-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-mthumb", "-fomit-frame-pointer"}, 0, 32, {"fpu", "dsp"},
       "sram", 128 << 10},
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

// The runtime pads its block header to any power of two, so alignments below two words
// load as long as int32 and float32 elements stay aligned (min(4, word bytes)).
TEST(Targets, WorkspaceAlignmentDownToElementAlignment) {
  const std::vector<std::pair<int, int64_t>> smallest = {{64, 4}, {32, 4}, {16, 2}, {8, 1}};
  for (const auto& [word_size, alignment] : smallest) {
    auto target_text = [&, word_size = word_size](int64_t workspace_alignment) {
      return std::string(kValidHeader) + "word_size = " + std::to_string(word_size) +
             "\nworkspace_alignment = " + std::to_string(workspace_alignment) + "\n" + kValidPool;
    };
    for (int64_t accepted : {alignment, alignment * 2, int64_t{32}}) {
      SCOPED_TRACE("word_size " + std::to_string(word_size) + ", workspace_alignment " +
                   std::to_string(accepted));
      Target t = load_target_file(write_temp_target(target_text(accepted)));
      EXPECT_EQ(t.workspace_alignment, accepted);
      EXPECT_EQ(t.workspace_header_bytes(), std::max<int64_t>(2 * word_size / 8, accepted));
    }
    if (alignment > 1) {
      std::string message = load_error(target_text(alignment / 2));
      EXPECT_NE(message.find("int32 and float32 elements need"), std::string::npos)
          << "word_size " << word_size << ": " << message;
    }
  }
  // The base's word size (32 bits) with the file's alignment: an 8-byte header.
  Target t = load_target_file(
      write_temp_target("base = \"cortex-m4\"\nname = \"m4-aligned-8\"\nworkspace_alignment = 8\n"));
  EXPECT_EQ(t.workspace_alignment, 8);
  EXPECT_EQ(t.workspace_header_bytes(), 8);
  EXPECT_EQ(t.workspace_block_bytes(36), 8 + 40);
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

// `features` in a file with a base is relative to the base's: "x" and "+x" add, "-x"
// removes; without a base it is relative to nothing.
TEST(Targets, FeaturesAreRelativeToTheBase) {
  const std::string m4 = "base = \"cortex-m4\"\nname = \"board\"\n";
  const std::string m55 = "base = \"cortex-m55\"\nname = \"board\"\n";
  const std::vector<std::pair<std::string, std::set<std::string>>> cases = {
      {m4, {"fpu", "dsp"}},  // inherited as they are
      {m4 + "features = []\n", {"fpu", "dsp"}},
      {m4 + "features = [\"fp64\"]\n", {"fpu", "fp64", "dsp"}},
      {m4 + "features = [\"+fp64\"]\n", {"fpu", "fp64", "dsp"}},
      {m4 + "features = [\"dsp\"]\n", {"fpu", "dsp"}},  // already there
      {m4 + "features = [\"-fp64\"]\n", {"fpu", "dsp"}},  // not there: nothing to remove
      {m4 + "features = [\"-fpu\", \"-dsp\"]\n", {}},
      {m55 + "features = [\"-mve.fp\"]\n", {"fpu", "fp64", "dsp", "mve"}},
      {m55 + "features = [\"-mve.fp\", \"-mve\", \"-dsp\"]\n", {"fpu", "fp64"}},
      {m55 + "features = [\"-fp64\"]\n", {"fpu", "dsp", "mve", "mve.fp"}},
      {"base = \"cortex-m0plus\"\nname = \"board\"\nfeatures = [\"dsp\", \"mve\"]\n", {"dsp", "mve"}},
      {valid_file_with("features = [\"fpu\", \"+dsp\"]\n"), {"fpu", "dsp"}},
      {valid_file_with("features = [\"-fpu\"]\n"), {}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].first);
    Target t = load_target_file(write_temp_target(cases[i].first, "_" + std::to_string(i)));
    EXPECT_EQ(t.features, cases[i].second);
  }
}

TEST(TargetErrors, UnknownFeature) {
  const std::string known = "(known: fpu, fp64, dsp, mve, mve.fp, simd)";
  expect_error_at(valid_file_with("features = [\n  \"fpu\",\n  \"neon\",\n]\n"), 4,
                  "features", "unknown feature 'neon' " + known);
  // A near miss gets a suggestion, also with a sign and a base.
  expect_error_at("base = \"cortex-m4\"\nname = \"board\"\nfeatures = [\"+dps\"]\n", 3, "features",
                  "unknown feature 'dps' (did you mean 'dsp'? known: fpu, fp64, dsp, mve, mve.fp, simd)");
  expect_error_at(valid_file_with("features = [\"-mvefp\"]\n"), 2, "features", "did you mean 'mve.fp'?");
  expect_error_at(valid_file_with("features = [\"FPU\"]\n"), 2, "features", "unknown feature 'FPU'");
  expect_error_at(valid_file_with("features = [\"-\"]\n"), 2, "features", "empty feature name");
  expect_error_at(valid_file_with("features = [\"fpu\", 64]\n"), 2, "features", "expected a string, got an integer");
}

TEST(TargetErrors, FeatureListedTwice) {
  expect_error_at(valid_file_with("features = [\n  \"dsp\",\n  \"-dsp\",\n]\n"), 4,
                  "features", "feature 'dsp' is listed twice");
  expect_error_at(valid_file_with("features = [\"fpu\", \"+fpu\"]\n"), 2, "features", "feature 'fpu' is listed twice");
}

// A feature needs the one it builds on (see known_features()); the error is at the entry
// that adds it.
TEST(TargetErrors, FeatureWithoutItsPrerequisite) {
  expect_error_at(valid_file_with("features = [\n  \"fpu\",\n  \"mve\",\n]\n"), 4,
                  "features", "feature 'mve' needs 'dsp'; add 'dsp' too");
  expect_error_at(valid_file_with("features = [\"fp64\"]\n"), 2, "features", "feature 'fp64' needs 'fpu'");
  expect_error_at(valid_file_with("features = [\"dsp\", \"mve.fp\"]\n"), 2, "features", "feature 'mve.fp' needs 'mve'");
  expect_error_at("base = \"cortex-m7\"\nname = \"board\"\nfeatures = [\"mve.fp\"]\n", 3, "features",
                  "feature 'mve.fp' needs 'mve'");
  // Helium floating point needs the FPU as well as Helium.
  expect_error_at(valid_file_with("features = [\"dsp\", \"mve\", \"mve.fp\"]\n"), 2,
                  "features", "feature 'mve.fp' needs 'fpu'");
  expect_error_at("base = \"cortex-m55\"\nname = \"board\"\nfeatures = [\"-fp64\", \"-fpu\"]\n", 3, "features",
                  "removing feature 'fpu' leaves 'mve.fp' (from base 'cortex-m55'), which needs it; remove 'mve.fp' too");
  // Adding the prerequisite later in the list is as good as before.
  Target t = load_target_file(write_temp_target(valid_file_with("features = [\"fp64\", \"fpu\"]\n")));
  EXPECT_EQ(t.features, (std::set<std::string>{"fpu", "fp64"}));
}

// Removing what an inherited feature builds on names the removal and everything that
// would have to go with it.
TEST(TargetErrors, RemovalBreaksAPrerequisite) {
  expect_error_at("base = \"cortex-m55\"\nname = \"board\"\nfeatures = [\n  \"-dsp\",\n]\n", 4, "features",
                  "removing feature 'dsp' leaves 'mve' (from base 'cortex-m55'), which needs it; remove 'mve' and "
                  "'mve.fp' too");
  expect_error_at("base = \"cortex-m7\"\nname = \"board\"\nfeatures = [\"-fpu\"]\n", 3, "features",
                  "removing feature 'fpu' leaves 'fp64' (from base 'cortex-m7'), which needs it; remove 'fp64' too");
  expect_error_at("base = \"cortex-m55\"\nname = \"board\"\nfeatures = [\"-mve.fp\", \"-dsp\"]\n", 3,
                  "features", "remove 'mve' too");
  // A feature the file itself adds is not "from base".
  std::string message =
      load_error("base = \"cortex-m4\"\nname = \"board\"\nfeatures = [\"mve\", \"-dsp\"]\n");
  EXPECT_NE(message.find("removing feature 'dsp' leaves 'mve', which needs it"), std::string::npos) << message;
}

TEST(TargetErrors, UnknownKey) {
  expect_error_at(
      valid_file_with("triple = \"\"\nwokspace_alignment = 16\n"), 3,
      "wokspace_alignment", "unknown key");
  // A close misspelling gets a suggestion; anything else the list of keys.
  std::string message =
      load_error(valid_file_with("wokspace_alignment = 16\n"));
  EXPECT_NE(message.find("did you mean 'workspace_alignment'"), std::string::npos) << message;
  message = load_error(valid_file_with("frobnicate = 1\n"));
  EXPECT_NE(message.find("max_stack_alloca_size"), std::string::npos) << message;
}

TEST(TargetErrors, UnknownPoolKey) {
  expect_error_at(std::string(kValidHeader) + kValidPool + "sise = 5\n", 5, "pool.sise",
                  "unknown key");
}

TEST(TargetErrors, FirstProblemInTheFileIsReported) {
  // toml++ keeps keys sorted; the loader must still report line 2 before line 3.
  expect_error_at(valid_file_with("zzz = 1\naaa = 2\n"), 2, "zzz", "unknown key");
}

TEST(TargetErrors, WrongTypes) {
  expect_error_at(valid_file_with("word_size = \"32\"\n"), 2, "word_size", "expected an integer, got a string");
  expect_error_at(valid_file_with("features = \"fpu\"\n"), 2, "features", "expected an array, got a string");
  expect_error_at(valid_file_with("cflags = \"-O2\"\n"), 2, "cflags", "expected an array");
  expect_error_at(valid_file_with("cflags = [\n  \"-O2\",\n  3,\n]\n"), 4,
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
  expect_error_at(valid_file_with("max_stack_alloca_size = -8\n"), 2, "max_stack_alloca_size", "negative size");
  expect_error_at(valid_file_with("workspace_alignment = 12\n"), 2, "workspace_alignment", "power of two");
  expect_error_at(valid_file_with("constant_alignment = 0\n"), 2, "constant_alignment", "power of two");
  expect_error_at(valid_file_with("constant_alignment = -4\n"), 2, "constant_alignment", "power of two");
  expect_error_at(valid_file_with("word_size = 24\n"), 2, "word_size", "word size must be");
  expect_error_at("name = \"\"\n" + std::string(kValidPool), 1, "name", "non-empty");
  expect_error_at(std::string(kValidHeader) + "[[pool]]\nname = \"my-pool\"\nsize = 1\n", 3,
                  "pool.name", "not a C identifier");
  expect_error_at(std::string(kValidHeader) + kValidPool + kValidPool, 6, "pool.name",
                  "duplicate pool name");
  expect_error_at(valid_file_with("word_size = 64\nworkspace_alignment = 2\n"),
                  3, "workspace_alignment",
                  "smaller than the 4 bytes int32 and float32 elements need");
  expect_error_at(valid_file_with("workspace_alignment = 1\nword_size = 32\n"),
                  2, "workspace_alignment", "smaller than the 4 bytes");
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
  std::string message = load_error(valid_file_with("triple = \"thumb\n"), &path);
  EXPECT_EQ(message.rfind(path + ":2:", 0), 0u) << message;
  EXPECT_NE(message.find("TOML syntax error"), std::string::npos) << message;

  message = load_error(std::string(kValidHeader) + kValidPool + "name = \"again\"\n", &path);
  EXPECT_EQ(message.rfind(path + ":5:", 0), 0u) << message;
  EXPECT_NE(message.find("TOML syntax error"), std::string::npos) << message;

  message = load_error(valid_file_with("word_size 32\n"), &path);
  EXPECT_EQ(message.rfind(path + ":2:", 0), 0u) << message;
}

// The [npu] table: which NPU a target has (NpuFacts). The CPU targets have none; npu-ref
// is the reference NPU beside a Cortex-M4F, cortex-m55-ethos-u55 Arm's NPU.
TEST(Targets, NpuTables) {
  EXPECT_FALSE(load_builtin_target("cortex-m4").npu.has_value());
  Target ref = load_builtin_target("npu-ref");
  ASSERT_TRUE(ref.npu.has_value());
  EXPECT_EQ(ref.npu->backend, "npu-ref");
  EXPECT_EQ(ref.npu->operators, (std::vector<std::string>{"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D",
                                                          "MAX_POOL_2D", "ADD", "MUL", "RESHAPE"}));
  EXPECT_EQ(ref.npu->max_kernel, 64);
  EXPECT_EQ(ref.npu->alignment, 16);
  EXPECT_EQ(ref.npu->pools, std::vector<std::string>{"sram"});
  EXPECT_EQ(ref.npu->section, ".rodata.npu");
  EXPECT_EQ(ref.npu->macs_per_cycle, 64.0);
  Target ethos = load_builtin_target("cortex-m55-ethos-u55");
  ASSERT_TRUE(ethos.npu.has_value());
  EXPECT_EQ(ethos.npu->backend, "ethos-u");
  EXPECT_TRUE(ethos.npu->operators.empty());  // Vela decides what the NPU runs
  // A file of one's own: defaults for what it leaves out; a float rate.
  Target own = load_target_file(write_temp_target(valid_file_with("[npu]\nbackend = \"npu-ref\"\nbytes_per_cycle = 2.5\n")));
  ASSERT_TRUE(own.npu.has_value());
  EXPECT_EQ(own.npu->bytes_per_cycle, 2.5);
  EXPECT_EQ(own.npu->max_stride, 255);
  EXPECT_TRUE(own.npu->pools.empty());
}

TEST(TargetErrors, NpuTable) {
  expect_error_at(valid_file_with("[npu]\noperators = [\"ADD\"]\n"), 2, "npu.backend", "missing required key");
  expect_error_at(valid_file_with("[npu]\nbackend = \"npu-ref\"\nbakend = \"x\"\n"), 4, "npu.bakend", "did you mean");
  expect_error_at(valid_file_with("[npu]\nbackend = \"npu-ref\"\nmax_kernel = 0\n"), 4, "npu.max_kernel", "positive");
  expect_error_at(valid_file_with("[npu]\nbackend = \"npu-ref\"\nmacs_per_cycle = -1.0\n"), 4, "npu.macs_per_cycle", "positive");
  expect_error_at(valid_file_with("[npu]\nbackend = \"npu-ref\"\npools = [\"dtcm\"]\n"), 4, "npu.pools", "'dtcm'");
  expect_error_at(valid_file_with("[npu]\nbackend = \"npu-ref\"\nalignment = 32\n"), 4, "npu.alignment",
                  "larger than the workspace alignment");
  expect_error_at(valid_file_with("npu = 3\n"), 2, "npu", "expected a table");
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

// A clang command with `options`, for target `t`: its triple and its cflags.
std::string clang_command(const Target& t, const std::string& options) {
  std::string command = "clang " + options;
  if (!t.triple.empty()) command += " --target=" + t.triple;
  for (const std::string& flag : t.cflags) command += " " + flag;
  return command;
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
    std::string command = clang_command(load_builtin_target(name), "-std=c99 -Werror -ffreestanding -c -o /dev/null") +
                          " " + source + " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }
  std::remove(source.c_str());
}

// Runs a shell command; returns its exit status, with its standard output in *output.
int run_shell(const std::string& command, std::string* output) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output->append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The macros a compiler predefines, from `-dM -E`: name -> value.
std::map<std::string, std::string> parse_predefined(const std::string& dump) {
  std::map<std::string, std::string> macros;
  std::istringstream lines(dump);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("#define ", 0) != 0) continue;
    size_t name_end = line.find(' ', 8);
    macros[line.substr(8, name_end - 8)] = name_end == std::string::npos ? "" : line.substr(name_end + 1);
  }
  return macros;
}

// What the predefined macros say the flags enable, in the terms of known_features(), or
// false for an architecture this test knows no macros of.
//   Arm (ACLE): __ARM_FP bit 2 = single, bit 3 = double precision in hardware (absent
//     without an FPU); __ARM_FEATURE_DSP; __ARM_FEATURE_MVE bit 0 = integer, bit 1 =
//     floating-point Helium.
//   RISC-V: __riscv_flen = the width of the floating-point registers (F: 32, D: 64).
//   x86-64: SSE2, part of the base architecture, does float and double (__SSE2__).
bool features_from_macros(const std::map<std::string, std::string>& macros, std::set<std::string>* features) {
  auto value = [&](const char* name) -> int64_t {
    auto it = macros.find(name);
    return it == macros.end() ? 0 : std::stoll(it->second, nullptr, 0);
  };
  if (macros.count("__arm__") || macros.count("__aarch64__")) {
    if (value("__ARM_FP") & 4) features->insert("fpu");
    if (value("__ARM_FP") & 8) features->insert("fp64");
    if (value("__ARM_FEATURE_DSP")) features->insert("dsp");
    if (value("__ARM_FEATURE_MVE") & 1) features->insert("mve");
    if (value("__ARM_FEATURE_MVE") & 2) features->insert("mve.fp");
    return true;
  }
  if (macros.count("__riscv")) {
    if (value("__riscv_flen") >= 32) features->insert("fpu");
    if (value("__riscv_flen") >= 64) features->insert("fp64");
    return true;
  }
  if (macros.count("__x86_64__")) {
    if (macros.count("__SSE2__")) features->insert({"fpu", "fp64", "simd"});  // SSE2: 128-bit float vectors
    return true;
  }
  return false;
}

// Each built-in target's features are what its own triple and flags make the compiler
// generate code for: clang's predefined macros are an oracle independent of the target
// files, so a feature a lowering would use but the flags do not enable (or the reverse)
// shows up here.
TEST(Targets, BuiltinFeaturesAgreeWithTheCompilersMacros) {
  if (std::system("clang --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no clang";
  std::string registered;
  run_shell("clang -print-targets", &registered);
  int checked = 0;
  for (const std::string& name : builtin_target_names()) {
    SCOPED_TRACE(name);
    Target t = load_builtin_target(name);
    std::string command = clang_command(t, "-dM -E -x c /dev/null");
    std::string dump;
    if (run_shell(command + " 2>&1", &dump) != 0) {
      // A clang built without this architecture cannot say anything about it.
      const std::string arch = t.triple.substr(0, t.triple.find('-'));
      const std::string arch_family = arch.rfind("thumb", 0) == 0 ? "thumb" : arch;
      if (!t.triple.empty() && registered.find(" " + arch_family + " ") == std::string::npos) {
        std::cout << "skipped " << name << ": this clang has no " << arch_family << " backend\n";
        continue;
      }
      ADD_FAILURE() << command << ":\n" << dump;
      continue;
    }
    std::set<std::string> implied;
    if (!features_from_macros(parse_predefined(dump), &implied)) {
      std::cout << "skipped " << name << ": no feature macros known for this architecture\n";
      continue;
    }
    EXPECT_EQ(t.features, implied) << command;
    ++checked;
  }
  EXPECT_GE(checked, 4);  // at least the Arm targets
}

// gcc and clang read cflags_response_file() back as the very flags it was given, also
// flags with white space, quotes and backslashes: macros defined through the file come
// out of the preprocessor with the values after '='.
TEST(Targets, CflagsResponseFileReadsBackAsTheFlags) {
  const std::vector<std::string> flags = {"-DAOTC_PLAIN=1", "-DAOTC_SPACED=a b", "-DAOTC_DOUBLE_QUOTED=\"q\"",
                                          "-DAOTC_SINGLE_QUOTED='c'", "-DAOTC_BACKSLASH=x\\y"};
  std::string path = write_temp_target(cflags_response_file(flags), "_rsp");
  int compilers = 0;
  for (const char* cc : {"clang", "gcc"}) {
    if (std::system((std::string(cc) + " --version > /dev/null 2>&1").c_str()) != 0) continue;
    SCOPED_TRACE(cc);
    ++compilers;
    std::string dump;
    ASSERT_EQ(run_shell(std::string(cc) + " @" + path + " -dM -E -x c /dev/null", &dump), 0) << dump;
    std::map<std::string, std::string> macros = parse_predefined(dump);
    for (const std::string& flag : flags) {
      size_t equals = flag.find('=');
      EXPECT_EQ(macros[flag.substr(2, equals - 2)], flag.substr(equals + 1)) << flag;
    }
  }
  if (compilers == 0) GTEST_SKIP() << "neither clang nor gcc";
}

}  // namespace
}  // namespace aotc
