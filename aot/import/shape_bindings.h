// Sizes the user gives for dimensions a model leaves open: a PyTorch export with a
// dynamic batch has inputs like x: [N, 3, 96, 96], and aotc compiles static shapes.
//
//   --input-shape x=1,3,96,96   the whole shape of input x
//   --dim N=1                   every dimension named N, in any input
//
// The importers apply them while reading graph inputs; a binding that matches nothing,
// or a shape that contradicts a fixed dimension, is an error naming it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace aotc {

struct ShapeBindings {
  std::map<std::string, std::vector<int64_t>> input_shapes;  // by input name
  std::map<std::string, int64_t> dims;                       // by dimension name

  bool empty() const { return input_shapes.empty() && dims.empty(); }
};

// Parses "NAME=1,3,96,96" (--input-shape) or "NAME=1" (--dim) into *bindings. Throws
// CompileError naming the option and what is wrong.
void parse_input_shape_binding(const std::string& spec, ShapeBindings* bindings);
void parse_dim_binding(const std::string& spec, ShapeBindings* bindings);

// "NAME=VALUE" for option `option`: the name and the value text; CompileError
// "<option> '<spec>': expected <form>" when either is missing.
std::pair<std::string, std::string> split_binding(const std::string& option, const std::string& spec,
                                                  const std::string& form = "NAME=VALUE");

// Records which bindings an importer used, and reports those it did not.
class BindingUse {
 public:
  explicit BindingUse(const ShapeBindings& bindings) : bindings_(bindings) {}
  // The shape to use for input `name` with `declared` dimensions (-1 for an open one,
  // named by `dim_names[i]` when it has a name): the --input-shape if given (checked
  // against the fixed dimensions), else the declared one with named dimensions bound.
  // Throws CompileError for an open dimension nothing binds.
  std::vector<int64_t> shape_of(const std::string& source, const std::string& name, const std::vector<int64_t>& declared,
                                const std::vector<std::string>& dim_names);
  // Throws CompileError if a binding matched no input or dimension.
  void check_all_used(const std::string& source) const;

 private:
  const ShapeBindings& bindings_;
  std::set<std::string> used_inputs_, used_dims_;
};

}  // namespace aotc
