// The tensors of a Vela-compiled model's first ethos-u operator, read from the .tflite file
// with the flatbuffers schema's own accessors (not aotc's importer: these are what the
// tests compare aotc's output against): its command stream, Vela's weights, and the sizes
// of its two scratch tensors.
#pragma once

#include <cstddef>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "tflite_schema_generated.h"

namespace aotc::ethos_u_test {

struct VelaOperator {
  std::string stream, weights;
  std::vector<size_t> scratch_sizes;
};

inline VelaOperator read_vela_operator(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  std::string file = contents.str();
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(file.data()), file.size());
  if (!in || !tfl::VerifyModelBuffer(verifier)) throw std::runtime_error(path + ": not a readable .tflite file");
  const tfl::Model* model = tfl::GetModel(file.data());
  const tfl::SubGraph* sub = model->subgraphs()->Get(0);
  const tfl::Operator* op = sub->operators()->Get(0);
  auto tensor = [&](flatbuffers::uoffset_t input) { return sub->tensors()->Get(static_cast<flatbuffers::uoffset_t>(op->inputs()->Get(input))); };
  auto bytes = [&](flatbuffers::uoffset_t input) {
    const auto* data = model->buffers()->Get(tensor(input)->buffer())->data();
    return data ? std::string(data->begin(), data->end()) : std::string();
  };
  VelaOperator v;
  v.stream = bytes(0);
  v.weights = bytes(1);
  for (flatbuffers::uoffset_t k : {2u, 3u}) {
    size_t n = 1;
    for (int32_t d : *tensor(k)->shape()) n *= static_cast<size_t>(d);
    v.scratch_sizes.push_back(n);
  }
  return v;
}

}  // namespace aotc::ethos_u_test
