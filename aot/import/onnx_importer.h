// ONNX importer: reads a .onnx file (protobuf, via Debian's libonnx-dev) into a Graph.
//
// Initializers and Constant nodes become constant tensors; graph inputs need static
// shapes. Every problem is a CompileError that names the file and, where there is one,
// the node (name and op type) or tensor: a truncated file, an external-data tensor, a
// dynamic dimension, a node input that nothing produces, an operator from another domain.
#pragma once

#include <string>

#include "aot/graph/graph.h"
#include "aot/import/shape_bindings.h"

namespace aotc {

// `bindings` give sizes to dimensions the model leaves open (--input-shape, --dim).
Graph import_onnx(const std::string& path, const ShapeBindings& bindings = {});

// Decodes an onnx TensorProto held in `bytes` (a .pb file) into a constant Tensor.
Tensor parse_onnx_tensor(const std::string& bytes, const std::string& what);
// Encodes a tensor (dtype, shape, data) as a serialized TensorProto.
std::string serialize_onnx_tensor(const Tensor& t);

}  // namespace aotc
