// The normalizations by mean and variance, in inference mode:
//
//   BatchNormalization         per channel (axis 1), with given statistics:
//                              Y = (X - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]
//   LayerNormalization         over the axes from `axis` (default -1) to the last:
//                              Y = (X - mean) / sqrt(var + epsilon) * Scale + B; the optional
//                              outputs Mean and InvStdDev = 1 / sqrt(var + epsilon) have X's
//                              shape with 1 in the normalized axes
//   RMSNormalization           the same axes, not centred: Y = X / sqrt(mean(X^2) + epsilon) * scale
//   InstanceNormalization      over the spatial axes 2.. of each (n, c):
//                              Y = (X - mean) / sqrt(var + epsilon) * scale[c] + B[c]
//   GroupNormalization         over channel groups: the C channels of each n split into
//                              num_groups blocks, each normalized with its spatial axes;
//                              scale and bias per group (opset 18) or per channel (opset 21)
//   MeanVarianceNormalization  over `axes` (default [0, 2, 3]), no affine map:
//                              Y = (X - mean) / (sqrt(var) + 1e-9)
//
// BatchNormalization's statistics are operands of the kernel rather than folded into a
// scale and a shift, because they need not be constants (the ONNX tests feed them as graph
// inputs), and because this order of operations is the one ONNX's reference computes, so
// results agree to rounding. A BatchNormalization behind a Conv with constant operands
// never gets here: the fusion pass folds it into the convolution's weights. Training mode
// (computing batch statistics, updating running ones) is rejected.
//
// The others compute their statistics in one kernel (`standardize`): for each group, the
// mean, then the mean of the squared deviations from it (two passes over the group, which
// is more accurate than E[x^2] - E[x]^2), then 1 / sqrt(var + epsilon) once, and each
// element is (x - mean) times that, then scaled and shifted in X's type. This is the order
// of ONNX's reference for LayerNormalization; groups of 64 elements or more sum with
// Kahan's compensation (kCompensatedFrom). The statistics are computed in the type
// `stash_type` names (LayerNormalization, RMSNormalization, GroupNormalization from opset
// 21; float32 by default, as in ONNX), otherwise in X's type. Scale and bias broadcast to
// X numpy-style (LayerNormalization, RMSNormalization) or are one value per channel or
// group. Types: float32 and float64 (BatchNormalization: float32).
#include <string>
#include <vector>

#include "lowering/compute/axis_split.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;
using Index = std::vector<Expr>;

// ---------------------------------------------------------------- BatchNormalization

// The operands after X, in ONNX's input order.
constexpr const char* kStatisticNames[] = {"scale", "B", "input_mean", "input_var"};

void reject_training(const Graph& g, const Node& node) {
  if (node.attr_int("training_mode", 0) != 0)
    node_error(node, "training_mode=1 is not supported (inference only: batch statistics are not computed)");
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (node.outputs[i] != kNoTensor)
      node_error(node, "output '" + g.tensor(node.outputs[i]).name +
                           "' (running or saved statistics) is only produced in training mode; inference only");
  if (node.attr_int("spatial", 1) == 0)
    node_error(node, "spatial=0 (statistics per activation rather than per channel) is not supported");
}

void infer_batch_norm(Graph& g, Node& node) {
  reject_training(g, node);
  require_float32(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  if (x.shape.size() < 2)
    node_error(node, "input X must have rank >= 2 (N x C x ...), got " + shape_str(x.shape));
  int64_t channels = x.shape[1];
  for (size_t i = 1; i <= 4; ++i) {
    require_float32(g, node, i);
    const Tensor& statistic = g.tensor(node.inputs[i]);
    if (statistic.shape != std::vector<int64_t>{channels})
      node_error(node, std::string(kStatisticNames[i - 1]) + " must have shape [" + std::to_string(channels) +
                           "] (one value per channel), got " + shape_str(statistic.shape));
  }
  set_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_batch_norm(const Graph&, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer scale = kb.input(1, "scale");
  ir::Buffer bias = kb.input(2, "B");
  ir::Buffer mean = kb.input(3, "mean");
  ir::Buffer var = kb.input(4, "var");
  ir::Buffer y = kb.output(0, "Y");
  Expr epsilon = ir::make_float(node.attr_float("epsilon", 1e-5));

  const std::vector<int64_t>& shape = x->shape;
  std::vector<int64_t> batch_and_channel(shape.begin(), shape.begin() + 2);
  std::vector<int64_t> spatial(shape.begin() + 2, shape.end());
  std::vector<std::string> spatial_names;
  for (size_t i = 0; i < spatial.size(); ++i) spatial_names.push_back("d" + std::to_string(i));

  ir::Stmt body = ir::loop_nest(batch_and_channel, {"n", "c"}, [&](const std::vector<Expr>& nc) {
    Expr c = nc[1];
    ir::Var std_dev = ir::make_var("std_dev", DataType::Float32());
    ir::Stmt per_element = ir::loop_nest(spatial, spatial_names, [&](const std::vector<Expr>& d) {
      std::vector<Expr> index = nc;
      index.insert(index.end(), d.begin(), d.end());
      Expr normalized = (ir::load(x, index) - ir::load(mean, {c})) / ir::var_expr(std_dev);
      Expr value = normalized * ir::load(scale, {c}) + ir::load(bias, {c});
      return ir::store(y, index, kb.epilogue(value, index));
    });
    Expr variance = ir::load(var, {c}) + epsilon;
    return ir::let(std_dev, ir::call("sqrtf", {variance}, DataType::Float32()), per_element);
  });
  return kb.finish(body);
}

// ---------------------------------------------------------------- the shared kernel

// How one operator takes its statistics. The statistics are over the groups of `split`,
// whose shape is X's, or for GroupNormalization a view of X with the channel axis split
// in two ([N, groups, channels per group, ...]); `x_index` maps an index of that shape to
// X's index.
struct Standardization {
  AxisSplit split;
  std::function<Index(const Index&)> x_index = [](const Index& index) { return index; };
  DataType compute = DataType::Float32();  // the type the statistics are computed in
  bool center = true;                      // subtract the mean (all but RMSNormalization)
  double epsilon = 1e-5;
  bool epsilon_after_root = false;  // MeanVarianceNormalization: 1 / (sqrt(var) + epsilon)
};

// Writes element `x_index` of the output from the standardized value (in the compute type).
using WriteFn = std::function<ir::Stmt(const Index& x_index, const Expr& standardized)>;
// Writes a group's statistics (kept: the group's index on the kept axes).
using StatisticsFn = std::function<ir::Stmt(const Index& kept, const Expr& mean, const Expr& inv_std_dev)>;

// Groups of this many elements or more sum with Kahan's compensation (reduction.h): a
// plain float32 sum of n values errs by up to about n units in the last place, and the
// mean's error is multiplied by 1 / std-dev in every output; at 3,332 values near 130 with
// a spread of 0.05 (difftest seed 1044488, then finding layer_norm_large_group) the outputs
// were 3e-3 off. Below this size the plain sum's error stays within ONNX's tolerances and
// costs a quarter of the additions.
constexpr int64_t kCompensatedFrom = 64;

ir::Stmt standardize(const Standardization& s, const ir::Buffer& x, const WriteFn& write,
                     const StatisticsFn& write_statistics) {
  DataType t = s.compute;
  Expr count = ir::make_float(static_cast<double>(s.split.group_size()), t);
  auto value = [&](const Index& index) { return ir::cast(t, ir::load(x, buffer_index(s.x_index(index)))); };
  // A group's sums: plain below kCompensatedFrom elements, compensated from there on.
  struct GroupSum {
    Accumulator plain;
    CompensatedSum compensated;
    bool is_compensated = false;
    Expr value() const { return is_compensated ? compensated.value() : plain.value(); }
    ir::Stmt add(const Expr& v) const { return is_compensated ? compensated.add(v) : plain.set(plain.value() + v); }
  };
  auto with_group_sum = [&](const std::string& name, const std::function<ir::Stmt(const GroupSum&)>& body) {
    if (s.split.group_size() < kCompensatedFrom)
      return with_accumulator(name, ir::make_zero(t), [&](const Accumulator& a) { return body(GroupSum{a, {}, false}); });
    return with_compensated_sum(name, t, [&](const CompensatedSum& c) { return body(GroupSum{{}, c, true}); });
  };
  return s.split.for_each_group([&](const Index& kept) {
    // Runs `body` with the group's mean (0 when not centred) as hi + lo (lo is 0 for the
    // plain sums; for compensated ones it keeps what rounding the mean to hi loses).
    auto with_mean = [&](const std::function<ir::Stmt(const Expr& hi, const Expr& lo)>& body) {
      if (!s.center) return body(ir::make_zero(t), Expr());
      return with_group_sum("sum", [&](const GroupSum& sum) {
        ir::Stmt add = s.split.for_each_element(kept, [&](const Index& index) { return sum.add(value(index)); });
        if (sum.is_compensated) return ir::seq({add, divided_as_pair(sum.compensated, s.split.group_size(), body)});
        ir::Var mean = ir::make_var("mean", t);
        return ir::seq({add, ir::let(mean, sum.value() / count, body(ir::var_expr(mean), Expr()))});
      });
    };
    return with_mean([&](const Expr& mean, const Expr& mean_lo) {
      auto centred = [&](const Index& index) {
        if (!s.center) return value(index);
        return mean_lo ? value(index) - mean - mean_lo : value(index) - mean;
      };
      return with_group_sum("squares", [&](const GroupSum& squares) {
        ir::Stmt add = s.split.for_each_element(kept, [&](const Index& index) {
          Expr deviation = centred(index);
          return squares.add(deviation * deviation);
        });
        Expr variance = squares.value() / count, epsilon = ir::make_float(s.epsilon, t);
        Expr root = s.epsilon_after_root ? float_call("sqrt", {variance}) + epsilon : float_call("sqrt", {variance + epsilon});
        ir::Var inv_std_dev = ir::make_var("inv_std_dev", t);
        Expr inv = ir::var_expr(inv_std_dev);
        ir::Stmt apply = s.split.for_each_element(kept, [&](const Index& index) {
          return write(s.x_index(index), centred(index) * inv);
        });
        ir::Stmt statistics = write_statistics ? write_statistics(kept, mean, inv) : ir::Stmt();
        return ir::seq({add, ir::let(inv_std_dev, ir::make_float(1.0, t) / root, ir::seq({apply, statistics}))});
      });
    });
  });
}

// ---------------------------------------------------------------- checks shared by the shape functions

// The statistics' type from `stash_type` (1 = float32, 11 = float64).
DataType stash_type(const Node& node) {
  int64_t stash = node.attr_int("stash_type", 1);
  if (stash == 1) return DataType::Float32();
  if (stash == 11) return DataType::Float64();
  node_error(node, "stash_type " + std::to_string(stash) + " is not supported (1: float32 or 11: float64)");
}

// Input `index` must have X's type.
const Tensor& require_like_x(const Graph& g, const Node& node, size_t index, const std::string& what) {
  const Tensor& x = g.tensor(node.inputs[0]);
  const Tensor& t = require_input(g, node, index);
  if (t.dtype != x.dtype) node_error(node, what + " '" + t.name + "' is " + t.dtype.str() + ", X is " + x.dtype.str());
  return t;
}

// Input `index`, if present, must broadcast to X's shape (numpy-style, one way).
void require_broadcasts_to_x(const Graph& g, const Node& node, size_t index, const std::string& what) {
  if (node.input(index) == kNoTensor) return;
  const Tensor& x = g.tensor(node.inputs[0]);
  const Tensor& t = require_like_x(g, node, index, what);
  bool fits = t.shape.size() <= x.shape.size();
  for (size_t j = 0; fits && j < t.shape.size(); ++j) {
    int64_t d = t.shape[t.shape.size() - 1 - j];
    fits = d == 1 || d == x.shape[x.shape.size() - 1 - j];
  }
  if (!fits)
    node_error(node, what + " '" + t.name + "' of shape " + shape_str(t.shape) + " does not broadcast to X's shape " +
                         shape_str(x.shape));
}

// Input `index` must hold `count` values, one per channel or group.
void require_vector(const Graph& g, const Node& node, size_t index, const std::string& what, int64_t count,
                    const std::string& per) {
  const Tensor& t = require_like_x(g, node, index, what);
  if (t.shape != std::vector<int64_t>{count})
    node_error(node, what + " '" + t.name + "' must have shape [" + std::to_string(count) + "] (one value per " + per +
                         "), got " + shape_str(t.shape));
}

const Tensor& require_rank_at_least(const Graph& g, const Node& node, size_t rank) {
  require_float(g, node, 0);
  const Tensor& x = g.tensor(node.inputs[0]);
  if (x.shape.size() < rank)
    node_error(node, "input X must have rank >= " + std::to_string(rank) + ", got shape " + shape_str(x.shape));
  return x;
}

// The axes from `axis` to the last.
std::vector<bool> trailing_axes(const Node& node, const std::vector<int64_t>& shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t axis = normalize_axis(node, node.attr_int("axis", -1), rank);
  std::vector<bool> is_reduced(shape.size(), false);
  for (int64_t d = axis; d < rank; ++d) is_reduced[static_cast<size_t>(d)] = true;
  return is_reduced;
}

// The axes from 2 (the spatial ones) to the last.
std::vector<bool> spatial_axes(size_t rank) {
  std::vector<bool> is_reduced(rank, false);
  for (size_t d = 2; d < rank; ++d) is_reduced[d] = true;
  return is_reduced;
}

// Y = epilogue(standardized in X's type * scale + bias), scale and bias loaded by `at`.
WriteFn affine_write(KernelBuilder& kb, const ir::Buffer& y, const std::function<Expr(const Index&)>& scale,
                     const std::function<Expr(const Index&)>& bias) {
  return [&kb, y, scale, bias](const Index& index, const Expr& standardized) {
    Expr value = ir::cast(y->dtype, standardized) * scale(index);
    if (bias) value = value + bias(index);
    return ir::store(y, buffer_index(index), kb.epilogue(value, buffer_index(index)));
  };
}

// ---------------------------------------------------------------- LayerNormalization, RMSNormalization

void infer_layer_norm(Graph& g, Node& node) {
  const Tensor& x = require_rank_at_least(g, node, 1);
  trailing_axes(node, x.shape);  // validates axis
  DataType compute = stash_type(node);
  require_input(g, node, 1);  // Scale is required, B optional
  require_broadcasts_to_x(g, node, 1, "Scale");
  if (node.op == "LayerNormalization") require_broadcasts_to_x(g, node, 2, "B");
  if (node.op == "RMSNormalization" && node.outputs.size() > 1)
    node_error(node, "RMSNormalization has one output, got " + std::to_string(node.outputs.size()));
  std::vector<int64_t> shape = x.shape;
  set_output(g, node, 0, x.dtype, shape);
  std::vector<bool> reduced = trailing_axes(node, shape);
  std::vector<int64_t> statistics_shape = shape;
  for (size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) statistics_shape[d] = 1;
  for (size_t i = 1; i < node.outputs.size() && i < 3; ++i)
    if (node.outputs[i] != kNoTensor) set_output(g, node, i, compute, statistics_shape);
  if (node.outputs.size() > 3) node_error(node, "LayerNormalization has at most 3 outputs");
}

LoweredOp lower_layer_norm(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer scale = kb.input(1, "Scale");
  ir::Buffer bias = node.input(2) != kNoTensor ? kb.input(2, "B") : ir::Buffer();
  ir::Buffer y = kb.output(0, "Y");
  const std::vector<int64_t>& shape = g.tensor(node.inputs[0]).shape;
  Standardization s{AxisSplit(shape, trailing_axes(node, shape))};
  s.compute = stash_type(node);
  s.center = node.op == "LayerNormalization";
  s.epsilon = node.attr_float("epsilon", 1e-5);
  std::function<Expr(const Index&)> load_bias;
  if (bias) load_bias = [bias](const Index& index) { return broadcast_load(bias, index); };
  WriteFn write = affine_write(kb, y, [scale](const Index& index) { return broadcast_load(scale, index); }, load_bias);

  ir::Buffer mean_out = output_is_used(g, node, 1) ? kb.output(1, "Mean") : ir::Buffer();
  ir::Buffer inv_std_out = output_is_used(g, node, 2) ? kb.output(2, "InvStdDev") : ir::Buffer();
  StatisticsFn statistics;
  if (mean_out || inv_std_out) {
    statistics = [&](const Index& kept, const Expr& mean, const Expr& inv_std_dev) {
      Index at = buffer_index(s.split.first(kept));
      return ir::seq({mean_out ? ir::store(mean_out, at, mean) : ir::Stmt(),
                      inv_std_out ? ir::store(inv_std_out, at, inv_std_dev) : ir::Stmt()});
    };
  }
  return kb.finish(standardize(s, x, write, statistics));
}

// ---------------------------------------------------------------- InstanceNormalization, GroupNormalization

void infer_instance_norm(Graph& g, Node& node) {
  const Tensor& x = require_rank_at_least(g, node, 2);
  require_vector(g, node, 1, "scale", x.shape[1], "channel");
  require_vector(g, node, 2, "B", x.shape[1], "channel");
  set_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_instance_norm(const Graph&, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer scale = kb.input(1, "scale");
  ir::Buffer bias = kb.input(2, "B");
  ir::Buffer y = kb.output(0, "Y");
  Standardization s{AxisSplit(x->shape, spatial_axes(x->shape.size()))};
  s.compute = x->dtype;
  s.epsilon = node.attr_float("epsilon", 1e-5);
  auto per_channel = [](const ir::Buffer& b) { return [b](const Index& index) { return ir::load(b, {index[1]}); }; };
  return kb.finish(standardize(s, x, affine_write(kb, y, per_channel(scale), per_channel(bias)), nullptr));
}

int64_t group_count(const Graph& g, const Node& node) {
  const Tensor& x = g.tensor(node.inputs[0]);
  if (!node.has_attr("num_groups")) node_error(node, "the attribute num_groups is required");
  int64_t groups = node.attr_int("num_groups", 0);
  if (groups <= 0 || x.shape[1] % groups != 0)
    node_error(node, "num_groups " + std::to_string(groups) + " must be positive and divide the " +
                         std::to_string(x.shape[1]) + " channels");
  return groups;
}

// Scale and bias: one per channel from opset 21, one per group before.
bool per_channel_affine(const Graph& g) { return g.opset >= 21; }

void infer_group_norm(Graph& g, Node& node) {
  const Tensor& x = require_rank_at_least(g, node, 2);
  int64_t groups = group_count(g, node);
  bool per_channel = per_channel_affine(g);
  int64_t count = per_channel ? x.shape[1] : groups;
  std::string per = per_channel ? "channel (opset >= 21)" : "group (opset < 21)";
  require_vector(g, node, 1, "scale", count, per);
  require_vector(g, node, 2, "bias", count, per);
  if (per_channel) stash_type(node);
  set_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_group_norm(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer scale = kb.input(1, "scale");
  ir::Buffer bias = kb.input(2, "bias");
  ir::Buffer y = kb.output(0, "Y");
  int64_t groups = group_count(g, node);
  int64_t per_group = x->shape[1] / groups;
  // The view [N, groups, channels per group, spatial...].
  std::vector<int64_t> view = {x->shape[0], groups, per_group};
  view.insert(view.end(), x->shape.begin() + 2, x->shape.end());
  Standardization s{AxisSplit(view, spatial_axes(view.size()))};
  s.x_index = [per_group](const Index& v) {
    Index index = {v[0], v[1] * ir::make_int(per_group) + v[2]};
    index.insert(index.end(), v.begin() + 3, v.end());
    return index;
  };
  bool per_channel = per_channel_affine(g);
  s.compute = per_channel ? stash_type(node) : x->dtype;
  s.epsilon = node.attr_float("epsilon", 1e-5);
  // The affine map sees X's index: the channel is index[1], its group index[1] / per_group.
  auto load = [per_channel, per_group](const ir::Buffer& b) {
    return [b, per_channel, per_group](const Index& index) {
      return ir::load(b, {per_channel ? index[1] : index[1] / ir::make_int(per_group)});
    };
  };
  return kb.finish(standardize(s, x, affine_write(kb, y, load(scale), load(bias)), nullptr));
}

// ---------------------------------------------------------------- MeanVarianceNormalization

std::vector<bool> mvn_axes(const Graph& g, const Node& node) {
  const Tensor& x = g.tensor(node.inputs[0]);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> is_reduced(x.shape.size(), false);
  for (int64_t axis : node.attr_ints("axes", {0, 2, 3})) {
    size_t d = static_cast<size_t>(normalize_axis(node, axis, rank));
    if (is_reduced[d]) node_error(node, "axis " + std::to_string(axis) + " is listed twice");
    is_reduced[d] = true;
  }
  return is_reduced;
}

void infer_mvn(Graph& g, Node& node) {
  const Tensor& x = require_rank_at_least(g, node, 1);
  mvn_axes(g, node);
  set_output(g, node, 0, x.dtype, x.shape);
}

LoweredOp lower_mvn(const Graph& g, const Node& node, KernelBuilder& kb) {
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  Standardization s{AxisSplit(x->shape, mvn_axes(g, node))};
  s.compute = x->dtype;
  s.epsilon = 1e-9;  // the constant of ONNX's function body
  s.epsilon_after_root = true;
  WriteFn write = [&](const Index& index, const Expr& standardized) {
    return ir::store(y, buffer_index(index), kb.epilogue(standardized, buffer_index(index)));
  };
  return kb.finish(standardize(s, x, write, nullptr));
}

AOTC_REGISTER_OP("BatchNormalization", kernel_op(infer_batch_norm, lower_batch_norm).with({Role::kAnchor}));
AOTC_REGISTER_OPS(kernel_op(infer_layer_norm, lower_layer_norm).with({Role::kAnchor}), "LayerNormalization",
                  "RMSNormalization");
AOTC_REGISTER_OP("InstanceNormalization", kernel_op(infer_instance_norm, lower_instance_norm).with({Role::kAnchor}));
AOTC_REGISTER_OP("GroupNormalization", kernel_op(infer_group_norm, lower_group_norm).with({Role::kAnchor}));
AOTC_REGISTER_OP("MeanVarianceNormalization", kernel_op(infer_mvn, lower_mvn).with({Role::kAnchor}));

}  // namespace
}  // namespace aotc
