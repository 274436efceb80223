// The malformed-model suite: ONNX files (and TFLite files the fuzzers found) broken in one way each, as a damaged or hostile
// file can be (tests/models/bad/make_malformed_models.py made them). Each ends in
// `error: ...` naming the node or tensor at fault, exit status 1, and no output folder;
// one that is legal after all compiles with a warning.
#include <algorithm>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

namespace fs = std::filesystem;

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
        Malformed{"dims_overflow", {"graph input 'x'", "more than 2147483647 elements"}},
        Malformed{"negative_dim", {"graph input 'x'", "dimension"}},
        Malformed{"negative_initializer_dim", {"tensor 'w'", "negative dimension"}},
        Malformed{"cycle", {"node first (Add)", "input 'b'", "output of an earlier node"}},
        Malformed{"dangling_input", {"node mul (Mul)", "input 'nowhere'"}},
        Malformed{"dangling_output", {"graph output 'y' is not produced by any node"}},
        Malformed{"tensor_written_twice", {"node two (Neg)", "output 'y' is defined twice"}},
        Malformed{"short_initializer", {"tensor 'w' has 12 bytes of data", "needs 16"}},
        Malformed{"long_initializer", {"tensor 'w' has 36 bytes of data", "needs 16"}},
        Malformed{"huge_pads", {"node conv (Conv)", "'pads' value 4611686018427387904 is larger than any tensor"}},
        Malformed{"huge_kernel", {"node pool (MaxPool)", "'kernel_shape' value 4611686018427387904 is larger"}},
        Malformed{"huge_stride", {"node conv (Conv)", "'strides' value 4611686018427387904 is larger"}},
        Malformed{"huge_axis", {"node concat (Concat)", "axis 1099511627776 is out of range"}},
        Malformed{"huge_reshape", {"node reshape (Reshape)", "too many elements"}},
        Malformed{"huge_tile", {"node tile (Tile)", "more than 2147483647 elements"}},
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
                  {"node Reshape_2 (tfl.RESHAPE)", "has more elements than a 64-bit count holds"}}),
    [](const auto& info) {
      std::string name = info.param.file;
      std::replace(name.begin(), name.end(), '.', '_');
      return name;
    });

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
