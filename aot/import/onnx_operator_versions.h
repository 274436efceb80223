// Which version of each ONNX operator a model means, and which versions aotc implements.
//
// An ONNX model names operators by op type and imports an opset; the operator's version is
// the newest of its versions not newer than that opset (ONNX's since_version). A new
// version may change what the operator computes, so aotc reads a node only if it
// implements that version: the importer refuses any other with an error naming the node,
// the operator, the version and why (check_onnx_operator_version). The operators' version
// history is ONNX's own (onnx_schema_versions.inc, generated); the newest version aotc
// implements is declared for each operator it registers, and a unit test keeps the two
// lists and the operator registry in step.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "aot/graph/graph.h"

namespace aotc {

// The newest opset whose operator versions aotc knows.
int64_t newest_onnx_opset();

// The versions of ONNX operator `op` up to newest_onnx_opset() (empty if ONNX has no such
// operator in its default domain).
const std::vector<int64_t>& onnx_schema_versions(const std::string& op);

// The version of `op` that `opset` means: its newest version not after `opset`; 0 if the
// operator is not an ONNX operator, or is newer than the opset.
int64_t onnx_operator_version(const std::string& op, int64_t opset);

// For each ONNX operator aotc implements, the newest version it implements (every
// version up to it is implemented too: the operators read their older forms by opset).
const std::map<std::string, int64_t>& implemented_onnx_versions();

// Why aotc cannot read operator `op` at `opset` if it implements `op` up to version
// `newest_implemented`; empty if it can. (An operator used before the opset that brought
// it, which is not valid ONNX, has one meaning only: its first version.)
std::string onnx_version_problem(const std::string& op, int64_t opset, int64_t newest_implemented);

// Throws node_error if aotc does not implement the version of node.op that `opset`
// means, or (naming that version) any version of this ONNX operator. Names that are not
// ONNX operators of the opset are left to the registry ("not supported").
void check_onnx_operator_version(const Node& node, int64_t opset);

}  // namespace aotc
