// TFLite operator codes and options tables -> aotc operator names and Node attributes.
// (The attribute keys are listed in tflite_importer.h.) Split from the importer, which
// owns the file-level checks and the tensors, because this half grows with every
// operator aotc learns to read.
#include "aot/import/tflite_operators.h"

#include <string>

namespace aotc::tflite_import {
namespace {

[[noreturn]] void fail(const std::string& message) { throw CompileError(message); }

// ---------------------------------------------------------------------------
// Operator options -> Node attributes.

// A table of type Options with no fields set, so that its accessors return the
// schema's defaults. Used when an operator has no options table at all.
template <typename Options>
const Options& default_options() {
  static const flatbuffers::DetachedBuffer empty_table = [] {
    flatbuffers::FlatBufferBuilder builder;
    auto start = builder.StartTable();
    builder.Finish(flatbuffers::Offset<Options>(builder.EndTable(start)));
    return builder.Release();
  }();
  return *flatbuffers::GetRoot<Options>(empty_table.data());
}

// The operator's options as an Options table; defaults when it has none, an
// error when it carries a different options type.
template <typename Options>
const Options& options_or_default(const tfl::Operator& op) {
  tfl::BuiltinOptions type = op.builtin_options_type();
  if (type == tfl::BuiltinOptions_NONE || op.builtin_options() == nullptr) return default_options<Options>();
  tfl::BuiltinOptions expected = tfl::BuiltinOptionsTraits<Options>::enum_value;
  if (type != expected) {
    const char* found = tfl::EnumNameBuiltinOptions(type);
    fail(std::string("expected ") + tfl::EnumNameBuiltinOptions(expected) + ", found options of type " +
         (found && *found ? std::string(found) : std::to_string(static_cast<int>(type))));
  }
  return *static_cast<const Options*>(op.builtin_options());
}

// The name flatc generated for an enum value; an error for values the schema
// does not define (the verifier does not check enum ranges).
template <typename Enum>
std::string enum_name(Enum value, const char* (*name_of)(Enum), const char* what) {
  const char* name = name_of(value);
  if (name == nullptr || *name == '\0') {
    fail(std::string("unknown ") + what + " " + std::to_string(static_cast<int>(value)));
  }
  return name;
}

void set_int(Node& node, const char* key, int64_t value) { node.attrs[key] = value; }
void set_bool(Node& node, const char* key, bool value) { node.attrs[key] = int64_t{value ? 1 : 0}; }

// Window geometry that later passes divide by or loop over: must be >= 1.
void set_positive(Node& node, const char* key, int64_t value) {
  if (value < 1) fail(std::string(key) + " must be at least 1, got " + std::to_string(value));
  node.attrs[key] = value;
}

void set_ints(Node& node, const char* key, const flatbuffers::Vector<int32_t>* values) {
  std::vector<int64_t> ints;
  if (values != nullptr) ints.assign(values->begin(), values->end());
  node.attrs[key] = std::move(ints);
}

void set_padding(Node& node, tfl::Padding padding) {
  node.attrs["padding"] = enum_name(padding, tfl::EnumNamePadding, "padding");
}

void set_activation(Node& node, tfl::ActivationFunctionType activation) {
  node.attrs["fused_activation"] = enum_name(activation, tfl::EnumNameActivationFunctionType, "fused activation");
}

void set_strides(Node& node, int32_t stride_h, int32_t stride_w) {
  set_positive(node, "stride_h", stride_h);
  set_positive(node, "stride_w", stride_w);
}

void set_dilations(Node& node, int32_t dilation_h, int32_t dilation_w) {
  set_positive(node, "dilation_h", dilation_h);
  set_positive(node, "dilation_w", dilation_w);
}

void read_conv2d(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::Conv2DOptions>(op);
  set_padding(node, o.padding());
  set_strides(node, o.stride_h(), o.stride_w());
  set_dilations(node, o.dilation_h_factor(), o.dilation_w_factor());
  set_activation(node, o.fused_activation_function());
}

void read_depthwise_conv2d(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::DepthwiseConv2DOptions>(op);
  set_padding(node, o.padding());
  set_strides(node, o.stride_h(), o.stride_w());
  set_dilations(node, o.dilation_h_factor(), o.dilation_w_factor());
  set_int(node, "depth_multiplier", o.depth_multiplier());
  set_activation(node, o.fused_activation_function());
}

void read_transpose_conv(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::TransposeConvOptions>(op);
  set_padding(node, o.padding());
  set_strides(node, o.stride_h(), o.stride_w());
  set_activation(node, o.fused_activation_function());
}

void read_pool2d(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::Pool2DOptions>(op);
  set_padding(node, o.padding());
  set_strides(node, o.stride_h(), o.stride_w());
  set_positive(node, "filter_h", o.filter_height());
  set_positive(node, "filter_w", o.filter_width());
  set_activation(node, o.fused_activation_function());
}

void read_fully_connected(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::FullyConnectedOptions>(op);
  // Shuffled weights are a layout private to TFLite's x86 kernels.
  if (o.weights_format() != tfl::FullyConnectedOptionsWeightsFormat_DEFAULT) {
    fail("weights format " + std::to_string(static_cast<int>(o.weights_format())) + " is not supported");
  }
  set_activation(node, o.fused_activation_function());
  set_bool(node, "keep_num_dims", o.keep_num_dims());
}

void read_add(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::AddOptions>(op);
  set_activation(node, o.fused_activation_function());
  set_bool(node, "pot_scale_int16", o.pot_scale_int16());
}

void read_sub(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::SubOptions>(op);
  set_activation(node, o.fused_activation_function());
  set_bool(node, "pot_scale_int16", o.pot_scale_int16());
}

void read_mul(const tfl::Operator& op, Node& node) {
  set_activation(node, options_or_default<tfl::MulOptions>(op).fused_activation_function());
}

void read_div(const tfl::Operator& op, Node& node) {
  set_activation(node, options_or_default<tfl::DivOptions>(op).fused_activation_function());
}

void read_l2_norm(const tfl::Operator& op, Node& node) {
  set_activation(node, options_or_default<tfl::L2NormOptions>(op).fused_activation_function());
}

void read_concatenation(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::ConcatenationOptions>(op);
  set_int(node, "axis", o.axis());
  set_activation(node, o.fused_activation_function());
}

void read_softmax(const tfl::Operator& op, Node& node) {
  node.attrs["beta"] = static_cast<double>(options_or_default<tfl::SoftmaxOptions>(op).beta());
}

// new_shape is optional in TFLite (the shape tensor, input 1, wins); only set it
// when the file has it.
void read_reshape(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::ReshapeOptions>(op);
  if (o.new_shape() != nullptr) set_ints(node, "new_shape", o.new_shape());
}

void read_reducer(const tfl::Operator& op, Node& node) {
  set_bool(node, "keep_dims", options_or_default<tfl::ReducerOptions>(op).keep_dims());
}

void read_squeeze(const tfl::Operator& op, Node& node) {
  set_ints(node, "squeeze_dims", options_or_default<tfl::SqueezeOptions>(op).squeeze_dims());
}

void read_strided_slice(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::StridedSliceOptions>(op);
  set_int(node, "begin_mask", o.begin_mask());
  set_int(node, "end_mask", o.end_mask());
  set_int(node, "ellipsis_mask", o.ellipsis_mask());
  set_int(node, "new_axis_mask", o.new_axis_mask());
  set_int(node, "shrink_axis_mask", o.shrink_axis_mask());
  set_bool(node, "offset", o.offset());
}

void read_gather(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::GatherOptions>(op);
  set_int(node, "axis", o.axis());
  set_int(node, "batch_dims", o.batch_dims());
}

void read_split(const tfl::Operator& op, Node& node) {
  set_int(node, "num_splits", options_or_default<tfl::SplitOptions>(op).num_splits());
}

void read_split_v(const tfl::Operator& op, Node& node) {
  set_int(node, "num_splits", options_or_default<tfl::SplitVOptions>(op).num_splits());
}

void read_pack(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::PackOptions>(op);
  set_int(node, "values_count", o.values_count());
  set_int(node, "axis", o.axis());
}

void read_unpack(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::UnpackOptions>(op);
  set_int(node, "num", o.num());
  set_int(node, "axis", o.axis());
}

void read_space_to_depth(const tfl::Operator& op, Node& node) {
  set_positive(node, "block_size", options_or_default<tfl::SpaceToDepthOptions>(op).block_size());
}

void read_depth_to_space(const tfl::Operator& op, Node& node) {
  set_positive(node, "block_size", options_or_default<tfl::DepthToSpaceOptions>(op).block_size());
}

void read_resize_bilinear(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::ResizeBilinearOptions>(op);
  set_bool(node, "align_corners", o.align_corners());
  set_bool(node, "half_pixel_centers", o.half_pixel_centers());
}

void read_resize_nearest(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::ResizeNearestNeighborOptions>(op);
  set_bool(node, "align_corners", o.align_corners());
  set_bool(node, "half_pixel_centers", o.half_pixel_centers());
}

void read_leaky_relu(const tfl::Operator& op, Node& node) {
  node.attrs["alpha"] = static_cast<double>(options_or_default<tfl::LeakyReluOptions>(op).alpha());
}

void read_mirror_pad(const tfl::Operator& op, Node& node) {
  node.attrs["mode"] = enum_name(options_or_default<tfl::MirrorPadOptions>(op).mode(), tfl::EnumNameMirrorPadMode,
                                 "mirror pad mode");
}

void read_batch_matmul(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::BatchMatMulOptions>(op);
  set_bool(node, "adj_x", o.adj_x());
  set_bool(node, "adj_y", o.adj_y());
}

void read_gelu(const tfl::Operator& op, Node& node) {
  set_bool(node, "approximate", options_or_default<tfl::GeluOptions>(op).approximate());
}

// ---------------------------------------------------------------------------
// The builtin operators aotc imports, by TFLite BuiltinOperator value.

const BuiltinOperatorInfo kBuiltinOperators[] = {
    {0, "ADD", read_add},
    {1, "AVERAGE_POOL_2D", read_pool2d},
    {2, "CONCATENATION", read_concatenation},
    {3, "CONV_2D", read_conv2d},
    {4, "DEPTHWISE_CONV_2D", read_depthwise_conv2d},
    {5, "DEPTH_TO_SPACE", read_depth_to_space},
    {6, "DEQUANTIZE", nullptr},
    {8, "FLOOR", nullptr},
    {9, "FULLY_CONNECTED", read_fully_connected},
    {11, "L2_NORMALIZATION", read_l2_norm},
    {12, "L2_POOL_2D", read_pool2d},
    {14, "LOGISTIC", nullptr},
    {17, "MAX_POOL_2D", read_pool2d},
    {18, "MUL", read_mul},
    {19, "RELU", nullptr},
    {20, "RELU_N1_TO_1", nullptr},
    {21, "RELU6", nullptr},
    {22, "RESHAPE", read_reshape},
    {23, "RESIZE_BILINEAR", read_resize_bilinear},
    {25, "SOFTMAX", read_softmax},
    {26, "SPACE_TO_DEPTH", read_space_to_depth},
    {28, "TANH", nullptr},
    {34, "PAD", nullptr},
    {36, "GATHER", read_gather},
    {39, "TRANSPOSE", nullptr},
    {40, "MEAN", read_reducer},
    {41, "SUB", read_sub},
    {42, "DIV", read_div},
    {43, "SQUEEZE", read_squeeze},
    {45, "STRIDED_SLICE", read_strided_slice},
    {47, "EXP", nullptr},
    {49, "SPLIT", read_split},
    {50, "LOG_SOFTMAX", nullptr},
    {53, "CAST", nullptr},
    {54, "PRELU", nullptr},
    {55, "MAXIMUM", nullptr},
    {56, "ARG_MAX", nullptr},
    {57, "MINIMUM", nullptr},
    {58, "LESS", nullptr},
    {59, "NEG", nullptr},
    {60, "PADV2", nullptr},
    {61, "GREATER", nullptr},
    {62, "GREATER_EQUAL", nullptr},
    {63, "LESS_EQUAL", nullptr},
    {64, "SELECT", nullptr},
    {65, "SLICE", nullptr},
    {66, "SIN", nullptr},
    {67, "TRANSPOSE_CONV", read_transpose_conv},
    {69, "TILE", nullptr},
    {70, "EXPAND_DIMS", nullptr},
    {71, "EQUAL", nullptr},
    {72, "NOT_EQUAL", nullptr},
    {73, "LOG", nullptr},
    {74, "SUM", read_reducer},
    {75, "SQRT", nullptr},
    {76, "RSQRT", nullptr},
    {78, "POW", nullptr},
    {79, "ARG_MIN", nullptr},
    {81, "REDUCE_PROD", read_reducer},
    {82, "REDUCE_MAX", read_reducer},
    {83, "PACK", read_pack},
    {84, "LOGICAL_OR", nullptr},
    {86, "LOGICAL_AND", nullptr},
    {87, "LOGICAL_NOT", nullptr},
    {88, "UNPACK", read_unpack},
    {89, "REDUCE_MIN", read_reducer},
    {90, "FLOOR_DIV", nullptr},
    {92, "SQUARE", nullptr},
    {95, "FLOOR_MOD", nullptr},
    {97, "RESIZE_NEAREST_NEIGHBOR", read_resize_nearest},
    {98, "LEAKY_RELU", read_leaky_relu},
    {99, "SQUARED_DIFFERENCE", nullptr},
    {100, "MIRROR_PAD", read_mirror_pad},
    {101, "ABS", nullptr},
    {102, "SPLIT_V", read_split_v},
    {104, "CEIL", nullptr},
    {106, "ADD_N", nullptr},
    {108, "COS", nullptr},
    {111, "ELU", nullptr},
    {114, "QUANTIZE", nullptr},
    {116, "ROUND", nullptr},
    {117, "HARD_SWISH", nullptr},
    {123, "SELECT_V2", nullptr},
    {126, "BATCH_MATMUL", read_batch_matmul},
    {130, "BROADCAST_TO", nullptr},
    {150, "GELU", read_gelu},
};

// Operators that run another subgraph. Named so the error can say why.
const BuiltinOperatorInfo kSubgraphOperators[] = {
    {31, "CALL", nullptr},
    {118, "IF", nullptr},
    {119, "WHILE", nullptr},
    {129, "CALL_ONCE", nullptr},
};

template <size_t N>
const BuiltinOperatorInfo* find_operator(const BuiltinOperatorInfo (&table)[N], int32_t code) {
  for (const BuiltinOperatorInfo& info : table)
    if (info.code == code) return &info;
  return nullptr;
}

}  // namespace

const BuiltinOperatorInfo* find_builtin_operator(int32_t code) { return find_operator(kBuiltinOperators, code); }
const BuiltinOperatorInfo* find_subgraph_operator(int32_t code) { return find_operator(kSubgraphOperators, code); }


}  // namespace aotc::tflite_import
