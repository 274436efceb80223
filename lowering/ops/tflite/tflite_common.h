// Shared pieces of the TFLite operator lowerings (tflite_*.cc): fused activations, and
// per-tensor/per-channel quantization parameters read from the graph. (TFLite's SAME and
// VALID padding is in window.h, with every other window.)
//
// TFLite graphs keep TFLite's layout (NHWC activations, OHWI convolution filters,
// 1HWO depthwise filters) and semantics; nothing is converted to ONNX's conventions, so
// each kernel can follow TFLite's reference kernel step for step and stay bit-exact.
#pragma once

#include <string>
#include <vector>

#include "aot/graph/graph.h"
#include "aot/graph/op_registry.h"
#include "lowering/ir/ir.h"
#include "lowering/ir/quantization.h"

namespace aotc::tflite {

// The node's "fused_activation" applied to a float value (NONE, RELU, RELU6, RELU_N1_TO_1).
ir::Expr apply_float_activation(const Node& node, ir::Expr value);

// TFLite's float sigmoid (reference_ops::Logistic): 1 above 16.619047..., exp(x) below -9,
// else 1 / (1 + exp(-x)), in float.
ir::Expr float_logistic(ir::Expr x);

// Quantization of tensor `id`: scale and zero point (per-tensor: index 0).
bool is_int8(const Graph& g, TensorId id);
double scale_of(const Graph& g, TensorId id, size_t channel = 0);
// The scale as the float TFLite stores and computes with.
float float_scale(const Graph& g, TensorId id);
int32_t zero_point_of(const Graph& g, TensorId id);
bool is_per_channel(const Graph& g, TensorId id);
// Requires tensor `id` to carry quantization parameters; node_error otherwise.
void require_quantized(const Graph& g, const Node& node, TensorId id);
// Requires the optional bias `bias` (kNoTensor: none) to hold `expected` elements, one per
// output channel or unit, which the kernels read; node_error otherwise.
void require_bias_length(const Graph& g, const Node& node, TensorId bias, int64_t expected);

// TFLite's CheckedLog2: log2(x) rounded to the nearest integer, in float as TFLite computes
// it; true if x is a power of two to within 1e-3 in log2.
bool checked_log2(float x, int* log2);

// Range [min, max] of the output type, narrowed by the node's fused activation.
QuantizedRange output_range(const Graph& g, const Node& node, TensorId output);

// The int8 value x of a fused activation's range clamp: max(min(x, range.max), range.min).
ir::Expr clamp(ir::Expr x, const QuantizedRange& range);

// Per-output-channel requantization for a convolution-like kernel: for each channel c,
// input_scale * filter_scale[c] / output_scale as (multiplier, shift); one entry when the
// filter is quantized per tensor. The product and quotient in double of the float scales
// (PopulateConvolutionQuantizationParams), except for a FULLY_CONNECTED (`fully_connected`)
// with a per-tensor filter: TFLite Micro's GetQuantizedConvolutionMultipler multiplies the
// two scales in float first (per_tensor_product_multiplier, which BATCH_MATMUL and the
// LSTM's gate products take too).
std::vector<QuantizedMultiplier> channel_multipliers(const Graph& g, TensorId input, TensorId filter, TensorId output,
                                                     int64_t channels, bool fully_connected = false);

// TFLite's GetQuantizedConvolutionMultipler: QuantizeMultiplier(double(input_scale *
// filter_scale) / output_scale), the product rounded to float. It can differ from the
// double product in the multiplier's last bits, which moves a 16-bit output by one where
// it lies within a few thousandths of a half.
QuantizedMultiplier per_tensor_product_multiplier(float input_scale, float filter_scale, float output_scale);

// ADD and SUB scale each zero-point-corrected int8 input by 2^20 before rescaling, so that
// the rescaled inputs keep 20 bits of precision below the output's unit; int16 inputs by
// 2^15, which keeps the sum of two (65535 << 15 each) inside the int32 accumulator.
constexpr int kAddSubLeftShift = 20;
constexpr int kAddSubLeftShiftInt16 = 15;

// The three rescalings of an int8 or int16 ADD or SUB (TFLite's ArithmeticParams), computed
// as TFLite Micro's Prepare computes them (left_shift by the output's type); node_error when
// a factor is outside (0, 1).
struct AddSubMultipliers {
  QuantizedMultiplier input1, input2, output;
  int left_shift;
};
AddSubMultipliers add_sub_multipliers(const Graph& g, const Node& node, bool subtract);
// The rescaling of an int8 MUL: input1_scale * input2_scale / output_scale.
QuantizedMultiplier mul_multiplier(const Graph& g, const Node& node);

// A TFLite operator that is an operator with ONNX semantics once its compile-time operands
// are known (TRANSPOSE is Transpose with the perm tensor's values...): `translate` builds
// that operator's node from the TFLite node, on the same tensors, with the operands in the
// attribute forms of the early opsets (which is how a graph without an ONNX opset, as a
// TFLite graph is, reads them). Its shape function and kernel are the ONNX operator's, so
// that the index arithmetic exists once; the output types and shapes it computes must
// agree with what the model declares. `check`, if given, first applies TFLite's own
// restrictions. The roles (fusion, in place) are the caller's to add with .with().
using Translation = std::function<Node(const Graph&, const Node&)>;
OpDef translated_op(Translation translate, InferFn check = nullptr);

// A copy of `node` (inputs, outputs, attributes, fused epilogue) as operator `op`.
Node as_operator(const Node& node, const std::string& op);

}  // namespace aotc::tflite
