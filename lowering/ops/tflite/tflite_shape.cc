// TFLite SHAPE: the input's dimensions as a 1-D int32 or int64 tensor.
//
// Converters emit SHAPE wherever a graph computes a shape (SSD detectors reshape their box
// and class heads with SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE; a TRANSPOSE_CONV takes
// its output shape from SHAPE -> ... -> PACK). Shapes are static in aotc, so SHAPE declares
// reads_only_shapes: infer_shapes makes its output a constant right away, and the
// operators computing from it (STRIDED_SLICE, PACK, CONCATENATION, GATHER, arithmetic)
// fold too, into the constant operand RESHAPE or TRANSPOSE_CONV reads. Only a SHAPE whose
// result is a graph output keeps a kernel, which stores the known values.
//
// The output type is the one the model declares for the output tensor, int32 (the only
// one TensorFlow Lite Micro's kernel writes) or int64 (TFLite's out_type option allows
// it); the option, when present, must name the same type.
#include "aot/graph/op_registry.h"
#include "lowering/compute/kernel_builder.h"
#include "lowering/ops/tflite/tflite_infer.h"

namespace aotc {
namespace {

void infer_shape(Graph& g, Node& node) {
  const Tensor& x = require_input(g, node, 0);
  DataType type = g.tensor(node.outputs.at(0)).dtype;
  if (type != DataType::Int(32) && type != DataType::Int(64))
    node_error(node, "output '" + g.tensor(node.outputs[0]).name + "' is " + type.str() + "; SHAPE writes int32 or int64");
  if (node.has_attr("out_type") && node.attr_string("out_type", "") != (type == DataType::Int(32) ? "INT32" : "INT64"))
    node_error(node, "out_type " + node.attr_string("out_type", "") + " disagrees with output '" +
                         g.tensor(node.outputs[0]).name + "', which is " + type.str());
  if (x.shape.empty()) node_error(node, "the input is a scalar: its shape has no elements, which aotc does not support");
  tflite::set_declared_output(g, node, 0, type, {static_cast<int64_t>(x.shape.size())});
}

LoweredOp lower_shape(const Graph& g, const Node& node, KernelBuilder& kb) {
  const std::vector<int64_t>& dims = g.tensor(node.inputs[0]).shape;
  DataType type = g.tensor(node.outputs[0]).dtype;
  ir::Buffer y = kb.output(0, "output");
  std::vector<ir::Stmt> stores;
  for (size_t i = 0; i < dims.size(); ++i)
    stores.push_back(ir::store(y, {ir::make_int(static_cast<int64_t>(i))}, ir::make_int(dims[i], type)));
  return kb.finish(ir::seq(stores));
}

OpDef shape_op() {
  OpDef def = kernel_op(infer_shape, lower_shape);
  def.reads_only_shapes = true;
  return def;
}

AOTC_REGISTER_OP("tfl.SHAPE", shape_op());

}  // namespace
}  // namespace aotc
