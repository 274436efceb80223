// channels_last: convolutions compute channels-last where the target's kernels want it.
//
// ONNX lays activations out channels first (NCHW). The register-block kernels of the DSP,
// Helium and FPU families (lowering/kernels, the ones TFLite's NHWC models take) read a
// pixel's channels as one contiguous run, which is where their pairs of multiply-
// accumulates and their FPU blocks come from, so they apply to channels-last
// convolutions only; a host's SIMD kernels want channels first. The layout is the
// target's decision: each convolution operator answers, from its kernel strategy, whether
// a kernel of higher priority applies to it channels-last on this target
// (OpDef::prefers_channels_last; conv_kernels.h channels_last_pays). This pass gives the
// 2-D convolutions that do (Conv with constant weights, QLinearConv as exported or as
// fold_qdq made it from QDQ patterns) that layout, and keeps the transposes it costs out
// of the program wherever it can:
//
//   1. Such a convolution becomes a channels-last one (kChannelsLastAttr, its weights
//      reordered at compile time) between a Transpose of its input to NHWC and a
//      Transpose of its result back to the NCHW tensor the model names; so does every 2-D
//      pooling without an Indices output (MaxPool, AveragePool, their global forms, and
//      aotc.QLinearAveragePool, a QDQ average pooling: loops that take either layout) that
//      reads such a convolution's result (directly or through a Relu, a Clip...), so that
//      it does not stand between two of them.
//   2. A Transpose moves below an elementwise operator (QuantizeLinear, Relu, Clip, a
//      QLinearAdd or Add of two operands transposed alike, ...) when the move costs nothing:
//      the operator's result is no larger than its input, or the move leads to a transpose
//      that it cancels.
//   3. A Transpose of a Transpose that undoes it reads the original tensor instead.
//   4. A Transpose that moves only axes of extent 1 ([N, 1, 1, C] to [N, C, 1, 1], or a
//      one-channel image) does not move memory: it becomes a Reshape, which is a view.
//
// Between two convolutions the transposes cancel; what is left are transposes at the
// edges of a channels-last region: the model's input, before an operator without a
// channels-last form (a Concat, a broadcasting Mul), or where a tensor is a graph output. Every tensor the
// model names keeps its shape and its values (a rewritten node's NCHW result is now the
// result of a Transpose), so graph outputs, --dump-tensors and everything that reads a
// tensor see what they saw before. Integer arithmetic does not depend on the order of its
// sums, so integer outputs are bit for bit the same; float convolutions sum a window in
// another order (rows, columns, then channels), within float rounding of the other.
//
// Runs after fold_qdq and fold_constants (the convolutions exist, their weights are
// constants) and before fuse_operators (which then fuses elementwise operators into the
// channels-last kernels). Top-level graph only.
#include <algorithm>
#include <set>

#include "aot/graph/op_registry.h"
#include "aot/passes/graph_passes.h"

namespace aotc {
namespace {

const std::vector<int64_t> kToChannelsLast = {0, 2, 3, 1};   // NCHW -> NHWC
const std::vector<int64_t> kToChannelsFirst = {0, 3, 1, 2};  // NHWC -> NCHW

// Elementwise operators a transpose can move below, with the inputs that carry the
// activation (the others must be constants of one element: scales, zero points, bounds).
struct Elementwise {
  const char* op;
  std::vector<size_t> activations;
};
const Elementwise kElementwise[] = {
    {"QuantizeLinear", {0}}, {"DequantizeLinear", {0}}, {"Relu", {0}},    {"Clip", {0}},     {"LeakyRelu", {0}},
    {"Sigmoid", {0}},        {"Tanh", {0}},             {"HardSigmoid", {0}}, {"HardSwish", {0}}, {"Cast", {0}},
    {"Identity", {0}},       {"Add", {0, 1}},           {"Sub", {0, 1}},  {"Mul", {0, 1}},   {"Div", {0, 1}},
    {"Max", {0, 1}},         {"Min", {0, 1}},           {"aotc.QLinearAdd", {0, 3}},
};

// The convolutions this pass can give the channels-last layout, with the index of their
// weights.
const std::pair<const char*, size_t> kConvolutions[] = {{"Conv", 1}, {"QLinearConv", 3}};

class ChannelsLast {
 public:
  ChannelsLast(Graph& g, const TargetFacts& target) : g_(g), target_(target) {}

  void run() {
    convert_convolutions();
    bool changed = true;
    while (changed) changed = cancel_transposes() | sink_transposes();
    reshape_trivial_transposes();
  }

 private:
  // ------------------------------------------------------------ 1. the convolutions

  // The index of n's weights if n is a convolution the pass handles, else -1.
  static int weights_index(const Node& n) {
    for (const auto& [op, index] : kConvolutions)
      if (n.op == op) return static_cast<int>(index);
    return -1;
  }

  bool free_of_layout(const Node& n) const {
    return n.attr_int(kChannelsLastAttr, 0) == 0 && n.body.empty() && g_.tensor(n.inputs[0]).shape.size() == 4;
  }

  // A 2-D convolution with constant weights whose kernels prefer channels-last on the
  // target (its operator's prefers_channels_last).
  bool convertible_convolution(const Node& n) const {
    int w = weights_index(n);
    if (w < 0 || !free_of_layout(n)) return false;
    const Tensor& weights = g_.tensor(n.inputs[static_cast<size_t>(w)]);
    if (weights.shape.size() != 4 || !weights.is_constant()) return false;
    const OpDef* def = find_op(n.op);
    return def && def->prefers_channels_last && def->prefers_channels_last(g_, n, target_);
  }

  // A 2-D pooling of one output (no MaxPool Indices), whose loops take either layout.
  bool follows(const Node& n) const {
    static const std::set<std::string> kPoolings = {"aotc.QLinearAveragePool", "MaxPool", "AveragePool",
                                                    "GlobalMaxPool", "GlobalAveragePool"};
    bool one_output = n.outputs.size() == 1 || (n.outputs.size() == 2 && n.outputs[1] == kNoTensor);
    return kPoolings.count(n.op) && one_output && free_of_layout(n);
  }

  // Whether the input of node k comes from a node already marked in `convert`, directly or
  // through elementwise operators of one activation (a Relu, a Clip) that the transposes
  // will move below.
  bool fed_by_converted(size_t k, const std::vector<bool>& convert) const {
    TensorId t = g_.nodes[k].inputs[0];
    for (int steps = 0; steps < 8; ++steps) {
      int producer = producer_of(t);
      if (producer < 0) return false;
      if (convert[static_cast<size_t>(producer)]) return true;
      const Elementwise* e = elementwise(g_.nodes[static_cast<size_t>(producer)]);
      if (!e || e->activations.size() != 1) return false;
      t = g_.nodes[static_cast<size_t>(producer)].inputs[e->activations[0]];
    }
    return false;
  }

  // The convolutions the target prefers channels-last, and the poolings their results
  // reach (layout-neutral loops that then sit between converted convolutions without
  // transposes of their own).
  void convert_convolutions() {
    std::vector<bool> convert(g_.nodes.size(), false);
    bool any = false;
    for (size_t k = 0; k < g_.nodes.size(); ++k) any |= convert[k] = convertible_convolution(g_.nodes[k]);
    if (!any) return;
    for (size_t k = 0; k < g_.nodes.size(); ++k) convert[k] = convert[k] || (follows(g_.nodes[k]) && fed_by_converted(k, convert));
    std::vector<Node> nodes;
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      Node& n = g_.nodes[k];
      if (!convert[k]) {
        nodes.push_back(std::move(n));
        continue;
      }
      TensorId x = n.inputs[0], y = n.outputs[0];
      if (int w = weights_index(n); w >= 0) n.inputs[static_cast<size_t>(w)] = channels_last_weights(n, static_cast<size_t>(w));
      nodes.push_back(transpose(x, kToChannelsLast, g_.tensor(x).name + "_nhwc"));
      n.inputs[0] = nodes.back().outputs[0];
      n.attrs[kChannelsLastAttr] = int64_t{1};
      n.outputs[0] = fresh_tensor(g_.tensor(y).name + "_nhwc");
      infer(n);
      TensorId y_nhwc = n.outputs[0];
      nodes.push_back(std::move(n));
      nodes.push_back(transpose(y_nhwc, kToChannelsFirst, "", y));
    }
    g_.nodes = std::move(nodes);
  }

  // w [M, C / group, KH, KW] as [M, KH, KW, C / group], or as [1, KH, KW, M] when each
  // group has one input channel (depthwise; onnx_conv_geometry reads it so).
  TensorId channels_last_weights(const Node& n, size_t index) {
    const Tensor& w = g_.tensor(n.inputs[index]);
    int64_t m = w.shape[0], c = w.shape[1], kh = w.shape[2], kw = w.shape[3];
    int64_t groups = n.attr_int("group", 1);
    bool depthwise = groups > 1 && c == 1 && groups == g_.tensor(n.inputs[0]).shape[1];
    size_t bytes = static_cast<size_t>(w.dtype.bytes());
    std::vector<uint8_t> data(w.data->size());
    for (int64_t o = 0; o < m; ++o)
      for (int64_t i = 0; i < c; ++i)
        for (int64_t y = 0; y < kh; ++y)
          for (int64_t x = 0; x < kw; ++x) {
            int64_t from = ((o * c + i) * kh + y) * kw + x;
            int64_t to = depthwise ? (y * kw + x) * m + o : ((o * kh + y) * kw + x) * c + i;
            std::copy_n(w.data->begin() + static_cast<std::ptrdiff_t>(from * bytes), bytes,
                        data.begin() + static_cast<std::ptrdiff_t>(to * bytes));
          }
    std::vector<int64_t> shape = depthwise ? std::vector<int64_t>{1, kh, kw, m} : std::vector<int64_t>{m, kh, kw, c};
    return g_.add_constant(w.name + "_nhwc", w.dtype, shape, std::move(data));
  }

  // ------------------------------------------------------------ 2. moving transposes down

  // Whether `shape` broadcasts to `to` without a change of rank (each extent equal or 1).
  static bool broadcasts_to(const std::vector<int64_t>& shape, const std::vector<int64_t>& to) {
    if (shape.size() != to.size()) return false;
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] != to[i] && shape[i] != 1) return false;
    return true;
  }

  // Whether transposing `shape` by `perm` moves only axes of extent 1 (a view).
  static bool moves_only_unit_axes(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm) {
    std::vector<int64_t> moved;
    for (int64_t axis : perm)
      if (shape[static_cast<size_t>(axis)] != 1) moved.push_back(axis);
    return std::is_sorted(moved.begin(), moved.end());
  }

  static std::vector<int64_t> inverse(const std::vector<int64_t>& perm) {
    std::vector<int64_t> inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    return inv;
  }

  // The elementwise entry of `n`, if a transpose can move below it: its other inputs are
  // constants of one element, its activations broadcast to its output's shape (the SE
  // block's [N, C, H, W] * [N, C, 1, 1]) without a change of rank.
  const Elementwise* elementwise(const Node& n) const {
    if (!n.body.empty() || n.outputs.size() != 1 || n.outputs[0] == kNoTensor) return nullptr;
    for (const Elementwise& e : kElementwise) {
      if (n.op != e.op) continue;
      for (size_t i : e.activations)
        if (n.input(i) == kNoTensor) return nullptr;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (n.inputs[i] == kNoTensor) continue;
        bool activation = std::count(e.activations.begin(), e.activations.end(), i) > 0;
        const Tensor& t = g_.tensor(n.inputs[i]);
        if (activation ? !broadcasts_to(t.shape, g_.tensor(n.outputs[0]).shape) : !(t.is_constant() && t.num_elements() == 1))
          return nullptr;
      }
      return &e;
    }
    return nullptr;
  }

  // The Transpose node that computes `t`, or null.
  const Node* transpose_of(TensorId t) const {
    int k = producer_of(t);
    return k >= 0 && g_.nodes[static_cast<size_t>(k)].op == "Transpose" ? &g_.nodes[static_cast<size_t>(k)] : nullptr;
  }

  // The index of the node that computes `t`, or -1 (an input, a constant).
  int producer_of(TensorId t) const {
    for (size_t k = 0; k < g_.nodes.size(); ++k)
      if (std::find(g_.nodes[k].outputs.begin(), g_.nodes[k].outputs.end(), t) != g_.nodes[k].outputs.end())
        return static_cast<int>(k);
    return -1;
  }

  // Whether a transpose of `perm` placed on `t` would disappear: every reader of `t` is a
  // transpose that undoes it, an operator of two operands (whose other operand may come
  // transposed alike), or an elementwise operator whose result would disappear so.
  bool would_cancel(TensorId t, const std::vector<int64_t>& perm, int depth = 0) const {
    std::vector<int> readers = g_.consumers(t);
    if (depth > 8 || readers.empty() || g_.is_graph_output(t)) return false;
    for (int r : readers) {
      const Node& next = g_.nodes[static_cast<size_t>(r)];
      if (next.op == "Transpose") {
        if (compose(perm, permutation(next)) != identity(perm.size())) return false;
        continue;
      }
      const Elementwise* e = elementwise(next);
      if (!e || (e->activations.size() == 1 && !would_cancel(next.outputs[0], perm, depth + 1))) return false;
    }
    return true;
  }

  // Moves transposes below one elementwise operator that reads them; whether it did. The
  // move pays when the transposes it reads then die and its result is no larger than
  // their inputs, or when the transpose it then computes would disappear.
  bool sink_transposes() {
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      const Node& n = g_.nodes[k];
      const Elementwise* e = elementwise(n);
      if (!e) continue;
      // Every activation transposed alike, or one that the transposed layout takes as a
      // view (a [N, C, 1, 1] operand read channels-last as [N, 1, 1, C]).
      std::vector<int64_t> perm;
      for (size_t i : e->activations)
        if (const Node* t = transpose_of(n.inputs[i]); t && perm.empty()) perm = permutation(*t);
      if (perm.empty()) continue;
      bool all_transposed = true, all_die = true;
      for (size_t i : e->activations) {
        const Node* t = transpose_of(n.inputs[i]);
        if (t && permutation(*t) == perm) {
          all_die &= !g_.is_graph_output(n.inputs[i]) && g_.consumers(n.inputs[i]).size() == 1;
          continue;
        }
        // Only a broadcast operand (fewer elements than the result) comes in as a view: an
        // operand of the result's own size that is a view both ways ([N, C, 1, 1] and
        // [N, 1, 1, C]) would move the transposes back and forth without end.
        const Tensor& operand = g_.tensor(n.inputs[i]);
        const std::vector<int64_t>& shape = operand.shape;
        if (t || shape.size() != perm.size() || operand.num_elements() >= g_.tensor(n.outputs[0]).num_elements() ||
            !moves_only_unit_axes(shape, inverse(perm))) {
          all_transposed = false;
          break;
        }
      }
      if (!all_transposed) continue;
      bool no_larger = g_.tensor(n.outputs[0]).dtype.bytes() <= g_.tensor(n.inputs[e->activations[0]]).dtype.bytes();
      if (!(all_die && no_larger) && !would_cancel(n.outputs[0], perm)) continue;
      sink_below(k, *e, perm);
      remove_unread_transposes();
      return true;
    }
    return false;
  }

  // Node k reads the transposes' inputs instead; its result is transposed to the tensor it
  // computed before.
  void sink_below(size_t k, const Elementwise& e, const std::vector<int64_t>& perm) {
    Node n = g_.nodes[k];
    std::vector<Node> before;  // views of the operands not transposed alike
    for (size_t i : e.activations) {
      const Node* t = transpose_of(n.inputs[i]);
      if (t && permutation(*t) == perm) {
        n.inputs[i] = t->inputs[0];
      } else {
        before.push_back(transpose(n.inputs[i], inverse(perm), g_.tensor(n.inputs[i]).name + "_moved"));
        n.inputs[i] = before.back().outputs[0];
      }
    }
    TensorId result = n.outputs[0];
    n.outputs[0] = fresh_tensor(g_.tensor(result).name + "_moved");
    infer(n);
    Node back = transpose(n.outputs[0], perm, "", result);
    g_.nodes[k] = std::move(n);
    g_.nodes.insert(g_.nodes.begin() + static_cast<std::ptrdiff_t>(k) + 1, std::move(back));
    g_.nodes.insert(g_.nodes.begin() + static_cast<std::ptrdiff_t>(k), before.begin(), before.end());
  }

  // ------------------------------------------------------------ 3. cancelling pairs

  // Readers of a Transpose that undoes the Transpose before it read that one's input
  // instead; whether any did.
  bool cancel_transposes() {
    bool changed = false;
    for (Node& second : g_.nodes) {
      if (second.op != "Transpose") continue;
      const Node* first = transpose_of(second.inputs[0]);
      if (!first || compose(permutation(*first), permutation(second)) != identity(permutation(second).size())) continue;
      TensorId original = first->inputs[0], result = second.outputs[0];
      if (g_.is_graph_output(result)) continue;
      for (Node& reader : g_.nodes) {
        if (&reader == &second) continue;
        for (TensorId& in : reader.inputs)
          if (in == result) in = original, changed = true;
        for (Node& step : reader.body)
          for (TensorId& in : step.inputs)
            if (in == result) in = original, changed = true;
      }
    }
    remove_unread_transposes();
    return changed;
  }

  // Transposes that nothing reads any more (their readers moved or now read the tensor a
  // cancelled pair started from): gone, they no longer count as readers, here or when
  // fuse_operators looks for a kernel's only reader.
  void remove_unread_transposes() {
    bool removed = true;
    while (removed) {
      removed = false;
      for (size_t k = 0; k < g_.nodes.size(); ++k) {
        if (g_.nodes[k].op != "Transpose") continue;
        TensorId out = g_.nodes[k].outputs[0];
        if (g_.is_graph_output(out) || !g_.consumers(out).empty()) continue;
        g_.nodes.erase(g_.nodes.begin() + static_cast<std::ptrdiff_t>(k));
        removed = true;
        break;
      }
    }
  }

  // ------------------------------------------------------------ 4. transposes that are views

  void reshape_trivial_transposes() {
    for (Node& n : g_.nodes) {
      if (n.op != "Transpose" || !n.body.empty()) continue;
      if (!moves_only_unit_axes(g_.tensor(n.inputs[0]).shape, permutation(n))) continue;
      const std::vector<int64_t>& shape = g_.tensor(n.outputs[0]).shape;
      std::vector<uint8_t> bytes(shape.size() * 8);
      for (size_t i = 0; i < shape.size(); ++i)
        for (int b = 0; b < 8; ++b) bytes[i * 8 + static_cast<size_t>(b)] = static_cast<uint8_t>(static_cast<uint64_t>(shape[i]) >> (8 * b));
      TensorId shape_id = g_.add_constant(g_.tensor(n.outputs[0]).name + "_shape", DataType::Int(64),
                                          {static_cast<int64_t>(shape.size())}, std::move(bytes));
      n.op = "Reshape";
      n.attrs.clear();
      n.inputs = {n.inputs[0], shape_id};
    }
  }

  // ------------------------------------------------------------ helpers

  // A Transpose's permutation; without a perm attribute, ONNX's default: the axes reversed.
  std::vector<int64_t> permutation(const Node& transpose) const {
    if (transpose.has_attr("perm")) return transpose.attr_ints("perm");
    std::vector<int64_t> reversed = identity(g_.tensor(transpose.inputs[0]).shape.size());
    std::reverse(reversed.begin(), reversed.end());
    return reversed;
  }

  static std::vector<int64_t> identity(size_t rank) {
    std::vector<int64_t> p(rank);
    for (size_t i = 0; i < rank; ++i) p[i] = static_cast<int64_t>(i);
    return p;
  }

  // The permutation of `second` applied after `first` (Transpose: out[i] = in[perm[i]]).
  static std::vector<int64_t> compose(const std::vector<int64_t>& first, const std::vector<int64_t>& second) {
    if (first.size() != second.size()) return {};
    std::vector<int64_t> p;
    for (int64_t axis : second) p.push_back(first[static_cast<size_t>(axis)]);
    return p;
  }

  TensorId fresh_tensor(const std::string& name) {
    Tensor t;
    t.name = name;
    return g_.add_tensor(std::move(t));
  }

  // A Transpose of `input`; its result is `output` (a new tensor named `name` when none).
  Node transpose(TensorId input, const std::vector<int64_t>& perm, const std::string& name, TensorId output = kNoTensor) {
    Node t;
    t.op = "Transpose";
    t.name = g_.tensor(input).name + "_transposed";
    t.inputs = {input};
    t.outputs = {output != kNoTensor ? output : fresh_tensor(name)};
    t.attrs["perm"] = perm;
    if (output == kNoTensor) infer(t);
    return t;
  }

  void infer(Node& n) { for_node(n, [&] { find_op(n.op)->infer(g_, n); }); }

  Graph& g_;
  const TargetFacts& target_;
};

}  // namespace

void channels_last(Graph& g, const TargetFacts& target) { ChannelsLast(g, target).run(); }

}  // namespace aotc
