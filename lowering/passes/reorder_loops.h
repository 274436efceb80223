// ReorderLoops: interchanges a loop annotated `reorder` with the loop that is its body.
//
// A kernel that writes Y[j, i] from `for (i) { for (j) { ... } }` strides through Y's
// rows in its inner loop; after the interchange the inner loop walks Y's last, contiguous
// dimension: fewer cache misses on a host, and on a microcontroller a constant step that
// a post-incremented load or store takes for free.
//
// The interchange must not change a result. reorder_is_legal checks what makes every
// iteration's effect independent of the order of the others, or at least each element's
// sequence of updates the same in both orders:
//   - the inner loop's bounds do not depend on the outer loop's variable;
//   - the inner body consists of Stores (in Seqs) and nothing else, and calls no runtime
//     function with an address (which could write anything);
//   - each buffer is stored by one Store, whose every index is the outer variable, the
//     inner variable, or free of both, with each variable at most once: so an element is
//     written by one iteration, or by the iterations of one loop only, which visit it in
//     the same order either way (a float sum over one loop is formed in the same order);
//     an element written by every iteration of both loops is refused;
//   - the body reads a stored buffer only at the element the same iteration stores.
// A loop whose annotation is not legal is left as it is (and loses the annotation).
#pragma once

#include "lowering/ir/ir.h"

namespace aotc::ir {

// Whether `outer` and the loop that is its whole body may be interchanged (see above).
bool reorder_is_legal(const ForNode* outer);

Stmt reorder_loops(const Stmt& s);

}  // namespace aotc::ir
