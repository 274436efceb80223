#include "lowering/ir/runtime_calls.h"

#include <algorithm>
#include <functional>
#include <map>

#include "runtime-c/aotc_dot.h"
#include "runtime-c/aotc_dot_f32.h"
#include "runtime-c/aotc_dot_strided.h"
#include "runtime-c/aotc_elementwise.h"
#include "runtime-c/aotc_host_f32.h"
#include "runtime-c/aotc_mve.h"
#include "runtime-c/aotc_quant.h"
#include "runtime-c/aotc_quant_onnx.h"
#include "runtime-c/aotc_quant_softmax.h"

namespace aotc::ir {
namespace {

// Every runtime function the IR may call, by its C name: the runtime header that defines it
// (what generated code that calls it includes), its arity, how the interpreter evaluates it.
struct RuntimeFunction {
  const char* header;
  size_t arity;
  std::function<int64_t(const std::vector<int64_t>&)> evaluate;
  // The arguments it writes through (a micro-kernel's output address: its last argument,
  // but the copies' first; the host float kernels' output and scratch).
  std::vector<size_t> writes = {};
};

// Integer arguments arrive as int64 and are narrowed to the C function's int32; an address
// is a host pointer.
int32_t i32(int64_t v) { return static_cast<int32_t>(v); }
uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }
uint64_t u64(int64_t v) { return static_cast<uint64_t>(v); }
template <typename T>
T* pointer(int64_t v) {
  return reinterpret_cast<T*>(static_cast<intptr_t>(v));
}

const std::map<std::string, RuntimeFunction>& runtime_functions() {
  using Args = const std::vector<int64_t>&;
  static const std::map<std::string, RuntimeFunction> kFunctions = {
      {"aotc_mul_by_quantized_multiplier", {"aotc_quant.h", 3, [](Args a) { return aotc_mul_by_quantized_multiplier(i32(a[0]), i32(a[1]), i32(a[2])); }}},
      {"aotc_requantize", {"aotc_quant.h", 3, [](Args a) { return aotc_requantize(i32(a[0]), i32(a[1]), i32(a[2])); }}},
      {"aotc_requantize_right", {"aotc_quant.h", 3, [](Args a) { return aotc_requantize_right(i32(a[0]), i32(a[1]), i32(a[2])); }}},
      {"aotc_requantize_s8", {"aotc_quant.h", 4, [](Args a) { return aotc_requantize_s8(i32(a[0]), i32(a[1]), i32(a[2]), i32(a[3])); }}},
      {"aotc_mul_by_quantized_multiplier_i64",
       {"aotc_quant.h", 3, [](Args a) { return aotc_mul_by_quantized_multiplier_i64(a[0], i32(a[1]), i32(a[2])); }}},
      {"aotc_rounding_divide_by_pot", {"aotc_quant.h", 2, [](Args a) { return aotc_rounding_divide_by_pot(i32(a[0]), i32(a[1])); }}},
      {"aotc_sat_rounding_doubling_high_mul", {"aotc_quant.h", 2, [](Args a) { return aotc_sat_rounding_doubling_high_mul(i32(a[0]), i32(a[1])); }}},
      {"aotc_onnx_requantize", {"aotc_quant_onnx.h", 3, [](Args a) { return aotc_onnx_requantize(i32(a[0]), i32(a[1]), i32(a[2])); }}},
      {"aotc_onnx_requantize_high",
       {"aotc_quant_onnx.h", 5, [](Args a) { return aotc_onnx_requantize_high(i32(a[0]), i32(a[1]), i32(a[2]), i32(a[3]), i32(a[4])); }}},
      {"aotc_onnx_requantize_s8",
       {"aotc_quant_onnx.h", 6, [](Args a) {
          return aotc_onnx_requantize_s8(i32(a[0]), i32(a[1]), i32(a[2]), i32(a[3]), i32(a[4]), i32(a[5]));
        }}},
      {"aotc_onnx_requantize_sum",
       {"aotc_quant_onnx.h", 5, [](Args a) { return aotc_onnx_requantize_sum(i32(a[0]), i32(a[1]), i32(a[2]), i32(a[3]), i32(a[4])); }}},
      {"aotc_exp_on_negative_values_q5_26", {"aotc_quant_softmax.h", 1, [](Args a) { return aotc_exp_on_negative_values_q5_26(i32(a[0])); }}},
      {"aotc_count_leading_zeros", {"aotc_quant_softmax.h", 1, [](Args a) { return aotc_count_leading_zeros(i32(a[0])); }}},
      {"aotc_get_reciprocal", {"aotc_quant_softmax.h", 1, [](Args a) { return aotc_get_reciprocal(i32(a[0])); }}},
      {"aotc_logistic_q4_27", {"aotc_quant_softmax.h", 1, [](Args a) { return aotc_logistic_q4_27(i32(a[0])); }}},
      {"aotc_tanh_q4_27", {"aotc_quant_softmax.h", 1, [](Args a) { return aotc_tanh_q4_27(i32(a[0])); }}},
      {"aotc_logistic_s16", {"aotc_quant_softmax.h", 3, [](Args a) { return aotc_logistic_s16(i32(a[0]), i32(a[1]), i32(a[2])); }}},
      {"aotc_tanh_s16", {"aotc_quant_softmax.h", 3, [](Args a) { return aotc_tanh_s16(i32(a[0]), i32(a[1]), i32(a[2])); }}},
      {"aotc_inv_sqrt_multiplier", {"aotc_quant_softmax.h", 1, [](Args a) { return aotc_inv_sqrt_multiplier(i32(a[0])); }}},
      {"aotc_inv_sqrt_shift", {"aotc_quant_softmax.h", 1, [](Args a) { return aotc_inv_sqrt_shift(i32(a[0])); }}},
      {"aotc_hard_swish_s8",
       {"aotc_quant.h", 5, [](Args a) { return aotc_hard_swish_s8(i32(a[0]), i32(a[1]), i32(a[2]), i32(a[3]), i32(a[4])); }}},
      {"aotc_dot_s8_1x4",
       {"aotc_dot.h", 4, [](Args a) {
          aotc_dot_s8_1x4(pointer<const int8_t>(a[0]), pointer<const int32_t>(a[1]), i32(a[2]), pointer<int32_t>(a[3]));
          return int64_t{0};
        }, {3}}},
      {"aotc_dot_s8_2x2",
       {"aotc_dot.h", 5, [](Args a) {
          aotc_dot_s8_2x2(pointer<const int8_t>(a[0]), pointer<const int8_t>(a[1]), pointer<const int32_t>(a[2]), i32(a[3]),
                          pointer<int32_t>(a[4]));
          return int64_t{0};
        }, {4}}},
      {"aotc_mve_conv_s8",
       {"aotc_mve.h", 15, [](Args a) {
          aotc_mve_conv_s8(pointer<const int8_t>(a[0]), i32(a[1]), i32(a[2]), i32(a[3]), pointer<const int8_t>(a[4]), i32(a[5]),
                           pointer<const int32_t>(a[6]), pointer<const int32_t>(a[7]), pointer<const int32_t>(a[8]),
                           pointer<const int32_t>(a[9]), i32(a[10]), i32(a[11]), i32(a[12]), i32(a[13]),
                           pointer<int8_t>(a[14]));
          return int64_t{0};
        }, {14}}},
      {"aotc_mve_depthwise_s8",
       {"aotc_mve.h", 17, [](Args a) {
          aotc_mve_depthwise_s8(pointer<const int8_t>(a[0]), i32(a[1]), i32(a[2]), i32(a[3]), i32(a[4]), i32(a[5]), i32(a[6]),
                                pointer<const int8_t>(a[7]), pointer<const int32_t>(a[8]), pointer<const int32_t>(a[9]),
                                pointer<const int32_t>(a[10]), pointer<const int32_t>(a[11]), i32(a[12]), i32(a[13]),
                                i32(a[14]), i32(a[15]), pointer<int8_t>(a[16]));
          return int64_t{0};
        }, {16}}},
      {"aotc_mve_add_s8",
       {"aotc_mve.h", 15, [](Args a) {
          aotc_mve_add_s8(pointer<const int8_t>(a[0]), pointer<const int8_t>(a[1]), i32(a[2]), i32(a[3]), i32(a[4]), i32(a[5]),
                          i32(a[6]), i32(a[7]), i32(a[8]), i32(a[9]), i32(a[10]), i32(a[11]), i32(a[12]), i32(a[13]),
                          pointer<int8_t>(a[14]));
          return int64_t{0};
        }, {14}}},
      {"aotc_mve_window_sum_s8",
       {"aotc_mve.h", 6, [](Args a) {
          aotc_mve_window_sum_s8(pointer<const int8_t>(a[0]), i32(a[1]), i32(a[2]), i32(a[3]), i32(a[4]), pointer<int32_t>(a[5]));
          return int64_t{0};
        }, {5}}},
      {"aotc_mve_copy_s8",
       {"aotc_mve.h", 3, [](Args a) {
          aotc_mve_copy_s8(pointer<int8_t>(a[0]), pointer<const int8_t>(a[1]), i32(a[2]));
          return int64_t{0};
        }, {0}}},
      {"aotc_mve_fill_s8",
       {"aotc_mve.h", 3, [](Args a) {
          aotc_mve_fill_s8(pointer<int8_t>(a[0]), i32(a[1]), i32(a[2]));
          return int64_t{0};
        }, {0}}},
      {"aotc_mve_band_row_s8",
       {"aotc_mve.h", 8, [](Args a) {
          aotc_mve_band_row_s8(pointer<int8_t>(a[0]), pointer<const int8_t>(a[1]), i32(a[2]), i32(a[3]), i32(a[4]), i32(a[5]),
                               i32(a[6]), i32(a[7]));
          return int64_t{0};
        }, {0}}},
      {"aotc_mve_gather_s8",
       {"aotc_mve.h", 5, [](Args a) {
          aotc_mve_gather_s8(pointer<int8_t>(a[0]), pointer<const int8_t>(a[1]), i32(a[2]), i32(a[3]), i32(a[4]));
          return int64_t{0};
        }, {0}}},
      {"aotc_dot_s8_1x4_aligned",
       {"aotc_dot.h", 4, [](Args a) {
          aotc_dot_s8_1x4_aligned(pointer<const int8_t>(a[0]), pointer<const int32_t>(a[1]), i32(a[2]), pointer<int32_t>(a[3]));
          return int64_t{0};
        }}},
      {"aotc_dot_s8_2x2_aligned",
       {"aotc_dot.h", 5, [](Args a) {
          aotc_dot_s8_2x2_aligned(pointer<const int8_t>(a[0]), i32(a[1]), pointer<const int32_t>(a[2]), i32(a[3]),
                                  pointer<int32_t>(a[4]));
          return int64_t{0};
        }}},
      {"aotc_stage_s8x2",
       {"aotc_dot.h", 4, [](Args a) {
          aotc_stage_s8x2(pointer<const int8_t>(a[0]), pointer<const int8_t>(a[1]), i32(a[2]), pointer<int32_t>(a[3]));
          return int64_t{0};
        }}},
      {"aotc_dot_s16_2x2",
       {"aotc_dot.h", 4, [](Args a) {
          aotc_dot_s16_2x2(pointer<const int32_t>(a[0]), pointer<const int32_t>(a[1]), i32(a[2]), pointer<int32_t>(a[3]));
          return int64_t{0};
        }}},
      {"aotc_dw3_s8",
       {"aotc_dot.h", 6, [](Args a) {
          aotc_dw3_s8(pointer<const int8_t>(a[0]), i32(a[1]), i32(a[2]), i32(a[3]), i32(a[4]), pointer<int32_t>(a[5]));
          return int64_t{0};
        }}},
      {"aotc_conv_f32",
       {"aotc_host_f32.h", 16, [](Args a) {
          aotc_conv_f32(pointer<const float>(a[0]), pointer<float>(a[1]), pointer<const float>(a[2]), i32(a[3]), i32(a[4]),
                        i32(a[5]), i32(a[6]), i32(a[7]), i32(a[8]), i32(a[9]), i32(a[10]), i32(a[11]), i32(a[12]),
                        i32(a[13]), i32(a[14]), pointer<float>(a[15]));
          return int64_t{0};
        }, {1, 15}}},
      {"aotc_depthwise_f32",
       {"aotc_host_f32.h", 15, [](Args a) {
          aotc_depthwise_f32(pointer<const float>(a[0]), pointer<float>(a[1]), pointer<const float>(a[2]), i32(a[3]),
                             i32(a[4]), i32(a[5]), i32(a[6]), i32(a[7]), i32(a[8]), i32(a[9]), i32(a[10]), i32(a[11]),
                             i32(a[12]), i32(a[13]), pointer<float>(a[14]));
          return int64_t{0};
        }, {1, 14}}},
      {"aotc_dot_f32_4x4",
       {"aotc_dot_f32.h", 7, [](Args a) {
          aotc_dot_f32_4x4(pointer<const float>(a[0]), pointer<const float>(a[1]), pointer<const float>(a[2]),
                           pointer<const float>(a[3]), pointer<const float>(a[4]), i32(a[5]), pointer<float>(a[6]));
          return int64_t{0};
        }}},
      {"aotc_dot_f32_1x4",
       {"aotc_dot_f32.h", 4, [](Args a) {
          aotc_dot_f32_1x4(pointer<const float>(a[0]), pointer<const float>(a[1]), i32(a[2]), pointer<float>(a[3]));
          return int64_t{0};
        }}},
      {"aotc_dot_f32_1x16",
       {"aotc_dot_f32.h", 5, [](Args a) {
          aotc_dot_f32_1x16(pointer<const float>(a[0]), pointer<const float>(a[1]), i32(a[2]), i32(a[3]),
                            pointer<float>(a[4]));
          return int64_t{0};
        }}},
      {"aotc_dw_f32_4ch",
       {"aotc_dot_f32.h", 8, [](Args a) {
          aotc_dw_f32_4ch(pointer<const float>(a[0]), i32(a[1]), i32(a[2]), pointer<const float>(a[3]), i32(a[4]), i32(a[5]),
                          i32(a[6]), pointer<float>(a[7]));
          return int64_t{0};
        }}},
      {"aotc_dot_f32",
       {"aotc_dot_strided.h", 6, [](Args a) {
          aotc_dot_f32(pointer<const float>(a[0]), i32(a[1]), pointer<const float>(a[2]), i32(a[3]), i32(a[4]),
                       pointer<float>(a[5]));
          return int64_t{0};
        }, {5}}},
      {"aotc_dot_s8_s8",
       {"aotc_dot_strided.h", 8, [](Args a) {
          aotc_dot_s8_s8(pointer<const int8_t>(a[0]), i32(a[1]), i32(a[2]), pointer<const int8_t>(a[3]), i32(a[4]),
                         i32(a[5]), i32(a[6]), pointer<int32_t>(a[7]));
          return int64_t{0};
        }, {7}}},
      {"aotc_dot_u8_u8",
       {"aotc_dot_strided.h", 8, [](Args a) {
          aotc_dot_u8_u8(pointer<const uint8_t>(a[0]), i32(a[1]), i32(a[2]), pointer<const uint8_t>(a[3]), i32(a[4]),
                         i32(a[5]), i32(a[6]), pointer<int32_t>(a[7]));
          return int64_t{0};
        }, {7}}},
      {"aotc_dot_u8_s8",
       {"aotc_dot_strided.h", 8, [](Args a) {
          aotc_dot_u8_s8(pointer<const uint8_t>(a[0]), i32(a[1]), i32(a[2]), pointer<const int8_t>(a[3]), i32(a[4]),
                         i32(a[5]), i32(a[6]), pointer<int32_t>(a[7]));
          return int64_t{0};
        }, {7}}},
      // aotc_elementwise.h: unsigned values arrive and leave as their bits.
      {"aotc_shift_left_u32", {"aotc_elementwise.h", 2, [](Args a) { return int64_t{aotc_shift_left_u32(u32(a[0]), u32(a[1]))}; }}},
      {"aotc_shift_right_u32", {"aotc_elementwise.h", 2, [](Args a) { return int64_t{aotc_shift_right_u32(u32(a[0]), u32(a[1]))}; }}},
      {"aotc_shift_left_u64", {"aotc_elementwise.h", 2, [](Args a) { return static_cast<int64_t>(aotc_shift_left_u64(u64(a[0]), u64(a[1]))); }}},
      {"aotc_shift_right_u64", {"aotc_elementwise.h", 2, [](Args a) { return static_cast<int64_t>(aotc_shift_right_u64(u64(a[0]), u64(a[1]))); }}},
      {"aotc_bit_and_u64", {"aotc_elementwise.h", 2, [](Args a) { return static_cast<int64_t>(aotc_bit_and_u64(u64(a[0]), u64(a[1]))); }}},
      {"aotc_bit_or_u64", {"aotc_elementwise.h", 2, [](Args a) { return static_cast<int64_t>(aotc_bit_or_u64(u64(a[0]), u64(a[1]))); }}},
      {"aotc_bit_xor_u64", {"aotc_elementwise.h", 2, [](Args a) { return static_cast<int64_t>(aotc_bit_xor_u64(u64(a[0]), u64(a[1]))); }}},
      {"aotc_bit_not_u64", {"aotc_elementwise.h", 1, [](Args a) { return static_cast<int64_t>(aotc_bit_not_u64(u64(a[0]))); }}},
      {"aotc_pow_i64", {"aotc_elementwise.h", 2, [](Args a) { return aotc_pow_i64(a[0], a[1]); }}},
      {"aotc_mod_i64", {"aotc_elementwise.h", 3, [](Args a) { return aotc_mod_i64(a[0], a[1], i32(a[2])); }}},
  };
  return kFunctions;
}

// The runtime functions with a floating-point argument or result (aotc_elementwise.h's
// float16 conversions), with every value as a double: exact for float32, float64 and
// 16-bit patterns.
struct RuntimeFloatFunction {
  const char* header;
  size_t arity;
  std::function<double(const std::vector<double>&)> evaluate;
};

const std::map<std::string, RuntimeFloatFunction>& runtime_float_functions() {
  using Args = const std::vector<double>&;
  static const std::map<std::string, RuntimeFloatFunction> kFunctions = {
      {"aotc_f16_to_f32", {"aotc_elementwise.h", 1, [](Args a) { return static_cast<double>(aotc_f16_to_f32(static_cast<uint16_t>(a[0]))); }}},
      {"aotc_f64_to_f16", {"aotc_elementwise.h", 1, [](Args a) { return static_cast<double>(aotc_f64_to_f16(a[0])); }}},
  };
  return kFunctions;
}

Expr runtime_call(const char* name, std::vector<Expr> args) { return call(name, std::move(args), DataType::Int(32)); }

}  // namespace

Expr mul_by_quantized_multiplier(Expr x, Expr multiplier, Expr shift) {
  return runtime_call("aotc_mul_by_quantized_multiplier", {std::move(x), std::move(multiplier), std::move(shift)});
}
Expr requantize(Expr x, Expr multiplier, Expr shift) {
  return runtime_call("aotc_requantize", {std::move(x), std::move(multiplier), std::move(shift)});
}
Expr requantize_right(Expr x, Expr multiplier, Expr right_shift) {
  return runtime_call("aotc_requantize_right", {std::move(x), std::move(multiplier), std::move(right_shift)});
}
Expr requantize_s8(Expr x, Expr multiplier, Expr offset, Expr shift) {
  return runtime_call("aotc_requantize_s8", {std::move(x), std::move(multiplier), std::move(offset), std::move(shift)});
}
Expr mul_by_quantized_multiplier_i64(Expr x, Expr multiplier, Expr shift) {
  return runtime_call("aotc_mul_by_quantized_multiplier_i64", {std::move(x), std::move(multiplier), std::move(shift)});
}
Expr rounding_divide_by_pot(Expr x, Expr exponent) {
  return runtime_call("aotc_rounding_divide_by_pot", {std::move(x), std::move(exponent)});
}
Expr sat_rounding_doubling_high_mul(Expr a, Expr b) {
  return runtime_call("aotc_sat_rounding_doubling_high_mul", {std::move(a), std::move(b)});
}
Expr onnx_requantize(Expr acc, Expr multiplier, Expr shift) {
  return runtime_call("aotc_onnx_requantize", {std::move(acc), std::move(multiplier), std::move(shift)});
}
Expr onnx_requantize_high(Expr acc, Expr multiplier, Expr rounding_high, Expr rounding_low, Expr high_shift) {
  return runtime_call("aotc_onnx_requantize_high", {std::move(acc), std::move(multiplier), std::move(rounding_high),
                                                    std::move(rounding_low), std::move(high_shift)});
}
Expr onnx_requantize_s8(Expr acc, Expr multiplier, Expr rounding_high, Expr rounding_low, Expr high_shift,
                        Expr zero_point) {
  return runtime_call("aotc_onnx_requantize_s8", {std::move(acc), std::move(multiplier), std::move(rounding_high),
                                                  std::move(rounding_low), std::move(high_shift), std::move(zero_point)});
}
Expr onnx_requantize_sum(Expr a, Expr a_multiplier, Expr b, Expr b_multiplier, Expr shift) {
  return runtime_call("aotc_onnx_requantize_sum",
                      {std::move(a), std::move(a_multiplier), std::move(b), std::move(b_multiplier), std::move(shift)});
}
Expr exp_on_negative_values_q5_26(Expr a) { return runtime_call("aotc_exp_on_negative_values_q5_26", {std::move(a)}); }
Expr logistic_q4_27(Expr a) { return runtime_call("aotc_logistic_q4_27", {std::move(a)}); }
Expr tanh_q4_27(Expr a) { return runtime_call("aotc_tanh_q4_27", {std::move(a)}); }
Expr logistic_s16(Expr x, int32_t multiplier, int32_t shift) {
  return runtime_call("aotc_logistic_s16", {std::move(x), make_int(multiplier), make_int(shift)});
}
Expr tanh_s16(Expr x, int32_t multiplier, int32_t shift) {
  return runtime_call("aotc_tanh_s16", {std::move(x), make_int(multiplier), make_int(shift)});
}
Expr inv_sqrt_multiplier(Expr x) { return runtime_call("aotc_inv_sqrt_multiplier", {std::move(x)}); }
Expr inv_sqrt_shift(Expr x) { return runtime_call("aotc_inv_sqrt_shift", {std::move(x)}); }
Expr hard_swish_s8(Expr x, int32_t output_multiplier, int32_t output_exponent, int32_t reluish_multiplier,
                   int32_t reluish_exponent) {
  return runtime_call("aotc_hard_swish_s8", {std::move(x), make_int(output_multiplier), make_int(output_exponent),
                                             make_int(reluish_multiplier), make_int(reluish_exponent)});
}
Expr count_leading_zeros(Expr x) { return runtime_call("aotc_count_leading_zeros", {std::move(x)}); }
Expr get_reciprocal(Expr x) { return runtime_call("aotc_get_reciprocal", {std::move(x)}); }
Expr conv_f32(Expr input, Expr output, Expr packed, int64_t c, int64_t h, int64_t w, int64_t m, int64_t oh,
              int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, Expr scratch) {
  std::vector<Expr> args = {std::move(input), std::move(output), std::move(packed)};
  for (int64_t v : {c, h, w, m, oh, ow, kh, kw, sh, sw, ph, pw}) args.push_back(make_int(v));
  args.push_back(std::move(scratch));
  return runtime_call("aotc_conv_f32", std::move(args));
}
Expr depthwise_f32(Expr input, Expr output, Expr packed, int64_t c, int64_t h, int64_t w, int64_t oh, int64_t ow,
                   int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, Expr scratch) {
  std::vector<Expr> args = {std::move(input), std::move(output), std::move(packed)};
  for (int64_t v : {c, h, w, oh, ow, kh, kw, sh, sw, ph, pw}) args.push_back(make_int(v));
  args.push_back(std::move(scratch));
  return runtime_call("aotc_depthwise_f32", std::move(args));
}
Expr dot_s8_1x4(Expr x, Expr packed_weights, Expr n, Expr acc) {
  return runtime_call("aotc_dot_s8_1x4", {std::move(x), std::move(packed_weights), std::move(n), std::move(acc)});
}
Expr dot_s8_2x2(Expr x0, Expr x1, Expr packed_weights, Expr n, Expr acc) {
  return runtime_call("aotc_dot_s8_2x2", {std::move(x0), std::move(x1), std::move(packed_weights), std::move(n), std::move(acc)});
}
Expr dot_s8_1x4_aligned(Expr x, Expr packed_weights, Expr n, Expr acc) {
  return runtime_call("aotc_dot_s8_1x4_aligned", {std::move(x), std::move(packed_weights), std::move(n), std::move(acc)});
}
Expr dot_s8_2x2_aligned(Expr x0, Expr x1_offset, Expr packed_weights, Expr n, Expr acc) {
  return runtime_call("aotc_dot_s8_2x2_aligned",
                      {std::move(x0), std::move(x1_offset), std::move(packed_weights), std::move(n), std::move(acc)});
}
Expr stage_s8x2(Expr x0, Expr x1, Expr n, Expr staged) {
  return runtime_call("aotc_stage_s8x2", {std::move(x0), std::move(x1), std::move(n), std::move(staged)});
}
Expr dot_s16_2x2(Expr staged, Expr packed_weights, Expr groups, Expr acc) {
  return runtime_call("aotc_dot_s16_2x2", {std::move(staged), std::move(packed_weights), std::move(groups), std::move(acc)});
}
Expr dw3_s8(Expr row, Expr stride, Expr outputs, Expr w02, Expr w1, Expr acc) {
  return runtime_call("aotc_dw3_s8", {std::move(row), std::move(stride), std::move(outputs), std::move(w02), std::move(w1), std::move(acc)});
}

Expr dot_f32_4x4(Expr x0, Expr x1, Expr x2, Expr x3, Expr packed_weights, Expr n, Expr acc) {
  return runtime_call("aotc_dot_f32_4x4", {std::move(x0), std::move(x1), std::move(x2), std::move(x3), std::move(packed_weights),
                                           std::move(n), std::move(acc)});
}
Expr dot_f32_1x4(Expr x, Expr packed_weights, Expr n, Expr acc) {
  return runtime_call("aotc_dot_f32_1x4", {std::move(x), std::move(packed_weights), std::move(n), std::move(acc)});
}
Expr dot_f32_1x16(Expr x, Expr packed_weights, Expr block_stride, Expr n, Expr acc) {
  return runtime_call("aotc_dot_f32_1x16",
                      {std::move(x), std::move(packed_weights), std::move(block_stride), std::move(n), std::move(acc)});
}
Expr dw_f32_4ch(Expr x, Expr channels, Expr row_step, Expr packed_taps, Expr w_skip, Expr rows, Expr taps, Expr acc) {
  return runtime_call("aotc_dw_f32_4ch", {std::move(x), std::move(channels), std::move(row_step), std::move(packed_taps),
                                          std::move(w_skip), std::move(rows), std::move(taps), std::move(acc)});
}

Expr dot_f32_strided(Expr a, Expr a_stride, Expr b, Expr b_stride, Expr n, Expr acc) {
  return runtime_call("aotc_dot_f32",
                      {std::move(a), std::move(a_stride), std::move(b), std::move(b_stride), std::move(n), std::move(acc)});
}
Expr dot_int8_strided(const std::string& kernel, Expr a, Expr a_stride, Expr a_zero_point, Expr b, Expr b_stride,
                      Expr b_zero_point, Expr n, Expr acc) {
  return runtime_call(kernel.c_str(), {std::move(a), std::move(a_stride), std::move(a_zero_point), std::move(b),
                                       std::move(b_stride), std::move(b_zero_point), std::move(n), std::move(acc)});
}

Expr mve_conv_s8(std::vector<Expr> args) { return runtime_call("aotc_mve_conv_s8", std::move(args)); }
Expr mve_depthwise_s8(std::vector<Expr> args) { return runtime_call("aotc_mve_depthwise_s8", std::move(args)); }
Expr mve_add_s8(std::vector<Expr> args) { return runtime_call("aotc_mve_add_s8", std::move(args)); }
Expr mve_window_sum_s8(Expr x, Expr row_stride, Expr rows, Expr cols, Expr channels, Expr sums) {
  return runtime_call("aotc_mve_window_sum_s8", {std::move(x), std::move(row_stride), std::move(rows), std::move(cols),
                                                 std::move(channels), std::move(sums)});
}
Expr mve_copy_s8(Expr dst, Expr src, Expr n) {
  return runtime_call("aotc_mve_copy_s8", {std::move(dst), std::move(src), std::move(n)});
}
Expr mve_fill_s8(Expr dst, Expr value, Expr n) {
  return runtime_call("aotc_mve_fill_s8", {std::move(dst), std::move(value), std::move(n)});
}
Expr mve_band_row_s8(Expr dst, Expr src, Expr valid, Expr width, Expr pad_left, Expr pad_right, Expr channels,
                     Expr zero_point) {
  return runtime_call("aotc_mve_band_row_s8", {std::move(dst), std::move(src), std::move(valid), std::move(width),
                                               std::move(pad_left), std::move(pad_right), std::move(channels),
                                               std::move(zero_point)});
}
Expr mve_gather_s8(Expr dst, Expr src, Expr row_stride, Expr rows, Expr run) {
  return runtime_call("aotc_mve_gather_s8", {std::move(dst), std::move(src), std::move(row_stride), std::move(rows), std::move(run)});
}

Expr shift_left(Expr x, Expr n, int bits) {
  DataType t = bits > 32 ? DataType::UInt(64) : DataType::UInt(32);
  return call(bits > 32 ? "aotc_shift_left_u64" : "aotc_shift_left_u32", {cast(t, std::move(x)), cast(t, std::move(n))}, t);
}
Expr shift_right(Expr x, Expr n, int bits) {
  DataType t = bits > 32 ? DataType::UInt(64) : DataType::UInt(32);
  return call(bits > 32 ? "aotc_shift_right_u64" : "aotc_shift_right_u32", {cast(t, std::move(x)), cast(t, std::move(n))}, t);
}
Expr bitwise(const std::string& op, std::vector<Expr> operands) {
  DataType t = DataType::UInt(64);
  for (Expr& x : operands) x = cast(t, std::move(x));
  return call("aotc_bit_" + op + "_u64", std::move(operands), t);
}
Expr pow_int64(Expr base, Expr exponent) {
  DataType t = DataType::Int(64);
  return call("aotc_pow_i64", {cast(t, std::move(base)), cast(t, std::move(exponent))}, t);
}
Expr mod_int64(Expr a, Expr b, bool sign_of_divisor) {
  DataType t = DataType::Int(64);
  return call("aotc_mod_i64", {cast(t, std::move(a)), cast(t, std::move(b)), make_int(sign_of_divisor ? 1 : 0, DataType::Int(32))}, t);
}
Expr float16_to_float32(Expr bits) { return call("aotc_f16_to_f32", {std::move(bits)}, DataType::Float32()); }
Expr float64_to_float16(Expr value) {
  return call("aotc_f64_to_f16", {cast(DataType::Float64(), std::move(value))}, DataType::Float16());
}

bool runtime_call_writes_argument(const std::string& name, size_t index) {
  auto it = runtime_functions().find(name);
  if (it == runtime_functions().end()) return false;
  const std::vector<size_t>& writes = it->second.writes;
  return std::find(writes.begin(), writes.end(), index) != writes.end();
}

bool evaluate_runtime_call(const std::string& name, const std::vector<int64_t>& args, int64_t* result) {
  auto it = runtime_functions().find(name);
  if (it == runtime_functions().end() || args.size() != it->second.arity) return false;
  *result = it->second.evaluate(args);
  return true;
}

std::string runtime_call_header(const std::string& name) {
  if (auto it = runtime_functions().find(name); it != runtime_functions().end()) return it->second.header;
  if (auto it = runtime_float_functions().find(name); it != runtime_float_functions().end()) return it->second.header;
  return "";
}

bool is_runtime_float_call(const std::string& name) { return runtime_float_functions().count(name) != 0; }

bool evaluate_runtime_float_call(const std::string& name, const std::vector<double>& args, double* result) {
  auto it = runtime_float_functions().find(name);
  if (it == runtime_float_functions().end() || args.size() != it->second.arity) return false;
  *result = it->second.evaluate(args);
  return true;
}

}  // namespace aotc::ir
