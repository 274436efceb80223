// Generated code compiles for every built-in target with the flags the target file gives:
// `aotc compile` writes them to <name>.cflags, and clang (--target=<triple>) and, for the
// Arm targets, arm-none-eabi-gcc compile the generated C of an int8 MLPerf Tiny model with
// @<name>.cflags under strict warnings, and the kernels differ by the target's features.
// Compile only: running it is the firmware tests' job.
#include <cctype>
#include <iostream>
#include <nlohmann/json.hpp>

#include "targets/target.h"
#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

namespace fs = std::filesystem;

const char* const kWarnings[] = {"-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"};

// Where the C library headers a bare-metal compile needs (<string.h>, <math.h>) come from:
// newlib, as cmake/toolchains/arm-none-eabi-common.cmake finds it for Arm (the sysroot
// beside arm-none-eabi-gcc), and Debian's target-independent newlib headers
// (libnewlib-dev) for RISC-V. Empty when they are not installed.
std::vector<std::string> libc_header_flags(const Target& target) {
  if (target.triple.empty()) return {};  // the host's own headers
  if (target.triple.rfind("thumb", 0) == 0) {
    std::string sysroot = arm_newlib_sysroot();
    if (sysroot.empty()) return {};
    return {"--sysroot=" + sysroot};
  }
  if (fs::exists("/usr/include/newlib/string.h")) return {"-nostdlibinc", "-isystem", "/usr/include/newlib"};
  return {};
}

class CrossCompile : public ::testing::TestWithParam<std::string> {};

TEST_P(CrossCompile, Ad01Int8BuildsWithTheTargetsFlags) {
  const Target target = load_builtin_target(GetParam());
  TempDir dir("aotc-cross");
  const std::string out = dir.path() + "/ad";
  Result r = run({"compile", shared_path("models/mlperf-tiny/ad01_int8.tflite"), "-o", out, "--name", "ad", "--target",
                  target.name});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string cflags_file = out + "/ad.cflags";
  ASSERT_TRUE(fs::exists(cflags_file));

  // metadata.json says which machine the code is for.
  nlohmann::json metadata = nlohmann::json::parse(read_bytes(out + "/metadata.json"));
  EXPECT_EQ(metadata["target"], target.name);
  EXPECT_EQ(metadata["target_triple"], target.triple);
  EXPECT_EQ(metadata["target_cflags"].get<std::vector<std::string>>(), target.cflags);

  // The target's features choose kernels: a core with Helium gets the runtime's vector
  // kernel for the fully connected layers, other microcontrollers the dot product of
  // aotc_dot.h (SMLAD with the DSP extension, plain C without), the host (`simd`) a plain
  // loop (and a target whose NPU runs them runs them there).
  bool on_npu = target.npu && std::count(target.npu->operators.begin(), target.npu->operators.end(), "FULLY_CONNECTED");
  const std::string source = read_bytes(out + "/ad.c");
  EXPECT_EQ(source.find("aotc_mve_conv_s8(") != std::string::npos, target.has("mve") && !on_npu);
  EXPECT_EQ(source.find("aotc_dot_s8_1x4(") != std::string::npos, !target.has("simd") && !target.has("mve") && !on_npu);
  EXPECT_EQ(metadata["target_features"].get<std::vector<std::string>>(), feature_names(target));

  // Each compiler: its command up to the flags, and whether it needs libc headers found.
  std::vector<std::vector<std::string>> compilers;
  std::vector<std::string> header_flags = libc_header_flags(target);
  if (!find_program("clang").empty()) {
    std::vector<std::string> clang = {"clang"};
    if (!target.triple.empty()) clang.push_back("--target=" + target.triple);
    if (!target.triple.empty() && header_flags.empty()) {
      std::cout << "clang for " << target.name << " skipped: no C library headers for " << target.triple << "\n";
    } else {
      clang.insert(clang.end(), header_flags.begin(), header_flags.end());
      compilers.push_back(clang);
    }
  }
  if (target.triple.rfind("thumb", 0) == 0 && !find_program("arm-none-eabi-gcc").empty()) {
    compilers.push_back({"arm-none-eabi-gcc"});
  }
  if (target.triple.empty() && !find_program("gcc").empty()) compilers.push_back({"gcc"});
  if (compilers.empty()) GTEST_SKIP() << "no compiler for " << target.name;

  for (const std::vector<std::string>& compiler : compilers) {
    // The response file means to the compiler what the flags themselves do: the same
    // predefined macros (-mcpu, -mfpu and -mfloat-abi all show there).
    auto predefined = [&](const std::vector<std::string>& flags) {
      std::vector<std::string> command = compiler;
      command.insert(command.end(), flags.begin(), flags.end());
      for (const char* arg : {"-dM", "-E", "-x", "c", "/dev/null"}) command.push_back(arg);
      std::string macros;
      EXPECT_EQ(run_process(command, &macros), 0) << macros;
      return macros;
    };
    EXPECT_EQ(predefined({"@" + cflags_file}), predefined(target.cflags)) << compiler[0] << " " << target.name;

    for (const char* file : {"ad.c", "ad_constants.c", "aotc_runtime.c"}) {
      std::vector<std::string> command = compiler;
      command.push_back("@" + cflags_file);
      command.insert(command.end(), std::begin(kWarnings), std::end(kWarnings));
      command.insert(command.end(), {"-I" + out, "-c", out + "/" + file, "-o", out + "/" + file + ".o"});
      std::string log;
      EXPECT_EQ(run_process(command, &log), 0) << compiler[0] << " " << target.name << " " << file << ":\n" << log;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BuiltinTargets, CrossCompile, ::testing::ValuesIn(builtin_target_names()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace aotc::e2e
