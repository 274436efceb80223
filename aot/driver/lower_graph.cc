#include "aot/driver/lower_graph.h"

#include <algorithm>
#include <map>
#include <set>

#include "aot/graph/external.h"
#include "aot/graph/lowered_op.h"
#include "aot/graph/op_registry.h"
#include "lowering/ops/onnx/control_flow.h"

namespace aotc {
namespace {

class GraphLowering {
 public:
  explicit GraphLowering(CompiledModel& m) : m_(m), g_(m.graph), views_(view_inputs(m.graph)) {}

  void run() {
    lower_nodes(g_.nodes);
    update_state();
  }

 private:
  // The tensor whose storage `id` ends up in, through views and the aliases made so far.
  TensorId storage_root(TensorId id) const {
    for (;;) {
      if (auto v = views_.find(id); v != views_.end()) id = v->second;
      else if (auto a = m_.aliases.find(id); a != m_.aliases.end()) id = a->second;
      else return id;
    }
  }

  void lower_nodes(std::vector<Node>& nodes) {
    for (Node& node : nodes) {
      if (node.op == "If") lower_if(node);
      else if (node.op == "Loop" || node.op == "Scan") lower_loop(node);
      else if (!find_op(node.op)->is_view) lower_kernel(node);
    }
  }

  void lower_kernel(const Node& node) {
    std::string base = node.op;
    std::transform(base.begin(), base.end(), base.begin(), [](unsigned char c) { return std::tolower(c); });
    for (char& c : base)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    std::string fname = base + "_" + std::to_string(counts_[base]++);
    LoweredOp lowered = for_node(node, [&] { return find_op(node.op)->lower(LowerContext{g_, node, fname, m_.target}); });
    Step k;
    k.label = lowered.func.attrs.count("source_node") ? lowered.func.attrs.at("source_node") : node.label();
    k.c_name = fname;
    k.func = lowered.func;
    k.on_device = node.op == kExternalOp;
    k.args = lowered.args;
    k.outputs = node.outputs;
    if (!lowered.in_place_inputs.empty()) {
      k.in_place_output = node.outputs.at(0);
      k.in_place_inputs = lowered.in_place_inputs;
    }
    if (lowered.overlap_input != kNoTensor) {
      k.in_place_output = node.outputs.at(0);
      k.overlap_input = lowered.overlap_input;
      k.overlap_distance = lowered.overlap_distance;
      k.overlap_at_start = lowered.overlap_at_start;
    }
    m_.steps.push_back(std::move(k));
  }

  void control(Step::Kind kind, const Node& node, std::vector<TensorId> args = {}) {
    Step s;
    s.kind = kind;
    s.label = node.label();
    s.args = std::move(args);
    m_.steps.push_back(std::move(s));
  }

  // Copies all of `from` into `to` (nothing when they share storage).
  void copy(TensorId from, TensorId to, const Node& node) {
    if (storage_root(from) == storage_root(to)) return;
    CopyShape shape;
    shape.bytes = g_.tensor(to).size_bytes();
    copy_step(from, to, shape, node);
  }

  void copy_step(TensorId from, TensorId to, const CopyShape& shape, const Node& node) {
    control(Step::Kind::kCopy, node, {from, to});
    m_.steps.back().copy = shape;
  }

  TensorId temporary(TensorId like, const std::string& suffix) {
    Tensor t;
    t.name = g_.tensor(like).name + suffix;
    t.dtype = g_.tensor(like).dtype;
    t.shape = g_.tensor(like).shape;
    t.shape_known = true;
    return g_.add_tensor(std::move(t));
  }

  // --state: at the end of the run, each state takes its next value, which is then no
  // longer an output. A next value that a step computes into memory of its own is
  // computed into the state's second buffer instead (CompiledModel::next_values): no copy.
  void update_state() {
    for (auto& [state, next] : g_.state_updates) {
      const Tensor& a = g_.tensor(state);
      const Tensor& b = g_.tensor(next);
      if (a.dtype != b.dtype || a.shape != b.shape)
        throw CompileError("--state " + a.name + "=" + b.name + ": the input is " + a.dtype.str() + shape_str(a.shape) +
                           " but the output " + b.dtype.str() + shape_str(b.shape));
      g_.outputs.erase(std::find(g_.outputs.begin(), g_.outputs.end(), next));
      TensorId root = storage_root(next);
      const Tensor& r = g_.tensor(root);
      bool computed = std::any_of(m_.steps.begin(), m_.steps.end(), [&](const Step& s) {
        return std::any_of(s.args.begin(), s.args.end(), [&](TensorId id) { return storage_root(id) == root; });
      });
      bool own_memory = !r.is_constant() && !r.is_variable && !g_.is_graph_output(root) &&
                        std::find(g_.inputs.begin(), g_.inputs.end(), root) == g_.inputs.end() && !m_.next_values.count(root);
      if (computed && own_memory) {
        m_.next_values[root] = state;
        continue;
      }
      Node update;
      update.name = a.name;
      update.op = "state update";
      copy(next, state, update);
    }
  }

  // Lowers the nodes of `sub`, a subgraph of the control-flow node `node`, with the graph
  // seen as that subgraph (with_subgraph_as_graph), as the graph passes saw it: a
  // lowering asks the graph who reads a tensor (an LSTM, a TopK, a MaxPool compute only
  // the outputs something reads; a Conv stages its output over an input only it reads),
  // and in a subgraph the readers are its nodes and its results, the values of outer
  // scopes its inputs. Seen from the outer graph, a value only the subgraph reads has no
  // reader at all. Lowering changes no node list, so `node` (an element of the outer
  // list, which the swap hands to `sub` meanwhile) stays where it is.
  void lower_subgraph(const Node& node, Subgraph& sub) {
    with_subgraph_as_graph(g_, sub, captured_inputs(node), [&](Graph& inner) { lower_nodes(inner.nodes); });
  }

  // ---------------------------------------------------------------- If

  void lower_if(Node& node) {
    control(Step::Kind::kIf, node, {node.inputs.at(0)});
    lower_branch(node, mutable_subgraph(node, "then_branch"));
    control(Step::Kind::kElse, node);
    lower_branch(node, mutable_subgraph(node, "else_branch"));
    control(Step::Kind::kEndIf, node);
  }

  void lower_branch(const Node& node, Subgraph& branch) {
    std::set<TensorId> made_by_kernel;
    for (const Node& n : branch.nodes)
      if (!find_op(n.op)->is_view) made_by_kernel.insert(n.outputs.begin(), n.outputs.end());
    std::vector<std::pair<TensorId, TensorId>> copies;
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      TensorId result = branch.outputs[j], out = node.outputs[j];
      if (out == kNoTensor) continue;
      bool once = std::count(branch.outputs.begin(), branch.outputs.end(), result) == 1;
      if (made_by_kernel.count(result) && once && storage_root(result) == result) m_.aliases[result] = out;
      else copies.emplace_back(result, out);
    }
    lower_subgraph(node, branch);
    for (auto& [from, to] : copies) copy(from, to, node);
  }

  // ---------------------------------------------------------------- Loop and Scan

  // Whether a subgraph reads `id` (its nodes, their fused steps, nested subgraphs through
  // their captured inputs) or gives it as an output.
  static bool reads(const Subgraph& sub, TensorId id) {
    if (std::count(sub.outputs.begin(), sub.outputs.end(), id)) return true;
    for (const Node& n : sub.nodes) {
      if (std::count(n.inputs.begin(), n.inputs.end(), id)) return true;
      for (const Node& step : n.body)
        if (std::count(step.inputs.begin(), step.inputs.end(), id)) return true;
    }
    return false;
  }

  // The slice at one index along `axis` of a tensor: `blocks` runs of `bytes`, `stride`
  // bytes apart in the whole tensor.
  struct SliceGeometry {
    int64_t blocks = 1, bytes = 0, stride = 0;
  };
  SliceGeometry slice_geometry(const Tensor& whole, int64_t axis) const {
    SliceGeometry s;
    s.bytes = whole.dtype.bytes();
    for (size_t d = 0; d < whole.shape.size(); ++d) {
      if (static_cast<int64_t>(d) < axis) s.blocks *= whole.shape[d];
      else if (static_cast<int64_t>(d) > axis) s.bytes *= whole.shape[d];
    }
    s.stride = whole.shape[static_cast<size_t>(axis)] * s.bytes;
    return s;
  }

  // Copies the current iteration's slice along `axis` of `whole` out of it into `slice`
  // (a Scan input), or into it from `slice` (a scan output) when `into_whole`.
  void copy_slice(TensorId whole, TensorId slice, int64_t axis, bool reverse, int64_t trips, bool into_whole, const Node& node) {
    SliceGeometry s = slice_geometry(g_.tensor(whole), axis);
    CopyShape shape;
    shape.bytes = s.bytes;
    shape.blocks = s.blocks;
    shape.trips = trips;
    (into_whole ? shape.to_stride : shape.from_stride) = s.stride;
    (into_whole ? shape.from_stride : shape.to_stride) = s.bytes;
    (into_whole ? shape.to_step : shape.from_step) = s.bytes;
    (into_whole ? shape.to_reverse : shape.from_reverse) = reverse;
    if (into_whole) copy_step(slice, whole, shape, node);
    else copy_step(whole, slice, shape, node);
  }

  void lower_loop(Node& node) {
    LoopFacts f = loop_facts(g_, node);
    Subgraph& body = mutable_subgraph(node, "body");
    bool scan = node.op == "Scan";
    size_t param0 = scan ? 0 : 2;  // first loop-carried parameter of the body
    size_t result0 = scan ? 0 : 1;  // first loop-carried result of the body

    // Each loop-carried value lives in the loop's output for it (or a temporary), which
    // the body reads as its parameter.
    std::vector<TensorId> buffers;
    for (size_t i = 0; i < f.carried; ++i) {
      TensorId initial = node.inputs.at(param0 + i);
      TensorId buffer = node.outputs[i] != kNoTensor ? node.outputs[i] : temporary(initial, "_carried");
      copy(initial, buffer, node);
      m_.aliases[body.inputs[param0 + i]] = buffer;
      buffers.push_back(buffer);
    }
    TensorId condition = kNoTensor;  // the buffer of a Loop's condition
    if (!scan && (f.condition != kNoTensor || f.body_decides || reads(body, body.inputs[1]))) {
      TensorId initial = f.condition;
      if (initial == kNoTensor) initial = g_.add_constant(node.name + "_true", DataType::Bool(), {}, {1});
      condition = temporary(initial, "");
      g_.tensor(condition).name = (node.name.empty() ? "loop" : node.name) + "_condition";
      copy(initial, condition, node);
      m_.aliases[body.inputs[1]] = condition;
    }

    Step loop;
    loop.kind = Step::Kind::kLoop;
    loop.label = node.label();
    loop.max_trips = f.max_trips;
    loop.trip_count = f.trip_count;
    loop.bounded_by_max = f.bound_by_option;
    if (f.condition != kNoTensor || f.body_decides) loop.condition = condition;
    for (TensorId id : {loop.trip_count, loop.condition})
      if (id != kNoTensor) loop.args.push_back(id);
    m_.steps.push_back(std::move(loop));

    if (!scan && reads(body, body.inputs[0])) control(Step::Kind::kSetIteration, node, {body.inputs[0]});
    for (size_t k = 0; k < f.scan_inputs; ++k)
      copy_slice(node.inputs.at(f.carried + k), body.inputs.at(f.carried + k), f.input_axes[k], f.input_reverse[k], f.max_trips,
                 false, node);

    lower_subgraph(node, body);

    for (size_t k = 0; k < f.scan_outputs; ++k)
      if (TensorId whole = node.outputs.at(f.carried + k); whole != kNoTensor)
        copy_slice(whole, body.outputs.at(result0 + f.carried + k), f.output_axes[k], f.output_reverse[k], f.max_trips, true,
                   node);

    // The next iteration's values. One that is another carried value's buffer (a swap)
    // goes through a temporary, so that every copy reads this iteration's values.
    std::vector<std::pair<TensorId, TensorId>> next;
    if (f.body_decides) next.emplace_back(body.outputs[0], condition);
    for (size_t i = 0; i < f.carried; ++i) next.emplace_back(body.outputs[result0 + i], buffers[i]);
    std::set<TensorId> written;
    for (auto& [from, to] : next) written.insert(storage_root(to));
    for (auto& [from, to] : next) {
      TensorId root = storage_root(from);
      if (root != storage_root(to) && written.count(root)) {
        TensorId held = temporary(from, "_next");
        copy(from, held, node);
        from = held;
      }
    }
    for (auto& [from, to] : next) copy(from, to, node);
    control(Step::Kind::kEndLoop, node);
  }

  CompiledModel& m_;
  Graph& g_;
  const std::map<TensorId, TensorId> views_;  // view output -> its input, in every subgraph
  std::map<std::string, int> counts_;   // kernels per operator, for unique names
};

}  // namespace

void lower_graph(CompiledModel& model) {
  model.steps.clear();
  model.aliases.clear();
  GraphLowering(model).run();
}

}  // namespace aotc
