#include "lowering/passes/split_loops.h"

#include <optional>
#include <vector>

#include "lowering/ir/ir_functor.h"
#include "lowering/passes/loop_analysis.h"

namespace aotc::ir {
namespace {

class Splitter : public IRMutator {
 protected:
  Stmt mutate_for(const Stmt& s, const ForNode* op) override {
    if (op->schedule.split == 0) return IRMutator::mutate_for(s, op);
    Stmt body = mutate(op->body);
    LoopSchedule rest = op->schedule;
    rest.split = 0;
    rest.unroll = false;
    const int64_t factor = op->schedule.split;
    std::optional<int64_t> extent = constant_int(op->extent);
    if (!extent || *extent <= factor || factor < 2) return with_schedule(rebuild_for(op, op->min, op->extent, body).as<ForNode>(), rest);

    LoopSchedule inner_schedule;
    inner_schedule.unroll = op->schedule.unroll;
    const std::string& name = op->var->name;
    Var outer = make_var(name + ".outer"), inner = make_var(name + ".inner");
    Expr k = op->min + var_expr(outer) * make_int(factor) + var_expr(inner);
    Stmt inner_loop = Stmt(std::make_shared<ForNode>(inner, make_int(0), make_int(factor), ForKind::kSerial,
                                                     substitute(body, op->var.get(), k), inner_schedule));
    Stmt blocks = Stmt(std::make_shared<ForNode>(outer, make_int(0), make_int(*extent / factor), op->for_kind, inner_loop, rest));
    int64_t remainder = *extent % factor;
    if (remainder == 0) return blocks;
    Var tail = make_var(name + ".tail");
    Expr tail_k = var_expr(tail) + (op->min + make_int(*extent - remainder));
    Stmt tail_loop = Stmt(std::make_shared<ForNode>(tail, make_int(0), make_int(remainder), ForKind::kSerial,
                                                    substitute(body, op->var.get(), tail_k), inner_schedule));
    return seq({blocks, tail_loop});
  }
};

}  // namespace

Stmt split_loops(const Stmt& s) { return Splitter().mutate(s); }

}  // namespace aotc::ir
