// Loads target descriptions (see target.h) from TOML with toml++.
//
// toml++ is header-only and slow to compile, so it is included here and nowhere else.
// Every key is checked: unknown keys, wrong types and bad values are errors of the form
// "<file>:<line>: <problem> '<key>'", so a typo never falls back to a default silently.
#include "targets/target.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <toml++/toml.h>

#include "aot/base/embedded_files.h"
#include "aot/base/errors.h"

namespace aotc {
namespace {

constexpr std::string_view kTargetSuffix = ".toml";

// How built-in targets are named in messages and in Target::source_path.
std::string builtin_display_path(const std::string& file_name) { return "builtin:" + file_name; }

const char* type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

bool is_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Edit distance counting a swap of two neighbouring characters as one edit (optimal
// string alignment), for "did you mean" hints: "dps" is one slip from "dsp", not two.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The candidate `name` is most likely a misspelling of, or "" if none is close: "foo" is
// not a typo of "pool".
std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string& candidate : candidates) {
    size_t d = edit_distance(name, candidate);
    bool close = d <= 3 && d * 3 <= std::max(name.size(), candidate.size());
    if (close && d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

// Looks up a built-in target's file; nullptr if there is none of that name.
const EmbeddedFile* find_builtin(const std::string& name) {
  const std::string file_name = name + std::string(kTargetSuffix);
  for (const EmbeddedFile* f = kEmbeddedTargets; f->name != nullptr; ++f) {
    if (file_name == f->name) return f;
  }
  return nullptr;
}

// Parses a pool size: a non-negative integer number of bytes, or a string of digits with
// an optional binary-multiple suffix ("256K", "1M", "64KiB", "2MB": all powers of 1024,
// as in linker scripts and datasheets).
struct SizeParse {
  enum class Error { kNone, kNegative, kBadFormat, kOverflow } error = Error::kNone;
  int64_t bytes = 0;
};

SizeParse parse_size_string(const std::string& text) {
  SizeParse result;
  if (!text.empty() && text[0] == '-') {
    result.error = SizeParse::Error::kNegative;
    return result;
  }
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0) {
    result.error = SizeParse::Error::kBadFormat;
    return result;
  }
  static const std::map<std::string, int64_t> kMultipliers = {
      {"", 1},
      {"K", int64_t{1} << 10}, {"KB", int64_t{1} << 10}, {"KiB", int64_t{1} << 10},
      {"M", int64_t{1} << 20}, {"MB", int64_t{1} << 20}, {"MiB", int64_t{1} << 20},
      {"G", int64_t{1} << 30}, {"GB", int64_t{1} << 30}, {"GiB", int64_t{1} << 30},
  };
  auto multiplier = kMultipliers.find(text.substr(digits));
  if (multiplier == kMultipliers.end()) {
    result.error = SizeParse::Error::kBadFormat;
    return result;
  }
  const int64_t max = std::numeric_limits<int64_t>::max();
  int64_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    int digit = text[i] - '0';
    if (value > (max - digit) / 10) {
      result.error = SizeParse::Error::kOverflow;
      return result;
    }
    value = value * 10 + digit;
  }
  if (value > max / multiplier->second) {
    result.error = SizeParse::Error::kOverflow;
    return result;
  }
  result.bytes = value * multiplier->second;
  return result;
}

// The keys of a table in the order they appear in the file, so that the first problem
// in the file is the one reported (toml::table itself iterates in key order).
std::vector<std::pair<const toml::key*, const toml::node*>> entries_in_file_order(
    const toml::table& table) {
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (auto&& [key, node] : table) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const toml::source_position& pa = a.first->source().begin;
    const toml::source_position& pb = b.first->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  return entries;
}

const std::vector<std::string> kTargetKeys = {
    "base", "name", "description", "triple", "cflags", "max_stack_alloca_size",
    "workspace_alignment", "constant_alignment", "word_size", "features", "pool", "npu", "cycles"};
const std::vector<std::string> kPoolKeys = {"name", "size", "runtime_provided", "section", "tensors"};
const std::vector<std::string> kNpuKeys = {"backend", "operators", "max_kernel", "max_stride", "max_dilation",
                                           "macs_per_cycle", "bytes_per_cycle", "command_cycles", "alignment",
                                           "pools", "section"};

// Reads one target document into a Target, reporting problems against `display_path`.
class TargetReader {
 public:
  explicit TargetReader(std::string display_path) : path_(std::move(display_path)) {}

  Target read(const toml::table& root) {
    Target target;
    // `base` is applied first wherever it appears, so the file's keys override it.
    if (const toml::node* base = root.get("base")) {
      const std::string& base_name = expect_string(*base, "base");
      if (find_builtin(base_name) == nullptr) {
        fail_at(*base, "unknown built-in target '" + base_name + "' (built-in targets: " +
                           join(builtin_target_names(), ", ") + ") for",
                "base");
      }
      target = load_builtin_target(base_name);
      base_name_ = base_name;
    }
    bool has_name = false;
    bool has_pools = false;
    for (const auto& [key_ptr, node_ptr] : entries_in_file_order(root)) {
      const std::string key = std::string(key_ptr->str());
      const toml::node& value = *node_ptr;
      key_lines_[key] = value.source().begin.line;
      if (key == "base") {
        continue;
      } else if (key == "name") {
        target.name = expect_string(value, key);
        if (target.name.empty() ||
            std::any_of(target.name.begin(), target.name.end(),
                        [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
          fail_at(value, "target name must be non-empty and without spaces:", key);
        }
        has_name = true;
      } else if (key == "description") {
        target.description = expect_string(value, key);
      } else if (key == "triple") {
        target.triple = expect_string(value, key);
      } else if (key == "cflags") {
        target.cflags.clear();
        const toml::array& flags = expect_array(value, key);
        for (const toml::node& flag : flags) target.cflags.push_back(expect_string(flag, key));
      } else if (key == "max_stack_alloca_size") {
        target.max_stack_alloca_size = expect_integer(value, key);
        if (target.max_stack_alloca_size < 0) fail_at(value, "negative size for", key);
      } else if (key == "workspace_alignment") {
        target.workspace_alignment = expect_alignment(value, key);
      } else if (key == "constant_alignment") {
        target.constant_alignment = expect_alignment(value, key);
      } else if (key == "word_size") {
        int64_t bits = expect_integer(value, key);
        if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
          fail_at(value, "word size must be 8, 16, 32 or 64 bits, got " + std::to_string(bits) +
                             ", for",
                  key);
        }
        target.word_size = static_cast<int>(bits);
      } else if (key == "features") {
        read_features(value, &target.features);
      } else if (key == "pool") {
        target.pools = read_pools(value);
        has_pools = true;
      } else if (key == "npu") {
        target.npu = read_npu(value);
      } else if (key == "cycles") {
        read_cycles(value, &target);
      } else {
        fail_unknown_key(*key_ptr, key, kTargetKeys);
      }
    }
    if (!has_name) fail("missing required key", "name");
    if (!has_pools && target.pools.empty()) fail("missing required key", "pool");
    if (target.pools.empty()) {
      throw CompileError(path_ + ":" + std::to_string(key_lines_["pool"]) +
                         ": at least one pool is required for 'pool'");
    }
    check_workspace_alignment(target);
    if (target.npu) check_npu(target);
    target.source_path = path_;
    return target;
  }

  [[noreturn]] void fail(const std::string& problem, const std::string& key) const {
    throw CompileError(path_ + ": " + problem + " '" + key + "'");
  }

 private:
  // The runtime takes any power of two as its AOTC_WORKSPACE_ALIGNMENT (its block header
  // is padded to a multiple of it), but planned tensors and workspace blocks hold int32 and
  // float32 elements, which must be aligned to min(4, word bytes) on a machine of that word
  // size (2 on a 16-bit one). Say so here rather than as a fault on the target.
  void check_workspace_alignment(const Target& target) const {
    const int64_t element_alignment = std::min<int64_t>(4, target.word_size / 8);
    if (target.workspace_alignment >= element_alignment) return;
    std::string problem = "workspace alignment " + std::to_string(target.workspace_alignment) +
                          " is smaller than the " + std::to_string(element_alignment) +
                          " bytes int32 and float32 elements need with word_size " +
                          std::to_string(target.word_size) + " for";
    auto line = key_lines_.find("workspace_alignment");
    if (line == key_lines_.end()) line = key_lines_.find("word_size");
    if (line == key_lines_.end()) fail(problem, "workspace_alignment");
    throw CompileError(path_ + ":" + std::to_string(line->second) + ": " + problem + " '" +
                       line->first + "'");
  }

  // `features` lists ISA features relative to what `base` has (nothing without a base):
  // "x" or "+x" adds x, "-x" removes it. Unknown names, a feature named twice and a
  // feature without the one it builds on ("mve" without "dsp") are errors, reported at
  // the entry that caused them; the last also when a removal takes away what an inherited
  // feature needs (base "cortex-m55" with "-dsp" would leave "mve").
  void read_features(const toml::node& value, std::set<std::string>* features) const {
    std::vector<std::string> known;
    for (const FeatureInfo& f : known_features()) known.push_back(f.name);
    std::map<std::string, const toml::node*> added;    // feature -> its entry in this list
    std::map<std::string, const toml::node*> removed;
    for (const toml::node& element : expect_array(value, "features")) {
      const std::string& entry = expect_string(element, "features");
      const bool remove = !entry.empty() && entry[0] == '-';
      const std::string name = !entry.empty() && (entry[0] == '-' || entry[0] == '+') ? entry.substr(1) : entry;
      if (name.empty()) fail_at(element, "empty feature name \"" + entry + "\" in", "features");
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        const std::string best = closest_name(name, known);
        fail_at(element,
                "unknown feature '" + name + "' (" + (best.empty() ? "" : "did you mean '" + best + "'? ") +
                    "known: " + join(known, ", ") + ") in",
                "features");
      }
      if (added.count(name) || removed.count(name)) {
        fail_at(element, "feature '" + name + "' is listed twice in", "features");
      }
      if (remove) {
        removed[name] = &element;
        features->erase(name);
      } else {
        added[name] = &element;
        features->insert(name);
      }
    }
    for (const FeatureInfo& f : known_features()) {
      for (const std::string& needed : f.requires_features) {
        if (!features->count(f.name) || features->count(needed)) continue;
        report_missing_prerequisite(value, f.name, needed, added, removed, features);
      }
    }
  }

  [[noreturn]] void report_missing_prerequisite(const toml::node& value, const std::string& feature,
                                                const std::string& needed,
                                                const std::map<std::string, const toml::node*>& added,
                                                const std::map<std::string, const toml::node*>& removed,
                                                const std::set<std::string>* features) const {
    auto removal = removed.find(needed);
    if (removal != removed.end()) {
      // Name every feature left that builds on the removed one, directly or not, so that
      // one fix suffices: "-dsp" on a cortex-m55 base also needs "-mve" and "-mve.fp".
      std::vector<std::string> dependents;
      for (const FeatureInfo& g : known_features()) {
        if (features->count(g.name) && builds_on(g.name, needed)) dependents.push_back(g.name);
      }
      const std::string source = added.count(feature) ? "" : " (from base '" + base_name_ + "')";
      fail_at(*removal->second,
              "removing feature '" + needed + "' leaves '" + feature + "'" + source + ", which needs it; remove " +
                  quoted_list(dependents) + " too, in",
              "features");
    }
    auto addition = added.find(feature);
    fail_at(addition != added.end() ? *addition->second : value,
            "feature '" + feature + "' needs '" + needed + "'; add '" + needed + "' too, in", "features");
  }

  // Whether `feature` needs `base_feature`, directly or through the features it needs
  // (the table has no cycles).
  static bool builds_on(const std::string& feature, const std::string& base_feature) {
    for (const FeatureInfo& f : known_features()) {
      if (feature != f.name) continue;
      for (const std::string& needed : f.requires_features)
        if (needed == base_feature || builds_on(needed, base_feature)) return true;
    }
    return false;
  }

  // "'a'", "'a' and 'b'", "'a', 'b' and 'c'".
  static std::string quoted_list(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) {
      if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
      out += "'" + names[i] + "'";
    }
    return out;
  }

  // The [cycles] table: `source`, a string saying how the costs were found, and one entry
  // per kernel name (or "default"): [per_mac, per_output, per_call], numbers >= 0.
  void read_cycles(const toml::node& value, Target* target) {
    const toml::table* table = value.as_table();
    if (table == nullptr) fail_type(value, "a table ([cycles])", "cycles");
    target->kernel_costs.clear();
    target->cycles_source.clear();
    for (const auto& [key_ptr, node_ptr] : entries_in_file_order(*table)) {
      const std::string name(key_ptr->str());
      const std::string key = "cycles." + name;
      const toml::node& field = *node_ptr;
      if (name == "source") {
        target->cycles_source = expect_string(field, key);
        continue;
      }
      const toml::array& numbers = expect_array(field, key);
      std::vector<double> c;
      for (const toml::node& n : numbers) {
        double v = 0;
        if (const toml::value<double>* d = n.as_floating_point()) v = d->get();
        else if (n.is_integer()) v = static_cast<double>(expect_integer(n, key));
        else fail_type(n, "a number", key);
        if (!(v >= 0)) fail_at(n, "expected a number >= 0 for", key);
        c.push_back(v);
      }
      if (c.size() != 3) fail_at(field, "expected [per_mac, per_output, per_call] for", key);
      target->kernel_costs[name] = {c[0], c[1], c[2]};
    }
  }

  // The [npu] table (NpuFacts). `backend` is required; the rest have defaults.
  NpuFacts read_npu(const toml::node& value) {
    const toml::table* table = value.as_table();
    if (table == nullptr) fail_type(value, "a table ([npu])", "npu");
    NpuFacts npu;
    bool has_backend = false;
    for (const auto& [key_ptr, node_ptr] : entries_in_file_order(*table)) {
      const std::string key = "npu." + std::string(key_ptr->str());
      const toml::node& field = *node_ptr;
      key_lines_[key] = field.source().begin.line;
      auto strings = [&] {
        std::vector<std::string> list;
        for (const toml::node& element : expect_array(field, key)) list.push_back(expect_string(element, key));
        return list;
      };
      auto positive = [&] {
        int64_t n = expect_integer(field, key);
        if (n < 1) fail_at(field, "expected a positive integer, got " + std::to_string(n) + ", for", key);
        return n;
      };
      auto rate = [&] {
        double r = field.is_integer() ? static_cast<double>(expect_integer(field, key)) : 0.0;
        if (const toml::value<double>* d = field.as_floating_point()) r = d->get();
        else if (!field.is_integer()) fail_type(field, "a number", key);
        if (!(r > 0)) fail_at(field, "expected a positive number for", key);
        return r;
      };
      if (key == "npu.backend") {
        npu.backend = expect_string(field, key);
        has_backend = true;
      } else if (key == "npu.operators") {
        npu.operators = strings();
      } else if (key == "npu.max_kernel") {
        npu.max_kernel = positive();
      } else if (key == "npu.max_stride") {
        npu.max_stride = positive();
      } else if (key == "npu.max_dilation") {
        npu.max_dilation = positive();
      } else if (key == "npu.macs_per_cycle") {
        npu.macs_per_cycle = rate();
      } else if (key == "npu.bytes_per_cycle") {
        npu.bytes_per_cycle = rate();
      } else if (key == "npu.command_cycles") {
        npu.command_cycles = expect_integer(field, key);
        if (npu.command_cycles < 0) fail_at(field, "negative cycle count for", key);
      } else if (key == "npu.alignment") {
        npu.alignment = expect_alignment(field, key);
      } else if (key == "npu.pools") {
        npu.pools = strings();
      } else if (key == "npu.section") {
        npu.section = expect_string(field, key);
      } else {
        fail_unknown_key(*key_ptr, key, kNpuKeys);
      }
    }
    if (!has_backend) fail_at(value, "missing required key", "npu.backend");
    return npu;
  }

  // What the NPU reaches must exist, and planned buffers (aligned to the workspace
  // alignment) must satisfy its alignment.
  void check_npu(const Target& target) const {
    const NpuFacts& npu = *target.npu;
    auto line = [&](const std::string& key) {
      auto it = key_lines_.find(key);
      return path_ + ":" + std::to_string(it != key_lines_.end() ? it->second : 0) + ": ";
    };
    for (const std::string& pool : npu.pools) {
      bool known = std::any_of(target.pools.begin(), target.pools.end(), [&](const PoolConfig& p) { return p.name == pool; });
      if (!known)
        throw CompileError(line("npu.pools") + "pool '" + pool + "' is not one of the target's pools, for 'npu.pools'");
    }
    if (npu.alignment > target.workspace_alignment)
      throw CompileError(line("npu.alignment") + "the NPU's alignment " + std::to_string(npu.alignment) +
                         " is larger than the workspace alignment " + std::to_string(target.workspace_alignment) +
                         " its buffers are planned at (raise 'workspace_alignment'), for 'npu.alignment'");
  }

  std::vector<PoolConfig> read_pools(const toml::node& value) {
    std::vector<PoolConfig> pools;
    std::set<std::string> names;
    const toml::array& tables = expect_array(value, "pool");
    for (const toml::node& element : tables) {
      const toml::table* table = element.as_table();
      if (table == nullptr) {
        fail_at(element,
                std::string("expected a table ([[pool]]), got ") + type_name(element.type()) +
                    ", for",
                "pool");
      }
      PoolConfig pool;
      bool has_name = false;
      bool has_size = false;
      for (const auto& [key_ptr, node_ptr] : entries_in_file_order(*table)) {
        const std::string key = "pool." + std::string(key_ptr->str());
        const toml::node& field = *node_ptr;
        if (key == "pool.name") {
          pool.name = expect_string(field, key);
          if (!is_c_identifier(pool.name)) {
            fail_at(field, "pool name '" + pool.name + "' is not a C identifier, for", key);
          }
          if (!names.insert(pool.name).second) {
            fail_at(field, "duplicate pool name '" + pool.name + "' for", key);
          }
          has_name = true;
        } else if (key == "pool.size") {
          pool.size_bytes = expect_size(field, key);
          has_size = true;
        } else if (key == "pool.runtime_provided") {
          pool.runtime_provided = expect_bool(field, key);
        } else if (key == "pool.section") {
          pool.section = expect_string(field, key);
        } else if (key == "pool.tensors") {
          pool.tensors = expect_string(field, key);
        } else {
          fail_unknown_key(*key_ptr, key, kPoolKeys);
        }
      }
      if (!has_name) fail_at(element, "missing required key", "pool.name");
      if (!has_size) fail_at(element, "missing required key", "pool.size");
      pools.push_back(std::move(pool));
    }
    return pools;
  }

  [[noreturn]] void fail_at(const toml::source_region& where, const std::string& problem,
                            const std::string& key) const {
    if (where.begin.line == 0) fail(problem, key);
    throw CompileError(path_ + ":" + std::to_string(where.begin.line) + ": " + problem + " '" +
                       key + "'");
  }
  [[noreturn]] void fail_at(const toml::node& node, const std::string& problem,
                            const std::string& key) const {
    fail_at(node.source(), problem, key);
  }

  [[noreturn]] void fail_unknown_key(const toml::key& key, const std::string& full_key,
                                     const std::vector<std::string>& valid) const {
    const std::string name(key.str());
    const std::string best = closest_name(name, valid);
    std::string message = path_ + ":" + std::to_string(key.source().begin.line) +
                          ": unknown key '" + full_key + "'";
    if (!best.empty()) {
      message += " (did you mean '" + best + "'?)";
    } else {
      message += " (expected one of: " + join(valid, ", ") + ")";
    }
    throw CompileError(message);
  }

  [[noreturn]] void fail_type(const toml::node& value, const char* expected,
                              const std::string& key) const {
    fail_at(value, std::string("expected ") + expected + ", got " + type_name(value.type()) +
                       ", for",
            key);
  }

  const std::string& expect_string(const toml::node& value, const std::string& key) const {
    const toml::value<std::string>* s = value.as_string();
    if (s == nullptr) fail_type(value, "a string", key);
    return s->get();
  }

  int64_t expect_integer(const toml::node& value, const std::string& key) const {
    const toml::value<int64_t>* i = value.as_integer();
    if (i == nullptr) fail_type(value, "an integer", key);
    return i->get();
  }

  bool expect_bool(const toml::node& value, const std::string& key) const {
    const toml::value<bool>* b = value.as_boolean();
    if (b == nullptr) fail_type(value, "a boolean", key);
    return b->get();
  }

  const toml::array& expect_array(const toml::node& value, const std::string& key) const {
    const toml::array* a = value.as_array();
    if (a == nullptr) fail_type(value, "an array", key);
    return *a;
  }

  int64_t expect_alignment(const toml::node& value, const std::string& key) const {
    int64_t alignment = expect_integer(value, key);
    if (!is_power_of_two(alignment)) {
      fail_at(value, "alignment must be a power of two, got " + std::to_string(alignment) +
                         ", for",
              key);
    }
    return alignment;
  }

  int64_t expect_size(const toml::node& value, const std::string& key) const {
    if (const toml::value<int64_t>* i = value.as_integer()) {
      if (i->get() < 0) fail_at(value, "negative size " + std::to_string(i->get()) + " for", key);
      return i->get();
    }
    if (const toml::value<std::string>* s = value.as_string()) {
      SizeParse parsed = parse_size_string(s->get());
      switch (parsed.error) {
        case SizeParse::Error::kNone:
          return parsed.bytes;
        case SizeParse::Error::kNegative:
          fail_at(value, "negative size \"" + s->get() + "\" for", key);
        case SizeParse::Error::kOverflow:
          fail_at(value, "size \"" + s->get() + "\" is too large for", key);
        case SizeParse::Error::kBadFormat:
          break;
      }
      fail_at(value,
              "bad size \"" + s->get() +
                  "\" (expected bytes, or digits with a suffix K, M or G, e.g. \"256K\") for",
              key);
    }
    fail_type(value, "an integer or a string like \"256K\"", key);
  }

  std::string path_;
  std::string base_name_;  // the file's `base`, "" if none
  std::map<std::string, uint32_t> key_lines_;  // line of each top-level key in the file
};

Target parse_target(const std::string& text, const std::string& display_path) {
  toml::table root;
  try {
    root = toml::parse(text, display_path);
  } catch (const toml::parse_error& error) {
    const toml::source_position& at = error.source().begin;
    std::ostringstream message;
    message << display_path;
    if (at.line > 0) message << ":" << at.line << ":" << at.column;
    message << ": TOML syntax error: " << error.description();
    throw CompileError(message.str());
  }
  return TargetReader(display_path).read(root);
}

}  // namespace

Target load_builtin_target(const std::string& name) {
  const EmbeddedFile* file = find_builtin(name);
  if (file == nullptr) {
    throw CompileError("unknown target '" + name + "' (built-in targets: " +
                       join(builtin_target_names(), ", ") + ")");
  }
  const std::string display_path = builtin_display_path(file->name);
  Target target = parse_target(file->contents, display_path);
  // The file name is the name users type; the two must not drift apart.
  if (target.name != name) {
    throw CompileError(display_path + ": name '" + target.name + "' does not match the file name");
  }
  return target;
}

Target load_target_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(path + ": cannot open target file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw CompileError(path + ": cannot read target file");
  return parse_target(text.str(), path);
}

std::vector<std::string> builtin_target_names() {
  std::vector<std::string> names;
  for (const EmbeddedFile* f = kEmbeddedTargets; f->name != nullptr; ++f) {
    std::string file_name = f->name;
    if (file_name.size() > kTargetSuffix.size() &&
        file_name.compare(file_name.size() - kTargetSuffix.size(), kTargetSuffix.size(),
                          kTargetSuffix) == 0) {
      names.push_back(file_name.substr(0, file_name.size() - kTargetSuffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> feature_names(const TargetFacts& target) {
  std::vector<std::string> names;
  for (const FeatureInfo& f : known_features()) {
    if (target.has(f.name)) names.push_back(f.name);
  }
  return names;
}

std::string cflags_response_file(const std::vector<std::string>& flags) {
  std::string out;
  for (const std::string& flag : flags) {
    // gcc (libiberty's buildargv) and clang (GNU tokenizer) split a response file at
    // unquoted white space and both treat a backslash as escaping the next character,
    // also inside double quotes; a flag with none of these characters needs no quotes.
    const bool needs_quotes =
        flag.empty() || flag.find_first_of(" \t\n\r\v\f'\"\\") != std::string::npos;
    if (!needs_quotes) {
      out += flag;
    } else {
      out += '"';
      for (char c : flag) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      out += '"';
    }
    out += '\n';
  }
  return out;
}

PoolConfig parse_pool_spec(const std::string& spec) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  auto fail = [&](const std::string& why) -> PoolConfig {
    throw CompileError("--pool '" + spec + "': " + why +
                       " (expected NAME:SIZE[:runtime][:section=NAME][:tensors=GLOB], e.g. sram:256K)");
  };
  if (parts.size() < 2) return fail("missing size");
  PoolConfig pool;
  pool.name = parts[0];
  if (!is_c_identifier(pool.name)) return fail("the pool name must be a C identifier");
  SizeParse size = parse_size_string(parts[1]);
  if (size.error != SizeParse::Error::kNone) return fail("bad size '" + parts[1] + "'");
  pool.size_bytes = size.bytes;
  for (size_t i = 2; i < parts.size(); ++i) {
    if (parts[i] == "runtime") {
      pool.runtime_provided = true;
    } else if (parts[i].rfind("section=", 0) == 0 && parts[i].size() > 8) {
      pool.section = parts[i].substr(8);
    } else if (parts[i].rfind("tensors=", 0) == 0 && parts[i].size() > 8) {
      pool.tensors = parts[i].substr(8);
    } else {
      return fail("unknown option '" + parts[i] + "'");
    }
  }
  return pool;
}

}  // namespace aotc
