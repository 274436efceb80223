// The pooling kernels and how one is chosen (the kernel strategy of conv_kernels.h): a
// front end (TFLite's AVERAGE_POOL_2D and MAX_POOL_2D, ONNX's 2-D MaxPool, AveragePool,
// their global forms and aotc.QLinearAveragePool channels-last) describes its pooling as a
// PoolProblem, NHWC with two window axes and the reduction over one window, and
// build_pool_kernel takes the registered kernel of highest priority that applies. The
// portable kernel ("portable.pool") reduces each output element's window, clipped to the
// input (window.h), and applies to every problem.
#pragma once

#include <functional>
#include <vector>

#include "lowering/kernels/kernel_registry.h"
#include "lowering/compute/window.h"

namespace aotc {

// The reduction over one window: `init`, then `update(acc, x)` for each input element x
// the window covers, then `finish(acc, count)` with count the number of those elements
// (only computed for reductions that use it).
struct WindowReduction {
  ir::Expr init;  // also gives the accumulator's type
  std::function<ir::Expr(ir::Expr acc, ir::Expr x)> update;
  std::function<ir::Expr(ir::Expr acc, ir::Expr count)> finish;
  bool uses_count = false;
};

struct PoolProblem {
  int64_t batches = 1, channels = 1;
  std::vector<WindowAxis> axes;  // height, width
  DataType type = DataType::Float32();  // of input and output
  bool average = false;                 // the sum over the window and its count (else the maximum)
  WindowReduction reduction;
  TensorId input = kNoTensor, output = kNoTensor;
  // The node's fused epilogue (ONNX: a Relu behind a MaxPool) on the reduction's value at
  // output index [n, oy, ox, c]; empty for none.
  std::function<ir::Expr(ir::Expr value, const std::vector<ir::Expr>& out_index)> epilogue;

  // The value stored at out_index: finish's, through the epilogue.
  ir::Expr stored(ir::Expr value, const std::vector<ir::Expr>& out_index) const {
    return epilogue ? epilogue(std::move(value), out_index) : value;
  }
};

struct PoolOperands {
  ir::Buffer input, output;
};

using PoolKernels = KernelRegistry<PoolProblem, PoolOperands>;

// The lowered kernel: input and output declared, then the selected kernel's body; the
// function's "kernel" attribute names the kernel.
LoweredOp build_pool_kernel(KernelBuilder& kb, const PoolProblem& problem);

}  // namespace aotc
