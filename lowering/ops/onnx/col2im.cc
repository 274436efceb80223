// Col2Im (ONNX opset 18): the inverse of im2col. Input [N, C * prod(block_shape), L] holds,
// for each of the L block positions of a sliding window over an image of image_shape
// (row-major over the positions), the block's C * prod(block_shape) values (channel-major,
// then row-major over the block); the output [N, C, image_shape...] is the image, each
// pixel the sum of the block values that land on it. The window is a convolution's:
// along axis d, block position l_d and block offset k_d land on pixel
//   l_d * strides[d] - pads_begin[d] + k_d * dilations[d],
// those outside the image (in the padding) are dropped, and the positions per axis are
//   L_d = (image_d + pads_begin[d] + pads_end[d] - dilations[d] (block_d - 1) - 1) / strides[d] + 1,
// whose product must be L. image_shape and block_shape are constant inputs.
//
// The kernel zeroes the output and adds every input value to its pixel: each value is read
// once, in the input's order.
#include "aot/graph/op_registry.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"

namespace aotc {
namespace {

using ir::Expr;

struct Col2ImPlan {
  std::vector<int64_t> image, block, strides, dilations, pads_begin, positions;
  int64_t channels = 0;  // C
  std::vector<int64_t> output_shape;
};

// An attribute of `count` integers, `fallback` each when absent.
std::vector<int64_t> ints_attr(const Node& node, const std::string& name, size_t count, int64_t fallback) {
  return node.has_attr(name) ? node.attr_ints(name) : std::vector<int64_t>(count, fallback);
}

Col2ImPlan plan_col2im(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, 0);
  Col2ImPlan p;
  p.image = constant_ints(g, node, 1, "Col2Im needs a constant image_shape (input 1)");
  p.block = constant_ints(g, node, 2, "Col2Im needs a constant block_shape (input 2)");
  size_t rank = p.image.size();
  if (rank == 0 || p.block.size() != rank)
    node_error(node, "image_shape " + shape_str(p.image) + " and block_shape " + shape_str(p.block) +
                         " must have the same number of entries, at least one");
  if (x.dtype.is_bool()) node_error(node, "input '" + x.name + "' is bool; Col2Im sums numbers");
  if (x.shape.size() != 3) node_error(node, "input '" + x.name + "' must be [N, C * prod(block_shape), L], not " + shape_str(x.shape));
  p.strides = ints_attr(node, "strides", rank, 1);
  p.dilations = ints_attr(node, "dilations", rank, 1);
  std::vector<int64_t> pads = ints_attr(node, "pads", 2 * rank, 0);
  if (p.strides.size() != rank || p.dilations.size() != rank || pads.size() != 2 * rank)
    node_error(node, "strides and dilations need " + std::to_string(rank) + " entries and pads " + std::to_string(2 * rank));
  int64_t block_size = 1, positions = 1;
  for (size_t d = 0; d < rank; ++d) {
    for (auto [what, value] : {std::pair<const char*, int64_t>{"image_shape", p.image[d]}, {"block_shape", p.block[d]},
                               {"strides", p.strides[d]}, {"dilations", p.dilations[d]}}) {
      check_tensor_sized(node, std::string(what) + " value", value);
      if (value <= 0) node_error(node, std::string(what) + " values must be positive, got " + std::to_string(value));
    }
    for (int64_t pad : {pads[d], pads[d + rank]}) {
      check_tensor_sized(node, "pads value", pad);
      if (pad < 0) node_error(node, "pads must not be negative, got " + std::to_string(pad));
    }
    p.pads_begin.push_back(pads[d]);
    int64_t span = p.dilations[d] * (p.block[d] - 1) + 1;
    int64_t padded = p.image[d] + pads[d] + pads[d + rank];
    if (span > padded)
      node_error(node, "a block spans " + std::to_string(span) + " pixels along axis " + std::to_string(d) +
                           ", more than the padded image's " + std::to_string(padded));
    p.positions.push_back((padded - span) / p.strides[d] + 1);
    block_size *= p.block[d];
    positions *= p.positions.back();
    if (block_size > kMaxTensorElements || positions > kMaxTensorElements)
      node_error(node, "block_shape or the number of block positions is larger than any tensor");
  }
  if (x.shape[1] % block_size != 0)
    node_error(node, "input '" + x.name + "' has " + std::to_string(x.shape[1]) + " values per position, not a multiple of " +
                         "prod(block_shape) = " + std::to_string(block_size));
  if (x.shape[2] != positions)
    node_error(node, "input '" + x.name + "' has " + std::to_string(x.shape[2]) + " block positions; image_shape, " +
                         "block_shape, pads, strides and dilations give " + std::to_string(positions));
  p.channels = x.shape[1] / block_size;
  p.output_shape = {x.shape[0], p.channels};
  p.output_shape.insert(p.output_shape.end(), p.image.begin(), p.image.end());
  std::string problem = shape_size_problem(p.output_shape);
  if (!problem.empty()) node_error(node, "the output: " + problem);
  return p;
}

void infer_col2im(Graph& g, Node& node) {
  Col2ImPlan p = plan_col2im(g, node);
  set_output(g, node, 0, require_input(g, node, 0).dtype, p.output_shape);
}

// The row-major position of `index` in `shape`.
Expr flat_index(const std::vector<Expr>& index, const std::vector<int64_t>& shape) {
  Expr flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * ir::make_int(shape[d]) + index[d];
  return flat;
}

LoweredOp lower_col2im(const Graph& g, const Node& node, KernelBuilder& kb) {
  Col2ImPlan p = plan_col2im(g, node);
  ir::Buffer x = kb.input(0, "X");
  ir::Buffer y = kb.output(0, "Y");
  size_t rank = p.image.size();
  ir::Stmt zero = for_each_element(p.output_shape, [&](const std::vector<Expr>& i) {
    return ir::store(y, i, ir::make_zero(y->dtype));
  });
  ir::Stmt add = ir::loop_nest({x->shape[0], p.channels}, {"n", "c"}, [&](const std::vector<Expr>& nc) {
    return ir::loop_nest(p.block, {}, [&](const std::vector<Expr>& k) {
      return ir::loop_nest(p.positions, {}, [&](const std::vector<Expr>& l) {
        std::vector<Expr> pixel = {nc[0], nc[1]};
        Expr inside;
        for (size_t d = 0; d < rank; ++d) {
          Expr at = l[d] * ir::make_int(p.strides[d]) + k[d] * ir::make_int(p.dilations[d]) - ir::make_int(p.pads_begin[d]);
          Expr within = ir::logical_and(at >= ir::make_int(0), at < ir::make_int(p.image[d]));
          inside = d == 0 ? within : ir::logical_and(inside, within);
          pixel.push_back(at);
        }
        Expr row = nc[1] * ir::make_int(num_elements(p.block)) + flat_index(k, p.block);
        Expr value = ir::load(x, {nc[0], row, flat_index(l, p.positions)});
        return ir::if_then_else(inside, ir::store(y, pixel, ir::load(y, pixel) + value));
      });
    });
  });
  return kb.finish(ir::seq({zero, add}));
}

AOTC_REGISTER_OP("Col2Im", kernel_op(infer_col2im, lower_col2im));

}  // namespace
}  // namespace aotc
