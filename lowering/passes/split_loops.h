// SplitLoops: splits a loop annotated `split F` into an outer loop over blocks of F
// iterations and an inner loop of F, plus a tail loop for the rest when the extent is not
// a multiple of F:
//   for (k, 0, 10) [split 4, unroll inner] { body(k) }
// becomes
//   for (k.outer, 0, 2) { for (k.inner, 0, 4) [unroll] { body(k.outer * 4 + k.inner) } }
//   for (k.tail, 0, 2) [unroll] { body(k.tail + 8) }
// The iterations run in the same order as before, so no result changes (a float sum
// adds the same products in the same order). With `unroll`, the inner and tail loops are
// marked for unroll_loops: a body written out F times per outer iteration, which on a
// microcontroller saves the loop's compare and branch and lets the compiler fold the
// constant offsets into its loads. Only loops with a constant extent larger than F split.
#pragma once

#include "lowering/ir/ir.h"

namespace aotc::ir {

Stmt split_loops(const Stmt& s);

}  // namespace aotc::ir
