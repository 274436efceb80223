#include "aot/import/tflite_importer.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "aot/import/tflite_operators.h"
#include "aot/graph/external.h"
#include "aot/import/tflite_ethos_u.h"
#include "aot/import/tflite_subgraphs.h"
#include "tflite_schema_generated.h"

namespace aotc {
namespace {

// The largest tensor the importer accepts (1 TiB): far beyond any microcontroller,
// small enough that element counts times element sizes never overflow int64.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;

// Several tensors may share one buffer, and each gets its own copy of the bytes.
// A hostile file could make a few megabytes expand into terabytes that way; real
// models share only small buffers, so cap the total at this multiple of the file.
constexpr uint64_t kMaxConstantBytesPerFileByte = 16;

// A variable tensor is state the generated code keeps in a static array, filled with its
// initial value at compile time: anything near this size (64 MiB) is far beyond any
// microcontroller's RAM, and a damaged shape must not make the importer fill gigabytes
// (fuzz_tflite_import found one that took 1 GB and seconds before any other error).
constexpr int64_t kMaxVariableBytes = int64_t{64} << 20;

// The only schema version TFLite has written since 2017 (and all TFLite Micro reads).
constexpr uint32_t kSchemaVersion = 3;

[[noreturn]] void fail(const std::string& message) { throw CompileError(message); }

using tflite_import::BuiltinOperatorInfo;
using tflite_import::ImportedSubgraph;

std::string quoted(const std::string& name) { return "'" + name + "'"; }

// ---------------------------------------------------------------------------
// Tensors.

bool to_data_type(tfl::TensorType type, DataType* out) {
  switch (type) {
    case tfl::TensorType_FLOAT32: *out = DataType::Float32(); return true;
    case tfl::TensorType_INT8: *out = DataType::Int(8); return true;
    case tfl::TensorType_UINT8: *out = DataType::UInt(8); return true;
    case tfl::TensorType_INT16: *out = DataType::Int(16); return true;
    case tfl::TensorType_INT32: *out = DataType::Int(32); return true;
    case tfl::TensorType_INT64: *out = DataType::Int(64); return true;
    case tfl::TensorType_BOOL: *out = DataType::Bool(); return true;
    default: return false;
  }
}

std::string tensor_type_name(tfl::TensorType type) {
  const char* name = tfl::EnumNameTensorType(type);
  return name != nullptr && *name != '\0' ? name : "type " + std::to_string(static_cast<int>(type));
}

template <typename T>
std::string list_str(const flatbuffers::Vector<T>& values) {
  std::vector<int64_t> ints(values.begin(), values.end());
  return shape_str(ints);
}

// The flatbuffers verifier checks only that a vector's length prefix is 4-byte
// aligned, so the elements of a [long] vector may not be 8-byte aligned: copy
// them out bytewise instead of loading them through an int64_t pointer.
std::vector<int64_t> read_int64_vector(const flatbuffers::Vector<int64_t>& values) {
  std::vector<int64_t> result(values.size());
  if (!result.empty()) std::memcpy(result.data(), values.Data(), result.size() * sizeof(int64_t));
  return result;
}

// Whether a zero point is representable in the tensor's element type; only the
// narrow types are checked (int32 biases use 0, wider types are never quantized).
bool zero_point_fits(DataType dtype, int64_t zero_point) {
  if (dtype == DataType::Int(8)) return zero_point >= -128 && zero_point <= 127;
  if (dtype == DataType::UInt(8)) return zero_point >= 0 && zero_point <= 255;
  if (dtype == DataType::Int(16)) return zero_point >= -32768 && zero_point <= 32767;
  return true;
}

class TfliteImporter {
 public:
  TfliteImporter(const uint8_t* bytes, size_t size, const ShapeBindings& bindings)
      : bytes_(bytes), size_(size), bindings_(bindings) {}
  Graph run();

 private:
  void verify_flatbuffer();
  ImportedSubgraph import_subgraph(size_t index);

  void import_tensors(const tfl::SubGraph& subgraph);
  Tensor import_tensor(const tfl::Tensor& tensor, int index);
  DataType import_dtype(const tfl::Tensor& tensor, const std::string& label) const;
  std::vector<int64_t> import_shape(const tfl::Tensor& tensor, const std::string& label) const;
  static std::vector<int64_t> dynamic_signature(const tfl::Tensor& tensor);
  void check_size_limit(const Tensor& tensor, const std::string& label) const;
  std::optional<std::vector<uint8_t>> import_data(const tfl::Tensor& tensor, const Tensor& result,
                                                  const std::string& label);
  Quantization import_quantization(const tfl::Tensor& tensor, const Tensor& result, const std::string& label) const;
  int per_channel_axis(const tfl::QuantizationParameters& params, const Tensor& result,
                       const std::string& label) const;

  void import_operators(const tfl::SubGraph& subgraph);
  const tfl::OperatorCode& operator_code(const tfl::Operator& op, int index) const;
  int32_t builtin_code(const tfl::Operator& op, int index) const;
  const BuiltinOperatorInfo& operator_info(int32_t code, int index) const;
  Node import_operator(const tfl::Operator& op, int index) const;
  Node import_ethos_u(const tfl::Operator& op, int index) const;
  void check_not_hybrid(const Node& node, int32_t code, const std::string& label) const;

  std::vector<TensorId> tensor_ids(const flatbuffers::Vector<int32_t>* ids, bool allow_omitted,
                                   const std::string& what) const;
  void make_unwritten_empty_tensors_constant();
  void check_execution_order() const;
  void check_main_interface() const;
  void resize_main_inputs();
  void forget_placeholder_shapes(size_t index);

  const uint8_t* bytes_;
  size_t size_;
  const ShapeBindings& bindings_;  // --input-shape
  bool resized_ = false;           // whether --input-shape gave any input its shape
  const tfl::Model* model_ = nullptr;
  uint64_t constant_bytes_ = 0;  // copied into Tensor::data so far
  ImportedSubgraph* sub_ = nullptr;  // the subgraph being read
};

// Reads subgraph 0 and every subgraph it runs (IF, WHILE, CALL_ONCE, transitively); the
// others (e.g. other signatures) are not read. place_subgraphs() makes the Graph.
Graph TfliteImporter::run() {
  verify_flatbuffer();
  model_ = tfl::GetModel(bytes_);
  if (model_->version() != kSchemaVersion) {
    fail("unsupported TFLite schema version " + std::to_string(model_->version()) + " (aotc reads version " +
         std::to_string(kSchemaVersion) + ")");
  }
  if (model_->subgraphs() == nullptr || model_->subgraphs()->size() == 0) fail("the model has no subgraphs");
  std::vector<std::optional<ImportedSubgraph>> subgraphs(model_->subgraphs()->size());
  std::vector<int64_t> pending{0};
  while (!pending.empty()) {
    int64_t k = pending.back();
    pending.pop_back();
    if (k < 0 || static_cast<size_t>(k) >= subgraphs.size() || subgraphs[static_cast<size_t>(k)]) continue;
    subgraphs[static_cast<size_t>(k)] = import_subgraph(static_cast<size_t>(k));
    for (const Node& node : subgraphs[static_cast<size_t>(k)]->nodes)
      for (int64_t called : tflite_import::called_subgraphs(node)) pending.push_back(called);
  }
  return tflite_import::place_subgraphs(subgraphs);
}

ImportedSubgraph TfliteImporter::import_subgraph(size_t index) {
  const tfl::SubGraph& subgraph = *model_->subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(index));
  ImportedSubgraph result;
  sub_ = &result;
  try {
    if (subgraph.name() != nullptr) result.name = subgraph.name()->str();
    import_tensors(subgraph);
    result.inputs = tensor_ids(subgraph.inputs(), false, "subgraph input");
    result.outputs = tensor_ids(subgraph.outputs(), false, "subgraph output");
    if (index == 0) {
      check_main_interface();
      resize_main_inputs();
    }
    import_operators(subgraph);
    make_unwritten_empty_tensors_constant();
    check_execution_order();
    forget_placeholder_shapes(index);
  } catch (const CompileError& e) {
    if (index == 0) throw;
    fail("subgraph " + std::to_string(index) + (result.name.empty() ? "" : " ('" + result.name + "')") + ": " + e.what());
  }
  sub_ = nullptr;
  return result;
}

// After this, every offset in the flatbuffer part of the file is known to stay
// inside the file, so the generated accessors are safe to use.
void TfliteImporter::verify_flatbuffer() {
  // The verifier cannot address more than 2 GB; data past that is only reachable
  // through Buffer.offset, which import_data() checks itself.
  size_t flatbuffer_size = std::min<size_t>(size_, FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  flatbuffers::Verifier verifier(bytes_, flatbuffer_size);
  if (size_ < 8 || !tfl::VerifyModelBuffer(verifier)) {
    fail("not a valid TFLite model (flatbuffer verification failed)");
  }
}

// A resource tensor (a VAR_HANDLE's handle) has no value of its own: it is listed in
// `resources`, with a placeholder of its name in `tensors`.
void TfliteImporter::import_tensors(const tfl::SubGraph& subgraph) {
  if (subgraph.tensors() == nullptr) return;
  for (flatbuffers::uoffset_t i = 0; i < subgraph.tensors()->size(); ++i) {
    const tfl::Tensor& tensor = *subgraph.tensors()->Get(i);
    bool resource = tensor.type() == tfl::TensorType_RESOURCE;
    Tensor t;
    if (resource) {
      t.name = tensor.name() != nullptr ? tensor.name()->str() : "tensor_" + std::to_string(i);
      t.dtype = DataType::Int(32);
      t.shape_known = true;
    } else {
      t = import_tensor(tensor, static_cast<int>(i));
    }
    sub_->tensors.push_back(std::move(t));
    sub_->resources.push_back(resource);
    sub_->dynamic_signatures.push_back(resource ? std::vector<int64_t>{} : dynamic_signature(tensor));
  }
}

Tensor TfliteImporter::import_tensor(const tfl::Tensor& tensor, int index) {
  Tensor result;
  result.name = tensor.name() != nullptr && tensor.name()->size() != 0 ? tensor.name()->str()
                                                                       : "tensor_" + std::to_string(index);
  std::string label = "tensor " + quoted(result.name);
  if (tensor.sparsity() != nullptr) fail(label + ": sparse tensors are not supported");
  result.dtype = import_dtype(tensor, label);
  result.shape = import_shape(tensor, label);
  result.shape_known = true;
  check_size_limit(result, label);
  result.data = import_data(tensor, result, label);
  result.quant = import_quantization(tensor, result, label);
  // A variable tensor starts where TFLite Micro's ResetVariableTensors puts it: every
  // byte 0, or for int8 the zero point (whatever its buffer holds; TFLite ignores that too).
  if (tensor.is_variable()) {
    if (result.size_bytes() > kMaxVariableBytes)
      fail(label + ": a variable tensor of shape " + shape_str(result.shape) + " (" + std::to_string(result.size_bytes()) +
           " bytes) is larger than the " + std::to_string(kMaxVariableBytes) + " bytes of state aotc keeps inside a model");
    result.is_variable = true;
    result.data.reset();
    int64_t zero_point = result.quant.zero_point.empty() ? 0 : result.quant.zero_point[0];
    if (result.dtype == DataType::Int(8) && zero_point != 0)
      result.initial_value.assign(static_cast<size_t>(result.size_bytes()), static_cast<uint8_t>(zero_point));
  }
  return result;
}

DataType TfliteImporter::import_dtype(const tfl::Tensor& tensor, const std::string& label) const {
  DataType dtype;
  if (!to_data_type(tensor.type(), &dtype)) {
    fail(label + ": element type " + tensor_type_name(tensor.type()) + " is not supported");
  }
  return dtype;
}

// `shape` holds the sizes TFLite allocates before any resize; `shape_signature` tells
// which of them were only placeholders at conversion time (-1). Its other dimensions
// must agree with `shape`. What becomes of the placeholders: resize_main_inputs() and
// forget_placeholder_shapes().
std::vector<int64_t> TfliteImporter::import_shape(const tfl::Tensor& tensor, const std::string& label) const {
  std::vector<int64_t> shape;
  if (tensor.shape() != nullptr) shape.assign(tensor.shape()->begin(), tensor.shape()->end());
  for (int64_t dim : shape)
    if (dim < 0) fail(label + ": dynamic shape " + shape_str(shape) + " is not supported");
  std::string problem = shape_size_problem(shape);
  if (!problem.empty()) fail(label + ": " + problem);
  const auto* signature = tensor.shape_signature();
  if (signature == nullptr || signature->size() == 0) return shape;
  if (signature->size() != shape.size()) {
    fail(label + ": shape_signature " + list_str(*signature) + " does not match shape " + shape_str(shape));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t dim = signature->Get(static_cast<flatbuffers::uoffset_t>(d));
    if (dim == -1) continue;
    if (dim != shape[d]) {
      fail(label + ": shape_signature " + list_str(*signature) + " does not match shape " + shape_str(shape));
    }
  }
  return shape;
}

// The tensor's shape_signature if it marks a dimension -1 (import_shape() checked it),
// else empty.
std::vector<int64_t> TfliteImporter::dynamic_signature(const tfl::Tensor& tensor) {
  const auto* signature = tensor.shape_signature();
  if (signature == nullptr || std::find(signature->begin(), signature->end(), -1) == signature->end()) return {};
  return std::vector<int64_t>(signature->begin(), signature->end());
}

void TfliteImporter::check_size_limit(const Tensor& tensor, const std::string& label) const {
  int64_t bytes = tensor.dtype.bytes();
  for (int64_t dim : tensor.shape) {
    if (dim != 0 && bytes > kMaxTensorBytes / dim) fail(label + ": shape " + shape_str(tensor.shape) + " is too large");
    bytes *= dim;
  }
}

// A tensor is constant when its buffer holds bytes, either inside the flatbuffer
// (`data`) or, for files over 2 GB, at `offset` from the start of the file.
std::optional<std::vector<uint8_t>> TfliteImporter::import_data(const tfl::Tensor& tensor, const Tensor& result,
                                                                const std::string& label) {
  uint32_t index = tensor.buffer();
  uint32_t num_buffers = model_->buffers() != nullptr ? model_->buffers()->size() : 0;
  if (index == 0 && num_buffers == 0) return std::nullopt;  // buffer 0 means "none"
  if (index >= num_buffers) {
    fail(label + ": buffer index " + std::to_string(index) + " is out of range (the model has " +
         std::to_string(num_buffers) + " buffers)");
  }
  const tfl::Buffer& buffer = *model_->buffers()->Get(index);
  const uint8_t* begin = nullptr;
  uint64_t size = 0;
  if (buffer.offset() > 1) {
    if (buffer.offset() > size_ || buffer.size() > size_ - buffer.offset()) {
      fail(label + ": buffer " + std::to_string(index) + " (offset " + std::to_string(buffer.offset()) + ", size " +
           std::to_string(buffer.size()) + ") lies outside the file (" + std::to_string(size_) + " bytes)");
    }
    begin = bytes_ + buffer.offset();
    size = buffer.size();
  } else if (buffer.data() != nullptr) {
    begin = buffer.data()->data();
    size = buffer.data()->size();
  }
  if (size == 0) return std::nullopt;
  if (size != static_cast<uint64_t>(result.size_bytes())) {
    fail(label + ": buffer " + std::to_string(index) + " holds " + std::to_string(size) + " bytes, but " +
         result.dtype.str() + " " + shape_str(result.shape) + " needs " + std::to_string(result.size_bytes()));
  }
  constant_bytes_ += size;
  if (constant_bytes_ / kMaxConstantBytesPerFileByte > size_) {
    fail(label + ": the constants add up to more than " + std::to_string(kMaxConstantBytesPerFileByte) +
         " times the file size (too many tensors share buffers)");
  }
  return std::vector<uint8_t>(begin, begin + size);
}

Quantization TfliteImporter::import_quantization(const tfl::Tensor& tensor, const Tensor& result,
                                                 const std::string& label) const {
  Quantization quant;
  const tfl::QuantizationParameters* params = tensor.quantization();
  if (params == nullptr) return quant;
  if (params->details_type() != tfl::QuantizationDetails_NONE) fail(label + ": custom quantization is not supported");
  // TFLite writes quantization tables holding only min/max (or nothing) for
  // float tensors: without scales the tensor is not quantized.
  if (params->scale() == nullptr || params->scale()->size() == 0) return quant;
  quant.scale.assign(params->scale()->begin(), params->scale()->end());
  for (float scale : quant.scale) {
    if (!std::isfinite(scale) || scale < 0) fail(label + ": invalid quantization scale " + std::to_string(scale));
  }
  if (params->zero_point() != nullptr) quant.zero_point = read_int64_vector(*params->zero_point());
  if (quant.zero_point.size() != 1 && quant.zero_point.size() != quant.scale.size()) {
    fail(label + ": " + std::to_string(quant.scale.size()) + " quantization scales but " +
         std::to_string(quant.zero_point.size()) + " zero points");
  }
  for (int64_t zero_point : quant.zero_point) {
    if (!zero_point_fits(result.dtype, zero_point)) {
      fail(label + ": zero point " + std::to_string(zero_point) + " does not fit in " + result.dtype.str());
    }
  }
  int64_t shared_zero_point = quant.zero_point[0];
  quant.zero_point.resize(quant.scale.size(), shared_zero_point);
  quant.axis = quant.scale.size() > 1 ? per_channel_axis(*params, result, label) : -1;
  return quant;
}

// Converters write the quantized_dimension of a convolution's filter into its 1-D bias
// too (person detection's biases say 3): TFLite Micro never reads a bias's axis, and a 1-D
// tensor with one scale per element can only be quantized along axis 0, so that is read.
int TfliteImporter::per_channel_axis(const tfl::QuantizationParameters& params, const Tensor& result,
                                     const std::string& label) const {
  int32_t axis = params.quantized_dimension();
  size_t num_scales = params.scale()->size();
  if (result.shape.size() == 1 && result.shape[0] == static_cast<int64_t>(num_scales)) return 0;
  if (axis < 0 || static_cast<size_t>(axis) >= result.shape.size()) {
    fail(label + ": quantized_dimension " + std::to_string(axis) + " is out of range for shape " +
         shape_str(result.shape));
  }
  if (result.shape[static_cast<size_t>(axis)] != static_cast<int64_t>(num_scales)) {
    fail(label + ": per-channel quantization has " + std::to_string(num_scales) + " scales, but dimension " +
         std::to_string(axis) + " of shape " + shape_str(result.shape) + " has size " +
         std::to_string(result.shape[static_cast<size_t>(axis)]));
  }
  return axis;
}

// ---------------------------------------------------------------------------
// Operators.

void TfliteImporter::import_operators(const tfl::SubGraph& subgraph) {
  if (subgraph.operators() == nullptr) return;
  for (flatbuffers::uoffset_t i = 0; i < subgraph.operators()->size(); ++i) {
    sub_->nodes.push_back(import_operator(*subgraph.operators()->Get(i), static_cast<int>(i)));
  }
}

// Files written before TFLite had 127 operators carry the code only in the
// one-byte deprecated field; newer ones set both, or put 127 ("look in the
// other field") in the old one. The larger of the two is right in all cases.
const tfl::OperatorCode& TfliteImporter::operator_code(const tfl::Operator& op, int index) const {
  uint32_t num_codes = model_->operator_codes() != nullptr ? model_->operator_codes()->size() : 0;
  if (op.opcode_index() >= num_codes) {
    fail("operator " + std::to_string(index) + ": opcode index " + std::to_string(op.opcode_index()) +
         " is out of range (the model has " + std::to_string(num_codes) + " operator codes)");
  }
  return *model_->operator_codes()->Get(op.opcode_index());
}

int32_t TfliteImporter::builtin_code(const tfl::Operator& op, int index) const {
  const tfl::OperatorCode& opcode = operator_code(op, index);
  int32_t code = std::max<int32_t>(opcode.builtin_code(), opcode.deprecated_builtin_code());
  if (code == tfl::BuiltinOperator_CUSTOM) {
    std::string custom = opcode.custom_code() != nullptr ? opcode.custom_code()->str() : "";
    fail("operator " + std::to_string(index) + ": custom operator " + quoted(custom) + " is not supported");
  }
  return code;
}

const BuiltinOperatorInfo& TfliteImporter::operator_info(int32_t code, int index) const {
  if (const BuiltinOperatorInfo* info = tflite_import::find_builtin_operator(code)) return *info;
  std::string name = tflite_import::builtin_operator_name(code);
  if (name.empty()) fail("operator " + std::to_string(index) + ": unknown TFLite operator code " + std::to_string(code));
  std::string label = "operator " + std::to_string(index) + " (tfl." + name + ")";
  if (tflite_import::runs_subgraph(code)) {
    fail(label + ": CALL is not supported (aotc compiles the subgraphs that IF, WHILE and CALL_ONCE run)");
  }
  fail(label + ": operator 'tfl." + name + "' is not supported");
}

Node TfliteImporter::import_operator(const tfl::Operator& op, int index) const {
  const tfl::OperatorCode& opcode = operator_code(op, index);
  if (std::max<int32_t>(opcode.builtin_code(), opcode.deprecated_builtin_code()) == tfl::BuiltinOperator_CUSTOM &&
      opcode.custom_code() != nullptr && opcode.custom_code()->str() == tflite_import::kEthosUCustomCode)
    return import_ethos_u(op, index);
  int32_t code = builtin_code(op, index);
  const BuiltinOperatorInfo& info = operator_info(code, index);
  Node node;
  node.op = "tfl." + tflite_import::builtin_operator_name(info.code);
  std::string label = "operator " + std::to_string(index) + " (" + node.op + ")";
  node.inputs = tensor_ids(op.inputs(), true, label + ": input");
  node.outputs = tensor_ids(op.outputs(), false, label + ": output");
  // ASSIGN_VARIABLE and CALL_ONCE act on the model's state and return nothing.
  bool acts_on_state = code == tfl::BuiltinOperator_ASSIGN_VARIABLE || code == tfl::BuiltinOperator_CALL_ONCE;
  if (node.outputs.empty() && !acts_on_state) fail(label + ": has no outputs");
  node.name = node.outputs.empty() ? "operator " + std::to_string(index) : sub_->tensors[static_cast<size_t>(node.outputs[0])].name;
  if (info.read_options != nullptr) {
    try {
      info.read_options(op, node);
    } catch (const CompileError& e) {
      fail(label + ": " + e.what());
    }
  }
  check_not_hybrid(node, code, label);
  return node;
}

// Vela's ethos-u operator (tflite_ethos_u.h): an external function the NPU runs.
Node TfliteImporter::import_ethos_u(const tfl::Operator& op, int index) const {
  std::string label = "operator " + std::to_string(index) + " (ethos-u)";
  std::vector<bool> produced(sub_->tensors.size(), false);
  int ordinal = 0;
  for (const Node& earlier : sub_->nodes) {
    for (TensorId id : earlier.outputs) produced[static_cast<size_t>(id)] = true;
    if (earlier.op == kExternalOp) ++ordinal;
  }
  std::vector<uint8_t> options;
  if (op.custom_options() != nullptr) options.assign(op.custom_options()->begin(), op.custom_options()->end());
  return tflite_import::ethos_u_node(sub_->tensors, produced, sub_->inputs, tensor_ids(op.inputs(), true, label + ": input"),
                                     tensor_ids(op.outputs(), false, label + ": output"), options, ordinal, label);
}

// TFLite's "hybrid" kernels quantize float activations on the fly to multiply them
// with int8 weights; their exact rounding is kernel-specific, so aotc refuses them
// rather than produce different numbers.
void TfliteImporter::check_not_hybrid(const Node& node, int32_t code, const std::string& label) const {
  if (code != tfl::BuiltinOperator_CONV_2D && code != tfl::BuiltinOperator_DEPTHWISE_CONV_2D &&
      code != tfl::BuiltinOperator_FULLY_CONNECTED) {
    return;
  }
  TensorId input = node.input(0);
  TensorId weights = node.input(1);
  if (input == kNoTensor || weights == kNoTensor) return;
  DataType weights_dtype = sub_->tensors[static_cast<size_t>(weights)].dtype;
  bool int8_weights = weights_dtype == DataType::Int(8) || weights_dtype == DataType::UInt(8);
  if (sub_->tensors[static_cast<size_t>(input)].dtype.is_float() && int8_weights) {
    fail(label + ": hybrid models (float activations with int8 weights) are not supported");
  }
}

std::vector<TensorId> TfliteImporter::tensor_ids(const flatbuffers::Vector<int32_t>* ids, bool allow_omitted,
                                                 const std::string& what) const {
  std::vector<TensorId> result;
  if (ids == nullptr) return result;
  for (int32_t id : *ids) {
    if (id == -1 && allow_omitted) {
      result.push_back(kNoTensor);
    } else if (id < 0 || static_cast<size_t>(id) >= sub_->tensors.size()) {
      fail(what + " refers to tensor " + std::to_string(id) + ", but the subgraph has " +
           std::to_string(sub_->tensors.size()) + " tensors");
    } else {
      result.push_back(id);
    }
  }
  return result;
}

// A tensor without elements has no bytes to store, so the converter gives it no buffer
// data, and TFLite reads it as the empty value it is: RESHAPE's shape [] of a reshape to a
// scalar (the Squeeze of an ONNX If condition), an empty axes or permutation list. One that
// no operator writes and that is not a subgraph input is a constant, the empty one.
void TfliteImporter::make_unwritten_empty_tensors_constant() {
  std::vector<bool> written(sub_->tensors.size(), false);
  for (TensorId id : sub_->inputs) written[static_cast<size_t>(id)] = true;
  for (const Node& node : sub_->nodes)
    for (TensorId id : node.outputs) written[static_cast<size_t>(id)] = true;
  for (size_t id = 0; id < sub_->tensors.size(); ++id) {
    Tensor& tensor = sub_->tensors[id];
    if (!written[id] && !sub_->resources[id] && !tensor.is_variable && !tensor.is_constant() &&
        tensor.num_elements() == 0)
      tensor.data = std::vector<uint8_t>{};
  }
}

// Later passes rely on nodes being in execution order and on every tensor having
// one producer; TFLite promises both, this makes sure the file keeps the promise.
void TfliteImporter::check_execution_order() const {
  const std::vector<Tensor>& tensors = sub_->tensors;
  std::vector<bool> available(tensors.size(), false);
  for (TensorId id : sub_->inputs) available[static_cast<size_t>(id)] = true;
  for (size_t id = 0; id < tensors.size(); ++id)
    if (tensors[id].is_constant() || tensors[id].is_variable) available[id] = true;
  for (size_t n = 0; n < sub_->nodes.size(); ++n) {
    const Node& node = sub_->nodes[n];
    std::string label = "operator " + std::to_string(n) + " (" + node.op + ")";
    for (TensorId id : node.inputs) {
      if (id != kNoTensor && !available[static_cast<size_t>(id)]) {
        fail(label + ": reads tensor " + quoted(tensors[static_cast<size_t>(id)].name) + " before anything writes it");
      }
    }
    for (TensorId id : node.outputs) {
      if (available[static_cast<size_t>(id)]) {
        fail(label + ": writes tensor " + quoted(tensors[static_cast<size_t>(id)].name) +
             ", which is a constant, a variable, an input or already written");
      }
      available[static_cast<size_t>(id)] = true;
    }
  }
  for (TensorId id : sub_->outputs) {
    if (!available[static_cast<size_t>(id)]) {
      fail("output " + quoted(tensors[static_cast<size_t>(id)].name) + " is never written");
    }
  }
}

// The model's inputs and outputs are the caller's buffers: a variable tensor is state the
// model keeps between runs (in memory of its own, see graph.h), and a resource has no
// value to pass.
void TfliteImporter::check_main_interface() const {
  for (const auto* list : {&sub_->inputs, &sub_->outputs}) {
    for (TensorId id : *list) {
      const Tensor& t = sub_->tensors[static_cast<size_t>(id)];
      std::string what = std::string(list == &sub_->inputs ? "graph input " : "graph output ") + quoted(t.name);
      if (t.is_variable) fail(what + " is a variable tensor, which aotc keeps inside the model");
      if (sub_->resources[static_cast<size_t>(id)]) fail(what + " is a resource, which aotc keeps inside the model");
    }
  }
}

// What TFLite's Interpreter::ResizeInputTensor allows: --input-shape gives a graph input
// its shape, changing only the dimensions its shape_signature marks -1. An input that is
// not given keeps its stored shape if at most its dimension 0 (the batch, whose
// placeholder is the size TFLite runs with) is -1; any other -1 has no size to use.
void TfliteImporter::resize_main_inputs() {
  for (const auto& [name, shape] : bindings_.input_shapes) {
    bool found = false;
    for (TensorId id : sub_->inputs) found |= sub_->tensors[static_cast<size_t>(id)].name == name;
    if (!found) {
      std::string inputs;
      for (TensorId id : sub_->inputs) inputs += (inputs.empty() ? "" : ", ") + quoted(sub_->tensors[static_cast<size_t>(id)].name);
      fail("--input-shape names " + quoted(name) + ", which is not a graph input (the inputs: " + inputs + ")");
    }
  }
  for (TensorId id : sub_->inputs) {
    Tensor& input = sub_->tensors[static_cast<size_t>(id)];
    const std::vector<int64_t>& signature = sub_->dynamic_signatures[static_cast<size_t>(id)];
    std::string label = "graph input " + quoted(input.name);
    auto given = bindings_.input_shapes.find(input.name);
    if (given == bindings_.input_shapes.end()) {
      if (std::find(signature.begin() + (signature.empty() ? 0 : 1), signature.end(), -1) != signature.end())
        fail(label + ": dynamic shape " + shape_str(signature) + " (its shape_signature): give its shape with --input-shape " +
             input.name + "=D0,D1,...");
      continue;
    }
    const std::vector<int64_t>& shape = given->second;
    const std::vector<int64_t>& fixed = signature.empty() ? input.shape : signature;
    std::string which = signature.empty() ? "its shape " + shape_str(input.shape) + " (it has no shape_signature: no dimension may change)"
                                          : "its shape_signature " + shape_str(signature);
    if (shape.size() != fixed.size())
      fail(label + ": --input-shape gives " + std::to_string(shape.size()) + " dimensions " + shape_str(shape) + ", but " +
           which + " has " + std::to_string(fixed.size()));
    for (size_t d = 0; d < shape.size(); ++d)
      if (fixed[d] != -1 && fixed[d] != shape[d])
        fail(label + ": --input-shape " + shape_str(shape) + " changes dimension " + std::to_string(d) + " to " +
             std::to_string(shape[d]) + ", but " + which + " fixes it at " + std::to_string(fixed[d]) +
             " (TFLite resizes only the dimensions marked -1)");
    std::string problem = shape_size_problem(shape);
    if (!problem.empty()) fail(label + ": --input-shape " + shape_str(shape) + ": " + problem);
    input.shape = shape;
    check_size_limit(input, label);
    resized_ = true;
  }
}

// A tensor whose shape_signature has a -1 holds only the converter's placeholder there,
// right for the stored input shapes at best (melspectrogram's [1, 1] input gives a
// [1, 1, 1, 257] placeholder where a 512-tap convolution leaves nothing). TFLite's
// interpreter recomputes every such shape from the inputs, and so does aotc's shape
// inference once shape_known is false: for every such tensor after --input-shape, and for
// those with a -1 beyond dimension 0 in any case (a batch-only -1 keeps its stored size,
// as TFLite runs an unresized model). Constants and the graph's inputs keep theirs.
void TfliteImporter::forget_placeholder_shapes(size_t index) {
  for (size_t id = 0; id < sub_->tensors.size(); ++id) {
    const std::vector<int64_t>& signature = sub_->dynamic_signatures[id];
    Tensor& tensor = sub_->tensors[id];
    if (signature.empty() || tensor.is_constant() || tensor.is_variable) continue;
    if (index == 0 && std::find(sub_->inputs.begin(), sub_->inputs.end(), static_cast<TensorId>(id)) != sub_->inputs.end())
      continue;
    if (resized_ || std::find(signature.begin() + 1, signature.end(), -1) != signature.end()) {
      tensor.shape.clear();
      tensor.shape_known = false;
    }
  }
}

std::vector<uint8_t> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(path + ": cannot open file: " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw CompileError(path + ": cannot read file");
  return bytes;
}

}  // namespace

Graph import_tflite_bytes(const uint8_t* bytes, size_t size, const std::string& source_name,
                          const ShapeBindings& bindings) {
  // The verifier checks field alignment relative to the start of the buffer;
  // that only means real alignment if the start itself is aligned.
  std::vector<uint64_t> aligned_copy;
  if (reinterpret_cast<uintptr_t>(bytes) % alignof(uint64_t) != 0) {
    aligned_copy.resize((size + sizeof(uint64_t) - 1) / sizeof(uint64_t));
    std::memcpy(aligned_copy.data(), bytes, size);
    bytes = reinterpret_cast<const uint8_t*>(aligned_copy.data());
  }
  try {
    if (!bindings.dims.empty())
      throw CompileError("--dim applies to ONNX models (TFLite dimensions have no names): give the input's whole shape "
                         "with --input-shape");
    return TfliteImporter(bytes, size, bindings).run();
  } catch (const CompileError& e) {
    throw CompileError(source_name + ": " + e.what());
  }
}

Graph import_tflite(const std::string& path, const ShapeBindings& bindings) {
  std::vector<uint8_t> bytes = read_whole_file(path);
  return import_tflite_bytes(bytes.data(), bytes.size(), path, bindings);
}

}  // namespace aotc
