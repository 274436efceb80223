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

// ---------------------------------------------------------------------------
// The builtin operators aotc imports: those with a lowering (lowering/ops/tflite_*.cc).

const BuiltinOperatorInfo kBuiltinOperators[] = {
    {tfl::BuiltinOperator_ADD, read_add_or_sub<tfl::AddOptions>},
    {tfl::BuiltinOperator_AVERAGE_POOL_2D, read_pool2d},
    {tfl::BuiltinOperator_CONV_2D, read_conv2d},
    {tfl::BuiltinOperator_DEPTHWISE_CONV_2D, read_depthwise_conv2d},
    {tfl::BuiltinOperator_DEQUANTIZE, nullptr},
    {tfl::BuiltinOperator_FULLY_CONNECTED, read_fully_connected},
    {tfl::BuiltinOperator_MAX_POOL_2D, read_pool2d},
    {tfl::BuiltinOperator_MUL, read_mul},
    {tfl::BuiltinOperator_RESHAPE, read_reshape},
    {tfl::BuiltinOperator_SOFTMAX, read_softmax},
    {tfl::BuiltinOperator_SUB, read_add_or_sub<tfl::SubOptions>},
    {tfl::BuiltinOperator_QUANTIZE, nullptr},
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

}  // namespace aotc::tflite_import
