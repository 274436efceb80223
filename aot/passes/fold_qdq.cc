// fold_qdq: quantized ONNX models in QDQ form become integer kernels.
//
// Quantization tools (ONNX Runtime's quantize_static, PyTorch's exporter) write a quantized
// network as its float operators between DequantizeLinear (DQ) and QuantizeLinear (Q)
// nodes. Run as written, every layer would compute in float at run time. This pass finds
// the patterns and replaces each with one integer node (lowering/ops/onnx/onnx_quant.cc):
//
//   DQ(x) -> Conv(., DQ(w), [bias]) -> [Relu | Clip] -> Q     =>  QLinearConv
//   DQ(a) -> MatMul(., DQ(b))       -> [Relu | Clip] -> Q     =>  QLinearMatMul
//   DQ(a) -> Gemm(., DQ(w), [bias]) -> [Relu | Clip] -> Q     =>  QLinearMatMul + int32 bias
//   DQ(a) + DQ(b)                   -> [Relu | Clip] -> Q     =>  aotc.QLinearAdd
//   DQ(x) -> AveragePool | GlobalAveragePool          -> Q     =>  aotc.QLinearAveragePool
//
// Between two folded layers, Q -> DQ disappears: the next kernel reads the int8 tensor.
// The bias is an int32 constant at the accumulator's scale x_scale * w_scale[c]: a
// DequantizeLinear of int32 values at that scale (what ONNX Runtime's quantizer writes)
// is taken as is; another scale, or a float bias, is rounded to it here (half to even),
// the one step where folding can move a value by up to half an accumulator unit. A Relu
// or Clip becomes a clamp of the quantized output: Q is monotonic, so
// Q(clip(v, lo, hi)) = clamp(Q(v), Q(lo), Q(hi)) exactly.
//
// The integer node rounds the real-valued result once; the float graph rounds each
// dequantized value, the float sum and the division by the output scale to float32 first.
// The two agree except where the real result lies within that float32 error of a
// rounding tie, where they can differ by one quantization step.
//
// Runs after infer_shapes (it needs types and shapes) and before fold_constants (which
// would turn DequantizeLinear of constant weights into float weights). A pattern that
// does not fit (per-axis activations, non-constant scales, a Gemm with alpha != 1, ...)
// is left alone: it still runs, in float, with the same semantics.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "aot/passes/graph_passes.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

// Attributes of the folded nodes (read by lowering/ops/onnx/onnx_quant.cc): the output range
// of a folded Relu or Clip, in the output's integer domain.
constexpr const char* kClampMin = "aotc.clamp_min";
constexpr const char* kClampMax = "aotc.clamp_max";

bool is_8bit(DataType t) { return (t.is_int() || t.is_uint()) && t.bits == 8; }

// A quantized tensor as a QDQ graph describes it: the integer values, and the constant
// scale and zero point of the DequantizeLinear (or QuantizeLinear) that relates them to
// float values.
struct QuantizedTensor {
  TensorId values = kNoTensor;
  TensorId scale = kNoTensor;
  TensorId zero_point = kNoTensor;  // may be absent
  int64_t axis = -1;                // -1: per tensor
  std::vector<double> scales;
  std::vector<int64_t> zero_points;  // as many as scales
};

// The node index that produces each tensor.
std::map<TensorId, size_t> producers(const Graph& g) {
  std::map<TensorId, size_t> p;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (TensorId out : g.nodes[i].outputs)
      if (out != kNoTensor) p[out] = i;
  return p;
}

class QdqFolder {
 public:
  explicit QdqFolder(Graph& g) : g_(g), producer_(producers(g)) {}

  // Folds the pattern ending at the QuantizeLinear g.nodes[q], if there is one.
  bool fold_at(size_t q);

 private:
  std::optional<size_t> producer_of(TensorId id) const {
    auto it = producer_.find(id);
    return it == producer_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }

  // True if only node `reader` reads `id`, and `id` is not a graph output.
  bool read_only_by(TensorId id, size_t reader) const {
    std::vector<int> readers = g_.consumers(id);
    return !g_.is_graph_output(id) && readers.size() == 1 && static_cast<size_t>(readers[0]) == reader;
  }

  // The quantized tensor behind float tensor `id`, if a DequantizeLinear with constant
  // parameters produces it.
  std::optional<QuantizedTensor> dequantized(TensorId id) const;
  std::optional<Node> fold_conv(const Node& conv, const QuantizedTensor& x, const QuantizedTensor& y);
  std::optional<Node> fold_matmul(const Node& matmul, const QuantizedTensor& a, const QuantizedTensor& y);
  std::optional<Node> fold_gemm(const Node& gemm, const QuantizedTensor& a, const QuantizedTensor& y);
  std::optional<Node> fold_add(const Node& add, const QuantizedTensor& y);
  std::optional<Node> fold_average_pool(const Node& pool, const QuantizedTensor& x, const QuantizedTensor& y);
  std::optional<TensorId> accumulator_bias(const Node& anchor, TensorId bias, const QuantizedTensor& x,
                                           const QuantizedTensor& w, int64_t channels);
  bool set_activation_clamp(const Node& activation, const QuantizedTensor& y, Node* folded) const;
  TensorId transposed_constant(TensorId id);

  Graph& g_;
  std::map<TensorId, size_t> producer_;
};

std::optional<QuantizedTensor> QdqFolder::dequantized(TensorId id) const {
  auto p = producer_of(id);
  if (!p) return std::nullopt;
  const Node& dq = g_.nodes[*p];
  if (dq.op != "DequantizeLinear" || dq.outputs.size() != 1) return std::nullopt;
  // Blocked parameters (opset 21) are not one per tensor or per channel: no integer kernel.
  if (dq.attr_int("block_size", 0) != 0) return std::nullopt;
  QuantizedTensor d;
  d.values = dq.input(0);
  d.scale = dq.input(1);
  d.zero_point = dq.input(2);
  if (d.values == kNoTensor || d.scale == kNoTensor || !g_.tensor(d.scale).is_constant()) return std::nullopt;
  if (g_.tensor(d.scale).dtype != DataType::Float32()) return std::nullopt;
  if (d.zero_point != kNoTensor && !g_.tensor(d.zero_point).is_constant()) return std::nullopt;
  d.scales = g_.tensor(d.scale).floats();
  d.zero_points = d.zero_point == kNoTensor ? std::vector<int64_t>(d.scales.size(), 0) : g_.tensor(d.zero_point).ints();
  if (d.scales.size() != d.zero_points.size() || d.scales.empty()) return std::nullopt;
  if (d.scales.size() > 1) {
    int64_t rank = static_cast<int64_t>(g_.tensor(d.values).shape.size());
    int64_t axis = dq.attr_int("axis", 1);
    d.axis = axis < 0 ? axis + rank : axis;
  }
  return d;
}

// Q(v) for a real v, exactly as QuantizeLinear computes it: float32 division, rounding
// half to even, saturation to the output type.
int64_t quantize_value(double v, const QuantizedTensor& y, DataType type) {
  float scaled = static_cast<float>(v) / static_cast<float>(y.scales[0]);
  double q = static_cast<double>(std::nearbyint(scaled)) + static_cast<double>(y.zero_points[0]);
  int64_t lo = type.is_uint() ? 0 : -(int64_t{1} << (type.bits - 1));
  int64_t hi = type.is_uint() ? (int64_t{1} << type.bits) - 1 : (int64_t{1} << (type.bits - 1)) - 1;
  return static_cast<int64_t>(std::min<double>(std::max<double>(q, lo), hi));
}

// A Relu or a Clip with constant bounds as the folded node's output range.
bool QdqFolder::set_activation_clamp(const Node& activation, const QuantizedTensor& y, Node* folded) const {
  DataType type = g_.tensor(folded->outputs[0]).dtype;
  if (activation.op == "Relu") {
    folded->attrs[kClampMin] = quantize_value(0.0, y, type);
    return true;
  }
  if (activation.op != "Clip") return false;
  auto bound = [&](size_t index, const char* attr) -> std::optional<std::optional<double>> {
    TensorId id = activation.input(index);
    if (id != kNoTensor) {
      const Tensor& t = g_.tensor(id);
      if (!t.is_constant() || t.num_elements() != 1) return std::nullopt;  // not foldable
      return std::optional<double>(t.element_as_double(0));
    }
    if (activation.has_attr(attr)) return std::optional<double>(activation.attr_float(attr, 0));
    return std::optional<double>();  // unbounded
  };
  auto lo = bound(1, "min"), hi = bound(2, "max");
  if (!lo || !hi) return false;
  if (*lo) folded->attrs[kClampMin] = quantize_value(**lo, y, type);
  if (*hi) folded->attrs[kClampMax] = quantize_value(**hi, y, type);
  return true;
}

// The bias of a Conv or Gemm as an int32 tensor [channels] at the accumulator's scale
// float32(x_scale * w_scale[c]). nullopt if it is neither a constant float tensor nor a
// DequantizeLinear of constant integers, or does not fit in int32.
std::optional<TensorId> QdqFolder::accumulator_bias(const Node& anchor, TensorId bias, const QuantizedTensor& x,
                                                    const QuantizedTensor& w, int64_t channels) {
  std::vector<double> accumulator_scales;
  for (int64_t c = 0; c < channels; ++c) {
    float ws = static_cast<float>(w.scales.size() == 1 ? w.scales[0] : w.scales[static_cast<size_t>(c)]);
    accumulator_scales.push_back(static_cast<double>(static_cast<float>(x.scales[0]) * ws));
  }
  std::optional<QuantizedTensor> dq = dequantized(bias);
  const Tensor& source = g_.tensor(dq ? dq->values : bias);
  if (!source.is_constant() || source.num_elements() != channels) return std::nullopt;
  // Per-axis scales run along the channels, the last axis ([M] for Conv, [N] or [1, N] for Gemm).
  int64_t channel_axis = static_cast<int64_t>(source.shape.size()) - 1;
  if (dq && dq->scales.size() != 1 && (dq->axis != channel_axis || static_cast<int64_t>(dq->scales.size()) != channels))
    return std::nullopt;
  if (!dq && !source.dtype.is_float()) return std::nullopt;

  std::vector<int32_t> values;
  bool unchanged = dq && source.dtype == DataType::Int(32) && source.shape.size() == 1;
  for (int64_t c = 0; c < channels; ++c) {
    size_t k = static_cast<size_t>(c);
    double q;
    if (dq) {
      size_t p = dq->scales.size() == 1 ? 0 : k;
      double stored = static_cast<double>(source.element_as_int(c) - dq->zero_points[p]);
      // The common case, bias quantized at the accumulator's scale, stays bit-exact.
      q = dq->scales[p] == accumulator_scales[k] ? stored
                                                 : std::nearbyint(stored * dq->scales[p] / accumulator_scales[k]);
    } else {
      q = std::nearbyint(source.element_as_double(c) / accumulator_scales[k]);
    }
    if (!(std::fabs(q) < 2147483648.0)) return std::nullopt;
    values.push_back(static_cast<int32_t>(q));
    unchanged &= values.back() == source.element_as_int(c);
  }
  if (unchanged) return dq->values;
  std::vector<uint8_t> bytes(values.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  std::string base = anchor.name.empty() ? g_.tensor(anchor.outputs[0]).name : anchor.name;
  return g_.add_constant(base + "_bias_int32", DataType::Int(32), {channels}, std::move(bytes));
}

// A constant 2-D tensor, transposed (for Gemm's transB).
TensorId QdqFolder::transposed_constant(TensorId id) {
  const Tensor& t = g_.tensor(id);
  int64_t rows = t.shape[0], cols = t.shape[1], size = t.dtype.bytes();
  std::vector<uint8_t> bytes(t.data->size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(&bytes[static_cast<size_t>((c * rows + r) * size)],
                  &(*t.data)[static_cast<size_t>((r * cols + c) * size)], static_cast<size_t>(size));
  std::string name = t.name + "_transposed";
  DataType dtype = t.dtype;
  return g_.add_constant(name, dtype, {cols, rows}, std::move(bytes));
}

// The inputs (scale, zero point) of a folded node for `d`.
void append_params(Node* n, const QuantizedTensor& d) {
  n->inputs.push_back(d.scale);
  n->inputs.push_back(d.zero_point);
}

std::optional<Node> QdqFolder::fold_conv(const Node& conv, const QuantizedTensor& x, const QuantizedTensor& y) {
  auto w = dequantized(conv.input(1));
  if (!w || !g_.tensor(w->values).is_constant() || !is_8bit(g_.tensor(w->values).dtype)) return std::nullopt;
  int64_t out_channels = g_.tensor(w->values).shape.at(0);
  if (w->scales.size() != 1 && (w->axis != 0 || static_cast<int64_t>(w->scales.size()) != out_channels))
    return std::nullopt;
  Node folded;
  folded.op = "QLinearConv";
  folded.attrs = conv.attrs;
  folded.inputs = {x.values};
  append_params(&folded, x);
  folded.inputs.push_back(w->values);
  append_params(&folded, *w);
  append_params(&folded, y);
  if (conv.input(2) != kNoTensor) {
    auto bias = accumulator_bias(conv, conv.input(2), x, *w, out_channels);
    if (!bias) return std::nullopt;
    folded.inputs.push_back(*bias);
  }
  return folded;
}

std::optional<Node> QdqFolder::fold_matmul(const Node& matmul, const QuantizedTensor& a, const QuantizedTensor& y) {
  auto b = dequantized(matmul.input(1));
  if (!b || !is_8bit(g_.tensor(b->values).dtype)) return std::nullopt;
  const std::vector<int64_t>& b_shape = g_.tensor(b->values).shape;
  if (g_.tensor(a.values).shape.size() < 2 || b_shape.size() < 2) return std::nullopt;
  int64_t columns = b_shape.back(), column_axis = static_cast<int64_t>(b_shape.size()) - 1;
  if (b->scales.size() != 1 && (b->axis != column_axis || static_cast<int64_t>(b->scales.size()) != columns))
    return std::nullopt;
  Node folded;
  folded.op = "QLinearMatMul";
  folded.inputs = {a.values};
  append_params(&folded, a);
  folded.inputs.push_back(b->values);
  append_params(&folded, *b);
  append_params(&folded, y);
  return folded;
}

// Gemm(A, B, C) with alpha = beta = 1 and A not transposed: B' = B or B^T (a constant,
// transposed here) is [K, N], quantized per tensor or per column; C is a bias [N].
std::optional<Node> QdqFolder::fold_gemm(const Node& gemm, const QuantizedTensor& a, const QuantizedTensor& y) {
  if (gemm.attr_int("transA", 0) != 0 || gemm.attr_float("alpha", 1.0) != 1.0) return std::nullopt;
  if (gemm.input(2) != kNoTensor && gemm.attr_float("beta", 1.0) != 1.0) return std::nullopt;
  auto w = dequantized(gemm.input(1));
  if (!w || !g_.tensor(w->values).is_constant() || !is_8bit(g_.tensor(w->values).dtype)) return std::nullopt;
  bool trans_b = gemm.attr_int("transB", 0) != 0;
  const std::vector<int64_t>& w_shape = g_.tensor(w->values).shape;
  if (w_shape.size() != 2) return std::nullopt;
  int64_t columns = trans_b ? w_shape[0] : w_shape[1], column_axis = trans_b ? 0 : 1;
  if (w->scales.size() != 1 && (w->axis != column_axis || static_cast<int64_t>(w->scales.size()) != columns))
    return std::nullopt;
  std::optional<TensorId> bias;
  if (gemm.input(2) != kNoTensor) {
    std::vector<int64_t> c_shape = g_.tensor(gemm.input(2)).shape;
    if (c_shape != std::vector<int64_t>{columns} && c_shape != std::vector<int64_t>{1, columns}) return std::nullopt;
    bias = accumulator_bias(gemm, gemm.input(2), a, *w, columns);
    if (!bias) return std::nullopt;
  }
  Node folded;
  folded.op = "QLinearMatMul";
  folded.inputs = {a.values};
  append_params(&folded, a);
  folded.inputs.push_back(trans_b ? transposed_constant(w->values) : w->values);
  append_params(&folded, *w);
  append_params(&folded, y);
  if (bias) folded.inputs.push_back(*bias);
  return folded;
}

std::optional<Node> QdqFolder::fold_add(const Node& add, const QuantizedTensor& y) {
  auto a = dequantized(add.input(0)), b = dequantized(add.input(1));
  if (!a || !b || a->scales.size() != 1 || b->scales.size() != 1) return std::nullopt;
  if (!is_8bit(g_.tensor(a->values).dtype) || !is_8bit(g_.tensor(b->values).dtype)) return std::nullopt;
  Node folded;
  folded.op = "aotc.QLinearAdd";
  folded.inputs = {a->values};
  append_params(&folded, *a);
  folded.inputs.push_back(b->values);
  append_params(&folded, *b);
  append_params(&folded, y);
  return folded;
}

// A 2-D average pooling of an 8-bit tensor: GlobalAveragePool as the AveragePool whose
// window is the whole image. aotc.QLinearAveragePool refuses (and the pattern stays in
// float) windows that leave the input.
std::optional<Node> QdqFolder::fold_average_pool(const Node& pool, const QuantizedTensor& x, const QuantizedTensor& y) {
  const std::vector<int64_t>& shape = g_.tensor(x.values).shape;
  if (shape.size() != 4) return std::nullopt;
  Node folded;
  folded.op = "aotc.QLinearAveragePool";
  folded.attrs = pool.attrs;
  if (pool.op == "GlobalAveragePool") folded.attrs = {{"kernel_shape", std::vector<int64_t>{shape[2], shape[3]}}};
  folded.inputs = {x.values};
  append_params(&folded, x);
  append_params(&folded, y);
  return folded;
}

bool QdqFolder::fold_at(size_t q) {
  const Node& quantize = g_.nodes[q];
  if (quantize.op != "QuantizeLinear" || quantize.outputs.size() != 1) return false;
  // The folded node's output: Q's output, scale and zero point.
  QuantizedTensor y;
  y.values = quantize.outputs[0];
  y.scale = quantize.input(1);
  y.zero_point = quantize.input(2);
  if (y.scale == kNoTensor || !g_.tensor(y.scale).is_constant() || g_.tensor(y.scale).num_elements() != 1) return false;
  if (y.zero_point != kNoTensor && !g_.tensor(y.zero_point).is_constant()) return false;
  y.scales = g_.tensor(y.scale).floats();
  y.zero_points = y.zero_point == kNoTensor ? std::vector<int64_t>{0} : g_.tensor(y.zero_point).ints();
  if (!is_8bit(g_.tensor(quantize.outputs[0]).dtype)) return false;

  // Q <- [activation] <- anchor, each read only by the next.
  std::vector<size_t> replaced = {q};
  auto previous = producer_of(quantize.input(0));
  if (!previous || !read_only_by(quantize.input(0), q)) return false;
  std::optional<size_t> activation;
  if (g_.nodes[*previous].op == "Relu" || g_.nodes[*previous].op == "Clip") {
    activation = previous;
    replaced.push_back(*activation);
    TensorId in = g_.nodes[*activation].input(0);
    previous = producer_of(in);
    if (!previous || !read_only_by(in, *activation)) return false;
  }
  const Node& anchor = g_.nodes[*previous];
  replaced.push_back(*previous);
  if (anchor.outputs.size() != 1) return false;

  std::optional<Node> folded;
  if (anchor.op == "Add") {
    folded = fold_add(anchor, y);
  } else if (anchor.op == "Conv" || anchor.op == "MatMul" || anchor.op == "Gemm") {
    auto x = dequantized(anchor.input(0));
    if (!x || x->scales.size() != 1 || !is_8bit(g_.tensor(x->values).dtype)) return false;
    if (anchor.op == "Conv") folded = fold_conv(anchor, *x, y);
    if (anchor.op == "MatMul") folded = fold_matmul(anchor, *x, y);
    if (anchor.op == "Gemm") folded = fold_gemm(anchor, *x, y);
  } else if (anchor.op == "AveragePool" || anchor.op == "GlobalAveragePool") {
    auto x = dequantized(anchor.input(0));
    if (!x || x->scales.size() != 1 || !is_8bit(g_.tensor(x->values).dtype) || activation) return false;
    folded = fold_average_pool(anchor, *x, y);
  }
  if (!folded) return false;
  folded->name = anchor.name;
  folded->outputs = quantize.outputs;
  if (activation && !set_activation_clamp(g_.nodes[*activation], y, &*folded)) return false;
  // The integer operator's own checks decide: anything it rejects stays in float.
  try {
    find_op(folded->op)->infer(g_, *folded);
  } catch (const CompileError&) {
    return false;
  }

  g_.nodes[q] = std::move(*folded);
  std::sort(replaced.begin(), replaced.end());
  for (auto it = replaced.rbegin(); it != replaced.rend(); ++it)
    if (*it != q) g_.nodes.erase(g_.nodes.begin() + static_cast<std::ptrdiff_t>(*it));
  return true;
}

// DequantizeLinear nodes that no longer have readers: the folded patterns' inputs.
void remove_unread_dequantize(Graph& g) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (n.op != "DequantizeLinear" || g.is_graph_output(n.outputs[0]) || !g.consumers(n.outputs[0]).empty()) continue;
      g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(i));
      changed = true;
      break;
    }
  }
}

}  // namespace

void fold_qdq(Graph& g) {
  bool changed = true;
  while (changed) {
    changed = false;
    QdqFolder folder(g);  // indexes the graph as it is: rebuilt after each change
    for (size_t i = 0; i < g.nodes.size() && !changed; ++i) changed = folder.fold_at(i);
  }
  remove_unread_dequantize(g);
}

}  // namespace aotc
