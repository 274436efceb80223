// The TFLite operators beyond the MLPerf Tiny set, end to end: a single-operator model of
// each (float, int8 and int16 where TFLite Micro has them), built with tests/tflite_model_builder.h,
// goes through `aotc compile`, and its generated C builds with gcc and clang under
// -std=c99 -Wall -Wextra -Werror -pedantic. A few run through `aotc run` against values
// worked out by hand. (The operators' arithmetic is checked element by element in
// tests/unit/test_tflite_*.cc, and the quantized activations, math, L2_NORMALIZATION and
// RESIZE_BILINEAR through the compiled C in test_tflite_operator_values.cc.)
#include <fstream>
#include <tuple>

#include "tests/e2e/e2e_util.h"
#include "tests/tflite_model_builder.h"

namespace aotc::e2e {
namespace {

using test::TfliteModelBuilder;
using FBB = flatbuffers::FlatBufferBuilder;
using namespace test::tensor_types;

struct ModelCase {
  std::string name;
  std::function<TfliteModelBuilder()> build;
};

std::ostream& operator<<(std::ostream& os, const ModelCase& c) { return os << c.name; }

int32_t ints(TfliteModelBuilder& b, const std::string& name, std::vector<int32_t> v, std::vector<int32_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int32_t>(v.size())};
  return b.constant(name, kI32, shape, v);
}

// x [1, 4, 4, 2] (float, or int8 with scale 0.1) -> op -> y of `out_shape`.
ModelCase unary(const std::string& name, tfl::BuiltinOperator code, bool int8, std::vector<int32_t> out_shape,
                std::function<std::vector<int32_t>(TfliteModelBuilder&)> extra = nullptr,
                tfl::BuiltinOptions options_type = tfl::BuiltinOptions_NONE, TfliteModelBuilder::OptionsFn options = nullptr,
                tfl::TensorType out_type = tfl::TensorType_FLOAT32) {
  return {name + (int8 ? "_int8" : "_float"), [=] {
            TfliteModelBuilder b;
            tfl::TensorType t = int8 ? kI8 : kF32;
            int32_t x = b.input("x", t, {1, 4, 4, 2}, int8 ? 0.1f : 0, int8 ? -3 : 0);
            std::vector<int32_t> inputs = {x};
            if (extra)
              for (int32_t id : extra(b)) inputs.push_back(id);
            tfl::TensorType ot = out_type == kI32 ? kI32 : t;
            int32_t y = b.output("y", ot, out_shape, int8 && ot == kI8 ? 0.1f : 0, int8 && ot == kI8 ? -3 : 0);
            b.op(code, inputs, {y}, options_type, options);
            return b;
          }};
}

std::vector<ModelCase> cases() {
  std::vector<ModelCase> out;
  for (bool q : {false, true}) {
    out.push_back(unary("transpose", tfl::BuiltinOperator_TRANSPOSE, q, {1, 2, 4, 4},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "perm", {0, 3, 1, 2})}; }));
    out.push_back(unary("pad", tfl::BuiltinOperator_PAD, q, {1, 6, 5, 2}, [](TfliteModelBuilder& b) {
      return std::vector<int32_t>{ints(b, "pads", {0, 0, 1, 1, 0, 1, 0, 0}, {4, 2})};
    }));
    out.push_back(unary("strided_slice", tfl::BuiltinOperator_STRIDED_SLICE, q, {1, 2, 4},
                        [](TfliteModelBuilder& b) {
                          return std::vector<int32_t>{ints(b, "b", {0, 3, 0, 1}), ints(b, "e", {1, 0, 4, 2}), ints(b, "s", {1, -2, 1, 1})};
                        },
                        tfl::BuiltinOptions_StridedSliceOptions, [](FBB& f) { return tfl::CreateStridedSliceOptions(f, 0, 0, 0, 0, 8).Union(); }));
    out.push_back(unary("slice", tfl::BuiltinOperator_SLICE, q, {1, 2, 3, 2}, [](TfliteModelBuilder& b) {
      return std::vector<int32_t>{ints(b, "b", {0, 1, 1, 0}), ints(b, "s", {1, 2, 3, -1})};
    }));
    out.push_back(unary("concatenation", tfl::BuiltinOperator_CONCATENATION, q, {1, 4, 4, 4},
                        [](TfliteModelBuilder&) { return std::vector<int32_t>{0}; }, tfl::BuiltinOptions_ConcatenationOptions,
                        [](FBB& f) { return tfl::CreateConcatenationOptions(f, 3).Union(); }));
    out.push_back(unary("space_to_depth", tfl::BuiltinOperator_SPACE_TO_DEPTH, q, {1, 2, 2, 8}, nullptr,
                        tfl::BuiltinOptions_SpaceToDepthOptions, [](FBB& f) { return tfl::CreateSpaceToDepthOptions(f, 2).Union(); }));
    out.push_back(unary("gather", tfl::BuiltinOperator_GATHER, q, {1, 3, 4, 2},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "i", {3, 0, 3})}; },
                        tfl::BuiltinOptions_GatherOptions, [](FBB& f) { return tfl::CreateGatherOptions(f, 1).Union(); }));
    out.push_back(unary("mean", tfl::BuiltinOperator_MEAN, q, {1, 2},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "axes", {1, 2})}; }));
    out.push_back(unary("sum", tfl::BuiltinOperator_SUM, q, {1, 4, 4},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "axes", {-1})}; }));
    out.push_back(unary("reduce_max", tfl::BuiltinOperator_REDUCE_MAX, q, {1, 4, 1, 2},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "axes", {2})}; },
                        tfl::BuiltinOptions_ReducerOptions, [](FBB& f) { return tfl::CreateReducerOptions(f, true).Union(); }));
    out.push_back(unary("arg_max", tfl::BuiltinOperator_ARG_MAX, q, {1, 4, 4},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "axis", {3}, {1})}; },
                        tfl::BuiltinOptions_ArgMaxOptions, [](FBB& f) { return tfl::CreateArgMaxOptions(f, kI32).Union(); }, kI32));
    out.push_back(unary("relu", tfl::BuiltinOperator_RELU, q, {1, 4, 4, 2}));
    out.push_back(unary("relu6", tfl::BuiltinOperator_RELU6, q, {1, 4, 4, 2}));
    out.push_back(unary("leaky_relu", tfl::BuiltinOperator_LEAKY_RELU, q, {1, 4, 4, 2}, nullptr,
                        tfl::BuiltinOptions_LeakyReluOptions, [](FBB& f) { return tfl::CreateLeakyReluOptions(f, 0.2f).Union(); }));
    out.push_back(unary("resize_nearest", tfl::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, q, {1, 8, 6, 2},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "size", {8, 6})}; }));
    out.push_back(unary("resize_bilinear", tfl::BuiltinOperator_RESIZE_BILINEAR, q, {1, 7, 3, 2},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "size", {7, 3})}; },
                        tfl::BuiltinOptions_ResizeBilinearOptions, [](FBB& f) { return tfl::CreateResizeBilinearOptions(f, false, true).Union(); }));
    out.push_back(unary("maximum", tfl::BuiltinOperator_MAXIMUM, q, {1, 4, 4, 2},
                        [](TfliteModelBuilder&) { return std::vector<int32_t>{0}; }));
    // A SHAPE that writes a graph output keeps its kernel (elsewhere it folds).
    out.push_back(unary("shape", tfl::BuiltinOperator_SHAPE, q, {4}, nullptr, tfl::BuiltinOptions_ShapeOptions,
                        [](FBB& f) { return tfl::CreateShapeOptions(f, kI32).Union(); }, kI32));
    out.push_back(unary("tile", tfl::BuiltinOperator_TILE, q, {2, 4, 8, 2},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "multiples", {2, 1, 2, 1})}; }));
    out.push_back(unary("broadcast_to", tfl::BuiltinOperator_BROADCAST_TO, q, {3, 1, 4, 4, 2},
                        [](TfliteModelBuilder& b) { return std::vector<int32_t>{ints(b, "to", {3, 1, 4, 4, 2})}; }));
  }
  out.push_back({"fill_int8", [] {
                   TfliteModelBuilder b;
                   int32_t value = b.input("value", kI8, {}, 0.1f, -3);
                   int32_t y = b.output("y", kI8, {2, 3, 4}, 0.1f, -3);
                   b.op(tfl::BuiltinOperator_FILL, {ints(b, "dims", {2, 3, 4}), value}, {y});
                   return b;
                 }});
  for (auto code : {tfl::BuiltinOperator_ADD, tfl::BuiltinOperator_SUB})
    out.push_back({std::string(code == tfl::BuiltinOperator_ADD ? "add" : "sub") + "_int16", [code] {
                     TfliteModelBuilder b;
                     int32_t x = b.input("x", kI16, {1, 4, 4, 2}, 0.0005f, 0), z = b.input("z", kI16, {2}, 0.0002f, 0);
                     int32_t y = b.output("y", kI16, {1, 4, 4, 2}, 0.0007f, 0);
                     b.op(code, {x, z}, {y});
                     return b;
                   }});
  out.push_back({"mul_int32", [] {
                   TfliteModelBuilder b;
                   int32_t x = b.input("x", kI32, {3, 2}), z = b.input("z", kI32, {2});
                   int32_t y = b.output("y", kI32, {3, 2});
                   b.op(tfl::BuiltinOperator_MUL, {x, z}, {y}, tfl::BuiltinOptions_MulOptions,
                        [](FBB& f) { return tfl::CreateMulOptions(f, tfl::ActivationFunctionType_RELU6).Union(); });
                   return b;
                 }});
  for (auto [name, code] : std::vector<std::pair<std::string, tfl::BuiltinOperator>>{
           {"logistic", tfl::BuiltinOperator_LOGISTIC}, {"tanh", tfl::BuiltinOperator_TANH},
           {"hard_swish", tfl::BuiltinOperator_HARD_SWISH}, {"relu_n1_to_1", tfl::BuiltinOperator_RELU_N1_TO_1},
           {"abs", tfl::BuiltinOperator_ABS}, {"neg", tfl::BuiltinOperator_NEG}, {"exp", tfl::BuiltinOperator_EXP},
           {"l2_normalization", tfl::BuiltinOperator_L2_NORMALIZATION}})
    out.push_back(unary(name, code, false, {1, 4, 4, 2}));
  for (auto [name, code, zero_point] : std::vector<std::tuple<std::string, tfl::BuiltinOperator, int64_t>>{
           {"logistic_int8", tfl::BuiltinOperator_LOGISTIC, -128}, {"tanh_int8", tfl::BuiltinOperator_TANH, 0},
           {"hard_swish_int8", tfl::BuiltinOperator_HARD_SWISH, 0}})
    // Captured by name: C++17 lambdas cannot capture structured bindings (clang refuses).
    out.push_back({name, [code = code, zero_point = zero_point] {
                     TfliteModelBuilder b;
                     int32_t x = b.input("x", kI8, {1, 4, 4, 2}, 0.1f, -3);
                     int32_t y = b.output("y", kI8, {1, 4, 4, 2}, zero_point == 0 ? 1.0f / 128 : 1.0f / 256, zero_point);
                     b.op(code, {x}, {y});
                     return b;
                   }});
  // The int16 and int8 variants of the activations and math (their values are checked in
  // test_tflite_operator_values.cc).
  for (auto [name, code, scale, out_scale] : std::vector<std::tuple<std::string, tfl::BuiltinOperator, float, float>>{
           {"logistic_int16", tfl::BuiltinOperator_LOGISTIC, 0.001f, 1.0f / 32768},
           {"tanh_int16", tfl::BuiltinOperator_TANH, 1.0f / 4096, 1.0f / 32768},
           {"abs_int16", tfl::BuiltinOperator_ABS, 0.001f, 0.002f}})
    out.push_back({name, [code = code, scale = scale, out_scale = out_scale] {
                     TfliteModelBuilder b;
                     int32_t x = b.input("x", tfl::TensorType_INT16, {1, 4, 4, 2}, scale, 0);
                     int32_t y = b.output("y", tfl::TensorType_INT16, {1, 4, 4, 2}, out_scale, 0);
                     b.op(code, {x}, {y});
                     return b;
                   }});
  for (auto [name, code] : std::vector<std::pair<std::string, tfl::BuiltinOperator>>{
           {"abs_int8", tfl::BuiltinOperator_ABS},
           {"rsqrt_int8", tfl::BuiltinOperator_RSQRT},
           {"l2_normalization_int8", tfl::BuiltinOperator_L2_NORMALIZATION}})
    out.push_back({name, [code = code] {
                     TfliteModelBuilder b;
                     int32_t x = b.input("x", kI8, {1, 4, 4, 2}, 0.1f, -3);
                     int32_t y = b.output("y", kI8, {1, 4, 4, 2}, 1.0f / 128, 0);
                     b.op(code, {x}, {y});
                     return b;
                   }});
  out.push_back({"prelu_int16", [] {
                   TfliteModelBuilder b;
                   int32_t x = b.input("x", tfl::TensorType_INT16, {1, 4, 4, 2}, 0.001f, 0);
                   int32_t alpha = b.constant("alpha", kI8, {2}, std::vector<int8_t>{-20, 90}, 0.01f, 3);
                   int32_t y = b.output("y", tfl::TensorType_INT16, {1, 4, 4, 2}, 0.001f, 0);
                   b.op(tfl::BuiltinOperator_PRELU, {x, alpha}, {y});
                   return b;
                 }});
  for (auto type : {kI8, tfl::TensorType_INT16})
    out.push_back({std::string("squared_difference_") + (type == kI8 ? "int8" : "int16"), [=] {
                     TfliteModelBuilder b;
                     int32_t x = b.input("x", type, {1, 4, 4, 2}, 0.01f, 0);
                     int32_t z = b.input("z", type, {2}, 0.02f, 0);
                     int32_t y = b.output("y", type, {1, 4, 4, 2}, 0.05f, 0);
                     b.op(tfl::BuiltinOperator_SQUARED_DIFFERENCE, {x, z}, {y});
                     return b;
                   }});
  out.push_back({"pack_unpack_split", [] {
                   TfliteModelBuilder b;
                   int32_t x = b.input("x", kF32, {2, 3});
                   int32_t u0 = b.tensor(TfliteModelBuilder::spec("u0", kF32, {3})), u1 = b.tensor(TfliteModelBuilder::spec("u1", kF32, {3}));
                   b.op(tfl::BuiltinOperator_UNPACK, {x}, {u0, u1}, tfl::BuiltinOptions_UnpackOptions,
                        [](FBB& f) { return tfl::CreateUnpackOptions(f, 2, 0).Union(); });
                   int32_t p = b.tensor(TfliteModelBuilder::spec("p", kF32, {3, 2}));
                   b.op(tfl::BuiltinOperator_PACK, {u1, u0}, {p}, tfl::BuiltinOptions_PackOptions,
                        [](FBB& f) { return tfl::CreatePackOptions(f, 2, 1).Union(); });
                   int32_t s0 = b.output("s0", kF32, {1, 2}), s1 = b.output("s1", kF32, {2, 2});
                   b.op(tfl::BuiltinOperator_SPLIT_V, {p, ints(b, "sizes", {1, -1}), ints(b, "axis", {0}, {})}, {s0, s1},
                        tfl::BuiltinOptions_SplitVOptions, [](FBB& f) { return tfl::CreateSplitVOptions(f, 2).Union(); });
                   return b;
                 }});
  out.push_back({"transpose_conv_int8", [] {
                   TfliteModelBuilder b;
                   int32_t x = b.input("x", kI8, {1, 3, 3, 2}, 0.05f, 1);
                   int32_t w = b.constant("w", kI8, {4, 3, 3, 2}, std::vector<int8_t>(72, 3), 0.01f, 0);
                   int32_t bias = b.constant("bias", kI32, {4}, std::vector<int32_t>{1, 2, 3, 4}, 0.0005f, 0);
                   int32_t y = b.output("y", kI8, {1, 6, 6, 4}, 0.1f, 0);
                   b.op(tfl::BuiltinOperator_TRANSPOSE_CONV, {ints(b, "shape", {1, 6, 6, 4}), w, x, bias}, {y},
                        tfl::BuiltinOptions_TransposeConvOptions,
                        [](FBB& f) { return tfl::CreateTransposeConvOptions(f, tfl::Padding_SAME, 2, 2).Union(); });
                   return b;
                 }});
  out.push_back({"conv2d_16x8", [] {
                   TfliteModelBuilder b;
                   int32_t x = b.input("x", tfl::TensorType_INT16, {1, 5, 5, 2}, 0.001f, 0);
                   int32_t w = b.constant("w", kI8, {3, 3, 3, 2}, std::vector<int8_t>(54, 5), 0.01f, 0);
                   int32_t bias = b.constant("bias", tfl::TensorType_INT64, {3}, std::vector<int64_t>{10, -20, 30}, 0.00001f, 0);
                   int32_t y = b.output("y", tfl::TensorType_INT16, {1, 5, 5, 3}, 0.002f, 0);
                   b.op(tfl::BuiltinOperator_CONV_2D, {x, w, bias}, {y}, tfl::BuiltinOptions_Conv2DOptions,
                        [](FBB& f) { return tfl::CreateConv2DOptions(f, tfl::Padding_SAME, 1, 1).Union(); });
                   return b;
                 }});
  out.push_back({"batch_matmul_int16", [] {
                   TfliteModelBuilder b;
                   int32_t x = b.input("x", tfl::TensorType_INT16, {2, 3, 4}, 0.001f, 0);
                   int32_t w = b.constant("w", tfl::TensorType_INT16, {4, 5}, std::vector<int16_t>(20, -700), 0.002f, 0);
                   int32_t y = b.output("y", tfl::TensorType_INT16, {2, 3, 5}, 0.01f, 0);
                   b.op(tfl::BuiltinOperator_BATCH_MATMUL, {x, w}, {y});
                   return b;
                 }});
  out.push_back({"batch_matmul_int8", [] {
                   TfliteModelBuilder b;
                   int32_t x = b.input("x", kI8, {2, 3, 4}, 0.05f, 1);
                   int32_t w = b.constant("w", kI8, {4, 5}, std::vector<int8_t>(20, -7), 0.02f, 2);
                   int32_t y = b.output("y", kI8, {2, 3, 5}, 0.1f, 0);
                   b.op(tfl::BuiltinOperator_BATCH_MATMUL, {x, w}, {y});
                   return b;
                 }});
  out.push_back({"lstm_float", [] {
                   TfliteModelBuilder b;
                   int32_t x = b.input("x", kF32, {1, 3, 2});
                   std::vector<int32_t> inputs(24, -1);
                   inputs[0] = x;
                   for (int g = 0; g < 4; ++g) {
                     inputs[1 + g] = b.constant("w" + std::to_string(g), kF32, {4, 2}, std::vector<float>(8, 0.1f * g));
                     inputs[5 + g] = b.constant("r" + std::to_string(g), kF32, {4, 4}, std::vector<float>(16, -0.05f));
                     inputs[12 + g] = b.constant("b" + std::to_string(g), kF32, {4}, std::vector<float>(4, 0.2f));
                   }
                   for (int s = 0; s < 2; ++s) {
                     TfliteModelBuilder::TensorSpec state = TfliteModelBuilder::spec(s == 0 ? "h" : "c", kF32, {1, 4});
                     state.is_variable = true;
                     inputs[18 + s] = b.tensor(state);
                   }
                   int32_t y = b.output("y", kF32, {1, 3, 4});
                   b.op(tfl::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, inputs, {y},
                        tfl::BuiltinOptions_UnidirectionalSequenceLSTMOptions,
                        [](FBB& f) { return tfl::CreateUnidirectionalSequenceLSTMOptions(f, tfl::ActivationFunctionType_TANH, 3.0f).Union(); });
                   return b;
                 }});
  return out;
}

class TfliteOperatorModel : public ::testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override { dir_ = std::make_unique<TempDir>("aotc-tflite-op"); }
  std::string tmp(const std::string& name) const { return dir_->path() + "/" + name; }
  std::unique_ptr<TempDir> dir_;
};

TEST_P(TfliteOperatorModel, GeneratedCIsStrictC99ForGccAndClang) {
  std::vector<uint8_t> bytes = GetParam().build().build();
  {
    std::ofstream f(tmp("model.tflite"), std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  Result r = run({"compile", tmp("model.tflite"), "-o", tmp("out")});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const std::string cc : {"gcc", "clang"}) {
    std::string log;
    int status = run_process({cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-c", tmp("out/model.c"),
                              "-I" + tmp("out"), "-o", tmp("model." + cc + ".o")},
                             &log);
    EXPECT_EQ(status, 0) << cc << ":\n" << log;
  }
}

INSTANTIATE_TEST_SUITE_P(Operators, TfliteOperatorModel, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// Values worked out by hand, through the compiled C: x = 0..5 as [2, 3] -> UNPACK along 0
// -> PACK (second, first) along 1 -> [[3, 0], [4, 1], [5, 2]] -> SPLIT_V rows {1, 2}.
TEST(TfliteOperatorRun, PackUnpackSplitThroughTheCompiledC) {
  TempDir dir("aotc-tflite-op");
  std::vector<uint8_t> bytes;
  for (const ModelCase& c : cases())
    if (c.name == "pack_unpack_split") bytes = c.build().build();
  std::string model = dir.path() + "/model.tflite";
  {
    std::ofstream f(model, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    std::ofstream x(dir.path() + "/x.bin", std::ios::binary);
    float values[6] = {0, 1, 2, 3, 4, 5};
    x.write(reinterpret_cast<const char*>(values), sizeof values);
  }
  ScopedEnvironment strict({{"CFLAGS", "-std=c99 -Wall -Wextra -Werror -pedantic"}});
  Result r = run({"run", model, "--inputs", dir.path() + "/x.bin", "--outputs", dir.path() + "/s0.bin," + dir.path() + "/s1.bin"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_floats(dir.path() + "/s0.bin"), (std::vector<float>{3, 0}));
  EXPECT_EQ(read_floats(dir.path() + "/s1.bin"), (std::vector<float>{4, 1, 5, 2}));
}

}  // namespace
}  // namespace aotc::e2e
