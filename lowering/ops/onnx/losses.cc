// The classification losses, in inference (forward) form:
//
//   NegativeLogLikelihoodLoss  input: log-probabilities X [N, C, d1, ..., dk]; labels
//                              [N, d1, ..., dk] (int32 or int64); optional weights [C]:
//                              loss[n, d] = -X[n, labels[n, d], d] * weights[labels[n, d]]
//   SoftmaxCrossEntropyLoss    the same with X's log-softmax over axis 1 (C) in place of X:
//                              log_prob = (X - max) - log(sum(exp(X - max))), which is
//                              also the optional second output
//
// reduction: "none" gives the loss per element (labels' shape); "sum" their sum; "mean"
// (the default) their sum divided by the sum of the weights of the elements counted (the
// number of elements when there are no weights). A label equal to ignore_index (an
// optional attribute) contributes 0 and no weight; a mean over no counted element is
// 0 / 0 (NaN), as in ONNX's reference.
//
// The labels are run-time data: every label that is not ignore_index must lie in
// [0, C), which the kernel checks first, before writing anything (an out-of-range label
// returns AOTC_ERR_INVALID_ARGUMENT instead of reading outside X or the weights). Then
// one loop nest runs over the labels' positions (X's index without axis 1), with the sums
// in local accumulators; SoftmaxCrossEntropyLoss computes each position's max and sum of
// exponentials over the C classes first. Types: float32 and float64 for X and weights.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lowering/ir/builtins.h"
#include "lowering/compute/axis_split.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;
using Index = std::vector<Expr>;

// Returns AOTC_ERR_INVALID_ARGUMENT from the kernel unless 0 <= label < classes.
ir::Stmt check_label(const Expr& label, int64_t classes) {
  DataType t = label.dtype();
  Expr outside = logical_or(label < ir::make_int(0, t), label >= ir::make_int(classes, t));
  return ir::if_then_else(outside, ir::return_stmt(ir::call(ir::builtin::kErrInvalidArgument, {}, DataType::Int(32))));
}

bool is_softmax_loss(const Node& node) { return node.op == "SoftmaxCrossEntropyLoss"; }

std::string reduction_of(const Node& node) {
  std::string reduction = node.attr_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    node_error(node, "reduction must be none, sum or mean, got '" + reduction + "'");
  return reduction;
}

// The class axis (1) is the one each label selects along.
std::vector<bool> class_axis(size_t rank) {
  std::vector<bool> is_reduced(rank, false);
  is_reduced[1] = true;
  return is_reduced;
}

void infer_loss(Graph& g, Node& node) {
  require_float(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  if (x.shape.size() < 2) node_error(node, "input '" + x.name + "' must have rank >= 2 (N x C x ...), got " + shape_str(x.shape));
  const Tensor& labels = require_input(g, node, 1);
  if (labels.dtype != DataType::Int(32) && labels.dtype != DataType::Int(64))
    node_error(node, "labels '" + labels.name + "' are " + labels.dtype.str() + "; int32 or int64 are required");
  std::vector<int64_t> expected = x.shape;
  expected.erase(expected.begin() + 1);
  if (labels.shape != expected)
    node_error(node, "labels '" + labels.name + "' must have shape " + shape_str(expected) + " (the input's without axis 1), got " +
                         shape_str(labels.shape));
  if (node.input(2) != kNoTensor) {
    const Tensor& weights = g.tensor(node.inputs[2]);
    if (weights.dtype != x.dtype || weights.shape != std::vector<int64_t>{x.shape[1]})
      node_error(node, "weights '" + weights.name + "' must be " + x.dtype.str() + " of shape [" + std::to_string(x.shape[1]) +
                           "], got " + weights.dtype.str() + " " + shape_str(weights.shape));
  }
  if (node.has_attr("ignore_index") && labels.dtype == DataType::Int(32)) {
    int64_t ignored = node.attr_int("ignore_index", 0);
    if (ignored < INT32_MIN || ignored > INT32_MAX)
      node_error(node, "ignore_index " + std::to_string(ignored) + " does not fit the int32 labels");
  }
  size_t outputs = is_softmax_loss(node) ? 2 : 1;
  if (node.outputs.size() > outputs)
    node_error(node, node.op + " has at most " + std::to_string(outputs) + " output" + (outputs > 1 ? "s" : ""));
  set_output(g, node, 0, x.dtype, reduction_of(node) == "none" ? labels.shape : std::vector<int64_t>{});
  if (node.outputs.size() > 1 && node.outputs[1] != kNoTensor) set_output(g, node, 1, x.dtype, x.shape);
}

// Runs `body` with the log-softmax over the classes of position `kept`, given as the
// value at a full index of X: (x - max) - log(sum(exp(x - max))), with the max and the
// log of the sum computed first, into locals.
ir::Stmt with_log_softmax(const AxisSplit& split, const ir::Buffer& x, const Index& kept,
                          const std::function<ir::Stmt(const std::function<Expr(const Index&)>&)>& body) {
  DataType t = x->dtype;
  return with_accumulator("row_max", ir::load(x, split.first(kept)), [&](const Accumulator& row_max) {
    ir::Stmt find_max = split.for_each_element(kept, [&](const Index& index) {
      return row_max.set(ir::max(row_max.value(), ir::load(x, index)));
    });
    ir::Stmt rest = with_accumulator("row_sum", ir::make_zero(t), [&](const Accumulator& row_sum) {
      ir::Stmt sum = split.for_each_element(kept, [&](const Index& index) {
        return row_sum.set(row_sum.value() + float_call("exp", {ir::load(x, index) - row_max.value()}));
      });
      ir::Var log_sum = ir::make_var("log_sum", t);
      auto log_softmax = [&](const Index& index) { return (ir::load(x, index) - row_max.value()) - ir::var_expr(log_sum); };
      return ir::seq({sum, ir::let(log_sum, float_call("log", {row_sum.value()}), body(log_softmax))});
    });
    return ir::seq({find_max, rest});
  });
}

LoweredOp lower_loss(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer labels = kb.input(1, "labels");
  ir::Buffer weights = node.input(2) != kNoTensor ? kb.input(2, "weights") : ir::Buffer();
  ir::Buffer loss = kb.output(0, "loss");
  bool softmax = is_softmax_loss(node);
  ir::Buffer log_prob = softmax && output_is_used(g, node, 1) ? kb.output(1, "log_prob") : ir::Buffer();
  const std::vector<int64_t>& shape = g.tensor(node.inputs[0]).shape;
  AxisSplit split(shape, class_axis(shape.size()));
  int64_t classes = shape[1];
  DataType t = x->dtype, label_type = labels->dtype;
  std::string reduction = reduction_of(node);
  bool has_ignored = node.has_attr("ignore_index");
  Expr ignored = ir::make_int(node.attr_int("ignore_index", 0), label_type);
  // `then_case` for a label that counts (is not ignore_index), else `else_case`.
  auto when_counted = [&](const Expr& label, ir::Stmt then_case, ir::Stmt else_case = ir::Stmt()) {
    return has_ignored ? ir::if_then_else(label != ignored, std::move(then_case), std::move(else_case)) : then_case;
  };

  ir::Stmt check_labels = ir::loop_nest(labels->shape, {}, [&](const Index& position) {
    Expr label = ir::load(labels, position);
    return when_counted(label, check_label(label, classes));
  });

  // The loss of every position, then its reduction. `loss_sum` and `weight_sum` are
  // empty for reduction "none".
  auto losses = [&](const Accumulator* loss_sum, const Accumulator* weight_sum) {
    return split.for_each_group([&](const Index& kept) {
      Expr label = ir::load(labels, kept);
      Expr label_class = ir::cast(DataType::Int(32), label);
      Expr weight = weights ? ir::load(weights, {label_class}) : ir::make_float(1.0, t);
      // The loss of this position from the log-probability of its label's class.
      auto position_loss = [&](const Expr& log_probability) {
        Expr value = -log_probability;
        if (weights) value = weight * value;
        if (!loss_sum) return when_counted(label, ir::store(loss, kept, value), ir::store(loss, kept, ir::make_zero(t)));
        ir::Stmt add = loss_sum->set(loss_sum->value() + value);
        if (weight_sum) add = ir::seq({add, weight_sum->set(weight_sum->value() + weight)});
        return when_counted(label, add);
      };
      Index at_label = split.join(kept, {label_class});
      if (!softmax) return position_loss(ir::load(x, at_label));
      return with_log_softmax(split, x, kept, [&](const std::function<Expr(const Index&)>& log_softmax) {
        ir::Stmt write_log_prob;
        if (log_prob)
          write_log_prob = split.for_each_element(
              kept, [&](const Index& index) { return ir::store(log_prob, index, log_softmax(index)); });
        return ir::seq({write_log_prob, position_loss(log_softmax(at_label))});
      });
    });
  };

  ir::Stmt body;
  if (reduction == "none") {
    body = losses(nullptr, nullptr);
  } else {
    // The mean divides by the number of positions when every position weighs 1.
    bool count_weights = reduction == "mean" && (weights || has_ignored);
    body = with_accumulator("loss_sum", ir::make_zero(t), [&](const Accumulator& loss_sum) {
      if (!count_weights) {
        Expr total = loss_sum.value();
        if (reduction == "mean") total = total / ir::make_float(static_cast<double>(num_elements(labels->shape)), t);
        return ir::seq({losses(&loss_sum, nullptr), ir::store(loss, {0}, total)});
      }
      return with_accumulator("weight_sum", ir::make_zero(t), [&](const Accumulator& weight_sum) {
        return ir::seq({losses(&loss_sum, &weight_sum), ir::store(loss, {0}, loss_sum.value() / weight_sum.value())});
      });
    });
  }
  return kb.finish(ir::seq({check_labels, body}));
}

AOTC_REGISTER_OP("NegativeLogLikelihoodLoss", kernel_op(infer_loss, lower_loss));
AOTC_REGISTER_OP("SoftmaxCrossEntropyLoss", kernel_op(infer_loss, lower_loss));

}  // namespace
}  // namespace aotc
