// RotaryEmbedding (opset 23): rotary positional embeddings (RoPE), applied to the queries
// and keys of an attention block before Attention.
//
// X is 4-D [batch, heads, sequence, head_size] or 3-D [batch, sequence, heads * head_size]
// (num_heads gives the heads). The first rotary_embedding_dim elements of each head
// (default: all of it) are taken as rotary_embedding_dim / 2 pairs, each turned by the angle
// of its token's position:
//   (x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos)
// where the pairs are the two halves of the rotated part (x[k], x[k + dim/2]) or, with
// interleaved=1, neighbours (x[2k], x[2k + 1]); the rest of the head is copied. cos and sin
// come from cos_cache/sin_cache: row position_ids[b, s] of a [max_position, dim/2] cache, or
// without position_ids the cache is [batch, sequence, dim/2]. A position outside the cache is
// a run-time error (the kernel returns AOTC_ERR_INVALID_ARGUMENT before writing), never a read
// outside it. Types: float32 and float64.
#include <string>
#include <vector>

#include "lowering/compute/axis_split.h"
#include "lowering/compute/data_movement.h"
#include "lowering/compute/kernel_builder.h"
#include "aot/graph/op_registry.h"

namespace aotc {
namespace {

using ir::Expr;

enum Input : size_t { kX, kCos, kSin, kPositions };

struct RotaryShape {
  bool three_d = false;
  int64_t batch = 0, heads = 0, length = 0, head_size = 0, rotary = 0;
  int64_t half() const { return rotary / 2; }
};

RotaryShape rotary_shape(const Graph& g, const Node& node) {
  const Tensor& x = require_input(g, node, kX);
  RotaryShape s;
  if (x.shape.size() == 4) {
    s.batch = x.shape[0];
    s.heads = x.shape[1];
    s.length = x.shape[2];
    s.head_size = x.shape[3];
  } else if (x.shape.size() == 3) {
    s.three_d = true;
    s.heads = node.attr_int("num_heads", 0);
    if (s.heads <= 0 || x.shape[2] % s.heads != 0)
      node_error(node, "a 3-D input needs num_heads (> 0) dividing its hidden size " + std::to_string(x.shape[2]));
    s.batch = x.shape[0];
    s.length = x.shape[1];
    s.head_size = x.shape[2] / s.heads;
  } else {
    node_error(node, "input X must be 3-D or 4-D, got " + shape_str(x.shape));
  }
  s.rotary = node.attr_int("rotary_embedding_dim", 0);
  if (s.rotary == 0) s.rotary = s.head_size;
  if (s.rotary < 0 || s.rotary > s.head_size || s.rotary % 2 != 0)
    node_error(node, "rotary_embedding_dim " + std::to_string(s.rotary) + " must be even and at most the head size " +
                         std::to_string(s.head_size));
  return s;
}

void infer_rotary_embedding(Graph& g, Node& node) {
  RotaryShape s = rotary_shape(g, node);
  require_float(g, node, kX);
  DataType t = g.tensor(node.inputs[kX]).dtype;
  bool positions = has_input(node, kPositions);
  for (size_t i : {kCos, kSin}) {
    const Tensor& cache = require_input(g, node, i);
    if (cache.dtype != t) node_error(node, "input '" + cache.name + "' is " + cache.dtype.str() + "; X is " + t.str());
    bool fits = positions ? cache.shape.size() == 2 && cache.shape[1] == s.half()
                          : cache.shape == std::vector<int64_t>{s.batch, s.length, s.half()};
    if (!fits)
      node_error(node, "input '" + cache.name + "' has shape " + shape_str(cache.shape) + "; expected " +
                           (positions ? "[max_position, " + std::to_string(s.half()) + "]"
                                      : shape_str({s.batch, s.length, s.half()})) +
                           " (rotary_embedding_dim / 2 = " + std::to_string(s.half()) + ")");
  }
  if (positions) {
    const Tensor& p = require_input(g, node, kPositions);
    if (p.dtype != DataType::Int(64) || p.shape != std::vector<int64_t>{s.batch, s.length})
      node_error(node, "position_ids '" + p.name + "' must be int64 of shape " + shape_str({s.batch, s.length}) +
                           ", got " + p.dtype.str() + " " + shape_str(p.shape));
    if (g.tensor(node.inputs[kCos]).shape != g.tensor(node.inputs[kSin]).shape)
      node_error(node, "cos_cache and sin_cache must have one shape");
  }
  set_output(g, node, 0, t, g.tensor(node.inputs[kX]).shape);
}

LoweredOp lower_rotary_embedding(const Graph& g, const Node& node, KernelBuilder& kb) {
  RotaryShape s = rotary_shape(g, node);
  ir::Buffer x = kb.input(kX, "X"), cos_cache = kb.input(kCos, "cos_cache"), sin_cache = kb.input(kSin, "sin_cache");
  ir::Buffer positions = has_input(node, kPositions) ? kb.input(kPositions, "position_ids") : ir::Buffer();
  ir::Buffer y = kb.output(0, "Y");
  bool interleaved = node.attr_int("interleaved", 0) != 0;
  std::vector<ir::Stmt> parts;
  if (positions) {
    int64_t cache_rows = g.tensor(node.inputs[kCos]).shape[0];
    parts.push_back(ir::loop_nest({s.batch, s.length}, {"b", "s"}, [&](const std::vector<Expr>& bs) {
      return check_range(ir::load(positions, bs), 0, cache_rows - 1);
    }));
  }
  parts.push_back(ir::loop_nest({s.batch, s.length, s.heads}, {"b", "s", "h"}, [&](const std::vector<Expr>& bsh) {
    const Expr &b = bsh[0], &position = bsh[1], &h = bsh[2];
    auto at = [&](const Expr& d) -> std::vector<Expr> {
      if (s.three_d) return {b, position, h * ir::make_int(s.head_size) + d};
      return {b, h, position, d};
    };
    auto angle = [&](const ir::Buffer& cache, const Expr& k) {
      if (positions) return ir::load(cache, {ir::cast(DataType::Int(32), ir::load(positions, {b, position})), k});
      return ir::load(cache, {b, position, k});
    };
    ir::Stmt rotate = ir::loop_nest({s.half()}, {"k"}, [&](const std::vector<Expr>& k) {
      Expr first = interleaved ? k[0] * ir::make_int(2) : k[0];
      Expr second = interleaved ? first + ir::make_int(1) : k[0] + ir::make_int(s.half());
      Expr x1 = ir::load(x, at(first)), x2 = ir::load(x, at(second));
      Expr c = angle(cos_cache, k[0]), sn = angle(sin_cache, k[0]);
      return ir::seq({ir::store(y, at(first), x1 * c - x2 * sn), ir::store(y, at(second), x1 * sn + x2 * c)});
    });
    ir::Stmt copy = ir::loop_nest({s.head_size - s.rotary}, {"d"}, [&](const std::vector<Expr>& d) {
      Expr index = d[0] + ir::make_int(s.rotary);
      return ir::store(y, at(index), ir::load(x, at(index)));
    });
    return ir::seq({rotate, copy});
  }));
  return kb.finish(ir::seq(parts));
}

AOTC_REGISTER_OP("RotaryEmbedding", kernel_op(infer_rotary_embedding, lower_rotary_embedding));

}  // namespace
}  // namespace aotc
