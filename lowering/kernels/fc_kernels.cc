#include "lowering/kernels/fc_kernels.h"

#include "lowering/compute/channel_constants.h"
#include "lowering/compute/reduction.h"

namespace aotc {
namespace {

using ir::Expr;

// The generic loop: a loop per unit over the depth, which the host's C compiler sees whole.
// With a folded bias the input's zero point is already in it and the terms are plain
// products.
ir::Stmt generic_fc(KernelBuilder& kb, const FcProblem& p, FcViews& views) {
  const FcGeometry& f = p.geometry;
  ConvArithmetic& a = *p.arithmetic;
  bool folded = !p.folded_bias.empty();
  ir::Buffer w = kb.tensor_param(p.filter, "filter");
  ir::Buffer bias = !folded && p.bias != kNoTensor ? kb.tensor_param(p.bias, "bias") : nullptr;
  ChannelConstants folded_bias;
  ChannelConstants::Handle folded_handle =
      folded ? folded_bias.add("bias", DataType::Int(32), std::vector<double>(p.folded_bias.begin(), p.folded_bias.end())) : 0;
  return a.wrap([&] {
    return folded_bias.wrap([&] {
      return ir::loop_nest({f.batches, f.units}, {"b", "unit"}, [&](const std::vector<Expr>& o) {
        auto sum = [&](const Accumulator& acc) {
          ir::Var d = ir::make_var("d");
          Expr dv = ir::var_expr(d);
          Expr input = ir::load(views.input, {o[0], dv});
          Expr weight = p.filter_depth_major ? ir::load(w, {dv, o[1]}) : ir::load(w, {o[1], dv});
          Expr term = (folded ? ir::cast(DataType::Int(32), input) : a.input_term(input)) * a.filter_term(weight, o[1]);
          return ir::for_loop(d, 0, ir::make_int(f.depth), acc.set(acc.value() + term));
        };
        auto write = [&](const Expr& total) {
          Expr biased = folded ? total + folded_bias.at(folded_handle, o[1])
                        : a.accumulator().is_float() ? p.float_biased(total, bias, o[1])
                        : (bias ? total + p.bias_at(bias, o[1]) : total);
          return ir::store(views.output, o, kb.epilogue(a.output(biased, o[1]), p.output_index(o[0], o[1])));
        };
        return accumulate(ir::make_zero(a.accumulator()), sum, write);
      });
    });
  });
}

AOTC_REGISTER_KERNEL(FcKernels, ({"portable.fc", 0, [](const FcProblem&, const TargetFacts&) { return true; }, generic_fc}));

}  // namespace

ir::Expr FcProblem::bias_at(const ir::Buffer& bias, const ir::Expr& unit) const {
  std::vector<Expr> index(bias->shape.size(), ir::make_int(0));
  if (!bias_scalar) index.back() = unit;
  return ir::load(bias, index);
}

ir::Expr FcProblem::float_biased(const ir::Expr& sum, const ir::Buffer& bias, const ir::Expr& unit) const {
  Expr result = sum_scale == 1.0 ? sum : ir::make_float(sum_scale, sum.dtype()) * sum;
  if (!bias) return result;
  Expr b = bias_at(bias, unit);
  return result + (bias_scale == 1.0 ? b : ir::make_float(bias_scale, b.dtype()) * b);
}

std::vector<ir::Expr> FcProblem::output_index(const ir::Expr& row, const ir::Expr& unit) const {
  if (output_shape.empty()) return {row, unit};
  // The leading dimensions, last fastest, from the row.
  std::vector<Expr> index(output_shape.size(), ir::make_int(0));
  index.back() = unit;
  Expr rest = row;
  for (size_t d = output_shape.size() - 1; d-- > 0;) {
    bool first = d == 0;
    index[d] = first ? rest : rest % ir::make_int(output_shape[d]);
    if (!first) rest = rest / ir::make_int(output_shape[d]);
  }
  return index;
}

LoweredOp build_fc_kernel(KernelBuilder& kb, const FcProblem& problem) {
  const FcKernels::Entry& kernel = FcKernels::select(problem, kb.target());
  const Graph& g = kb.graph();
  const FcGeometry& f = problem.geometry;
  // Parameters seen as 2-D, whatever the tensors' ranks.
  FcViews views{ir::make_buffer("input", g.tensor(problem.input).dtype, {f.batches, f.depth}),
                ir::make_buffer("output", g.tensor(problem.output).dtype, {f.batches, f.units})};
  LoweredOp lowered = kb.finish(kernel.build(kb, problem, views));
  lowered.func.params.insert(lowered.func.params.begin(), views.input);
  lowered.args.insert(lowered.args.begin(), problem.input);
  lowered.func.params.push_back(views.output);
  lowered.args.push_back(problem.output);
  lowered.func.attrs["kernel"] = kernel.name;
  return lowered;
}

}  // namespace aotc
