// Attention (opsets 23 and 24): scaled dot product attention of a query over keys and values,
// the operator PyTorch 2.x exports `scaled_dot_product_attention` to from opset 23 on.
//
// For each batch b, query head h and query position i, with key/value head g = h / (q_num_heads
// / kv_num_heads) (several query heads share one key/value head: grouped- and multi-query
// attention), over the keys j of the past cache followed by the new keys:
//   s_j = scale * (Q[b, h, i, :] . K[b, g, j, :])        scale defaults to 1 / sqrt(head_size)
//   s_j = softcap * tanh(s_j / softcap)                   if softcap > 0
//   s_j = s_j + attn_mask[b, h, i, j]                      a float mask is added; a boolean mask,
//                                                          false, and the causal mask remove j
//   p = softmax(s);  Y[b, h, i, :] = sum_j p_j V[b, g, j, :]
// The causal mask is bottom-right aligned: query i sees key j iff j <= i + offset, where
// offset is the past length (past_key's) or, with Attention-24's nonpad_kv_seqlen (an
// external cache whose keys from length[b] on are padding), length[b] - q_sequence_length.
// A query that sees no key at all gives a row of zeros (the operator's errata), not NaN.
// present_key/present_value are the past cache followed by the new keys/values; the
// optional qk_matmul_output is the scores after the matmul (mode 0), the softcap (1), the
// masks (2, -inf where removed) or the softmax (3).
//
// Q, K, V are 4-D [batch, heads, sequence, head_size] or 3-D [batch, sequence, heads *
// head_size] with q_num_heads and kv_num_heads giving the heads; the output takes Q's form.
// The kernel keeps one row of scores (the total key count) in a temporary and walks it three
// times: scores, exponentials and their sum, then the weighted sum of values. Types:
// float32 and float64, softmax in that type (softmax_precision may only name it).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lowering/compute/axis_split.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/reduction.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

enum Input : size_t { kQ, kK, kV, kMask, kPastKey, kPastValue, kNonpadLength };
enum Output : size_t { kY, kPresentKey, kPresentValue, kQk };

// The sizes of one Attention node, from its inputs' shapes and its attributes.
struct AttentionShape {
  bool three_d = false;  // [batch, sequence, heads * size] rather than [batch, heads, sequence, size]
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_length = 0, kv_length = 0, past = 0, head_size = 0,
          v_head_size = 0;
  int64_t total() const { return past + kv_length; }
  int64_t group() const { return q_heads / kv_heads; }
};

std::string shape_error(const Graph& g, const Node& node, size_t index, const std::string& expected) {
  const Tensor& t = g.tensor(node.inputs[index]);
  return "input '" + t.name + "' has shape " + shape_str(t.shape) + "; expected " + expected;
}

AttentionShape attention_shape(const Graph& g, const Node& node) {
  const Tensor& q = require_input(g, node, kQ);
  const Tensor& k = require_input(g, node, kK);
  const Tensor& v = require_input(g, node, kV);
  AttentionShape s;
  if (q.shape.size() != k.shape.size() || q.shape.size() != v.shape.size() ||
      (q.shape.size() != 3 && q.shape.size() != 4))
    node_error(node, "Q, K and V must all be 3-D or all 4-D, got " + shape_str(q.shape) + ", " + shape_str(k.shape) +
                         ", " + shape_str(v.shape));
  s.three_d = q.shape.size() == 3;
  s.batch = q.shape[0];
  if (s.three_d) {
    s.q_heads = node.attr_int("q_num_heads", 0);
    s.kv_heads = node.attr_int("kv_num_heads", 0);
    if (s.q_heads <= 0 || s.kv_heads <= 0)
      node_error(node, "3-D Q, K and V need the attributes q_num_heads and kv_num_heads (> 0)");
    s.q_length = q.shape[1];
    s.kv_length = k.shape[1];
    if (q.shape[2] % s.q_heads != 0)
      node_error(node, shape_error(g, node, kQ, "a hidden size divisible by q_num_heads " + std::to_string(s.q_heads)));
    s.head_size = q.shape[2] / s.q_heads;
    if (k.shape[0] != s.batch || k.shape[2] != s.kv_heads * s.head_size)
      node_error(node, shape_error(g, node, kK, "[" + std::to_string(s.batch) + ", kv_sequence_length, " +
                                                    std::to_string(s.kv_heads * s.head_size) + "]"));
    if (v.shape[0] != s.batch || v.shape[1] != s.kv_length || v.shape[2] % s.kv_heads != 0)
      node_error(node, shape_error(g, node, kV, "[" + std::to_string(s.batch) + ", " + std::to_string(s.kv_length) +
                                                    ", a multiple of kv_num_heads " + std::to_string(s.kv_heads) + "]"));
    s.v_head_size = v.shape[2] / s.kv_heads;
  } else {
    s.q_heads = q.shape[1];
    s.q_length = q.shape[2];
    s.head_size = q.shape[3];
    s.kv_heads = k.shape[1];
    s.kv_length = k.shape[2];
    if (k.shape[0] != s.batch || k.shape[3] != s.head_size)
      node_error(node, shape_error(g, node, kK, "[" + std::to_string(s.batch) + ", kv_num_heads, kv_sequence_length, " +
                                                    std::to_string(s.head_size) + "]"));
    if (v.shape[0] != s.batch || v.shape[1] != s.kv_heads || v.shape[2] != s.kv_length)
      node_error(node, shape_error(g, node, kV, "[" + std::to_string(s.batch) + ", " + std::to_string(s.kv_heads) +
                                                    ", " + std::to_string(s.kv_length) + ", v_head_size]"));
    s.v_head_size = v.shape[3];
  }
  if (s.q_heads % s.kv_heads != 0)
    node_error(node, "q_num_heads " + std::to_string(s.q_heads) + " is not a multiple of kv_num_heads " +
                         std::to_string(s.kv_heads));
  if (has_input(node, kPastKey) != has_input(node, kPastValue))
    node_error(node, "past_key and past_value must be given together");
  if (has_input(node, kPastKey)) {
    const Tensor& past_key = require_input(g, node, kPastKey);
    if (past_key.shape.size() != 4 || past_key.shape[0] != s.batch || past_key.shape[1] != s.kv_heads ||
        past_key.shape[3] != s.head_size)
      node_error(node, shape_error(g, node, kPastKey, "[" + std::to_string(s.batch) + ", " + std::to_string(s.kv_heads) +
                                                          ", past_sequence_length, " + std::to_string(s.head_size) + "]"));
    s.past = past_key.shape[2];
    std::vector<int64_t> value_shape = {s.batch, s.kv_heads, s.past, s.v_head_size};
    if (require_input(g, node, kPastValue).shape != value_shape)
      node_error(node, shape_error(g, node, kPastValue, shape_str(value_shape)));
  }
  return s;
}

bool has_output(const Node& node, size_t index) { return index < node.outputs.size() && node.outputs[index] != kNoTensor; }

void infer_attention(Graph& g, Node& node) {
  AttentionShape s = attention_shape(g, node);
  DataType t = require_input(g, node, kQ).dtype;
  require_float(g, node, kQ);
  for (size_t i : {kK, kV, kPastKey, kPastValue})
    if (has_input(node, i) && g.tensor(node.inputs[i]).dtype != t)
      node_error(node, "input '" + g.tensor(node.inputs[i]).name + "' is " + g.tensor(node.inputs[i]).dtype.str() +
                           "; Q, K, V and the caches must have one type (" + t.str() + ")");
  if (node.has_attr("softmax_precision")) {
    int64_t precision = node.attr_int("softmax_precision", 0);
    if (precision != (t == DataType::Float32() ? 1 : 11))
      node_error(node, "softmax_precision " + std::to_string(precision) + " is not supported: the softmax is computed in " +
                           t.str() + ", Q's type");
  }
  int64_t mode = node.attr_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) node_error(node, "qk_matmul_output_mode " + std::to_string(mode) + " is not 0, 1, 2 or 3");
  std::vector<int64_t> scores_shape = {s.batch, s.q_heads, s.q_length, s.total()};
  if (has_input(node, kMask)) {
    const Tensor& mask = require_input(g, node, kMask);
    if (mask.dtype != DataType::Bool() && mask.dtype != t)
      node_error(node, "attn_mask '" + mask.name + "' is " + mask.dtype.str() + "; it must be bool or " + t.str() +
                           " (Q's type)");
    if (mask.shape.size() > 4 || broadcast_shapes(node, mask.shape, scores_shape) != scores_shape)
      node_error(node, "attn_mask '" + mask.name + "' has shape " + shape_str(mask.shape) +
                           ", which does not broadcast to [batch, q_num_heads, q_sequence_length, "
                           "total_sequence_length] = " + shape_str(scores_shape));
  }
  if (has_input(node, kNonpadLength)) {
    const Tensor& lengths = require_input(g, node, kNonpadLength);
    if (lengths.dtype != DataType::Int(64) || lengths.shape != std::vector<int64_t>{s.batch})
      node_error(node, "nonpad_kv_seqlen '" + lengths.name + "' must be int64 of shape [" + std::to_string(s.batch) +
                           "], got " + lengths.dtype.str() + " " + shape_str(lengths.shape));
    if (has_input(node, kPastKey))
      node_error(node, "nonpad_kv_seqlen (an external cache) cannot be combined with past_key and past_value");
  }
  set_output(g, node, kY, t,
             s.three_d ? std::vector<int64_t>{s.batch, s.q_length, s.q_heads * s.v_head_size}
                       : std::vector<int64_t>{s.batch, s.q_heads, s.q_length, s.v_head_size});
  if (has_output(node, kPresentKey)) set_output(g, node, kPresentKey, t, {s.batch, s.kv_heads, s.total(), s.head_size});
  if (has_output(node, kPresentValue))
    set_output(g, node, kPresentValue, t, {s.batch, s.kv_heads, s.total(), s.v_head_size});
  if (has_output(node, kQk)) set_output(g, node, kQk, t, scores_shape);
}

class AttentionKernel {
 public:
  AttentionKernel(const Graph& g, const Node& node, KernelBuilder& kb) : node_(node), s_(attention_shape(g, node)) {
    q_ = kb.input(kQ, "Q");
    k_ = kb.input(kK, "K");
    v_ = kb.input(kV, "V");
    if (has_input(node, kMask)) mask_ = kb.input(kMask, "attn_mask");
    if (has_input(node, kPastKey)) {
      past_key_ = kb.input(kPastKey, "past_key");
      past_value_ = kb.input(kPastValue, "past_value");
    }
    if (has_input(node, kNonpadLength)) lengths_ = kb.input(kNonpadLength, "nonpad_kv_seqlen");
    y_ = kb.output(kY, "Y");
    if (output_is_used(g, node, kPresentKey)) present_key_ = kb.output(kPresentKey, "present_key");
    if (output_is_used(g, node, kPresentValue)) present_value_ = kb.output(kPresentValue, "present_value");
    if (output_is_used(g, node, kQk)) qk_ = kb.output(kQk, "qk_matmul_output");
    t_ = q_->dtype;
    scale_ = node.has_attr("scale") ? node.attr_float("scale", 0) : 1.0 / std::sqrt(static_cast<double>(s_.head_size));
    softcap_ = node.attr_float("softcap", 0);
    mode_ = node.attr_int("qk_matmul_output_mode", 0);
  }

  ir::Stmt body() {
    std::vector<ir::Stmt> parts;
    if (lengths_) parts.push_back(check_lengths());
    if (present_key_) parts.push_back(copy_cache(present_key_, past_key_, k_, s_.head_size));
    if (present_value_) parts.push_back(copy_cache(present_value_, past_value_, v_, s_.v_head_size));
    if (s_.total() > 0)
      parts.push_back(ir::loop_nest({s_.batch, s_.q_heads, s_.q_length}, {"b", "h", "i"},
                                    [&](const std::vector<Expr>& bhi) { return query_row(bhi[0], bhi[1], bhi[2]); }));
    return ir::seq(parts);
  }

 private:
  // Element d of the key (or value) head g at new position j, in the input's layout.
  Expr load_new(const ir::Buffer& buffer, int64_t size, const Expr& b, const Expr& g, const Expr& j, const Expr& d) const {
    if (s_.three_d) return ir::load(buffer, {b, j, g * ir::make_int(size) + d});
    return ir::load(buffer, {b, g, j, d});
  }
  Expr load_query(const Expr& b, const Expr& h, const Expr& i, const Expr& d) const {
    if (s_.three_d) return ir::load(q_, {b, i, h * ir::make_int(s_.head_size) + d});
    return ir::load(q_, {b, h, i, d});
  }
  ir::Stmt store_y(const Expr& b, const Expr& h, const Expr& i, const Expr& e, const Expr& value) const {
    if (s_.three_d) return ir::store(y_, {b, i, h * ir::make_int(s_.v_head_size) + e}, value);
    return ir::store(y_, {b, h, i, e}, value);
  }

  // Calls visit(j, element) for every key (or value) position j of the past cache and then
  // of the new ones, with element(d) loading its element d: two loops, so that no load
  // reaches past a buffer's end.
  ir::Stmt for_each_position(const ir::Buffer& past, const ir::Buffer& fresh, int64_t size, const Expr& b, const Expr& g,
                             const std::function<ir::Stmt(const Expr&, const std::function<Expr(const Expr&)>&)>& visit) const {
    std::vector<ir::Stmt> loops;
    if (s_.past > 0)
      loops.push_back(ir::loop_nest({s_.past}, {"j"}, [&](const std::vector<Expr>& j) {
        return visit(j[0], [&](const Expr& d) { return ir::load(past, {b, g, j[0], d}); });
      }));
    if (s_.kv_length > 0)
      loops.push_back(ir::loop_nest({s_.kv_length}, {"j"}, [&](const std::vector<Expr>& j) {
        return visit(j[0] + ir::make_int(s_.past), [&](const Expr& d) { return load_new(fresh, size, b, g, j[0], d); });
      }));
    return ir::seq(loops);
  }

  ir::Stmt copy_cache(const ir::Buffer& present, const ir::Buffer& past, const ir::Buffer& fresh, int64_t size) const {
    return ir::loop_nest({s_.batch, s_.kv_heads}, {"b", "g"}, [&](const std::vector<Expr>& bg) {
      return for_each_position(past, fresh, size, bg[0], bg[1], [&](const Expr& j, const std::function<Expr(const Expr&)>& at) {
        return ir::loop_nest({size}, {"d"}, [&](const std::vector<Expr>& d) { return ir::store(present, {bg[0], bg[1], j, d[0]}, at(d[0])); });
      });
    });
  }

  // Every nonpad_kv_seqlen lies in [0, kv_sequence_length]: it bounds the keys read.
  ir::Stmt check_lengths() const {
    return ir::loop_nest({s_.batch}, {"b"}, [&](const std::vector<Expr>& b) {
      return check_range(ir::load(lengths_, {b[0]}), 0, s_.kv_length);
    });
  }

  Expr minus_infinity() const { return ir::make_float(-std::numeric_limits<double>::infinity(), t_); }

  // Whether key j takes part for query i of batch b (the boolean mask, the causal frontier,
  // the padding of an external cache); empty when every key does.
  Expr key_allowed(const std::vector<Expr>& bhij) const {
    const Expr &b = bhij[0], &i = bhij[2], &j = bhij[3];
    Expr allowed;
    auto both = [&](Expr c) { allowed = allowed ? ir::logical_and(allowed, c) : c; };
    if (mask_ && mask_->dtype == DataType::Bool()) both(broadcast_load(mask_, bhij) != ir::make_int(0, DataType::Bool()));
    Expr length = lengths_ ? ir::cast(DataType::Int(32), ir::load(lengths_, {b})) : Expr();
    if (node_.attr_int("is_causal", 0) != 0) {
      Expr offset = length ? length - ir::make_int(s_.q_length) : ir::make_int(s_.past);
      both(j <= i + offset);
    }
    if (length) both(j < length);
    return allowed;
  }

  ir::Stmt write_qk(int64_t mode, const std::vector<Expr>& bhij, const Expr& value) const {
    return qk_ && mode_ == mode ? ir::store(qk_, bhij, value) : ir::Stmt();
  }

  ir::Stmt query_row(const Expr& b, const Expr& h, const Expr& i) const {
    Expr g = h / ir::make_int(s_.group());
    ir::Buffer row = ir::make_buffer("scores", t_, {s_.total()}, "global");
    // The scores, with the softcap and the masks: -inf where a key is removed.
    ir::Stmt scores = for_each_position(past_key_, k_, s_.head_size, b, g, [&](const Expr& j, const std::function<Expr(const Expr&)>& key) {
      std::vector<Expr> bhij = {b, h, i, j};
      return accumulate(ir::make_zero(t_),
                        [&](const Accumulator& dot) {
                          return ir::loop_nest({s_.head_size}, {"d"}, [&](const std::vector<Expr>& d) {
                            return dot.set(dot.value() + load_query(b, h, i, d[0]) * key(d[0]));
                          });
                        },
                        [&](const Expr& sum) {
                          Expr score = sum * ir::make_float(scale_, t_);
                          std::vector<ir::Stmt> steps = {write_qk(0, bhij, score)};
                          if (softcap_ > 0) {
                            Expr cap = ir::make_float(softcap_, t_);
                            score = cap * float_call("tanh", {score / cap});
                          }
                          steps.push_back(write_qk(1, bhij, score));
                          if (mask_ && mask_->dtype != DataType::Bool()) score = score + broadcast_load(mask_, bhij);
                          Expr allowed = key_allowed(bhij);
                          if (allowed) score = ir::select(allowed, score, minus_infinity());
                          steps.push_back(write_qk(2, bhij, score));
                          steps.push_back(ir::store(row, {j}, score));
                          return ir::seq(steps);
                        });
    });
    ir::Stmt softmax_and_values = with_accumulator("row_max", minus_infinity(), [&](const Accumulator& row_max) {
      ir::Stmt find_max = ir::loop_nest({s_.total()}, {"j"}, [&](const std::vector<Expr>& j) {
        return row_max.set(ir::max(row_max.value(), ir::load(row, {j[0]})));
      });
      // A row with every key removed has the maximum -inf: subtracting 0 instead makes every
      // exponential 0, and the zero sum below writes zeros.
      Expr shift = ir::select(row_max.value() == minus_infinity(), ir::make_zero(t_), row_max.value());
      ir::Stmt rest = with_accumulator("row_sum", ir::make_zero(t_), [&](const Accumulator& row_sum) {
        ir::Stmt exponentiate = ir::loop_nest({s_.total()}, {"j"}, [&](const std::vector<Expr>& j) {
          return ir::seq({ir::store(row, {j[0]}, float_call("exp", {ir::load(row, {j[0]}) - shift})),
                          row_sum.set(row_sum.value() + ir::load(row, {j[0]}))});
        });
        Expr seen = row_sum.value() > ir::make_zero(t_);
        auto normalized = [&](const Expr& value) { return ir::select(seen, value / row_sum.value(), ir::make_zero(t_)); };
        ir::Stmt probabilities;
        if (qk_ && mode_ == 3)
          probabilities = ir::loop_nest({s_.total()}, {"j"}, [&](const std::vector<Expr>& j) {
            return ir::store(qk_, {b, h, i, j[0]}, normalized(ir::load(row, {j[0]})));
          });
        ir::Stmt values = ir::loop_nest({s_.v_head_size}, {"e"}, [&](const std::vector<Expr>& e) {
          return accumulate(ir::make_zero(t_),
                            [&](const Accumulator& weighted) {
                              return for_each_position(past_value_, v_, s_.v_head_size, b, g,
                                                       [&](const Expr& j, const std::function<Expr(const Expr&)>& value) {
                                                         return weighted.set(weighted.value() + ir::load(row, {j}) * value(e[0]));
                                                       });
                            },
                            [&](const Expr& sum) { return store_y(b, h, i, e[0], normalized(sum)); });
        });
        return ir::seq({exponentiate, probabilities, values});
      });
      return ir::seq({find_max, rest});
    });
    return ir::allocate(row, ir::seq({scores, softmax_and_values}));
  }

  const Node& node_;
  AttentionShape s_;
  ir::Buffer q_, k_, v_, mask_, past_key_, past_value_, lengths_, y_, present_key_, present_value_, qk_;
  DataType t_;
  double scale_ = 1, softcap_ = 0;
  int64_t mode_ = 0;
};

LoweredOp lower_attention(const Graph& g, const Node& node, KernelBuilder& kb) {
  AttentionKernel kernel(g, node, kb);
  return kb.finish(kernel.body());
}

AOTC_REGISTER_OP("Attention", kernel_op(infer_attention, lower_attention));

}  // namespace
}  // namespace aotc
