#include "aot/import/shape_bindings.h"

#include <cctype>

#include "aot/base/errors.h"
#include "aot/base/text.h"

namespace aotc {
namespace {

int64_t positive_size(const std::string& option, const std::string& spec, const std::string& text) {
  bool digits = !text.empty() && text.size() <= 12;
  for (char c : text) digits &= std::isdigit(static_cast<unsigned char>(c)) != 0;
  int64_t value = digits ? std::stoll(text) : 0;
  if (value < 1) throw CompileError(option + " '" + spec + "': '" + text + "' is not a positive size");
  return value;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + (shape[i] < 0 ? "?" : std::to_string(shape[i]));
  return s + "]";
}

}  // namespace

std::pair<std::string, std::string> split_binding(const std::string& option, const std::string& spec, const std::string& form) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) throw CompileError(option + " '" + spec + "': expected " + form);
  return {spec.substr(0, eq), spec.substr(eq + 1)};
}

void parse_input_shape_binding(const std::string& spec, ShapeBindings* bindings) {
  auto [name, text] = split_binding("--input-shape", spec);
  std::vector<int64_t> shape;
  for (const std::string& part : split_at_commas(text)) shape.push_back(positive_size("--input-shape", spec, part));
  if (!bindings->input_shapes.emplace(name, shape).second)
    throw CompileError("--input-shape: input '" + name + "' is given twice");
}

void parse_dim_binding(const std::string& spec, ShapeBindings* bindings) {
  auto [name, text] = split_binding("--dim", spec);
  if (!bindings->dims.emplace(name, positive_size("--dim", spec, text)).second)
    throw CompileError("--dim: dimension '" + name + "' is given twice");
}

std::vector<int64_t> BindingUse::shape_of(const std::string& source, const std::string& name,
                                          const std::vector<int64_t>& declared, const std::vector<std::string>& dim_names) {
  auto given = bindings_.input_shapes.find(name);
  if (given != bindings_.input_shapes.end()) {
    used_inputs_.insert(name);
    const std::vector<int64_t>& shape = given->second;
    bool agrees = shape.size() == declared.size();
    for (size_t i = 0; agrees && i < shape.size(); ++i) agrees = declared[i] < 0 || declared[i] == shape[i];
    if (!agrees)
      throw CompileError(source + ": --input-shape " + name + "=" + shape_text(shape) + " does not fit the input's declared shape " +
                         shape_text(declared));
    return shape;
  }
  std::vector<int64_t> shape = declared;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] >= 0) continue;
    const std::string& dim = i < dim_names.size() ? dim_names[i] : "";
    auto bound = dim.empty() ? bindings_.dims.end() : bindings_.dims.find(dim);
    if (bound == bindings_.dims.end())
      throw CompileError(source + ": graph input '" + name + "' has a dynamic dimension" +
                         (dim.empty() ? "" : " '" + dim + "'") + " (shape " + shape_text(declared) +
                         "); aotc needs static shapes: give them with --input-shape " + name + "=..." +
                         (dim.empty() ? "" : " or --dim " + dim + "=..."));
    used_dims_.insert(dim);
    shape[i] = bound->second;
  }
  return shape;
}

void BindingUse::check_all_used(const std::string& source) const {
  for (auto& [name, shape] : bindings_.input_shapes)
    if (!used_inputs_.count(name)) throw CompileError(source + ": --input-shape names '" + name + "', which is not a graph input");
  for (auto& [dim, value] : bindings_.dims)
    if (!used_dims_.count(dim))
      throw CompileError(source + ": --dim names '" + dim + "', which is no dynamic dimension of a graph input");
}

}  // namespace aotc
