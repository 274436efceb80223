// The aotc command line.
//
//   aotc compile MODEL -o OUTDIR [--name NAME] [--target TARGET | --target-config FILE]
//   aotc analyze MODEL [--target TARGET]: per layer MACs, constants, live activations, the
//                      kernel chosen and estimated cycles; totals of RAM and flash
//   aotc run MODEL --inputs F[,F..] --outputs F[,F..] [--target host] [--dump-tensors DIR]
//   aotc targets [NAME | --target-config FILE]
//
// User errors print "error: <message>" on stderr and exit with status 1; nothing is
// written to OUTDIR unless the whole compilation succeeded.
#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>

#include "aot/executor/analysis_report.h"
#include "aot/executor/executor_codegen.h"
#include "aot/base/text.h"
#include "aot/driver/external_functions.h"
#include "aot/driver/file_utils.h"
#include "aot/driver/host_runner.h"
#include "aot/executor/memory_report.h"
#include "aot/executor/model_analysis.h"
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
  std::vector<std::string> input_shapes, dims, binds, states, max_trips;
  bool no_in_place = false;
  bool io_in_arena = false;
  bool print_after_all = false;
  std::string artifacts_dir;
};

void add_common(CLI::App* cmd, CommonArgs* a) {
  cmd->add_option("MODEL", a->model, "the model: .onnx or .tflite")->required()->check(CLI::ExistingFile);
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
  cmd->add_option("--input-shape", a->input_shapes,
                  "NAME=D0,D1,...: the shape of an input with dynamic dimensions (repeatable)");
  cmd->add_option("--dim", a->dims, "NAME=SIZE: the size of every input dimension named NAME, e.g. N=1 (repeatable)");
  cmd->add_option("--bind", a->binds,
                  "NAME=VALUE: make input NAME a compile-time constant (one number for all elements, one per element "
                  "comma-separated, or a .bin/.npy/.pb file); it leaves the C API and what depends only on it folds away "
                  "(repeatable)");
  cmd->add_option("--state", a->states,
                  "IN=OUT: input IN and output OUT, its next value, become one state kept inside the generated code "
                  "between runs (zero at first and after <name>_reset) (repeatable)");
  cmd->add_option("--max-trip", a->max_trips,
                  "NODE=N: the most iterations Loop NODE may run when its trip count or condition is computed at run "
                  "time (repeatable)");
  cmd->add_flag("--no-in-place", a->no_in_place, "never let a kernel write its output over an input (for comparison)");
  cmd->add_flag("--io-in-arena", a->io_in_arena,
                "plan inputs and outputs in the activation memory too (their memory is reused once dead); "
                "<name>_io() gives the application their addresses");
  cmd->add_option("--artifacts", a->artifacts_dir,
                  "read the NPU's command streams and weights from DIR (written by --emit-artifacts) instead of "
                  "compiling them")
      ->check(CLI::ExistingDirectory);
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
  o.io_in_arena = a.io_in_arena;
  o.artifacts_dir = a.artifacts_dir;
  for (auto& spec : a.pools) o.pools.push_back(parse_pool_spec(spec));
  for (auto& spec : a.input_shapes) parse_input_shape_binding(spec, &o.shape_bindings);
  for (auto& spec : a.dims) parse_dim_binding(spec, &o.shape_bindings);
  for (auto& spec : a.binds) parse_bind(spec, &o.input_bindings);
  for (auto& spec : a.states) parse_state(spec, &o.input_bindings);
  for (auto& spec : a.max_trips) parse_max_trip(spec, &o.input_bindings);
  o.print_stream = &std::cout;
  o.warning_stream = &std::cerr;
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

// `aotc targets`: what a target makes the generated code assume, for people to read.

// A flag as a shell would need it, so that a listed command line can be pasted.
std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "+-=.,/:_@%") == std::string::npos)
    return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string joined(const std::vector<std::string>& words, bool shell_quote, const char* if_empty) {
  if (words.empty()) return if_empty;
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + (shell_quote ? shell_word(w) : w);
  return out;
}

// Bytes as in a target file: "128K", "1M", "1000" (0 = no limit).
std::string size_text(int64_t bytes) {
  if (bytes == 0) return "unbounded";
  for (auto [shift, suffix] : {std::pair<int, const char*>{30, "G"}, {20, "M"}, {10, "K"}}) {
    if (bytes % (int64_t{1} << shift) == 0) return std::to_string(bytes >> shift) + suffix;
  }
  return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
}

std::string triple_text(const Target& t) { return t.triple.empty() ? "(the host compiler's default)" : t.triple; }

// One block per target: what distinguishes it from the others.
void print_target_summary(const Target& t, std::ostream& os) {
  os << t.name << ": " << t.description << "\n"
     << "  triple    " << triple_text(t) << "\n"
     << "  features  " << joined(feature_names(t), false, "(none)") << "\n"
     << "  cflags    " << joined(t.cflags, true, "(none)") << "\n";
  if (t.npu) os << "  npu       " << t.npu->backend << "\n";
}

// Everything the target file says, after `base` and the file's own keys are combined.
void print_target_details(const Target& t, std::ostream& os) {
  os << t.name << ": " << t.description << "\n";
  auto row = [&os](const char* label) -> std::ostream& { return os << "  " << std::left << std::setw(21) << label; };
  row("from") << t.source_path << "\n";
  row("triple") << triple_text(t) << "\n";
  row("cflags") << joined(t.cflags, true, "(none)") << "\n";
  if (t.features.empty()) row("features") << "(none)\n";
  bool first = true;
  for (const FeatureInfo& f : known_features()) {
    if (!t.has(f.name)) continue;
    row(first ? "features" : "") << std::setw(8) << f.name << f.meaning << "\n";
    first = false;
  }
  row("word size") << t.word_size << " bits\n";
  row("max stack alloca") << t.max_stack_alloca_size << " bytes"
                          << (t.max_stack_alloca_size == 0 ? " (every scratch buffer in the workspace)" : "") << "\n";
  row("workspace alignment") << t.workspace_alignment << " bytes\n";
  row("constant alignment") << t.constant_alignment << " bytes\n";
  if (t.npu) {
    const NpuFacts& n = *t.npu;
    row("npu") << "backend " << n.backend << ", buffers aligned to " << n.alignment << " bytes"
               << (n.section.empty() ? "" : ", streams and weights in section " + n.section) << "\n";
    if (!n.operators.empty()) {
      row("") << "runs " << joined(n.operators, false, "") << "\n";
      row("") << "kernels up to " << n.max_kernel << ", strides up to " << n.max_stride << ", dilations up to "
              << n.max_dilation << "\n";
      row("") << n.macs_per_cycle << " MACs and " << n.bytes_per_cycle << " bytes per cycle, " << n.command_cycles
              << " cycles per command (for the estimate)\n";
    }
    row("") << "reaches pools " << joined(n.pools, false, "(all)") << "\n";
  }
  first = true;
  for (const PoolConfig& p : t.pools) {
    row(first ? "pools" : "") << p.name << " " << size_text(p.size_bytes)
                              << (p.runtime_provided ? ", passed in by the application" : ", static")
                              << (p.section.empty() ? "" : ", section " + p.section)
                              << (p.tensors.empty() ? "" : ", tensors " + p.tensors) << "\n";
    first = false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"aotc: compiles neural networks (ONNX, TFLite) ahead of time into standalone C99 for microcontrollers"};
  app.set_version_flag("--version", std::string("aotc ") + AOTC_VERSION);
  app.require_subcommand(1);

  CommonArgs compile_args;
  std::string outdir;
  CLI::App* compile = app.add_subcommand("compile", "compile MODEL into C sources, a header and metadata.json");
  add_common(compile, &compile_args);
  compile->add_option("-o,--output", outdir, "directory for the generated files (created if needed)")->required();
  std::string emit_artifacts;
  compile->add_option("--emit-artifacts", emit_artifacts,
                      "also write the NPU's command streams and weights to DIR (artifacts.json and one .bin each)");
  bool memory_report = false;
  compile->add_flag("--memory-report", memory_report,
                    "print the memory plan as a table and write memory_plan.svg beside the sources");

  CommonArgs analyze_args;
  CLI::App* analyze = app.add_subcommand(
      "analyze", "show what MODEL costs on the target, layer by layer (MACs, memory, kernels, estimated cycles); writes nothing");
  add_common(analyze, &analyze_args);
  std::string analysis_file;
  analyze->add_option("--json", analysis_file, "also write the analysis to FILE as JSON");
  std::string report_file;
  analyze->add_option("--report", report_file,
                      "also write the analysis to FILE as one self-contained HTML page (tables, charts, the memory plan)");

  CommonArgs run_args;
  std::string inputs, outputs;
  bool keep = false;
  CLI::App* run = app.add_subcommand("run", "compile MODEL, build it with $CC $CFLAGS, run it on input files");
  add_common(run, &run_args);
  run->add_option("--inputs", inputs, "input files, comma-separated, in model order (.bin, .npy or .pb); none for a model without inputs");
  run->add_option("--outputs", outputs, "output files to write, comma-separated (.bin, .npy or .pb)")->required();
  run->add_flag("--keep-build", keep, "keep the build directory and print its path");
  std::string dump_dir;
  run->add_option("--dump-tensors", dump_dir,
                  "also write every intermediate tensor to DIR, one .npy each, with an index tensors.json "
                  "(compare two such folders with scripts/compare_tensors)");

  CLI::App* targets = app.add_subcommand("targets", "list the built-in targets, or show one in detail");
  std::string target_name, target_config;
  targets->add_option("NAME", target_name, "a built-in target to show in detail");
  targets->add_option("--target-config", target_config, "a target description file of your own (TOML) to show")
      ->check(CLI::ExistingFile)
      ->excludes(targets->get_option("NAME"));

  CLI11_PARSE(app, argc, argv);

  try {
    if (*compile) {
      CompileOptions o = make_options(compile_args);
      CompiledModel m = compile_model(o);
      std::string model_file = o.model_path.substr(o.model_path.find_last_of('/') + 1);
      GeneratedFiles files = generate_sources(m, model_file);
      if (memory_report) files.files["memory_plan.svg"] = memory_plan_svg(m);
      write_files_atomically(outdir, files.files);
      if (!emit_artifacts.empty()) write_files_atomically(emit_artifacts, artifact_files(m));
      if (memory_report) std::cout << memory_report_table(m);
    } else if (*analyze) {
      CompileOptions o = make_options(analyze_args);
      CompiledModel m = compile_model(o);
      ModelAnalysis analysis = analyze_model(m, o.model_path.substr(o.model_path.find_last_of('/') + 1));
      if (!analysis_file.empty()) write_file_atomically(analysis_file, analysis_json(analysis));
      if (!report_file.empty()) write_file_atomically(report_file, analysis_report_html(analysis, m));
      std::cout << analysis_table(analysis);
    } else if (*run) {
      RunOptions r;
      r.compile = make_options(run_args);
      r.input_files = split_list(inputs);
      r.output_files = split_list(outputs);
      r.keep_build = keep;
      r.dump_dir = dump_dir;
      run_on_host(r);
    } else if (*targets) {
      if (!target_config.empty()) {
        print_target_details(load_target_file(target_config), std::cout);
      } else if (!target_name.empty()) {
        print_target_details(load_builtin_target(target_name), std::cout);
      } else {
        for (auto& name : builtin_target_names()) {
          print_target_summary(load_builtin_target(name), std::cout);
          std::cout << "\n";
        }
        std::cout << "Features (a target file's `features`, relative to its `base`: \"x\" or \"+x\" adds, \"-x\" "
                     "removes):\n";
        for (const FeatureInfo& f : known_features()) {
          std::string needs;
          for (const std::string& n : f.requires_features) needs += (needs.empty() ? "" : ", ") + n;
          std::cout << "  " << std::left << std::setw(8) << f.name << f.meaning
                    << (needs.empty() ? "" : " (needs " + needs + ")") << "\n";
        }
        std::cout << "\n`aotc targets NAME` shows one target in detail, `aotc targets --target-config FILE` a file "
                     "of your own.\n";
      }
    }
  } catch (const CompileError& e) {
    std::cerr << "error: " << display_text(e.what()) << "\n";  // names from the model: untrusted bytes
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << display_text(e.what()) << "\n";
    return 3;
  }
  return 0;
}
