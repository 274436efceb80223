// The fully connected kernels and how one is chosen: the kernel strategy of
// conv_kernels.h for matrix products with a constant operand. A front end (TFLite's
// FULLY_CONNECTED, ONNX's QLinearMatMul with a constant right operand, and so the QDQ
// Gemm and MatMul that fold_qdq folds into it) describes its layer as an FcProblem, viewed
// as 2-D (input [batches, depth], filter [units, depth] or [depth, units]); build_fc_kernel takes the registered kernel of
// highest priority that applies on the target and names it in the function's "kernel"
// attribute. The generic loop ("portable.fc") applies to every problem.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lowering/kernels/kernel_registry.h"
#include "lowering/compute/convolution.h"

namespace aotc {

// The layer viewed as 2-D: input [batches, depth], filter [units, depth].
struct FcGeometry {
  int64_t batches, depth, units;
};

struct FcProblem {
  FcGeometry geometry{0, 0, 0};
  ConvArithmetic* arithmetic = nullptr;
  TensorId input = kNoTensor, filter = kNoTensor, bias = kNoTensor, output = kNoTensor;
  // For int8 with a constant filter of zero point 0 and a constant bias (or none): the bias
  // with the input's zero point folded in, bias[u] - zp * sum of row u, wrapped to int32 as
  // the kernels sum (empty otherwise). Kernels that pack the weights need it.
  std::vector<int32_t> folded_bias;
  // The input's zero point, which folded_bias holds (for readers that fold it themselves).
  int32_t input_zero_point = 0;
  // float32 input with a constant float32 filter: the weights can be packed.
  bool float32_constant_filter = false;
  // The arithmetic as TFLite's per-unit requantization, when folded_bias is set.
  std::optional<ChannelRequantization> requantization;
  // The input is a tensor of the memory plan (word-aligned), not one the application passes.
  bool planned_input = false;
  // The filter is stored [depth, units] (a MatMul's right operand) rather than [units, depth].
  bool filter_depth_major = false;

  // The bias is a constant tensor (kernels may pack it).
  bool bias_constant = false;
  // The leading clamp of the node's fused epilogue (float kernels that clamp in registers).
  FusedClamp clamp;
  // Float kernels compute sum_scale * sum + bias_scale * bias (a Gemm's alpha and beta).
  double sum_scale = 1.0, bias_scale = 1.0;
  // The bias is one value for every unit (a Gemm's C of one element) rather than one per unit.
  bool bias_scalar = false;
  // The output's own shape when it is not [batches, units] (a MatMul's [..., M, N], a
  // product with a vector's [N]); empty otherwise. The kernels give the node's fused
  // epilogue the output's own index (output_index).
  std::vector<int64_t> output_shape;

  // The filter's index of (unit, d) in its storage order.
  int64_t filter_index(int64_t unit, int64_t d) const {
    return filter_depth_major ? d * geometry.units + unit : unit * geometry.depth + d;
  }
  // The bias of `unit`, loaded from its parameter (whatever the bias tensor's rank: [N],
  // [1, N], a scalar).
  ir::Expr bias_at(const ir::Buffer& bias, const ir::Expr& unit) const;
  // A float sum with its bias (null: none), scaled by sum_scale and bias_scale.
  ir::Expr float_biased(const ir::Expr& sum, const ir::Buffer& bias, const ir::Expr& unit) const;
  // The output's own index of element (row, unit) of the 2-D view.
  std::vector<ir::Expr> output_index(const ir::Expr& row, const ir::Expr& unit) const;
};

// The kernel's 2-D views of the input and output; build_fc_kernel binds them to the tensors.
struct FcViews {
  ir::Buffer input, output;
};

using FcKernels = KernelRegistry<FcProblem, FcViews>;

// The lowered kernel: the input view first, the selected kernel's parameters, the output
// view last; the function's "kernel" attribute names the kernel.
LoweredOp build_fc_kernel(KernelBuilder& kb, const FcProblem& problem);

}  // namespace aotc
