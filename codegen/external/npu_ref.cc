// The external backend "npu-ref": compiles a region of int8 operators into one command
// stream of aotc's reference NPU (runtime-c/npu/aotc_npu_ref.h) and its constants.
//
// Convolutions, depthwise convolutions and fully connected layers come as the kernel
// strategy's problems (lowering/kernels/node_problem.h), whichever front end made them:
// TFLite's CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ONNX's QLinearConv (channels-last,
// as the channels_last pass leaves it before the partition) and QLinearMatMul with a
// constant matrix (a QDQ model's, once fold_qdq has made them). The problem's
// requantization is data (ChannelRequantization): TFLite's becomes CONV2D and its kin,
// ONNX's exact factors with ties to even their _EVEN twins (stream format 1.1; a stream
// without them stays 1.0). Pooling, ADD and MUL are TFLite's operators, with TFLite's
// integer parameters computed by the same functions aotc's CPU kernels use (tflite_common.h).
// Either way the NPU's results are the CPU's bit for bit. Weights go into the constants
// region as channel records, in the order the NPU reads them: each output channel's bias,
// multiplier and shift, then its weights. Views (RESHAPE, ONNX's Reshape and Flatten) are
// no command: a view's output is its input's bytes.
//
// The region table is [constants, scratch, the region's inputs..., its outputs...]. The
// region's intermediate tensors live in the scratch, placed by aotc's memory planner over
// their live ranges (in commands), at the NPU's alignment.
#include <algorithm>
#include <cmath>
#include <map>

#include "aot/base/memory_planner.h"
#include "aot/graph/external.h"
#include "aot/graph/op_registry.h"
#include "codegen/external/npu_ref_stream.h"
#include "lowering/ir/builtins.h"
#include "lowering/kernels/node_problem.h"
#include "lowering/ops/tflite/tflite_common.h"
#include "lowering/compute/output_overlap.h"
#include "lowering/compute/window.h"

namespace aotc::npu_ref {
namespace {

// Why a node cannot run on the NPU; partition_external keeps it on the CPU.
struct Unsupported {
  std::string reason;
};

void require(bool condition, const std::string& reason) {
  if (!condition) throw Unsupported{reason};
}

const char* const kOperators[] = {"CONV_2D",     "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D",
                                  "MAX_POOL_2D", "ADD",               "MUL",             "RESHAPE"};

// One output channel's parameters: bias, requantization, and its weights in reading order.
struct ChannelRecord {
  int32_t bias = 0;
  QuantizedMultiplier requant;
  std::vector<int8_t> weights;
};

// A command, before its tensors have places: its scalar fields, which tensor each operand
// field names, and its channel records.
struct Command {
  uint32_t opcode = 0, words = 0;
  std::vector<std::pair<uint32_t, int64_t>> fields;
  std::vector<std::pair<uint32_t, TensorId>> reads;  // region field of an operand -> tensor
  std::pair<uint32_t, TensorId> write{0, kNoTensor};
  uint32_t params_field = 0;  // region field of the channel records, 0 if none
  std::vector<ChannelRecord> records;
  int64_t macs = 0;
  // How the output may overlap an input in memory (format 1.2, aotc_npu_ref.h): the first
  // input from this many bytes below it on (a windowed command of one batch), or either
  // input exactly (ADD, MUL); -1 and false: not at all.
  int64_t overlap_distance = -1;
  bool overlap_at_start = false;
};

void require_int8(const Graph& g, TensorId id) {
  require(id != kNoTensor && tflite::is_int8(g, id), "'" + g.tensor(id).name + "' is not an int8 tensor");
  const Tensor& t = g.tensor(id);
  // (ONNX's tensors carry no quantization: their operators' operands do, which the
  // problem has read.)
  require(t.quant.scale.size() <= 1, "'" + t.name + "' is quantized per channel");
  for (int64_t d : t.shape) require(d >= 1 && d <= AOTC_NPU_REF_MAX_DIM, "'" + t.name + "' has a dimension out of the NPU's range");
}

int32_t checked_shift(const QuantizedMultiplier& q) {
  require(q.shift >= -AOTC_NPU_REF_MAX_SHIFT && q.shift <= AOTC_NPU_REF_MAX_SHIFT && q.multiplier >= 0,
          "a requantization shift out of the NPU's range");
  return q.shift;
}

void activation_fields(Command& c, const Graph& g, const Node& node, uint32_t min_field) {
  std::string act = node.attr_string("fused_activation", "NONE");
  require(act == "NONE" || act == "RELU" || act == "RELU6" || act == "RELU_N1_TO_1", "fused activation " + act);
  QuantizedRange range = tflite::output_range(g, node, node.outputs.at(0));
  c.fields.push_back({min_field, range.min});
  c.fields.push_back({min_field + 1, range.max});
}

void window_limits(const WindowAxis& a, const NpuFacts& npu) {
  require(a.kernel <= std::min<int64_t>(npu.max_kernel, AOTC_NPU_REF_MAX_WINDOW), "a kernel larger than the NPU takes");
  require(a.stride <= std::min<int64_t>(npu.max_stride, AOTC_NPU_REF_MAX_WINDOW), "a stride larger than the NPU takes");
  require(a.dilation <= std::min<int64_t>(npu.max_dilation, AOTC_NPU_REF_MAX_WINDOW), "a dilation larger than the NPU takes");
  require(a.pad_begin <= AOTC_NPU_REF_MAX_WINDOW, "padding larger than the NPU takes");
}

// The integer layers the NPU runs: constant int8 weights of zero point 0, a constant
// int32 bias or none, and a requantization it computes (TFLite's, or ONNX's ties to even in
// the _EVEN opcodes of stream 1.1) into an int8 output.
const ChannelRequantization& require_integer_layer(bool int8_constant_symmetric,
                                                   const std::optional<ChannelRequantization>& requantization) {
  require(int8_constant_symmetric, "the weights are not constant int8 with zero point 0 (or the bias not constant)");
  require(requantization.has_value(), "the output is not int8");
  return *requantization;
}

bool half_to_even(const ChannelRequantization& q) {
  return q.rounding == ChannelRequantization::Rounding::kHalfToEven;
}

void check_requantization(const ChannelRequantization& q, const QuantizedMultiplier& m) {
  if (half_to_even(q))
    require(m.shift >= 0 && m.shift <= AOTC_NPU_REF_MAX_EVEN_SHIFT && m.multiplier >= 0,
            "a requantization shift out of the NPU's range");
  else
    checked_shift(m);
}

void output_fields(Command& c, const ChannelRequantization& q, uint32_t output_offset_field, uint32_t min_field) {
  require(q.range.min >= -128 && q.range.max <= 127 && q.range.min <= q.range.max, "an output range beyond int8");
  c.fields.push_back({output_offset_field, q.output_zero_point});
  c.fields.push_back({min_field, q.range.min});
  c.fields.push_back({min_field + 1, q.range.max});
}

// Channel records of a layer with `channels` output channels: its bias, the channel's
// requantization, and `taps(oc)`, the weights of output channel oc in reading order.
std::vector<ChannelRecord> channel_records(const Tensor* bias, const ChannelRequantization& q, int64_t channels,
                                           const std::function<std::vector<int8_t>(int64_t)>& taps) {
  std::vector<ChannelRecord> records;
  for (int64_t oc = 0; oc < channels; ++oc) {
    ChannelRecord r;
    r.bias = bias ? static_cast<int32_t>(bias->element_as_int(oc)) : 0;
    r.requant = q.channels.at(q.channels.size() == 1 ? 0 : static_cast<size_t>(oc));
    check_requantization(q, r.requant);
    r.weights = taps(oc);
    records.push_back(std::move(r));
  }
  return records;
}

// A convolution or depthwise convolution, from its problem (whichever front end made it).
Command conv(const Graph& g, const ConvProblem& p, const NpuFacts& npu) {
  for (TensorId id : {p.input, p.output}) require_int8(g, id);
  const ChannelRequantization& q = require_integer_layer(p.int8_constant_symmetric, p.requantization);
  const ConvGeometry& geo = p.geometry;
  require(geo.layout == ActivationLayout::kChannelsLast, "channels-first activations (the NPU reads NHWC)");
  require(geo.axes.size() == 2, "not a 2-D convolution");
  require(p.depthwise ? geo.filter_layout == FilterLayout::kOneKO : geo.filter_layout == FilterLayout::kOKI && geo.groups == 1,
          "a grouped convolution");
  const Tensor& in = g.tensor(p.input);
  const Tensor& out = g.tensor(p.output);
  const Tensor& filter = *p.constants.filter;
  const WindowAxis& y = geo.axes[0];
  const WindowAxis& x = geo.axes[1];
  require(in.shape.size() == 4 && out.shape == geo.output_shape(), "shapes disagree");
  window_limits(y, npu);
  window_limits(x, npu);

  Command cmd;
  cmd.opcode = p.depthwise ? (half_to_even(q) ? AOTC_NPU_REF_OP_DEPTHWISE_CONV2D_EVEN : AOTC_NPU_REF_OP_DEPTHWISE_CONV2D)
                           : (half_to_even(q) ? AOTC_NPU_REF_OP_CONV2D_EVEN : AOTC_NPU_REF_OP_CONV2D);
  cmd.words = AOTC_NPU_REF_CONV_WORDS;
  cmd.reads = {{AOTC_NPU_REF_F_CONV_INPUT_REGION, p.input}};
  cmd.write = {AOTC_NPU_REF_F_CONV_OUTPUT_REGION, p.output};
  cmd.params_field = AOTC_NPU_REF_F_CONV_PARAMS_REGION;
  for (int i = 0; i < 4; ++i) {
    cmd.fields.push_back({AOTC_NPU_REF_F_CONV_INPUT_N + i, in.shape[static_cast<size_t>(i)]});
    cmd.fields.push_back({AOTC_NPU_REF_F_CONV_OUTPUT_N + i, out.shape[static_cast<size_t>(i)]});
  }
  cmd.fields.insert(cmd.fields.end(), {{AOTC_NPU_REF_F_CONV_KERNEL_H, y.kernel},
                                       {AOTC_NPU_REF_F_CONV_KERNEL_W, x.kernel},
                                       {AOTC_NPU_REF_F_CONV_STRIDE_H, y.stride},
                                       {AOTC_NPU_REF_F_CONV_STRIDE_W, x.stride},
                                       {AOTC_NPU_REF_F_CONV_DILATION_H, y.dilation},
                                       {AOTC_NPU_REF_F_CONV_DILATION_W, x.dilation},
                                       {AOTC_NPU_REF_F_CONV_PAD_TOP, y.pad_begin},
                                       {AOTC_NPU_REF_F_CONV_PAD_LEFT, x.pad_begin},
                                       {AOTC_NPU_REF_F_CONV_INPUT_OFFSET_VALUE, -p.constants.input_zero_point}});
  output_fields(cmd, q, AOTC_NPU_REF_F_CONV_OUTPUT_OFFSET_VALUE, AOTC_NPU_REF_F_CONV_ACT_MIN);
  const int64_t oc = geo.out_channels;
  const int64_t taps = p.depthwise ? y.kernel * x.kernel : y.kernel * x.kernel * geo.in_channels;
  cmd.records = channel_records(p.constants.bias, q, oc, [&](int64_t channel) {
    std::vector<int8_t> w;
    for (int64_t t = 0; t < taps; ++t)  // [O][KH][KW][I]: contiguous per channel; [1][KH][KW][O]: strided by O
      w.push_back(static_cast<int8_t>(filter.element_as_int(p.depthwise ? t * oc + channel : channel * taps + t)));
    return w;
  });
  cmd.macs = out.num_elements() * taps;
  if (in.shape[0] == 1) cmd.overlap_distance = pixel_order_overlap_distance(geo.axes, in.shape[3], out.shape[3], 1);
  return cmd;
}

// A fully connected layer, from its problem.
Command fully_connected(const Graph& g, const FcProblem& p) {
  for (TensorId id : {p.input, p.output}) require_int8(g, id);
  const ChannelRequantization& q = require_integer_layer(!p.folded_bias.empty(), p.requantization);
  const FcGeometry& f = p.geometry;
  require(f.depth <= AOTC_NPU_REF_MAX_DIM && f.units <= AOTC_NPU_REF_MAX_DIM && f.batches <= AOTC_NPU_REF_MAX_DIM,
          "a dimension out of the NPU's range");
  const Tensor& filter = g.tensor(p.filter);
  Command cmd;
  cmd.opcode = half_to_even(q) ? AOTC_NPU_REF_OP_FULLY_CONNECTED_EVEN : AOTC_NPU_REF_OP_FULLY_CONNECTED;
  cmd.words = AOTC_NPU_REF_FC_WORDS;
  cmd.reads = {{AOTC_NPU_REF_F_FC_INPUT_REGION, p.input}};
  cmd.write = {AOTC_NPU_REF_F_FC_OUTPUT_REGION, p.output};
  cmd.params_field = AOTC_NPU_REF_F_FC_PARAMS_REGION;
  cmd.fields = {{AOTC_NPU_REF_F_FC_BATCHES, f.batches},
                {AOTC_NPU_REF_F_FC_IN_FEATURES, f.depth},
                {AOTC_NPU_REF_F_FC_UNITS, f.units},
                {AOTC_NPU_REF_F_FC_INPUT_OFFSET_VALUE, -p.input_zero_point}};
  output_fields(cmd, q, AOTC_NPU_REF_F_FC_OUTPUT_OFFSET_VALUE, AOTC_NPU_REF_F_FC_ACT_MIN);
  cmd.records = channel_records(p.bias != kNoTensor ? &g.tensor(p.bias) : nullptr, q, f.units, [&](int64_t unit) {
    std::vector<int8_t> w;
    for (int64_t d = 0; d < f.depth; ++d) w.push_back(static_cast<int8_t>(filter.element_as_int(p.filter_index(unit, d))));
    return w;
  });
  cmd.macs = f.batches * f.units * f.depth;
  return cmd;
}

Command pool(const Graph& g, const Node& node, const NpuFacts& npu, bool average) {
  for (TensorId id : {node.inputs.at(0), node.outputs.at(0)}) require_int8(g, id);
  const Tensor& in = g.tensor(node.inputs[0]);
  const Tensor& out = g.tensor(node.outputs[0]);
  require(in.shape.size() == 4 && out.shape.size() == 4, "not 4-D");
  require(tflite::scale_of(g, node.inputs[0]) == tflite::scale_of(g, node.outputs[0]) &&
              tflite::zero_point_of(g, node.inputs[0]) == tflite::zero_point_of(g, node.outputs[0]),
          "input and output are quantized differently");
  std::string padding = node.attr_string("padding", "SAME");
  WindowAxis y = tflite_window_axis(node, padding, in.shape[1], node.attr_int("filter_h", 1), node.attr_int("stride_h", 1), 1);
  WindowAxis x = tflite_window_axis(node, padding, in.shape[2], node.attr_int("filter_w", 1), node.attr_int("stride_w", 1), 1);
  require(y.output == out.shape[1] && x.output == out.shape[2] && in.shape[0] == out.shape[0] && in.shape[3] == out.shape[3],
          "shapes disagree");
  window_limits(y, npu);
  window_limits(x, npu);
  for (const WindowAxis& a : {y, x})
    require(a.first_start() + a.kernel > 0 && a.last_start() < a.input, "a pooling window outside the input");
  Command cmd;
  cmd.opcode = average ? AOTC_NPU_REF_OP_AVG_POOL : AOTC_NPU_REF_OP_MAX_POOL;
  cmd.words = AOTC_NPU_REF_POOL_WORDS;
  cmd.reads = {{AOTC_NPU_REF_F_POOL_INPUT_REGION, node.inputs[0]}};
  cmd.write = {AOTC_NPU_REF_F_POOL_OUTPUT_REGION, node.outputs[0]};
  for (int i = 0; i < 4; ++i) cmd.fields.push_back({AOTC_NPU_REF_F_POOL_INPUT_N + i, in.shape[static_cast<size_t>(i)]});
  cmd.fields.insert(cmd.fields.end(), {{AOTC_NPU_REF_F_POOL_OUTPUT_H, out.shape[1]},
                                       {AOTC_NPU_REF_F_POOL_OUTPUT_W, out.shape[2]},
                                       {AOTC_NPU_REF_F_POOL_KERNEL_H, y.kernel},
                                       {AOTC_NPU_REF_F_POOL_KERNEL_W, x.kernel},
                                       {AOTC_NPU_REF_F_POOL_STRIDE_H, y.stride},
                                       {AOTC_NPU_REF_F_POOL_STRIDE_W, x.stride},
                                       {AOTC_NPU_REF_F_POOL_PAD_TOP, y.pad_begin},
                                       {AOTC_NPU_REF_F_POOL_PAD_LEFT, x.pad_begin}});
  activation_fields(cmd, g, node, AOTC_NPU_REF_F_POOL_ACT_MIN);
  if (in.shape[0] == 1) cmd.overlap_distance = pixel_order_overlap_distance({y, x}, in.shape[3], out.shape[3], 1);
  return cmd;
}

// ADD and MUL of two int8 tensors of the output's shape (no broadcasting).
Command elementwise(const Graph& g, const Node& node, bool add) {
  for (TensorId id : {node.inputs.at(0), node.inputs.at(1), node.outputs.at(0)}) require_int8(g, id);
  const std::vector<int64_t>& shape = g.tensor(node.outputs[0]).shape;
  require(g.tensor(node.inputs[0]).shape == shape && g.tensor(node.inputs[1]).shape == shape, "broadcasting");
  const int32_t offset1 = -tflite::zero_point_of(g, node.inputs[0]), offset2 = -tflite::zero_point_of(g, node.inputs[1]);
  const int32_t out_offset = tflite::zero_point_of(g, node.outputs[0]);
  Command cmd;
  cmd.reads = {{AOTC_NPU_REF_F_ADD_INPUT1_REGION, node.inputs[0]}, {AOTC_NPU_REF_F_ADD_INPUT2_REGION, node.inputs[1]}};
  cmd.write = {AOTC_NPU_REF_F_ADD_OUTPUT_REGION, node.outputs[0]};
  const int64_t count = g.tensor(node.outputs[0]).num_elements();
  require(count <= INT32_MAX, "too many elements");
  if (add) {
    tflite::AddSubMultipliers m = tflite::add_sub_multipliers(g, node, false);
    cmd.opcode = AOTC_NPU_REF_OP_ADD;
    cmd.words = AOTC_NPU_REF_ADD_WORDS;
    cmd.fields = {{AOTC_NPU_REF_F_ADD_COUNT, count},
                  {AOTC_NPU_REF_F_ADD_INPUT1_OFFSET_VALUE, offset1},
                  {AOTC_NPU_REF_F_ADD_INPUT2_OFFSET_VALUE, offset2},
                  {AOTC_NPU_REF_F_ADD_LEFT_SHIFT, tflite::kAddSubLeftShift},
                  {AOTC_NPU_REF_F_ADD_INPUT1_MULTIPLIER, m.input1.multiplier},
                  {AOTC_NPU_REF_F_ADD_INPUT1_SHIFT, checked_shift(m.input1)},
                  {AOTC_NPU_REF_F_ADD_INPUT2_MULTIPLIER, m.input2.multiplier},
                  {AOTC_NPU_REF_F_ADD_INPUT2_SHIFT, checked_shift(m.input2)},
                  {AOTC_NPU_REF_F_ADD_OUTPUT_MULTIPLIER, m.output.multiplier},
                  {AOTC_NPU_REF_F_ADD_OUTPUT_SHIFT, checked_shift(m.output)},
                  {AOTC_NPU_REF_F_ADD_OUTPUT_OFFSET_VALUE, out_offset}};
    activation_fields(cmd, g, node, AOTC_NPU_REF_F_ADD_ACT_MIN);
  } else {
    QuantizedMultiplier m = tflite::mul_multiplier(g, node);
    cmd.opcode = AOTC_NPU_REF_OP_MUL;
    cmd.words = AOTC_NPU_REF_MUL_WORDS;
    cmd.fields = {{AOTC_NPU_REF_F_MUL_COUNT, count},
                  {AOTC_NPU_REF_F_MUL_INPUT1_OFFSET_VALUE, offset1},
                  {AOTC_NPU_REF_F_MUL_INPUT2_OFFSET_VALUE, offset2},
                  {AOTC_NPU_REF_F_MUL_OUTPUT_MULTIPLIER, m.multiplier},
                  {AOTC_NPU_REF_F_MUL_OUTPUT_SHIFT, checked_shift(m)},
                  {AOTC_NPU_REF_F_MUL_OUTPUT_OFFSET_VALUE, out_offset}};
    activation_fields(cmd, g, node, AOTC_NPU_REF_F_MUL_ACT_MIN);
  }
  cmd.overlap_at_start = true;  // element i of each input is read before out[i] is written
  return cmd;
}

bool is_view(const Node& node) {
  const OpDef* def = find_op(node.op);
  return def && def->is_view;
}

// The command of a node that is not a view. Convolutions and fully connected layers come
// as the kernel strategy's problems (node_problem.h), from either front end; pooling, ADD
// and MUL as TFLite operators. Throws Unsupported.
Command plan(const Graph& g, const Node& node, const NpuFacts& npu) {
  const std::string op = tflite_operator_name(node);
  try {
    NodeProblem problem = node_problem(g, node);
    if (problem.conv) return conv(g, *problem.conv, npu);
    if (problem.fc) return fully_connected(g, *problem.fc);
    if (op == "AVERAGE_POOL_2D" || op == "MAX_POOL_2D") return pool(g, node, npu, op == "AVERAGE_POOL_2D");
    if (op == "ADD" || op == "MUL") return elementwise(g, node, op == "ADD");
  } catch (const CompileError& e) {  // what the CPU's lowering would report too
    throw Unsupported{e.what()};
  }
  throw Unsupported{"the NPU has no " + node.op};
}

// Which of the NPU's operators `node` is (what a target's [npu] `operators` lists), "" for
// none: a convolution or fully connected layer by its problem, whatever its front end; a
// view (TFLite's RESHAPE, ONNX's Reshape, Flatten, Squeeze...) as RESHAPE.
std::string operator_of(const Graph& g, const Node& node) {
  std::string op = tflite_operator_name(node);
  if (is_view(node)) return op.empty() ? "RESHAPE" : op;
  try {
    NodeProblem problem = node_problem(g, node);
    if (problem.conv) return problem.conv->depthwise ? "DEPTHWISE_CONV_2D" : "CONV_2D";
    if (problem.fc) return "FULLY_CONNECTED";
  } catch (const CompileError&) {
    return "";  // a malformed node stays on the CPU, whose lowering reports it
  }
  return op == "AVERAGE_POOL_2D" || op == "MAX_POOL_2D" || op == "ADD" || op == "MUL" ? op : "";
}

std::string unsupported_reason(const Graph& g, const Node& node, const NpuFacts& npu) {
  try {
    if (is_view(node)) {
      require_int8(g, node.inputs.at(0));
      return "";
    }
    plan(g, node, npu);
    return "";
  } catch (const Unsupported& u) {
    return u.reason;
  }
}

// Compiles one region: places its tensors, writes the commands and the constants.
class RegionCompiler {
 public:
  RegionCompiler(const Graph& g, const Node& region, const NpuFacts& npu) : g_(g), region_(region), npu_(npu) {}

  ExternalFunction compile() {
    const Subgraph& sub = region_.subgraphs.at(0);
    const uint32_t inputs = static_cast<uint32_t>(region_.inputs.size());
    for (uint32_t k = 0; k < inputs; ++k) where_[region_.inputs[k]] = {kFirstInput + k, 0};
    for (uint32_t k = 0; k < region_.outputs.size(); ++k) where_[region_.outputs[k]] = {kFirstInput + inputs + k, 0};

    std::vector<Command> commands;
    for (const Node& node : sub.nodes) {
      if (is_view(node)) {
        view_of_[node.outputs.at(0)] = node.inputs.at(0);
        continue;
      }
      try {
        commands.push_back(plan(g_, node, npu_));
      } catch (const Unsupported& u) {
        node_error(node, "cannot run on the NPU: " + u.reason);
      }
    }
    bool overlapped = false;
    int64_t scratch_bytes = place_intermediates(commands, &overlapped);

    ExternalFunction f;
    f.name = region_.name;
    f.backend = "npu-ref";
    f.invoke = ir::builtin::kNpuInvoke;
    StreamWriter stream;
    if (overlapped) stream.require_minor_version(2);
    ConstantsWriter constants;
    for (const Command& c : commands) {
      stream.begin(c.opcode, c.words);
      for (auto& [field, value] : c.fields) stream.set(field, value);
      int64_t bytes = 0;
      for (auto& [field, tensor] : c.reads) {
        stream.set(field, where(tensor));
        bytes += g_.tensor(tensor).size_bytes();
      }
      stream.set(c.write.first, where(c.write.second));
      bytes += g_.tensor(c.write.second).size_bytes();
      if (c.params_field) {
        uint32_t offset = constants.begin_block();
        for (const ChannelRecord& r : c.records) {
          constants.int32(r.bias);
          constants.int32(r.requant.multiplier);
          constants.int32(r.requant.shift);
          constants.bytes(r.weights);
        }
        bytes += static_cast<int64_t>(constants.data().size() - offset);
        stream.set(c.params_field, Operand{kConstants, offset});
      }
      f.macs += c.macs;
      f.cycles += static_cast<int64_t>(std::ceil(std::max(static_cast<double>(c.macs) / npu_.macs_per_cycle,
                                                          static_cast<double>(bytes) / npu_.bytes_per_cycle))) +
                  npu_.command_cycles;
    }

    const std::string stream_name = region_.name + "_stream", constants_name = region_.name + "_constants";
    f.stream = stream_name;
    const uint32_t table_size = kFirstInput + inputs + static_cast<uint32_t>(region_.outputs.size());
    f.artifacts.push_back({stream_name, "aotc-npu-ref/stream-1." + std::to_string(stream.minor_version()),
                           stream.finish(table_size)});
    if (!constants.data().empty()) {
      f.artifacts.push_back({constants_name, "aotc-npu-ref/constants-1.0", constants.data()});
      f.table.push_back({RegionEntry::Kind::kArtifact, constants_name, 0, 0});
    } else {
      f.table.push_back({RegionEntry::Kind::kScratch, "", 0, 0});  // no constants: an empty region
    }
    f.table.push_back({RegionEntry::Kind::kScratch, "", scratch_bytes, 0});
    for (uint32_t k = 0; k < inputs; ++k) f.table.push_back({RegionEntry::Kind::kInput, "", 0, k});
    for (uint32_t k = 0; k < region_.outputs.size(); ++k) f.table.push_back({RegionEntry::Kind::kOutput, "", 0, k});
    for (const Node& node : sub.nodes) f.nodes.push_back(node.label());
    return f;
  }

 private:
  static constexpr uint32_t kConstants = 0, kScratch = 1, kFirstInput = 2;

  TensorId root(TensorId id) const {
    for (auto it = view_of_.find(id); it != view_of_.end(); it = view_of_.find(id)) id = it->second;
    return id;
  }

  Operand where(TensorId id) const { return where_.at(root(id)); }

  // Intermediate tensors (made and read only inside the region) go to the scratch, live
  // from the command that writes them to the last that reads them; a command's output may
  // overlap its first input as the device allows (Command::overlap_distance). Returns the
  // scratch's size; `overlapped` tells whether some output does overlap its input (a
  // stream of format 1.2).
  int64_t place_intermediates(const std::vector<Command>& commands, bool* overlapped) {
    std::map<TensorId, LiveRange> ranges;
    for (size_t i = 0; i < commands.size(); ++i) {
      int step = static_cast<int>(i);
      TensorId out = root(commands[i].write.second);
      if (!where_.count(out)) ranges[out] = {g_.tensor(out).size_bytes(), step, step};
      for (auto& [field, tensor] : commands[i].reads)
        if (auto it = ranges.find(root(tensor)); it != ranges.end()) it->second.last = step;
    }
    std::map<TensorId, size_t> index;
    for (auto& [id, r] : ranges) index.emplace(id, index.size());
    for (size_t step = 0; step < commands.size(); ++step) {
      const Command& c = commands[step];
      if ((c.overlap_distance < 0 && !c.overlap_at_start) || c.reads.empty()) continue;
      TensorId out = root(c.write.second), in = root(c.reads.front().second);
      // ADD and MUL may write over either input: the one read here for the last time.
      for (auto& [field, tensor] : c.reads)
        if (c.overlap_at_start && ranges.count(root(tensor)) && ranges[root(tensor)].last == static_cast<int>(step))
          in = root(tensor);
      if (!ranges.count(out) || !ranges.count(in) || in == out) continue;
      ranges[out].overlaps = static_cast<int>(index.at(in));
      ranges[out].overlap_distance = std::max<int64_t>(c.overlap_distance, 0);
      ranges[out].overlap_at_start = c.overlap_at_start;
    }
    std::vector<LiveRange> list;
    for (auto& [id, r] : ranges) list.push_back(r);
    Placement p = plan_memory(list, npu_.alignment);
    *overlapped = false;
    for (auto& [id, r] : ranges) {
      const size_t k = index.at(id);
      where_[id] = {kScratch, static_cast<uint32_t>(p.offsets[k])};
      if (r.overlaps < 0) continue;
      const size_t in = static_cast<size_t>(r.overlaps);
      *overlapped |= p.offsets[k] < p.offsets[in] + list[in].size && p.offsets[in] < p.offsets[k] + r.size &&
                     !(r.overlap_at_start && p.offsets[k] == p.offsets[in] && r.size == list[in].size);
    }
    return p.total_bytes;
  }

  const Graph& g_;
  const Node& region_;
  const NpuFacts& npu_;
  std::map<TensorId, Operand> where_;
  std::map<TensorId, TensorId> view_of_;  // view output -> its input
};

ExternalBackend backend() {
  ExternalBackend b;
  b.operators.assign(std::begin(kOperators), std::end(kOperators));
  b.operator_of = operator_of;
  b.unsupported_reason = unsupported_reason;
  b.compile = [](const Graph& g, const Node& region, const NpuFacts& npu) { return RegionCompiler(g, region, npu).compile(); };
  return b;
}

const ExternalBackendRegistrar registrar("npu-ref", backend());

}  // namespace
}  // namespace aotc::npu_ref
