// TFLite shape cases end to end, on models built with tests/tflite_model_builder.h in the
// forms TF's converter writes them (openWakeWord's models have each):
//   - inputs whose shape_signature marks dimensions -1 (melspectrogram's audio [-1, -1]),
//     given their shape with --input-shape as TFLite's ResizeInputTensor would; the
//     placeholder shapes of the tensors after them (all 1s) are recomputed;
//   - tensors without elements that have no buffer: RESHAPE's shape [] of a reshape to a
//     scalar (hey_jarvis), and an empty axis list, which reduces nothing in TFLite.
// The expected values are computed here with loops written from TFLite's operator
// definitions (conv.h, reduce.h, maximum_minimum.h), not by aotc.
#include <algorithm>
#include <cmath>

#include "tests/e2e/e2e_util.h"
#include "tests/tflite_model_builder.h"

namespace aotc::e2e {
namespace {

using test::TfliteModelBuilder;
using FBB = flatbuffers::FlatBufferBuilder;
using namespace test::tensor_types;

constexpr int kTaps = 4, kStride = 2, kChannels = 2;
const std::vector<float> kFilter = {0.5f, -1.0f, 0.25f, 2.0f, 1.5f, 0.75f, -0.5f, -2.0f};  // [channel][tap]
const std::vector<float> kBias = {0.125f, -0.25f};
constexpr float kFloor = 10.0f;

// A float tensor of placeholder shape `shape` (the converter writes 1 for each -1 of
// `signature`).
TfliteModelBuilder::TensorSpec dynamic(const std::string& name, std::vector<int32_t> shape, std::vector<int32_t> signature,
                                       tfl::TensorType type = kF32) {
  TfliteModelBuilder::TensorSpec s = TfliteModelBuilder::spec(name, type, std::move(shape));
  s.shape_signature = std::move(signature);
  return s;
}

// melspectrogram's shape, small: audio x [N, L] -> EXPAND_DIMS 1 and -1 -> [N, 1, L, 1]
// -> CONV_2D (2 channels of 4 taps, stride 2, VALID) -> [N, 1, W, 2] -> squared (MUL) ->
// y = MAXIMUM(squared, REDUCE_MAX(squared over every axis) - 10). Every tensor from x to y
// has the placeholder shape of N = L = 1, where no 4-tap window fits.
TfliteModelBuilder framed_energy_model() {
  TfliteModelBuilder b;
  int32_t x = b.tensor(dynamic("x", {1, 1}, {-1, -1}));
  b.mark_input(x);
  int32_t axis1 = b.constant("axis1", kI32, {}, std::vector<int32_t>{1});
  int32_t axis_last = b.constant("axis_last", kI32, {}, std::vector<int32_t>{-1});
  int32_t rows = b.tensor(dynamic("rows", {1, 1, 1}, {-1, 1, -1}));
  int32_t image = b.tensor(dynamic("image", {1, 1, 1, 1}, {-1, 1, -1, 1}));
  int32_t filter = b.constant("filter", kF32, {kChannels, 1, kTaps, 1}, kFilter);
  int32_t bias = b.constant("bias", kF32, {kChannels}, kBias);
  int32_t frames = b.tensor(dynamic("frames", {1, 1, 1, kChannels}, {-1, 1, -1, kChannels}));
  int32_t energy = b.tensor(dynamic("energy", {1, 1, 1, kChannels}, {-1, 1, -1, kChannels}));
  int32_t all_axes = b.constant("all_axes", kI32, {4}, std::vector<int32_t>{0, 1, 2, 3});
  int32_t peak = b.tensor(TfliteModelBuilder::spec("peak", kF32, {}));
  int32_t floor_offset = b.constant("floor_offset", kF32, {}, std::vector<float>{kFloor});
  int32_t floor = b.tensor(TfliteModelBuilder::spec("floor", kF32, {}));
  int32_t y = b.tensor(dynamic("y", {1, 1, 1, kChannels}, {-1, 1, -1, kChannels}));
  b.op(tfl::BuiltinOperator_EXPAND_DIMS, {x, axis1}, {rows});
  b.op(tfl::BuiltinOperator_EXPAND_DIMS, {rows, axis_last}, {image});
  b.op(tfl::BuiltinOperator_CONV_2D, {image, filter, bias}, {frames}, tfl::BuiltinOptions_Conv2DOptions,
       [](FBB& f) { return tfl::CreateConv2DOptions(f, tfl::Padding_VALID, kStride, 1).Union(); });
  b.op(tfl::BuiltinOperator_MUL, {frames, frames}, {energy}, tfl::BuiltinOptions_MulOptions,
       [](FBB& f) { return tfl::CreateMulOptions(f).Union(); });
  b.op(tfl::BuiltinOperator_REDUCE_MAX, {energy, all_axes}, {peak}, tfl::BuiltinOptions_ReducerOptions,
       [](FBB& f) { return tfl::CreateReducerOptions(f, false).Union(); });
  b.op(tfl::BuiltinOperator_SUB, {peak, floor_offset}, {floor}, tfl::BuiltinOptions_SubOptions,
       [](FBB& f) { return tfl::CreateSubOptions(f).Union(); });
  b.op(tfl::BuiltinOperator_MAXIMUM, {energy, floor}, {y});
  b.mark_output(y);
  return b;
}

// framed_energy_model's output for audio x [n, length], written from TFLite's
// definitions: a VALID convolution of stride 2 over the length, then the squares, their
// maximum over everything, and each square raised to at least that maximum less 10.
std::vector<float> framed_energy(const std::vector<float>& x, int n, int length) {
  int width = (length - kTaps) / kStride + 1;
  std::vector<float> energy;
  for (int b = 0; b < n; ++b)
    for (int w = 0; w < width; ++w)
      for (int c = 0; c < kChannels; ++c) {
        float sum = kBias[static_cast<size_t>(c)];
        for (int k = 0; k < kTaps; ++k)
          sum += x[static_cast<size_t>(b * length + w * kStride + k)] * kFilter[static_cast<size_t>(c * kTaps + k)];
        energy.push_back(sum * sum);
      }
  float peak = *std::max_element(energy.begin(), energy.end());
  for (float& e : energy) e = std::max(e, peak - kFloor);
  return energy;
}

class TfliteShapes : public TempDirTest<> {
 protected:
  TfliteShapes() : TempDirTest("aotc-tflite-shapes") {}

  std::string write_model(const TfliteModelBuilder& b, const std::string& name = "model.tflite") {
    b.write(tmp(name));
    return tmp(name);
  }
  std::string write_floats(const std::string& name, const std::vector<float>& values) {
    std::ofstream(tmp(name), std::ios::binary).write(reinterpret_cast<const char*>(values.data()), values.size() * 4);
    return tmp(name);
  }
};

// --input-shape resizes the dynamic input, and every placeholder shape after it follows:
// two lengths and batch sizes, each against the loops above. The generated C builds with
// -std=c99 -Wall -Wextra -Werror -pedantic.
TEST_F(TfliteShapes, InputShapeResizesADynamicInputAndTheShapesAfterIt) {
  std::string model = write_model(framed_energy_model());
  ScopedEnvironment strict({{"CFLAGS", "-std=c99 -Wall -Wextra -Werror -pedantic -O2"}});
  for (auto [n, length] : {std::pair{1, 10}, std::pair{2, 9}, std::pair{3, 17}}) {
    SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(length));
    std::vector<float> x;
    for (int i = 0; i < n * length; ++i) x.push_back(std::sin(0.7f * static_cast<float>(i)) * 3.0f + 0.1f * static_cast<float>(i % 5));
    Result r = run({"run", model, "--input-shape", "x=" + std::to_string(n) + "," + std::to_string(length), "--inputs",
                    write_floats("x.bin", x), "--outputs", tmp("y.bin")});
    ASSERT_EQ(r.status, 0) << r.output;
    expect_close(read_floats(tmp("y.bin")), framed_energy(x, n, length), 1e-6, 1e-6);
  }
  Result r = run({"compile", model, "--input-shape", "x=2,9", "-o", tmp("out")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string header = read_bytes(tmp("out/model.h"));
  EXPECT_NE(header.find("[2, 9]"), std::string::npos) << header;
  EXPECT_NE(header.find("[2, 1, 3, 2]"), std::string::npos) << header;
}

// Without --input-shape a dynamic dimension beyond the batch has no size: an error naming
// the input and the option. --input-shape may change only the dimensions marked -1, names
// only graph inputs, and --dim has no TFLite dimension names to bind.
TEST_F(TfliteShapes, InputShapeIsCheckedAgainstTheSignature) {
  std::string model = write_model(framed_energy_model());
  struct Case {
    std::vector<std::string> options;
    std::string message;
  };
  std::vector<Case> cases = {
      {{}, "graph input 'x': dynamic shape [-1, -1] (its shape_signature): give its shape with --input-shape x=D0,D1,..."},
      {{"--input-shape", "x=1,10,1"}, "graph input 'x': --input-shape gives 3 dimensions [1, 10, 1], but its shape_signature [-1, -1] has 2"},
      {{"--input-shape", "audio=1,10"}, "--input-shape names 'audio', which is not a graph input (the inputs: 'x')"},
      {{"--dim", "N=1"}, "--dim applies to ONNX models (TFLite dimensions have no names)"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"compile", model, "-o", tmp("out")};
    args.insert(args.end(), c.options.begin(), c.options.end());
    Result r = run(args);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }

  TfliteModelBuilder b;  // x [-1, 3] -> FULLY_CONNECTED -> [-1, 2]
  int32_t x = b.tensor(dynamic("x", {1, 3}, {-1, 3}));
  b.mark_input(x);
  int32_t w = b.constant("w", kF32, {2, 3}, std::vector<float>{1, 2, 3, -1, 0.5f, 0.25f});
  int32_t y = b.tensor(dynamic("y", {1, 2}, {-1, 2}));
  b.mark_output(y);
  b.op(tfl::BuiltinOperator_FULLY_CONNECTED, {x, w, -1}, {y}, tfl::BuiltinOptions_FullyConnectedOptions,
       [](FBB& f) { return tfl::CreateFullyConnectedOptions(f).Union(); });
  std::string fc = write_model(b, "fc.tflite");
  Result r = run({"compile", fc, "--input-shape", "x=4,5", "-o", tmp("out")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("graph input 'x': --input-shape [4, 5] changes dimension 1 to 5, but its shape_signature "
                          "[-1, 3] fixes it at 3 (TFLite resizes only the dimensions marked -1)"),
            std::string::npos)
      << r.output;

  // The batch alone may be resized; unresized, it keeps its stored size 1.
  std::vector<float> rows = {1, 2, 3, -4, 0.5f, 8, 0, 0, 1, 2, -2, 2};
  r = run({"run", fc, "--input-shape", "x=4,3", "--inputs", write_floats("rows.bin", rows), "--outputs", tmp("y.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<float> want;
  for (size_t row = 0; row < 4; ++row) {
    const float* v = &rows[row * 3];
    want.push_back(v[0] * 1 + v[1] * 2 + v[2] * 3);
    want.push_back(v[0] * -1 + v[1] * 0.5f + v[2] * 0.25f);
  }
  expect_close(read_floats(tmp("y.bin")), want, 1e-6, 0);
  r = run({"run", fc, "--inputs", write_floats("row.bin", {1, 2, 3}), "--outputs", tmp("y1.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_close(read_floats(tmp("y1.bin")), {14.0f, 0.75f}, 1e-6, 0);
}

// A [0]-element shape tensor with no buffer (the converter writes none for no bytes) is
// the shape []: RESHAPE [1, 1] -> scalar, then a broadcast MUL by it.
TEST_F(TfliteShapes, AnEmptyShapeTensorWithoutABufferReshapesToAScalar) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kF32, {3});
  int32_t score = b.input("score", kF32, {1, 1});
  int32_t scalar_shape = b.tensor(TfliteModelBuilder::spec("scalar_shape", kI32, {0}));
  int32_t scalar = b.tensor(TfliteModelBuilder::spec("scalar", kF32, {}));
  int32_t y = b.output("y", kF32, {3});
  b.op(tfl::BuiltinOperator_RESHAPE, {score, scalar_shape}, {scalar});
  b.op(tfl::BuiltinOperator_MUL, {x, scalar}, {y}, tfl::BuiltinOptions_MulOptions,
       [](FBB& f) { return tfl::CreateMulOptions(f).Union(); });
  Result r = run({"run", write_model(b), "--inputs", write_floats("x.bin", {1.5f, -2, 4}) + "," + write_floats("s.bin", {-0.5f}),
                  "--outputs", tmp("y.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_close(read_floats(tmp("y.bin")), {-0.75f, 1.0f, -2.0f}, 0, 0);
}

// Legacy converters wrote that reshape to a scalar without a shape input, as new_shape [0]
// and an output declared [0]; TFLite and TFLite Micro read the [0] as [].
TEST_F(TfliteShapes, ALegacyReshapeToShape0IsAReshapeToAScalar) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kF32, {3});
  int32_t score = b.input("score", kF32, {1, 1});
  int32_t scalar = b.tensor(TfliteModelBuilder::spec("scalar", kF32, {0}));
  int32_t y = b.output("y", kF32, {3});
  b.op(tfl::BuiltinOperator_RESHAPE, {score}, {scalar}, tfl::BuiltinOptions_ReshapeOptions, [](FBB& f) {
    std::vector<int32_t> new_shape = {0};
    return tfl::CreateReshapeOptionsDirect(f, &new_shape).Union();
  });
  b.op(tfl::BuiltinOperator_MUL, {x, scalar}, {y}, tfl::BuiltinOptions_MulOptions,
       [](FBB& f) { return tfl::CreateMulOptions(f).Union(); });
  Result r = run({"run", write_model(b), "--inputs", write_floats("x.bin", {1.5f, -2, 4}) + "," + write_floats("s.bin", {3}),
                  "--outputs", tmp("y.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_close(read_floats(tmp("y.bin")), {4.5f, -6.0f, 12.0f}, 0, 0);
}

// MEAN, SUM and REDUCE_MAX over an empty axis list (a [0]-element tensor without a buffer)
// reduce nothing in TFLite (ResolveAxis resolves no axis; each output element is its one
// input element), with keep_dims or not: y = x, where ONNX's reductions would reduce every
// axis.
TEST_F(TfliteShapes, AnEmptyAxisListReducesNothing) {
  std::vector<float> x = {1.5f, -2, 4, 0.25f, 8, -3};
  for (auto code : {tfl::BuiltinOperator_MEAN, tfl::BuiltinOperator_SUM, tfl::BuiltinOperator_REDUCE_MAX}) {
    for (bool keep_dims : {false, true}) {
      SCOPED_TRACE(std::string(tfl::EnumNameBuiltinOperator(code)) + (keep_dims ? " keep_dims" : ""));
      TfliteModelBuilder b;
      int32_t in = b.input("x", kF32, {2, 3});
      int32_t axes = b.tensor(TfliteModelBuilder::spec("axes", kI32, {0}));
      int32_t y = b.output("y", kF32, {2, 3});
      b.op(code, {in, axes}, {y}, tfl::BuiltinOptions_ReducerOptions,
           [keep_dims](FBB& f) { return tfl::CreateReducerOptions(f, keep_dims).Union(); });
      Result r = run({"run", write_model(b), "--inputs", write_floats("x.bin", x), "--outputs", tmp("y.bin")});
      ASSERT_EQ(r.status, 0) << r.output;
      expect_close(read_floats(tmp("y.bin")), x, 0, 0);
    }
  }
}

// An empty constant may also make a kernel's output empty (FULLY_CONNECTED by weights
// [0, 2]: no units): an error naming the node, not C with arrays of size 0.
TEST_F(TfliteShapes, AKernelWithAnOutputWithoutElementsIsAClearError) {
  TfliteModelBuilder b;
  int32_t x = b.input("x", kF32, {1, 2});
  int32_t w = b.tensor(TfliteModelBuilder::spec("w", kF32, {0, 2}));
  int32_t y = b.output("y", kF32, {1, 0});
  b.op(tfl::BuiltinOperator_FULLY_CONNECTED, {x, w, -1}, {y}, tfl::BuiltinOptions_FullyConnectedOptions,
       [](FBB& f) { return tfl::CreateFullyConnectedOptions(f).Union(); });
  Result r = run({"compile", write_model(b), "-o", tmp("out")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("node y (tfl.FULLY_CONNECTED): output 'y' would have shape [1, 0], without elements; tensors "
                          "without elements are not supported"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace aotc::e2e
