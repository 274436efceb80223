// ONNX Einsum: Einstein summation over one or more operands, e.g. "bij,bjk->bik" (batched
// matrix product), "ij->ji" (transpose), "ij->i" (row sums), "i,i" (inner product),
// "i,j->ij" (outer product), "...ii->...i" (batched diagonal).
//
// The equation is analysed into loops: every letter is one loop index with one extent.
// The output's letters (in their order) are the loop nest over the output; the letters
// that appear only in the inputs are summed over, in a reduction nest inside it, in the
// order they first appear; the summand is the product of one element of each operand.
// A letter that repeats within one operand reads its diagonal. An ellipsis stands for
// the same leading dimensions in every operand and the output, broadcast numpy-style.
// Without "->" the output is, as ONNX and numpy define it, the ellipsis dimensions then
// the letters that appear exactly once, in alphabetical order.
//
// Types: float32, float64, and 32- and 64-bit integers. Integer products and sums wrap
// like numpy's: computed in uint64 (unsigned arithmetic wraps in C, where a signed
// overflow would be undefined), then narrowed.
// What the equation cannot mean (a letter with two extents, an output letter absent from
// the inputs, a letter twice in the output, an operand count that differs) is an error
// naming it.
#include <algorithm>
#include <cctype>
#include <map>

#include "aot/graph/op_registry.h"
#include "lowering/compute/axis_split.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/compute/matmul.h"
#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

// A term of the equation: its letters, with '.' standing for the ellipsis dimensions.
struct Term {
  std::string letters;  // at most one '.'
  bool has_ellipsis() const { return letters.find('.') != std::string::npos; }
};

struct Equation {
  std::vector<Term> inputs;
  Term output;
};

// Letters, "..." and (ignored) spaces; anything else is an error.
Term parse_term(const Node& node, const std::string& text) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (text.compare(i, 3, "...") != 0 || term.has_ellipsis())
        node_error(node, "equation term '" + text + "' has a malformed or second ellipsis");
      term.letters += '.';
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      term.letters += c;
    } else {
      node_error(node, "equation term '" + text + "' has the character '" + std::string(1, c) + "'");
    }
  }
  return term;
}

Equation parse_equation(const Node& node) {
  std::string text = node.attr_string("equation", "");
  if (text.empty()) node_error(node, "the equation attribute is required");
  Equation eq;
  size_t arrow = text.find("->");
  std::string lhs = arrow == std::string::npos ? text : text.substr(0, arrow);
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    eq.inputs.push_back(parse_term(node, lhs.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    eq.output = parse_term(node, text.substr(arrow + 2));
    return eq;
  }
  // Implicit output: the ellipsis, then the letters that occur once, alphabetically.
  std::map<char, int> counts;
  bool ellipsis = false;
  for (const Term& t : eq.inputs) {
    for (char c : t.letters) {
      if (c == '.') ellipsis = true;
      else ++counts[c];
    }
  }
  if (ellipsis) eq.output.letters += '.';
  for (const auto& [c, n] : counts)
    if (n == 1) eq.output.letters += c;
  return eq;
}

// The equation resolved against the operands' shapes: one extent per letter, the
// ellipsis dimensions broadcast, and each operand's letter for each of its dimensions.
struct EinsumPlan {
  std::map<char, int64_t> extents;
  std::vector<int64_t> ellipsis;                  // the broadcast ellipsis dimensions
  std::vector<std::vector<char>> operand_axes;     // per operand: a letter, or '0' + i for ellipsis dim i
  std::vector<std::vector<bool>> operand_bcast;    // per operand dimension: ellipsis dimension of extent 1
  std::vector<char> output_axes;                  // the output's dimensions, same encoding
  std::vector<char> summed;                       // letters summed over
  std::vector<int64_t> output_shape;
};

// Ellipsis dimensions are named by characters '0', '1', ... (never letters).
char ellipsis_axis(size_t i) { return static_cast<char>('0' + i); }

EinsumPlan plan_einsum(const Graph& g, const Node& node) {
  Equation eq = parse_equation(node);
  if (eq.inputs.size() != node.inputs.size())
    node_error(node, "the equation has " + std::to_string(eq.inputs.size()) + " operand terms but the node has " +
                     std::to_string(node.inputs.size()) + " inputs");
  EinsumPlan plan;
  size_t ellipsis_rank = 0;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const Tensor& t = require_input(g, node, i);
    shapes.push_back(t.shape);
    size_t named = eq.inputs[i].letters.size() - (eq.inputs[i].has_ellipsis() ? 1 : 0);
    if (eq.inputs[i].has_ellipsis() ? t.shape.size() < named : t.shape.size() != named)
      node_error(node, "operand " + std::to_string(i) + " '" + t.name + "' has shape " + shape_str(t.shape) +
                       ", which does not fit the term '" + eq.inputs[i].letters + "'");
    if (eq.inputs[i].has_ellipsis()) ellipsis_rank = std::max(ellipsis_rank, t.shape.size() - named);
  }
  plan.ellipsis.assign(ellipsis_rank, 1);
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const std::string& letters = eq.inputs[i].letters;
    const std::vector<int64_t>& shape = shapes[i];
    std::vector<char> axes;
    std::vector<bool> bcast;
    size_t dim = 0;
    for (char c : letters) {
      if (c == '.') {
        size_t own = shape.size() - (letters.size() - 1);
        // Aligned to the right, numpy-style.
        for (size_t e = 0; e < own; ++e, ++dim) {
          size_t slot = ellipsis_rank - own + e;
          int64_t extent = shape[dim];
          int64_t& broadcast = plan.ellipsis[slot];
          if (extent != 1 && broadcast != 1 && broadcast != extent)
            node_error(node, "the ellipsis dimensions of the operands do not broadcast: " + shape_str(shape));
          if (extent != 1) broadcast = extent;
          axes.push_back(ellipsis_axis(slot));
          bcast.push_back(extent == 1);
        }
        continue;
      }
      int64_t extent = shape[dim++];
      auto [it, inserted] = plan.extents.emplace(c, extent);
      if (!inserted && it->second != extent)
        node_error(node, "index '" + std::string(1, c) + "' has extent " + std::to_string(it->second) +
                         " in one place and " + std::to_string(extent) + " in another");
      axes.push_back(c);
      bcast.push_back(false);
    }
    plan.operand_axes.push_back(axes);
    plan.operand_bcast.push_back(bcast);
  }
  for (char c : eq.output.letters) {
    if (c == '.') {
      for (size_t e = 0; e < ellipsis_rank; ++e) {
        plan.output_axes.push_back(ellipsis_axis(e));
        plan.output_shape.push_back(plan.ellipsis[e]);
      }
      continue;
    }
    if (!plan.extents.count(c))
      node_error(node, "output index '" + std::string(1, c) + "' appears in no operand");
    if (std::count(plan.output_axes.begin(), plan.output_axes.end(), c))
      node_error(node, "output index '" + std::string(1, c) + "' appears twice in the output");
    plan.output_axes.push_back(c);
    plan.output_shape.push_back(plan.extents[c]);
  }
  if (!eq.output.has_ellipsis() && ellipsis_rank > 0 &&
      std::any_of(plan.ellipsis.begin(), plan.ellipsis.end(), [](int64_t e) { return e != 1; }))
    node_error(node, "the operands have ellipsis dimensions but the output does not keep them");
  // Summed: the letters of the operands that the output lacks, in order of appearance;
  // ellipsis dimensions the output drops (all of extent 1) need no loop.
  for (const Term& t : eq.inputs)
    for (char c : t.letters)
      if (c != '.' && !std::count(plan.output_axes.begin(), plan.output_axes.end(), c) &&
          !std::count(plan.summed.begin(), plan.summed.end(), c))
        plan.summed.push_back(c);
  return plan;
}

const std::vector<DataType> kEinsumTypes = {DataType::Float32(), DataType::Float64(), DataType::Int(32),
                                            DataType::Int(64),   DataType::UInt(32),  DataType::UInt(64)};

void infer_einsum(Graph& g, Node& node) {
  if (node.inputs.empty()) node_error(node, "Einsum needs at least one operand");
  DataType t = require_input(g, node, 0).dtype;
  if (std::find(kEinsumTypes.begin(), kEinsumTypes.end(), t) == kEinsumTypes.end())
    node_error(node, "operand type " + t.str() + " is not supported (float32, float64, 32- and 64-bit integers)");
  for (size_t i = 1; i < node.inputs.size(); ++i)
    if (require_input(g, node, i).dtype != t)
      node_error(node, "operands have different types " + t.str() + " and " + g.tensor(node.inputs[i]).dtype.str());
  EinsumPlan plan = plan_einsum(g, node);
  set_output(g, node, 0, t, plan.output_shape);
}

LoweredOp lower_einsum(const Graph& g, const Node& node, KernelBuilder& kb) {
  EinsumPlan plan = plan_einsum(g, node);
  std::vector<ir::Buffer> operands;
  for (size_t i = 0; i < node.inputs.size(); ++i) operands.push_back(kb.input(i, "X" + std::to_string(i)));
  ir::Buffer y = kb.output(0, "Y");
  DataType t = y->dtype;
  DataType acc_type = product_sum_type(t);

  // A scalar output is a one-element buffer.
  std::vector<int64_t> loop_shape = plan.output_shape.empty() ? std::vector<int64_t>{1} : plan.output_shape;
  std::vector<std::string> names;
  for (char c : plan.output_axes) names.push_back(std::isalpha(static_cast<unsigned char>(c)) ? std::string(1, c) : "e" + std::string(1, c));
  ir::Stmt body = ir::loop_nest(loop_shape, names, [&](const std::vector<Expr>& out_index) {
    std::map<char, Expr> index;
    for (size_t i = 0; i < plan.output_axes.size(); ++i) index[plan.output_axes[i]] = out_index[i];
    std::vector<ir::Var> summed_vars;
    for (char c : plan.summed) {
      summed_vars.push_back(ir::make_var(std::string("s_") + c));
      index[c] = ir::var_expr(summed_vars.back());
    }
    // Ellipsis dimensions the output drops are all of extent 1.
    for (size_t e = 0; e < plan.ellipsis.size(); ++e) index.emplace(ellipsis_axis(e), Expr(0));
    Expr product;
    for (size_t i = 0; i < operands.size(); ++i) {
      std::vector<Expr> at;
      for (size_t d = 0; d < plan.operand_axes[i].size(); ++d)
        at.push_back(plan.operand_bcast[i][d] ? Expr(0) : index.at(plan.operand_axes[i][d]));
      Expr element = ir::cast(acc_type, ir::load(operands[i], buffer_index(at)));  // a scalar operand: {0}
      product = product ? product * element : element;
    }
    if (plan.summed.empty()) return ir::store(y, out_index, ir::cast(t, product));
    auto sum = [&](const Accumulator& acc) {
      ir::Stmt s = acc.set(acc.value() + product);
      for (size_t i = plan.summed.size(); i-- > 0;) s = ir::for_loop(summed_vars[i], 0, plan.extents.at(plan.summed[i]), s);
      return s;
    };
    return accumulate(ir::make_zero(acc_type), sum,
                      [&](const Expr& total) { return ir::store(y, out_index, ir::cast(t, total)); });
  });
  return kb.finish(body);
}

AOTC_REGISTER_OP("Einsum", kernel_op(infer_einsum, lower_einsum));

}  // namespace
}  // namespace aotc
