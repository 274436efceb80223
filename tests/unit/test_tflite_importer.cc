// Tests of the TFLite importer: the MLPerf Tiny reference models import with the
// right interface and structure, and malformed files (built here with the
// generated flatbuffers builder, or cut from real models) fail with a
// CompileError that names what is wrong instead of crashing.
#include "aot/import/tflite_importer.h"

#include <gtest/gtest.h>

#include <functional>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "tflite_schema_generated.h"

#ifndef AOTC_SHARED_DIR
#define AOTC_SHARED_DIR "/work/shared"
#endif

namespace aotc {
namespace {

std::string model_path(const std::string& file) { return std::string(AOTC_SHARED_DIR) + "/models/mlperf-tiny/" + file; }

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Writes `bytes` to a fresh file under the test temp directory; returns its path.
std::string write_temp_file(const std::vector<uint8_t>& bytes) {
  static int counter = 0;
  std::string path = ::testing::TempDir() + "aotc_tflite_" + std::to_string(getpid()) + "_" +
                     std::to_string(counter++) + ".tflite";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Imports `bytes` through a temporary file, as a user's model would be read.
Graph import_via_file(const std::vector<uint8_t>& bytes) {
  std::string path = write_temp_file(bytes);
  struct Remover {
    std::string path;
    ~Remover() { std::remove(path.c_str()); }
  } remover{path};
  return import_tflite(path);
}

// The CompileError message of importing `bytes`, or "" if the import succeeds.
std::string import_error(const std::vector<uint8_t>& bytes) {
  try {
    import_via_file(bytes);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

std::map<std::string, int> op_counts(const Graph& graph) {
  std::map<std::string, int> counts;
  for (const Node& node : graph.nodes) counts[node.op]++;
  return counts;
}

// ---------------------------------------------------------------------------
// The MLPerf Tiny models.

struct ModelInterface {
  const char* file;
  DataType input_dtype;
  std::vector<int64_t> input_shape;
  DataType output_dtype;
  std::vector<int64_t> output_shape;
};

class MlperfModelTest : public ::testing::TestWithParam<ModelInterface> {};

TEST_P(MlperfModelTest, ImportsWithTheDocumentedInterface) {
  const ModelInterface& expected = GetParam();
  Graph graph = import_tflite(model_path(expected.file));
  EXPECT_EQ(graph.source_format, "tflite");
  ASSERT_EQ(graph.inputs.size(), 1u);
  ASSERT_EQ(graph.outputs.size(), 1u);
  const Tensor& input = graph.tensor(graph.inputs[0]);
  const Tensor& output = graph.tensor(graph.outputs[0]);
  EXPECT_EQ(input.dtype, expected.input_dtype) << input.dtype.str();
  EXPECT_EQ(input.shape, expected.input_shape) << shape_str(input.shape);
  EXPECT_EQ(output.dtype, expected.output_dtype) << output.dtype.str();
  EXPECT_EQ(output.shape, expected.output_shape) << shape_str(output.shape);
  EXPECT_FALSE(graph.nodes.empty());
}

TEST_P(MlperfModelTest, TensorsAreConsistent) {
  Graph graph = import_tflite(model_path(GetParam().file));
  for (const Tensor& tensor : graph.tensors) {
    EXPECT_TRUE(tensor.shape_known) << tensor.name;
    EXPECT_FALSE(tensor.name.empty());
    if (tensor.is_constant()) {
      EXPECT_EQ(static_cast<int64_t>(tensor.data->size()), tensor.size_bytes()) << tensor.name;
    }
    EXPECT_EQ(tensor.quant.zero_point.size(), tensor.quant.scale.size()) << tensor.name;
    if (tensor.quant.axis >= 0) {
      ASSERT_LT(static_cast<size_t>(tensor.quant.axis), tensor.shape.size()) << tensor.name;
      EXPECT_EQ(tensor.shape[static_cast<size_t>(tensor.quant.axis)], static_cast<int64_t>(tensor.quant.scale.size()));
    }
  }
  for (const Node& node : graph.nodes) {
    ASSERT_FALSE(node.outputs.empty());
    EXPECT_EQ(node.name, graph.tensor(node.outputs[0]).name);
    EXPECT_EQ(node.op.rfind("tfl.", 0), 0u) << node.op;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Mlperf, MlperfModelTest,
    ::testing::Values(
        ModelInterface{"kws_ref_model.tflite", DataType::Int(8), {1, 49, 10, 1}, DataType::Int(8), {1, 12}},
        ModelInterface{"vww_96_int8.tflite", DataType::Int(8), {1, 96, 96, 3}, DataType::Int(8), {1, 2}},
        ModelInterface{"pretrainedResnet_quant.tflite", DataType::Int(8), {1, 32, 32, 3}, DataType::Int(8), {1, 10}},
        ModelInterface{"pretrainedResnet_large_int8.tflite", DataType::Int(8), {1, 32, 32, 3}, DataType::Int(8),
                       {1, 10}},
        ModelInterface{"ad01_int8.tflite", DataType::Int(8), {1, 640}, DataType::Int(8), {1, 640}},
        ModelInterface{"model_ToyCar_quant_fullint_micro.tflite", DataType::Float32(), {1, 640}, DataType::Float32(),
                       {1, 640}},
        ModelInterface{"vww_96_float.tflite", DataType::Float32(), {1, 96, 96, 3}, DataType::Float32(), {1, 2}},
        ModelInterface{"pretrainedResnet.tflite", DataType::Float32(), {1, 32, 32, 3}, DataType::Float32(), {1, 10}},
        ModelInterface{"ad01_fp32.tflite", DataType::Float32(), {1, 640}, DataType::Float32(), {1, 640}}),
    [](const ::testing::TestParamInfo<ModelInterface>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

struct ModelOperators {
  const char* file;
  std::map<std::string, int> counts;
};

class MlperfOperatorsTest : public ::testing::TestWithParam<ModelOperators> {};

TEST_P(MlperfOperatorsTest, ImportsEachOperatorOfTheModel) {
  EXPECT_EQ(op_counts(import_tflite(model_path(GetParam().file))), GetParam().counts);
}

INSTANTIATE_TEST_SUITE_P(
    Mlperf, MlperfOperatorsTest,
    ::testing::Values(
        // kws fills only OperatorCode.deprecated_builtin_code.
        ModelOperators{"kws_ref_model.tflite",
                       {{"tfl.CONV_2D", 5},
                        {"tfl.DEPTHWISE_CONV_2D", 4},
                        {"tfl.AVERAGE_POOL_2D", 1},
                        {"tfl.RESHAPE", 1},
                        {"tfl.FULLY_CONNECTED", 1},
                        {"tfl.SOFTMAX", 1}}},
        ModelOperators{"vww_96_int8.tflite",
                       {{"tfl.CONV_2D", 14},
                        {"tfl.DEPTHWISE_CONV_2D", 13},
                        {"tfl.AVERAGE_POOL_2D", 1},
                        {"tfl.RESHAPE", 1},
                        {"tfl.FULLY_CONNECTED", 1},
                        {"tfl.SOFTMAX", 1}}},
        ModelOperators{"ad01_int8.tflite", {{"tfl.FULLY_CONNECTED", 10}}}),
    [](const ::testing::TestParamInfo<ModelOperators>& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('_'));
    });

TEST(TfliteImporter, KwsFirstConvolution) {
  Graph graph = import_tflite(model_path("kws_ref_model.tflite"));
  const Node& conv = graph.nodes.at(0);
  ASSERT_EQ(conv.op, "tfl.CONV_2D");
  EXPECT_EQ(conv.attr_string("padding", ""), "SAME");
  EXPECT_EQ(conv.attr_int("stride_h", 0), 2);
  EXPECT_EQ(conv.attr_int("stride_w", 0), 2);
  EXPECT_EQ(conv.attr_int("dilation_h", 0), 1);
  EXPECT_EQ(conv.attr_int("dilation_w", 0), 1);
  EXPECT_EQ(conv.attr_string("fused_activation", ""), "RELU");
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(conv.inputs[0], graph.inputs[0]);

  // Per-channel weights: one scale per output channel (OHWI dimension 0).
  const Tensor& weights = graph.tensor(conv.inputs[1]);
  EXPECT_EQ(weights.dtype, DataType::Int(8));
  ASSERT_TRUE(weights.is_constant());
  EXPECT_EQ(weights.quant.axis, 0);
  EXPECT_EQ(static_cast<int64_t>(weights.quant.scale.size()), weights.shape[0]);
  EXPECT_GT(weights.quant.scale.size(), 1u);

  const Tensor& bias = graph.tensor(conv.inputs[2]);
  EXPECT_EQ(bias.dtype, DataType::Int(32));
  EXPECT_TRUE(bias.is_constant());
}

// Depthwise weights are [1, H, W, C]: the channel axis is 3.
TEST(TfliteImporter, DepthwiseWeightsArePerChannelOnAxis3) {
  Graph graph = import_tflite(model_path("vww_96_int8.tflite"));
  int checked = 0;
  for (const Node& node : graph.nodes) {
    if (node.op != "tfl.DEPTHWISE_CONV_2D") continue;
    const Tensor& weights = graph.tensor(node.inputs.at(1));
    EXPECT_EQ(weights.quant.axis, 3) << weights.name;
    EXPECT_EQ(static_cast<int64_t>(weights.quant.scale.size()), weights.shape.at(3));
    EXPECT_TRUE(node.has_attr("depth_multiplier"));
    ++checked;
  }
  EXPECT_EQ(checked, 13);
}

TEST(TfliteImporter, ResnetHasResidualAdds) {
  for (const char* file : {"pretrainedResnet_quant.tflite", "pretrainedResnet.tflite"}) {
    Graph graph = import_tflite(model_path(file));
    std::map<std::string, int> counts = op_counts(graph);
    EXPECT_EQ(counts["tfl.ADD"], 3) << file;
    EXPECT_EQ(counts["tfl.CONV_2D"], 9) << file;
    for (const Node& node : graph.nodes) {
      if (node.op == "tfl.ADD") {
        EXPECT_TRUE(node.has_attr("fused_activation")) << file;
      }
    }
  }
}

TEST(TfliteImporter, AnomalyDetectionFullyConnectedOptions) {
  Graph graph = import_tflite(model_path("ad01_int8.tflite"));
  EXPECT_EQ(graph.nodes[0].attr_string("fused_activation", ""), "RELU");
  EXPECT_EQ(graph.nodes[0].attr_int("keep_num_dims", -1), 0);
}

TEST(TfliteImporter, ToyCarQuantizesAtTheEdges) {
  Graph graph = import_tflite(model_path("model_ToyCar_quant_fullint_micro.tflite"));
  ASSERT_GE(graph.nodes.size(), 3u);
  EXPECT_EQ(graph.nodes.front().op, "tfl.QUANTIZE");
  EXPECT_EQ(graph.nodes.back().op, "tfl.DEQUANTIZE");
  EXPECT_EQ(op_counts(graph)["tfl.FULLY_CONNECTED"], 10);
  const Tensor& quantized = graph.tensor(graph.nodes.front().outputs[0]);
  EXPECT_EQ(quantized.dtype, DataType::Int(8));
  EXPECT_EQ(quantized.quant.scale.size(), 1u);
  EXPECT_EQ(quantized.quant.axis, -1);
}

TEST(TfliteImporter, SoftmaxBetaAndReshape) {
  Graph graph = import_tflite(model_path("kws_ref_model.tflite"));
  for (const Node& node : graph.nodes) {
    if (node.op == "tfl.SOFTMAX") {
      EXPECT_DOUBLE_EQ(node.attr_float("beta", 0), 1.0);
    }
    if (node.op == "tfl.AVERAGE_POOL_2D") {
      EXPECT_GE(node.attr_int("filter_h", 0), 1);
      EXPECT_GE(node.attr_int("filter_w", 0), 1);
    }
  }
}

TEST(TfliteImporter, RejectsHybridModel) {
  std::string message;
  try {
    import_tflite(model_path("kws_ref_model_float32.tflite"));
  } catch (const CompileError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("hybrid models (float activations with int8 weights) are not supported"), std::string::npos)
      << message;
  EXPECT_NE(message.find("operator 0 (tfl.CONV_2D)"), std::string::npos) << message;
  EXPECT_NE(message.find("kws_ref_model_float32.tflite"), std::string::npos) << message;
}

// ---------------------------------------------------------------------------
// Malformed files built with the generated builder.
//
// The base model is one int8 CONV_2D: input [1,4,4,2] -> output [1,4,4,4] with
// per-channel weights [4,1,1,2] and an int32 bias [4]. Each knob breaks one thing.
struct TinyConvModel {
  int32_t builtin_code = 3;
  int8_t deprecated_builtin_code = 3;
  std::string custom_code;
  uint32_t opcode_index = 0;
  int32_t conv_input = 0;
  int32_t stride = 1;
  bool pool_options_on_conv = false;
  uint32_t weights_buffer = 1;
  size_t weights_bytes = 8;
  int num_weight_scales = 4;
  int num_weight_zero_points = 4;
  std::vector<int32_t> input_signature;  // empty: none
  bool external_weights = false;         // weights after the flatbuffer, via Buffer.offset
  uint64_t external_offset_shift = 0;    // added to the correct offset, to break it
  uint64_t external_offset_override = 0; // if not 0: the offset written instead
  int shared_buffer_tensors = 0;         // unused constants [65536] sharing one buffer

  std::vector<uint8_t> build() const {
    if (!external_weights) return build_with_offset(0);
    // The offset is a fixed-size field, so the flatbuffer's size does not depend
    // on its value: build once to learn the size, then again with the real offset.
    size_t flatbuffer_size = build_with_offset(2).size();
    uint64_t offset = (flatbuffer_size + 15) / 16 * 16;
    uint64_t written = external_offset_override != 0 ? external_offset_override : offset + external_offset_shift;
    std::vector<uint8_t> file = build_with_offset(written);
    file.resize(offset, 0);
    std::vector<uint8_t> weights = weight_bytes();
    file.insert(file.end(), weights.begin(), weights.end());
    return file;
  }

 private:
  std::vector<uint8_t> weight_bytes() const {
    std::vector<uint8_t> bytes(weights_bytes);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 3);
    return bytes;
  }

  std::vector<uint8_t> build_with_offset(uint64_t weights_offset) const {
    namespace tfl = ::aotc::tfl;
    flatbuffers::FlatBufferBuilder fbb;
    auto quant = [&](std::vector<float> scales, std::vector<int64_t> zero_points, int axis) {
      return tfl::CreateQuantizationParametersDirect(fbb, nullptr, nullptr, &scales, &zero_points,
                                                     tfl::QuantizationDetails_NONE, 0, axis);
    };
    std::vector<int32_t> input_shape = {1, 4, 4, 2}, weights_shape = {4, 1, 1, 2}, bias_shape = {4},
                         output_shape = {1, 4, 4, 4};
    std::vector<float> weight_scales(static_cast<size_t>(num_weight_scales), 0.01f);
    std::vector<int64_t> weight_zero_points(static_cast<size_t>(num_weight_zero_points), 0);
    std::vector<flatbuffers::Offset<tfl::Tensor>> tensors = {
        tfl::CreateTensorDirect(fbb, &input_shape, tfl::TensorType_INT8, 0, "input", quant({0.5f}, {-1}, 0), false,
                                0, input_signature.empty() ? nullptr : &input_signature),
        tfl::CreateTensorDirect(fbb, &weights_shape, tfl::TensorType_INT8, weights_buffer, "weights",
                                quant(weight_scales, weight_zero_points, 0)),
        tfl::CreateTensorDirect(fbb, &bias_shape, tfl::TensorType_INT32, 2, "bias",
                                quant({0.005f, 0.005f, 0.005f, 0.005f}, {0, 0, 0, 0}, 0)),
        tfl::CreateTensorDirect(fbb, &output_shape, tfl::TensorType_INT8, 0, "output", quant({0.25f}, {3}, 0)),
    };
    std::vector<int32_t> shared_shape = {65536};
    for (int k = 0; k < shared_buffer_tensors; ++k) {
      std::string name = "shared_" + std::to_string(k);
      tensors.push_back(tfl::CreateTensorDirect(fbb, &shared_shape, tfl::TensorType_INT8, 3, name.c_str()));
    }
    std::vector<int32_t> op_inputs = {conv_input, 1, 2}, op_outputs = {3};
    auto options = pool_options_on_conv
                       ? tfl::CreatePool2DOptions(fbb, tfl::Padding_VALID, 1, 1, 1, 1).Union()
                       : tfl::CreateConv2DOptions(fbb, tfl::Padding_VALID, stride, stride,
                                                  tfl::ActivationFunctionType_RELU6)
                             .Union();
    auto options_type = pool_options_on_conv ? tfl::BuiltinOptions_Pool2DOptions : tfl::BuiltinOptions_Conv2DOptions;
    std::vector<flatbuffers::Offset<tfl::Operator>> operators = {
        tfl::CreateOperatorDirect(fbb, opcode_index, &op_inputs, &op_outputs, options_type, options)};
    std::vector<int32_t> graph_inputs = {0}, graph_outputs = {3};
    std::vector<flatbuffers::Offset<tfl::SubGraph>> subgraphs = {
        tfl::CreateSubGraphDirect(fbb, &tensors, &graph_inputs, &graph_outputs, &operators, "main")};
    std::vector<uint8_t> weights = weight_bytes(), bias(16, 0);
    std::vector<flatbuffers::Offset<tfl::Buffer>> buffers = {
        tfl::CreateBufferDirect(fbb),
        weights_offset > 1 ? tfl::CreateBufferDirect(fbb, nullptr, weights_offset, weights.size())
                           : tfl::CreateBufferDirect(fbb, &weights),
        tfl::CreateBufferDirect(fbb, &bias)};
    std::vector<uint8_t> shared(65536, 7);
    if (shared_buffer_tensors > 0) buffers.push_back(tfl::CreateBufferDirect(fbb, &shared));
    std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes = {tfl::CreateOperatorCodeDirect(
        fbb, deprecated_builtin_code, custom_code.empty() ? nullptr : custom_code.c_str(), 1, builtin_code)};
    tfl::FinishModelBuffer(fbb, tfl::CreateModelDirect(fbb, 3, &codes, &subgraphs, "test", &buffers));
    return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  }
};

::testing::AssertionResult has_error(const std::vector<uint8_t>& bytes, const std::vector<std::string>& parts) {
  std::string message = import_error(bytes);
  if (message.empty()) return ::testing::AssertionFailure() << "the import succeeded";
  for (const std::string& part : parts) {
    if (message.find(part) == std::string::npos) {
      return ::testing::AssertionFailure() << "'" << part << "' not in: " << message;
    }
  }
  return ::testing::AssertionSuccess() << message;
}

TEST(TfliteImporter, TinyModelImports) {
  Graph graph = import_via_file(TinyConvModel().build());
  ASSERT_EQ(graph.nodes.size(), 1u);
  const Node& conv = graph.nodes[0];
  EXPECT_EQ(conv.op, "tfl.CONV_2D");
  EXPECT_EQ(conv.name, "output");
  EXPECT_EQ(conv.attr_string("padding", ""), "VALID");
  EXPECT_EQ(conv.attr_string("fused_activation", ""), "RELU6");
  EXPECT_EQ(conv.attr_int("stride_h", 0), 1);
  const Tensor& weights = graph.tensor(conv.inputs[1]);
  ASSERT_TRUE(weights.is_constant());
  EXPECT_EQ((*weights.data)[3], 9);
  EXPECT_EQ(weights.quant.axis, 0);
  const Tensor& input = graph.tensor(0);
  EXPECT_FALSE(input.is_constant());
  EXPECT_EQ(input.quant.zero_point, std::vector<int64_t>{-1});
  EXPECT_EQ(input.quant.axis, -1);
}

TEST(TfliteImporter, SharedZeroPointIsRepeated) {
  TinyConvModel model;
  model.num_weight_zero_points = 1;
  Graph graph = import_via_file(model.build());
  EXPECT_EQ(graph.tensor(1).quant.zero_point, (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(TfliteImporter, UnknownBatchSizeIsAccepted) {
  TinyConvModel model;
  model.input_signature = {-1, 4, 4, 2};
  Graph graph = import_via_file(model.build());
  EXPECT_EQ(graph.tensor(0).shape, (std::vector<int64_t>{1, 4, 4, 2}));
}

// --input-shape gives an input the shape TFLite's ResizeInputTensor would, in the
// dimensions its shape_signature marks -1; a tensor whose signature has no -1 keeps its
// shape (shape inference checks it against the resized inputs).
TEST(TfliteImporter, InputShapeResizesTheDynamicDimensions) {
  TinyConvModel model;
  model.input_signature = {-1, -1, -1, 2};
  std::vector<uint8_t> bytes = model.build();
  ShapeBindings bindings;
  bindings.input_shapes["input"] = {3, 6, 5, 2};
  Graph graph = import_tflite_bytes(bytes.data(), bytes.size(), "model", bindings);
  EXPECT_EQ(graph.tensor(0).shape, (std::vector<int64_t>{3, 6, 5, 2}));
  EXPECT_TRUE(graph.tensor(3).shape_known);
  bindings.input_shapes["input"] = {3, 6, 5, 4};
  try {
    import_tflite_bytes(bytes.data(), bytes.size(), "model", bindings);
    ADD_FAILURE() << "a resize of a fixed dimension was accepted";
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(), "model: graph input 'input': --input-shape [3, 6, 5, 4] changes dimension 3 to 4, but its "
                           "shape_signature [-1, -1, -1, 2] fixes it at 2 (TFLite resizes only the dimensions marked -1)");
  }
}

TEST(TfliteImporter, ExternalBufferIsRead) {
  TinyConvModel model;
  model.external_weights = true;
  Graph graph = import_via_file(model.build());
  const Tensor& weights = graph.tensor(1);
  ASSERT_TRUE(weights.is_constant());
  EXPECT_EQ(*weights.data, (std::vector<uint8_t>{0, 3, 6, 9, 12, 15, 18, 21}));
}

TEST(TfliteImporter, ImportsFromUnalignedMemory) {
  std::vector<uint8_t> bytes = read_bytes(model_path("kws_ref_model.tflite"));
  bytes.insert(bytes.begin(), 0);
  Graph graph = import_tflite_bytes(bytes.data() + 1, bytes.size() - 1, "shifted");
  EXPECT_EQ(graph.nodes.size(), 13u);
}

TEST(TfliteImporter, RejectsTruncatedFile) {
  std::vector<uint8_t> bytes = read_bytes(model_path("kws_ref_model.tflite"));
  ASSERT_FALSE(bytes.empty());
  bytes.resize(bytes.size() / 2);
  EXPECT_TRUE(has_error(bytes, {"not a valid TFLite model (flatbuffer verification failed)"}));
  EXPECT_TRUE(has_error({}, {"not a valid TFLite model"}));
  EXPECT_TRUE(has_error({1, 2, 3}, {"not a valid TFLite model"}));
}

TEST(TfliteImporter, RejectsWrongFileIdentifier) {
  std::vector<uint8_t> bytes = read_bytes(model_path("kws_ref_model.tflite"));
  ASSERT_GT(bytes.size(), 8u);
  bytes[7] = 'X';  // "TFL3" -> "TFLX"
  EXPECT_TRUE(has_error(bytes, {"not a valid TFLite model"}));
}

TEST(TfliteImporter, RejectsMissingFile) {
  EXPECT_THROW(import_tflite("/nonexistent/model.tflite"), CompileError);
}

// One damage to the tiny model each, and what the error must say: a clear message naming
// the tensor or operator, never a crash.
struct Damage {
  const char* name;
  std::function<void(TinyConvModel&)> apply;
  std::vector<std::string> expected;
};

const std::vector<Damage>& damages() {
  using M = TinyConvModel&;
  static const std::vector<Damage> kDamages = {
      {"BufferIndexOutOfRange", [](M m) { m.weights_buffer = 9; },
       {"tensor 'weights'", "buffer index 9 is out of range"}},
      {"ExternalBufferOutsideTheFile", [](M m) { m.external_weights = true, m.external_offset_shift = 1000; },
       {"tensor 'weights'", "lies outside the file"}},
      {"ExternalBufferWrappingAround",
       [](M m) { m.external_weights = true, m.external_offset_override = ~uint64_t{0} - 3; },  // offset + size wraps
       {"tensor 'weights'", "lies outside the file"}},
      {"BufferOfTheWrongSize", [](M m) { m.weights_bytes = 7; }, {"tensor 'weights'", "holds 7 bytes", "needs 8"}},
      {"TooManyCopiesOfSharedBuffers", [](M m) { m.shared_buffer_tensors = 40; }, {"too many tensors share buffers"}},
      // Operators without a lowering are rejected on import, by TFLite's name.
      {"UnsupportedOperatorByName", [](M m) { m.builtin_code = m.deprecated_builtin_code = 16; },  // LSTM
       {"operator 0 (tfl.LSTM): operator 'tfl.LSTM' is not supported"}},
      {"ConvOptionsOnConcatenation", [](M m) { m.builtin_code = m.deprecated_builtin_code = 2; },  // CONCATENATION
       {"operator 0 (tfl.CONCATENATION): expected ConcatenationOptions, found options of type Conv2DOptions"}},
      {"UnknownOperatorCode", [](M m) { m.builtin_code = 250, m.deprecated_builtin_code = 127; },
       {"operator 0: unknown TFLite operator code 250"}},
      {"CustomOperator", [](M m) { m.builtin_code = m.deprecated_builtin_code = 32, m.custom_code = "MyFancyOp"; },
       {"operator 0: custom operator 'MyFancyOp' is not supported"}},
      {"Call", [](M m) { m.builtin_code = m.deprecated_builtin_code = 31; },  // CALL
       {"operator 0 (tfl.CALL)", "CALL is not supported"}},
      {"ConvOptionsOnWhile", [](M m) { m.builtin_code = m.deprecated_builtin_code = 119; },  // WHILE
       {"operator 0 (tfl.WHILE)", "expected WhileOptions"}},
      {"OpcodeIndexOutOfRange", [](M m) { m.opcode_index = 5; }, {"operator 0", "opcode index 5 is out of range"}},
      {"TensorIndexOutOfRange", [](M m) { m.conv_input = 17; },
       {"operator 0 (tfl.CONV_2D): input refers to tensor 17"}},
      {"NegativeTensorIndex", [](M m) { m.conv_input = -5; },
       {"operator 0 (tfl.CONV_2D): input refers to tensor -5"}},
      {"ReadBeforeWrite", [](M m) { m.conv_input = 3; },  // its own output
       {"operator 0 (tfl.CONV_2D)", "reads tensor 'output' before"}},
      {"WrongNumberOfScales", [](M m) { m.num_weight_scales = m.num_weight_zero_points = 3; },
       {"tensor 'weights'", "3 scales", "has size 4"}},
      {"WrongNumberOfZeroPoints", [](M m) { m.num_weight_zero_points = 2; },
       {"tensor 'weights'", "4 quantization scales but 2 zero points"}},
      {"DynamicShape", [](M m) { m.input_signature = {1, -1, 4, 2}; },
       {"graph input 'input': dynamic shape [1, -1, 4, 2] (its shape_signature): give its shape with --input-shape input="}},
      {"SignatureDisagreesWithShape", [](M m) { m.input_signature = {-1, 5, 4, 2}; },
       {"tensor 'input': shape_signature [-1, 5, 4, 2] does not match shape [1, 4, 4, 2]"}},
      {"ZeroStride", [](M m) { m.stride = 0; }, {"operator 0 (tfl.CONV_2D)", "stride_h must be at least 1"}},
      {"OptionsOfAnotherOperator", [](M m) { m.pool_options_on_conv = true; },
       {"operator 0 (tfl.CONV_2D)", "expected Conv2DOptions", "Pool2DOptions"}},
  };
  return kDamages;
}

class DamagedModel : public ::testing::TestWithParam<Damage> {};

TEST_P(DamagedModel, IsRejectedWithAClearMessage) {
  TinyConvModel model;
  GetParam().apply(model);
  EXPECT_TRUE(has_error(model.build(), GetParam().expected));
}

INSTANTIATE_TEST_SUITE_P(TfliteImporter, DamagedModel, ::testing::ValuesIn(damages()),
                         [](const ::testing::TestParamInfo<Damage>& info) { return std::string(info.param.name); });

// Each tensor gets its own copy of a shared buffer; a file must not be able to
// expand without bound that way.
TEST(TfliteImporter, LimitsTheCopiesOfSharedBuffers) {
  TinyConvModel model;
  model.shared_buffer_tensors = 4;
  Graph graph = import_via_file(model.build());
  EXPECT_EQ(graph.tensors.size(), 8u);
  EXPECT_EQ(graph.tensor(7).data->size(), 65536u);
}

TEST(TfliteImporter, UsesTheLargerOfTheTwoOperatorCodes) {
  TinyConvModel model;
  model.builtin_code = 0;  // only the deprecated field set, as in kws
  Graph graph = import_via_file(model.build());
  EXPECT_EQ(graph.nodes.at(0).op, "tfl.CONV_2D");
}

// Corrupting any byte of a real model must give either a graph or a
// CompileError: never a crash, hang or other exception (run this under ASan).
TEST(TfliteImporter, SurvivesCorruptedBytes) {
  const std::vector<uint8_t> original = read_bytes(model_path("kws_ref_model.tflite"));
  ASSERT_FALSE(original.empty());
  std::mt19937 random(1234);
  // Most of the file is weight data; aim half the mutations at the flatbuffer
  // tables and vectors at its start and end.
  std::uniform_int_distribution<size_t> anywhere(0, original.size() - 1);
  std::uniform_int_distribution<size_t> near_start(0, std::min<size_t>(original.size() - 1, 2048));
  std::uniform_int_distribution<size_t> near_end(original.size() > 4096 ? original.size() - 4096 : 0,
                                                 original.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  int rejected = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<uint8_t> bytes = original;
    for (int k = 0; k < 1 + trial % 4; ++k) {
      size_t at = trial % 3 == 0 ? anywhere(random) : trial % 3 == 1 ? near_start(random) : near_end(random);
      bytes[at] = static_cast<uint8_t>(byte(random));
    }
    try {
      import_tflite_bytes(bytes.data(), bytes.size(), "mutated");
    } catch (const CompileError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("mutated: ", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace aotc
