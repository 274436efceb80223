// Scalar data types shared by the operator graph and the loop IR.
//
// A DataType is a (kind, bits) pair, the same information as dlpack's DLDataType
// without lanes: aotc generates scalar C, vectorization is a later schedule choice.
#pragma once

#include <cstdint>
#include <string>

namespace aotc {

struct DataType {
  enum class Kind : uint8_t { kInt, kUInt, kFloat, kBool };
  Kind kind = Kind::kFloat;
  int bits = 32;

  static DataType Float32() { return {Kind::kFloat, 32}; }
  static DataType Float64() { return {Kind::kFloat, 64}; }
  static DataType Int(int bits) { return {Kind::kInt, bits}; }
  static DataType UInt(int bits) { return {Kind::kUInt, bits}; }
  static DataType Bool() { return {Kind::kBool, 8}; }

  bool is_float() const { return kind == Kind::kFloat; }
  bool is_int() const { return kind == Kind::kInt; }
  bool is_uint() const { return kind == Kind::kUInt; }
  bool is_bool() const { return kind == Kind::kBool; }
  bool is_integer() const { return kind == Kind::kInt || kind == Kind::kUInt; }
  int bytes() const { return (bits + 7) / 8; }

  bool operator==(const DataType& o) const { return kind == o.kind && bits == o.bits; }
  bool operator!=(const DataType& o) const { return !(*this == o); }

  // "float32", "int8", "bool": the spelling used in IR text and metadata.json.
  std::string str() const;
  // The C99 type: "float", "int8_t", "uint8_t"...
  std::string c_type() const;
};

}  // namespace aotc
