// Models of ONNX opsets 18 to 24 (tests/models/opset18plus, made by its make_models.py):
// the operator versions those opsets brought, each compiled by aotc and run on the host,
// must give the reference outputs (ONNX Runtime's, or numpy's from the operator's
// definition for DFT) within rtol 1e-3, atol 1e-5 (integer outputs: exactly), and their
// generated C must build with clang as strict C99. The models aotc does not implement
// (refused/) must be refused with an error naming the node and what is not supported.
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

const std::string kDir = "tests/models/opset18plus/";

const nlohmann::json& manifest() {
  static const nlohmann::json parsed = nlohmann::json::parse(read_bytes(source_path(kDir + "manifest.json")));
  return parsed;
}

std::vector<std::string> names_of(const std::string& list) {
  std::vector<std::string> names;
  for (const auto& entry : manifest()[list]) names.push_back(entry["name"].get<std::string>());
  return names;
}

nlohmann::json entry_named(const std::string& list, const std::string& name) {
  for (const auto& entry : manifest()[list])
    if (entry["name"] == name) return entry;
  ADD_FAILURE() << name << " is not in the manifest's " << list;
  return {};
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& item : items) s += (s.empty() ? "" : ",") + item;
  return s;
}

class Opset18PlusModel : public TempDirTest<::testing::TestWithParam<std::string>> {
 protected:
  Opset18PlusModel() : TempDirTest("aotc-opset18plus") {}
  std::string file(const std::string& name) const { return source_path(kDir + GetParam() + "/" + name); }
};

TEST_P(Opset18PlusModel, MatchesTheReference) {
  nlohmann::json c = entry_named("cases", GetParam());
  std::vector<std::string> inputs, outputs;
  for (size_t i = 0; i < c["inputs"].size(); ++i) inputs.push_back(file("input_" + std::to_string(i) + ".bin"));
  for (size_t i = 0; i < c["outputs"].size(); ++i) outputs.push_back(tmp("output_" + std::to_string(i) + ".bin"));
  Result r = run({"run", file("model.onnx"), "--inputs", join(inputs), "--outputs", join(outputs)});
  ASSERT_EQ(r.status, 0) << r.output;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string type = c["outputs"][i]["type"];
    std::string want = file("output_" + std::to_string(i) + ".bin");
    SCOPED_TRACE("output " + c["outputs"][i]["name"].get<std::string>() + " (" + type + ", reference: " +
                 c["reference"].get<std::string>() + ")");
    if (type == "float32") {
      std::vector<float> got = read_floats(outputs[i]), expected = read_floats(want);
      ASSERT_EQ(got.size(), expected.size());
      expect_close(got, expected, 1e-3, 1e-5);
    } else {
      EXPECT_EQ(read_bytes(outputs[i]), read_bytes(want));
    }
  }
}

TEST_P(Opset18PlusModel, GeneratedCBuildsWithStrictWarnings) {
  Result r = run({"compile", file("model.onnx"), "-o", tmp("c"), "--name", "net"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string log;
  EXPECT_EQ(compile_strict_c99("clang", tmp("c/net.c"), tmp("c"), tmp("net.o"), &log), 0) << log;
}

INSTANTIATE_TEST_SUITE_P(Cases, Opset18PlusModel, ::testing::ValuesIn(names_of("cases")),
                         [](const auto& info) { return info.param; });

class Opset18PlusRefused : public TempDirTest<::testing::TestWithParam<std::string>> {
 protected:
  Opset18PlusRefused() : TempDirTest("aotc-opset18plus-refused") {}
};

TEST_P(Opset18PlusRefused, IsRefusedWithAClearError) {
  nlohmann::json c = entry_named("refused", GetParam());
  Result r = run({"compile", source_path(kDir + "refused/" + GetParam() + ".onnx"), "-o", tmp("c")});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: "), std::string::npos) << r.output;
  for (const auto& text : c["expect"]) EXPECT_NE(r.output.find(text.get<std::string>()), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Cases, Opset18PlusRefused, ::testing::ValuesIn(names_of("refused")),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aotc::e2e
