// The aotc command line as a user meets it: help, version, and every bad input giving a
// clear message, a non-zero exit and no output folder.
#include "targets/target.h"
#include <nlohmann/json.hpp>
#include <map>
#include <regex>
#include <set>

#include "aot/base/text.h"
#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kRelu = "/usr/share/libonnx-testdata/data/node/test_relu";

class Cli : public TempDirTest<> {
 protected:
  Cli() : TempDirTest("aotc-cli-test") {}
  // Compiles `model` and expects failure with `message` and no output directory.
  void expect_compile_error(const std::string& model, const std::string& message) {
    Result r = run({"compile", model, "-o", tmp("out")});
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(tmp("out")));
    for (auto& entry : fs::directory_iterator(dir_->path()))
      EXPECT_EQ(entry.path().filename().string().find("staging"), std::string::npos) << "left behind: " << entry.path();
  }
};

TEST_F(Cli, HelpAndVersion) {
  Result help = run({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("compile"), std::string::npos);
  EXPECT_NE(help.output.find("run"), std::string::npos);
  EXPECT_NE(help.output.find("(ONNX, TFLite)"), std::string::npos) << help.output;
  Result compile_help = run({"compile", "--help"});
  EXPECT_EQ(compile_help.status, 0);
  EXPECT_NE(compile_help.output.find("--print-after"), std::string::npos);
  Result version = run({"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_NE(version.output.find("aotc 0."), std::string::npos);
}

TEST_F(Cli, CompileWritesTheFiles) {
  Result r = run({"compile", kRelu + "/model.onnx", "-o", tmp("out"), "--name", "relu_net"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"relu_net.h", "relu_net.c", "relu_net_constants.c", "aotc_runtime.h", "aotc_runtime.c", "metadata.json"})
    EXPECT_TRUE(fs::exists(tmp("out/") + f)) << f;
  EXPECT_NE(read_bytes(tmp("out/relu_net.h")).find("int32_t relu_net_run(const struct relu_net_inputs* inputs"), std::string::npos);
}

// The output folder holds the runtime headers whose functions the chosen kernels call and
// no others: checked against the generated C itself, each aotc_ function it calls found
// in the runtime's sources (runtime-c/), not in the compiler's registry. kws on the
// Cortex-M4 (DSP register blocks), the Cortex-M55 (Helium), a float CNN on the host (SIMD
// float blocks) and a QDQ model (ONNX's requantization) call different sets.
TEST_F(Cli, OutputHoldsTheRuntimeHeadersTheKernelsCall) {
  std::map<std::string, std::string> runtime_header_of;  // function -> header defining it
  for (const auto& entry : fs::directory_iterator(source_path("runtime-c"))) {
    std::string name = entry.path().filename().string();
    // The kernels' helpers; not the API every folder has (aotc_runtime, aotc_dlpack). The
    // device drivers' interfaces are in runtime-c/npu/, which this does not walk.
    bool helpers = name != "aotc_runtime.h" && name != "aotc_dlpack.h";
    if (entry.path().extension() != ".h" || !helpers) continue;
    std::string text = read_bytes(entry.path().string());
    std::regex definition(R"((aotc_[a-z0-9_]+)\([^;{}()]*\)\s*\{)");  // a name, its parameters, its body
    for (std::sregex_iterator it(text.begin(), text.end(), definition), end; it != end; ++it)
      runtime_header_of[(*it)[1]] = name;
  }
  ASSERT_GT(runtime_header_of.size(), 40u);
  struct Case {
    std::string model, target, must_have;
  };
  const std::string mlperf = shared_path("models/mlperf-tiny/");
  int compiled = 0;
  for (const Case& c : {Case{mlperf + "kws_ref_model.tflite", "cortex-m4", "aotc_dot.h"},
                        Case{mlperf + "kws_ref_model.tflite", "cortex-m55", "aotc_mve.h"},
                        Case{source_path("tests/models/small_cnn/model.onnx"), "host", "aotc_host_f32.h"},
                        Case{source_path("tests/models/qdq/conv_chain/model.onnx"), "host", "aotc_quant_onnx.h"}}) {
    std::string out = tmp("out_" + std::to_string(compiled++));
    Result r = run({"compile", c.model, "-o", out, "--name", "net", "--target", c.target});
    ASSERT_EQ(r.status, 0) << r.output;
    std::string code = read_bytes(out + "/net.c");
    std::set<std::string> called;
    std::regex call(R"(\b(aotc_[a-z0-9_]+)\()");
    for (std::sregex_iterator it(code.begin(), code.end(), call), end; it != end; ++it)
      if (runtime_header_of.count((*it)[1])) called.insert(runtime_header_of.at((*it)[1]));
    std::set<std::string> included;
    std::regex include(R"re(#include "(aotc_[a-z0-9_]+\.h)")re");
    for (std::sregex_iterator it(code.begin(), code.end(), include), end; it != end; ++it)
      if ((*it)[1] != "aotc_runtime.h") included.insert((*it)[1]);
    EXPECT_EQ(included, called) << c.model << " on " << c.target;
    EXPECT_TRUE(included.count(c.must_have)) << c.model << " on " << c.target;
    for (const auto& [function, header] : runtime_header_of) {
      (void)function;
      bool in_folder = fs::exists(out + "/" + header);
      bool needed = included.count(header) || (header == "aotc_quant.h" && !included.empty());  // what they include
      if (!needed) EXPECT_FALSE(in_folder) << header << " for " << c.model << " on " << c.target;
      if (included.count(header)) EXPECT_TRUE(in_folder) << header << " for " << c.model << " on " << c.target;
    }
  }
}

TEST_F(Cli, TruncatedModel) {
  std::string bytes = read_bytes(source_path("tests/models/small_cnn/model.onnx"));
  std::ofstream(tmp("truncated.onnx"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  expect_compile_error(tmp("truncated.onnx"), "not a valid ONNX model");
}

TEST_F(Cli, UnsupportedOperatorNamesTheNode) {
  expect_compile_error(source_path("tests/models/bad/unsupported_op.onnx"),
                       "node frob (FrobnicateTensor): operator 'FrobnicateTensor' is not supported");
}

TEST_F(Cli, MissingInitializerNamesTheNodeAndInput) {
  expect_compile_error(source_path("tests/models/bad/missing_initializer.onnx"), "node add_bias (Add): input 'bias'");
}

TEST_F(Cli, DynamicShapeIsExplained) {
  expect_compile_error(source_path("tests/models/bad/dynamic_shape.onnx"),
                       "dynamic dimension 'N' (shape [?, 4]); aotc needs static shapes: give them with --input-shape "
                       "x=... or --dim N=...");
}

// A dynamic batch bound on the command line, by the dimension's name or the input's
// whole shape, in `aotc compile` and `aotc run`: Relu of [N, 4] with N = 2.
TEST_F(Cli, DynamicDimensionsBoundOnTheCommandLine) {
  const std::string model = source_path("tests/models/bad/dynamic_shape.onnx");
  std::vector<float> x = {-1, 2, -3, 4, 5, -6, 7, -8};
  std::ofstream(tmp("x.bin"), std::ios::binary).write(reinterpret_cast<const char*>(x.data()), 32);
  for (const std::vector<std::string>& binding : {std::vector<std::string>{"--dim", "N=2"},
                                                 std::vector<std::string>{"--input-shape", "x=2,4"}}) {
    std::vector<std::string> args = {"run", model, "--inputs", tmp("x.bin"), "--outputs", tmp("y.bin")};
    args.insert(args.end(), binding.begin(), binding.end());
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(read_floats(tmp("y.bin")), (std::vector<float>{0, 2, 0, 4, 5, 0, 7, 0}));
  }
  Result r = run({"compile", model, "-o", tmp("out"), "--dim", "N=1"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(read_bytes(tmp("out") + "/model.h").find("MODEL_INPUT_X_SIZE 16"), std::string::npos);
}

TEST_F(Cli, ShapeBindingsThatDoNotFitAreErrors) {
  const std::string model = source_path("tests/models/bad/dynamic_shape.onnx");
  auto error_of = [&](std::vector<std::string> binding) {
    std::vector<std::string> args = {"compile", model, "-o", tmp("out")};
    args.insert(args.end(), binding.begin(), binding.end());
    Result r = run(args);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_FALSE(fs::exists(tmp("out")));
    return r.output;
  };
  EXPECT_NE(error_of({"--dim", "N=1", "--dim", "M=1"}).find("--dim names 'M', which is no dynamic dimension"),
            std::string::npos);
  EXPECT_NE(error_of({"--dim", "N=1", "--input-shape", "y=1,4"})
                .find("--input-shape names 'y', which is not a graph input"),
            std::string::npos);
  EXPECT_NE(error_of({"--input-shape", "x=2,5"}).find("does not fit the input's declared shape [?, 4]"),
            std::string::npos);
  EXPECT_NE(error_of({"--dim", "N=0"}).find("'0' is not a positive size"), std::string::npos);
  EXPECT_NE(error_of({"--dim", "N"}).find("expected NAME=VALUE"), std::string::npos);
}

// Names are untrusted bytes (tests/models/bad/make_bad_models.py: invalid UTF-8, a
// newline, a terminal escape, "*/", XML's special characters): the model compiles, the C
// builds, metadata.json is JSON and memory_plan.svg escapes them.
TEST_F(Cli, NamesOfAnyBytesAreMadeSafeWhereTheyGo) {
  const std::string model = source_path("tests/models/bad/untrusted_names.onnx");
  Result r = run({"compile", model, "-o", tmp("out"), "--memory-report"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string log;
  EXPECT_EQ(run_process({"cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c", tmp("out") + "/model.c",
                         "-I" + tmp("out"), "-o", tmp("model.o")},
                        &log),
            0)
      << log;
  nlohmann::json metadata = nlohmann::json::parse(read_bytes(tmp("out") + "/metadata.json"));
  EXPECT_EQ(metadata["inputs"][0]["name"], "n\xEF\xBF\xBD\xEF\xBF\xBD*/\n\x1b[31m?\?/<&>\xEF\xBF\xBD");
  std::string svg = read_bytes(tmp("out") + "/memory_plan.svg");
  EXPECT_EQ(valid_utf8(svg), svg);
  EXPECT_EQ(svg.find('\x1b'), std::string::npos);
  // Names in error messages: no terminal escape reaches the terminal.
  r = run({"compile", model, "-o", tmp("out2"), "--pool", "sram:1K:tensors=zz*"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  EXPECT_EQ(valid_utf8(r.output), r.output);
}

TEST_F(Cli, UnknownTargetListsTheBuiltins) {
  Result r = run({"compile", kRelu + "/model.onnx", "-o", tmp("out"), "--target", "cortex-m99"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cortex-m4"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp("out")));
}

TEST_F(Cli, TargetFileOfOurOwn) {
  std::ofstream(tmp("board.toml")) << "base = \"cortex-m4\"\nname = \"board\"\n[[pool]]\nname = \"sram\"\nsize = \"64K\"\n";
  Result ok = run({"compile", kRelu + "/model.onnx", "-o", tmp("out"), "--target-config", tmp("board.toml")});
  ASSERT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(read_bytes(tmp("out/metadata.json")).find("\"target\": \"board\""), std::string::npos);
  // A typo is an error naming the file, the line and the key; nothing is written.
  std::ofstream(tmp("typo.toml")) << "base = \"cortex-m4\"\nname = \"typo\"\nmax_stack_aloca_size = 0\n";
  Result bad = run({"compile", kRelu + "/model.onnx", "-o", tmp("out2"), "--target-config", tmp("typo.toml")});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find(tmp("typo.toml") + ":3:"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("'max_stack_aloca_size'"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(tmp("out2")));
}

TEST_F(Cli, UnknownPassForPrintAfter) {
  Result r = run({"compile", kRelu + "/model.onnx", "-o", tmp("out"), "--print-after=frobnicate"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("unknown pass 'frobnicate'"), std::string::npos) << r.output;
}

TEST_F(Cli, PrintAfterShowsTheIR) {
  Result r = run({"compile", kRelu + "/model.onnx", "-o", tmp("out"), "--print-after=simplify"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("// ---- IR after simplify\nfunc relu_0(A: float32[3, 4, 5], Y: float32[3, 4, 5]) {"),
            std::string::npos)
      << r.output;
  Result all = run({"compile", kRelu + "/model.onnx", "-o", tmp("out2"), "--print-after-all"});
  ASSERT_EQ(all.status, 0);
  for (const char* pass : {"import", "infer_shapes", "fuse_operators", "lower", "schedule_loops", "tensorize",
                           "reorder_loops", "split_loops", "unroll_loops", "simplify_scheduled", "lower_builtin"})
    EXPECT_NE(all.output.find(std::string("// ---- IR after ") + pass + "\n"), std::string::npos) << pass;
}

TEST_F(Cli, InputFileOfTheWrongSize) {
  std::ofstream(tmp("short.bin"), std::ios::binary) << std::string(12, '\0');
  Result r = run({"run", kRelu + "/model.onnx", "--inputs", tmp("short.bin"), "--outputs", tmp("y.bin")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("has 12 bytes but input 'x' (float32[3, 4, 5]) needs 240"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tmp("y.bin")));
}

TEST_F(Cli, WrongNumberOfInputFiles) {
  Result r = run({"run", kRelu + "/model.onnx", "--inputs", "a.bin,b.bin", "--outputs", tmp("y.bin")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("the model has 1 inputs but 2 input files were given"), std::string::npos) << r.output;
}

TEST_F(Cli, MissingModelFile) {
  Result r = run({"compile", tmp("nope.onnx"), "-o", tmp("out")});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("nope.onnx"), std::string::npos) << r.output;
}

TEST_F(Cli, RunReadsAndWritesEveryFormat) {
  // .pb in, .npy and .bin out: the same bytes after the header.
  std::string in = kRelu + "/test_data_set_0/input_0.pb";
  ASSERT_EQ(run({"run", kRelu + "/model.onnx", "--inputs", in, "--outputs", tmp("y.bin")}).status, 0);
  ASSERT_EQ(run({"run", kRelu + "/model.onnx", "--inputs", in, "--outputs", tmp("y.npy")}).status, 0);
  std::string raw = read_bytes(tmp("y.bin")), npy = read_bytes(tmp("y.npy"));
  ASSERT_EQ(raw.size(), 240u);
  ASSERT_GT(npy.size(), raw.size());
  EXPECT_EQ(npy.substr(npy.size() - raw.size()), raw);
  EXPECT_EQ(npy.substr(0, 6), "\x93NUMPY");
  // .npy back in.
  ASSERT_EQ(run({"run", kRelu + "/model.onnx", "--inputs", tmp("y.npy"), "--outputs", tmp("z.bin")}).status, 0);
  EXPECT_EQ(read_bytes(tmp("z.bin")), raw);  // relu(relu(x)) == relu(x)
}

// Builds are reproducible: the same model and options give the same bytes in every file
// (no time stamps, no addresses, no hash-order iteration), for ONNX and TFLite.
TEST_F(Cli, CompilingTwiceGivesTheSameBytes) {
  for (std::string model : {source_path("tests/models/mobilenet_v2/model.onnx"),
                            shared_path("models/mlperf-tiny/kws_ref_model.tflite")}) {
    std::map<std::string, std::string> first;
    for (std::string out : {"first", "second"}) {
      Result r = run({"compile", model, "-o", tmp(out), "--target", "cortex-m4", "--pool", "sram:2M", "--memory-report"});
      ASSERT_EQ(r.status, 0) << r.output;
      size_t files = 0;
      for (auto& entry : fs::directory_iterator(tmp(out))) {
        std::string name = entry.path().filename().string(), bytes = read_bytes(entry.path().string());
        ++files;
        if (out == "first") first[name] = bytes;
        else EXPECT_TRUE(first.count(name) && first[name] == bytes) << model << ": " << name << " differs";
      }
      EXPECT_EQ(files, first.size());
    }
    fs::remove_all(tmp("first"));
    fs::remove_all(tmp("second"));
  }
}

}  // namespace
}  // namespace aotc::e2e

namespace aotc::e2e {
namespace {

// Every model of the ONNX backend node tests, supported or not, either compiles or is
// rejected with "error: ..." and exit status 1: never a crash or an internal error.
TEST(CliRobustness, EveryOnnxNodeTestModelCompilesOrFailsCleanly) {
  namespace fs = std::filesystem;
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  ASSERT_TRUE(fs::exists(root)) << "libonnx-testdata is not installed";
  TempDir dir("aotc-robustness");
  int compiled = 0, rejected = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    fs::path model = entry.path() / "model.onnx";
    if (!fs::exists(model)) continue;
    Result r = run({"compile", model.string(), "-o", dir.path() + "/out"});
    if (r.status == 0) {
      ++compiled;
      fs::remove_all(dir.path() + "/out");
      continue;
    }
    ++rejected;
    EXPECT_EQ(r.status, 1) << entry.path().filename() << ": " << r.output;
    EXPECT_EQ(r.output.rfind("error: ", 0), 0u) << entry.path().filename() << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir.path() + "/out")) << entry.path().filename();
  }
  EXPECT_GT(compiled, 100);
  std::cout << compiled << " compiled, " << rejected << " rejected with a message\n";
}

}  // namespace
}  // namespace aotc::e2e

namespace aotc::e2e {
namespace {

// The block `aotc targets` prints for one target: from "<name>: " at the start of a line
// to the next empty line.
std::string target_block(const std::string& listing, const std::string& name) {
  size_t begin = listing.rfind(name + ": ", 0) == 0 ? 0 : listing.find("\n" + name + ": ");
  if (begin == std::string::npos) return "";
  if (begin != 0) ++begin;
  size_t end = listing.find("\n\n", begin);
  return listing.substr(begin, end == std::string::npos ? std::string::npos : end + 1 - begin);
}

std::string words(const std::vector<std::string>& list, const std::string& if_empty) {
  std::string out;
  for (const std::string& w : list) out += (out.empty() ? "" : " ") + w;
  return out.empty() ? if_empty : out;
}

// `aotc targets` shows, for each built-in target, what the generated code assumes and how
// it is compiled: triple, ISA features and flags, as the target files have them.
TEST(CliTargets, ListsTriplesFeaturesAndCflags) {
  Result r = run({"targets"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const std::string& name : builtin_target_names()) {
    SCOPED_TRACE(name);
    Target t = load_builtin_target(name);
    std::string block = target_block(r.output, name);
    ASSERT_FALSE(block.empty()) << r.output;
    EXPECT_EQ(block.rfind(name + ": " + t.description + "\n", 0), 0u) << block;
    if (!t.triple.empty()) EXPECT_NE(block.find("  triple    " + t.triple + "\n"), std::string::npos) << block;
    EXPECT_NE(block.find("  features  " + words(feature_names(t), "(none)") + "\n"), std::string::npos) << block;
    EXPECT_NE(block.find("  cflags    " + words(t.cflags, "(none)") + "\n"), std::string::npos) << block;
  }
  // As targets/cortex-m55.toml says: Helium, and the flags that enable it.
  std::string m55 = target_block(r.output, "cortex-m55");
  EXPECT_NE(m55.find("  features  fpu fp64 dsp mve mve.fp\n"), std::string::npos) << m55;
  EXPECT_NE(m55.find("  cflags    -mcpu=cortex-m55 -mfloat-abi=hard -mthumb\n"), std::string::npos) << m55;
  // Every known feature is explained.
  for (const FeatureInfo& f : known_features())
    EXPECT_NE(r.output.find("  " + std::string(f.name) + " "), std::string::npos) << f.name;
}

// One target in detail: a built-in by name, or a file of one's own after its base and
// its relative features are applied.
TEST(CliTargets, ShowsOneTargetInDetail) {
  Result m55 = run({"targets", "cortex-m55"});
  ASSERT_EQ(m55.status, 0) << m55.output;
  EXPECT_NE(m55.output.find("builtin:cortex-m55.toml"), std::string::npos) << m55.output;
  EXPECT_NE(m55.output.find("mve.fp  Helium floating point\n"), std::string::npos) << m55.output;
  EXPECT_NE(m55.output.find("sram 256K, static\n"), std::string::npos) << m55.output;

  TempDir dir("aotc-cli-targets");
  std::string board = dir.path() + "/board.toml";
  std::ofstream(board) << "base = \"cortex-m55\"\nname = \"board\"\nfeatures = [\"-mve.fp\"]\n"
                          "[[pool]]\nname = \"dtcm\"\nsize = \"64K\"\nruntime_provided = true\n";
  Result own = run({"targets", "--target-config", board});
  ASSERT_EQ(own.status, 0) << own.output;
  EXPECT_EQ(own.output.rfind("board: ", 0), 0u) << own.output;
  EXPECT_NE(own.output.find("  mve     "), std::string::npos) << own.output;
  EXPECT_EQ(own.output.find("mve.fp"), std::string::npos) << own.output;
  EXPECT_NE(own.output.find("dtcm 64K, passed in by the application\n"), std::string::npos) << own.output;

  std::string typo = dir.path() + "/typo.toml";
  std::ofstream(typo) << "base = \"cortex-m4\"\nname = \"typo\"\nfeatures = [\"dps\"]\n";
  Result bad = run({"targets", "--target-config", typo});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find(typo + ":3: unknown feature 'dps' (did you mean 'dsp'?"), std::string::npos) << bad.output;
  Result unknown = run({"targets", "cortex-m99"});
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.output.find("unknown target 'cortex-m99'"), std::string::npos) << unknown.output;
}

// `aotc compile` writes the target's flags beside the sources, for `cc @<name>.cflags`.
TEST(CliTargets, CompileWritesTheTargetsCflags) {
  TempDir dir("aotc-cli-targets");
  Result r = run({"compile", kRelu + "/model.onnx", "-o", dir.path() + "/out", "--name", "relu_net", "--target",
                  "cortex-m7"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_bytes(dir.path() + "/out/relu_net.cflags"), "-mcpu=cortex-m7\n-mfloat-abi=hard\n-mfpu=fpv5-d16\n-mthumb\n-fomit-frame-pointer\n");
}

}  // namespace
}  // namespace aotc::e2e
