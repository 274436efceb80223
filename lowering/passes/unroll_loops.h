// UnrollLoops: replaces a loop annotated `unroll` (a constant extent) by one copy of its
// body per iteration, in order, with the loop variable replaced by the iteration's value:
//   for (kw, 0, 3) [unroll] { acc[0] = (acc[0] + (X[c, (oh + kh), (ow + kw)] * W[m, c, kh, kw])) }
// becomes three statements reading X[c, (oh + kh), ow], X[c, (oh + kh), (ow + 1)], ...
// (Simplify then folds the constants). gcc -O2 does not unroll loops, and on a Cortex-M a
// kernel window's three taps otherwise pay a compare, a branch and an index computation
// each. The statements run in the loop's order, so nothing else changes. A loop whose
// extent is not a constant keeps running as a loop.
#pragma once

#include "lowering/ir/ir.h"

namespace aotc::ir {

Stmt unroll_loops(const Stmt& s);

}  // namespace aotc::ir
