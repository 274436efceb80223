#include "aot/base/element_bytes.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace aotc {
namespace {

template <typename T>
T load(const uint8_t* bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void store(uint8_t* bytes, int64_t i, T v) {
  std::memcpy(bytes + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

// The value of a float16 bit pattern (exact). Encoding, which rounds, is the runtime's
// (runtime-c/aotc_elementwise.h), so that compiler and generated code round alike.
double float16_value(uint16_t h) {
  int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  double magnitude = exponent == 0x1F ? (mantissa ? NAN : INFINITY)
                     : exponent == 0  ? std::ldexp(mantissa, -24)
                                      : std::ldexp(mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

}  // namespace

// Saturating where the plain conversion is undefined behaviour (fuzz_compile found a NaN in
// a damaged RESHAPE's shape, and the audit that followed a float where an integer
// attribute belongs).
int64_t float_as_int(double v) {
  if (std::isnan(v) || v < -9223372036854775808.0) return INT64_MIN;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  return static_cast<int64_t>(v);
}

int64_t read_element_int(DataType t, const uint8_t* b, int64_t i) {
  switch (t.kind) {
    case DataType::Kind::kFloat: return float_as_int(read_element_double(t, b, i));
    case DataType::Kind::kBool: return b[i] ? 1 : 0;
    case DataType::Kind::kInt:
      switch (t.bits) {
        case 8: return load<int8_t>(b, i);
        case 16: return load<int16_t>(b, i);
        case 32: return load<int32_t>(b, i);
        default: return load<int64_t>(b, i);
      }
    case DataType::Kind::kUInt:
      switch (t.bits) {
        case 8: return load<uint8_t>(b, i);
        case 16: return load<uint16_t>(b, i);
        case 32: return load<uint32_t>(b, i);
        default: return static_cast<int64_t>(load<uint64_t>(b, i));
      }
  }
  return 0;
}

double read_element_double(DataType t, const uint8_t* b, int64_t i) {
  if (t.is_float16()) return float16_value(load<uint16_t>(b, i));
  if (t.is_float()) return t.bits == 64 ? load<double>(b, i) : load<float>(b, i);
  if (t.is_uint() && t.bits == 64) return static_cast<double>(load<uint64_t>(b, i));
  return static_cast<double>(read_element_int(t, b, i));
}

void write_element_int(DataType t, uint8_t* b, int64_t i, int64_t v) {
  switch (t.kind) {
    case DataType::Kind::kFloat: write_element(t, b, i, static_cast<double>(v)); return;
    case DataType::Kind::kBool: b[i] = v != 0; return;
    case DataType::Kind::kInt:
    case DataType::Kind::kUInt:
      // Little-endian two's complement: the low t.bytes() bytes of v.
      for (int k = 0; k < t.bytes(); ++k) b[i * t.bytes() + k] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * k));
      return;
  }
}

void write_element(DataType t, uint8_t* b, int64_t i, double v) {
  if (!t.is_float()) return write_element_int(t, b, i, t.is_bool() ? (v != 0) : static_cast<int64_t>(v));
  if (t.is_float16()) throw std::invalid_argument("float16 elements are encoded by the runtime (aotc_f64_to_f16), not here");
  if (t.bits == 64) return store<double>(b, i, v);
  store<float>(b, i, static_cast<float>(v));
}

std::vector<uint8_t> encode_elements(DataType t, const std::vector<double>& values) {
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(t.bytes()));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t.is_integer()) {
      double v = values[i];
      double lo = t.is_uint() ? 0.0 : -std::ldexp(1.0, t.bits - 1);
      double hi = t.is_uint() ? std::ldexp(1.0, t.bits) - 1 : std::ldexp(1.0, t.bits - 1) - 1;
      if (v != std::floor(v) || v < lo || v > hi)
        throw std::invalid_argument("constant " + std::to_string(v) + " is not a " + t.str());
    }
    write_element(t, bytes.data(), static_cast<int64_t>(i), values[i]);
  }
  return bytes;
}

std::vector<uint8_t> encode_int_elements(DataType t, const std::vector<int64_t>& values) {
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(t.bytes()));
  for (size_t i = 0; i < values.size(); ++i) write_element_int(t, bytes.data(), static_cast<int64_t>(i), values[i]);
  return bytes;
}

}  // namespace aotc
