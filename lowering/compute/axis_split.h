// Shared by the operators that compute something over a group of axes for each index of
// the others: the reductions (reduce.cc), ArgMax / ArgMin / TopK (arg_reduce.cc), CumSum
// (cumsum.cc), the softmax family (softmax.cc), the normalizations (normalization.cc) and
// the losses (losses.cc).
//
// An AxisSplit divides a tensor's axes into the kept ones (one group per index) and the
// reduced ones (the elements of a group), and puts a full index back together from its
// two parts. The float helpers pick the C math function of a type (expf or exp) and test
// for NaN, so each kernel is written once for float32 and float64.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/graph/op_registry.h"
#include "lowering/ir/ir.h"
#include "lowering/compute/data_movement.h"  // constant_ints: axes, K, CumSum's axis

namespace aotc {

class AxisSplit {
 public:
  AxisSplit(const std::vector<int64_t>& shape, std::vector<bool> is_reduced)
      : shape_(shape), is_reduced_(std::move(is_reduced)) {
    for (size_t d = 0; d < shape.size(); ++d) (is_reduced_[d] ? reduced_ : kept_).push_back(shape[d]);
  }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<int64_t>& kept_shape() const { return kept_; }
  const std::vector<int64_t>& reduced_shape() const { return reduced_; }
  bool is_reduced(size_t axis) const { return is_reduced_[axis]; }
  // The number of elements in one group.
  int64_t group_size() const {
    int64_t n = 1;
    for (int64_t d : reduced_) n *= d;
    return n;
  }

  std::vector<ir::Expr> join(const std::vector<ir::Expr>& kept_index, const std::vector<ir::Expr>& reduced_index) const {
    std::vector<ir::Expr> index;
    size_t next_kept = 0, next_reduced = 0;
    for (bool reduced : is_reduced_) index.push_back(reduced ? reduced_index[next_reduced++] : kept_index[next_kept++]);
    return index;
  }
  // The index of a group's first element.
  std::vector<ir::Expr> first(const std::vector<ir::Expr>& kept_index) const {
    return join(kept_index, std::vector<ir::Expr>(reduced_.size(), ir::Expr(0)));
  }

  // A loop nest over the kept axes; `body` gets the kept index.
  ir::Stmt for_each_group(const std::function<ir::Stmt(const std::vector<ir::Expr>&)>& body) const;
  // A loop nest over the reduced axes of group `kept_index`; `body` gets the full index.
  ir::Stmt for_each_element(const std::vector<ir::Expr>& kept_index,
                            const std::function<ir::Stmt(const std::vector<ir::Expr>&)>& body) const;

 private:
  std::vector<int64_t> shape_;
  std::vector<bool> is_reduced_;
  std::vector<int64_t> kept_, reduced_;
};

inline ir::Stmt AxisSplit::for_each_group(const std::function<ir::Stmt(const std::vector<ir::Expr>&)>& body) const {
  std::vector<std::string> names;
  for (size_t i = 0; i < kept_.size(); ++i) names.push_back("i" + std::to_string(i));
  return ir::loop_nest(kept_, names, body);
}

inline ir::Stmt AxisSplit::for_each_element(const std::vector<ir::Expr>& kept_index,
                                            const std::function<ir::Stmt(const std::vector<ir::Expr>&)>& body) const {
  std::vector<std::string> names;
  for (size_t i = 0; i < reduced_.size(); ++i) names.push_back("k" + std::to_string(i));
  return ir::loop_nest(reduced_, names,
                       [&](const std::vector<ir::Expr>& reduced_index) { return body(join(kept_index, reduced_index)); });
}

// Kernel parameters of rank-0 tensors are one-element arrays (KernelBuilder): their index
// is {0}, not {}.
inline std::vector<ir::Expr> buffer_index(std::vector<ir::Expr> index) {
  if (index.empty()) index.push_back(0);
  return index;
}

// The C math function `name` ("exp", "log", "sqrt", "fabs", "pow") of x's float type:
// expf for float32, exp for float64.
inline ir::Expr float_call(const std::string& name, std::vector<ir::Expr> args) {
  DataType t = args.at(0).dtype();
  return ir::call(t.bits == 32 ? name + "f" : name, std::move(args), t);
}

// isnan(x) as a truth value (defined with the elementwise operators, elementwise.h).
ir::Expr is_nan(ir::Expr x);

inline ir::Expr logical_or(ir::Expr a, ir::Expr b) { return ir::binary(ir::BinaryOp::kOr, std::move(a), std::move(b)); }

// Requires input `index` to be float32 or float64 (what the softmax family, the
// normalizations and the losses compute in).
inline void require_float(const Graph& g, const Node& node, size_t index) {
  const Tensor& t = require_input(g, node, index);
  if (t.dtype != DataType::Float32() && t.dtype != DataType::Float64())
    node_error(node, "input '" + t.name + "' is " + t.dtype.str() + "; only float32 and float64 are supported here");
}

// Whether output `index` of `node` exists and is read (by a node or as a graph output):
// optional outputs nobody reads are not computed.
inline bool output_is_used(const Graph& g, const Node& node, size_t index) {
  if (index >= node.outputs.size() || node.outputs[index] == kNoTensor) return false;
  TensorId id = node.outputs[index];
  return g.is_graph_output(id) || !g.consumers(id).empty();
}

}  // namespace aotc
