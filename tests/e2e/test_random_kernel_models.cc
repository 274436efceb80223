// The models of the random-kernel firmware tests (tests/firmware/random_kernels, issue #27)
// reach every ISA kernel aotc registers: compiled for each core those tests run on, their
// layers take, per metadata.json's "kernel" of each step, every kernel of the core's
// families in the registries (lowering/kernels/{dsp,mve,fpu}). A kernel that stops being
// chosen for them fails here, and so does a kernel registered later in one of those
// families that none of their layers takes (make_random_kernels.py then needs layers for it).
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "lowering/kernels/conv_kernels.h"
#include "lowering/kernels/fc_kernels.h"
#include "lowering/kernels/pool_kernels.h"

namespace aotc::e2e {
namespace {

// Every registered kernel whose name starts with "<family>.".
std::set<std::string> registered_kernels(const std::string& family) {
  std::set<std::string> names;
  for (const std::vector<std::string>& registry : {ConvKernels::names(), FcKernels::names(), PoolKernels::names()})
    for (const std::string& name : registry)
      if (name.rfind(family + ".", 0) == 0) names.insert(name);
  return names;
}

// The kernel of each step of `model` (tests/firmware/random_kernels) compiled for `target`,
// with how many steps took it.
std::map<std::string, int> chosen_kernels(const TempDir& dir, const std::string& model, const std::string& target) {
  std::string out = dir.path() + "/" + model + "_" + target;
  Result r = run({"compile", source_path("tests/firmware/random_kernels/" + model + ".tflite"), "--target", target, "-o", out});
  EXPECT_EQ(r.status, 0) << r.output;
  std::map<std::string, int> chosen;
  if (r.status != 0) return chosen;
  nlohmann::json meta = nlohmann::json::parse(read_bytes(out + "/metadata.json"));
  for (const nlohmann::json& kernel : meta["kernels"])
    if (kernel.contains("kernel")) chosen[kernel["kernel"].get<std::string>()]++;
  return chosen;
}

// The two models together on `target` take every registered kernel of `families`.
void expect_every_kernel_taken(const std::string& target, const std::vector<std::string>& families) {
  TempDir dir("aotc-random-kernels");
  std::map<std::string, int> chosen;
  for (const char* model : {"random_kernels_s8", "random_kernels_f32"})
    for (const auto& [name, steps] : chosen_kernels(dir, model, target)) chosen[name] += steps;
  for (const std::string& family : families) {
    std::set<std::string> registered = registered_kernels(family);
    EXPECT_FALSE(registered.empty()) << "no kernel of family " << family << " is registered";
    for (const std::string& name : registered)
      EXPECT_GT(chosen[name], 0) << name << " takes none of the layers of the random-kernel models on " << target;
  }
  for (const auto& [name, steps] : chosen) std::cout << "  " << target << " " << name << ": " << steps << " layers\n";
}

// The int8 register blocks (SMLAD) and the float register blocks (VMUL, VADD) on the Cortex-M4F
// and the Cortex-M7; Helium's kernels and the float blocks' Helium code on the Cortex-M55.
TEST(RandomKernelModels, TakeEveryDspAndFpuKernelOnCortexM4) { expect_every_kernel_taken("cortex-m4", {"dsp", "fpu"}); }
TEST(RandomKernelModels, TakeEveryDspAndFpuKernelOnCortexM7) { expect_every_kernel_taken("cortex-m7", {"dsp", "fpu"}); }
TEST(RandomKernelModels, TakeEveryMveAndFpuKernelOnCortexM55) { expect_every_kernel_taken("cortex-m55", {"mve", "fpu"}); }

// The DSP and Helium families register the kernels the firmware tests expect (a
// registration written so that C++ reads it as a function declaration registers nothing,
// and every layer silently takes another kernel).
TEST(RandomKernelModels, TheFamiliesRegisterTheirKernels) {
  std::set<std::string> names;
  for (const std::vector<std::string>& registry : {ConvKernels::names(), FcKernels::names(), PoolKernels::names()})
    names.insert(registry.begin(), registry.end());
  for (const char* kernel : {"dsp.blocked_conv_s8", "dsp.depthwise_s8", "dsp.depthwise3_s8", "dsp.fully_connected_s8",
                             "mve.conv_s8", "mve.fully_connected_s8", "mve.average_pool_s8", "fpu.blocked_conv_f32",
                             "fpu.depthwise_f32", "fpu.fully_connected_f32"})
    EXPECT_TRUE(names.count(kernel)) << kernel << " is not registered";
}

// Every registered kernel belongs to a family the tests above account for, or to one that
// runs on no emulated core (portable: every target; host_simd: the host): a new family of
// ISA kernels needs its core added above and in tests/firmware/CMakeLists.txt.
TEST(RandomKernelModels, EveryKernelFamilyIsAccountedFor) {
  const std::set<std::string> families = {"portable", "host_simd", "dsp", "mve", "fpu"};
  for (const std::vector<std::string>& registry : {ConvKernels::names(), FcKernels::names(), PoolKernels::names()})
    for (const std::string& name : registry)
      EXPECT_TRUE(families.count(name.substr(0, name.find('.')))) << name << ": a family no firmware test runs";
}

}  // namespace
}  // namespace aotc::e2e
