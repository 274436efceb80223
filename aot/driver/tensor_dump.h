// `aotc run --dump-tensors DIR`: the files that hold every intermediate tensor of one run,
// one NumPy .npy file each, and the index that maps the model's tensor names to them.
//
// DIR/tensors.json (format "aotc-tensor-dump", version 1):
//   {"format": "aotc-tensor-dump", "version": 1, "producer": "aotc", "model": FILE,
//    "tensors": [{"name": N, "node": NODE, "op": OP, "order": I, "output_index": K,
//                 "dtype": "float32"|"int8"|..., "shape": [..], "file": "0003_conv.npy" | null,
//                 "source": "run" | "compile_time",          (with a file)
//                 "absent": "why the program never holds it", (without one)
//                 "quantization": {"scale": [..], "zero_point": [..], "axis": A}}, ...]}
// one entry per output of every node of the model in model order (`order` is the node's
// place; a subgraph's nodes share their control-flow node's). Quantized tensors are written
// as their raw integers, with scale and zero point in the index. Tensor names are the
// model's, untrusted bytes: file names keep only [A-Za-z0-9._-] of them, after the entry's
// number, and bytes that are not UTF-8 become U+FFFD in the index.
// scripts/compare_tensors compares two such folders; scripts/ort_dump_tensors.js writes one
// from ONNX Runtime.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "aot/executor/compiled_model.h"

namespace aotc {

// The files of DIR, by name: one .npy per tensor the run holds (`outputs` gives the bytes
// of each graph output, by tensor) or fold_constants computed, and tensors.json.
std::map<std::string, std::string> tensor_dump_files(const CompiledModel& m,
                                                     const std::map<TensorId, std::vector<uint8_t>>& outputs,
                                                     const std::string& model_file);

}  // namespace aotc
