// Builds small .tflite files in tests: tensors (type, shape, shape_signature, quantization,
// constant data, variable flag) and operators with their options table, written with the flatbuffers
// builder generated from aotc's schema. Used by the importer's operator tests
// (tests/unit) and by the end-to-end tests that compile single-operator models.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "tflite_schema_generated.h"

namespace aotc::test {

class TfliteModelBuilder {
 public:
  using OptionsFn = std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>;

  struct TensorSpec {
    std::string name;
    tfl::TensorType type = tfl::TensorType_FLOAT32;
    std::vector<int32_t> shape;
    std::vector<float> scale;  // empty: not quantized
    std::vector<int64_t> zero_point;
    int32_t quantized_dimension = 0;
    std::vector<uint8_t> data;  // empty: not a constant
    bool is_variable = false;
    std::vector<int32_t> shape_signature;  // empty: none (-1 marks a dimension TFLite may resize)
  };

  // Adds a tensor; returns its index.
  int32_t tensor(TensorSpec spec) {
    tensors_.push_back(std::move(spec));
    return static_cast<int32_t>(tensors_.size() - 1);
  }
  int32_t input(const std::string& name, tfl::TensorType type, std::vector<int32_t> shape, float scale = 0,
                int64_t zero_point = 0) {
    int32_t id = tensor(spec(name, type, std::move(shape), scale, zero_point));
    inputs_.push_back(id);
    return id;
  }
  int32_t output(const std::string& name, tfl::TensorType type, std::vector<int32_t> shape, float scale = 0,
                 int64_t zero_point = 0) {
    int32_t id = tensor(spec(name, type, std::move(shape), scale, zero_point));
    outputs_.push_back(id);
    return id;
  }
  // Lists tensor `id` among the subgraph's inputs, or its outputs.
  void mark_input(int32_t id) { inputs_.push_back(id); }
  void mark_output(int32_t id) { outputs_.push_back(id); }
  // A constant with these elements (T's bytes, little-endian on the test machines).
  template <typename T>
  int32_t constant(const std::string& name, tfl::TensorType type, std::vector<int32_t> shape, const std::vector<T>& values,
                   float scale = 0, int64_t zero_point = 0) {
    TensorSpec s = spec(name, type, std::move(shape), scale, zero_point);
    s.data.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(s.data.data(), values.data(), s.data.size());
    return tensor(std::move(s));
  }
  static TensorSpec spec(const std::string& name, tfl::TensorType type, std::vector<int32_t> shape, float scale = 0,
                         int64_t zero_point = 0) {
    TensorSpec s;
    s.name = name;
    s.type = type;
    s.shape = std::move(shape);
    if (scale != 0) {
      s.scale = {scale};
      s.zero_point = {zero_point};
    }
    return s;
  }

  // An operator of builtin `code` (-1 in `inputs` is an omitted optional input).
  void op(tfl::BuiltinOperator code, std::vector<int32_t> inputs, std::vector<int32_t> outputs,
          tfl::BuiltinOptions options_type = tfl::BuiltinOptions_NONE, OptionsFn options = nullptr) {
    ops_.push_back({code, std::move(inputs), std::move(outputs), options_type, std::move(options)});
  }

  // The model as a .tflite file at `path`.
  void write(const std::string& path) const {
    std::vector<uint8_t> bytes = build();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }

  std::vector<uint8_t> build() const {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<flatbuffers::Offset<tfl::Buffer>> buffers = {tfl::CreateBufferDirect(fbb)};
    std::vector<flatbuffers::Offset<tfl::Tensor>> tensors;
    for (const TensorSpec& t : tensors_) {
      uint32_t buffer = 0;
      if (!t.data.empty()) {
        buffer = static_cast<uint32_t>(buffers.size());
        buffers.push_back(tfl::CreateBufferDirect(fbb, &t.data));
      }
      flatbuffers::Offset<tfl::QuantizationParameters> quant = 0;
      if (!t.scale.empty())
        quant = tfl::CreateQuantizationParametersDirect(fbb, nullptr, nullptr, &t.scale, &t.zero_point,
                                                        tfl::QuantizationDetails_NONE, 0, t.quantized_dimension);
      tensors.push_back(tfl::CreateTensorDirect(fbb, &t.shape, t.type, buffer, t.name.c_str(), quant, t.is_variable, 0,
                                                t.shape_signature.empty() ? nullptr : &t.shape_signature));
    }
    std::vector<int32_t> codes_seen;
    std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes;
    std::vector<flatbuffers::Offset<tfl::Operator>> operators;
    for (const OpSpec& o : ops_) {
      uint32_t index = 0;
      while (index < codes_seen.size() && codes_seen[index] != o.code) ++index;
      if (index == codes_seen.size()) {
        codes_seen.push_back(o.code);
        int8_t deprecated = static_cast<int8_t>(o.code < 127 ? o.code : 127);
        codes.push_back(tfl::CreateOperatorCodeDirect(fbb, deprecated, nullptr, 1, o.code));
      }
      flatbuffers::Offset<void> options = o.options ? o.options(fbb) : 0;
      operators.push_back(tfl::CreateOperatorDirect(fbb, index, &o.inputs, &o.outputs, o.options_type, options));
    }
    std::vector<flatbuffers::Offset<tfl::SubGraph>> subgraphs = {
        tfl::CreateSubGraphDirect(fbb, &tensors, &inputs_, &outputs_, &operators, "main")};
    tfl::FinishModelBuffer(fbb, tfl::CreateModelDirect(fbb, 3, &codes, &subgraphs, "test", &buffers));
    return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  }

 private:
  struct OpSpec {
    tfl::BuiltinOperator code;
    std::vector<int32_t> inputs, outputs;
    tfl::BuiltinOptions options_type;
    OptionsFn options;
  };
  std::vector<TensorSpec> tensors_;
  std::vector<int32_t> inputs_, outputs_;
  std::vector<OpSpec> ops_;
};

// Short names for the tensor types tests build with.
namespace tensor_types {
constexpr auto kF32 = tfl::TensorType_FLOAT32;
constexpr auto kI8 = tfl::TensorType_INT8;
constexpr auto kI16 = tfl::TensorType_INT16;
constexpr auto kI32 = tfl::TensorType_INT32;
}  // namespace tensor_types

}  // namespace aotc::test
