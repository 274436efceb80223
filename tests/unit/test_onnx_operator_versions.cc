// Tests of the ONNX operator-version table (aot/import/onnx_operator_versions.cc): that
// every ONNX operator aotc registers declares the newest version it implements, that the
// declared versions are ONNX's, and that a version newer than the declared one is refused
// with a message naming the operator, the version and the opset.
//
// The expected operator versions are ONNX's (its changelog, docs/Changelog.md: Resize has
// versions 10, 11, 13, 18 and 19; ReduceSum 1, 11 and 13; Gelu appeared in opset 20).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "aot/graph/op_registry.h"
#include "aot/import/onnx_operator_versions.h"

namespace aotc::test {
namespace {

// Registered operators that are not ONNX's default domain: TFLite's, aotc's own.
bool is_other_domain(const std::string& op) { return op.find('.') != std::string::npos; }

TEST(OnnxOperatorVersions, EveryRegisteredOnnxOperatorDeclaresItsNewestImplementedVersion) {
  const auto& implemented = implemented_onnx_versions();
  for (const std::string& op : registered_ops()) {
    if (is_other_domain(op)) continue;
    EXPECT_FALSE(onnx_schema_versions(op).empty()) << op << " is registered but is not an ONNX operator";
    EXPECT_TRUE(implemented.count(op)) << op << " is registered but declares no implemented version";
  }
}

TEST(OnnxOperatorVersions, DeclaredVersionsAreOnnxVersionsOfRegisteredOperators) {
  for (const auto& [op, version] : implemented_onnx_versions()) {
    const std::vector<int64_t>& versions = onnx_schema_versions(op);
    EXPECT_TRUE(std::count(versions.begin(), versions.end(), version)) << op << "-" << version << " is not an ONNX version";
    // Constant is read by the importer itself, not through the registry.
    if (op != "Constant") EXPECT_NE(find_op(op), nullptr) << op << " declares a version but is not registered";
  }
}

TEST(OnnxOperatorVersions, OpsetMeansTheNewestVersionNotAfterIt) {
  EXPECT_EQ(newest_onnx_opset(), 24);
  EXPECT_EQ(onnx_operator_version("Resize", 10), 10);
  EXPECT_EQ(onnx_operator_version("Resize", 12), 11);
  EXPECT_EQ(onnx_operator_version("Resize", 17), 13);
  EXPECT_EQ(onnx_operator_version("Resize", 24), 19);
  EXPECT_EQ(onnx_operator_version("ReduceSum", 24), 13);
  EXPECT_EQ(onnx_operator_version("Gelu", 19), 0);
  EXPECT_EQ(onnx_operator_version("Gelu", 20), 20);
  EXPECT_EQ(onnx_operator_version("NoSuchOperator", 24), 0);
}

TEST(OnnxOperatorVersions, ANewerVersionThanImplementedIsRefusedWithTheVersionAndOpset) {
  // As if aotc implemented Resize up to version 13: opset 18 means Resize-18.
  std::string problem = onnx_version_problem("Resize", 18, 13);
  for (const char* text : {"version 18 of Resize", "opset 18", "up to version 13", "10, 11, 13, 18, 19"})
    EXPECT_NE(problem.find(text), std::string::npos) << "'" << text << "' missing from: " << problem;
  EXPECT_EQ(onnx_version_problem("Resize", 17, 13), "");
  EXPECT_EQ(onnx_version_problem("Gelu", 17, 20), "") << "before its opset an operator has its first version only";
}

}  // namespace
}  // namespace aotc::test
