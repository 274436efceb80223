// Control flow end to end: ONNX If and Loop compiled to C `if` and `for`, --bind, --state
// and --max-trip. The references are independent of aotc: torch for the scripted networks
// of tests/models/control_flow (make_control_flow_models.py), numpy loops written from the
// ONNX semantics for the small hand-built models (make_small_models.py), ONNX Runtime for
// the models whose If or Loop is decided at run time (make_runtime_branch_models.py,
// ort_references.js).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e_util.h"

namespace aotc::e2e {
namespace {

std::string control_flow_path(const std::string& rel) { return source_path("tests/models/control_flow/" + rel); }
std::string small_path(const std::string& rel) { return control_flow_path("small/" + rel); }

class ControlFlowNetwork : public TempDirTest<::testing::TestWithParam<std::string>> {
 protected:
  ControlFlowNetwork() : TempDirTest("aotc-control-flow") {}
};

// Every case of cases.json through `aotc run`, each output within torch's (rtol 1e-3,
// atol 1e-5, the tolerance against ONNX Runtime). The cases cover both sides of
// every branch (cases.json's control_flow traces say which path each takes). Also with
// --io-in-arena, where the inputs the body reads and the outputs it fills are in the plan.
TEST_P(ControlFlowNetwork, MatchesTorchOnEveryPath) {
  const std::string dir = control_flow_path(GetParam() + "/");
  nlohmann::json cases = nlohmann::json::parse(read_bytes(dir + "cases.json"));
  ASSERT_FALSE(cases["cases"].empty());
  for (const std::string& plan : {"", "--io-in-arena"})
  for (const auto& c : cases["cases"]) {
    std::string inputs, outputs;
    for (const auto& in : c["inputs"]) inputs += (inputs.empty() ? "" : ",") + dir + in["file"].get<std::string>();
    for (size_t k = 0; k < c["outputs"].size(); ++k) outputs += (k ? "," : "") + tmp("out" + std::to_string(k) + ".bin");
    std::vector<std::string> args = {"run", dir + "model.onnx", "--inputs", inputs, "--outputs", outputs};
    if (!plan.empty()) args.push_back(plan);
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    for (size_t k = 0; k < c["outputs"].size(); ++k) {
      SCOPED_TRACE(plan + " case " + std::to_string(c["case"].get<int>()) + ", output " + c["outputs"][k]["name"].get<std::string>() +
                   ", path " + c["control_flow"].dump());
      expect_close(read_floats(tmp("out" + std::to_string(k) + ".bin")), read_floats(dir + c["outputs"][k]["file"].get<std::string>()),
                   1e-3, 1e-5);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Networks, ControlFlowNetwork, ::testing::Values("cascade", "nested_if", "gru_loop", "loop_carried"));

class ControlFlow : public TempDirTest<::testing::Test> {
 protected:
  ControlFlow() : TempDirTest("aotc-control-flow") {}

  // `aotc run` of small/<model>.onnx on case `c`'s `inputs` input files, with `extra`
  // options; the output file's bytes, or "" with *failure set when aotc failed.
  std::string run_case(const std::string& model, int c, int inputs, const std::vector<std::string>& extra, std::string* failure) {
    std::string files;
    for (int k = 0; k < inputs; ++k)
      files += (k ? "," : "") + small_path(model + "_" + std::to_string(c) + "_in" + std::to_string(k) + ".bin");
    std::vector<std::string> args = {"run", small_path(model + ".onnx"), "--inputs", files, "--outputs", tmp("y.bin")};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = run(args);
    *failure = r.status == 0 ? "" : r.output;
    return r.status == 0 ? read_bytes(tmp("y.bin")) : "";
  }
  std::string expected(const std::string& model, int c) {
    return read_bytes(small_path(model + "_" + std::to_string(c) + "_out0.bin"));
  }
  // Runs case `c` and compares its float output with numpy's within 1e-5 (numpy's tanh
  // and the C library's may differ in the last bit).
  void expect_case(const std::string& model, int c, int inputs, const std::vector<std::string>& extra) {
    SCOPED_TRACE(model + " case " + std::to_string(c));
    std::string failure;
    std::string got = run_case(model, c, inputs, extra, &failure);
    ASSERT_EQ(failure, "");
    std::string want = expected(model, c);
    ASSERT_EQ(got.size(), want.size());
    std::vector<float> values(got.size() / 4), reference(want.size() / 4);
    std::memcpy(values.data(), got.data(), got.size());
    std::memcpy(reference.data(), want.data(), want.size());
    expect_close(values, reference, 1e-5, 1e-6);
  }
};

// The two branches of an If never run together, so their tensors share memory: each branch
// needs two [1,64] float intermediates live at once (512 bytes), and so does the plan
// (not the 1024 bytes of both branches). Both branches compute numpy's numbers.
TEST_F(ControlFlow, BranchesShareMemory) {
  Result r = run({"compile", small_path("branch_memory.onnx"), "-o", tmp("out")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string header = read_bytes(tmp("out/model.h"));
  EXPECT_NE(header.find("#define MODEL_ACTIVATION_SIZE 512 "), std::string::npos) << header;
  std::string source = read_bytes(tmp("out/model.c"));
  EXPECT_NE(source.find("  if (*inputs->cond) {\n"), std::string::npos) << source;
  EXPECT_NE(source.find("  } else {\n"), std::string::npos) << source;
  for (int c = 0; c < 2; ++c) expect_case("branch_memory", c, 2, {});
}

// A sample-rate input bound at compile time: the If folds away (no `if` in the C, the rate
// is no longer an input), and the result is the 16 kHz branch's; unbound, both branches
// are there and the rate picks one at run time.
TEST_F(ControlFlow, BindingTheConditionsInputFoldsTheBranchAway) {
  Result r = run({"compile", small_path("rate_switch.onnx"), "-o", tmp("bound"), "--bind", "rate=16000"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string source = read_bytes(tmp("bound/model.c"));
  EXPECT_EQ(source.find(" if ("), source.find(" if (inputs == NULL"));  // only the argument checks
  std::string header = read_bytes(tmp("bound/model.h"));
  EXPECT_NE(header.find("#define MODEL_INPUT_COUNT 1\n"), std::string::npos) << header;
  EXPECT_EQ(header.find("* rate;"), std::string::npos) << header;
  expect_case("rate_switch", 0, 1, {"--bind", "rate=16000"});
  for (int c = 0; c < 2; ++c) expect_case("rate_switch", c, 2, {});
  r = run({"compile", small_path("rate_switch.onnx"), "-o", tmp("bad"), "--bind", "sample_rate=16000"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--bind sample_rate: the model has no input of that name (its inputs: x, rate)"), std::string::npos)
      << r.output;
}

// A trip count and an early exit decided at run time: without a bound, a clear error; with
// --max-trip the loop runs up to the bound (n = 0, 3 and 8, an early exit at 8), and a
// trip count above it makes <name>_run fail instead of answering wrongly.
TEST_F(ControlFlow, RuntimeTripCountNeedsABound) {
  Result r = run({"compile", small_path("runtime_trips.onnx"), "-o", tmp("out")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("error: node count (Loop): has a trip count computed at run time; "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--max-trip count=N"), std::string::npos) << r.output;
  for (int c = 0; c < 4; ++c) expect_case("runtime_trips", c, 3, {"--max-trip", "count=10"});
  std::string failure;
  EXPECT_EQ(run_case("runtime_trips", 4, 3, {"--max-trip", "count=10"}, &failure), "");
  EXPECT_NE(failure.find("loop trip limit reached"), std::string::npos) << failure;
  expect_case("runtime_trips", 4, 3, {"--max-trip", "count=12"});
}

// A while loop as torch.jit writes it (no trip count, a counter in the condition): aotc
// counts its 6 iterations at compile time, so it needs no --max-trip, compiles to a plain
// counted for with no condition computed on the device, and its scan output has a static
// shape. Both outputs match numpy.
TEST_F(ControlFlow, WhileLoopWithACounterIsCountedAtCompileTime) {
  Result r = run({"run", small_path("counted_while.onnx"), "--inputs", small_path("counted_while_0_in0.bin"), "--outputs",
                  tmp("y.bin") + "," + tmp("trace.bin")});
  ASSERT_EQ(r.status, 0) << r.output;
  expect_close(read_floats(tmp("y.bin")), read_floats(small_path("counted_while_0_out0.bin")), 1e-6, 0);
  expect_close(read_floats(tmp("trace.bin")), read_floats(small_path("counted_while_0_out1.bin")), 1e-6, 0);
  r = run({"compile", small_path("counted_while.onnx"), "-o", tmp("out")});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string c = read_bytes(tmp("out/model.c"));
  EXPECT_NE(c.find("for (int32_t iter0 = 0; iter0 < 6; ++iter0) {"), std::string::npos) << c;
  EXPECT_EQ(c.find("(Less)"), std::string::npos) << c;  // the condition is not computed at run time
  EXPECT_EQ(c.find("AOTC_ERR_TRIP_LIMIT"), std::string::npos) << c;
}

TEST_F(ControlFlow, BranchesOfDifferentShapesAreAClearError) {
  Result r = run({"compile", small_path("mismatched_branches.onnx"), "-o", tmp("out")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("error: node uneven (If): output 0: the then branch gives float32[2] and the else branch "
                          "float32[3]"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::ifstream(tmp("out/model.c")).good());
}

// Models whose If is decided at run time (both branches compiled) or whose Loop body runs
// as a `for`, each case through `aotc run`, plain and with --io-in-arena, every output
// within ONNX Runtime's (rtol 1e-4, atol 1e-6); the cases take each branch (aotc issue
// #26: Silero VAD v4 with its sample rate an input). The subgraphs' kernels are lowered
// with the subgraph as their graph: an LSTM, a TopK or a MaxPool computes an output only
// if something reads it, and before, a value read only inside a branch or a loop body
// looked unread from the main graph (branch_lstm, branch_optional_outputs, loop_lstm: the
// LSTMs' Y_h and Y_c were never written). branch_results gives the If its results every
// way (a kernel's, an outer value's, a constant's, a view's, one value to two outputs),
// branch_outer_in_place reads outer values where a kernel could write over them.
TEST_F(ControlFlow, RunTimeBranchesMatchOnnxRuntime) {
  const std::string dir = control_flow_path("runtime_branches/");
  nlohmann::json models = nlohmann::json::parse(read_bytes(dir + "cases.json"));
  ASSERT_EQ(models.size(), 5u);
  for (const std::string& plan : {"", "--io-in-arena"})
  for (const auto& m : models) {
    ASSERT_FALSE(m["cases"].empty());
    for (const auto& c : m["cases"]) {
      std::string inputs, outputs;
      for (const auto& in : c["inputs"]) inputs += (inputs.empty() ? "" : ",") + dir + in.get<std::string>();
      for (size_t k = 0; k < c["outputs"].size(); ++k) outputs += (k ? "," : "") + tmp("out" + std::to_string(k) + ".bin");
      std::vector<std::string> args = {"run", dir + m["model"].get<std::string>(), "--inputs", inputs, "--outputs", outputs};
      if (!plan.empty()) args.push_back(plan);
      Result r = run(args);
      ASSERT_EQ(r.status, 0) << r.output;
      for (size_t k = 0; k < c["outputs"].size(); ++k) {
        SCOPED_TRACE(m["model"].get<std::string>() + " " + plan + " case " + std::to_string(c["case"].get<int>()) + " (" +
                     c["path"].get<std::string>() + "), output " + m["outputs"][k].get<std::string>());
        expect_close(read_floats(tmp("out" + std::to_string(k) + ".bin")), read_floats(dir + c["outputs"][k].get<std::string>()),
                     1e-4, 1e-6);
      }
    }
  }
}

// The streaming GRU with its state input and output made one state (--state): no state in
// the C API, STREAM_STATE_SIZE bytes kept inside, never copied: the GRU computes the next
// state into the state's second buffer, and the two swap roles after each run. tests/firmware/in_tree_stream.c (the
// harness the aotc_add_model(STATES) firmware test builds too) runs a stream of 12 chunks:
// each score must match torch run chunk by chunk with the state carried, the scores must
// change along the stream, and after stream_reset() the first chunk's score is the first
// again.
TEST_F(ControlFlow, StreamingStateStaysInsideTheGeneratedCode) {
  std::string dir = control_flow_path("streaming_gru");
  Result r = run({"compile", dir + "/model.onnx", "-o", tmp("out"), "--name", "stream", "--state", "state_in=state_out"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::string header = read_bytes(tmp("out/stream.h"));
  EXPECT_EQ(header.find("* state_in;"), std::string::npos) << header;  // not in the structs
  EXPECT_EQ(header.find("* state_out;"), std::string::npos) << header;
  EXPECT_NE(header.find("#define STREAM_INPUT_COUNT 1\n"), std::string::npos) << header;
  EXPECT_NE(header.find("#define STREAM_OUTPUT_COUNT 1\n"), std::string::npos) << header;
  EXPECT_NE(header.find("#define STREAM_STATE_SIZE 256 "), std::string::npos) << header;  // 2 x float32[1, 1, 32]
  EXPECT_NE(header.find("void stream_reset(void);"), std::string::npos) << header;
  EXPECT_NE(header.find("float32[1, 1, 32]: input 'state_in', after each run output 'state_out' (--state)"), std::string::npos)
      << header;
  std::string c = read_bytes(tmp("out/stream.c"));
  EXPECT_NE(c.find("stream_s0_gru[stream_state_phase], (float*)(stream_pool_workspace + 0), stream_s0_gru[stream_state_phase ^ 1]);"),
            std::string::npos)
      << c;  // the GRU reads the state and writes its next value, each in its buffer
  EXPECT_EQ(c.find("memcpy(stream_s0_gru"), std::string::npos) << c;
  std::string log;
  ASSERT_EQ(run_process({"cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-I" + tmp("out"),
                         source_path("tests/firmware/in_tree_stream.c"), tmp("out/stream.c"), tmp("out/stream_constants.c"),
                         tmp("out/aotc_runtime.c"), "-lm", "-o", tmp("harness")},
                        &log),
            0)
      << log;
  EXPECT_EQ(run_process({tmp("harness"), dir}, &log), 0) << log;
}

// A loop's steps run again and again, so in the plan a tensor live both outside a loop and
// on some of its steps is live on all of them (metadata.json's activations against its
// steps), and the steps list the loop with its bound. With --io-in-arena the input the body
// reads slice by slice and the outputs it fills are such tensors.
TEST_F(ControlFlow, TensorsCrossingALoopLiveThroughAllOfIt) {
  Result r = run({"compile", control_flow_path("gru_loop/model.onnx"), "-o", tmp("out"), "--io-in-arena"});
  ASSERT_EQ(r.status, 0) << r.output;
  nlohmann::json metadata = nlohmann::json::parse(read_bytes(tmp("out/metadata.json")));
  int begin = -1, end = -1;
  for (const auto& step : metadata["steps"]) {
    if (step["kind"] == "loop") {
      begin = step["step"];
      EXPECT_EQ(step["max_trips"], 8);
      EXPECT_EQ(step["trips_known"], true);
    }
    if (step["kind"] == "end_loop") end = step["step"];
  }
  ASSERT_GE(begin, 0);
  ASSERT_GT(end, begin);
  int crossing = 0;
  for (const auto& t : metadata["activations"]) {
    int first = t["first_step"], last = t["last_step"];
    bool inside = first >= begin && last <= end, overlaps = first <= end && last >= begin;
    if (!overlaps || inside) continue;
    ++crossing;
    EXPECT_LE(first, begin) << t.dump();
    EXPECT_GE(last, end) << t.dump();
  }
  EXPECT_GE(crossing, 3) << "x, read one step per iteration, and the outputs h and hs cross the loop";
}

// The generated C of every control-flow model builds as strict C99 without a warning with
// arm-none-eabi-gcc for the Cortex-M4 (the target's own flags) and with the host's clang.
TEST_F(ControlFlow, GeneratedCodeIsStrictC99ForCortexM4AndClang) {
  struct Model {
    std::string path;
    std::vector<std::string> options;
  };
  std::vector<Model> models = {{control_flow_path("cascade/model.onnx"), {}},
                               {control_flow_path("nested_if/model.onnx"), {}},
                               {control_flow_path("gru_loop/model.onnx"), {}},
                               {control_flow_path("streaming_gru/model.onnx"), {"--state", "state_in=state_out"}},
                               {small_path("runtime_trips.onnx"), {"--max-trip", "count=10"}},
                               {control_flow_path("runtime_branches/branch_lstm.onnx"), {}},
                               {control_flow_path("runtime_branches/loop_lstm.onnx"), {}},
                               {"/usr/share/libonnx-testdata/data/node/test_scan9_sum/model.onnx", {}}};
  for (size_t i = 0; i < models.size(); ++i) {
    SCOPED_TRACE(models[i].path);
    std::string out = tmp("m" + std::to_string(i));
    std::vector<std::string> args = {"compile", models[i].path, "-o", out, "--target", "cortex-m4"};
    args.insert(args.end(), models[i].options.begin(), models[i].options.end());
    Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.output;
    for (const char* file : {"model.c", "model_constants.c"}) {
      std::string log;
      EXPECT_EQ(cross_compile_strict_c99(out + "/model.cflags", out + "/" + file, out, out + "/gcc.o", &log), 0) << log;
      EXPECT_EQ(compile_strict_c99("clang", out + "/" + file, out, out + "/clang.o", &log), 0) << log;
    }
  }
}

// Both branches of the cascade and every trip count of the run-time loop, under ASan and
// UBSan.
TEST_F(ControlFlow, GeneratedCodeIsCleanUnderSanitizers) {
  ScopedEnvironment env({{"CC", "clang"}, {"CFLAGS", "-fsanitize=address,undefined -fno-sanitize-recover=all -g"}});
  const std::string dir = control_flow_path("cascade/");
  for (int c : {0, 1}) {  // the verifier runs in case 0 and not in case 1
    std::string in = dir + "input_" + std::to_string(c) + "_0.bin";
    Result r = run({"run", dir + "model.onnx", "--inputs", in, "--outputs", tmp("a.bin") + "," + tmp("b.bin")});
    ASSERT_EQ(r.status, 0) << r.output;
    expect_close(read_floats(tmp("a.bin")), read_floats(dir + "output_" + std::to_string(c) + "_0.bin"), 1e-3, 1e-5);
  }
  for (int c = 0; c < 4; ++c) expect_case("runtime_trips", c, 3, {"--max-trip", "count=10"});
}

}  // namespace
}  // namespace aotc::e2e
