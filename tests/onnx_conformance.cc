// onnx_conformance: runs every ONNX backend node test (Debian's libonnx-testdata, 932 tests
// under /usr/share/libonnx-testdata/data/node) through `aotc run` and sorts each into one
// of four classes:
//
//   PASS         every output of every data set matches the expected one;
//   FAIL         a wrong number, shape or type, a crash, an internal error, a timeout, or a
//                generated program that failed: a bug, never accepted;
//   UNSUPPORTED  aotc refused the model at compile time with a clear `error: ...` (exit
//                status 1), naming the operator and the reason;
//   EXCLUDED     the test needs what aotc does not aim at, with the reason: training mode,
//                strings, sequences and optionals, data-dependent output shapes, random
//                numbers. Types and operators excluded as a class are recognised here
//                (kExcludedOps, value types); single tests are listed in the exclusion file.
//
//   onnx_conformance AOTC_BINARY NODE_DIR EXCLUDE_FILE [--jobs N] [--filter SUBSTR]
//                    [--timeout SECONDS] [--keep-temp] [--write REPORT | --check REPORT]
//
// Each test directory holds model.onnx and test_data_set_*/{input,output}_N.pb. Each data
// set runs as `AOTC_BINARY run MODEL --inputs I1,... --outputs O1,...`, without a shell, in
// its own process group (a timeout also ends the compiler and the program it started).
//
// Compile-time inputs. aotc compiles static shapes, and a real model gives an operand that
// decides a shape (Reshape's shape, Slice's starts, TopK's k...) as a constant. So a graph
// input that some node reads at such a position (kCompileTimeInputs; a quantized operator's
// scales and zero points too, from which aotc computes requantization constants) is made an
// initializer holding the test data's value, in a copy of model.onnx. Every other input,
// whatever its type, stays a run-time input.
//
// Tolerances are the ONNX backend test defaults: |got - exp| <= 1e-7 + 1e-3 * |exp| for
// floating point (NaN matches NaN); integers and booleans must be equal.
//
// Output: one line per test, in name order (`PASS t`, `FAIL t: why`, `UNSUPPORTED t: the
// error`, `EXCLUDED t: reason`), then the counts. --write REPORT writes the same lines with
// the counts on top to REPORT (tests/onnx_conformance_report.txt, `ninja
// onnx_conformance_report`); --check REPORT also fails when a test's class differs from
// REPORT's, so that the committed report (and the README's counts) stay true. The exit
// status is 1 if any test failed, the report is stale or the exclusion file is wrong (names
// a test that does not exist, or one excluded anyway), 2 on a usage or I/O error, else 0.

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

// Operand positions that decide an output's shape or a compile-time constant: a graph
// input read there is frozen into an initializer (see the top).
const std::map<std::string, std::set<int>> kCompileTimeInputs = {
    {"CenterCropPad", {1}}, {"Clip", {}}, {"Col2Im", {1, 2}}, {"Compress", {1}}, {"ConstantOfShape", {0}},
    {"CumSum", {1}}, {"Expand", {1}}, {"MaxUnpool", {2}}, {"OneHot", {1}}, {"Pad", {1, 2, 3}},
    {"Range", {0, 1, 2}}, {"ReduceL1", {1}}, {"ReduceL2", {1}}, {"ReduceLogSum", {1}},
    {"ReduceLogSumExp", {1}}, {"ReduceMax", {1}}, {"ReduceMean", {1}}, {"ReduceMin", {1}},
    {"ReduceProd", {1}}, {"ReduceSum", {1}}, {"ReduceSumSquare", {1}}, {"Reshape", {1}},
    {"Resize", {1, 2, 3}}, {"ScatterElements", {1}}, {"ScatterND", {1}}, {"Scatter", {1}}, {"Slice", {1, 2, 3, 4}},
    {"Split", {1}}, {"Squeeze", {1}}, {"Tile", {1}}, {"TopK", {1}}, {"Trilu", {1}}, {"Unsqueeze", {1}},
    {"Upsample", {1}}, {"BlackmanWindow", {0}},
    // A Loop's trip count and initial condition decide how many slices its scan outputs get.
    {"Loop", {0, 1}}, {"HannWindow", {0}}, {"HammingWindow", {0}},
    {"DFT", {1}}, {"STFT", {1, 3}}, {"MelWeightMatrix", {0, 1, 2, 3, 4}},
    // Quantized operators: their scales and zero points.
    {"DequantizeLinear", {1, 2}}, {"QuantizeLinear", {1, 2}}, {"DynamicQuantizeLinear", {}},
    {"QLinearConv", {1, 2, 4, 5, 6, 7}}, {"QLinearMatMul", {1, 2, 4, 5, 6, 7}},
    {"MatMulInteger", {2, 3}}, {"ConvInteger", {2, 3}},
};

// Operators whose tests are excluded as a class, with the reason.
const std::map<std::string, std::string> kExcludedOps = {
    {"Bernoulli", "random numbers: the expected values come from numpy's generator"},
    {"RandomNormal", "random numbers: the expected values come from numpy's generator"},
    {"RandomNormalLike", "random numbers: the expected values come from numpy's generator"},
    {"RandomUniform", "random numbers: the expected values come from numpy's generator"},
    {"RandomUniformLike", "random numbers: the expected values come from numpy's generator"},
    {"Multinomial", "random numbers: the expected values come from numpy's generator"},
    {"NonZero", "data-dependent output shape"},
    {"Unique", "data-dependent output shape"},
    {"NonMaxSuppression", "data-dependent output shape"},
};

constexpr double kRelTolerance = 1e-3;
constexpr double kAbsTolerance = 1e-7;

struct Options {
  std::string aotc_binary;
  fs::path node_dir;
  fs::path exclude_file;
  int jobs = 2;
  std::string filter;
  int timeout_seconds = 120;
  bool keep_temp = false;
  fs::path write_report;  // --write
  fs::path check_report;  // --check
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

// The value of an IEEE binary16 bit pattern, from its definition (written here, not taken
// from aotc's runtime, so that the oracle stays independent).
double float16_value(uint32_t bits) {
  const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  const int exponent = static_cast<int>((bits >> 10) & 0x1Fu);
  const double mantissa = static_cast<double>(bits & 0x3FFu);
  if (exponent == 0x1F) return mantissa != 0 ? std::nan("") : sign * HUGE_VAL;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024.0 + mantissa, exponent - 25);
}

// float16 payloads hold bit patterns: raw 16-bit words, or one per int32_data entry.
bool decode_float16(const onnx::TensorProto& proto, int64_t count, std::vector<double>* values) {
  std::vector<double> bits;
  bool ok = proto.has_raw_data() ? widen_raw_data<uint16_t>(proto.raw_data(), count, &bits)
                                 : widen_typed_field(proto.int32_data(), count, &bits);
  if (!ok) return false;
  values->clear();
  for (double b : bits) values->push_back(float16_value(static_cast<uint32_t>(b) & 0xFFFFu));
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
    case onnx::TensorProto::FLOAT16: ok = decode_float16(proto, count, &tensor->values); break;
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
  std::vector<std::string> ops;  // of the graph's nodes, without repeats, in order
  // Why the test is excluded as a class (its value types, operators or domain), or "".
  std::string class_exclusion;
  // Set when model.onnx cannot be read; such a test is run anyway, so that it fails visibly.
  std::string load_error;
};

// Why a graph with this value is excluded, or "".
std::string value_exclusion(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      return type.tensor_type().elem_type() == onnx::TensorProto::STRING ? "strings: aotc compiles numeric tensors"
                                                                          : "";
    case onnx::TypeProto::kSequenceType: return "sequences: aotc compiles tensors";
    case onnx::TypeProto::kOptionalType: return "optionals: aotc compiles tensors";
    default: return "maps and other non-tensor values: aotc compiles tensors";
  }
}

NodeTest classify_test(const fs::path& dir) {
  NodeTest test;
  test.name = dir.filename().string();
  test.dir = dir;
  onnx::ModelProto model;
  test.load_error = parse_message_file(dir / "model.onnx", &model);
  if (!test.load_error.empty()) return test;
  const onnx::GraphProto& graph = model.graph();
  for (const onnx::NodeProto& node : graph.node()) {
    if (std::find(test.ops.begin(), test.ops.end(), node.op_type()) == test.ops.end()) test.ops.push_back(node.op_type());
    if (node.domain() == "ai.onnx.preview.training") test.class_exclusion = "training: a training operator";
    auto excluded = kExcludedOps.find(node.op_type());
    if (excluded != kExcludedOps.end()) test.class_exclusion = excluded->second;
  }
  for (const auto* values : {&graph.input(), &graph.output()}) {
    for (const onnx::ValueInfoProto& value : *values) {
      std::string why = value_exclusion(value.type());
      if (!why.empty()) test.class_exclusion = why;
    }
  }
  return test;
}

std::string op_list(const NodeTest& test) {
  std::string s;
  for (const std::string& op : test.ops) s += (s.empty() ? "" : "+") + op;
  return s.empty() ? "(unreadable)" : s;
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
  enum class Kind { kPass, kFail, kUnsupported, kExcluded } kind = Kind::kFail;
  std::string message;
};

const char* kind_name(TestOutcome::Kind kind) {
  switch (kind) {
    case TestOutcome::Kind::kPass: return "PASS";
    case TestOutcome::Kind::kFail: return "FAIL";
    case TestOutcome::Kind::kUnsupported: return "UNSUPPORTED";
    case TestOutcome::Kind::kExcluded: return "EXCLUDED";
  }
  return "?";
}

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

// The graph inputs to freeze: those some node reads at a compile-time position, directly
// or through the nodes that compute the operand (an `_expanded` test computes a Loop's trip
// count or a window's size from its inputs), but not through Shape and Size, which read
// only their input's shape.
std::set<std::string> compile_time_inputs(const onnx::GraphProto& graph) {
  std::map<std::string, const onnx::NodeProto*> producer;
  for (const onnx::NodeProto& node : graph.node())
    for (const std::string& out : node.output()) producer[out] = &node;
  std::set<std::string> names, seen;
  std::vector<std::string> pending;
  for (const onnx::NodeProto& node : graph.node()) {
    auto positions = kCompileTimeInputs.find(node.op_type());
    if (positions == kCompileTimeInputs.end()) continue;
    for (int position : positions->second)
      if (position < node.input_size() && !node.input(position).empty()) pending.push_back(node.input(position));
  }
  while (!pending.empty()) {
    std::string name = pending.back();
    pending.pop_back();
    if (!seen.insert(name).second) continue;
    auto made_by = producer.find(name);
    if (made_by == producer.end()) {
      names.insert(name);  // a graph input (initializers are not frozen again)
      continue;
    }
    const std::string& op = made_by->second->op_type();
    if (op == "Shape" || op == "Size") continue;
    for (const std::string& in : made_by->second->input())
      if (!in.empty()) pending.push_back(in);
  }
  return names;
}

TestOutcome failure(std::string message) { return {TestOutcome::Kind::kFail, std::move(message)}; }

// Runs aotc on one data set.
TestOutcome run_data_set(const Options& options, const fs::path& model_path, const fs::path& data_set_dir,
                         const fs::path& work_dir) {
  onnx::ModelProto model;
  std::string error = parse_message_file(model_path, &model);
  if (!error.empty()) return failure(error);
  onnx::GraphProto* graph = model.mutable_graph();

  // Graph inputs with an initializer of the same name are optional inputs with a default;
  // the test data gives one file per input without an initializer.
  std::set<std::string> initialized;
  for (const onnx::TensorProto& t : graph->initializer()) initialized.insert(t.name());
  std::vector<int> data_inputs;
  for (int i = 0; i < graph->input_size(); ++i)
    if (!initialized.count(graph->input(i).name())) data_inputs.push_back(i);

  std::vector<fs::path> input_files = numbered_files(data_set_dir, "input_");
  std::vector<fs::path> expected_files = numbered_files(data_set_dir, "output_");
  if (input_files.size() != data_inputs.size()) {
    return failure("test data has " + std::to_string(input_files.size()) + " inputs, the graph " +
                   std::to_string(data_inputs.size()));
  }
  if (static_cast<int>(expected_files.size()) != graph->output_size()) {
    return failure("test data has " + std::to_string(expected_files.size()) + " outputs, the graph " +
                   std::to_string(graph->output_size()));
  }

  // Freeze the compile-time inputs into initializers (see the top).
  const std::set<std::string> frozen_names = compile_time_inputs(*graph);
  std::vector<fs::path> runtime_input_files;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept_inputs;
  bool froze_any = false;
  size_t file_index = 0;
  for (int i = 0; i < graph->input_size(); ++i) {
    const onnx::ValueInfoProto& input = graph->input(i);
    if (initialized.count(input.name())) continue;  // a default: stays an initializer
    const fs::path& file = input_files[file_index++];
    if (!frozen_names.count(input.name())) {
      kept_inputs.Add()->CopyFrom(input);
      runtime_input_files.push_back(file);
      continue;
    }
    onnx::TensorProto* value = graph->add_initializer();
    error = parse_message_file(file, value);
    if (!error.empty()) return failure(error);
    value->set_name(input.name());
    froze_any = true;
  }
  fs::path compiled_model_path = model_path;
  if (froze_any || !initialized.empty()) {
    graph->mutable_input()->Swap(&kept_inputs);
    compiled_model_path = work_dir / "model_frozen.onnx";
    std::ofstream out(compiled_model_path, std::ios::binary);
    if (!model.SerializeToOstream(&out)) return failure("cannot write " + compiled_model_path.string());
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
  if (!process.spawn_error.empty()) return failure(process.spawn_error);
  std::string stderr_head = first_lines(stderr_path, 3);
  if (process.timed_out) {
    return failure("aotc timed out after " + std::to_string(options.timeout_seconds) + " s: " + stderr_head);
  }
  if (WIFSIGNALED(process.wait_status)) {
    return failure(std::string("aotc killed by signal ") + strsignal(WTERMSIG(process.wait_status)) + ": " +
                   stderr_head);
  }
  const int status = WEXITSTATUS(process.wait_status);
  // A model aotc refuses, with a message, before anything is built: unsupported. A
  // generated program that fails, an internal error (3), any other status: a failure.
  const bool refused = status == 1 && stderr_head.rfind("error: ", 0) == 0 &&
                       stderr_head.find("the generated program failed") == std::string::npos &&
                       stderr_head.find("building the generated C failed") == std::string::npos;
  if (refused) return {TestOutcome::Kind::kUnsupported, stderr_head.substr(7)};
  if (status != 0) return failure("aotc exited with status " + std::to_string(status) + ": " + stderr_head);

  for (size_t i = 0; i < expected_files.size(); ++i) {
    const std::string which =
        "output " + std::to_string(i) + " (" + graph->output(static_cast<int>(i)).name() + ")";
    if (!fs::exists(output_files[i])) return failure(which + " was not written");
    DecodedTensor got, expected;
    error = read_tensor_file(expected_files[i], &expected);
    if (!error.empty()) return failure("expected " + which + ": " + error);
    error = read_tensor_file(output_files[i], &got);
    if (!error.empty()) return failure(which + ": " + error);
    error = compare_tensors(got, expected);
    if (!error.empty()) return failure(which + ": " + error);
  }
  return {TestOutcome::Kind::kPass, ""};
}

TestOutcome run_test(const Options& options, const NodeTest& test, const fs::path& temp_root) {
  if (!test.load_error.empty()) return failure(test.load_error);
  std::vector<fs::path> data_sets = data_set_dirs(test.dir);
  if (data_sets.empty()) return failure("no test_data_set_* directory");
  for (const fs::path& data_set : data_sets) {
    const fs::path work_dir = temp_root / test.name / data_set.filename();
    std::error_code ignored;
    fs::create_directories(work_dir, ignored);
    TestOutcome outcome = run_data_set(options, test.dir / "model.onnx", data_set, work_dir);
    if (outcome.kind != TestOutcome::Kind::kPass) {
      if (outcome.kind == TestOutcome::Kind::kFail && data_sets.size() > 1)
        outcome.message = data_set.filename().string() + ": " + outcome.message;
      if (options.keep_temp) outcome.message += " [kept " + work_dir.string() + "]";
      return outcome;
    }
  }
  return {TestOutcome::Kind::kPass, ""};
}

// ---------------------------------------------------------------------------------------
// Driver

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "error: %s\n"
               "usage: onnx_conformance AOTC_BINARY NODE_DIR EXCLUDE_FILE [--jobs N] [--filter SUBSTR] "
               "[--timeout SECONDS] [--keep-temp] [--write REPORT | --check REPORT]\n",
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
    } else if (arg == "--keep-temp") {
      options.keep_temp = true;
    } else if (arg == "--write") {
      options.write_report = value();
    } else if (arg == "--check") {
      options.check_report = value();
    } else if (arg.rfind("--", 0) == 0) {
      usage_error("unknown option " + arg);
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 3) usage_error("expected AOTC_BINARY NODE_DIR EXCLUDE_FILE");
  if (!options.write_report.empty() && !options.check_report.empty()) usage_error("--write or --check, not both");
  if (!options.filter.empty() && !options.write_report.empty()) usage_error("--write covers every test: no --filter");
  // posix_spawn does not search PATH, so resolve a relative binary now.
  std::error_code ignored;
  options.aotc_binary = fs::absolute(positional[0], ignored).string();
  options.node_dir = positional[1];
  options.exclude_file = positional[2];
  return options;
}

// The class of each test in a report written by --write ("" for tests it does not list).
std::map<std::string, std::string> read_report_classes(const fs::path& path, std::string* error) {
  std::map<std::string, std::string> classes;
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open report " + path.string();
    return classes;
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, name;
    if (!(words >> kind >> name) || line[0] == '#') continue;
    if (!name.empty() && name.back() == ':') name.pop_back();
    classes[name] = kind;
  }
  return classes;
}

struct Counts {
  int passed = 0, failed = 0, unsupported = 0, excluded = 0;
  int total() const { return passed + failed + unsupported + excluded; }
  void add(TestOutcome::Kind kind) {
    switch (kind) {
      case TestOutcome::Kind::kPass: ++passed; break;
      case TestOutcome::Kind::kFail: ++failed; break;
      case TestOutcome::Kind::kUnsupported: ++unsupported; break;
      case TestOutcome::Kind::kExcluded: ++excluded; break;
    }
  }
  // "passed 1 of 2 tests not excluded (50.0%)"
  std::string summary() const {
    char text[256];
    int considered = total() - excluded;
    std::snprintf(text, sizeof text,
                  "%d tests: %d passed, %d failed, %d unsupported, %d excluded; %d of the %d not excluded pass "
                  "(%.1f%%)",
                  total(), passed, failed, unsupported, excluded, passed, considered,
                  considered ? 100.0 * passed / considered : 0.0);
    return text;
  }
};

std::string outcome_line(const std::string& name, const TestOutcome& outcome) {
  std::string line = std::string(kind_name(outcome.kind)) + " " + name;
  if (!outcome.message.empty()) line += ": " + outcome.message;
  return line;
}

int run_main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  std::error_code fs_error;
  if (!fs::is_directory(options.node_dir, fs_error)) {
    std::fprintf(stderr, "error: %s is not a directory\n", options.node_dir.c_str());
    return 2;
  }
  const std::vector<NodeTest> all_tests = discover_tests(options.node_dir);
  std::vector<std::string> exclusion_errors;
  const std::map<std::string, std::string> exclusions = read_exclusions(options.exclude_file, &exclusion_errors);

  // A stale exclusion list hides nothing, but it misleads; so it fails the run.
  std::map<std::string, const NodeTest*> tests_by_name;
  for (const NodeTest& test : all_tests) tests_by_name[test.name] = &test;
  for (const auto& [name, reason] : exclusions) {
    auto found = tests_by_name.find(name);
    if (found == tests_by_name.end()) {
      exclusion_errors.push_back(name + " is listed but there is no such test");
    } else if (!found->second->class_exclusion.empty()) {
      exclusion_errors.push_back(name + " is listed but excluded anyway (" + found->second->class_exclusion + ")");
    }
  }

  std::vector<const NodeTest*> selected;
  for (const NodeTest& test : all_tests)
    if (test.name.find(options.filter) != std::string::npos) selected.push_back(&test);

  std::string temp_template = (fs::temp_directory_path(fs_error) / "onnx_conformance.XXXXXX").string();
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
      std::printf("%s\n", outcome_line(selected[next_to_print]->name, *outcomes[next_to_print]).c_str());
      std::fflush(stdout);
      ++next_to_print;
    }
  };
  auto worker = [&]() {
    for (size_t i; (i = next_to_run.fetch_add(1)) < selected.size();) {
      const NodeTest& test = *selected[i];
      TestOutcome outcome;
      auto listed = exclusions.find(test.name);
      if (!test.class_exclusion.empty()) {
        outcome = {TestOutcome::Kind::kExcluded, test.class_exclusion};
      } else if (listed != exclusions.end()) {
        outcome = {TestOutcome::Kind::kExcluded, listed->second};
      } else {
        outcome = run_test(options, test, temp_root);
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

  Counts counts;
  std::map<std::string, Counts> by_op;  // by the test's operators, e.g. "Conv" or "Shape+Gather"
  for (size_t i = 0; i < selected.size(); ++i) {
    counts.add(outcomes[i]->kind);
    by_op[op_list(*selected[i])].add(outcomes[i]->kind);
  }
  std::printf("\n%s%s\n", counts.summary().c_str(),
              options.filter.empty() ? "" : (" (--filter '" + options.filter + "')").c_str());
  if (options.keep_temp) std::printf("temporary files kept in %s\n", temp_root.c_str());

  int status = counts.failed == 0 ? 0 : 1;
  if (!options.write_report.empty()) {
    std::ofstream out(options.write_report);
    out << "# ONNX backend node tests (Debian's libonnx-testdata 1.12) through aotc: written by\n"
        << "# `ninja onnx_conformance_report` (tests/onnx_conformance.cc, which says what each class means).\n"
        << "# " << counts.summary() << "\n#\n# by operator: passed / failed / unsupported / excluded\n";
    for (const auto& [ops, c] : by_op)
      out << "#   " << ops << ": " << c.passed << " / " << c.failed << " / " << c.unsupported << " / " << c.excluded << "\n";
    out << "\n";
    for (size_t i = 0; i < selected.size(); ++i) out << outcome_line(selected[i]->name, *outcomes[i]) << "\n";
    if (!out) {
      std::fprintf(stderr, "error: cannot write %s\n", options.write_report.c_str());
      return 2;
    }
    std::printf("report written to %s\n", options.write_report.c_str());
  }
  if (!options.check_report.empty()) {
    std::string error;
    std::map<std::string, std::string> committed = read_report_classes(options.check_report, &error);
    if (!error.empty()) {
      std::printf("REPORT ERROR %s\n", error.c_str());
      status = 1;
    }
    int stale = 0;
    for (size_t i = 0; i < selected.size(); ++i) {
      std::string now = kind_name(outcomes[i]->kind);
      auto was = committed.find(selected[i]->name);
      std::string before = was == committed.end() ? "(not listed)" : was->second;
      if (before == now) continue;
      std::printf("REPORT STALE %s: %s in %s, %s now\n", selected[i]->name.c_str(), before.c_str(),
                  options.check_report.filename().c_str(), now.c_str());
      ++stale;
    }
    if (stale) {
      std::printf("%d tests changed class: run `ninja onnx_conformance_report` and commit the report\n", stale);
      status = 1;
    }
  }
  for (const std::string& error : exclusion_errors) std::printf("EXCLUSION LIST ERROR %s\n", error.c_str());
  if (!exclusion_errors.empty()) status = 1;
  std::printf("%d passed, %d failed\n", counts.passed, counts.failed);
  return status;
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
