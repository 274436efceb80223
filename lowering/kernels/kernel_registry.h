// The kernel strategy's registry, one per kind of problem (ConvProblem, FcProblem): kernels
// register with a name, a priority, applies(problem, target) and build(...), and select()
// returns, of those that apply, the first of highest priority (registration order breaks
// ties). Each registry has a portable kernel that applies to every problem.
#pragma once

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "aot/base/target_facts.h"
#include "lowering/compute/kernel_builder.h"

namespace aotc {

// A kernel for problems of type Problem: its body reads and writes Operands, the buffers
// its lowering declared (build declares the parameters it reads beyond those given).
template <typename Problem, typename Operands>
struct Kernel {
  std::string name;  // "<family>.<kernel>", e.g. "dsp.blocked_conv_s8": metadata.json's "kernel"
  int priority = 0;
  std::function<bool(const Problem&, const TargetFacts&)> applies;
  std::function<ir::Stmt(KernelBuilder&, const Problem&, Operands&)> build;
  // For window problems (convolutions, pooling) on channels-last inputs, n > 0 when the
  // kernel writes output pixels in row-major order, n at a time at most: when it writes a
  // byte of pixel p it has read, for the last time, all that the windows of the pixels
  // before p - (n - 1) read (1: pixel by pixel; 2: pairs of pixels whose outputs are written
  // a block of channels at a time). Its output may then overlap its input
  // (lowering/compute/output_overlap.h); tests/e2e/test_output_overlap.cc runs every such
  // kernel so. 0: no such order (a depthwise kernel that goes channel by channel). Where the
  // kernel writes over its input in place (staging what it overwrites), staging decides the
  // order, and there is no overlap.
  int pixels_in_flight = 0;
  // For depthwise convolutions of one channel per input channel: the kernel reads all of an
  // input channel (copying it into a plane) before it writes any of that output channel,
  // channel after channel. Its output may then begin where its input begins
  // (LoweredOp::overlap_at_start): output channel c lands on input channel c, read already.
  bool channel_planes = false;
};

template <typename Problem, typename Operands>
class KernelRegistry {
 public:
  using Entry = Kernel<Problem, Operands>;

  static void add(Entry kernel) {
    std::vector<Entry>& kernels = entries();
    auto at = std::find_if(kernels.begin(), kernels.end(), [&](const Entry& k) { return k.priority < kernel.priority; });
    kernels.insert(at, std::move(kernel));
  }

  // Highest priority first.
  static std::vector<std::string> names() {
    std::vector<std::string> names;
    for (const Entry& kernel : entries()) names.push_back(kernel.name);
    return names;
  }

  // Every kernel, highest priority first.
  static const std::vector<Entry>& kernels() { return entries(); }

  static const Entry& select(const Problem& problem, const TargetFacts& target) {
    for (const Entry& kernel : entries())
      if (kernel.applies(problem, target)) return kernel;
    throw std::logic_error("no kernel applies: the registry lacks its portable kernel");
  }

  struct Registrar {
    explicit Registrar(Entry kernel) { add(std::move(kernel)); }
  };

 private:
  static std::vector<Entry>& entries() {
    static std::vector<Entry> kernels;
    return kernels;
  }
};

// Registers `kernel` (a Kernel brace-initializer in parentheses) in `Registry` from a static
// initializer, in the file that defines its builder.
// Braces, not parentheses, around the Entry: `(Registry::Entry (f()))` would declare a
// function, and a kernel built by a call would register nothing.
#define AOTC_REGISTER_KERNEL(Registry, kernel) \
  static Registry::Registrar AOTC_CONCAT(aotc_kernel_registrar_, __COUNTER__){Registry::Entry kernel}

}  // namespace aotc
