// The TFLite importer's operator table (aot/import/tflite_operators.cc) for the operators
// beyond the MLPerf Tiny set, and variable tensors: single-operator models built with
// tests/tflite_model_builder.h import as the tfl.* node with the documented attributes
// (aot/import/tflite_importer.h), and the whole graph then passes shape inference.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "aot/import/tflite_importer.h"
#include "aot/passes/graph_passes.h"
#include "tests/tflite_model_builder.h"

namespace aotc::test {
namespace {

using FBB = flatbuffers::FlatBufferBuilder;

Graph import(const TfliteModelBuilder& b) {
  std::vector<uint8_t> bytes = b.build();
  return import_tflite_bytes(bytes.data(), bytes.size(), "model.tflite");
}

std::string import_error(const TfliteModelBuilder& b) {
  try {
    Graph g = import(b);
    infer_shapes(g);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

// One float operator x [1, 4, 4, 2] -> y, with its options and extra constant inputs.
struct OperatorCase {
  const char* name;
  tfl::BuiltinOperator code;
  tfl::BuiltinOptions options_type;
  TfliteModelBuilder::OptionsFn options;
  std::function<std::vector<int32_t>(TfliteModelBuilder&, int32_t x)> inputs;  // nullptr: {x}
  std::vector<int32_t> output_shape;
  std::function<void(const Node&)> check;
};

std::ostream& operator<<(std::ostream& os, const OperatorCase& c) { return os << c.name; }

std::vector<OperatorCase> cases() {
  auto ints = [](TfliteModelBuilder& b, const char* name, std::vector<int32_t> v) {
    return b.constant("c_" + std::string(name), tfl::TensorType_INT32, {static_cast<int32_t>(v.size())}, v);
  };
  auto none = tfl::BuiltinOptions_NONE;
  return {
      {"Concatenation", tfl::BuiltinOperator_CONCATENATION, tfl::BuiltinOptions_ConcatenationOptions,
       [](FBB& f) { return tfl::CreateConcatenationOptions(f, -1).Union(); },
       [](TfliteModelBuilder&, int32_t x) { return std::vector<int32_t>{x, x}; }, {1, 4, 4, 4},
       [](const Node& n) { EXPECT_EQ(n.attr_int("axis", 0), -1); }},
      {"StridedSlice", tfl::BuiltinOperator_STRIDED_SLICE, tfl::BuiltinOptions_StridedSliceOptions,
       [](FBB& f) { return tfl::CreateStridedSliceOptions(f, 1, 2, 0, 0, 8).Union(); },
       [=](TfliteModelBuilder& b, int32_t x) {
         return std::vector<int32_t>{x, ints(b, "begin", {0, 1, 0, 1}), ints(b, "end", {1, 4, 4, 2}), ints(b, "strides", {1, 2, 1, 1})};
       },
       {1, 2, 4},
       [](const Node& n) {
         EXPECT_EQ(n.attr_int("begin_mask", 0), 1);
         EXPECT_EQ(n.attr_int("end_mask", 0), 2);
         EXPECT_EQ(n.attr_int("shrink_axis_mask", 0), 8);
       }},
      {"Transpose", tfl::BuiltinOperator_TRANSPOSE, none, nullptr,
       [=](TfliteModelBuilder& b, int32_t x) { return std::vector<int32_t>{x, ints(b, "perm", {0, 3, 1, 2})}; }, {1, 2, 4, 4},
       nullptr},
      {"Pad", tfl::BuiltinOperator_PAD, none, nullptr,
       [](TfliteModelBuilder& b, int32_t x) {
         return std::vector<int32_t>{x, b.constant("pads", tfl::TensorType_INT32, {4, 2}, std::vector<int32_t>{0, 0, 1, 1, 0, 2, 0, 0})};
       },
       {1, 6, 6, 2}, nullptr},
      {"Squeeze", tfl::BuiltinOperator_SQUEEZE, tfl::BuiltinOptions_SqueezeOptions,
       [](FBB& f) {
         std::vector<int32_t> dims = {0};
         return tfl::CreateSqueezeOptionsDirect(f, &dims).Union();
       },
       nullptr, {4, 4, 2}, [](const Node& n) { EXPECT_EQ(n.attr_ints("squeeze_dims"), std::vector<int64_t>{0}); }},
      {"Mean", tfl::BuiltinOperator_MEAN, tfl::BuiltinOptions_ReducerOptions,
       [](FBB& f) { return tfl::CreateReducerOptions(f, true).Union(); },
       [=](TfliteModelBuilder& b, int32_t x) { return std::vector<int32_t>{x, ints(b, "axes", {1, 2})}; }, {1, 1, 1, 2},
       [](const Node& n) { EXPECT_EQ(n.attr_int("keep_dims", 0), 1); }},
      {"LeakyRelu", tfl::BuiltinOperator_LEAKY_RELU, tfl::BuiltinOptions_LeakyReluOptions,
       [](FBB& f) { return tfl::CreateLeakyReluOptions(f, 0.125f).Union(); }, nullptr, {1, 4, 4, 2},
       [](const Node& n) { EXPECT_EQ(n.attr_float("alpha", 0), 0.125); }},
      {"Logistic", tfl::BuiltinOperator_LOGISTIC, none, nullptr, nullptr, {1, 4, 4, 2}, nullptr},
      {"ResizeBilinear", tfl::BuiltinOperator_RESIZE_BILINEAR, tfl::BuiltinOptions_ResizeBilinearOptions,
       [](FBB& f) { return tfl::CreateResizeBilinearOptions(f, false, true).Union(); },
       [=](TfliteModelBuilder& b, int32_t x) { return std::vector<int32_t>{x, ints(b, "size", {8, 6})}; }, {1, 8, 6, 2},
       [](const Node& n) {
         EXPECT_EQ(n.attr_int("align_corners", 1), 0);
         EXPECT_EQ(n.attr_int("half_pixel_centers", 0), 1);
       }},
      {"SpaceToDepth", tfl::BuiltinOperator_SPACE_TO_DEPTH, tfl::BuiltinOptions_SpaceToDepthOptions,
       [](FBB& f) { return tfl::CreateSpaceToDepthOptions(f, 2).Union(); }, nullptr, {1, 2, 2, 8},
       [](const Node& n) { EXPECT_EQ(n.attr_int("block_size", 0), 2); }},
      {"Gather", tfl::BuiltinOperator_GATHER, tfl::BuiltinOptions_GatherOptions,
       [](FBB& f) { return tfl::CreateGatherOptions(f, 1).Union(); },
       [=](TfliteModelBuilder& b, int32_t x) { return std::vector<int32_t>{x, ints(b, "indices", {3, 0})}; }, {1, 2, 4, 2},
       [](const Node& n) { EXPECT_EQ(n.attr_int("axis", 0), 1); }},
      {"ArgMax", tfl::BuiltinOperator_ARG_MAX, tfl::BuiltinOptions_ArgMaxOptions,
       [](FBB& f) { return tfl::CreateArgMaxOptions(f, tfl::TensorType_INT32).Union(); },
       [=](TfliteModelBuilder& b, int32_t x) { return std::vector<int32_t>{x, ints(b, "axis", {3})}; }, {1, 4, 4},
       [](const Node& n) { EXPECT_EQ(n.attr_string("output_type", ""), "INT32"); }},
      {"BatchMatMul", tfl::BuiltinOperator_BATCH_MATMUL, tfl::BuiltinOptions_BatchMatMulOptions,
       [](FBB& f) { return tfl::CreateBatchMatMulOptions(f, false, true).Union(); },
       [](TfliteModelBuilder& b, int32_t x) {
         return std::vector<int32_t>{x, b.constant("rhs", tfl::TensorType_FLOAT32, {3, 2}, std::vector<float>(6, 0.5f))};
       },
       {1, 4, 4, 3}, [](const Node& n) { EXPECT_EQ(n.attr_int("adj_y", 0), 1); }},
      {"TransposeConv", tfl::BuiltinOperator_TRANSPOSE_CONV, tfl::BuiltinOptions_TransposeConvOptions,
       [](FBB& f) { return tfl::CreateTransposeConvOptions(f, tfl::Padding_SAME, 2, 2).Union(); },
       [=](TfliteModelBuilder& b, int32_t x) {
         return std::vector<int32_t>{ints(b, "out_shape", {1, 8, 8, 3}),
                                     b.constant("filter", tfl::TensorType_FLOAT32, {3, 3, 3, 2}, std::vector<float>(54, 0.1f)), x};
       },
       {1, 8, 8, 3},
       [](const Node& n) {
         EXPECT_EQ(n.attr_string("padding", ""), "SAME");
         EXPECT_EQ(n.attr_int("stride_h", 0), 2);
       }},
  };
}

class TfliteImportOperator : public ::testing::TestWithParam<OperatorCase> {};

TEST_P(TfliteImportOperator, ImportsWithItsAttributesAndInfersItsShape) {
  const OperatorCase& c = GetParam();
  TfliteModelBuilder b;
  int32_t x = b.input("x", tfl::TensorType_FLOAT32, {1, 4, 4, 2});
  std::vector<int32_t> inputs = c.inputs ? c.inputs(b, x) : std::vector<int32_t>{x};
  tfl::TensorType out_type = c.code == tfl::BuiltinOperator_ARG_MAX ? tfl::TensorType_INT32 : tfl::TensorType_FLOAT32;
  int32_t y = b.output("y", out_type, c.output_shape);
  b.op(c.code, inputs, {y}, c.options_type, c.options);
  Graph g = import(b);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, "tfl." + std::string(tfl::EnumNameBuiltinOperator(c.code)));
  if (c.check) c.check(g.nodes[0]);
  EXPECT_NO_THROW(infer_shapes(g));
}

INSTANTIATE_TEST_SUITE_P(Operators, TfliteImportOperator, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------- variable tensors

TfliteModelBuilder svdf_model(tfl::TensorType state_type, int64_t state_zero_point) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", tfl::TensorType_INT8, {1, 4}, 0.1f, 0);
  TfliteModelBuilder::TensorSpec state = TfliteModelBuilder::spec("state", state_type, {1, 6}, 0.01f, state_zero_point);
  state.is_variable = true;
  int32_t s = b.tensor(state);
  int32_t wf = b.constant("wf", tfl::TensorType_INT8, {2, 4}, std::vector<int8_t>(8, 1), 0.02f, 0);
  int32_t wt = state_type == tfl::TensorType_INT8
                   ? b.constant("wt", tfl::TensorType_INT8, {2, 3}, std::vector<int8_t>(6, 2), 0.03f, 0)
                   : b.constant("wt", tfl::TensorType_INT16, {2, 3}, std::vector<int16_t>(6, 2), 0.03f, 0);
  int32_t y = b.output("y", tfl::TensorType_INT8, {1, 2}, 0.5f, 0);
  b.op(tfl::BuiltinOperator_SVDF, {x, wf, wt, -1, s}, {y}, tfl::BuiltinOptions_SVDFOptions,
       [](FBB& f) { return tfl::CreateSVDFOptions(f, 1).Union(); });
  return b;
}

// TFLite Micro's ResetVariableTensors: zeros, an int8 tensor's zero point.
TEST(TfliteImportVariables, StartAtZeroOrTheInt8ZeroPoint) {
  Graph int8_state = import(svdf_model(tfl::TensorType_INT8, -5));
  const Tensor& s8 = int8_state.tensor(1);
  EXPECT_TRUE(s8.is_variable);
  EXPECT_FALSE(s8.is_constant());
  EXPECT_EQ(s8.initial_value, std::vector<uint8_t>(6, static_cast<uint8_t>(-5)));
  Graph int16_state = import(svdf_model(tfl::TensorType_INT16, 0));
  EXPECT_TRUE(int16_state.tensor(1).is_variable);
  EXPECT_TRUE(int16_state.tensor(1).initial_value.empty());  // all zeros
  EXPECT_NO_THROW(infer_shapes(int16_state));
}

// State the model keeps between runs cannot be a buffer the caller passes in.
TEST(TfliteImportVariables, AVariableGraphInputIsRejected) {
  TfliteModelBuilder b;
  TfliteModelBuilder::TensorSpec state = TfliteModelBuilder::spec("state", tfl::TensorType_FLOAT32, {1, 2});
  state.is_variable = true;
  int32_t s = b.tensor(state);
  b.mark_input(s);
  int32_t y = b.output("y", tfl::TensorType_FLOAT32, {1, 2});
  b.op(tfl::BuiltinOperator_RELU, {s}, {y});
  EXPECT_NE(import_error(b).find("graph input 'state' is a variable tensor"), std::string::npos) << import_error(b);
}

// ---------------------------------------------------------------- SHAPE

// x [1, 4, 4, 2] -> SHAPE -> y of `out_type` [4], with ShapeOptions(`option`) unless
// `option` is NONE (no options table, as some converters write it).
TfliteModelBuilder shape_model(tfl::TensorType out_type, tfl::TensorType option, bool with_options = true) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", tfl::TensorType_FLOAT32, {1, 4, 4, 2});
  int32_t y = b.tensor(TfliteModelBuilder::spec("y", out_type, {4}));
  if (with_options)
    b.op(tfl::BuiltinOperator_SHAPE, {x}, {y}, tfl::BuiltinOptions_ShapeOptions,
         [option](FBB& f) { return tfl::CreateShapeOptions(f, option).Union(); });
  else
    b.op(tfl::BuiltinOperator_SHAPE, {x}, {y});
  int32_t z = b.output("z", out_type, {4});
  b.op(tfl::BuiltinOperator_ADD, {y, y}, {z});
  return b;
}

// SHAPE folds to x's dimensions, with or without an options table; the ADD reading it
// keeps its kernel only because it writes a graph output.
TEST(TfliteImportShape, FoldsToTheDimensions) {
  for (bool with_options : {true, false}) {
    SCOPED_TRACE(with_options ? "with options" : "without options");
    Graph g = import(shape_model(tfl::TensorType_INT32, tfl::TensorType_INT32, with_options));
    EXPECT_EQ(g.nodes[0].has_attr("out_type"), with_options);
    infer_shapes(g);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op, "tfl.ADD");
    const Tensor& y = g.tensor(g.nodes[0].inputs[0]);
    ASSERT_TRUE(y.is_constant());
    EXPECT_EQ(y.dtype, DataType::Int(32));
    EXPECT_EQ(y.ints(), (std::vector<int64_t>{1, 4, 4, 2}));
  }
}

TEST(TfliteImportShape, Int64OutputFoldsToo) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", tfl::TensorType_FLOAT32, {3, 5});
  int32_t y = b.tensor(TfliteModelBuilder::spec("y", tfl::TensorType_INT64, {2}));
  b.op(tfl::BuiltinOperator_SHAPE, {x}, {y}, tfl::BuiltinOptions_ShapeOptions,
       [](FBB& f) { return tfl::CreateShapeOptions(f, tfl::TensorType_INT64).Union(); });
  int32_t w = b.output("w", tfl::TensorType_INT64, {4});
  b.op(tfl::BuiltinOperator_CONCATENATION, {y, y}, {w}, tfl::BuiltinOptions_ConcatenationOptions,
       [](FBB& f) { return tfl::CreateConcatenationOptions(f, 0).Union(); });
  Graph g = import(b);
  infer_shapes(g);
  const Tensor& shape = g.tensor(y);
  ASSERT_TRUE(shape.is_constant());
  EXPECT_EQ(shape.dtype, DataType::Int(64));
  EXPECT_EQ(shape.ints(), (std::vector<int64_t>{3, 5}));
}

// The output must be int32 or int64, and out_type, when given, must name the same type.
TEST(TfliteImportShape, RejectsOtherOutputTypesAndAnOutTypeThatDisagrees) {
  std::string float_out = import_error(shape_model(tfl::TensorType_FLOAT32, tfl::TensorType_FLOAT32));
  EXPECT_NE(float_out.find("node y (tfl.SHAPE): output 'y' is float32; SHAPE writes int32 or int64"), std::string::npos)
      << float_out;
  std::string mismatch = import_error(shape_model(tfl::TensorType_INT32, tfl::TensorType_INT64));
  EXPECT_NE(mismatch.find("node y (tfl.SHAPE): out_type INT64 disagrees with output 'y', which is int32"), std::string::npos)
      << mismatch;
}

TEST(TfliteImportOperators, LstmWithDiagonalRecurrentWeightsIsRejected) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", tfl::TensorType_FLOAT32, {1, 2, 3});
  int32_t y = b.output("y", tfl::TensorType_FLOAT32, {1, 2, 4});
  std::vector<int32_t> inputs(24, -1);
  inputs[0] = x;
  b.op(tfl::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM, inputs, {y}, tfl::BuiltinOptions_UnidirectionalSequenceLSTMOptions,
       [](FBB& f) { return tfl::CreateUnidirectionalSequenceLSTMOptions(f, tfl::ActivationFunctionType_TANH, 0, 0, false, false, true).Union(); });
  EXPECT_NE(import_error(b).find("diagonal recurrent weights are not supported"), std::string::npos) << import_error(b);
}

}  // namespace
}  // namespace aotc::test
