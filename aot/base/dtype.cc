#include "aot/base/dtype.h"

namespace aotc {

std::string DataType::str() const {
  switch (kind) {
    case Kind::kBool: return "bool";
    case Kind::kFloat: return "float" + std::to_string(bits);
    case Kind::kInt: return "int" + std::to_string(bits);
    case Kind::kUInt: return "uint" + std::to_string(bits);
  }
  return "?";
}

std::string DataType::c_type() const {
  switch (kind) {
    case Kind::kBool: return "uint8_t";
    case Kind::kFloat: return bits == 64 ? "double" : "float";
    case Kind::kInt: return "int" + std::to_string(bits) + "_t";
    case Kind::kUInt: return "uint" + std::to_string(bits) + "_t";
  }
  return "?";
}

bool parse_dtype(const std::string& text, DataType* out) {
  static const struct { const char* name; DataType type; } kTypes[] = {
      {"float32", DataType::Float32()}, {"float64", DataType::Float64()},
      {"int8", DataType::Int(8)},       {"int16", DataType::Int(16)},
      {"int32", DataType::Int(32)},     {"int64", DataType::Int(64)},
      {"uint8", DataType::UInt(8)},     {"uint16", DataType::UInt(16)},
      {"uint32", DataType::UInt(32)},   {"bool", DataType::Bool()},
  };
  for (const auto& t : kTypes) {
    if (text == t.name) {
      *out = t.type;
      return true;
    }
  }
  return false;
}

}  // namespace aotc
