#include "aot/driver/host_runner.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "aot/executor/executor_codegen.h"
#include "aot/driver/file_utils.h"
#include "aot/driver/tensor_dump.h"
#include "aot/driver/tensor_io.h"
#include "codegen/codegen_c.h"

namespace aotc {
namespace {

void write_file(const std::string& path, const std::string& contents) {
  std::ofstream f(path, std::ios::binary);
  f.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!f) throw CompileError("cannot write " + path);
}

// A main() that reads each input from a raw file, runs the model, writes each output.
std::string harness_source(const CompiledModel& m) {
  const Graph& g = m.graph;
  auto in_names = input_member_names(m), out_names = output_member_names(m);
  std::ostringstream os;
  os << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include \"" << m.name << ".h\"\n#include \"aotc_runtime.h\"\n\n"
     << "static int transfer(const char* path, void* data, size_t bytes, int writing) {\n"
     << "  FILE* f = fopen(path, writing ? \"wb\" : \"rb\");\n  size_t done;\n"
     << "  if (f == NULL) { fprintf(stderr, \"cannot open %s\\n\", path); return 1; }\n"
     << "  done = writing ? fwrite(data, 1, bytes, f) : fread(data, 1, bytes, f);\n"
     << "  fclose(f);\n  if (done != bytes) { fprintf(stderr, \"short transfer on %s\\n\", path); return 1; }\n"
     << "  return 0;\n}\n\n";
  auto buffer = [&](const std::string& var, TensorId id) {
    const Tensor& t = g.tensor(id);
    os << "static " << t.dtype.c_type() << " " << var << "[" << std::max<int64_t>(t.num_elements(), 1) << "];\n";
  };
  // With the inputs and outputs in the arena, <name>_io says where they are.
  if (!m.io_in_arena)
    for (size_t i = 0; i < g.inputs.size(); ++i) buffer("in" + std::to_string(i), g.inputs[i]);
  bool runtime_pools = false;
  for (size_t i = 0; i < m.pools.size(); ++i) {
    if (!m.pools[i].runtime_provided) continue;
    runtime_pools = true;
    int64_t bytes = std::max<int64_t>(1, m.arena.pool_bytes[i]);
    os << "static uint8_t pool_" << c_identifier(m.pools[i].name) << "[" << bytes << "] __attribute__((aligned("
       << m.target.workspace_alignment << ")));\n";
  }
  if (!m.io_in_arena)
    for (size_t i = 0; i < g.outputs.size(); ++i) buffer("out" + std::to_string(i), g.outputs[i]);
  os << "\nint main(int argc, char** argv) {\n  struct " << m.name << "_inputs inputs;\n  struct " << m.name
     << "_outputs outputs;\n  int32_t status;\n  memset(&inputs, 0, sizeof inputs);\n  memset(&outputs, 0, sizeof outputs);\n";
  if (runtime_pools) {
    os << "  struct " << m.name << "_pools pools;\n";
    for (auto& p : m.pools)
      if (p.runtime_provided) os << "  pools." << c_identifier(p.name) << " = pool_" << c_identifier(p.name) << ";\n";
  }
  os << "  if (argc != " << 1 + g.inputs.size() + g.outputs.size() << ") return 64;\n";
  std::string pools_arg = runtime_pools ? ", &pools" : "";
  if (m.io_in_arena) os << "  " << m.name << "_io(&inputs, &outputs" << pools_arg << ");\n";
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    std::string in = "in" + std::to_string(i);
    if (m.io_in_arena) in = "inputs." + in_names[i];
    else os << "  inputs." << in_names[i] << " = " << in << ";\n";
    os << "  if (transfer(argv[" << 1 + i << "], " << in << ", " << g.tensor(g.inputs[i]).size_bytes() << ", 0)) return 65;\n";
  }
  if (!m.io_in_arena)
    for (size_t i = 0; i < g.outputs.size(); ++i) os << "  outputs." << out_names[i] << " = out" << i << ";\n";
  os << "  status = " << m.name << "_run(&inputs, &outputs" << pools_arg << ");\n"
     << "  if (status != AOTC_OK) { fprintf(stderr, \"" << m.name << "_run failed: %s\\n\", aotc_status_string(status)); return 2; }\n";
  for (size_t i = 0; i < g.outputs.size(); ++i)
    os << "  if (transfer(argv[" << 1 + g.inputs.size() + i << "], "
       << (m.io_in_arena ? "outputs." + out_names[i] : "out" + std::to_string(i)) << ", " << g.tensor(g.outputs[i]).size_bytes()
       << ", 1)) return 65;\n";
  os << "  return 0;\n}\n";
  return os.str();
}

}  // namespace

void run_on_host(const RunOptions& options) {
  CompileOptions compile_options = options.compile;
  compile_options.dump_tensors = !options.dump_dir.empty();
  CompiledModel m = compile_model(compile_options);
  const Graph& g = m.graph;
  // With --dump-tensors the exposed intermediates follow the model's own outputs.
  size_t model_outputs = g.outputs.size() - m.exposed.size();
  if (options.input_files.size() != g.inputs.size())
    throw CompileError("the model has " + std::to_string(g.inputs.size()) + " inputs but " +
                       std::to_string(options.input_files.size()) + " input files were given");
  if (options.output_files.size() != model_outputs)
    throw CompileError("the model has " + std::to_string(model_outputs) + " outputs but " +
                       std::to_string(options.output_files.size()) + " output files were given");

  // Read inputs first: a wrong file is reported before anything is built.
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i) inputs.push_back(read_tensor_file(options.input_files[i], g.tensor(g.inputs[i])));

  TempDir dir("aotc-run");
  if (options.keep_build) dir.keep();
  std::string model_file = options.compile.model_path.substr(options.compile.model_path.find_last_of('/') + 1);
  GeneratedFiles files = generate_sources(m, model_file);
  files.files["aotc_run_main.c"] = harness_source(m);
  std::vector<std::string> cmd = {std::getenv("CC") && *std::getenv("CC") ? std::getenv("CC") : "cc", "-std=c99", "-O2"};
  for (auto& w : split_words(std::getenv("CFLAGS") ? std::getenv("CFLAGS") : "")) cmd.push_back(w);
  cmd.push_back("-I" + dir.path());
  for (auto& [name, contents] : files.files) {
    write_file(dir.path() + "/" + name, contents);
    bool is_c = name.size() > 2 && name.compare(name.size() - 2, 2, ".c") == 0;
    if (is_c && name != "aotc_dlpack.c") cmd.push_back(dir.path() + "/" + name);  // DLTensor interop is opt-in
  }
  std::string runner = dir.path() + "/runner";
  cmd.insert(cmd.end(), {"-o", runner, "-lm"});
  std::string log;
  if (run_process(cmd, &log) != 0) throw CompileError("building the generated C failed:\n" + log);

  std::vector<std::string> run_cmd = {runner};
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string p = dir.path() + "/input_" + std::to_string(i) + ".bin";
    write_file(p, std::string(inputs[i].begin(), inputs[i].end()));
    run_cmd.push_back(p);
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) run_cmd.push_back(dir.path() + "/output_" + std::to_string(i) + ".bin");
  log.clear();
  int status = run_process(run_cmd, &log);
  if (status != 0) throw CompileError("the generated program failed (exit status " + std::to_string(status) + "):\n" + log);
  if (!log.empty()) std::cerr << log;

  std::map<TensorId, std::vector<uint8_t>> values;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    std::ifstream f(run_cmd[1 + inputs.size() + i], std::ios::binary);
    values[g.outputs[i]] = std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }
  // The dump first: it is written whole or not at all, and the outputs only after it.
  if (!options.dump_dir.empty()) write_files_atomically(options.dump_dir, tensor_dump_files(m, values, model_file));
  for (size_t i = 0; i < model_outputs; ++i) {
    Tensor t = g.tensor(g.outputs[i]);
    t.data = values[g.outputs[i]];
    write_tensor_file(options.output_files[i], t);
  }
  if (options.keep_build) std::cerr << "build directory kept: " << dir.path() << "\n";
}

}  // namespace aotc
