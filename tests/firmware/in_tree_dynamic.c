/* in_tree_dynamic.c: aotc_add_model(... DIMS N=2) binds the dynamic batch of a model
 * whose input is x: [N, 4] (tests/models/bad/dynamic_shape.onnx, a Relu): the header
 * has the bound size, and the model computes max(x, 0). Exit status 0 on success. */
#include <stdio.h>

#include "dyn.h"

int main(void) {
  static float x[8] = {-1, 2, -3, 4, 5, -6, 7, -8};
  static float y[8];
  static const float want[8] = {0, 2, 0, 4, 5, 0, 7, 0};
  struct dyn_inputs in;
  struct dyn_outputs out;
  int i;
  if (DYN_INPUT_X_SIZE != sizeof x) {
    fprintf(stderr, "DYN_INPUT_X_SIZE is %d, expected %d\n", (int)DYN_INPUT_X_SIZE, (int)sizeof x);
    return 1;
  }
  in.x = x;
  out.y = y;
  if (dyn_run(&in, &out) != 0) return 1;
  for (i = 0; i < 8; ++i) {
    if (y[i] != want[i]) {
      fprintf(stderr, "y[%d] = %g, expected %g\n", i, (double)y[i], (double)want[i]);
      return 1;
    }
  }
  return 0;
}
