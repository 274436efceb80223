/* runtime_branch.c: one model of tests/models/control_flow/runtime_branches on a Cortex-M
 * core, every case checked against ONNX Runtime.
 *
 * The models' If is decided at run time (or their Loop body runs as a C for), so the
 * kernels of a branch or body run inside the C if/for: the bug of issue #26 (Silero VAD
 * v4) was that such kernels were lowered with the main graph and the LSTMs' hidden-state
 * outputs never written. One program serves every model, compiled as it is or with
 * IO_IN_ARENA: fw_model.h and fw_data.c, which
 * examples/firmware/cmake/generate_test_data.cmake writes at build time from the model's
 * metadata.json, bind the generated structs to buffers (with IO_IN_ARENA, copy the data in
 * and out of the model's activation memory: fw_model_bind, fw_model_collect) and hold each
 * case's inputs and ONNX Runtime's outputs (the .bin files of cases.json, concatenated per
 * case at configure time). For every case main fills the outputs with NaNs, runs
 * <name>_run once and compares every float32 output with the reference within the
 * tolerance below. It prints over semihosting
 *
 *   model M case K: status S
 *   model M case K output J: N values, largest error R of the tolerance (value I: G, ONNX
 *       Runtime W): match|MISMATCH
 *   result: PASS|FAIL (C of N cases match)
 *
 * where R is max |got - want| / (atol + rtol |want|) (a NaN counts as infinite), reached at
 * value I (G the core's, W ONNX Runtime's), and returns 0 only if every case ran with
 * status 0 and every output matched.
 *
 * Tolerance: rtol 1e-4, atol 1e-6, the host test's (RunTimeBranchesMatchOnnxRuntime in
 * tests/e2e/test_control_flow.cc). The core computes in single precision like the host
 * build and ONNX Runtime; what differs is the order of the sums, the fused multiply-adds
 * the compilers may emit (vfma), and newlib's expf/tanhf against ONNX Runtime's own
 * sigmoid/tanh. Measured on mps2-an386 (gcc and clang give the same values): differences
 * of at most 1.2e-7 on outputs of magnitude up to 1.05, the largest relative one 9e-6 on
 * an LSTM state of 0.0033 (the result of cancellations), all at most 0.0225 of the
 * tolerance. float32's epsilon is 1.2e-7, so rtol 1e-4 (840 units in the last place) leaves
 * room for other inputs and compilers, while what the tests are for is far outside it: an
 * output a branch never writes stays NaN, and with aotc before the fix of issue #26 TopK's
 * values came out 0 for 13. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fw_model.h"

#define FLOAT_CHECK_RTOL 1e-4f
#define FLOAT_CHECK_ATOL 1e-6f
#include "float_check.h"

void SysTick_Handler(void); /* startup_mps2.c's vector table wants one */
void SysTick_Handler(void) {}

/* Output j of case k against ONNX Runtime's; 1 if it matches. */
static int check_output(uint32_t k, uint32_t j) {
  static float got[4096], want[4096];
  const uint32_t count = fw_output_bytes[j] / sizeof(float);
  size_t worst;
  float ratio;
  if (!fw_output_float32[j] || count > sizeof want / sizeof want[0]) {
    printf("model %s case %u output %u: not float32, or more than %u values: not compared\n", FW_MODEL_NAME,
           (unsigned)k, (unsigned)j, (unsigned)(sizeof want / sizeof want[0]));
    return 0;
  }
  if (!load_floats(got, count, fw_output_buffers[j], fw_output_bytes[j]) ||
      !load_floats(want, count, fw_case_expected[k] + fw_output_offsets[j], fw_output_bytes[j]))
    return 0;
  ratio = largest_error_ratio(got, want, count, &worst);
  printf("model %s case %u output %u: %u values, largest error %.3g of the tolerance (value %u: %.9g, ONNX Runtime "
         "%.9g): %s\n",
         FW_MODEL_NAME, (unsigned)k, (unsigned)j, (unsigned)count, (double)ratio, (unsigned)worst, (double)got[worst],
         (double)want[worst], ratio <= 1.0f ? "match" : "MISMATCH");
  return ratio <= 1.0f;
}

int main(void) {
  uint32_t k, j, passed = 0;
  for (k = 0; k < FW_CASE_COUNT; ++k) {
    struct fw_model model;
    int32_t status;
    int ok;
    for (j = 0; j < FW_INPUT_COUNT; ++j)
      memcpy(fw_input_buffers[j], fw_case_inputs[k] + fw_input_offsets[j], fw_input_bytes[j]);
    for (j = 0; j < FW_OUTPUT_COUNT; ++j) memset(fw_output_buffers[j], 0xFF, fw_output_bytes[j]); /* NaNs */
    fw_model_bind(&model);
    status = FW_MODEL_RUN(&model);
    fw_model_collect(&model);
    printf("model %s case %u: status %d\n", FW_MODEL_NAME, (unsigned)k, (int)status);
    ok = status == 0;
    for (j = 0; j < FW_OUTPUT_COUNT; ++j) ok &= check_output(k, j);
    passed += (uint32_t)ok;
  }
  printf("result: %s (%u of %u cases match)\n", passed == FW_CASE_COUNT ? "PASS" : "FAIL", (unsigned)passed,
         (unsigned)FW_CASE_COUNT);
  fflush(stdout);
  return passed == FW_CASE_COUNT ? 0 : 1;
}
