// Reading and writing tensors in the file formats `aotc run` accepts, chosen by extension:
//   .bin  raw little-endian elements, nothing else (the size must match exactly)
//   .npy  NumPy's format (version 1-3, little-endian, C order)
//   .pb   an ONNX TensorProto (the ONNX backend tests' format)
#pragma once

#include <string>
#include <vector>

#include "aot/graph/graph.h"

namespace aotc {

// Reads the data for `expected` (dtype and shape) from `path`. The element count and
// type must match; the shape only has to have the same number of elements. Throws
// CompileError naming the file and the tensor.
std::vector<uint8_t> read_tensor_file(const std::string& path, const Tensor& expected);

// Writes `t` (with data) to `path` in the format of its extension.
void write_tensor_file(const std::string& path, const Tensor& t);

// `t` (with data) as the bytes of a .npy file (version 1.0, C order).
std::string npy_bytes(const Tensor& t);

}  // namespace aotc
