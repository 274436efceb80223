#include "aot/import/onnx_operator_versions.h"

#include <algorithm>
#include <string>

namespace aotc {
namespace {

#include "aot/import/onnx_schema_versions.inc"

// The newest version of each ONNX operator that aotc implements. Versions that only add
// element types are implemented when the operator's kernel is: the importer refuses a
// tensor of a type aotc lacks (bfloat16, 4-bit integers, 8-bit and 4-bit floats) and every
// operator checks its operands' types. What newer versions of these operators brought
// (opsets 18 to 24) and how aotc reads it:
//   attributes that became inputs   ReduceMax/Min/Prod/Mean/L1/L2/LogSum/LogSumExp/
//                                   SumSquare-18 (axes, with noop_with_empty_axes),
//                                   Pad-18 (axes), DFT-20 (dft_length, axis)
//   new attributes and modes        Split-18 num_outputs, Resize-18 axes (antialias and
//                                   keep_aspect_ratio_policy other than stretch are
//                                   refused), Resize-19 half_pixel_symmetric (refused),
//                                   ScatterND/ScatterElements-18 reduction max and min,
//                                   LpPool-18 ceil_mode, AveragePool-19 dilations,
//                                   Pad-19 wrap, GroupNormalization-21 per-channel scale,
//                                   GridSample-20 mode names, QuantizeLinear-19 and Cast-19
//                                   saturate (8-bit floats only), Cast-24 round_mode
//                                   (float8e8m0 only), QuantizeLinear-21 output_dtype,
//                                   DequantizeLinear-23 output_dtype (float32 only),
//                                   QuantizeLinear-23 precision (float32 only),
//                                   QuantizeLinear/DequantizeLinear-21 block_size
//   new operators                   CenterCropPad-18, Col2Im-18, Mish-18,
//                                   BitwiseAnd/Or/Xor/Not-18, Gelu-20,
//                                   RMSNormalization-23, Attention-23/24 (GQA, masks, key/value
//                                   cache, softcap, qk_matmul_output, nonpad_kv_seqlen),
//                                   RotaryEmbedding-23, Swish-24
const std::map<std::string, int64_t> kImplemented = {
    {"Abs", 13}, {"Acos", 22}, {"Acosh", 22}, {"Add", 14}, {"Attention", 24}, {"And", 7}, {"ArgMax", 13}, {"ArgMin", 13},
    {"Asin", 22}, {"Asinh", 22}, {"Atan", 22}, {"Atanh", 22}, {"AveragePool", 22}, {"BatchNormalization", 15},
    {"BitShift", 11}, {"BitwiseAnd", 18}, {"BitwiseNot", 18}, {"BitwiseOr", 18}, {"BitwiseXor", 18}, {"BlackmanWindow", 17}, {"Cast", 24}, {"CastLike", 24}, {"Ceil", 13}, {"Celu", 12},
    {"CenterCropPad", 18}, {"Clip", 13}, {"Col2Im", 18}, {"Compress", 11}, {"Concat", 13}, {"Constant", 24},
    {"ConstantOfShape", 24}, {"Conv", 22}, {"ConvInteger", 10}, {"ConvTranspose", 22}, {"Cos", 22}, {"Cosh", 22},
    {"CumSum", 14}, {"DFT", 20}, {"DepthToSpace", 13}, {"DequantizeLinear", 24}, {"Det", 22}, {"Div", 14},
    {"Dropout", 22}, {"DynamicQuantizeLinear", 11}, {"Einsum", 12}, {"Elu", 22}, {"Equal", 19}, {"Erf", 13},
    {"Exp", 13}, {"Expand", 13}, {"EyeLike", 22}, {"Flatten", 24}, {"Floor", 13}, {"GRU", 22}, {"Gather", 13},
    {"GatherElements", 13}, {"GatherND", 13}, {"Gelu", 20}, {"Gemm", 13}, {"GlobalAveragePool", 22},
    {"GlobalLpPool", 22}, {"GlobalMaxPool", 22}, {"Greater", 13}, {"GreaterOrEqual", 16}, {"GridSample", 22},
    {"GroupNormalization", 21}, {"HammingWindow", 17}, {"HannWindow", 17}, {"HardSigmoid", 22}, {"HardSwish", 22},
    {"Hardmax", 13}, {"Identity", 24}, {"If", 24}, {"InstanceNormalization", 22}, {"IsInf", 20}, {"IsNaN", 20},
    {"LRN", 13}, {"LSTM", 22}, {"LayerNormalization", 17}, {"LeakyRelu", 16}, {"Less", 13}, {"LessOrEqual", 16},
    {"Log", 13}, {"LogSoftmax", 13}, {"Loop", 24}, {"LpNormalization", 22}, {"LpPool", 22}, {"MatMul", 13},
    {"MatMulInteger", 10}, {"Max", 13}, {"MaxPool", 22}, {"MaxUnpool", 22}, {"Mean", 13},
    {"MeanVarianceNormalization", 13}, {"MelWeightMatrix", 17}, {"Min", 13}, {"Mish", 22}, {"Mod", 13},
    {"Mul", 14}, {"Neg", 13}, {"NegativeLogLikelihoodLoss", 22}, {"Not", 1}, {"OneHot", 11}, {"Or", 7},
    {"PRelu", 16}, {"Pad", 24}, {"Pow", 15}, {"QLinearConv", 10}, {"QLinearMatMul", 21}, {"QuantizeLinear", 24},
    {"RMSNormalization", 23}, {"RNN", 22}, {"Range", 11}, {"RotaryEmbedding", 23}, {"Reciprocal", 13}, {"ReduceL1", 18}, {"ReduceL2", 18},
    {"ReduceLogSum", 18}, {"ReduceLogSumExp", 18}, {"ReduceMax", 20}, {"ReduceMean", 18}, {"ReduceMin", 20},
    {"ReduceProd", 18}, {"ReduceSum", 13}, {"ReduceSumSquare", 18}, {"Relu", 14}, {"Reshape", 24}, {"Resize", 19},
    {"ReverseSequence", 10}, {"RoiAlign", 22}, {"Round", 22}, {"STFT", 17}, {"Scan", 24}, {"Scatter", 11},
    {"ScatterElements", 18}, {"ScatterND", 18}, {"Selu", 22}, {"Shape", 24}, {"Shrink", 9}, {"Sigmoid", 13},
    {"Sign", 13}, {"Sin", 22}, {"Sinh", 22}, {"Size", 24}, {"Slice", 13}, {"Softmax", 13},
    {"SoftmaxCrossEntropyLoss", 13}, {"Softplus", 22}, {"Softsign", 22}, {"SpaceToDepth", 13}, {"Split", 18},
    {"Sqrt", 13}, {"Squeeze", 24}, {"Sub", 14}, {"Sum", 13}, {"Swish", 24}, {"Tan", 22}, {"Tanh", 13}, {"ThresholdedRelu", 22},
    {"Tile", 13}, {"TopK", 24}, {"Transpose", 24}, {"Trilu", 14}, {"Unsqueeze", 24}, {"Upsample", 10},
    {"Where", 16}, {"Xor", 7},
};

std::string versions_text(const std::vector<int64_t>& versions) {
  std::string s;
  for (int64_t v : versions) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

}  // namespace

int64_t newest_onnx_opset() { return kNewestSchemaOpset; }

const std::vector<int64_t>& onnx_schema_versions(const std::string& op) {
  static const std::vector<int64_t> kNone;
  auto it = kSchemaVersions.find(op);
  return it == kSchemaVersions.end() ? kNone : it->second;
}

int64_t onnx_operator_version(const std::string& op, int64_t opset) {
  const std::vector<int64_t>& versions = onnx_schema_versions(op);
  auto after = std::upper_bound(versions.begin(), versions.end(), opset);
  return after == versions.begin() ? 0 : *(after - 1);
}

const std::map<std::string, int64_t>& implemented_onnx_versions() { return kImplemented; }

std::string onnx_version_problem(const std::string& op, int64_t opset, int64_t newest_implemented) {
  int64_t version = onnx_operator_version(op, opset);
  if (version <= newest_implemented) return "";
  return "version " + std::to_string(version) + " of " + op + " (the one opset " + std::to_string(opset) +
         " means) is not supported: aotc implements " + op + " up to version " + std::to_string(newest_implemented) +
         ", and a newer version may compute something else (" + op + "'s versions: " +
         versions_text(onnx_schema_versions(op)) + "); export the model with an opset before " + std::to_string(version);
}

void check_onnx_operator_version(const Node& node, int64_t opset) {
  auto implemented = kImplemented.find(node.op);
  if (implemented == kImplemented.end()) {
    // An ONNX operator aotc has no kernel for (the unit test keeps kImplemented and the
    // registry in step): say which version the model asked for. Other names are left to
    // the registry.
    int64_t version = onnx_operator_version(node.op, opset);
    if (version != 0)
      node_error(node, "operator '" + node.op + "' is not supported (aotc implements no version of it; opset " +
                           std::to_string(opset) + " means " + node.op + "-" + std::to_string(version) + ")");
    return;
  }
  std::string problem = onnx_version_problem(node.op, opset, implemented->second);
  if (!problem.empty()) node_error(node, problem);
}

}  // namespace aotc
