// Tensorize: replaces an innermost dot-product loop by a call to a runtime micro-kernel.
//
// Generic kernels (Gemm, MatMul, MatMulInteger, FullyConnected without a blocked kernel)
// reduce with a loop of one statement,
//   for (k, 0, 10) { acc[0] = (acc[0] + (A[m, k] * B[k, n])) }
// or, for integers, acc[0] + ((int32(A[m, k]) - a_zp) * (int32(B[k, n]) - b_zp)) (a zero
// point may also have been folded into `+ offset`, or be absent). A C
// compiler turns that into a loop that recomputes both flattened indices and reloads and
// stores the accumulator every iteration unless it proves the buffers do not alias. A
// loop marked `tensorize KERNEL` by schedule_loops becomes one call of the micro-kernel of
// runtime-c/aotc_dot_strided.h that computes the same sum over pointers and strides:
//   aotc_dot_f32(&A[m, 0], 1, &B[0, n], 2, 10, &acc[0])
// Results do not change: the float kernel adds the same products in the same order, and
// integer sums are exact. A loop that does not match the pattern (any other statement,
// an index not affine in the loop variable, operand types without a kernel) is left as
// it is and loses its annotation, so an annotation is always safe to make.
#pragma once

#include <string>

#include "lowering/ir/ir.h"

namespace aotc::ir {

// The runtime kernel that can compute `loop` (aotc_dot_f32, aotc_dot_s8_s8,
// aotc_dot_u8_u8, aotc_dot_u8_s8), or "" if it is not a dot product one of them computes.
std::string dot_product_kernel(const ForNode* loop);

// Replaces each loop annotated `tensorize` by its kernel call.
Stmt tensorize(const Stmt& s);

}  // namespace aotc::ir
