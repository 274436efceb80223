// tflm_run: runs a .tflite model through TensorFlow Lite Micro's MicroInterpreter and its
// reference kernels, as an independent oracle for aotc's TFLite path (aotc issue #26).
//
//   tflm_run model.tflite --inputs in0.bin [in1.bin ...] --outputs out0.bin [...]
//            [--random SEED] [--arena BYTES]
//   tflm_run model.tflite --describe
//
// Tensors are raw little-endian bytes in the model's own layout and type, one file per
// subgraph-0 input/output, in the model's order. With --random SEED the inputs are not read but
// generated and written to the --inputs files (so another runtime can be fed the same bytes):
// int8/uint8/int16 uniform over their full range, float32 standard normal, bool 0/1; other input
// types are refused, as no range would be meaningful for them (indices, shapes).
// For each input and output a line "input|output INDEX TYPE DIMS BYTES NAME" goes to stdout
// (DIMS as 1x49x10x1, "scalar" for rank 0; NAME the model's, to the end of the line), so a driver knows what the files hold; --describe prints
// only these lines, reading and writing nothing.
// Exit status: 0 on success; 1 on a usage or file error; 2 when TFLM refuses the model
// (an unsupported operator, AllocateTensors or Invoke failing), with its log on stderr.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tensorflow/lite/micro/micro_allocator.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/micro_resource_variable.h"
#include "tensorflow/lite/schema/schema_generated.h"

namespace {

// Every builtin and custom operator TFLM's reference kernels implement, less the signal
// library's (they need kissfft, which the oracle build leaves out) and Ethos-U (hardware).
using OracleOpResolver = tflite::MicroMutableOpResolver<128>;

TfLiteStatus RegisterAllOps(OracleOpResolver& r) {
  TF_LITE_ENSURE_STATUS(r.AddAbs());
  TF_LITE_ENSURE_STATUS(r.AddAdd());
  TF_LITE_ENSURE_STATUS(r.AddAddN());
  TF_LITE_ENSURE_STATUS(r.AddArgMax());
  TF_LITE_ENSURE_STATUS(r.AddArgMin());
  TF_LITE_ENSURE_STATUS(r.AddAssignVariable());
  TF_LITE_ENSURE_STATUS(r.AddAveragePool2D());
  TF_LITE_ENSURE_STATUS(r.AddBatchMatMul());
  TF_LITE_ENSURE_STATUS(r.AddBatchToSpaceNd());
  TF_LITE_ENSURE_STATUS(r.AddBroadcastArgs());
  TF_LITE_ENSURE_STATUS(r.AddBroadcastTo());
  TF_LITE_ENSURE_STATUS(r.AddCallOnce());
  TF_LITE_ENSURE_STATUS(r.AddCast());
  TF_LITE_ENSURE_STATUS(r.AddCeil());
  TF_LITE_ENSURE_STATUS(r.AddCircularBuffer());
  TF_LITE_ENSURE_STATUS(r.AddConcatenation());
  TF_LITE_ENSURE_STATUS(r.AddConv2D());
  TF_LITE_ENSURE_STATUS(r.AddCos());
  TF_LITE_ENSURE_STATUS(r.AddCumSum());
  TF_LITE_ENSURE_STATUS(r.AddDecode());
  TF_LITE_ENSURE_STATUS(r.AddDepthToSpace());
  TF_LITE_ENSURE_STATUS(r.AddDepthwiseConv2D());
  TF_LITE_ENSURE_STATUS(r.AddDequantize());
  TF_LITE_ENSURE_STATUS(r.AddDetectionPostprocess());
  TF_LITE_ENSURE_STATUS(r.AddDiv());
  TF_LITE_ENSURE_STATUS(r.AddDynamicUpdateSlice());
  TF_LITE_ENSURE_STATUS(r.AddElu());
  TF_LITE_ENSURE_STATUS(r.AddEmbeddingLookup());
  TF_LITE_ENSURE_STATUS(r.AddEqual());
  TF_LITE_ENSURE_STATUS(r.AddExp());
  TF_LITE_ENSURE_STATUS(r.AddExpandDims());
  TF_LITE_ENSURE_STATUS(r.AddFill());
  TF_LITE_ENSURE_STATUS(r.AddFloor());
  TF_LITE_ENSURE_STATUS(r.AddFloorDiv());
  TF_LITE_ENSURE_STATUS(r.AddFloorMod());
  TF_LITE_ENSURE_STATUS(r.AddFullyConnected());
  TF_LITE_ENSURE_STATUS(r.AddGather());
  TF_LITE_ENSURE_STATUS(r.AddGatherNd());
  TF_LITE_ENSURE_STATUS(r.AddGreater());
  TF_LITE_ENSURE_STATUS(r.AddGreaterEqual());
  TF_LITE_ENSURE_STATUS(r.AddHardSwish());
  TF_LITE_ENSURE_STATUS(r.AddIf());
  TF_LITE_ENSURE_STATUS(r.AddL2Normalization());
  TF_LITE_ENSURE_STATUS(r.AddL2Pool2D());
  TF_LITE_ENSURE_STATUS(r.AddLeakyRelu());
  TF_LITE_ENSURE_STATUS(r.AddLess());
  TF_LITE_ENSURE_STATUS(r.AddLessEqual());
  TF_LITE_ENSURE_STATUS(r.AddLog());
  TF_LITE_ENSURE_STATUS(r.AddLogSoftmax());
  TF_LITE_ENSURE_STATUS(r.AddLogicalAnd());
  TF_LITE_ENSURE_STATUS(r.AddLogicalNot());
  TF_LITE_ENSURE_STATUS(r.AddLogicalOr());
  TF_LITE_ENSURE_STATUS(r.AddLogistic());
  TF_LITE_ENSURE_STATUS(r.AddMaxPool2D());
  TF_LITE_ENSURE_STATUS(r.AddMaximum());
  TF_LITE_ENSURE_STATUS(r.AddMean());
  TF_LITE_ENSURE_STATUS(r.AddMinimum());
  TF_LITE_ENSURE_STATUS(r.AddMirrorPad());
  TF_LITE_ENSURE_STATUS(r.AddMul());
  TF_LITE_ENSURE_STATUS(r.AddNeg());
  TF_LITE_ENSURE_STATUS(r.AddNotEqual());
  TF_LITE_ENSURE_STATUS(r.AddPack());
  TF_LITE_ENSURE_STATUS(r.AddPad());
  TF_LITE_ENSURE_STATUS(r.AddPadV2());
  TF_LITE_ENSURE_STATUS(r.AddPrelu());
  TF_LITE_ENSURE_STATUS(r.AddQuantize());
  TF_LITE_ENSURE_STATUS(r.AddReadVariable());
  TF_LITE_ENSURE_STATUS(r.AddReduceAll());
  TF_LITE_ENSURE_STATUS(r.AddReduceMax());
  TF_LITE_ENSURE_STATUS(r.AddReduceMin());
  TF_LITE_ENSURE_STATUS(r.AddRelu());
  TF_LITE_ENSURE_STATUS(r.AddRelu6());
  TF_LITE_ENSURE_STATUS(r.AddReshape());
  TF_LITE_ENSURE_STATUS(r.AddResizeBilinear());
  TF_LITE_ENSURE_STATUS(r.AddResizeNearestNeighbor());
  TF_LITE_ENSURE_STATUS(r.AddReverseV2());
  TF_LITE_ENSURE_STATUS(r.AddRound());
  TF_LITE_ENSURE_STATUS(r.AddRsqrt());
  TF_LITE_ENSURE_STATUS(r.AddSelectV2());
  TF_LITE_ENSURE_STATUS(r.AddShape());
  TF_LITE_ENSURE_STATUS(r.AddSin());
  TF_LITE_ENSURE_STATUS(r.AddSlice());
  TF_LITE_ENSURE_STATUS(r.AddSoftmax());
  TF_LITE_ENSURE_STATUS(r.AddSpaceToBatchNd());
  TF_LITE_ENSURE_STATUS(r.AddSpaceToDepth());
  TF_LITE_ENSURE_STATUS(r.AddSplit());
  TF_LITE_ENSURE_STATUS(r.AddSplitV());
  TF_LITE_ENSURE_STATUS(r.AddSqrt());
  TF_LITE_ENSURE_STATUS(r.AddSquare());
  TF_LITE_ENSURE_STATUS(r.AddSquaredDifference());
  TF_LITE_ENSURE_STATUS(r.AddSqueeze());
  TF_LITE_ENSURE_STATUS(r.AddStridedSlice());
  TF_LITE_ENSURE_STATUS(r.AddSub());
  TF_LITE_ENSURE_STATUS(r.AddSum());
  TF_LITE_ENSURE_STATUS(r.AddSvdf());
  TF_LITE_ENSURE_STATUS(r.AddTanh());
  TF_LITE_ENSURE_STATUS(r.AddTranspose());
  TF_LITE_ENSURE_STATUS(r.AddTransposeConv());
  TF_LITE_ENSURE_STATUS(r.AddUnidirectionalSequenceLSTM());
  TF_LITE_ENSURE_STATUS(r.AddUnpack());
  TF_LITE_ENSURE_STATUS(r.AddVarHandle());
  TF_LITE_ENSURE_STATUS(r.AddWhile());
  TF_LITE_ENSURE_STATUS(r.AddZerosLike());
  return kTfLiteOk;
}

// Resource variables (VAR_HANDLE) the interpreter can hold; as TFLM's own benchmark tools.
constexpr int kNumResourceVariables = 100;

bool ReadFile(const std::string& path, std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  bytes.clear();
  uint8_t chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  bool ok = !std::ferror(f);
  std::fclose(f);
  return ok;
}

bool WriteFile(const std::string& path, const void* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

std::string Dims(const TfLiteTensor* t) {
  if (t->dims == nullptr || t->dims->size == 0) return "scalar";
  std::string s;
  for (int i = 0; i < t->dims->size; ++i) {
    if (i) s += "x";
    s += std::to_string(t->dims->data[i]);
  }
  return s;
}

// The model's name for subgraph-0 tensor `id` (TfLiteTensor has none under
// TF_LITE_STATIC_MEMORY).
const char* TensorName(const tflite::Model* model, int32_t id) {
  const tflite::Tensor* t = model->subgraphs()->Get(0)->tensors()->Get(id);
  return t->name() ? t->name()->c_str() : "";
}

void Describe(const char* kind, size_t index, const TfLiteTensor* t, const char* name) {
  std::printf("%s %zu %s %s %zu %s\n", kind, index, TfLiteTypeGetName(t->type), Dims(t).c_str(),
              t->bytes, name);
}

// Fills an input tensor from the generator; false for a type with no meaningful random range.
bool FillRandom(TfLiteTensor* t, std::mt19937_64& rng) {
  const size_t bytes = t->bytes;
  switch (t->type) {
    case kTfLiteInt8: {
      std::uniform_int_distribution<int> d(-128, 127);
      for (size_t i = 0; i < bytes; ++i) t->data.int8[i] = static_cast<int8_t>(d(rng));
      return true;
    }
    case kTfLiteUInt8: {
      std::uniform_int_distribution<int> d(0, 255);
      for (size_t i = 0; i < bytes; ++i) t->data.uint8[i] = static_cast<uint8_t>(d(rng));
      return true;
    }
    case kTfLiteInt16: {
      std::uniform_int_distribution<int> d(-32768, 32767);
      for (size_t i = 0; i < bytes / 2; ++i) t->data.i16[i] = static_cast<int16_t>(d(rng));
      return true;
    }
    case kTfLiteFloat32: {
      std::normal_distribution<float> d(0.0f, 1.0f);
      for (size_t i = 0; i < bytes / 4; ++i) t->data.f[i] = d(rng);
      return true;
    }
    case kTfLiteBool: {
      std::uniform_int_distribution<int> d(0, 1);
      for (size_t i = 0; i < bytes; ++i) t->data.b[i] = d(rng) != 0;
      return true;
    }
    default:
      return false;
  }
}

int Usage() {
  std::fprintf(stderr,
               "usage: tflm_run model.tflite --inputs in0.bin [...] --outputs out0.bin [...]\n"
               "                [--random SEED] [--arena BYTES]\n"
               "       tflm_run model.tflite --describe\n");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  std::string model_path = argv[1];
  std::vector<std::string> input_paths, output_paths;
  bool random = false;
  bool describe_only = false;
  unsigned long long seed = 0;
  size_t arena_size = size_t{64} << 20;
  std::vector<std::string>* list = nullptr;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--inputs") {
      list = &input_paths;
    } else if (a == "--outputs") {
      list = &output_paths;
    } else if (a == "--random" && i + 1 < argc) {
      random = true;
      seed = std::strtoull(argv[++i], nullptr, 10);
      list = nullptr;
    } else if (a == "--describe") {
      describe_only = true;
      list = nullptr;
    } else if (a == "--arena" && i + 1 < argc) {
      arena_size = std::strtoull(argv[++i], nullptr, 10);
      list = nullptr;
    } else if (list != nullptr && a.rfind("--", 0) != 0) {
      list->push_back(a);
    } else {
      return Usage();
    }
  }

  std::vector<uint8_t> file;
  if (!ReadFile(model_path, file)) {
    std::fprintf(stderr, "tflm_run: cannot read %s\n", model_path.c_str());
    return 1;
  }
  // The flatbuffer is read in place: give it the alignment a malloc'd block has.
  uint8_t* model_data = static_cast<uint8_t*>(std::malloc(file.size()));
  std::memcpy(model_data, file.data(), file.size());
  flatbuffers::Verifier verifier(model_data, file.size());
  if (!tflite::VerifyModelBuffer(verifier)) {
    std::fprintf(stderr, "tflm_run: %s is not a valid TFLite flatbuffer\n", model_path.c_str());
    return 1;
  }
  const tflite::Model* model = tflite::GetModel(model_data);

  static OracleOpResolver resolver;
  if (RegisterAllOps(resolver) != kTfLiteOk) {
    std::fprintf(stderr, "tflm_run: registering the operators failed\n");
    return 2;
  }
  uint8_t* arena = static_cast<uint8_t*>(std::aligned_alloc(16, (arena_size + 15) & ~size_t{15}));
  tflite::MicroAllocator* allocator = tflite::MicroAllocator::Create(arena, arena_size);
  tflite::MicroInterpreter interpreter(
      model, resolver, allocator,
      tflite::MicroResourceVariables::Create(allocator, kNumResourceVariables));
  if (interpreter.AllocateTensors() != kTfLiteOk) {
    std::fprintf(stderr, "tflm_run: AllocateTensors failed\n");
    return 2;
  }
  if (describe_only) {
    for (size_t i = 0; i < interpreter.inputs_size(); ++i)
      Describe("input", i, interpreter.input(i), TensorName(model, interpreter.inputs()[i]));
    for (size_t i = 0; i < interpreter.outputs_size(); ++i)
      Describe("output", i, interpreter.output(i), TensorName(model, interpreter.outputs()[i]));
    return 0;
  }
  if (input_paths.size() != interpreter.inputs_size() ||
      output_paths.size() != interpreter.outputs_size()) {
    std::fprintf(stderr, "tflm_run: the model has %zu inputs and %zu outputs; given %zu and %zu\n",
                 interpreter.inputs_size(), interpreter.outputs_size(), input_paths.size(),
                 output_paths.size());
    return 1;
  }

  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < interpreter.inputs_size(); ++i) {
    TfLiteTensor* t = interpreter.input(i);
    Describe("input", i, t, TensorName(model, interpreter.inputs()[i]));
    if (random) {
      if (!FillRandom(t, rng)) {
        std::fprintf(stderr, "tflm_run: input %zu: no random generator for type %s\n", i,
                     TfLiteTypeGetName(t->type));
        return 1;
      }
      if (!WriteFile(input_paths[i], t->data.raw, t->bytes)) {
        std::fprintf(stderr, "tflm_run: cannot write %s\n", input_paths[i].c_str());
        return 1;
      }
    } else {
      std::vector<uint8_t> bytes;
      if (!ReadFile(input_paths[i], bytes)) {
        std::fprintf(stderr, "tflm_run: cannot read %s\n", input_paths[i].c_str());
        return 1;
      }
      if (bytes.size() != t->bytes) {
        std::fprintf(stderr, "tflm_run: %s has %zu bytes; input %zu (%s %s) needs %zu\n",
                     input_paths[i].c_str(), bytes.size(), i, TfLiteTypeGetName(t->type),
                     Dims(t).c_str(), t->bytes);
        return 1;
      }
      std::memcpy(t->data.raw, bytes.data(), bytes.size());
    }
  }

  if (interpreter.Invoke() != kTfLiteOk) {
    std::fprintf(stderr, "tflm_run: Invoke failed\n");
    return 2;
  }
  for (size_t i = 0; i < interpreter.outputs_size(); ++i) {
    const TfLiteTensor* t = interpreter.output(i);
    Describe("output", i, t, TensorName(model, interpreter.outputs()[i]));
    if (!WriteFile(output_paths[i], t->data.raw, t->bytes)) {
      std::fprintf(stderr, "tflm_run: cannot write %s\n", output_paths[i].c_str());
      return 1;
    }
  }
  return 0;
}
