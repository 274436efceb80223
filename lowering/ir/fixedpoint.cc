#include "lowering/ir/fixedpoint.h"

#include <map>

#include "runtime-c/aotc_quant_softmax.h"

namespace aotc {

namespace {

using UnaryFixedPointFunction = int32_t (*)(int32_t);

// The IR name of each function is its C name.
const std::map<std::string, UnaryFixedPointFunction>& unary_functions() {
  static const std::map<std::string, UnaryFixedPointFunction> kFunctions = {
      {"aotc_exp_on_negative_values_q5_26", aotc_exp_on_negative_values_q5_26},
      {"aotc_count_leading_zeros", aotc_count_leading_zeros},
      {"aotc_get_reciprocal", aotc_get_reciprocal},
  };
  return kFunctions;
}

}  // namespace

namespace ir {
Expr exp_on_negative_values_q5_26(Expr a) {
  return call("aotc_exp_on_negative_values_q5_26", {std::move(a)}, DataType::Int(32));
}
Expr count_leading_zeros(Expr x) { return call("aotc_count_leading_zeros", {std::move(x)}, DataType::Int(32)); }
Expr get_reciprocal(Expr x) { return call("aotc_get_reciprocal", {std::move(x)}, DataType::Int(32)); }
}  // namespace ir

bool evaluate_fixedpoint_call(const std::string& name, const std::vector<int32_t>& args, int32_t* result) {
  auto it = unary_functions().find(name);
  if (it == unary_functions().end() || args.size() != 1) return false;
  *result = it->second(args[0]);
  return true;
}

}  // namespace aotc
