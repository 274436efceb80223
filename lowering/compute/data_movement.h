// Shared by the operators that move data without computing on it (views.cc,
// rearrange.cc, slice_split.cc, gather.cc, scatter.cc, resize.cc, pad.cc,
// shape_arith.cc, triangular.cc): reading the compile-time operands that decide their
// shapes, addressing tensors of any rank (a scalar is stored as one element), and
// checking indices that arrive at run time.
//
// These kernels copy elements as they are, so one kernel serves every data type.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "aot/graph/op_registry.h"
#include "lowering/ir/ir.h"
#include "lowering/compute/kernel_builder.h"

namespace aotc {

// Whether optional input `index` is given.
inline bool has_input(const Node& node, size_t index) { return node.input(index) != kNoTensor; }

// The values of input `index`, which must be a constant integer tensor of at most one
// dimension (`what` names it in errors: "Slice needs constant starts (static shapes only)").
std::vector<int64_t> constant_ints(const Graph& g, const Node& node, size_t index, const std::string& what);
// The same for a constant floating-point (or integer) tensor.
std::vector<double> constant_floats(const Graph& g, const Node& node, size_t index, const std::string& what);
// Input `index` must be a constant scalar (or a one-element tensor); its value.
int64_t constant_int_scalar(const Graph& g, const Node& node, size_t index, const std::string& what);

// Axes given as an attribute or an input (normalized against `rank`, no axis twice).
std::vector<int64_t> normalized_axes(const Node& node, std::vector<int64_t> axes, int64_t rank);

// Rejects an output shape without elements, which aotc does not support (as the importer
// rejects such inputs).
void require_elements(const Node& node, const std::vector<int64_t>& shape, const std::string& what = "the output");

// Element `index` of the tensor in `buffer`, one index per dimension of the tensor; a
// scalar tensor (no index) is its buffer's one element.
ir::Expr element(const ir::Buffer& buffer, std::vector<ir::Expr> index);
ir::Stmt store_element(const ir::Buffer& buffer, std::vector<ir::Expr> index, ir::Expr value);

// The row-major index in a tensor of `shape` of its element number `flat` (an int32 in
// [0, elements)).
std::vector<ir::Expr> unflatten(const ir::Expr& flat, const std::vector<int64_t>& shape);

// A loop nest over every element of a tensor of `shape` (for a scalar, `body` once).
ir::Stmt for_each_element(const std::vector<int64_t>& shape, const std::function<ir::Stmt(const std::vector<ir::Expr>&)>& body);

// y[i] = epilogue(x[source(i)]) for every element i of y: the kernel of most data
// movement, contiguous stores in the output's order.
ir::Stmt gather_elements(KernelBuilder& kb, const ir::Buffer& x, const std::vector<int64_t>& y_shape, const ir::Buffer& y,
                         const std::function<std::vector<ir::Expr>(const std::vector<ir::Expr>&)>& source);
// The whole kernel of an operator that only rearranges its input (Transpose, Expand, Tile,
// DepthToSpace, SpaceToDepth, Slice): that loop from X (input 0) to Y (output 0).
LoweredOp lower_rearrangement(KernelBuilder& kb,
                              const std::function<std::vector<ir::Expr>(const std::vector<ir::Expr>&)>& source);

// ---- indices known only at run time (Gather's, GatherND's...)

// `raw` (a loaded index, any integer type, checked to lie in [-extent, extent)) as an
// int32 position in [0, extent): negative indices count from the end.
ir::Expr wrap_index(ir::Expr raw, int64_t extent);
// Returns AOTC_ERR_INVALID_ARGUMENT unless `raw` lies in [lo, hi]; the check is in
// raw's own type, before any narrowing.
ir::Stmt check_range(ir::Expr raw, int64_t lo, int64_t hi);
// Checks every element of a run-time index tensor against [-extent, extent) before the
// kernel writes anything: an index out of range is an error, never an access outside a
// buffer. `shape` is the tensor's. Empty when the indices are constant (checked at
// compile time by check_constant_indices).
ir::Stmt check_all_indices(const Graph& g, TensorId indices, const ir::Buffer& buffer, int64_t extent);
// The compile-time version: node_error naming the first index out of [-extent, extent).
void check_constant_indices(const Node& node, const Tensor& indices, int64_t extent, const std::string& what);

// Input `index` must be an int32 or int64 tensor of indices (Gather, GatherElements,
// ScatterElements).
const Tensor& require_index_tensor(const Graph& g, const Node& node, size_t index);

// GatherElements' and ScatterElements' axis (attribute `axis`, default 0, normalized):
// `data` has rank >= 1, `indices` its rank and no larger extent outside the axis; constant
// indices are checked against the axis.
size_t elements_axis(const Node& node, const Tensor& data, const Tensor& indices);

// GatherND's and ScatterND's indices [..., k]: column j of each row indexes an axis of
// extent extents[j]. Each column is checked against its own axis, at compile time for
// constant indices (node_error naming the first one out of range), else at run time
// (the statement returned; empty for constant indices), as check_all_indices does.
void check_constant_nd_indices(const Node& node, const Tensor& indices, const std::vector<int64_t>& extents);
ir::Stmt check_nd_indices(const Graph& g, TensorId indices, const ir::Buffer& buffer, const std::vector<int64_t>& extents);
// Index j of row `row` of such an indices buffer, loaded.
ir::Expr nd_index(const ir::Buffer& indices, const std::vector<ir::Expr>& row, size_t j);

// ---- the kernels that move elements from or to the positions indices give (gather.cc,
// scatter.cc)

// How such a kernel addresses data: the run-time check of the indices (input 1), made
// before anything is written (empty for constant indices), and the position in data for
// index i of the output (a gather) or of the updates (a scatter).
struct Indexing {
  std::function<ir::Stmt(const ir::Buffer& indices)> check;
  std::function<std::vector<ir::Expr>(const ir::Buffer& indices, const std::vector<ir::Expr>& i)> position;
};
// GatherElements and ScatterElements: i with i[axis] replaced by the index there.
Indexing elements_indexing(const Graph& g, const Node& node);
// GatherND and ScatterND: the first `batch_dims` entries of i, then the k = extents.size()
// indices of the row that i's leading entries name, then the rest of i.
Indexing nd_indexing(const Graph& g, const Node& node, size_t batch_dims, const std::vector<int64_t>& extents);

// Their parameters: data (input 0), indices (input 1), a scatter's updates (input 2), Y.
struct IndexedParams {
  ir::Buffer data, indices, updates, y;
};
// Such a kernel: the indices checked, then `move`.
LoweredOp lower_indexed(KernelBuilder& kb, bool with_updates, const Indexing& indexing,
                        const std::function<ir::Stmt(const IndexedParams& params)>& move);

}  // namespace aotc
