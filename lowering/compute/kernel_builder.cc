#include "lowering/compute/kernel_builder.h"

#include <algorithm>
#include <utility>

#include "lowering/ir/ir_functor.h"

namespace aotc {

KernelBuilder::KernelBuilder(const LowerContext& ctx)
    : graph_(ctx.graph), node_(ctx.node), func_name_(ctx.func_name), target_(ctx.target) {}

ir::Buffer KernelBuilder::tensor_param(TensorId id, const std::string& param_name) {
  auto it = by_tensor_.find(id);
  if (it != by_tensor_.end()) return it->second;
  const Tensor& t = graph_.tensor(id);
  // Scalars still get one dimension, so every parameter is an array in C.
  std::vector<int64_t> shape = t.shape.empty() ? std::vector<int64_t>{1} : t.shape;
  ir::Buffer b = ir::make_buffer(param_name, t.dtype, shape);
  params_.push_back(b);
  args_.push_back(id);
  by_tensor_[id] = b;
  return b;
}

ir::Buffer KernelBuilder::input(size_t index, const std::string& param_name) {
  TensorId id = node_.input(index);
  if (id == kNoTensor) node_error(node_, "input " + std::to_string(index) + " is required");
  return tensor_param(id, param_name);
}

ir::Buffer KernelBuilder::output(size_t index, const std::string& param_name) {
  return tensor_param(node_.outputs.at(index), param_name);
}

namespace {

// Whether every store to `output` in a kernel reads `operand` in its value, as a store of the
// epilogue does. A kernel that first writes something else there (Softmax's exponentials,
// divided by their sum in a second pass) would write over an operand sharing the output's
// memory before reading it.
class EveryStoreReads : public ir::IRVisitor {
 public:
  EveryStoreReads(ir::Buffer output, ir::Buffer operand) : output_(std::move(output)), operand_(std::move(operand)) {}
  bool holds() const { return holds_; }

 protected:
  void visit_store(const ir::StoreNode* op) override {
    if (op->buffer == output_) {
      reads_ = false;
      visit(op->value);
      holds_ = holds_ && reads_;
    }
    ir::IRVisitor::visit_store(op);
  }
  void visit_load(const ir::LoadNode* op) override {
    reads_ = reads_ || op->buffer == operand_;
    ir::IRVisitor::visit_load(op);
  }

 private:
  ir::Buffer output_, operand_;
  bool holds_ = true, reads_ = false;
};

}  // namespace

OpDef kernel_op(InferFn infer, BuilderLowerFn lower) {
  return kernel_op(std::move(infer), LowerFn([lower = std::move(lower)](const LowerContext& ctx) {
    KernelBuilder kb(ctx);
    return lower(ctx.graph, ctx.node, kb);
  }));
}

ir::Expr broadcast_load(const ir::Buffer& buffer, const std::vector<ir::Expr>& out_index) {
  size_t rank = buffer->shape.size();
  std::vector<ir::Expr> idx;
  for (size_t j = 0; j < rank; ++j) {
    if (buffer->shape[j] == 1 || out_index.size() + j < rank) {
      idx.push_back(0);
    } else {
      idx.push_back(out_index[out_index.size() - rank + j]);
    }
  }
  return ir::load(buffer, idx);
}

ir::Expr KernelBuilder::operand(TensorId id, const std::string& param_name, const std::vector<ir::Expr>& out_index) {
  const Tensor& t = graph_.tensor(id);
  if (t.is_constant() && t.num_elements() == 1) {
    // A constant scalar (a Clip bound, an Add of 3) reads better, and runs faster, inline.
    return t.dtype.is_float() ? ir::make_float(t.element_as_double(0), t.dtype) : ir::make_int(t.element_as_int(0), t.dtype);
  }
  return broadcast_load(tensor_param(id, param_name), out_index);
}

ir::Expr KernelBuilder::epilogue(ir::Expr value, const std::vector<ir::Expr>& out_index) {
  if (node_.body.empty()) return value;
  TensorId carried = static_cast<TensorId>(node_.attr_int(kAnchorOutputAttr, kNoTensor));
  for (const Node& step : node_.body) {
    const OpDef* def = find_op(step.op);
    std::vector<ir::Expr> operands;
    for (TensorId in : step.inputs) {
      if (in == kNoTensor) {
        operands.emplace_back();
      } else if (in == carried) {
        operands.push_back(value);
      } else {
        operands.push_back(operand(in, "E" + std::to_string(params_.size()), out_index));
        epilogue_operands_.push_back(in);
      }
    }
    value = def->scalar(graph_, step, operands);
    carried = step.outputs.at(0);
  }
  return value;
}

ir::Buffer KernelBuilder::epilogue_operand(TensorId id) {
  epilogue_operands_.push_back(id);
  return tensor_param(id, "E" + std::to_string(params_.size()));
}

LoweredOp KernelBuilder::finish(ir::Stmt body) {
  LoweredOp out;
  out.func.name = func_name_;
  out.func.params = params_;
  out.func.body = std::move(body);
  out.func.attrs["source_node"] = node_.label();
  std::string fused;
  for (const Node& step : node_.body) fused += (fused.empty() ? "" : ", ") + step.label();
  if (!fused.empty()) out.func.attrs["fused"] = fused;
  out.args = args_;
  out.in_place_inputs = in_place_;
  // An optional output 0 left out (RNN's Y): nothing can take its place.
  if (node_.outputs.at(0) == kNoTensor) return out;
  const Tensor& y = graph_.tensor(node_.outputs.at(0));
  // Element i of the input and of the output must be the same bytes: the same shape, and
  // elements of the same whole number of bytes (a uint8 -> int8 QUANTIZE qualifies).
  auto same_bytes = [&](TensorId id) {
    const Tensor& x = graph_.tensor(id);
    return x.shape == y.shape && x.dtype.bytes() == y.dtype.bytes() && x.dtype.bits % 8 == 0 && y.dtype.bits % 8 == 0;
  };
  const OpDef* def = find_op(node_.op);
  if (def && def->has(Role::kInPlace)) {
    for (TensorId id : node_.inputs)
      if (id != kNoTensor && same_bytes(id)) out.in_place_inputs.push_back(id);
  }
  for (TensorId id : epilogue_operands_) {
    // Not if the main computation reads it too (conv(x) + x reads x's neighbourhood), nor if
    // some store to the output is not the epilogue's (EveryStoreReads). Each output element
    // is written once (PAD with an epilogue pads in one pass for this).
    bool read_by_kernel = std::count(node_.inputs.begin(), node_.inputs.end(), id) > 0;
    if (read_by_kernel || !same_bytes(id)) continue;
    auto output = by_tensor_.find(node_.outputs.at(0)), operand = by_tensor_.find(id);
    if (output != by_tensor_.end() && operand != by_tensor_.end()) {
      EveryStoreReads check(output->second, operand->second);
      check.visit(out.func.body);
      if (!check.holds()) continue;
    }
    out.in_place_inputs.push_back(id);
  }
  return out;
}

}  // namespace aotc
