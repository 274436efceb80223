// The aotc command line.
//
//   aotc compile MODEL -o OUTDIR [--name NAME] [--target TARGET | --target-config FILE]
//   aotc run MODEL --inputs F[,F..] --outputs F[,F..] [--target host]
//   aotc targets
//
// User errors print "error: <message>" on stderr and exit with status 1; nothing is
// written to OUTDIR unless the whole compilation succeeded.
#include <CLI/CLI.hpp>
#include <iostream>

#include "aot/executor/executor_codegen.h"
#include "aot/driver/file_utils.h"
#include "aot/driver/host_runner.h"
#include "aot/executor/memory_report.h"
#include "aot/driver/pipeline.h"
#include "targets/target.h"

namespace {

using namespace aotc;

struct CommonArgs {
  std::string model;
  std::string name = "model";
  std::string target = "host";
  std::string target_config;
  std::vector<std::string> print_after;
  std::vector<std::string> pools;
  bool no_in_place = false;
  bool print_after_all = false;
};

void add_common(CLI::App* cmd, CommonArgs* a) {
  cmd->add_option("MODEL", a->model, "the model: .onnx")->required()->check(CLI::ExistingFile);
  cmd->add_option("--name", a->name, "C prefix of every generated symbol and file (default: model)");
  cmd->add_option("--target", a->target, "built-in target: see `aotc targets` (default: host)");
  cmd->add_option("--target-config", a->target_config, "a target description file of your own (TOML)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--print-after", a->print_after, "print the IR after PASS (repeatable): " + [] {
    std::string s;
    for (auto& p : pass_names()) s += (s.empty() ? "" : ", ") + p;
    return s;
  }())->delimiter(',');
  cmd->add_flag("--print-after-all", a->print_after_all, "print the IR after every pass");
  cmd->add_flag("--no-in-place", a->no_in_place, "never let a kernel write its output over an input (for comparison)");
  cmd->add_option("--pool", a->pools,
                  "memory pool NAME:SIZE[:runtime][:section=NAME][:tensors=GLOB] (repeatable, first preferred); "
                  "replaces the target's pools. 'runtime': the application passes it to <name>_run; 'tensors': only "
                  "activations whose names match the glob may go there");
}

CompileOptions make_options(const CommonArgs& a) {
  CompileOptions o;
  o.model_path = a.model;
  o.name = a.name;
  bool valid_name = !a.name.empty() && !std::isdigit(static_cast<unsigned char>(a.name[0]));
  for (char c : a.name) valid_name &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  if (!valid_name) throw CompileError("--name '" + a.name + "' must be a C identifier (letters, digits, '_')");
  o.target = a.target_config.empty() ? load_builtin_target(a.target) : load_target_file(a.target_config);
  for (auto& p : a.print_after) {
    std::vector<std::string> names = pass_names();
    if (std::find(names.begin(), names.end(), p) == names.end())
      throw CompileError("--print-after: unknown pass '" + p + "'");
    o.print_after.insert(p);
  }
  o.print_after_all = a.print_after_all;
  o.in_place = !a.no_in_place;
  for (auto& spec : a.pools) o.pools.push_back(parse_pool_spec(spec));
  o.print_stream = &std::cout;
  return o;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"aotc: compiles neural networks (ONNX) ahead of time into standalone C99 for microcontrollers"};
  app.set_version_flag("--version", std::string("aotc ") + AOTC_VERSION);
  app.require_subcommand(1);

  CommonArgs compile_args;
  std::string outdir;
  CLI::App* compile = app.add_subcommand("compile", "compile MODEL into C sources, a header and metadata.json");
  add_common(compile, &compile_args);
  compile->add_option("-o,--output", outdir, "directory for the generated files (created if needed)")->required();
  bool memory_report = false;
  compile->add_flag("--memory-report", memory_report,
                    "print the memory plan as a table and write memory_plan.svg beside the sources");

  CommonArgs run_args;
  std::string inputs, outputs;
  bool keep = false;
  CLI::App* run = app.add_subcommand("run", "compile MODEL, build it with $CC $CFLAGS, run it on input files");
  add_common(run, &run_args);
  run->add_option("--inputs", inputs, "input files, comma-separated, in model order (.bin, .npy or .pb)")->required();
  run->add_option("--outputs", outputs, "output files to write, comma-separated (.bin, .npy or .pb)")->required();
  run->add_flag("--keep-build", keep, "keep the build directory and print its path");

  CLI::App* targets = app.add_subcommand("targets", "list the built-in targets");

  CLI11_PARSE(app, argc, argv);

  try {
    if (*compile) {
      CompileOptions o = make_options(compile_args);
      CompiledModel m = compile_model(o);
      std::string model_file = o.model_path.substr(o.model_path.find_last_of('/') + 1);
      GeneratedFiles files = generate_sources(m, model_file);
      if (memory_report) files.files["memory_plan.svg"] = memory_plan_svg(m);
      write_files_atomically(outdir, files.files);
      if (memory_report) std::cout << memory_report_table(m);
    } else if (*run) {
      RunOptions r;
      r.compile = make_options(run_args);
      r.input_files = split_list(inputs);
      r.output_files = split_list(outputs);
      r.keep_build = keep;
      run_on_host(r);
    } else if (*targets) {
      for (auto& name : builtin_target_names()) {
        Target t = load_builtin_target(name);
        std::cout << name << "\t" << t.description << "\n";
      }
    }
  } catch (const CompileError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
