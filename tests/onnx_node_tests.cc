// onnx_node_tests: runs the ONNX backend node tests that exercise aotc's operators through
// `aotc run`, and checks aotc's outputs against the expected ones shipped with each test.
//
// The ONNX project ships one directory per operator test case (Debian puts them under
// /usr/share/libonnx-testdata/data/node), each holding model.onnx and
// test_data_set_*/{input_N.pb,output_N.pb}. They are the closest thing to a conformance
// suite for ONNX operator semantics, so this driver runs every one that is in scope and
// fails unless each either passes or is listed, with a reason, in the exclusion file.
//
//   onnx_node_tests AOTC_BINARY NODE_DIR EXCLUDE_FILE [--jobs N] [--filter SUBSTR]
//                   [--list] [--timeout SECONDS] [--keep-temp]
//
// Scope. A test is in scope iff its graph has exactly one node, the node's op_type is one
// of kOpsInScope, and its first graph input and first graph output are float32. Other
// operands may have other types: int64 shape-like operands (Reshape's shape, Pad's pads),
// bool ones (Dropout's training_mode, its mask output) and int64 outputs (MaxPool's
// Indices) keep a test in scope, so that the gaps they expose are listed in the exclusion
// file instead of silently dropped. Tests whose data is not float32 (test_add_uint8,
// test_edge_pad on int32, ...) are out of scope.
//
// Quantized operators (kQuantizedOpsInScope: QuantizeLinear, DequantizeLinear,
// QLinearConv, QLinearMatMul) are a second list: a single-node test of one of them is in
// scope whatever its element types, and its integer outputs must match exactly, like
// every integer output.
//
// Frozen operands. aotc compiles static shapes, and a real model always gives Reshape's
// shape or Pad's pads as a constant. So graph inputs of integer or bool type are frozen:
// the driver writes a copy of model.onnx in which each such input becomes an initializer
// holding the test data's value, and passes aotc only the remaining inputs. For the
// quantized operators the frozen inputs are instead exactly the scales and zero points
// (their input positions are listed with each operator): a quantized model always has
// them as initializers, and aotc computes requantization constants from them at compile
// time. Their quantized data inputs stay run-time inputs.
//
// Each run is `AOTC_BINARY run MODEL --inputs I1,... --outputs O1,...` with outputs
// written as .pb into a temporary directory, executed without a shell in its own process
// group (so a timeout also ends the compiler and the compiled program it started). An
// output matches when its element type and shape equal the expected ones and every
// element satisfies |got - exp| <= kAbsTolerance + kRelTolerance * |exp| (NaN matches
// NaN; integer and bool elements must be equal).
//
// Output: one line per in-scope test, in name order (`PASS t`, `FAIL t: why`,
// `EXCLUDED t: reason`), a summary, and then the final line `N passed, N failed`. The exit
// status is 1 if any test failed or the exclusion file is stale (names a test that does
// not exist or is out of scope) or malformed, 2 on a usage or I/O error, and 0 otherwise.
// `--list` prints the in-scope tests and a count per op instead of running anything.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

// onnx_pb.h defines ONNX_API and then includes onnx-ml.pb.h (ONNX_ML=1).
#include <onnx/onnx_pb.h>

extern char** environ;

namespace {

namespace fs = std::filesystem;

// clang-format off
const std::set<std::string> kOpsInScope = {
    "Add", "AveragePool", "BatchNormalization", "Clip", "Concat", "Conv", "Div", "Dropout",
    "Flatten", "Gemm", "GlobalAveragePool", "HardSigmoid", "HardSwish", "MatMul", "MaxPool",
    "Mul", "Pad", "Relu", "Reshape", "Sigmoid", "Softmax", "Sub", "Tanh", "Transpose",
};

// Quantized operators, with the input positions of their scales and zero points.
const std::map<std::string, std::set<int>> kQuantizedOpsInScope = {
    {"DequantizeLinear", {1, 2}},
    {"QuantizeLinear", {1, 2}},
    {"QLinearConv", {1, 2, 4, 5, 6, 7}},
    {"QLinearMatMul", {1, 2, 4, 5, 6, 7}},
};
// clang-format on

constexpr double kRelTolerance = 1e-4;
constexpr double kAbsTolerance = 1e-5;

struct Options {
  std::string aotc_binary;
  fs::path node_dir;
  fs::path exclude_file;
  int jobs = 2;
  std::string filter;
  bool list_only = false;
  int timeout_seconds = 300;
  bool keep_temp = false;
};

// ---------------------------------------------------------------------------------------
// Tensors

// A decoded TensorProto. Every element is widened to double, which represents all float32
// values and all integers below 2^53 exactly: enough for comparing test outputs.
struct DecodedTensor {
  int32_t data_type = 0;
  std::vector<int64_t> dims;
  std::vector<double> values;
};

bool is_integral_or_bool_type(int32_t data_type) {
  switch (data_type) {
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::BOOL: return true;
    default: return false;
  }
}

std::string data_type_name(int32_t data_type) {
  if (onnx::TensorProto::DataType_IsValid(data_type)) {
    return onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(data_type));
  }
  return "type#" + std::to_string(data_type);
}

// Reads `count` little-endian values of type T from raw_data and widens them to double.
template <typename T>
bool widen_raw_data(const std::string& raw_data, int64_t count, std::vector<double>* values) {
  if (raw_data.size() != static_cast<size_t>(count) * sizeof(T)) return false;
  values->resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    T value;
    std::memcpy(&value, raw_data.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
    (*values)[static_cast<size_t>(i)] = static_cast<double>(value);
  }
  return true;
}

template <typename Field>
bool widen_typed_field(const Field& field, int64_t count, std::vector<double>* values) {
  if (field.size() != count) return false;
  values->assign(field.begin(), field.end());
  return true;
}

// Decodes the payload of `proto`, which is either raw_data (little-endian, packed) or the
// typed repeated field that ONNX assigns to its data type. Returns an error or "".
std::string decode_tensor(const onnx::TensorProto& proto, DecodedTensor* tensor) {
  tensor->data_type = proto.data_type();
  tensor->dims.assign(proto.dims().begin(), proto.dims().end());
  int64_t count = 1;
  for (int64_t d : tensor->dims) {
    if (d < 0) return "negative dimension";
    count *= d;
  }
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) return "external data is not supported";

  const bool raw = proto.has_raw_data();
  const std::string& bytes = proto.raw_data();
  bool ok = false;
  switch (proto.data_type()) {
    case onnx::TensorProto::FLOAT:
      ok = raw ? widen_raw_data<float>(bytes, count, &tensor->values)
               : widen_typed_field(proto.float_data(), count, &tensor->values);
      break;
    case onnx::TensorProto::DOUBLE:
      ok = raw ? widen_raw_data<double>(bytes, count, &tensor->values)
               : widen_typed_field(proto.double_data(), count, &tensor->values);
      break;
    // Narrow integer types and bool share int32_data when not raw.
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      ok = raw ? widen_raw_data<uint8_t>(bytes, count, &tensor->values)
               : widen_typed_field(proto.int32_data(), count, &tensor->values);
      break;
    case onnx::TensorProto::INT8:
      ok = raw ? widen_raw_data<int8_t>(bytes, count, &tensor->values)
               : widen_typed_field(proto.int32_data(), count, &tensor->values);
      break;
    case onnx::TensorProto::UINT16:
      ok = raw ? widen_raw_data<uint16_t>(bytes, count, &tensor->values)
               : widen_typed_field(proto.int32_data(), count, &tensor->values);
      break;
    case onnx::TensorProto::INT16:
      ok = raw ? widen_raw_data<int16_t>(bytes, count, &tensor->values)
               : widen_typed_field(proto.int32_data(), count, &tensor->values);
      break;
    case onnx::TensorProto::INT32:
      ok = raw ? widen_raw_data<int32_t>(bytes, count, &tensor->values)
               : widen_typed_field(proto.int32_data(), count, &tensor->values);
      break;
    case onnx::TensorProto::INT64:
      ok = raw ? widen_raw_data<int64_t>(bytes, count, &tensor->values)
               : widen_typed_field(proto.int64_data(), count, &tensor->values);
      break;
    case onnx::TensorProto::UINT32:
      ok = raw ? widen_raw_data<uint32_t>(bytes, count, &tensor->values)
               : widen_typed_field(proto.uint64_data(), count, &tensor->values);
      break;
    case onnx::TensorProto::UINT64:
      ok = raw ? widen_raw_data<uint64_t>(bytes, count, &tensor->values)
               : widen_typed_field(proto.uint64_data(), count, &tensor->values);
      break;
    default: return "unsupported element type " + data_type_name(proto.data_type());
  }
  if (!ok) return "payload does not hold " + std::to_string(count) + " elements";
  return "";
}

template <typename Message>
std::string parse_message_file(const fs::path& path, Message* message) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open " + path.string();
  if (!message->ParseFromIstream(&in)) return "cannot parse " + path.string();
  return "";
}

std::string read_tensor_file(const fs::path& path, DecodedTensor* tensor) {
  onnx::TensorProto proto;
  std::string error = parse_message_file(path, &proto);
  if (!error.empty()) return error;
  error = decode_tensor(proto, tensor);
  return error.empty() ? "" : path.filename().string() + ": " + error;
}

std::string format_dims(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

bool elements_match(double got, double expected, bool exact) {
  if (std::isnan(got) || std::isnan(expected)) return std::isnan(got) && std::isnan(expected);
  if (got == expected) return true;  // also equal infinities
  if (exact) return false;
  return std::fabs(got - expected) <= kAbsTolerance + kRelTolerance * std::fabs(expected);
}

// Returns "" when `got` matches `expected`, otherwise what differs.
std::string compare_tensors(const DecodedTensor& got, const DecodedTensor& expected) {
  if (got.data_type != expected.data_type) {
    return "element type " + data_type_name(got.data_type) + ", expected " +
           data_type_name(expected.data_type);
  }
  if (got.dims != expected.dims) {
    return "shape " + format_dims(got.dims) + ", expected " + format_dims(expected.dims);
  }
  const bool exact = is_integral_or_bool_type(expected.data_type);
  size_t mismatches = 0, first_mismatch = 0;
  double max_abs_error = 0;
  for (size_t i = 0; i < expected.values.size(); ++i) {
    if (elements_match(got.values[i], expected.values[i], exact)) continue;
    if (mismatches++ == 0) first_mismatch = i;
    double error = std::fabs(got.values[i] - expected.values[i]);
    if (!(error <= max_abs_error)) max_abs_error = error;  // NaN propagates
  }
  if (mismatches == 0) return "";
  std::ostringstream why;
  why.precision(9);
  why << mismatches << " of " << expected.values.size() << " elements differ, first at flat index "
      << first_mismatch << ": got " << got.values[first_mismatch] << ", expected "
      << expected.values[first_mismatch] << " (max abs error " << max_abs_error << ")";
  return why.str();
}

// ---------------------------------------------------------------------------------------
// Test discovery

struct NodeTest {
  std::string name;
  fs::path dir;
  std::string op_type;  // of the single node; "" when the graph does not have exactly one
  bool in_scope = false;
  // Set when model.onnx cannot be read; such a test is run anyway, so that it fails visibly.
  std::string load_error;
};

bool is_float32_value(const onnx::ValueInfoProto& value) {
  return value.type().has_tensor_type() &&
         value.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT;
}

NodeTest classify_test(const fs::path& dir) {
  NodeTest test;
  test.name = dir.filename().string();
  test.dir = dir;
  onnx::ModelProto model;
  test.load_error = parse_message_file(dir / "model.onnx", &model);
  if (!test.load_error.empty()) return test;
  const onnx::GraphProto& graph = model.graph();
  if (graph.node_size() != 1) return test;
  test.op_type = graph.node(0).op_type();
  test.in_scope = (kOpsInScope.count(test.op_type) && graph.input_size() > 0 &&
                   graph.output_size() > 0 && is_float32_value(graph.input(0)) &&
                   is_float32_value(graph.output(0))) ||
                  kQuantizedOpsInScope.count(test.op_type);
  return test;
}

std::vector<NodeTest> discover_tests(const fs::path& node_dir) {
  std::vector<NodeTest> tests;
  for (const fs::directory_entry& entry : fs::directory_iterator(node_dir)) {
    if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")) {
      tests.push_back(classify_test(entry.path()));
    }
  }
  std::sort(tests.begin(), tests.end(),
            [](const NodeTest& a, const NodeTest& b) { return a.name < b.name; });
  return tests;
}

// Reads `test_name  reason...` lines; '#' starts a comment line. Problems go to `errors`.
std::map<std::string, std::string> read_exclusions(const fs::path& path,
                                                   std::vector<std::string>* errors) {
  std::map<std::string, std::string> reasons;
  std::ifstream in(path);
  if (!in) {
    errors->push_back("cannot open exclusion file " + path.string());
    return reasons;
  }
  std::string line;
  for (int line_number = 1; std::getline(in, line); ++line_number) {
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos || line[begin] == '#') continue;
    const size_t name_end = line.find_first_of(" \t\r", begin);
    const std::string name = line.substr(begin, name_end - begin);
    std::string reason;
    if (name_end != std::string::npos) {
      const size_t reason_begin = line.find_first_not_of(" \t", name_end);
      const size_t reason_end = line.find_last_not_of(" \t\r");
      if (reason_begin != std::string::npos && reason_begin <= reason_end) {
        reason = line.substr(reason_begin, reason_end - reason_begin + 1);
      }
    }
    const std::string where = path.filename().string() + ":" + std::to_string(line_number);
    if (reason.empty()) {
      errors->push_back(where + ": " + name + " has no reason");
    } else if (!reasons.emplace(name, reason).second) {
      errors->push_back(where + ": " + name + " is listed twice");
    }
  }
  return reasons;
}

// ---------------------------------------------------------------------------------------
// Subprocesses

struct ProcessResult {
  std::string spawn_error;  // non-empty if the process could not be started
  bool timed_out = false;
  int wait_status = 0;
};

// Runs argv[0] (a path; no PATH search, no shell) in its own process group with stdin
// from /dev/null and stdout/stderr redirected to files. On timeout the whole group is
// killed, which also ends the C compiler or compiled program that aotc is running.
ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& stdout_path,
                          const fs::path& stderr_path, int timeout_seconds) {
  ProcessResult result;
  std::vector<char*> c_argv;
  for (const std::string& arg : argv) c_argv.push_back(const_cast<char*>(arg.c_str()));
  c_argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);

  pid_t pid = 0;
  const int spawn_errno =
      posix_spawn(&pid, c_argv[0], &actions, &attributes, c_argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawn_errno != 0) {
    result.spawn_error = "cannot run " + argv[0] + ": " + std::strerror(spawn_errno);
    return result;
  }

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  auto poll_interval = std::chrono::milliseconds(1);
  while (true) {
    const pid_t waited = waitpid(pid, &result.wait_status, WNOHANG);
    if (waited == pid) break;
    if (waited < 0 && errno != EINTR) {
      result.spawn_error = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      // aotc is not reaped yet, so its process group still exists and is ours.
      result.timed_out = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &result.wait_status, 0);
      break;
    }
    std::this_thread::sleep_for(poll_interval);
    poll_interval = std::min(poll_interval * 2, std::chrono::milliseconds(20));
  }
  return result;
}

// The first `max_lines` non-empty lines of a file, joined with " | ".
std::string first_lines(const fs::path& path, int max_lines) {
  std::ifstream in(path);
  std::string line, joined;
  int taken = 0;
  while (taken < max_lines && std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    joined += (taken++ ? " | " : "") + line;
  }
  return joined;
}

// ---------------------------------------------------------------------------------------
// Running one test

struct TestOutcome {
  enum class Kind { kPass, kFail, kExcluded } kind = Kind::kFail;
  std::string message;
};

// Numbered files `prefix<N>.pb` in `dir`, in N order, stopping at the first gap.
std::vector<fs::path> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0;; ++i) {
    fs::path file = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(file)) return files;
    files.push_back(file);
  }
}

std::vector<fs::path> data_set_dirs(const fs::path& test_dir) {
  std::vector<fs::path> dirs;
  for (const fs::directory_entry& entry : fs::directory_iterator(test_dir)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0) {
      dirs.push_back(entry.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::string join_paths(const std::vector<fs::path>& paths) {
  std::string joined;
  for (size_t i = 0; i < paths.size(); ++i) joined += (i ? "," : "") + paths[i].string();
  return joined;
}

// Runs aotc on one data set; returns "" on success or why it failed.
std::string run_data_set(const Options& options, const fs::path& model_path,
                         const fs::path& data_set_dir, const fs::path& work_dir) {
  onnx::ModelProto model;
  std::string error = parse_message_file(model_path, &model);
  if (!error.empty()) return error;
  onnx::GraphProto* graph = model.mutable_graph();

  std::vector<fs::path> input_files = numbered_files(data_set_dir, "input_");
  std::vector<fs::path> expected_files = numbered_files(data_set_dir, "output_");
  if (static_cast<int>(input_files.size()) != graph->input_size()) {
    return "test data has " + std::to_string(input_files.size()) + " inputs, the graph " +
           std::to_string(graph->input_size());
  }
  if (static_cast<int>(expected_files.size()) != graph->output_size()) {
    return "test data has " + std::to_string(expected_files.size()) + " outputs, the graph " +
           std::to_string(graph->output_size());
  }

  // Freeze integer and bool inputs into initializers, or a quantized operator's scales
  // and zero points (see the comment at the top).
  std::set<std::string> quantization_parameters;
  const bool quantized_op =
      graph->node_size() == 1 && kQuantizedOpsInScope.count(graph->node(0).op_type());
  if (quantized_op) {
    const onnx::NodeProto& node = graph->node(0);
    for (int position : kQuantizedOpsInScope.at(node.op_type())) {
      if (position < node.input_size()) quantization_parameters.insert(node.input(position));
    }
  }
  std::vector<fs::path> runtime_input_files;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> runtime_inputs;
  bool froze_any = false;
  for (int i = 0; i < graph->input_size(); ++i) {
    const onnx::ValueInfoProto& input = graph->input(i);
    const int32_t elem_type = input.type().tensor_type().elem_type();
    const bool frozen = quantized_op ? quantization_parameters.count(input.name()) != 0
                                     : is_integral_or_bool_type(elem_type);
    if (!frozen) {
      runtime_inputs.Add()->CopyFrom(input);
      runtime_input_files.push_back(input_files[static_cast<size_t>(i)]);
      continue;
    }
    onnx::TensorProto* value = graph->add_initializer();
    error = parse_message_file(input_files[static_cast<size_t>(i)], value);
    if (!error.empty()) return error;
    value->set_name(input.name());
    froze_any = true;
  }
  fs::path compiled_model_path = model_path;
  if (froze_any) {
    graph->mutable_input()->Swap(&runtime_inputs);
    compiled_model_path = work_dir / "model_frozen.onnx";
    std::ofstream out(compiled_model_path, std::ios::binary);
    if (!model.SerializeToOstream(&out)) return "cannot write " + compiled_model_path.string();
  }

  std::vector<fs::path> output_files;
  for (size_t i = 0; i < expected_files.size(); ++i) {
    output_files.push_back(work_dir / ("output_" + std::to_string(i) + ".pb"));
  }
  const fs::path stdout_path = work_dir / "aotc.stdout";
  const fs::path stderr_path = work_dir / "aotc.stderr";
  std::vector<std::string> argv = {options.aotc_binary, "run", compiled_model_path.string()};
  if (!runtime_input_files.empty()) {
    argv.push_back("--inputs");
    argv.push_back(join_paths(runtime_input_files));
  }
  argv.push_back("--outputs");
  argv.push_back(join_paths(output_files));

  ProcessResult process = run_process(argv, stdout_path, stderr_path, options.timeout_seconds);
  if (!process.spawn_error.empty()) return process.spawn_error;
  std::string stderr_head = first_lines(stderr_path, 3);
  if (!stderr_head.empty()) stderr_head = ": " + stderr_head;
  if (process.timed_out) {
    return "aotc timed out after " + std::to_string(options.timeout_seconds) + " s" + stderr_head;
  }
  if (WIFSIGNALED(process.wait_status)) {
    return std::string("aotc killed by signal ") + strsignal(WTERMSIG(process.wait_status)) +
           stderr_head;
  }
  if (WEXITSTATUS(process.wait_status) != 0) {
    return "aotc exited with status " + std::to_string(WEXITSTATUS(process.wait_status)) +
           stderr_head;
  }

  for (size_t i = 0; i < expected_files.size(); ++i) {
    const std::string which =
        "output " + std::to_string(i) + " (" + graph->output(static_cast<int>(i)).name() + ")";
    if (!fs::exists(output_files[i])) return which + " was not written";
    DecodedTensor got, expected;
    error = read_tensor_file(expected_files[i], &expected);
    if (!error.empty()) return "expected " + which + ": " + error;
    error = read_tensor_file(output_files[i], &got);
    if (!error.empty()) return which + ": " + error;
    error = compare_tensors(got, expected);
    if (!error.empty()) return which + ": " + error;
  }
  return "";
}

TestOutcome run_test(const Options& options, const NodeTest& test, const fs::path& temp_root) {
  TestOutcome outcome;
  if (!test.load_error.empty()) {
    outcome.message = test.load_error;
    return outcome;
  }
  std::vector<fs::path> data_sets = data_set_dirs(test.dir);
  if (data_sets.empty()) {
    outcome.message = "no test_data_set_* directory";
    return outcome;
  }
  for (const fs::path& data_set : data_sets) {
    const fs::path work_dir = temp_root / test.name / data_set.filename();
    std::error_code ignored;
    fs::create_directories(work_dir, ignored);
    std::string error = run_data_set(options, test.dir / "model.onnx", data_set, work_dir);
    if (!error.empty()) {
      outcome.message = (data_sets.size() > 1 ? data_set.filename().string() + ": " : "") + error;
      if (options.keep_temp) outcome.message += " [kept " + work_dir.string() + "]";
      return outcome;
    }
  }
  outcome.kind = TestOutcome::Kind::kPass;
  return outcome;
}

// ---------------------------------------------------------------------------------------
// Driver

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "error: %s\n"
               "usage: onnx_node_tests AOTC_BINARY NODE_DIR EXCLUDE_FILE [--jobs N] "
               "[--filter SUBSTR] [--list] [--timeout SECONDS] [--keep-temp]\n",
               message.c_str());
  std::exit(2);
}

int parse_positive_int(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > 100000) {
    usage_error(flag + " needs a positive integer, got '" + text + "'");
  }
  return static_cast<int>(value);
}

Options parse_options(int argc, char** argv) {
  Options options;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--jobs") {
      options.jobs = parse_positive_int(arg, value());
    } else if (arg == "--filter") {
      options.filter = value();
    } else if (arg == "--timeout") {
      options.timeout_seconds = parse_positive_int(arg, value());
    } else if (arg == "--list") {
      options.list_only = true;
    } else if (arg == "--keep-temp") {
      options.keep_temp = true;
    } else if (arg.rfind("--", 0) == 0) {
      usage_error("unknown option " + arg);
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 3) usage_error("expected AOTC_BINARY NODE_DIR EXCLUDE_FILE");
  // posix_spawn does not search PATH, so resolve a relative binary now.
  std::error_code ignored;
  options.aotc_binary = fs::absolute(positional[0], ignored).string();
  options.node_dir = positional[1];
  options.exclude_file = positional[2];
  return options;
}

struct OpTally {
  int in_scope = 0, passed = 0, failed = 0, excluded = 0;
};

int run_main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  std::error_code fs_error;
  if (!fs::is_directory(options.node_dir, fs_error)) {
    std::fprintf(stderr, "error: %s is not a directory\n", options.node_dir.c_str());
    return 2;
  }
  const std::vector<NodeTest> all_tests = discover_tests(options.node_dir);
  std::vector<std::string> exclusion_errors;
  const std::map<std::string, std::string> exclusions =
      read_exclusions(options.exclude_file, &exclusion_errors);

  // A stale exclusion list hides nothing, but it misleads; so it fails the run.
  std::map<std::string, const NodeTest*> tests_by_name;
  for (const NodeTest& test : all_tests) tests_by_name[test.name] = &test;
  for (const auto& [name, reason] : exclusions) {
    auto found = tests_by_name.find(name);
    if (found == tests_by_name.end()) {
      exclusion_errors.push_back(name + " is excluded but there is no such test");
    } else if (!found->second->in_scope) {
      exclusion_errors.push_back(name + " is excluded but is not in scope");
    }
  }

  // Tests with an unreadable model.onnx join the in-scope ones when running (and fail).
  std::vector<const NodeTest*> in_scope;
  for (const NodeTest& test : all_tests) {
    if (test.in_scope || (!test.load_error.empty() && !options.list_only))
      in_scope.push_back(&test);
  }

  if (options.list_only) {
    std::map<std::string, int> count_by_op;
    for (const NodeTest* test : in_scope) {
      auto excluded = exclusions.find(test->name);
      std::printf("%-56s %s%s\n", test->name.c_str(), test->op_type.c_str(),
                  excluded == exclusions.end() ? "" : "  (excluded)");
      ++count_by_op[test->op_type];
    }
    std::printf("\nin scope per op:\n");
    std::set<std::string> ops_in_scope = kOpsInScope;
    for (const auto& [op, positions] : kQuantizedOpsInScope) ops_in_scope.insert(op);
    for (const std::string& op : ops_in_scope) {
      std::printf("  %-20s %d\n", op.c_str(), count_by_op.count(op) ? count_by_op[op] : 0);
    }
    std::printf("%zu of %zu tests in scope\n", in_scope.size(), all_tests.size());
    for (const std::string& error : exclusion_errors)
      std::printf("EXCLUSION LIST ERROR %s\n", error.c_str());
    return exclusion_errors.empty() ? 0 : 1;
  }

  // The tests to run (or report as excluded): in scope and selected by --filter.
  std::vector<const NodeTest*> selected;
  for (const NodeTest* test : in_scope) {
    if (test->name.find(options.filter) != std::string::npos) selected.push_back(test);
  }

  std::string temp_template =
      (fs::temp_directory_path(fs_error) / "onnx_node_tests.XXXXXX").string();
  if (mkdtemp(temp_template.data()) == nullptr) {
    std::fprintf(stderr, "error: cannot create a temporary directory: %s\n", std::strerror(errno));
    return 2;
  }
  const fs::path temp_root = temp_template;

  // Workers take tests in order; results print in name order as soon as they are ready.
  std::vector<std::optional<TestOutcome>> outcomes(selected.size());
  std::atomic<size_t> next_to_run{0};
  std::mutex print_mutex;
  size_t next_to_print = 0;
  auto print_ready_outcomes = [&]() {  // with print_mutex held
    while (next_to_print < selected.size() && outcomes[next_to_print]) {
      const TestOutcome& outcome = *outcomes[next_to_print];
      const char* name = selected[next_to_print]->name.c_str();
      switch (outcome.kind) {
        case TestOutcome::Kind::kPass: std::printf("PASS %s\n", name); break;
        case TestOutcome::Kind::kFail:
          std::printf("FAIL %s: %s\n", name, outcome.message.c_str());
          break;
        case TestOutcome::Kind::kExcluded:
          std::printf("EXCLUDED %s: %s\n", name, outcome.message.c_str());
          break;
      }
      std::fflush(stdout);
      ++next_to_print;
    }
  };
  auto worker = [&]() {
    for (size_t i; (i = next_to_run.fetch_add(1)) < selected.size();) {
      TestOutcome outcome;
      auto excluded = exclusions.find(selected[i]->name);
      if (excluded != exclusions.end()) {
        outcome.kind = TestOutcome::Kind::kExcluded;
        outcome.message = excluded->second;
      } else {
        outcome = run_test(options, *selected[i], temp_root);
      }
      std::lock_guard<std::mutex> lock(print_mutex);
      outcomes[i] = outcome;
      print_ready_outcomes();
    }
  };
  std::vector<std::thread> workers;
  for (int j = 0; j < options.jobs; ++j) workers.emplace_back(worker);
  for (std::thread& thread : workers) thread.join();

  if (!options.keep_temp) fs::remove_all(temp_root, fs_error);

  // Summary.
  // With --filter, only the ops of the selected tests get a row.
  std::map<std::string, OpTally> tally_by_op;
  int passed = 0, failed = 0, excluded = 0;
  for (const NodeTest* test : selected) tally_by_op[test->op_type];
  for (const NodeTest* test : in_scope) {
    auto row = tally_by_op.find(test->op_type);
    if (row != tally_by_op.end()) ++row->second.in_scope;
  }
  for (size_t i = 0; i < selected.size(); ++i) {
    OpTally& tally = tally_by_op[selected[i]->op_type];
    switch (outcomes[i]->kind) {
      case TestOutcome::Kind::kPass: ++passed, ++tally.passed; break;
      case TestOutcome::Kind::kFail: ++failed, ++tally.failed; break;
      case TestOutcome::Kind::kExcluded: ++excluded, ++tally.excluded; break;
    }
  }

  std::printf("\nsummary: %zu tests in %s; %zu in scope, %zu out of scope\n", all_tests.size(),
              options.node_dir.c_str(), in_scope.size(), all_tests.size() - in_scope.size());
  if (!options.filter.empty()) {
    std::printf("  --filter '%s' selected %zu of the %zu in scope\n", options.filter.c_str(),
                selected.size(), in_scope.size());
  }
  std::printf("  %-20s %8s %6s %6s %8s\n", "op", "in scope", "passed", "failed", "excluded");
  for (const auto& [op, tally] : tally_by_op) {
    std::printf("  %-20s %8d %6d %6d %8d\n", op.empty() ? "(unreadable)" : op.c_str(),
                tally.in_scope, tally.passed, tally.failed, tally.excluded);
  }
  std::printf("  excluded: %d\n", excluded);
  if (options.keep_temp) std::printf("  temporary files kept in %s\n", temp_root.c_str());
  for (const std::string& error : exclusion_errors)
    std::printf("EXCLUSION LIST ERROR %s\n", error.c_str());
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && exclusion_errors.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {  // e.g. an unreadable directory
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
