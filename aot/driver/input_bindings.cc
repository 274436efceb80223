#include "aot/driver/input_bindings.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "aot/base/element_bytes.h"
#include "aot/base/text.h"
#include "aot/driver/tensor_io.h"
#include "aot/import/shape_bindings.h"
#include "lowering/ops/onnx/control_flow.h"

namespace aotc {
namespace {

bool looks_numeric(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789+-.eE,infatruINFATRU") == std::string::npos;
}

// The elements of `input` from --bind's VALUE.
std::vector<uint8_t> bound_value(const Tensor& input, const std::string& value) {
  std::string what = "--bind " + input.name;
  if (!looks_numeric(value) || std::filesystem::exists(value)) {
    if (!std::filesystem::exists(value))
      throw CompileError(what + ": '" + value + "' is neither numbers nor an existing file");
    return read_tensor_file(value, input);
  }
  if (input.dtype.is_float16()) throw CompileError(what + ": a float16 input is bound with a file, not numbers");
  std::vector<std::string> parts = split_at_commas(value);
  int64_t n = input.num_elements();
  if (static_cast<int64_t>(parts.size()) != 1 && static_cast<int64_t>(parts.size()) != n)
    throw CompileError(what + ": " + std::to_string(parts.size()) + " numbers for an input of " + std::to_string(n) +
                       " elements (give one number for all of them, or one each)");
  std::vector<uint8_t> bytes(static_cast<size_t>(input.size_bytes()));
  for (int64_t i = 0; i < n; ++i) {
    const std::string& text = parts[parts.size() == 1 ? 0 : static_cast<size_t>(i)];
    if (input.dtype.is_bool() && (text == "true" || text == "false")) {
      write_element_int(input.dtype, bytes.data(), i, text == "true");
      continue;
    }
    char* end = nullptr;
    errno = 0;
    if (input.dtype.is_float()) {
      double v = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end) throw CompileError(what + ": '" + text + "' is not a number");
      write_element(input.dtype, bytes.data(), i, v);
    } else {
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (end == text.c_str() || *end || errno == ERANGE) throw CompileError(what + ": '" + text + "' is not an integer");
      int bits = input.dtype.bits;
      bool fits = input.dtype.is_bool() ? (v == 0 || v == 1)
                  : input.dtype.is_uint() ? v >= 0 && (bits >= 64 || v < (1LL << bits))
                                          : bits >= 64 || (v >= -(1LL << (bits - 1)) && v < (1LL << (bits - 1)));
      if (!fits) throw CompileError(what + ": " + text + " does not fit in " + input.dtype.str());
      write_element_int(input.dtype, bytes.data(), i, v);
    }
  }
  return bytes;
}

TensorId find_input(const Graph& g, const std::string& option, const std::string& name) {
  for (TensorId id : g.inputs)
    if (g.tensor(id).name == name) return id;
  std::string names;
  for (TensorId id : g.inputs) names += (names.empty() ? "" : ", ") + g.tensor(id).name;
  throw CompileError(option + " " + name + ": the model has no input of that name (its inputs: " + (names.empty() ? "none" : names) + ")");
}

// Sets --max-trip on the Loop nodes of that name, in the graph and every subgraph; how
// many it found.
int set_max_trip(std::vector<Node>& nodes, const std::string& name, int64_t trips) {
  int found = 0;
  for (Node& n : nodes) {
    if (n.name == name) {
      if (n.op != "Loop") throw CompileError("--max-trip " + name + ": node " + n.label() + " is not a Loop");
      n.attrs[kMaxTripAttr] = trips;
      ++found;
    }
    for (Subgraph& sub : n.subgraphs) found += set_max_trip(sub.nodes, name, trips);
  }
  return found;
}

}  // namespace

void parse_bind(const std::string& spec, InputBindings* bindings) {
  bindings->constants.push_back(split_binding("--bind", spec, "NAME=VALUE (numbers or a file)"));
}

void parse_state(const std::string& spec, InputBindings* bindings) {
  bindings->states.push_back(split_binding("--state", spec, "IN=OUT (an input and the output that is its next value)"));
}

void parse_max_trip(const std::string& spec, InputBindings* bindings) {
  auto [name, value] = split_binding("--max-trip", spec, "NODE=N");
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(value.c_str(), &end, 10);
  if (*end || errno == ERANGE || n < 0 || n > 0x7FFFFFFF)
    throw CompileError("--max-trip " + name + ": '" + value + "' is not a number of iterations (0 to 2147483647)");
  bindings->max_trips[name] = n;
}

void bind_inputs(Graph& g, const InputBindings& bindings) {
  auto leave_inputs = [&](TensorId id) { g.inputs.erase(std::find(g.inputs.begin(), g.inputs.end(), id)); };
  for (auto& [name, value] : bindings.constants) {
    TensorId id = find_input(g, "--bind", name);
    g.tensor(id).data = bound_value(g.tensor(id), value);
    leave_inputs(id);
  }
  for (auto& [in_name, out_name] : bindings.states) {
    TensorId in = find_input(g, "--state", in_name);
    TensorId out = kNoTensor;
    for (TensorId id : g.outputs)
      if (g.tensor(id).name == out_name) out = id;
    if (out == kNoTensor) throw CompileError("--state " + in_name + "=" + out_name + ": the model has no output '" + out_name + "'");
    const Tensor& a = g.tensor(in);
    const Tensor& b = g.tensor(out);
    if (out == in) throw CompileError("--state " + in_name + "=" + out_name + ": the output is the input itself");
    if (std::any_of(g.state_updates.begin(), g.state_updates.end(), [&](auto& u) { return u.second == out; }))
      throw CompileError("--state " + in_name + "=" + out_name + ": output '" + out_name + "' is already the next value of another state");
    if (b.shape_known && (a.dtype != b.dtype || a.num_elements() != b.num_elements()))
      throw CompileError("--state " + in_name + "=" + out_name + ": input " + a.dtype.str() + shape_str(a.shape) + " and output " +
                         b.dtype.str() + shape_str(b.shape) + " differ");
    g.tensor(in).is_variable = true;
    g.variable_origins[in] = "input '" + in_name + "', after each run output '" + out_name + "' (--state)";
    leave_inputs(in);
    g.state_updates.emplace_back(in, out);
  }
  for (auto& [name, trips] : bindings.max_trips)
    if (set_max_trip(g.nodes, name, trips) == 0) throw CompileError("--max-trip " + name + ": the model has no Loop of that name");
}

}  // namespace aotc
