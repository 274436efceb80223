// One workspace alignment, the target's, from LowerBuiltin's measurement to the runtime the
// generated code is built with. The int8 MLPerf Tiny models give TFLite Micro's bytes on
// targets with workspace_alignment 4, 8 and 32 (cortex-m4 otherwise: every temporary in the
// workspace), with the alignment coming from the runtime header `aotc compile` writes or
// from a matching -DAOTC_WORKSPACE_ALIGNMENT; a runtime built with another alignment or word
// size stops the build with the generated #error, or the link with the alignment's symbol.
#include <cstdlib>
#include <tuple>

#include "tests/e2e/e2e_util.h"

namespace aotc::e2e {
namespace {

// A target file: cortex-m4 with another workspace alignment. `aotc run` runs the code on
// this machine, so the word size is the host's unless asked otherwise: the runtime's block
// header is two of its size_t.
std::string write_target(const TempDir& dir, int alignment, int word_size = static_cast<int>(sizeof(size_t) * 8)) {
  std::string name = "m4-align-" + std::to_string(alignment) + "-word-" + std::to_string(word_size);
  std::string path = dir.path() + "/" + name + ".toml";
  std::ofstream(path) << "base = \"cortex-m4\"\nname = \"" << name << "\"\nworkspace_alignment = " << alignment
                      << "\nword_size = " << word_size << "\n";
  return path;
}

std::string model_path(const std::string& model) { return shared_path("models/mlperf-tiny/" + model + ".tflite"); }
std::string reference(const std::string& model, const std::string& file) {
  return shared_path("models/mlperf-tiny/reference/" + model + "/" + file);
}

// kws compiled into dir/kws for cortex-m4 with workspace_alignment 8; returns that folder.
std::string compile_kws_for_alignment_8(const TempDir& dir) {
  std::string out = dir.path() + "/kws";
  Result r = run({"compile", model_path("kws_ref_model"), "-o", out, "--name", "kws", "--target-config",
                  write_target(dir, 8)});
  EXPECT_EQ(r.status, 0) << r.output;
  return out;
}

class WorkspaceAlignment : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(WorkspaceAlignment, MlperfTinyInt8MatchesTfliteMicro) {
  const auto& [model, alignment] = GetParam();
  TempDir dir("aotc-alignment");
  std::string out = dir.path() + "/output_0.bin";
  Result r = run({"run", model_path(model), "--target-config", write_target(dir, alignment), "--inputs",
                  reference(model, "input_0.bin"), "--outputs", out});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_bytes(out), read_bytes(reference(model, "output_0.bin")));
}

INSTANTIATE_TEST_SUITE_P(Int8Models, WorkspaceAlignment,
                         ::testing::Combine(::testing::Values("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant",
                                                              "ad01_int8"),
                                            ::testing::Values(4, 8, 32)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_alignment_" + std::to_string(std::get<1>(info.param));
                         });

// The generated directory carries the target's alignment as the runtime's default, and the
// model source checks the header it includes.
TEST(WorkspaceAlignmentCode, GeneratedRuntimeHeaderDefaultsToTheTargetsAlignment) {
  TempDir dir("aotc-alignment");
  std::string out = compile_kws_for_alignment_8(dir);
  std::string header = read_bytes(out + "/aotc_runtime.h");
  EXPECT_NE(header.find("#ifndef AOTC_WORKSPACE_ALIGNMENT\n#define AOTC_WORKSPACE_ALIGNMENT 8 "), std::string::npos);
  EXPECT_EQ(header.find("#define AOTC_WORKSPACE_ALIGNMENT 16"), std::string::npos);
  std::string source = read_bytes(out + "/kws.c");
  EXPECT_NE(source.find("#if AOTC_WORKSPACE_ALIGNMENT != 8\n#error"), std::string::npos);
  // Two of this machine's size_t, already a multiple of 8.
  EXPECT_NE(source.find("#elif AOTC_WORKSPACE_HEADER_BYTES != " + std::to_string(2 * sizeof(size_t)) + "\n#error"),
            std::string::npos);
  // Depthwise convolutions allocate their padded channel plane (27 rows of 8 bytes and 8
  // bytes beyond, depthwise3_s8.h) once per call, outside the channel loop.
  size_t plane = source.find("aotc_workspace_alloc(&kws_scratch_allocator, 224)");
  ASSERT_NE(plane, std::string::npos) << source;
  EXPECT_NE(source.find("for (int32_t c = 0;", plane), std::string::npos) << source.substr(plane, 400);
}

// An explicit -DAOTC_WORKSPACE_ALIGNMENT that agrees with the target is accepted.
TEST(WorkspaceAlignmentCode, MatchingDefineBuilds) {
  TempDir dir("aotc-alignment");
  ScopedEnvironment cflags({{"CFLAGS", "-DAOTC_WORKSPACE_ALIGNMENT=32"}});
  std::string out = dir.path() + "/output_0.bin";
  Result r = run({"run", model_path("kws_ref_model"), "--target-config", write_target(dir, 32), "--inputs",
                  reference("kws_ref_model", "input_0.bin"), "--outputs", out});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(read_bytes(out), read_bytes(reference("kws_ref_model", "output_0.bin")));
}

// The report: a runtime built with alignment 32 for a model measured at 16 used to
// run out of workspace at run time; now the build stops, saying what to do.
TEST(WorkspaceAlignmentErrors, RuntimeBuiltWithAnotherAlignmentIsACompileError) {
  TempDir dir("aotc-alignment");
  ScopedEnvironment cflags({{"CFLAGS", "-DAOTC_WORKSPACE_ALIGNMENT=32"}});
  Result r = run({"run", model_path("kws_ref_model"), "--target", "cortex-m4", "--inputs",
                  reference("kws_ref_model", "input_0.bin"), "--outputs", dir.path() + "/output_0.bin"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("building the generated C failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("#error \"model 'model' was compiled for workspace_alignment 16 (target cortex-m4) but "
                          "aotc_runtime.h has another AOTC_WORKSPACE_ALIGNMENT: build this file and aotc_runtime.c "
                          "with -DAOTC_WORKSPACE_ALIGNMENT=16\""),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("workspace exhausted"), std::string::npos) << r.output;
}

// Blocks measured with a 32-bit word's 8-byte header cannot live in a 64-bit runtime's
// 16-byte ones: compiling a word_size 32 model with alignment 8 for this machine stops.
TEST(WorkspaceAlignmentErrors, RuntimeWithAnotherWordSizeIsACompileError) {
  if (sizeof(size_t) != 8) GTEST_SKIP() << "needs a 64-bit host";
  TempDir dir("aotc-alignment");
  Result r = run({"run", model_path("kws_ref_model"), "--target-config", write_target(dir, 8, 32), "--inputs",
                  reference("kws_ref_model", "input_0.bin"), "--outputs", dir.path() + "/output_0.bin"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("#error \"model 'model' was compiled for word_size 32 (target m4-align-8-word-32), whose "
                          "workspace block headers take 8 bytes"),
            std::string::npos)
      << r.output;
}

// The model's header and a runtime compiled apart from it (aotc_add_model's shared
// aotc_runtime library, or a hand-made build) can disagree without any #error seeing it:
// the link does.
TEST(WorkspaceAlignmentErrors, RuntimeCompiledApartWithAnotherAlignmentDoesNotLink) {
  TempDir dir("aotc-alignment");
  std::string out = compile_kws_for_alignment_8(dir);
  std::ofstream(out + "/main.c") << "#include \"kws.h\"\n"
                                    "int main(void) {\n"
                                    "  static int8_t input[KWS_INPUT_INPUT_1_SIZE], output[KWS_OUTPUT_IDENTITY_SIZE];\n"
                                    "  struct kws_inputs in;\n  struct kws_outputs out;\n"
                                    "  in.input_1 = input;\n  out.Identity = output;\n"
                                    "  return kws_run(&in, &out) == 0 ? 0 : 1;\n}\n";
  const char* cc = std::getenv("CC") && *std::getenv("CC") ? std::getenv("CC") : "cc";
  // aotc's own runtime-c/ (default 16), as aotc_add_model builds it.
  auto link_with_runtime = [&](const std::vector<std::string>& runtime_flags, std::string* log) {
    std::vector<std::string> cmd = {cc, "-std=c99", "-O1", "-I" + source_path("runtime-c")};
    cmd.insert(cmd.end(), runtime_flags.begin(), runtime_flags.end());
    cmd.insert(cmd.end(), {"-c", source_path("runtime-c/aotc_runtime.c"), "-o", out + "/runtime.o"});
    if (run_process(cmd, log) != 0) return -1;
    return run_process({cc, "-std=c99", "-O1", "-I" + out, out + "/main.c", out + "/kws.c", out + "/kws_constants.c",
                        out + "/runtime.o", "-lm", "-o", out + "/app"},
                       log);
  };
  std::string log;
  EXPECT_NE(link_with_runtime({}, &log), 0) << log;
  EXPECT_NE(log.find("aotc_runtime_workspace_alignment_8"), std::string::npos) << log;
  log.clear();
  ASSERT_EQ(link_with_runtime({"-DAOTC_WORKSPACE_ALIGNMENT=8"}, &log), 0) << log;
  EXPECT_EQ(run_process({out + "/app"}, &log), 0) << log;
}

}  // namespace
}  // namespace aotc::e2e
