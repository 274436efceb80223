// Quantized ONNX models in QDQ form (tests/models/qdq, made by make_qdq_models.py): the
// fold_qdq pass must turn every DequantizeLinear -> Conv/MatMul/Gemm/Add -> [Relu/Clip] ->
// QuantizeLinear pattern into one integer kernel, the folded kernels must not compute in
// float, and `aotc run` must reproduce the script's reference outputs.
//
// The reference is independent of aotc: numpy, following ONNX's definitions of the graph
// as written (float32 DequantizeLinear, float operators, QuantizeLinear rounding half to
// even). The integer kernels instead round the real-valued result once, half to even.
// The two can legitimately differ by one quantization step where the real result lies
// within float32 rounding error of a tie (a few 2^-16 of a step at these sizes); no
// element of these models is that close, so the outputs must be bit-exact. (With the
// TFLite-style multiplier of aotc_quant.h instead, 3 of 800 elements of
// conv_per_channel and 3 of 288 of conv_chain are one step off.)
#include <regex>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

struct QdqModel {
  std::string name;
  int inputs;
  // The graph's operators after fold_qdq and channels_last, on the host (whose kernels keep
  // ONNX's channels-first layout; tests/models/onnx_twins show the channels-last form a
  // microcontroller's kernels get).
  std::vector<std::string> folded_ops;
  bool integer_io;                      // integer graph inputs and outputs: no float at all
};

std::ostream& operator<<(std::ostream& os, const QdqModel& m) { return os << m.name; }

const std::vector<QdqModel> kModels = {
    {"conv_per_channel", 1, {"QLinearConv"}, true},
    {"conv_chain", 1, {"QuantizeLinear", "QLinearConv", "QLinearConv", "DequantizeLinear"}, false},
    {"matmul_per_column", 1, {"QLinearMatMul"}, true},
    {"gemm_bias_relu", 1, {"QLinearMatMul"}, true},
    {"add", 2, {"aotc.QLinearAdd"}, true},
};

const std::set<std::string> kIntegerOps = {"QLinearConv", "QLinearMatMul", "aotc.QLinearAdd"};

// The operators of the graph printed by --print-after, in order.
std::vector<std::string> printed_ops(const std::string& text) {
  std::vector<std::string> ops;
  std::regex node(R"(^  %[^=]+ = ([A-Za-z0-9_.]+)\()");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, node)) ops.push_back(m[1]);
  }
  return ops;
}

// Each kernel of a generated model.c with the operator named in its leading comment
// ("/* name: source (Op) */"): the text from that comment to the function's end.
std::vector<std::pair<std::string, std::string>> kernels_by_op(const std::string& c) {
  std::vector<std::pair<std::string, std::string>> kernels;
  std::regex comment(R"(/\* [A-Za-z0-9_]+: .* \(([A-Za-z0-9_.]+)\) \*/\n)");
  for (auto it = std::sregex_iterator(c.begin(), c.end(), comment); it != std::sregex_iterator(); ++it) {
    size_t begin = static_cast<size_t>(it->position(0));
    size_t end = c.find("\n}\n", begin);
    kernels.emplace_back((*it)[1], c.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
  }
  return kernels;
}

class QdqModelTest : public TempDirTest<::testing::TestWithParam<QdqModel>> {
 protected:
  QdqModelTest() : TempDirTest("aotc-qdq-test") {}
  std::string model_file(const std::string& name) const {
    return source_path("tests/models/qdq/" + GetParam().name + "/" + name);
  }

  void expect_reference_output(const std::vector<std::string>& target_args) {
    std::string inputs;
    for (int i = 0; i < GetParam().inputs; ++i)
      inputs += (i ? "," : "") + model_file("input_" + std::to_string(i) + ".bin");
    std::vector<std::string> args = {"run",       model_file("model.onnx"), "--inputs", inputs,
                                     "--outputs", tmp("output.bin")};
    args.insert(args.end(), target_args.begin(), target_args.end());
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    std::string got = read_bytes(tmp("output.bin")), want = read_bytes(model_file("output_0.bin"));
    ASSERT_EQ(got.size(), want.size());
    size_t differing_bytes = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i] != want[i] && differing_bytes++ == 0) first = i;
    EXPECT_EQ(differing_bytes, 0u) << "first at byte " << first << " of " << want.size();
  }
};

TEST_P(QdqModelTest, MatchesTheReferenceExactly) { expect_reference_output({"--target", "host"}); }

// cortex-m4 allows no stack arrays: every temporary goes through the workspace allocator.
TEST_P(QdqModelTest, MatchesTheReferenceExactlyOnCortexM4) { expect_reference_output({"--target", "cortex-m4"}); }

TEST_P(QdqModelTest, FoldsIntoIntegerKernels) {
  Result r =
      run({"compile", model_file("model.onnx"), "-o", tmp("out"), "--name", "net", "--print-after=fuse_operators"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(printed_ops(r.output), GetParam().folded_ops) << r.output;

  std::string c = read_bytes(tmp("out/net.c"));
  size_t integer_kernels = 0;
  for (const auto& [op, text] : kernels_by_op(c)) {
    if (!kIntegerOps.count(op)) continue;
    ++integer_kernels;
    EXPECT_EQ(text.find("float"), std::string::npos) << "the " << op << " kernel computes in float:\n" << text;
    EXPECT_NE(text.find("aotc_onnx_requantize"), std::string::npos) << text;
  }
  EXPECT_EQ(integer_kernels,
            static_cast<size_t>(std::count_if(GetParam().folded_ops.begin(), GetParam().folded_ops.end(),
                                              [](const std::string& op) { return kIntegerOps.count(op) != 0; })));
  if (GetParam().integer_io) EXPECT_EQ(c.find("float"), std::string::npos) << "an integer model computes in float";
}

TEST_P(QdqModelTest, GeneratedCBuildsWithStrictWarnings) {
  Result r = run({"compile", model_file("model.onnx"), "-o", tmp("out"), "--name", "net"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const std::string cc : {"clang", "gcc"}) {
    std::string log;
    int status = compile_strict_c99(cc, tmp("out/net.c"), tmp("out"), tmp("net." + cc + ".o"), &log);
    EXPECT_EQ(status, 0) << cc << ":\n" << log;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, QdqModelTest, ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<QdqModel>& info) { return info.param.name; });

}  // namespace
}  // namespace aotc::e2e
