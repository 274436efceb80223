// The malformed-model suite: ONNX files (and TFLite files the fuzzers found) broken in one way each, as a damaged or hostile
// file can be (tests/models/bad/make_malformed_models.py made them). Each ends in
// `error: ...` naming the node or tensor at fault, exit status 1, and no output folder;
// one that is legal after all compiles with a warning.
#include <algorithm>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

namespace fs = std::filesystem;

// A test name from a model file's name ("split_v_sizes.tflite" -> "split_v_sizes_tflite").
std::string test_name(std::string file) {
  std::replace(file.begin(), file.end(), '.', '_');
  return file;
}

struct Malformed {
  const char* file;                   // tests/models/bad/malformed_<file>.onnx, or <file> with its extension
  std::vector<const char*> messages;  // each must be in the error
};

class MalformedModel : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedModel, IsRefusedWithAClearError) {
  TempDir dir("aotc-malformed");
  std::string file = GetParam().file;
  std::string model = source_path("tests/models/bad/malformed_" + file + (file.find('.') == std::string::npos ? ".onnx" : ""));
  ASSERT_TRUE(fs::exists(model)) << model;
  Result r = run({"compile", model, "-o", dir.path() + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output.rfind("error: ", 0), 0u) << r.output;
  for (const char* message : GetParam().messages) EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir.path() + "/out"));
}

INSTANTIATE_TEST_SUITE_P(
    Suite, MalformedModel,
    ::testing::Values(
        Malformed{"dims_overflow", {"graph input 'x'", "dimension 0 is 1099511627776, larger than any tensor"}},
        Malformed{"negative_dim", {"graph input 'x'", "dimension"}},
        Malformed{"negative_initializer_dim", {"tensor 'w'", "negative dimension"}},
        Malformed{"cycle", {"node first (Add)", "input 'b'", "output of an earlier node"}},
        Malformed{"dangling_input", {"node mul (Mul)", "input 'nowhere'"}},
        Malformed{"dangling_output", {"graph output 'y' is not produced by any node"}},
        Malformed{"output_listed_twice", {"graph output 'y' is listed twice"}},
        Malformed{"tensor_written_twice", {"node two (Neg)", "output 'y' is defined twice"}},
        Malformed{"short_initializer", {"tensor 'w' has 12 bytes of data", "needs 16"}},
        Malformed{"long_initializer", {"tensor 'w' has 36 bytes of data", "needs 16"}},
        Malformed{"huge_pads", {"node conv (Conv)", "'pads' value 4611686018427387904 is larger than any tensor"}},
        Malformed{"huge_kernel", {"node pool (MaxPool)", "'kernel_shape' value 4611686018427387904 is larger"}},
        Malformed{"huge_stride", {"node conv (Conv)", "'strides' value 4611686018427387904 is larger"}},
        Malformed{"huge_axis", {"node concat (Concat)", "axis 1099511627776 is out of range"}},
        Malformed{"huge_reshape", {"node reshape (Reshape)", "too many elements"}},
        Malformed{"huge_tile", {"node tile (Tile)", "dimension 0 is 1099511627776, larger than any tensor"}},
        Malformed{"tile_repeats_overflow", {"node tile (Tile)", "larger than a 64-bit count holds"}},
        Malformed{"pads_overflow", {"node pad (Pad)", "pads value 4611686018427387904 is larger than any tensor"}},
        Malformed{"unknown_domain", {"node relu (Relu)", "domain 'com.example'"}},
        Malformed{"sequence_input", {"graph input 'x' is not a tensor"}},
        Malformed{"future_opset", {"opset 99 is newer than the newest aotc knows"}},
        // Found by fuzz_compile (not made by make_malformed_models.py): test_scan9_sum with
        // one body output dropped; it read past the end of the body's outputs.
        Malformed{"fuzz_scan_outputs", {"node y (Scan)", "its body gives 1 outputs, the Scan has 2"}},
        // Also fuzz_compile's: an Add with one input (in a Scan body); it read a second operand.
        Malformed{"fuzz_add_one_input", {"node sum_out (Add)", "needs 2 inputs, not 1"}},
        // fuzz_compile's: a Pad whose constant pads (6989585522167382016 at both ends)
        // overflowed the output extent (UBSan).
        Malformed{"fuzz_pad_overflow", {"node /head/head.0/Pad (Pad)", "pads value 6989585522167382016 is larger"}},
        // fuzz_compile_bounded's: a Resize to sizes [1, 1, 3, 12884901891]; its coefficient
        // tables took 24 GB and 217 s before the output shape was checked.
        Malformed{"fuzz_resize_huge_sizes", {"node rs (Resize)", "makes axis 3 longer than 1048576 elements"}},
        // fuzz_compile's: a Scan over a scalar scan input read the extent of axis 0 of an empty
        // shape (SIGSEGV); Squeeze, Pad's axes and per-axis QuantizeLinear did the same.
        Malformed{"fuzz_scan_scalar_input", {"node y (Scan)", "scan input 'x' is a scalar"}},
        Malformed{"squeeze_scalar", {"node squeeze (Squeeze)", "axis 0 is out of range for rank 0"}},
        Malformed{"pad_scalar", {"node pad (Pad)", "axis 0 is out of range for rank 0"}},
        Malformed{"quantize_scalar_per_axis", {"node quantize (QuantizeLinear)", "axis 0 is out of range for rank 0"}},
        // A kernel whose output has no elements (weights [2, 0]): its C declared arrays of size 0.
        Malformed{"matmul_empty_weights",
                  {"node matmul (MatMul)", "output 'y' would have shape [1, 0], without elements"}},
        // fuzz_tflite_import's: a TFLite ASSIGN_VARIABLE without operands; it read them.
        // (Rewritten by flatc from its JSON when the schema gained Operator.custom_options:
        // the fuzzer's bytes held junk in that field's slot, which the verifier now rejects
        // before the importer could reach the operator.)
        Malformed{"fuzz_assign_variable_no_operands.tflite",
                  {"operator 4 (tfl.ASSIGN_VARIABLE)", "has 0 inputs and 0 outputs; it takes 2 and 0"}},
        // fuzz_tflite_import's: a variable int8 tensor of shape [1073741825, 1] with a zero
        // point; its initial value took 1 GB and 5 s before the importer said anything.
        Malformed{"fuzz_huge_variable.tflite",
                  {"tensor 'StatefulPartitionedCall:0'", "1073741825 bytes", "state aotc keeps inside a model"}},
        // fuzz_compile's: a RESHAPE whose shape tensor is float32, holding a NaN; converting
        // it to an integer was undefined behaviour (UBSan), and the shape is now refused.
        Malformed{"fuzz_reshape_float_shape.tflite",
                  {"node model/sequential/flatten/Reshape (tfl.RESHAPE)", "is float32, not an integer type"}},
        // fuzz_compile's: a FULLY_CONNECTED with 16 units and a bias of 1 element, which the
        // kernel read past its end (ASan); its name holds NUL bytes, which had cut the
        // message short at the first one.
        Malformed{"fuzz_fc_short_bias.tflite",
                  {"node sequential/dense/MatMul;", "I\\0\\0", "(tfl.FULLY_CONNECTED): bias has 1 elements, expected 16"}},
        // fuzz_compile's: a RESHAPE whose shape tensor asks for [-1, 49, 1785688688, 1768711007];
        // the product of its known sizes overflowed int64 (UBSan).
        Malformed{"fuzz_reshape_shape_overflow.tflite",
                  {"node Reshape_2 (tfl.RESHAPE)", "has more elements than a 64-bit count holds"}},
        // From the audit that followed those findings (make_overflow_models.py): values whose
        // arithmetic overflowed (UBSan), or divided by zero (SIGFPE in aotc itself: the
        // Split without outputs, the DepthToSpace blocksize whose square wrapped to 0).
        Malformed{"split_sum", {"node split (Split)", "split value 9223372036854775807 is larger than any tensor"}},
        Malformed{"split_no_outputs", {"node sp (Split)", "needs at least one output"}},
        Malformed{"depth_to_space_block", {"node d2s (DepthToSpace)", "blocksize 4294967296 is larger"}},
        Malformed{"concat_empty_huge", {"tensor 'a'", "dimension 1 is 4611686018427387904, larger than any tensor"}},
        Malformed{"slice_empty_huge", {"tensor 'a'", "dimension 1 is 9223372036854775807, larger than any tensor"}},
        Malformed{"maxunpool_stride", {"node unpool (MaxUnpool)", "'strides' value 4611686018427387904 is larger"}},
        Malformed{"maxunpool_pads", {"node unpool (MaxUnpool)", "'pads' values must be at least 0"}},
        Malformed{"lstm_hidden_size", {"node lstm (LSTM)", "hidden_size 4611686018427387904 is larger than any tensor"}},
        Malformed{"float_axis", {"node fl (Flatten)", "axis 9223372036854775807 is out of range"}},
        Malformed{"resize_roi", {"node rs (Resize)", "roi entry 6 is not a finite number"}},
        Malformed{"pad_fill_value", {"node pad (Pad)", "the fill value does not fit int32"}},
        Malformed{"roi_align_sampling", {"node roi (RoiAlign)", "sampling_ratio 9223372036854775807 is larger"}},
        Malformed{"split_v_sizes.tflite", {"node o0 (tfl.SPLIT_V)", "has a size that is negative or larger than any tensor"}},
        Malformed{"slice_begin_size.tflite", {"node y (tfl.SLICE)", "leave the input [4, 2]"}},
        Malformed{"strided_slice_rank.tflite", {"node y (tfl.STRIDED_SLICE)", "the masks describe at most 32 axes"}},
        Malformed{"transpose_conv_shape.tflite",
                  {"node y (tfl.TRANSPOSE_CONV)", "output shape [1, 9223372036854775807, 4, 1] has a size below 1"}},
        Malformed{"relu_scale_0.tflite", {"node y (tfl.RELU)", "requantization factor inf is not a finite number"}},
        Malformed{"quantize_scale_0.tflite", {"node y (tfl.QUANTIZE)", "requantization factor inf is not a finite number"}},
        Malformed{"mean_scale_0.tflite", {"node y (tfl.MEAN)", "requantization factor inf is not a finite number"}},
        Malformed{"relu_scale_ratio.tflite", {"node y (tfl.RELU)", "requantization factor 3e+76 is not a finite number"}}),
    [](const auto& info) { return test_name(info.param.file); });

// Legal models whose constants are at the edges of int64 (make_overflow_models.py): aotc's
// arithmetic on them overflowed (UBSan) and now wraps or is bounded, as the generated C's
// does. They compile; fuzz_compile_bounded replays each under the sanitizers as a seed.
class EdgeValueModel : public ::testing::TestWithParam<const char*> {};

TEST_P(EdgeValueModel, Compiles) {
  TempDir dir("aotc-edge");
  Result r = run({"compile", source_path(std::string("tests/models/bad/edge_") + GetParam()), "-o", dir.path() + "/out"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir.path() + "/out/model.c"));
}

INSTANTIATE_TEST_SUITE_P(Suite, EdgeValueModel,
                         ::testing::Values("add_int64_min.onnx", "sub_int64_min.onnx", "sub_chain_wraps.onnx",
                                           "range_wraps.onnx", "lppool_huge_p.onnx", "lrn_huge_size.onnx",
                                           "strided_slice_offset_end.tflite", "strided_slice_negative_masks.tflite",
                                           "logistic_tiny_scale.tflite"),
                         [](const auto& info) { return test_name(info.param); });

// The LRN window loop covers only the positions that can fall inside the channels: a size
// of INT64_MAX over 3 channels loops 5 times, not 2^63.
TEST(EdgeValueModel, HugeLrnSizeLoopsOverTheChannelsOnly) {
  TempDir dir("aotc-edge");
  Result r = run({"compile", source_path("tests/models/bad/edge_lrn_huge_size.onnx"), "-o", dir.path() + "/out"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string c = read_bytes(dir.path() + "/out/model.c");
  EXPECT_NE(c.find("j < 5;"), std::string::npos) << c;
}

// Legal since IR version 4, but easy to miss: the input's default value becomes a constant.
TEST(MalformedModelLegalAfterAll, InitializerThatIsAlsoAnInputIsAConstantWithAWarning) {
  TempDir dir("aotc-malformed");
  Result r = run({"compile", source_path("tests/models/bad/malformed_initializer_is_input.onnx"), "-o", dir.path() + "/out"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("warning: graph input 'w' has an initializer"), std::string::npos) << r.output;
  std::string header = read_bytes(dir.path() + "/out/model.h");
  EXPECT_NE(header.find("float* x;"), std::string::npos) << header;
  EXPECT_EQ(header.find("float* w;"), std::string::npos) << header;
}

}  // namespace
}  // namespace aotc::e2e
