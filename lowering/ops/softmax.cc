// Softmax: Y = exp(X - max) / sum(exp(X - max)) over a group of axes, for each index of
// the remaining ones.
//
// Which axes are normalized together changed in opset 13:
//   opset < 13  the input is coerced to 2-D at `axis` (default 1): each softmax runs over
//               the whole trailing block X[i0, ..., i(axis-1), :, ..., :];
//   opset >= 13 each softmax runs along the single axis `axis` (default -1).
// Both are lowered the same way: a loop nest over the kept axes, and inside it three
// passes over the normalized axes (max, exponentials and their sum, division), with the
// max and the sum in local scalars. Subtracting the max keeps expf from overflowing; the
// exponentials are stored in Y and divided in place, which is also the reference's
// order of operations.
#include <algorithm>
#include <functional>

#include "lowering/ops/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

// is_normalized[d] says whether axis d is one of the axes a single softmax spans.
std::vector<bool> normalized_axes(const Graph& g, const Node& node, int64_t rank) {
  std::vector<bool> is_normalized(static_cast<size_t>(rank), false);
  if (g.opset < 13) {
    int64_t axis = normalize_axis(node, node.attr_int("axis", 1), rank);
    std::fill(is_normalized.begin() + axis, is_normalized.end(), true);
  } else {
    is_normalized[static_cast<size_t>(normalize_axis(node, node.attr_int("axis", -1), rank))] = true;
  }
  return is_normalized;
}

void infer_softmax(Graph& g, Node& node) {
  require_float32(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  if (x.shape.empty()) node_error(node, "Softmax needs an input of rank >= 1");
  normalized_axes(g, node, static_cast<int64_t>(x.shape.size()));  // validates axis
  set_output(g, node, 0, x.dtype, x.shape);
}

// Splits a shape into the kept axes (one softmax per index) and the normalized ones, and
// puts an index back together from its two parts.
class AxisSplit {
 public:
  AxisSplit(const std::vector<int64_t>& shape, std::vector<bool> is_normalized)
      : is_normalized_(std::move(is_normalized)) {
    for (size_t d = 0; d < shape.size(); ++d) (is_normalized_[d] ? normalized_ : kept_).push_back(shape[d]);
  }
  const std::vector<int64_t>& kept_shape() const { return kept_; }
  const std::vector<int64_t>& normalized_shape() const { return normalized_; }

  std::vector<Expr> join(const std::vector<Expr>& kept_index, const std::vector<Expr>& normalized_index) const {
    std::vector<Expr> index;
    size_t next_kept = 0, next_normalized = 0;
    for (bool normalized : is_normalized_)
      index.push_back(normalized ? normalized_index[next_normalized++] : kept_index[next_kept++]);
    return index;
  }

 private:
  std::vector<bool> is_normalized_;
  std::vector<int64_t> kept_, normalized_;
};

std::vector<std::string> numbered(const std::string& prefix, size_t count) {
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) names.push_back(prefix + std::to_string(i));
  return names;
}

LoweredOp lower_softmax(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  KernelBuilder kb(ctx);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  if (y->num_elements() == 0) return kb.finish(ir::seq({}));
  AxisSplit split(x->shape, normalized_axes(g, node, static_cast<int64_t>(x->shape.size())));
  std::vector<std::string> kept_names = numbered("i", split.kept_shape().size());
  std::vector<std::string> normalized_names = numbered("k", split.normalized_shape().size());

  ir::Stmt body = ir::loop_nest(split.kept_shape(), kept_names, [&](const std::vector<Expr>& kept) {
    ir::Buffer row_max = ir::make_buffer("row_max", DataType::Float32(), {1}, "local");
    ir::Buffer row_sum = ir::make_buffer("row_sum", DataType::Float32(), {1}, "local");
    Expr current_max = ir::load(row_max, {0}), current_sum = ir::load(row_sum, {0});
    // Runs `step` on every element of this softmax, with its full index.
    auto over_row = [&](const std::function<ir::Stmt(const std::vector<Expr>&)>& step) {
      return ir::loop_nest(split.normalized_shape(), normalized_names,
                           [&](const std::vector<Expr>& normalized) { return step(split.join(kept, normalized)); });
    };
    std::vector<Expr> first(split.normalized_shape().size(), Expr(0));

    ir::Stmt find_max = ir::seq({
        ir::store(row_max, {0}, ir::load(x, split.join(kept, first))),
        over_row([&](const std::vector<Expr>& index) {
          return ir::store(row_max, {0}, ir::max(current_max, ir::load(x, index)));
        }),
    });
    ir::Stmt exponentiate_and_sum = ir::seq({
        ir::store(row_sum, {0}, ir::make_float(0.0)),
        over_row([&](const std::vector<Expr>& index) {
          Expr shifted = ir::load(x, index) - current_max;
          return ir::seq({ir::store(y, index, ir::call("expf", {shifted}, DataType::Float32())),
                          ir::store(row_sum, {0}, current_sum + ir::load(y, index))});
        }),
    });
    ir::Stmt normalize = over_row([&](const std::vector<Expr>& index) {
      return ir::store(y, index, kb.epilogue(ir::load(y, index) / current_sum, index));
    });
    return ir::allocate(row_max, ir::allocate(row_sum, ir::seq({find_max, exponentiate_and_sum, normalize})));
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("Softmax", kernel_op(infer_softmax, lower_softmax));

}  // namespace
}  // namespace aotc
