#include "aot/driver/tensor_dump.h"

#include <nlohmann/json.hpp>

#include "aot/driver/tensor_io.h"

namespace aotc {
namespace {

// "0007_" + the name's safe characters: unique by the number, safe in any file system.
std::string file_name(size_t number, const std::string& tensor_name) {
  std::string prefix = std::to_string(number);
  prefix = std::string(prefix.size() < 4 ? 4 - prefix.size() : 0, '0') + prefix + "_";
  std::string safe;
  for (char c : tensor_name) {
    if (safe.size() == 64) break;
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    safe += keep ? c : '_';
  }
  return prefix + safe + ".npy";
}

}  // namespace

std::map<std::string, std::string> tensor_dump_files(const CompiledModel& m,
                                                     const std::map<TensorId, std::vector<uint8_t>>& outputs,
                                                     const std::string& model_file) {
  const Graph& g = m.graph;
  std::map<std::string, std::string> files;
  nlohmann::json index = {{"format", "aotc-tensor-dump"}, {"version", 1}, {"producer", "aotc"}, {"model", model_file}};
  index["tensors"] = nlohmann::json::array();
  for (size_t i = 0; i < m.model_tensors.size(); ++i) {
    const ModelTensor& record = m.model_tensors[i];
    Tensor t = g.tensor(record.tensor);
    nlohmann::json entry = {{"name", t.name},       {"node", record.node},   {"op", record.op},
                            {"order", record.order}, {"output_index", record.output_index},
                            {"dtype", t.dtype.str()}, {"shape", t.shape}};
    const Quantization& q = t.quant.empty() ? record.quant : t.quant;
    if (!q.empty() && t.dtype.is_integer())
      entry["quantization"] = {{"scale", q.scale}, {"zero_point", q.zero_point}, {"axis", q.axis}};
    auto value = outputs.find(record.tensor);
    std::string absent = record.absent;
    if (absent.empty() && !record.compile_time && value == outputs.end())
      absent = "kept inside the program (the next value of a --state)";
    if (absent.empty()) {
      if (!record.compile_time) t.data = value->second;
      std::string name = file_name(i, t.name);
      files[name] = npy_bytes(t);
      entry["file"] = name;
      entry["source"] = record.compile_time ? "compile_time" : "run";
    } else {
      entry["file"] = nullptr;
      entry["absent"] = absent;
    }
    index["tensors"].push_back(entry);
  }
  // Names come from the model: bytes that are not UTF-8 become U+FFFD instead of an error.
  files["tensors.json"] = index.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return files;
}

}  // namespace aotc
