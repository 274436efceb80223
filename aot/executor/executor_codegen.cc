#include "aot/executor/executor_codegen.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

#include "aot/base/embedded_files.h"
#include "aot/base/text.h"
#include "aot/executor/metadata.h"
#include "codegen/codegen_c.h"
#include "lowering/ir/builtins.h"
#include "lowering/ir/ir_functor.h"
#include "lowering/ir/runtime_calls.h"

namespace aotc {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

std::vector<std::string> unique_names(const Graph& g, const std::vector<TensorId>& ids) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (TensorId id : ids) {
    std::string base = c_identifier(g.tensor(id).name), name = base;
    for (int k = 1; taken.count(name); ++k) name = base + "_" + std::to_string(k);
    taken.insert(name);
    names.push_back(name);
  }
  return names;
}

std::string dims_comment(const Tensor& t) { return t.dtype.str() + shape_str(t.shape); }

// Text that can stand inside a C string literal in a message.
std::string message_text(std::string s) {
  for (char& c : s)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
  return s;
}

// aotc_runtime.h with the target's workspace alignment as its default, so that the
// generated files compiled together need no -DAOTC_WORKSPACE_ALIGNMENT.
std::string runtime_header_for(const std::string& header, const TargetFacts& target) {
  const std::string default_line = "#define AOTC_WORKSPACE_ALIGNMENT 16\n";
  size_t at = header.find(default_line);
  if (at == std::string::npos) throw std::logic_error("aotc_runtime.h lost its line '" + default_line + "'");
  return header.substr(0, at) + "#define AOTC_WORKSPACE_ALIGNMENT " + std::to_string(target.workspace_alignment) +
         " /* workspace_alignment of target '" + target.name + "' */\n" + header.substr(at + default_line.size());
}

// Everything about one model's C symbols.
// <prefix>_<kind><index>_<reader>: e.g. kws_w3_conv_2d for the fourth constant, which a
// CONV_2D reads. The index alone makes the name unique; model tensor names run to 250
// characters, and C99 promises only 31 significant characters in external names.
std::string short_symbol(const Graph& g, const std::string& prefix, const std::string& kind, size_t index, TensorId tensor) {
  std::string reader;
  auto reads = [&](const Node& n) { return std::count(n.inputs.begin(), n.inputs.end(), tensor) > 0; };
  for (const Node& n : g.nodes) {
    if (reads(n)) reader = n.op;
    for (const Node& step : n.body)
      if (reader.empty() && reads(step)) reader = step.op;
    if (!reader.empty()) break;
  }
  if (reader.rfind("tfl.", 0) == 0) reader = reader.substr(4);
  std::string hint;
  for (char c : reader) hint += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (hint.size() > 16) hint = hint.substr(0, hint.find_last_of('_', 16));  // whole words: depthwise_conv
  return prefix + "_" + kind + std::to_string(index) + (reader.empty() ? "" : "_" + c_identifier(hint));
}

// The elements of one buffer of a two-buffer state: its own, rounded up so that the second
// buffer starts as aligned as the first (workspace_alignment, as planned tensors are).
int64_t swapped_row_elements(const CompiledModel& model, TensorId state) {
  const Tensor& t = model.graph.tensor(state);
  int64_t bytes = std::max<int64_t>(t.num_elements(), 1) * t.dtype.bytes(), align = model.target.workspace_alignment;
  int64_t padded = align > 0 ? (bytes + align - 1) / align * align : bytes;
  return padded / t.dtype.bytes();
}

// The model's artifacts (CompiledModel::attrs), in order; none without external functions.
const std::vector<Artifact>& model_artifacts(const CompiledModel& m) {
  static const std::vector<Artifact> kNone;
  auto it = m.attrs.find(kExternalArtifactsAttr);
  return it == m.attrs.end() ? kNone : it->second;
}

// Whether some kernel calls the device driver function `invoke` (lowering/ir/builtins.h).
bool calls_driver(const CompiledModel& m, const std::string& invoke) {
  for (const Node& node : m.graph.nodes)
    if (node.op == kExternalOp && node.attr_string("external.invoke", "") == invoke) return true;
  return false;
}

// The runtime headers that define the functions the kernels call (runtime_calls.h's
// registrations), so that the generated C includes only what the chosen kernels use.
class CalledRuntimeHeaders : public ir::IRVisitor {
 public:
  std::set<std::string> headers;
  void visit_call(const ir::CallNode* op) override {
    std::string header = ir::runtime_call_header(op->name);
    if (!header.empty()) headers.insert(header);
    ir::IRVisitor::visit_call(op);
  }
};

// The runtime headers <name>.c includes, in order: the kernels' (sorted), a device
// driver's where a kernel calls it, and aotc_runtime.h, which every model's code uses.
std::vector<std::string> included_runtime_headers(const CompiledModel& m) {
  CalledRuntimeHeaders called;
  for (const Step& step : m.steps)
    if (step.is_call()) called.visit(step.func.body);
  std::vector<std::string> headers(called.headers.begin(), called.headers.end());
  if (calls_driver(m, ir::builtin::kEthosuInvoke)) headers.push_back("aotc_ethosu.h");
  if (calls_driver(m, ir::builtin::kNpuInvoke)) headers.push_back("aotc_npu.h");
  headers.push_back("aotc_runtime.h");
  return headers;
}

// Each runtime header that `contents` includes ("#include \"aotc_....h\"").
std::vector<std::string> runtime_includes(const std::string& contents) {
  std::vector<std::string> names;
  const std::string directive = "#include \"aotc_";
  for (size_t at = contents.find(directive); at != std::string::npos; at = contents.find(directive, at + 1)) {
    size_t begin = at + directive.size() - 5, end = contents.find('"', begin);
    if (end != std::string::npos) names.push_back(contents.substr(begin, end - begin));
  }
  return names;
}

class ExecutorEmitter {
 public:
  ExecutorEmitter(const CompiledModel& m, std::string model_file)
      : m_(m), g_(m.graph), prefix_(m.name), macro_(upper(m.name)), model_file_(display_text(model_file)), phase_(prefix_ + "_state_phase"),
        runtime_headers_(included_runtime_headers(m)) {
    auto in = unique_names(g_, g_.inputs), out = unique_names(g_, g_.outputs);
    for (size_t i = 0; i < g_.inputs.size(); ++i) input_names_[g_.inputs[i]] = in[i];
    for (size_t i = 0; i < g_.outputs.size(); ++i) output_names_[g_.outputs[i]] = out[i];
    // Constants and state get short numbered names (short_symbol); the model's name for
    // each stays in a comment beside its array and in metadata.json.
    for (auto& [id, name] : constant_symbols(m_)) {
      constant_names_[id] = name;
      constant_order_.push_back(id);
    }
    for (auto& [id, s] : m_.storage) {
      if (s.kind != Storage::Kind::kVariable || variable_names_.count(s.tensor)) continue;
      variable_names_[s.tensor] = short_symbol(g_, prefix_, "s", variable_order_.size(), s.tensor);
      variable_order_.push_back(s.tensor);
    }
    check_external_names();
  }

  // The runtime headers <name>.c includes (included_runtime_headers).
  const std::vector<std::string>& runtime_headers() const { return runtime_headers_; }

  std::string header() const {
    std::ostringstream os;
    os << "/*\n * " << prefix_ << ".h: the C interface of model '" << model_file_ << "', generated by aotc "
       << AOTC_VERSION << ".\n *\n"
       << " * Usage:\n" << usage() << " *\n"
       << (has_runtime_pools()
               ? " * The pools in struct " + prefix_ + "_pools are memory the application provides (aligned to " +
                     std::to_string(m_.target.workspace_alignment) + " bytes, at least the _POOL_*_SIZE below);\n" +
                     " * all other memory the model needs besides inputs and outputs is static in the generated code.\n"
               : " * All memory the model needs besides its inputs and outputs is static inside the\n"
                 " * generated code; the sizes below say how much.\n")
       << " * " << prefix_ << "_run is not reentrant.\n"
       << (has_state()
               ? " *\n * State: the model keeps " + std::to_string(state_bytes()) + " bytes of state (" + macro_ +
                     "_STATE_SIZE) from one\n * " + prefix_ + "_run to the next, in static arrays:\n" + state_list() +
                     " * They start at their initial value (zero; a TFLite int8 tensor at its zero point, as in TFLite\n"
                     " * Micro), and " + prefix_ + "_reset() puts them back, e.g. before a new, unrelated input sequence.\n"
               : "")
       << " */\n";
    os << "#ifndef " << macro_ << "_H_\n#define " << macro_ << "_H_\n\n#include <stdint.h>\n\n"
       << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    os << "/* Inputs, in the model's order: sizes in bytes. */\n";
    os << "#define " << macro_ << "_INPUT_COUNT " << g_.inputs.size() << "\n";
    for (TensorId id : g_.inputs)
      os << "#define " << macro_ << "_INPUT_" << upper(input_names_.at(id)) << "_SIZE " << g_.tensor(id).size_bytes()
         << " /* " << dims_comment(g_.tensor(id)) << " */\n";
    os << "\n/* Outputs, in the model's order: sizes in bytes. */\n";
    os << "#define " << macro_ << "_OUTPUT_COUNT " << g_.outputs.size() << "\n";
    for (TensorId id : g_.outputs)
      os << "#define " << macro_ << "_OUTPUT_" << upper(output_names_.at(id)) << "_SIZE " << g_.tensor(id).size_bytes()
         << " /* " << dims_comment(g_.tensor(id)) << " */\n";
    os << "\n/* Memory, in bytes. */\n"
       << "#define " << macro_ << "_ACTIVATION_SIZE " << m_.arena.total_bytes
       << (m_.io_in_arena ? " /* inputs, outputs, intermediate tensors and kernels' scratch, statically planned */\n"
                          : " /* intermediate tensors and kernels' scratch, statically planned */\n")
       << "#define " << macro_ << "_CONSTANT_SIZE " << constant_bytes(m_) << " /* weights and kernels' tables, in const memory */\n"
       << "#define " << macro_ << "_MAX_STACK_SIZE " << m_.max_stack_bytes
       << " /* largest stack arrays of one kernel, excluding scalars the C compiler keeps */\n";
    if (has_state())
      os << "#define " << macro_ << "_STATE_SIZE " << state_bytes()
         << " /* state kept between runs (variable tensors), static in the generated code */\n";
    for (size_t i = 0; i < m_.pools.size(); ++i)
      os << "#define " << macro_ << "_POOL_" << upper(m_.pools[i].name) << "_SIZE " << pool_bytes(i) << " /* "
         << (m_.pools[i].runtime_provided ? "provided by the application" : "static in the generated code") << " */\n";
    os << "\n";
    if (has_runtime_pools()) {
      os << "/* Memory the application provides at run time. */\nstruct " << prefix_ << "_pools {\n";
      for (size_t i = 0; i < m_.pools.size(); ++i)
        if (m_.pools[i].runtime_provided)
          os << "  uint8_t* " << c_identifier(m_.pools[i].name) << "; /* " << macro_ << "_POOL_" << upper(m_.pools[i].name)
             << "_SIZE bytes */\n";
      os << "};\n\n";
    }
    os << "struct " << prefix_ << "_inputs {\n";
    // ISO C has no empty structs; a model without inputs (all constants) still takes one.
    if (g_.inputs.empty()) os << "  uint8_t no_inputs; /* the model has no inputs */\n";
    for (TensorId id : g_.inputs)
      os << "  " << g_.tensor(id).dtype.c_type() << "* " << input_names_.at(id) << "; /* '" << display_text(g_.tensor(id).name)
         << "': " << dims_comment(g_.tensor(id)) << " */\n";
    os << "};\n\nstruct " << prefix_ << "_outputs {\n";
    for (TensorId id : g_.outputs)
      os << "  " << g_.tensor(id).dtype.c_type() << "* " << output_names_.at(id) << "; /* '" << display_text(g_.tensor(id).name)
         << "': " << dims_comment(g_.tensor(id)) << " */\n";
    os << "};\n\n/* Runs the model once. Returns 0 (AOTC_OK) or an AOTC_ERR_* code from aotc_runtime.h. */\n"
       << run_signature() << ";\n\n";
    if (m_.io_in_arena)
      os << "/* Points each member of *inputs and *outputs at its place in the activation memory\n"
         << " * (" << macro_ << "_ACTIVATION_SIZE includes them): write the inputs there before each\n"
         << " * " << prefix_ << "_run, which may overwrite them once they are no longer needed, and read the\n"
         << " * outputs there after it. " << prefix_ << "_run returns AOTC_ERR_INVALID_ARGUMENT for other pointers. */\n"
         << io_signature() << ";\n\n";
    if (has_state())
      os << "/* Restores the model's state (" << macro_ << "_STATE_SIZE bytes) to its initial value, which is\n"
         << " * also its value before the first " << prefix_ << "_run. Not reentrant with " << prefix_ << "_run. */\n"
         << "void " << prefix_ << "_reset(void);\n\n";
    os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << macro_ << "_H_ */\n";
    return os.str();
  }

  std::string source() const {
    CFileContext ctx;
    ctx.prefix = prefix_;
    ctx.workspace_allocator = "&" + prefix_ + "_scratch_allocator";
    std::ostringstream kernels;
    for (auto& k : m_.steps)
      if (k.is_call()) kernels << emit_c_function(k.func, prefix_ + "_" + k.c_name, &ctx) << "\n";

    std::ostringstream os;
    os << "/* " << prefix_ << ".c: kernels and entry point of model '" << model_file_ << "', generated by aotc "
       << AOTC_VERSION << ". */\n"
       << "#include \"" << prefix_ << ".h\"\n\n#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n"
       << "#include <string.h>\n\n";
    for (const std::string& header : runtime_headers_) os << "#include \"" << header << "\"\n";
    os << "\n";
    os << workspace_layout_checks();
    if (!constant_order_.empty()) {
      os << "/* Weights (" << prefix_ << "_constants.c). */\n";
      for (TensorId id : constant_order_) {
        const Tensor& t = g_.tensor(id);
        os << "extern const " << t.dtype.c_type() << " " << constant_names_.at(id) << "[" << std::max<int64_t>(t.num_elements(), 1)
           << "];\n";
      }
      os << "\n";
    }
    if (!model_artifacts(m_).empty()) {
      os << "/* What the NPU runs: command streams and their weights (" << prefix_ << "_constants.c). */\n";
      for (const Artifact& a : model_artifacts(m_))
        os << "extern const uint8_t " << artifact_symbol(a) << "[" << a.bytes.size() << "];\n";
      os << "\n";
    }
    os << "/* Each kernel stays a function of its own: inlined into one large " << prefix_ << "_run, its inner\n"
       << " * loops lose registers to spills, with gcc and clang alike (measured in bench/firmware), and the\n"
       << " * stack holds every kernel's locals at once. A build may define AOTC_KERNEL itself.\n"
       << " * gcc: no_icf too. gcc 12 -O2 folded two identical kernels called with the same arena\n"
       << " * addresses into one and then dropped the second call, though a kernel between them\n"
       << " * rewrote what it reads (wrong outputs; -fno-ipa-icf, -fno-ipa-cp or\n"
       << " * -fno-ipa-pure-const each avoided it; clang was right). Not noipa, which also avoids it\n"
       << " * but costs 13-14 % more code on kws, vww and resnet (bench/firmware, Cortex-M4, gcc). */\n"
       << "#ifndef AOTC_KERNEL\n#if defined(__GNUC__) && !defined(__clang__)\n"
       << "#define AOTC_KERNEL static __attribute__((noinline, no_icf))\n"
       << "#elif defined(__clang__)\n#define AOTC_KERNEL static __attribute__((noinline))\n#else\n"
       << "#define AOTC_KERNEL static\n#endif\n#endif\n\n";
    os << "#if defined(__GNUC__) || defined(__clang__)\n#define " << macro_ << "_ALIGNED __attribute__((aligned("
       << m_.target.workspace_alignment << ")))\n#else\n#define " << macro_ << "_ALIGNED\n#endif\n\n";
    for (size_t i = 0; i < m_.pools.size(); ++i) {
      const PoolConfig& pool = m_.pools[i];
      if (pool.runtime_provided || pool_bytes(i) == 0) continue;
      os << "/* Pool '" << pool.name << "': intermediate tensors and scratch at offsets from the static memory plan\n"
         << " * (metadata.json). */\nstatic uint8_t " << pool_base(i) << "[" << pool_bytes(i) << "] " << macro_ << "_ALIGNED";
      if (!pool.section.empty()) os << " __attribute__((section(\"" << pool.section << "\")))";
      os << ";\n\n";
    }
    os << state_arrays();
    if (m_.scratch_bytes > 0)
      os << "/* Kernels' temporary buffers, allocated last-in first-out from a slice of the activations. */\n"
         << "static aotc_workspace " << prefix_ << "_scratch_allocator;\n\n";
    os << ctx.helper_definitions() << (ctx.helpers.empty() ? "" : "\n");
    os << kernels.str();
    os << run_function();
    os << io_function();
    os << reset_function();
    return os.str();
  }

  std::string constants() const {
    std::ostringstream os;
    os << "/* " << prefix_ << "_constants.c: weights of model '" << model_file_ << "', generated by aotc " << AOTC_VERSION
       << ". */\n#include <math.h>\n#include <stdint.h>\n\n"
       << "/* The target's constant_alignment: wide loads of weights stay aligned. */\n"
       << "#if defined(__GNUC__) || defined(__clang__)\n#define " << macro_ << "_CONST_ALIGNED __attribute__((aligned("
       << m_.target.constant_alignment << ")))\n#else\n#define " << macro_ << "_CONST_ALIGNED\n#endif\n\n";
    for (TensorId id : constant_order_) {
      const Tensor& t = g_.tensor(id);
      int64_t n = t.num_elements();
      os << "/* '" << display_text(t.name) << "': " << dims_comment(t) << " */\n";
      os << "extern const " << t.dtype.c_type() << " " << constant_names_.at(id) << "[" << std::max<int64_t>(n, 1) << "];\n";
      os << "const " << t.dtype.c_type() << " " << constant_names_.at(id) << "[" << std::max<int64_t>(n, 1) << "] "
         << macro_ << "_CONST_ALIGNED = {";
      for (int64_t i = 0; i < n; ++i) {
        os << (i % 8 == 0 ? "\n  " : " ");
        os << c_element_literal(t.dtype, t.data->data(), i);
        if (i + 1 < n) os << ",";
      }
      if (n == 0) os << "0";
      os << "\n};\n\n";
    }
    os << artifact_arrays();
    if (constant_order_.empty() && model_artifacts(m_).empty())
      os << "typedef int " << prefix_ << "_no_constants; /* ISO C forbids an empty file */\n";
    return os.str();
  }

 private:
  std::string pointer(TensorId id, const Storage& s) const {
    const Tensor& t = g_.tensor(id);
    switch (s.kind) {
      case Storage::Kind::kInput: return "inputs->" + input_names_.at(s.tensor);
      case Storage::Kind::kOutput: return "outputs->" + output_names_.at(s.tensor);
      case Storage::Kind::kConstant: return constant_names_.at(s.tensor);
      case Storage::Kind::kVariable:
        if (!swapped(s.tensor)) return variable_names_.at(s.tensor);
        return variable_names_.at(s.tensor) + (s.next_value ? "[" + phase_ + " ^ 1]" : "[" + phase_ + "]");
      case Storage::Kind::kArena: return arena_address(t, s);
    }
    return "";
  }

  std::string artifact_symbol(const Artifact& a) const { return prefix_ + "_" + c_identifier(a.name); }

  // The artifacts of external functions as const arrays, aligned for the NPU and in the
  // section its [npu] table names.
  std::string artifact_arrays() const {
    const std::vector<Artifact>& artifacts = model_artifacts(m_);
    if (artifacts.empty()) return "";
    const NpuFacts* npu = m_.target.npu ? &*m_.target.npu : nullptr;
    int64_t alignment = std::max<int64_t>(m_.target.constant_alignment, npu ? npu->alignment : 0);
    std::string attributes = "aligned(" + std::to_string(alignment) + ")";
    if (npu && !npu->section.empty()) attributes += ", section(\"" + npu->section + "\")";
    std::ostringstream os;
    os << "/* What the NPU reads: aligned for it, in the section its target names. */\n"
       << "#if defined(__GNUC__) || defined(__clang__)\n#define " << macro_ << "_NPU_DATA __attribute__((" << attributes
       << "))\n#else\n#define " << macro_ << "_NPU_DATA\n#endif\n\n";
    for (const Artifact& a : artifacts) {
      std::string symbol = artifact_symbol(a);
      os << "/* Artifact '" << display_text(a.name) << "': " << display_text(a.format) << ", " << a.bytes.size() << " bytes */\n"
         << "extern const uint8_t " << symbol << "[" << a.bytes.size() << "];\n"
         << "const uint8_t " << symbol << "[" << a.bytes.size() << "] " << macro_ << "_NPU_DATA = {";
      for (size_t i = 0; i < a.bytes.size(); ++i)
        os << (i % 16 == 0 ? "\n  " : " ") << static_cast<int>(a.bytes[i]) << (i + 1 < a.bytes.size() ? "," : "");
      os << "\n};\n\n";
    }
    return os.str();
  }

  // C99 (5.2.4.1) promises 31 significant initial characters in external identifiers: two
  // of ours that agree in those could be one symbol to a strict linker.
  void check_external_names() const {
    std::vector<std::string> names = {prefix_ + "_run", prefix_ + "_io", prefix_ + "_reset"};
    for (auto& [id, name] : constant_names_) names.push_back(name);
    for (const Artifact& a : model_artifacts(m_)) names.push_back(artifact_symbol(a));
    std::map<std::string, std::string> first31;
    for (const std::string& name : names) {
      auto [it, fresh] = first31.emplace(name.substr(0, 31), name);
      if (!fresh && it->second != name)
        throw CompileError("the external C names '" + it->second + "' and '" + name +
                           "' agree in their first 31 characters, all that C99 guarantees to be significant: use a "
                           "shorter --name than '" + prefix_ + "'");
    }
  }

  bool has_state() const { return !variable_order_.empty(); }

  // One header comment line per state: what it is and where it comes from.
  std::string state_list() const {
    std::string lines;
    for (TensorId id : variable_order_) {
      auto it = g_.variable_origins.find(id);
      std::string origin = it != g_.variable_origins.end() ? display_text(it->second)
                                                           : "a TFLite variable tensor (SVDF or LSTM memory)";
      if (swapped(id)) origin += "; two buffers, the next value computed into the other, which becomes the state";
      lines += " *   " + variable_names_.at(id) + ", " + dims_comment(g_.tensor(id)) + ": " + origin + "\n";
    }
    return lines;
  }

  int64_t state_bytes() const { return aotc::state_bytes(m_); }

  static bool all_zero(const std::vector<uint8_t>& bytes) {
    return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
  }

  // `{v0, v1, ...}` of a tensor's elements given as little-endian bytes.
  static std::string initializer(const Tensor& t, const std::vector<uint8_t>& bytes) {
    std::ostringstream os;
    os << "{";
    for (int64_t i = 0; i < t.num_elements(); ++i)
      os << (i % 8 == 0 ? "\n  " : " ") << c_element_literal(t.dtype, bytes.data(), i) << (i + 1 < t.num_elements() ? "," : "");
    os << "\n}";
    return os.str();
  }

  // One static array per variable tensor, holding its value between runs; a const copy of
  // the initial value for <name>_reset when that is not all zeros.
  std::string state_arrays() const {
    if (!has_state()) return "";
    std::ostringstream os;
    os << "/* State kept from one " << prefix_ << "_run to the next (variable tensors), at its initial value until\n"
       << " * the first run; " << prefix_ << "_reset() restores it. */\n";
    for (TensorId id : variable_order_) {
      const Tensor& t = g_.tensor(id);
      const std::string& name = variable_names_.at(id);
      int64_t n = std::max<int64_t>(t.num_elements(), 1);
      os << "/* '" << display_text(t.name) << "': " << dims_comment(t) << " */\n";
      // A state with a next value of its own has two buffers (CompiledModel::next_values).
      std::string dims = swapped(id) ? "[2][" + std::to_string(swapped_row_elements(m_, id)) + "]" : "[" + std::to_string(n) + "]";
      if (all_zero(t.initial_value)) {
        os << "static " << t.dtype.c_type() << " " << name << dims << " " << macro_ << "_ALIGNED;\n";
      } else {
        std::string values = initializer(t, t.initial_value);
        os << "static const " << t.dtype.c_type() << " " << name << "_initial[" << n << "] = " << values << ";\n";
        os << "static " << t.dtype.c_type() << " " << name << dims << " " << macro_ << "_ALIGNED = "
           << (swapped(id) ? "{" + values + "}" : values) << ";\n";
      }
    }
    if (!m_.next_values.empty())
      os << "/* Which buffer of each two-buffer state holds the state (the other receives its next value). */\n"
         << "static uint8_t " << phase_ << ";\n";
    return os.str() + "\n";
  }

  // Whether variable `id` is a state whose next value a step computes into its second buffer.
  bool swapped(TensorId id) const {
    return std::any_of(m_.next_values.begin(), m_.next_values.end(), [&](auto& entry) { return entry.second == id; });
  }

  std::string reset_function() const {
    if (!has_state()) return "";
    std::ostringstream os;
    os << "\nvoid " << prefix_ << "_reset(void) {\n";
    for (TensorId id : variable_order_) {
      const std::string& name = variable_names_.at(id);
      std::string current = swapped(id) ? name + "[0]" : name;
      if (all_zero(g_.tensor(id).initial_value)) os << "  memset(" << current << ", 0, sizeof " << current << ");\n";
      else os << "  memcpy(" << current << ", " << name << "_initial, sizeof " << name << "_initial);\n";
    }
    if (!m_.next_values.empty()) os << "  " << phase_ << " = 0;\n";
    os << "}\n";
    return os.str();
  }

  bool has_runtime_pools() const {
    for (auto& p : m_.pools)
      if (p.runtime_provided) return true;
    return false;
  }

  int64_t pool_bytes(size_t pool) const { return pool < m_.arena.pool_bytes.size() ? m_.arena.pool_bytes[pool] : 0; }

  // The C expression of a pool's first byte.
  std::string pool_base(size_t pool) const {
    const PoolConfig& p = m_.pools[pool];
    return p.runtime_provided ? "pools->" + c_identifier(p.name) : prefix_ + "_pool_" + c_identifier(p.name);
  }

  std::string usage() const {
    std::string pools = has_runtime_pools() ? ", &pools" : "";
    std::string run = " *   int32_t status = " + prefix_ + "_run(&in, &out" + pools + ");   (0 on success, else an AOTC_ERR_* code)\n";
    if (m_.io_in_arena)
      return " *   struct " + prefix_ + "_inputs in;\n *   struct " + prefix_ + "_outputs out;\n *   " + prefix_ +
             "_io(&in, &out" + pools + ");   (pointers into the activation memory)\n" +
             " *   ... write the inputs through in ...\n" + run + " *   ... read the outputs through out ...\n";
    return " *   struct " + prefix_ + "_inputs in = { ... one pointer per input ... };\n *   struct " + prefix_ +
           "_outputs out = { ... one pointer per output ... };\n" + run;
  }

  // --io-in-arena: the planned address of a graph input or output.
  std::string io_pointer(TensorId id) const { return arena_address(g_.tensor(id), m_.io_places.at(id)); }

  // `(float*)(<pool> + <offset>)`: a tensor's planned place in the arena.
  std::string arena_address(const Tensor& t, const Storage& place) const {
    return "(" + t.dtype.c_type() + "*)(" + pool_base(static_cast<size_t>(place.pool)) + " + " +
           std::to_string(place.offset) + ")";
  }

  std::string io_signature() const {
    std::string s = "void " + prefix_ + "_io(struct " + prefix_ + "_inputs* inputs, struct " + prefix_ + "_outputs* outputs";
    if (has_runtime_pools()) s += ", const struct " + prefix_ + "_pools* pools";
    return s + ")";
  }

  std::string io_function() const {
    if (!m_.io_in_arena) return "";
    std::ostringstream os;
    os << "\n" << io_signature() << " {\n";
    if (g_.inputs.empty()) os << "  (void)inputs;\n";
    if (has_runtime_pools()) os << "  (void)pools; /* when every input and output is in a static pool */\n";
    for (TensorId id : g_.inputs) os << "  inputs->" << input_names_.at(id) << " = " << io_pointer(id) << ";\n";
    for (TensorId id : g_.outputs) os << "  outputs->" << output_names_.at(id) << " = " << io_pointer(id) << ";\n";
    os << "}\n";
    return os.str();
  }

  std::string run_signature() const {
    std::string s = "int32_t " + prefix_ + "_run(const struct " + prefix_ + "_inputs* inputs, struct " + prefix_ + "_outputs* outputs";
    if (has_runtime_pools()) s += ", const struct " + prefix_ + "_pools* pools";
    return s + ")";
  }

  // Kernels' workspace was measured for the target's alignment and word size
  // (lower_builtin.h): a runtime header that lays blocks out otherwise stops the build.
  std::string workspace_layout_checks() const {
    const TargetFacts& t = m_.target;
    std::string model = "model '" + message_text(prefix_) + "' was compiled for ";
    std::string target = " (target " + message_text(t.name) + ")";
    std::ostringstream os;
    os << "/* Workspace blocks are measured for target '" << message_text(t.name) << "': workspace_alignment "
       << t.workspace_alignment << ", word_size " << t.word_size << ". */\n"
       << "#if AOTC_WORKSPACE_ALIGNMENT != " << t.workspace_alignment << "\n"
       << "#error \"" << model << "workspace_alignment " << t.workspace_alignment << target
       << " but aotc_runtime.h has another AOTC_WORKSPACE_ALIGNMENT: build this file and aotc_runtime.c with "
       << "-DAOTC_WORKSPACE_ALIGNMENT=" << t.workspace_alignment << "\"\n"
       << "#elif AOTC_WORKSPACE_HEADER_BYTES != " << t.workspace_header_bytes() << "\n"
       << "#error \"" << model << "word_size " << t.word_size << target << ", whose workspace block headers take "
       << t.workspace_header_bytes() << " bytes, but this compiler's size_t makes them another size: compile for the target's word size\"\n"
       << "#endif\n\n";
    return os.str();
  }

  std::string run_function() const {
    std::ostringstream os;
    os << run_signature() << " {\n  int32_t status = AOTC_OK;\n"
       << "  if (inputs == NULL || outputs == NULL) return AOTC_ERR_INVALID_ARGUMENT;\n";
    if (has_runtime_pools()) {
      os << "  if (pools == NULL) return AOTC_ERR_INVALID_ARGUMENT;\n";
      for (size_t i = 0; i < m_.pools.size(); ++i)
        if (m_.pools[i].runtime_provided && pool_bytes(i) > 0)
          os << "  if (" << pool_base(i) << " == NULL || (uintptr_t)" << pool_base(i) << " % " << m_.target.workspace_alignment
             << " != 0) return AOTC_ERR_INVALID_ARGUMENT;\n";
    }
    // With the inputs and outputs in the arena, the plan holds only at their planned places.
    for (TensorId id : g_.inputs)
      os << "  if (inputs->" << input_names_.at(id) << (m_.io_in_arena ? " != " + io_pointer(id) : " == NULL")
         << ") return AOTC_ERR_INVALID_ARGUMENT;\n";
    for (TensorId id : g_.outputs)
      os << "  if (outputs->" << output_names_.at(id) << (m_.io_in_arena ? " != " + io_pointer(id) : " == NULL")
         << ") return AOTC_ERR_INVALID_ARGUMENT;\n";
    os << device_alignment_checks();
    if (m_.scratch_bytes > 0)
      os << "  /* Defined only by an aotc_runtime.c built with AOTC_WORKSPACE_ALIGNMENT " << m_.target.workspace_alignment
         << ": linking against one built with another fails. */\n"
         << "  if (AOTC_WORKSPACE_ALIGNMENT_SYMBOL != " << m_.target.workspace_alignment
         << ") return AOTC_ERR_INVALID_ARGUMENT;\n";
    emit_steps(os);
    for (auto& c : m_.copies) {
      const Storage& from = m_.storage.count(c.from.tensor) ? m_.storage.at(c.from.tensor) : c.from;
      os << "\n  /* '" << display_text(g_.tensor(c.to).name) << "' is '" << display_text(g_.tensor(c.from.tensor).name)
         << "' */\n"
         << "  memcpy(outputs->" << output_names_.at(c.to) << ", " << pointer(c.from.tensor, from) << ", "
         << g_.tensor(c.to).size_bytes() << ");\n";
    }
    if (!m_.next_values.empty())
      os << "  /* The next values computed in this run become the state. */\n"
         << "  " << phase_ << " = (uint8_t)(" << phase_ << " ^ 1);\n";
    os << "  return status;\n}\n";
    return os.str();
  }

  // The NPU reads and writes by DMA at its alignment: the application's input and output
  // buffers that it touches directly must be aligned so (planned ones are).
  std::string device_alignment_checks() const {
    if (!m_.target.npu || m_.io_in_arena) return "";
    std::set<TensorId> checked;
    std::ostringstream os;
    for (const Step& k : m_.steps) {
      if (!k.on_device) continue;
      for (TensorId arg : k.args) {
        const Storage& s = m_.storage.at(arg);
        if ((s.kind != Storage::Kind::kInput && s.kind != Storage::Kind::kOutput) || !checked.insert(s.tensor).second) continue;
        if (checked.size() == 1) os << "  /* The NPU reaches these buffers by DMA: they must be aligned for it. */\n";
        os << "  if ((uintptr_t)" << pointer(arg, s) << " % " << m_.target.npu->alignment
           << " != 0) return AOTC_ERR_INVALID_ARGUMENT;\n";
      }
    }
    return os.str();
  }

  // The steps of <name>_run: kernel calls and copies, nested in the `if`s and `for`s of
  // control flow (compiled_model.h).
  void emit_steps(std::ostream& os) const {
    std::string indent = "  ";
    std::vector<const Step*> loops;  // enclosing loops; loop d counts in iter<d>
    for (const Step& k : m_.steps) {
      switch (k.kind) {
        case Step::Kind::kCall:
          os << "\n" << indent << "/* " << display_text(k.label) << " */\n";
          if (k.memory.workspace_bytes > 0)
            os << indent << "status = aotc_workspace_init(&" << prefix_ << "_scratch_allocator, "
               << pool_base(static_cast<size_t>(k.scratch_pool)) << " + " << k.scratch_offset << ", " << k.memory.workspace_bytes
               << ");\n" << indent << "if (status != AOTC_OK) return status;\n";
          os << indent << "status = " << prefix_ << "_" << k.c_name << "(";
          for (size_t i = 0; i < k.args.size(); ++i) os << (i ? ", " : "") << pointer(k.args[i], m_.storage.at(k.args[i]));
          os << ");\n" << indent << "if (status != AOTC_OK) return status;\n";
          break;
        case Step::Kind::kCopy: os << copy_statement(k, indent, loops.empty() ? "" : iteration_name(loops.size() - 1)); break;
        case Step::Kind::kIf:
          os << "\n" << indent << "/* " << display_text(k.label) << " */\n" << indent << "if (" << value_of(k.args[0]) << ") {\n";
          indent += "  ";
          break;
        case Step::Kind::kElse:
          indent.resize(indent.size() - 2);
          os << indent << "} else {\n";
          indent += "  ";
          break;
        case Step::Kind::kEndIf:
        case Step::Kind::kEndLoop:
          indent.resize(indent.size() - 2);
          os << indent << "}\n";
          if (k.kind == Step::Kind::kEndIf) break;
          if (loops.back()->bounded_by_max) {
            indent.resize(indent.size() - 2);
            os << indent << "  if (" << loop_would_go_on(*loops.back(), iteration_name(loops.size() - 1))
               << ") return AOTC_ERR_TRIP_LIMIT; /* more iterations than --max-trip allowed */\n"
               << indent << "}\n";
          }
          loops.pop_back();
          break;
        case Step::Kind::kLoop: {
          std::string i = iteration_name(loops.size());
          os << "\n" << indent << "/* " << display_text(k.label) << ": at most " << k.max_trips << " iterations */\n";
          std::string go_on = loop_would_go_on(k, i);
          if (k.bounded_by_max) {
            os << indent << "{\n" << indent << "  int32_t " << i << " = 0;\n";
            indent += "  ";
            os << indent << "for (; " << i << " < " << k.max_trips << " && " << go_on << "; ++" << i << ") {\n";
          } else {
            os << indent << "for (int32_t " << i << " = 0; " << i << " < " << k.max_trips << (go_on == "1" ? "" : " && " + go_on)
               << "; ++" << i << ") {\n";
          }
          indent += "  ";
          loops.push_back(&k);
          break;
        }
        case Step::Kind::kSetIteration:
          os << indent << value_of(k.args[0]) << " = " << iteration_name(loops.size() - 1) << ";\n";
          break;
      }
    }
  }

  static std::string iteration_name(size_t depth) { return "iter" + std::to_string(depth); }

  // The C expression of a one-element tensor's value (a condition, a trip count).
  std::string value_of(TensorId id) const { return "*" + pointer(id, m_.storage.at(id)); }

  // What, besides the bound, lets iteration `i` of a loop run: its run-time trip count and
  // condition ("1" when it has neither).
  std::string loop_would_go_on(const Step& loop, const std::string& i) const {
    std::string test;
    if (loop.trip_count != kNoTensor) test = i + " < " + value_of(loop.trip_count);
    if (loop.condition != kNoTensor) test += (test.empty() ? "" : " && ") + value_of(loop.condition);
    return test.empty() ? "1" : test;
  }

  // memcpy of a copy step; `i` is the innermost loop's iteration variable.
  std::string copy_statement(const Step& k, const std::string& indent, const std::string& i) const {
    const CopyShape& c = k.copy;
    auto offset = [&](int64_t step, bool reverse, int64_t stride) {
      std::string s;
      if (step != 0) s += " + " + std::to_string(step) + " * (size_t)" + (reverse ? "(" + std::to_string(c.trips - 1) + " - " + i + ")" : i);
      if (c.blocks > 1 && stride != 0) s += " + " + std::to_string(stride) + " * (size_t)block";
      return s;
    };
    std::string from = pointer(k.args[0], m_.storage.at(k.args[0])), to = pointer(k.args[1], m_.storage.at(k.args[1]));
    std::string from_offset = offset(c.from_step, c.from_reverse, c.from_stride), to_offset = offset(c.to_step, c.to_reverse, c.to_stride);
    if (!from_offset.empty()) from = "(const uint8_t*)" + from + from_offset;
    if (!to_offset.empty()) to = "(uint8_t*)" + to + to_offset;
    std::string call = "memcpy(" + to + ", " + from + ", " + std::to_string(c.bytes) + ");\n";
    std::string what = "/* '" + display_text(g_.tensor(k.args[1]).name) + "' <- '" + display_text(g_.tensor(k.args[0]).name) + "' */\n";
    if (c.blocks == 1) return indent + what + indent + call;
    return indent + what + indent + "for (int32_t block = 0; block < " + std::to_string(c.blocks) + "; ++block) " + call;
  }

  const CompiledModel& m_;
  const Graph& g_;
  std::string prefix_, macro_, model_file_;
  std::string phase_;  // the static variable saying which buffer of two-buffer states is current
  std::map<TensorId, std::string> input_names_, output_names_, constant_names_, variable_names_;
  std::vector<TensorId> constant_order_, variable_order_;
  std::vector<std::string> runtime_headers_;  // what <name>.c includes of the runtime
};

}  // namespace

std::vector<std::string> input_member_names(const CompiledModel& model) { return unique_names(model.graph, model.graph.inputs); }
std::vector<std::string> output_member_names(const CompiledModel& model) { return unique_names(model.graph, model.graph.outputs); }

namespace {

// Sums the bytes of a kernel's own constant tables (requantization multipliers, weights
// packed in the order the kernel reads them): `static const` data in the kernel's C.
class KernelTableBytes : public ir::IRVisitor {
 public:
  int64_t total = 0;
  void visit_allocate_const(const ir::AllocateConstNode* op) override {
    total += static_cast<int64_t>(op->data.size());
    ir::IRVisitor::visit_allocate_const(op);
  }
};

}  // namespace

int64_t constant_bytes(const CompiledModel& model) {
  std::set<TensorId> seen;
  int64_t total = 0;
  auto count = [&](const Storage& s) {
    if (s.kind == Storage::Kind::kConstant && seen.insert(s.tensor).second) total += model.graph.tensor(s.tensor).size_bytes();
  };
  for (auto& [id, s] : model.storage) count(s);
  for (auto& c : model.copies) count(c.from);
  for (const Step& step : model.steps)
    if (step.is_call()) total += kernel_table_bytes(step.func);
  for (const Artifact& a : model_artifacts(model)) total += static_cast<int64_t>(a.bytes.size());
  return total;
}

int64_t kernel_table_bytes(const ir::PrimFunc& func) {
  KernelTableBytes tables;
  tables.visit(func.body);
  return tables.total;
}

std::vector<std::pair<TensorId, std::string>> constant_symbols(const CompiledModel& m) {
  std::vector<std::pair<TensorId, std::string>> symbols;
  std::set<TensorId> seen;
  auto add = [&](const Storage& s) {
    if (s.kind != Storage::Kind::kConstant || !seen.insert(s.tensor).second) return;
    symbols.emplace_back(s.tensor, short_symbol(m.graph, m.name, "w", symbols.size(), s.tensor));
  };
  for (const Step& k : m.steps)  // in the order the steps read them
    for (TensorId arg : k.args) add(m.storage.at(arg));
  for (auto& c : m.copies) add(c.from);
  return symbols;
}

int64_t state_bytes(const CompiledModel& model) {
  std::set<TensorId> seen;
  int64_t total = 0;
  for (auto& [id, s] : model.storage)
    if (s.kind == Storage::Kind::kVariable && seen.insert(s.tensor).second) total += model.graph.tensor(s.tensor).size_bytes();
  for (auto& [next, state] : model.next_values)  // two buffers of whole rows instead of one
    total += 2 * swapped_row_elements(model, state) * model.graph.tensor(state).dtype.bytes() - model.graph.tensor(state).size_bytes();
  return total;
}

GeneratedFiles generate_sources(const CompiledModel& model, const std::string& model_file_name) {
  ExecutorEmitter emit(model, model_file_name);
  GeneratedFiles out;
  out.files[model.name + ".h"] = emit.header();
  out.files[model.name + ".c"] = emit.source();
  out.files[model.name + "_constants.c"] = emit.constants();
  // The runtime's files the code needs: the headers <name>.c includes, a device driver's
  // source where a kernel calls it, the API every model has (aotc_runtime, aotc_dlpack),
  // and what each of them includes.
  std::map<std::string, std::string> runtime;
  for (const EmbeddedFile* f = kEmbeddedRuntime; f->name; ++f) runtime[f->name] = f->contents;
  std::vector<std::string> needed = emit.runtime_headers();
  for (const char* api : {"aotc_runtime.c", "aotc_dlpack.c"}) needed.push_back(api);
  if (calls_driver(model, ir::builtin::kNpuInvoke)) needed.push_back("aotc_npu_ref.c");
  if (calls_driver(model, ir::builtin::kEthosuInvoke)) needed.push_back("aotc_ethosu.c");
  while (!needed.empty()) {
    std::string name = needed.back();
    needed.pop_back();
    if (out.files.count(name) || !runtime.count(name)) continue;
    out.files[name] = runtime.at(name);
    for (const std::string& include : runtime_includes(runtime.at(name))) needed.push_back(include);
  }
  out.files["aotc_runtime.h"] = runtime_header_for(out.files.at("aotc_runtime.h"), model.target);
  out.files["metadata.json"] = metadata_json(model, model_file_name);
  // The target's compiler flags, for `cc @<name>.cflags` (aotc_add_model does that).
  out.files[model.name + ".cflags"] = cflags_response_file(model.target.cflags);
  return out;
}

}  // namespace aotc
