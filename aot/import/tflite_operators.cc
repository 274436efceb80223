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

// A 16x8 CONV_2D or FULLY_CONNECTED without a bias sums in int64 unless its
// quantized_bias_type asks for int32 (with a bias, the bias's type decides).
void set_int32_accumulator(Node& node, tfl::TensorType quantized_bias_type) {
  if (quantized_bias_type == tfl::TensorType_INT32) set_bool(node, "int32_accumulator", true);
}

void read_conv2d(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::Conv2DOptions>(op);
  set_padding(node, o.padding());
  set_strides(node, o.stride_h(), o.stride_w());
  set_dilations(node, o.dilation_h_factor(), o.dilation_w_factor());
  set_activation(node, o.fused_activation_function());
  set_int32_accumulator(node, o.quantized_bias_type());
}

void read_depthwise_conv2d(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::DepthwiseConv2DOptions>(op);
  set_padding(node, o.padding());
  set_strides(node, o.stride_h(), o.stride_w());
  set_dilations(node, o.dilation_h_factor(), o.dilation_w_factor());
  set_int(node, "depth_multiplier", o.depth_multiplier());
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
  set_int32_accumulator(node, o.quantized_bias_type());
}

// ADD and SUB: the same options, each in a table of its own type.
template <typename Options>
void read_add_or_sub(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<Options>(op);
  set_activation(node, o.fused_activation_function());
  set_bool(node, "pot_scale_int16", o.pot_scale_int16());
}

void read_mul(const tfl::Operator& op, Node& node) {
  set_activation(node, options_or_default<tfl::MulOptions>(op).fused_activation_function());
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

void read_concatenation(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::ConcatenationOptions>(op);
  set_int(node, "axis", o.axis());
  set_activation(node, o.fused_activation_function());
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

void read_transpose_conv(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::TransposeConvOptions>(op);
  set_padding(node, o.padding());
  set_strides(node, o.stride_h(), o.stride_w());
  set_activation(node, o.fused_activation_function());
}

void read_split(const tfl::Operator& op, Node& node) {
  set_positive(node, "num_splits", options_or_default<tfl::SplitOptions>(op).num_splits());
}

void read_split_v(const tfl::Operator& op, Node& node) {
  set_positive(node, "num_splits", options_or_default<tfl::SplitVOptions>(op).num_splits());
}

void read_pack(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::PackOptions>(op);
  set_positive(node, "values_count", o.values_count());
  set_int(node, "axis", o.axis());
}

void read_unpack(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::UnpackOptions>(op);
  set_positive(node, "num", o.num());
  set_int(node, "axis", o.axis());
}

void read_squeeze(const tfl::Operator& op, Node& node) {
  set_ints(node, "squeeze_dims", options_or_default<tfl::SqueezeOptions>(op).squeeze_dims());
}

// MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD.
void read_reducer(const tfl::Operator& op, Node& node) {
  set_bool(node, "keep_dims", options_or_default<tfl::ReducerOptions>(op).keep_dims());
}

void read_leaky_relu(const tfl::Operator& op, Node& node) {
  node.attrs["alpha"] = static_cast<double>(options_or_default<tfl::LeakyReluOptions>(op).alpha());
}

template <typename Options>
void read_resize(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<Options>(op);
  set_bool(node, "align_corners", o.align_corners());
  set_bool(node, "half_pixel_centers", o.half_pixel_centers());
}

void read_depth_to_space(const tfl::Operator& op, Node& node) {
  set_positive(node, "block_size", options_or_default<tfl::DepthToSpaceOptions>(op).block_size());
}

void read_space_to_depth(const tfl::Operator& op, Node& node) {
  set_positive(node, "block_size", options_or_default<tfl::SpaceToDepthOptions>(op).block_size());
}

void read_gather(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::GatherOptions>(op);
  set_int(node, "axis", o.axis());
  set_int(node, "batch_dims", o.batch_dims());
}

// ARG_MAX and ARG_MIN: the output's type (int32 or int64) is the output tensor's.
template <typename Options>
void read_arg_min_max(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<Options>(op);
  node.attrs["output_type"] = enum_name(o.output_type(), tfl::EnumNameTensorType, "output type");
}

// SHAPE: out_type only when the file has options (the schema's default, FLOAT32, is no
// type SHAPE writes); the output tensor's declared type is what the kernel writes.
void read_shape(const tfl::Operator& op, Node& node) {
  if (op.builtin_options_type() == tfl::BuiltinOptions_NONE || op.builtin_options() == nullptr) return;
  const auto& o = options_or_default<tfl::ShapeOptions>(op);
  node.attrs["out_type"] = enum_name(o.out_type(), tfl::EnumNameTensorType, "output type");
}

void read_batch_matmul(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::BatchMatMulOptions>(op);
  set_bool(node, "adj_x", o.adj_x());
  set_bool(node, "adj_y", o.adj_y());
}

void read_l2_normalization(const tfl::Operator& op, Node& node) {
  set_activation(node, options_or_default<tfl::L2NormOptions>(op).fused_activation_function());
}

void read_svdf(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::SVDFOptions>(op);
  set_positive(node, "rank", o.rank());
  set_activation(node, o.fused_activation_function());
}

void read_unidirectional_sequence_lstm(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::UnidirectionalSequenceLSTMOptions>(op);
  set_activation(node, o.fused_activation_function());
  if (!(o.cell_clip() >= 0) || !(o.proj_clip() >= 0)) fail("cell_clip and proj_clip must be >= 0");
  node.attrs["cell_clip"] = static_cast<double>(o.cell_clip());
  node.attrs["proj_clip"] = static_cast<double>(o.proj_clip());
  set_bool(node, "time_major", o.time_major());
  if (o.diagonal_recurrent_tensors()) fail("diagonal recurrent weights are not supported");
}

// Control flow and resource variables. The importer places the subgraphs these name
// (tflite_subgraphs.h), and checks the indices there.
void read_if(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::IfOptions>(op);
  set_int(node, "then_subgraph", o.then_subgraph_index());
  set_int(node, "else_subgraph", o.else_subgraph_index());
}

void read_while(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::WhileOptions>(op);
  set_int(node, "cond_subgraph", o.cond_subgraph_index());
  set_int(node, "body_subgraph", o.body_subgraph_index());
}

void read_call_once(const tfl::Operator& op, Node& node) {
  set_int(node, "init_subgraph", options_or_default<tfl::CallOnceOptions>(op).init_subgraph_index());
}

void read_var_handle(const tfl::Operator& op, Node& node) {
  const auto& o = options_or_default<tfl::VarHandleOptions>(op);
  node.attrs["container"] = o.container() != nullptr ? o.container()->str() : std::string();
  node.attrs["shared_name"] = o.shared_name() != nullptr ? o.shared_name()->str() : std::string();
}

// ---------------------------------------------------------------------------
// The builtin operators aotc imports: those with a lowering (lowering/ops/tflite/),
// and those the importer itself turns into If, Loop and variables (tflite_subgraphs.h).

const BuiltinOperatorInfo kBuiltinOperators[] = {
    {tfl::BuiltinOperator_ABS, nullptr},
    {tfl::BuiltinOperator_ASSIGN_VARIABLE, nullptr},
    {tfl::BuiltinOperator_CALL_ONCE, read_call_once},
    {tfl::BuiltinOperator_EQUAL, nullptr},
    {tfl::BuiltinOperator_GREATER, nullptr},
    {tfl::BuiltinOperator_GREATER_EQUAL, nullptr},
    {tfl::BuiltinOperator_IF, read_if},
    {tfl::BuiltinOperator_LESS, nullptr},
    {tfl::BuiltinOperator_LESS_EQUAL, nullptr},
    {tfl::BuiltinOperator_LOGICAL_AND, nullptr},
    {tfl::BuiltinOperator_LOGICAL_NOT, nullptr},
    {tfl::BuiltinOperator_LOGICAL_OR, nullptr},
    {tfl::BuiltinOperator_NOT_EQUAL, nullptr},
    {tfl::BuiltinOperator_READ_VARIABLE, nullptr},
    {tfl::BuiltinOperator_VAR_HANDLE, read_var_handle},
    {tfl::BuiltinOperator_WHILE, read_while},
    {tfl::BuiltinOperator_ADD, read_add_or_sub<tfl::AddOptions>},
    {tfl::BuiltinOperator_ARG_MAX, read_arg_min_max<tfl::ArgMaxOptions>},
    {tfl::BuiltinOperator_ARG_MIN, read_arg_min_max<tfl::ArgMinOptions>},
    {tfl::BuiltinOperator_AVERAGE_POOL_2D, read_pool2d},
    {tfl::BuiltinOperator_BATCH_MATMUL, read_batch_matmul},
    {tfl::BuiltinOperator_BROADCAST_TO, nullptr},
    {tfl::BuiltinOperator_CONCATENATION, read_concatenation},
    {tfl::BuiltinOperator_CONV_2D, read_conv2d},
    {tfl::BuiltinOperator_DEPTHWISE_CONV_2D, read_depthwise_conv2d},
    {tfl::BuiltinOperator_DEPTH_TO_SPACE, read_depth_to_space},
    {tfl::BuiltinOperator_DEQUANTIZE, nullptr},
    {tfl::BuiltinOperator_EXP, nullptr},
    {tfl::BuiltinOperator_EXPAND_DIMS, nullptr},
    {tfl::BuiltinOperator_FILL, nullptr},
    {tfl::BuiltinOperator_FULLY_CONNECTED, read_fully_connected},
    {tfl::BuiltinOperator_GATHER, read_gather},
    {tfl::BuiltinOperator_HARD_SWISH, nullptr},
    {tfl::BuiltinOperator_L2_NORMALIZATION, read_l2_normalization},
    {tfl::BuiltinOperator_LEAKY_RELU, read_leaky_relu},
    {tfl::BuiltinOperator_LOG, nullptr},
    {tfl::BuiltinOperator_LOGISTIC, nullptr},
    {tfl::BuiltinOperator_MAXIMUM, nullptr},
    {tfl::BuiltinOperator_MAX_POOL_2D, read_pool2d},
    {tfl::BuiltinOperator_MEAN, read_reducer},
    {tfl::BuiltinOperator_MINIMUM, nullptr},
    {tfl::BuiltinOperator_MUL, read_mul},
    {tfl::BuiltinOperator_NEG, nullptr},
    {tfl::BuiltinOperator_PACK, read_pack},
    {tfl::BuiltinOperator_PAD, nullptr},
    {tfl::BuiltinOperator_PADV2, nullptr},
    {tfl::BuiltinOperator_PRELU, nullptr},
    {tfl::BuiltinOperator_QUANTIZE, nullptr},
    {tfl::BuiltinOperator_REDUCE_MAX, read_reducer},
    {tfl::BuiltinOperator_RELU, nullptr},
    {tfl::BuiltinOperator_RELU6, nullptr},
    {tfl::BuiltinOperator_RELU_N1_TO_1, nullptr},
    {tfl::BuiltinOperator_RESHAPE, read_reshape},
    {tfl::BuiltinOperator_RESIZE_BILINEAR, read_resize<tfl::ResizeBilinearOptions>},
    {tfl::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, read_resize<tfl::ResizeNearestNeighborOptions>},
    {tfl::BuiltinOperator_RSQRT, nullptr},
    {tfl::BuiltinOperator_SHAPE, read_shape},
    {tfl::BuiltinOperator_SLICE, nullptr},
    {tfl::BuiltinOperator_SOFTMAX, read_softmax},
    {tfl::BuiltinOperator_SPACE_TO_DEPTH, read_space_to_depth},
    {tfl::BuiltinOperator_SPLIT, read_split},
    {tfl::BuiltinOperator_SPLIT_V, read_split_v},
    {tfl::BuiltinOperator_SQRT, nullptr},
    {tfl::BuiltinOperator_SQUARED_DIFFERENCE, nullptr},
    {tfl::BuiltinOperator_SQUEEZE, read_squeeze},
    {tfl::BuiltinOperator_STRIDED_SLICE, read_strided_slice},
    {tfl::BuiltinOperator_SUB, read_add_or_sub<tfl::SubOptions>},
    {tfl::BuiltinOperator_SUM, read_reducer},
    {tfl::BuiltinOperator_SVDF, read_svdf},
    {tfl::BuiltinOperator_TANH, nullptr},
    {tfl::BuiltinOperator_TILE, nullptr},
    {tfl::BuiltinOperator_TRANSPOSE, nullptr},
    {tfl::BuiltinOperator_TRANSPOSE_CONV, read_transpose_conv},
    {tfl::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, read_unidirectional_sequence_lstm},
    {tfl::BuiltinOperator_UNPACK, read_unpack},
};

}  // namespace

const BuiltinOperatorInfo* find_builtin_operator(int32_t code) {
  for (const BuiltinOperatorInfo& info : kBuiltinOperators)
    if (info.code == code) return &info;
  return nullptr;
}

std::string builtin_operator_name(int32_t code) {
  return tfl::EnumNameBuiltinOperator(static_cast<tfl::BuiltinOperator>(code));
}

bool runs_subgraph(int32_t code) {
  return code == tfl::BuiltinOperator_CALL || code == tfl::BuiltinOperator_IF || code == tfl::BuiltinOperator_WHILE ||
         code == tfl::BuiltinOperator_CALL_ONCE;
}

std::vector<int64_t> called_subgraphs(const Node& node) {
  std::vector<int64_t> called;
  for (const char* key : {"then_subgraph", "else_subgraph", "cond_subgraph", "body_subgraph", "init_subgraph"})
    if (node.has_attr(key)) called.push_back(node.attr_int(key, 0));
  return called;
}

}  // namespace aotc::tflite_import
