// If, Loop and Scan: shape functions that infer the subgraphs, If's replacement by the
// branch a constant condition takes, and loop_facts (control_flow.h).
//
// Shapes are static, so both branches of an If must give each output the same type and
// shape, and a loop-carried value must keep its shape from one iteration to the next.
// A Loop's scan outputs stack one slice per iteration, so they have a static shape only
// when every iteration runs: a trip count known at compile time, and a condition that
// neither starts nor becomes false at run time.
#include "lowering/ops/onnx/control_flow.h"

#include <algorithm>
#include <map>

#include "aot/base/element_bytes.h"
#include "aot/graph/op_registry.h"
#include "aot/passes/graph_passes.h"
#include "lowering/ops/onnx/loop_trip_count.h"

namespace aotc {

const Subgraph& subgraph(const Node& node, const std::string& name) {
  for (const Subgraph& sub : node.subgraphs)
    if (sub.name == name) return sub;
  node_error(node, "has no subgraph '" + name + "'");
}

Subgraph& mutable_subgraph(Node& node, const std::string& name) { return const_cast<Subgraph&>(subgraph(node, name)); }

std::vector<TensorId> captured_inputs(const Node& node) {
  return std::vector<TensorId>(node.inputs.begin() + static_cast<long>(node.declared_inputs()), node.inputs.end());
}

namespace {

std::string typed_shape(const Tensor& t) { return t.dtype.str() + shape_str(t.shape); }

// Gives a subgraph parameter the type and shape of what it receives.
void set_parameter(Graph& g, const Subgraph& sub, size_t index, DataType dtype, std::vector<int64_t> shape) {
  Tensor& p = g.tensor(sub.inputs[index]);
  p.dtype = dtype;
  p.shape = std::move(shape);
  p.shape_known = true;
}

void infer_subgraph(Graph& g, Node& node, Subgraph& sub) {
  with_subgraph_as_graph(g, sub, captured_inputs(node), [](Graph& inner) { infer_shapes(inner); });
}

bool is_true_scalar(const Tensor& t) { return t.is_constant() && t.num_elements() == 1 && t.element_as_int(0) != 0; }

void require_condition(const Graph& g, const Node& node, TensorId id, const std::string& what) {
  const Tensor& c = g.tensor(id);
  if (!c.dtype.is_bool() || c.num_elements() != 1)
    node_error(node, what + " '" + c.name + "' must be one boolean, not " + typed_shape(c));
}

// ---------------------------------------------------------------- If

void infer_if(Graph& g, Node& node) {
  require_input(g, node, 0);
  require_condition(g, node, node.inputs[0], "the condition");
  Subgraph& then_branch = mutable_subgraph(node, "then_branch");
  Subgraph& else_branch = mutable_subgraph(node, "else_branch");
  for (Subgraph* branch : {&then_branch, &else_branch}) {
    if (!branch->inputs.empty()) node_error(node, "branch '" + branch->name + "' must have no parameters");
    if (branch->outputs.size() != node.outputs.size())
      node_error(node, "branch '" + branch->name + "' gives " + std::to_string(branch->outputs.size()) + " outputs, the If has " +
                           std::to_string(node.outputs.size()));
    infer_subgraph(g, node, *branch);
  }
  for (size_t j = 0; j < node.outputs.size(); ++j) {
    const Tensor& a = g.tensor(then_branch.outputs[j]);
    const Tensor& b = g.tensor(else_branch.outputs[j]);
    if (a.dtype != b.dtype || a.shape != b.shape)
      node_error(node, "output " + std::to_string(j) + ": the then branch gives " + typed_shape(a) + " and the else branch " +
                           typed_shape(b) + "; aotc compiles static shapes, so both branches must give the same");
    set_output(g, node, j, a.dtype, a.shape);
  }
}

// A constant condition: the nodes of the branch taken, then an Identity from each of its
// outputs to the If's.
std::optional<std::vector<Node>> expand_if(Graph& g, const Node& node) {
  TensorId cond = node.input(0);
  if (cond == kNoTensor || !g.tensor(cond).is_constant() || g.tensor(cond).num_elements() != 1) return std::nullopt;
  const Subgraph& taken = subgraph(node, g.tensor(cond).element_as_int(0) != 0 ? "then_branch" : "else_branch");
  if (taken.outputs.size() != node.outputs.size())
    node_error(node, "branch '" + taken.name + "' gives " + std::to_string(taken.outputs.size()) + " outputs, the If has " +
                         std::to_string(node.outputs.size()));
  std::vector<Node> nodes = taken.nodes;
  for (size_t j = 0; j < node.outputs.size(); ++j) {
    if (node.outputs[j] == kNoTensor) continue;
    Node identity;
    identity.name = node.name + "/" + taken.name + "/" + std::to_string(j);
    identity.op = "Identity";
    identity.inputs = {taken.outputs[j]};
    identity.outputs = {node.outputs[j]};
    nodes.push_back(std::move(identity));
  }
  return nodes;
}

// ---------------------------------------------------------------- Loop

// The value a body output has, looking through Identity nodes of the body.
TensorId through_identities(const Subgraph& body, TensorId id) {
  size_t steps = 0;  // an Identity reads only what is defined before it, but stay finite anyway
  for (bool moved = true; moved && steps++ <= body.nodes.size();) {
    moved = false;
    for (const Node& n : body.nodes)
      if (n.op == "Identity" && !n.outputs.empty() && n.outputs[0] == id && !n.inputs.empty()) {
        id = n.inputs[0];
        moved = true;
      }
  }
  return id;
}

// The counts a Loop's inputs, outputs and body must agree on; node_error when they do not.
void check_loop_arity(const Node& node) {
  const Subgraph& body = subgraph(node, "body");
  size_t declared = node.declared_inputs();
  if (declared < 2) node_error(node, "needs at least the inputs M and cond (either may be empty)");
  size_t carried = declared - 2;
  if (body.inputs.size() != carried + 2)
    node_error(node, "its body has " + std::to_string(body.inputs.size()) + " parameters; it needs " + std::to_string(carried + 2) +
                         " (iteration number, condition, and one per loop-carried value)");
  if (body.outputs.size() < carried + 1)
    node_error(node, "its body gives " + std::to_string(body.outputs.size()) + " outputs; it needs at least " +
                         std::to_string(carried + 1) + " (condition and loop-carried values)");
  if (node.outputs.size() != body.outputs.size() - 1)
    node_error(node, "has " + std::to_string(node.outputs.size()) + " outputs but its body gives " +
                         std::to_string(body.outputs.size() - 1) + " values besides the condition");
}

void infer_loop(Graph& g, Node& node) {
  check_loop_arity(node);
  Subgraph& body = mutable_subgraph(node, "body");
  size_t carried = node.declared_inputs() - 2;
  if (node.input(0) != kNoTensor) {
    const Tensor& m = require_input(g, node, 0);
    if (m.dtype != DataType::Int(64) || m.num_elements() != 1)
      node_error(node, "the trip count '" + m.name + "' must be one int64, not " + typed_shape(m));
  }
  if (node.input(1) != kNoTensor) {
    require_input(g, node, 1);
    require_condition(g, node, node.inputs[1], "the condition");
  }
  set_parameter(g, body, 0, DataType::Int(64), {});
  set_parameter(g, body, 1, DataType::Bool(), {});
  for (size_t i = 0; i < carried; ++i) {
    const Tensor& v = require_input(g, node, 2 + i);
    set_parameter(g, body, 2 + i, v.dtype, v.shape);
  }
  infer_subgraph(g, node, body);
  require_condition(g, node, body.outputs[0], "the body's condition output");
  if (node.input(0) == kNoTensor && !node.has_attr(kCountedTripsAttr)) {
    if (std::optional<int64_t> trips = counted_trips(g, node)) {
      node.attrs[kCountedTripsAttr] = *trips;
      // Known for every iteration now, the condition need not be computed on the device.
      body.outputs[0] = g.add_constant(node.name + "/continues", DataType::Bool(), {}, {1});
    }
  }
  for (size_t i = 0; i < carried; ++i) {
    const Tensor& before = g.tensor(node.inputs[2 + i]);
    const Tensor& after = g.tensor(body.outputs[1 + i]);
    if (before.dtype != after.dtype || before.shape != after.shape)
      node_error(node, "loop-carried value " + std::to_string(i) + " ('" + before.name + "') is " + typed_shape(before) +
                           " before the loop and " + typed_shape(after) + " after an iteration; aotc needs it to keep its shape");
    set_output(g, node, i, before.dtype, before.shape);
  }
  LoopFacts facts = loop_facts(g, node);
  for (size_t k = 0; k < facts.scan_outputs; ++k) {
    const Tensor& slice = g.tensor(body.outputs[1 + carried + k]);
    if (!facts.exact)
      node_error(node, "scan output " + std::to_string(k) + " ('" + slice.name + "') stacks one slice per iteration, so its "
                           "shape depends on how many iterations run, which is decided at run time (the trip count or "
                           "the condition is computed); aotc compiles static shapes: make the trip count a constant "
                           "(--bind an input it depends on) and the condition constant true");
    std::vector<int64_t> shape = slice.shape;
    shape.insert(shape.begin(), facts.max_trips);
    set_output(g, node, carried + k, slice.dtype, shape);
  }
}

LoopFacts facts_of_loop(const Graph& g, const Node& node) {
  const Subgraph& body = subgraph(node, "body");
  LoopFacts f;
  f.carried = node.declared_inputs() - 2;
  f.scan_outputs = node.outputs.size() - f.carried;
  f.output_axes.assign(f.scan_outputs, 0);
  f.output_reverse.assign(f.scan_outputs, false);
  bool bounded = false;
  for (size_t i = 0; i < 2; ++i)
    if (node.input(i) != kNoTensor && g.tensor(node.input(i)).num_elements() != 1)
      node_error(node, std::string(i == 0 ? "the trip count" : "the condition") + " must be one value, not " +
                           typed_shape(g.tensor(node.input(i))));
  if (TensorId m = node.input(0); m != kNoTensor) {
    if (g.tensor(m).is_constant()) {
      f.max_trips = std::max<int64_t>(0, g.tensor(m).element_as_int(0));
      bounded = true;
    } else {
      f.trip_count = m;
    }
  }
  bool counted = !bounded && node.has_attr(kCountedTripsAttr);
  if (counted) {
    // The condition's own arithmetic says when it turns false (loop_trip_count.h).
    f.max_trips = node.attr_int(kCountedTripsAttr, 0);
    f.exact = true;
    return f;
  }
  bool starts_false = false;
  if (TensorId c = node.input(1); c != kNoTensor) {
    if (!g.tensor(c).is_constant()) f.condition = c;
    else starts_false = g.tensor(c).element_as_int(0) == 0;
  }
  TensorId next = through_identities(body, body.outputs.at(0));
  f.body_decides = next != body.inputs.at(1) && !is_true_scalar(g.tensor(next));
  if (!bounded) {
    if (!node.has_attr(kMaxTripAttr))
      node_error(node, std::string(node.input(0) == kNoTensor
                                       ? "has no trip count, and its condition does not follow from constants alone"
                                       : "has a trip count computed at run time") +
                           "; aotc plans memory statically, so it needs the most iterations the loop may run: --max-trip " +
                           (node.name.empty() ? "<node>" : node.name) + "=N (or --bind the inputs the trip count comes from)");
    f.max_trips = node.attr_int(kMaxTripAttr, 0);
    f.bound_by_option = true;
    if (f.max_trips < 0) node_error(node, "--max-trip must not be negative");
  }
  if (starts_false) f.max_trips = 0, f.bound_by_option = false;  // no iteration runs
  f.exact = bounded && f.condition == kNoTensor && !f.body_decides;
  return f;
}

// ---------------------------------------------------------------- Loop unrolling
//
// A body may need its iteration number at compile time: `x[i:i+1]` is a Slice whose start
// is the iteration number, and a Slice's bounds decide its output's shape, which aotc
// must know. Such a loop, when its iterations are a known number (at most
// kMostUnrolledIterations), becomes that many copies of its body, each with its iteration
// number a constant; every other loop stays a loop.

constexpr int64_t kMostUnrolledIterations = 64;

// Copies `n` for one unrolled iteration: its reads through `renamed`, its outputs (and
// the tensors of its subgraphs) new tensors, recorded in `renamed`.
Node clone_node(Graph& g, const Node& n, std::map<TensorId, TensorId>& renamed, const std::string& suffix) {
  auto read = [&](TensorId id) {
    auto it = renamed.find(id);
    return it == renamed.end() ? id : it->second;
  };
  auto fresh = [&](TensorId id) {
    if (id == kNoTensor) return id;
    Tensor t = g.tensor(id);
    t.name += suffix;
    TensorId copy = g.add_tensor(std::move(t));
    renamed[id] = copy;
    return copy;
  };
  Node c = n;
  c.name = n.name + suffix;
  for (TensorId& in : c.inputs) in = read(in);
  for (size_t s = 0; s < n.subgraphs.size(); ++s) {
    Subgraph& sub = c.subgraphs[s];
    for (TensorId& p : sub.inputs) p = fresh(p);
    sub.nodes.clear();
    for (const Node& inner : n.subgraphs[s].nodes) sub.nodes.push_back(clone_node(g, inner, renamed, suffix));
    for (TensorId& out : sub.outputs) out = read(out);
  }
  for (TensorId& out : c.outputs) out = fresh(out);
  return c;
}

// Whether the loop's body compiles only with a constant iteration number: inferring it on
// a copy of the graph fails, and succeeds once the iteration number is a constant.
bool needs_constant_iteration(const Graph& g, const Node& node) {
  auto infers = [&](bool constant_iteration) {
    Graph trial = g;
    Node copy = node;
    if (constant_iteration) trial.tensor(subgraph(copy, "body").inputs.at(0)).data = std::vector<uint8_t>(8, 0);
    try {
      infer_loop(trial, copy);
      return true;
    } catch (const CompileError&) {
      return false;
    }
  };
  return !infers(false) && infers(true);
}

std::optional<std::vector<Node>> expand_loop(Graph& g, const Node& node) {
  LoopFacts f;
  try {
    check_loop_arity(node);  // else infer_loop says what is wrong
    f = facts_of_loop(g, node);
  } catch (const CompileError&) {
    return std::nullopt;  // infer_loop says what is wrong
  }
  const Subgraph& body = subgraph(node, "body");
  if (!f.exact || f.max_trips > kMostUnrolledIterations || !needs_constant_iteration(g, node)) return std::nullopt;

  std::vector<Node> nodes;
  std::vector<TensorId> carried(node.inputs.begin() + 2, node.inputs.begin() + static_cast<long>(node.declared_inputs()));
  std::vector<std::vector<TensorId>> slices(f.scan_outputs);
  TensorId always = g.add_constant(node.name + "/true", DataType::Bool(), {}, {1});
  for (int64_t t = 0; t < f.max_trips; ++t) {
    std::string suffix = "/" + std::to_string(t);
    std::map<TensorId, TensorId> renamed;
    renamed[body.inputs[0]] = g.add_constant(node.name + "/iteration" + suffix, DataType::Int(64), {}, encode_int_elements(DataType::Int(64), {t}));
    renamed[body.inputs[1]] = always;
    for (size_t i = 0; i < f.carried; ++i) renamed[body.inputs[2 + i]] = carried[i];
    for (const Node& n : body.nodes) nodes.push_back(clone_node(g, n, renamed, suffix));
    auto value = [&](TensorId id) { return renamed.count(id) ? renamed.at(id) : id; };
    for (size_t i = 0; i < f.carried; ++i) carried[i] = value(body.outputs[1 + i]);
    for (size_t k = 0; k < f.scan_outputs; ++k) slices[k].push_back(value(body.outputs[1 + f.carried + k]));
  }
  auto add = [&](const std::string& op, std::vector<TensorId> inputs, TensorId output, const std::string& name) {
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = std::move(inputs);
    n.outputs = {output};
    nodes.push_back(std::move(n));
    return &nodes.back();
  };
  for (size_t i = 0; i < f.carried; ++i)
    if (node.outputs[i] != kNoTensor) add("Identity", {carried[i]}, node.outputs[i], node.name + "/carried" + std::to_string(i));
  TensorId axis0 = g.add_constant(node.name + "/axis0", DataType::Int(64), {1}, encode_int_elements(DataType::Int(64), {0}));
  for (size_t k = 0; k < f.scan_outputs; ++k) {
    TensorId out = node.outputs[f.carried + k];
    if (out == kNoTensor) continue;
    std::vector<TensorId> stacked;
    for (TensorId slice : slices[k]) {
      Tensor t;
      t.name = g.tensor(out).name + "/" + std::to_string(stacked.size());
      std::string name = t.name;
      TensorId one = g.add_tensor(std::move(t));
      Node* unsqueeze = add("Unsqueeze", {slice}, one, name);
      if (g.opset < 13) unsqueeze->attrs["axes"] = std::vector<int64_t>{0};
      else unsqueeze->inputs.push_back(axis0);
      stacked.push_back(one);
    }
    add("Concat", stacked, out, node.name + "/scan" + std::to_string(k))->attrs["axis"] = int64_t{0};
  }
  return nodes;
}

// ---------------------------------------------------------------- Scan

std::vector<int64_t> axes_attr(const Graph& g, const Node& node, const std::string& key, size_t count,
                               const std::vector<TensorId>& tensors, bool insert) {
  std::vector<int64_t> axes = node.attr_ints(key, std::vector<int64_t>(count, 0));
  if (axes.size() != count)
    node_error(node, "attribute '" + key + "' has " + std::to_string(axes.size()) + " entries for " + std::to_string(count) +
                         " tensors");
  for (size_t i = 0; i < count; ++i) {
    int64_t rank = static_cast<int64_t>(g.tensor(tensors[i]).shape.size()) + (insert ? 1 : 0);
    axes[i] = normalize_axis(node, axes[i], rank);
  }
  return axes;
}

std::vector<bool> directions_attr(const Node& node, const std::string& key, size_t count) {
  std::vector<int64_t> d = node.attr_ints(key, std::vector<int64_t>(count, 0));
  if (d.size() != count)
    node_error(node, "attribute '" + key + "' has " + std::to_string(d.size()) + " entries for " + std::to_string(count) + " tensors");
  std::vector<bool> reverse;
  for (int64_t v : d) {
    if (v != 0 && v != 1) node_error(node, "attribute '" + key + "' holds " + std::to_string(v) + "; directions are 0 or 1");
    reverse.push_back(v == 1);
  }
  return reverse;
}

LoopFacts facts_of_scan(const Graph& g, const Node& node) {
  const Subgraph& body = subgraph(node, "body");
  LoopFacts f;
  f.scan_inputs = static_cast<size_t>(node.attr_int("num_scan_inputs", 0));
  size_t declared = node.declared_inputs();
  if (f.scan_inputs < 1 || f.scan_inputs > declared)
    node_error(node, "num_scan_inputs " + std::to_string(node.attr_int("num_scan_inputs", 0)) + " must be between 1 and " +
                         std::to_string(declared));
  f.carried = declared - f.scan_inputs;
  if (node.outputs.size() < f.carried) node_error(node, "has fewer outputs than state values");
  if (body.inputs.size() != f.carried + f.scan_inputs)
    node_error(node, "its body has " + std::to_string(body.inputs.size()) + " parameters; it needs " +
                         std::to_string(f.carried + f.scan_inputs) + " (state values, then one slice per scan input)");
  if (body.outputs.size() != node.outputs.size())
    node_error(node, "its body gives " + std::to_string(body.outputs.size()) + " outputs, the Scan has " +
                         std::to_string(node.outputs.size()));
  f.scan_outputs = node.outputs.size() - f.carried;
  std::vector<TensorId> scanned(node.inputs.begin() + static_cast<long>(f.carried), node.inputs.begin() + static_cast<long>(declared));
  for (TensorId id : scanned)
    if (g.tensor(id).shape.empty())
      node_error(node, "scan input '" + g.tensor(id).name + "' is a scalar; a scan input needs an axis to iterate over");
  f.input_axes = axes_attr(g, node, "scan_input_axes", f.scan_inputs, scanned, false);
  f.input_reverse = directions_attr(node, "scan_input_directions", f.scan_inputs);
  std::vector<TensorId> slices(body.outputs.begin() + static_cast<long>(f.carried), body.outputs.end());
  bool slices_known = std::all_of(slices.begin(), slices.end(), [&](TensorId id) { return g.tensor(id).shape_known; });
  if (slices_known) f.output_axes = axes_attr(g, node, "scan_output_axes", f.scan_outputs, slices, true);
  f.output_reverse = directions_attr(node, "scan_output_directions", f.scan_outputs);
  for (size_t i = 0; i < f.scan_inputs; ++i) {
    const Tensor& x = g.tensor(scanned[i]);
    int64_t trips = x.shape[static_cast<size_t>(f.input_axes[i])];
    if (i > 0 && trips != f.max_trips)
      node_error(node, "scan inputs disagree on the number of iterations: " + std::to_string(f.max_trips) + " and " +
                           std::to_string(trips) + " ('" + x.name + "')");
    f.max_trips = trips;
  }
  f.exact = true;
  return f;
}

// Scan of opset 8 has a batch axis 0 on every input and output (scan inputs are
// [batch, sequence, ...]) and an optional sequence_lens first. With one batch and no
// sequence_lens it is Scan of opset 9 between Reshapes that drop and restore the batch
// axis; kScan9Attr marks the replacement.
constexpr const char* kScan9Attr = "control.scan9";

std::optional<std::vector<Node>> expand_scan8(Graph& g, const Node& node) {
  if (g.opset >= 9 || node.has_attr(kScan9Attr)) return std::nullopt;
  if (node.declared_inputs() < 2) node_error(node, "needs sequence_lens (may be empty) and at least one input");
  if (node.input(0) != kNoTensor)
    node_error(node, "Scan of opset 8 with sequence_lens is not supported (every sequence must be full length)");
  size_t declared = node.declared_inputs();
  std::vector<Node> nodes;
  Node scan = node;
  scan.inputs.erase(scan.inputs.begin());  // sequence_lens
  scan.attrs[kDeclaredInputsAttr] = static_cast<int64_t>(declared - 1);
  scan.attrs[kScan9Attr] = int64_t{1};
  if (node.has_attr("directions")) scan.attrs["scan_input_directions"] = node.attr_ints("directions");
  scan.attrs.erase("directions");
  auto reshape = [&](TensorId from, TensorId to, const std::vector<int64_t>& shape) {
    std::vector<uint8_t> bytes = encode_int_elements(DataType::Int(64), shape);
    Node n;
    n.name = node.name + "/batch/" + g.tensor(to).name;
    n.op = "Reshape";
    n.inputs = {from, g.add_constant(n.name + "/shape", DataType::Int(64), {static_cast<int64_t>(shape.size())}, bytes)};
    n.outputs = {to};
    nodes.push_back(std::move(n));
  };
  auto unbatched = [&](TensorId id) {
    const Tensor& t = g.tensor(id);
    if (t.shape.empty() || t.shape[0] != 1)
      node_error(node, "Scan of opset 8 is supported with a batch of one; '" + t.name + "' has shape " + shape_str(t.shape));
    Tensor copy;
    copy.name = t.name + "/unbatched";
    std::vector<int64_t> shape(t.shape.begin() + 1, t.shape.end());
    TensorId out = g.add_tensor(std::move(copy));
    reshape(id, out, shape);
    return out;
  };
  for (size_t i = 0; i + 1 < declared; ++i) scan.inputs[i] = unbatched(scan.inputs[i]);
  std::vector<std::pair<TensorId, TensorId>> rebatch;
  for (TensorId& out : scan.outputs) {
    if (out == kNoTensor) continue;
    Tensor t;
    t.name = g.tensor(out).name + "/unbatched";
    TensorId inner = g.add_tensor(std::move(t));
    rebatch.emplace_back(inner, out);
    out = inner;
  }
  nodes.push_back(scan);
  for (auto& [inner, out] : rebatch) {
    Node n;
    n.name = node.name + "/batch/" + g.tensor(out).name;
    n.op = "Unsqueeze";
    n.inputs = {inner};
    n.attrs["axes"] = std::vector<int64_t>{0};  // opset 8: axes as an attribute
    n.outputs = {out};
    nodes.push_back(std::move(n));
  }
  return nodes;
}

void infer_scan(Graph& g, Node& node) {
  if (g.opset < 9 && !node.has_attr(kScan9Attr))
    node_error(node, "internal: Scan of opset 8 should have been replaced by expand_scan8");
  Subgraph& body = mutable_subgraph(node, "body");
  for (size_t i = 0; i < node.declared_inputs(); ++i) require_input(g, node, i);
  LoopFacts f = facts_of_scan(g, node);
  for (size_t i = 0; i < f.carried; ++i) {
    const Tensor& s = g.tensor(node.inputs[i]);
    set_parameter(g, body, i, s.dtype, s.shape);
  }
  for (size_t i = 0; i < f.scan_inputs; ++i) {
    const Tensor& x = g.tensor(node.inputs[f.carried + i]);
    std::vector<int64_t> slice = x.shape;
    slice.erase(slice.begin() + f.input_axes[i]);
    set_parameter(g, body, f.carried + i, x.dtype, slice);
  }
  infer_subgraph(g, node, body);
  for (size_t i = 0; i < f.carried; ++i) {
    const Tensor& before = g.tensor(node.inputs[i]);
    const Tensor& after = g.tensor(body.outputs[i]);
    if (before.dtype != after.dtype || before.shape != after.shape)
      node_error(node, "state value " + std::to_string(i) + " ('" + before.name + "') is " + typed_shape(before) +
                           " before the scan and " + typed_shape(after) + " after an iteration; aotc needs it to keep its shape");
    set_output(g, node, i, before.dtype, before.shape);
  }
  f = facts_of_scan(g, node);  // the output axes need the slices' ranks
  for (size_t k = 0; k < f.scan_outputs; ++k) {
    const Tensor& slice = g.tensor(body.outputs[f.carried + k]);
    std::vector<int64_t> shape = slice.shape;
    shape.insert(shape.begin() + f.output_axes[k], f.max_trips);
    set_output(g, node, f.carried + k, slice.dtype, shape);
  }
}

}  // namespace

LoopFacts loop_facts(const Graph& g, const Node& node) {
  if (node.op == "Loop") return facts_of_loop(g, node);
  if (node.op == "Scan") return facts_of_scan(g, node);
  node_error(node, "internal: not a loop");
}

AOTC_REGISTER_OP("If", control_flow_op(infer_if, expand_if));
AOTC_REGISTER_OP("Loop", control_flow_op(infer_loop, expand_loop));
AOTC_REGISTER_OP("Scan", control_flow_op(infer_scan, expand_scan8));

}  // namespace aotc
