// The kernel of an external function (aot/graph/external.h): a region of the graph that a
// device beside the CPU runs from a command stream its backend compiled.
//
// The kernel does not compute anything itself. It hands the device the stream and the
// table of memory regions the stream addresses, in the order the backend gave: the
// function's artifacts (constant arrays of the module, ir::PrimFunc::globals), its
// scratch, and the region's input and output tensors (the kernel's parameters). Scratch is
// an Allocate of scope "global.workspace": the device reaches it by DMA, so LowerBuiltin
// never puts it on the CPU's stack, however small; the memory planner places it, and the
// region's tensors, only in pools the device can reach. The driver's status is kept and
// checked after the scratch is released (LIFO), so a failing job returns AOTC_ERR_NPU:
//
//   allocate status: int32[1] "local" {
//     allocate scratch0: uint8[N] "global.workspace" {
//       status[0] = aotc_npu_invoke(stream, bytes, constants, .., scratch0, N, 1, x, .., 0, y, .., 1)
//     }
//     if status[0] != 0 { return AOTC_ERR_NPU }
//   }
#include "aot/graph/external.h"
#include "lowering/ir/builtins.h"
#include "lowering/compute/kernel_builder.h"

namespace aotc {
namespace {

// The outputs were typed when the region was cut (or by the importer); an external
// function changes no shape.
void infer_external(Graph& g, Node& node) {
  for (TensorId out : node.outputs)
    if (out != kNoTensor && !g.tensor(out).shape_known) node_error(node, "output '" + g.tensor(out).name + "' has no known shape");
}

LoweredOp lower_external(const LowerContext& ctx) {
  const Graph& g = ctx.graph;
  const Node& node = ctx.node;
  ExternalFunction f = external_call(node);
  if (f.invoke != ir::builtin::kNpuInvoke && f.invoke != ir::builtin::kEthosuInvoke)
    node_error(node, "unknown device driver call '" + f.invoke + "'");
  KernelBuilder kb(ctx);
  std::map<std::string, ir::Buffer> artifacts;
  std::vector<ir::Buffer> globals;
  for (const Artifact& a : f.artifacts) {
    artifacts[a.name] = ir::make_buffer(a.name, DataType::UInt(8), {static_cast<int64_t>(a.bytes.size())});
    globals.push_back(artifacts[a.name]);
  }
  auto artifact = [&](const std::string& name) {
    auto it = artifacts.find(name);
    if (it == artifacts.end()) node_error(node, "the region table names no artifact '" + name + "'");
    return it->second;
  };
  const ir::Buffer stream = artifact(f.stream);
  std::vector<ir::Expr> args = {ir::var_expr(stream->data), ir::make_int(stream->num_elements())};
  auto entry = [&](ir::Expr handle, int64_t bytes, bool writable) {
    if (bytes > INT32_MAX) node_error(node, "a region of the device's table has more than 2 GiB");
    args.push_back(std::move(handle));
    args.push_back(ir::make_int(bytes));
    args.push_back(ir::make_int(writable ? 1 : 0));
  };
  std::vector<ir::Buffer> scratch;
  for (const RegionEntry& e : f.table) {
    switch (e.kind) {
      case RegionEntry::Kind::kArtifact: {
        ir::Buffer b = artifact(e.artifact);
        entry(ir::var_expr(b->data), b->num_elements(), false);
        break;
      }
      case RegionEntry::Kind::kScratch:
        if (e.bytes == 0) {
          entry(ir::make_int(0), 0, true);  // an empty region: NULL
          break;
        }
        scratch.push_back(ir::make_buffer("scratch" + std::to_string(scratch.size()), DataType::UInt(8), {e.bytes},
                                          "global.workspace"));
        entry(ir::var_expr(scratch.back()->data), e.bytes, true);
        break;
      case RegionEntry::Kind::kInput: {
        ir::Buffer b = kb.input(static_cast<size_t>(e.index), "input" + std::to_string(e.index));
        entry(ir::var_expr(b->data), g.tensor(node.inputs[static_cast<size_t>(e.index)]).size_bytes(), false);
        break;
      }
      case RegionEntry::Kind::kOutput: {
        ir::Buffer b = kb.output(static_cast<size_t>(e.index), "output" + std::to_string(e.index));
        entry(ir::var_expr(b->data), g.tensor(node.outputs[static_cast<size_t>(e.index)]).size_bytes(), true);
        break;
      }
    }
  }
  ir::Buffer status = ir::make_buffer("npu_status", DataType::Int(32), {1}, "local");
  ir::Stmt call = ir::store(status, {0}, ir::call(f.invoke, args, DataType::Int(32)));
  for (auto it = scratch.rbegin(); it != scratch.rend(); ++it) call = ir::allocate(*it, call);
  ir::Stmt failed = ir::if_then_else(ir::load(status, {0}) != 0,
                                     ir::return_stmt(ir::call(ir::builtin::kErrNpu, {}, DataType::Int(32))));
  LoweredOp lowered = kb.finish(ir::allocate(status, ir::seq({call, failed})));
  lowered.func.globals = globals;
  lowered.func.attrs["device"] = f.backend;
  return lowered;
}

AOTC_REGISTER_OP(kExternalOp, kernel_op(infer_external, lower_external));

}  // namespace
}  // namespace aotc
