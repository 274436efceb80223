// Two's complement int64 arithmetic without undefined behaviour: results are taken modulo
// 2^64, as the generated C's narrower types wrap, and INT64_MIN / -1 is INT64_MIN (with
// INT64_MIN % -1 = 0), where C++'s operators are undefined. Constant folding (the simplifier)
// and the IR interpreter both compute with these, so that a damaged model's constants
// cannot make the compiler itself misbehave.
#pragma once

#include <cstdint>

namespace aotc {

inline int64_t wrapping_add(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
}
inline int64_t wrapping_sub(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
}
inline int64_t wrapping_mul(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
}
// y must not be 0.
inline int64_t wrapping_div(int64_t x, int64_t y) { return y == -1 ? wrapping_sub(0, x) : x / y; }
inline int64_t wrapping_mod(int64_t x, int64_t y) { return y == -1 ? 0 : x % y; }

}  // namespace aotc
