// Typed elements in little-endian byte buffers: how constants are held everywhere in
// aotc (graph tensors, the loop IR's AllocateConst, the interpreter's memory), so that a
// constant of any dtype and layout is just bytes plus a DataType.
#pragma once

#include <cstdint>
#include <vector>

#include "aot/base/dtype.h"

namespace aotc {

// Element i of `bytes` (elements of type t) as a double or an int64 (floats truncate
// toward zero; bool reads as 0 or 1; float16 reads as the value of its bit pattern).
double read_element_double(DataType t, const uint8_t* bytes, int64_t i);
int64_t read_element_int(DataType t, const uint8_t* bytes, int64_t i);

// A float read as an integer (a model's float where a shape, an index or an integer
// attribute belongs): truncated toward zero, as C++ converts where that is defined; NaN
// and values beyond int64's range saturate, NaN to the lowest value, which every check of
// a size or an index then refuses.
int64_t float_as_int(double v);

// Stores element i; a float type takes `value` rounded to its precision, an integer
// type its low bits (two's complement), bool value != 0. Not for float16 (throws
// std::invalid_argument): rounding to it is the runtime's, aotc_f64_to_f16.
void write_element(DataType t, uint8_t* bytes, int64_t i, double value);
void write_element_int(DataType t, uint8_t* bytes, int64_t i, int64_t value);

// `values` encoded as elements of type t. For integer types every value must be an
// integer in the type's range (throws std::invalid_argument otherwise): a table that does
// not fit its type is a bug in the lowering that built it.
std::vector<uint8_t> encode_elements(DataType t, const std::vector<double>& values);
std::vector<uint8_t> encode_int_elements(DataType t, const std::vector<int64_t>& values);

}  // namespace aotc
