#include "aot/import/tflite_subgraphs.h"

#include <algorithm>
#include <map>

namespace aotc::tflite_import {
namespace {

[[noreturn]] void fail(const std::string& message) { throw CompileError(message); }

// A resource variable: the tensor that holds it between runs, and the tensor holding its
// value at the current point of the placement.
struct Variable {
  TensorId tensor = kNoTensor;
  TensorId current = kNoTensor;
};

// Where placed nodes go, and whether ASSIGN_VARIABLE and CALL_ONCE may appear there.
struct Context {
  std::vector<Node>* nodes;
  bool top_level;  // subgraph 0 itself, or a CALL_ONCE subgraph (evaluated at compile time)
};

class Placer {
 public:
  explicit Placer(const std::vector<std::optional<ImportedSubgraph>>& subgraphs) : subgraphs_(subgraphs) {}

  Graph run() {
    g_.source_format = "tflite";
    const ImportedSubgraph& main = subgraph(0, "the model");
    active_.push_back(0);
    Scope scope = new_scope(0, {});
    g_.inputs = global(scope, main.inputs);
    g_.outputs = global(scope, main.outputs);
    place_nodes(0, scope, {&g_.nodes, true});
    end_initialisation();
    update_variables();
    return std::move(g_);
  }

 private:
  // One copy of a subgraph: its tensor i is ids[i]; a resource tensor names a variable.
  struct Scope {
    std::vector<TensorId> ids;
    std::map<TensorId, std::string> handles;  // resource tensor -> variable key
  };

  const ImportedSubgraph& subgraph(int64_t index, const std::string& who) const {
    if (index < 0 || static_cast<size_t>(index) >= subgraphs_.size())
      fail(who + " runs subgraph " + std::to_string(index) + ", but the model has " + std::to_string(subgraphs_.size()) +
           " subgraphs");
    if (!subgraphs_[static_cast<size_t>(index)]) fail(who + " runs subgraph " + std::to_string(index) + ", which was not read");
    return *subgraphs_[static_cast<size_t>(index)];
  }

  std::string label(int k, size_t op_index, const Node& node) const {
    std::string where = "operator " + std::to_string(op_index) + " (" + node.op + ")";
    if (k == 0) return where;
    const std::string& name = subgraphs_[static_cast<size_t>(k)]->name;
    return "subgraph " + std::to_string(k) + (name.empty() ? "" : " ('" + name + "')") + ", " + where;
  }

  // New tensors for subgraph k's, except its inputs, which stand for `arguments` (none
  // given: new tensors too, a Loop body's parameters), and its constants, which all
  // copies share. Resource tensors get none, except in subgraph 0, where an unused
  // placeholder keeps TensorId i = TFLite tensor i.
  Scope new_scope(int k, const std::vector<TensorId>& arguments) {
    const ImportedSubgraph& sub = *subgraphs_[static_cast<size_t>(k)];
    int copy = ++copies_[k];
    std::string suffix = copy > 1 ? "#" + std::to_string(copy) : "";
    Scope scope;
    scope.ids.assign(sub.tensors.size(), kNoTensor);
    for (size_t i = 0; i < arguments.size(); ++i) scope.ids[static_cast<size_t>(sub.inputs[i])] = arguments[i];
    if (g_.tensors.size() + sub.tensors.size() > kMostPlacedTensors)
      fail("subgraph " + std::to_string(k) + ": the copies of subgraphs the model runs add up to more than " +
           std::to_string(kMostPlacedTensors) + " tensors");
    for (size_t i = 0; i < sub.tensors.size(); ++i) {
      if (scope.ids[i] != kNoTensor) continue;
      if (sub.resources[i] && k != 0) continue;
      auto constant = constants_.find({k, i});
      if (constant != constants_.end()) {
        scope.ids[i] = constant->second;  // one copy of the bytes for every copy of the subgraph
        continue;
      }
      Tensor t = sub.tensors[i];
      if (sub.resources[i]) {
        g_.add_tensor(std::move(t));
        continue;
      }
      if (!t.is_constant()) t.name += suffix;
      scope.ids[i] = g_.add_tensor(std::move(t));
      if (sub.tensors[i].is_constant()) constants_[{k, i}] = scope.ids[i];
    }
    return scope;
  }

  std::vector<TensorId> global(const Scope& scope, const std::vector<TensorId>& local) const {
    std::vector<TensorId> ids;
    for (TensorId id : local) ids.push_back(id == kNoTensor ? kNoTensor : scope.ids.at(static_cast<size_t>(id)));
    return ids;
  }

  void place_nodes(int k, Scope& scope, Context where) {
    const ImportedSubgraph& sub = *subgraphs_[static_cast<size_t>(k)];
    for (size_t i = 0; i < sub.nodes.size(); ++i) {
      const Node& node = sub.nodes[i];
      std::string who = label(k, i, node);
      if (++placed_nodes_ > kMostPlacedNodes)
        fail(who + ": the copies of subgraphs the model runs add up to more than " + std::to_string(kMostPlacedNodes) +
             " operators");
      bool main_run = k == 0 && where.nodes == &g_.nodes;
      if (node.op == "tfl.CALL_ONCE") {
        if (!main_run) fail(who + ": CALL_ONCE is supported in the main subgraph only");
        call_once(node.attr_int("init_subgraph", 0), who);
        continue;
      }
      if (main_run && node.op != "tfl.VAR_HANDLE") end_initialisation();
      check_operands(node, who);
      for (TensorId out : node.outputs)
        if (sub.resources[static_cast<size_t>(out)] != (node.op == "tfl.VAR_HANDLE"))
          fail(who + (node.op == "tfl.VAR_HANDLE" ? ": its output must be a resource tensor"
                                                  : ": writes resource tensor '" + sub.tensors[static_cast<size_t>(out)].name +
                                                        "'; only VAR_HANDLE makes resources"));
      if (node.op == "tfl.VAR_HANDLE") {
        std::string container = node.attr_string("container", ""), shared = node.attr_string("shared_name", "");
        scope.handles[node.outputs.at(0)] = container.empty() ? shared : container + "/" + shared;
      } else if (node.op == "tfl.READ_VARIABLE") {
        read_variable(sub, scope, node, where, who);
      } else if (node.op == "tfl.ASSIGN_VARIABLE") {
        if (!where.top_level)
          fail(who + ": assigns a variable inside an IF or a WHILE; aotc supports assignments in the main subgraph and "
                     "in CALL_ONCE's subgraphs");
        TensorId value = scope.ids.at(static_cast<size_t>(node.inputs.at(1)));
        if (value == kNoTensor) fail(who + ": assigns a resource, not a value");
        Variable& v = variable(handle(sub, scope, node, who), g_.tensor(value), who);
        v.current = value;
      } else if (node.op == "tfl.IF") {
        where.nodes->push_back(place_if(scope, node, who));
      } else if (node.op == "tfl.WHILE") {
        place_while(scope, node, who, *where.nodes);
      } else {
        for (TensorId in : node.inputs)
          if (in != kNoTensor && sub.resources[static_cast<size_t>(in)])
            fail(who + ": reads resource tensor '" + sub.tensors[static_cast<size_t>(in)].name +
                 "'; only READ_VARIABLE and ASSIGN_VARIABLE may");
        Node placed = node;
        placed.inputs = global(scope, node.inputs);
        placed.outputs = global(scope, node.outputs);
        where.nodes->push_back(std::move(placed));
      }
    }
  }

  // The operand counts the state and control-flow operators must have, before anything
  // reads their operands.
  static void check_operands(const Node& node, const std::string& who) {
    auto require = [&](size_t inputs, size_t outputs) {
      if (node.inputs.size() != inputs || node.outputs.size() != outputs)
        fail(who + ": has " + std::to_string(node.inputs.size()) + " inputs and " + std::to_string(node.outputs.size()) +
             " outputs; it takes " + std::to_string(inputs) + " and " + std::to_string(outputs));
      for (TensorId in : node.inputs)
        if (in == kNoTensor) fail(who + ": an operand is omitted");
    };
    if (node.op == "tfl.VAR_HANDLE") require(0, 1);
    if (node.op == "tfl.READ_VARIABLE") require(1, 1);
    if (node.op == "tfl.ASSIGN_VARIABLE") require(2, 0);
  }

  std::string handle(const ImportedSubgraph& sub, const Scope& scope, const Node& node, const std::string& who) const {
    TensorId id = node.input(0);
    auto it = scope.handles.find(id);
    if (id == kNoTensor || !sub.resources[static_cast<size_t>(id)] || it == scope.handles.end())
      fail(who + ": its first operand must be a resource made by a VAR_HANDLE of the same subgraph");
    return it->second;
  }

  // The variable `key`, made on first use with the type and shape of `like` (a copy: the
  // tensor table may grow here).
  Variable& variable(const std::string& key, Tensor like, const std::string& who) {
    auto it = variables_.find(key);
    if (it == variables_.end()) {
      Tensor t;
      t.name = key.empty() ? "variable" : key;
      t.dtype = like.dtype;
      t.shape = like.shape;
      t.shape_known = true;
      t.quant = like.quant;
      t.is_variable = true;
      Variable v;
      v.tensor = v.current = g_.add_tensor(std::move(t));
      g_.variable_origins[v.tensor] = "TFLite resource variable '" + key + "', after each run the value last assigned";
      order_.push_back(key);
      it = variables_.emplace(key, v).first;
    }
    const Tensor& t = g_.tensor(it->second.tensor);
    if (t.dtype != like.dtype || t.shape != like.shape)
      fail(who + ": variable '" + key + "' is " + t.dtype.str() + shape_str(t.shape) + " but '" + like.name + "' is " +
           like.dtype.str() + shape_str(like.shape));
    return it->second;
  }

  // The read value is the variable's current value itself; only a value the subgraph
  // returns gets a copy, so that an output never shares the variable's memory.
  void read_variable(const ImportedSubgraph& sub, Scope& scope, const Node& node, Context where, const std::string& who) {
    TensorId out = node.outputs.at(0);
    const Tensor& declared = sub.tensors.at(static_cast<size_t>(out));
    Variable& v = variable(handle(sub, scope, node, who), declared, who);
    if (std::find(sub.outputs.begin(), sub.outputs.end(), out) == sub.outputs.end()) {
      scope.ids[static_cast<size_t>(out)] = v.current;
      return;
    }
    Node copy;
    copy.name = node.name;
    copy.op = "Identity";
    copy.inputs = {v.current};
    copy.outputs = {scope.ids.at(static_cast<size_t>(out))};
    where.nodes->push_back(std::move(copy));
  }

  // ---------------------------------------------------------------- CALL_ONCE

  // The init subgraph's nodes go to Graph::init_nodes, which the pass
  // initialize_variables runs at compile time. Consecutive CALL_ONCEs see each other's
  // assignments; the first other operator of the run sees the variables' memory.
  void call_once(int64_t index, const std::string& who) {
    const ImportedSubgraph& init = enter(index, who);
    if (!init.inputs.empty() || !init.outputs.empty())
      fail(who + ": its subgraph " + std::to_string(index) + " has inputs or outputs; CALL_ONCE's subgraph has neither");
    Scope scope = new_scope(static_cast<int>(index), {});
    place_nodes(static_cast<int>(index), scope, {&g_.init_nodes, true});
    leave();
    for (const std::string& key : order_) {
      Variable& v = variables_.at(key);
      if (v.current == v.tensor) continue;
      auto& assignments = g_.init_assignments;
      assignments.erase(std::remove_if(assignments.begin(), assignments.end(), [&](auto& a) { return a.first == v.tensor; }),
                        assignments.end());
      assignments.emplace_back(v.tensor, v.current);
    }
    initialising_ = true;
  }

  // After the CALL_ONCEs a run starts from the variables' memory.
  void end_initialisation() {
    if (!initialising_) return;
    for (auto& [key, v] : variables_) v.current = v.tensor;
    initialising_ = false;
  }

  // ---------------------------------------------------------------- IF

  Node place_if(const Scope& scope, const Node& node, const std::string& who) {
    if (node.inputs.empty() || node.input(0) == kNoTensor) fail(who + ": has no condition operand");
    Node result;
    result.name = node.name;
    result.op = "If";
    result.inputs = {scope.ids.at(static_cast<size_t>(node.inputs[0]))};
    std::vector<TensorId> arguments = operands(scope, node, 1, who);
    result.outputs = global(scope, node.outputs);
    for (auto [key, name] : {std::pair{"then_subgraph", "then_branch"}, std::pair{"else_subgraph", "else_branch"}}) {
      Subgraph branch;
      branch.name = name;
      branch.outputs = call(node.attr_int(key, 0), arguments, branch.nodes, who);
      if (branch.outputs.size() != result.outputs.size())
        fail(who + ": its " + std::string(name) + " (subgraph " + std::to_string(node.attr_int(key, 0)) + ") gives " +
             std::to_string(branch.outputs.size()) + " outputs, the IF has " + std::to_string(result.outputs.size()));
      result.subgraphs.push_back(std::move(branch));
    }
    declare_captured_inputs(g_, result);
    return result;
  }

  // The node's operands from `first` on, which a subgraph receives as its inputs.
  std::vector<TensorId> operands(const Scope& scope, const Node& node, size_t first, const std::string& who) const {
    std::vector<TensorId> ids;
    for (size_t i = first; i < node.inputs.size(); ++i) {
      TensorId id = node.inputs[i];
      if (id == kNoTensor) fail(who + ": operand " + std::to_string(i) + " is omitted");
      if (scope.ids.at(static_cast<size_t>(id)) == kNoTensor)
        fail(who + ": operand " + std::to_string(i) + " is a resource; aotc passes only tensors to subgraphs");
      ids.push_back(scope.ids[static_cast<size_t>(id)]);
    }
    return ids;
  }

  // A copy of subgraph `index` on `arguments`, its nodes appended to `nodes`; its outputs.
  std::vector<TensorId> call(int64_t index, const std::vector<TensorId>& arguments, std::vector<Node>& nodes,
                             const std::string& who) {
    const ImportedSubgraph& sub = enter(index, who);
    if (sub.inputs.size() != arguments.size())
      fail(who + ": subgraph " + std::to_string(index) + " takes " + std::to_string(sub.inputs.size()) + " inputs, it is given " +
           std::to_string(arguments.size()));
    for (TensorId in : sub.inputs)
      if (sub.resources[static_cast<size_t>(in)]) fail(who + ": subgraph " + std::to_string(index) + " takes a resource input");
    Scope scope = new_scope(static_cast<int>(index), arguments);
    place_nodes(static_cast<int>(index), scope, {&nodes, false});
    leave();
    for (TensorId out : sub.outputs)
      if (out == kNoTensor || sub.resources[static_cast<size_t>(out)])
        fail(who + ": subgraph " + std::to_string(index) + " returns a resource or nothing");
    return global(scope, sub.outputs);
  }

  // ---------------------------------------------------------------- WHILE

  void place_while(const Scope& scope, const Node& node, const std::string& who, std::vector<Node>& nodes) {
    std::vector<TensorId> initial = operands(scope, node, 0, who);
    int64_t cond_index = node.attr_int("cond_subgraph", 0), body_index = node.attr_int("body_subgraph", 0);
    if (node.outputs.size() != initial.size())
      fail(who + ": has " + std::to_string(initial.size()) + " operands but " + std::to_string(node.outputs.size()) + " outputs");
    TensorId first_condition = condition(cond_index, initial, nodes, who);

    Subgraph body;
    body.name = "body";
    body.inputs = {scalar(node.name + "/iteration", DataType::Int(64)), scalar(node.name + "/condition", DataType::Bool())};
    const ImportedSubgraph& sub = enter(body_index, who);
    if (sub.inputs.size() != initial.size() || sub.outputs.size() != initial.size())
      fail(who + ": its body (subgraph " + std::to_string(body_index) + ") takes " + std::to_string(sub.inputs.size()) +
           " inputs and gives " + std::to_string(sub.outputs.size()) + " outputs; the WHILE has " +
           std::to_string(initial.size()) + " loop values");
    Scope body_scope = new_scope(static_cast<int>(body_index), {});
    std::vector<TensorId> parameters = global(body_scope, sub.inputs), results = global(body_scope, sub.outputs);
    if (std::count(parameters.begin(), parameters.end(), kNoTensor) || std::count(results.begin(), results.end(), kNoTensor))
      fail(who + ": its body (subgraph " + std::to_string(body_index) + ") takes or gives a resource");
    body.inputs.insert(body.inputs.end(), parameters.begin(), parameters.end());
    place_nodes(static_cast<int>(body_index), body_scope, {&body.nodes, false});
    leave();
    body.outputs = {condition(cond_index, results, body.nodes, who)};
    body.outputs.insert(body.outputs.end(), results.begin(), results.end());

    Node loop;
    loop.name = node.name;
    loop.op = "Loop";
    loop.inputs = {kNoTensor, first_condition};
    loop.inputs.insert(loop.inputs.end(), initial.begin(), initial.end());
    loop.outputs = global(scope, node.outputs);
    loop.subgraphs.push_back(std::move(body));
    declare_captured_inputs(g_, loop);
    nodes.push_back(std::move(loop));
  }

  TensorId condition(int64_t cond_index, const std::vector<TensorId>& values, std::vector<Node>& nodes, const std::string& who) {
    std::vector<TensorId> out = call(cond_index, values, nodes, who);
    if (out.size() != 1)
      fail(who + ": its cond (subgraph " + std::to_string(cond_index) + ") gives " + std::to_string(out.size()) +
           " outputs; it must give one boolean");
    return out[0];
  }

  TensorId scalar(const std::string& name, DataType dtype) {
    Tensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape_known = true;
    return g_.add_tensor(std::move(t));
  }

  // ---------------------------------------------------------------- bookkeeping

  const ImportedSubgraph& enter(int64_t index, const std::string& who) {
    const ImportedSubgraph& sub = subgraph(index, who);
    if (std::count(active_.begin(), active_.end(), static_cast<int>(index)))
      fail(who + ": subgraph " + std::to_string(index) + " runs itself (recursion), which aotc does not compile");
    active_.push_back(static_cast<int>(index));
    return sub;
  }
  void leave() { active_.pop_back(); }

  // Each variable assigned in the run takes its last value at the end: through a copy
  // into a tensor of its own, which the lowering moves into the variable after the last
  // step (Graph::state_updates).
  void update_variables() {
    for (const std::string& key : order_) {
      Variable& v = variables_.at(key);
      if (v.current == v.tensor) continue;
      Tensor next = g_.tensor(v.tensor);
      next.name += "/next";
      next.is_variable = false;
      next.initial_value.clear();
      Node copy;
      copy.name = next.name;
      copy.op = "Identity";
      copy.inputs = {v.current};
      copy.outputs = {g_.add_tensor(std::move(next))};
      g_.outputs.push_back(copy.outputs[0]);
      g_.state_updates.emplace_back(v.tensor, copy.outputs[0]);
      g_.nodes.push_back(std::move(copy));
    }
  }

  const std::vector<std::optional<ImportedSubgraph>>& subgraphs_;
  Graph g_;
  std::vector<int> active_;  // the subgraphs being placed, outermost first
  std::map<int, int> copies_;
  std::map<std::pair<int, size_t>, TensorId> constants_;  // (subgraph, tensor) -> its one placed copy
  size_t placed_nodes_ = 0;
  bool initialising_ = false;  // after a CALL_ONCE, before any other operator of subgraph 0
  std::map<std::string, Variable> variables_;
  std::vector<std::string> order_;  // variables in order of first use
};

}  // namespace

Graph place_subgraphs(const std::vector<std::optional<ImportedSubgraph>>& subgraphs) { return Placer(subgraphs).run(); }

}  // namespace aotc::tflite_import
