/* cascade.c: the wake-word cascade of tests/models/control_flow/cascade on a Cortex-M core.
 *
 * The model is an ONNX If: a detector computes `score`; only when it is above 0.5 does
 * the verifier branch run (output = its softmax), else output = zeros. aotc compiles the
 * If to a C if/else. torch's reference cases (both sides of the threshold) are compiled
 * in (data_cascade.c); for each, main runs cascade_run once and checks `output` and
 * `score` within float_check.h's tolerance. It prints over semihosting
 *
 *   case K: score S, verifier ran|skipped, output (A, B): match|MISMATCH
 *   result: PASS|FAIL (M of N cases match: R with the verifier, S without)
 *
 * and returns 0 only if every case matched. "ran" means that the output is not zero:
 * torch's output is zeros exactly when the verifier was skipped, so matching it on every
 * case means the core took the branch torch took. */
#include <stdint.h>
#include <stdio.h>

#include "cascade.h"
#include "float_check.h"

#define X_COUNT (CASCADE_INPUT_X_SIZE / sizeof(float))
#define OUTPUT_COUNT (CASCADE_OUTPUT_OUTPUT_SIZE / sizeof(float))
#define SCORE_COUNT (CASCADE_OUTPUT_SCORE_SIZE / sizeof(float))

/* data_cascade.c */
extern const unsigned case_count;
extern const unsigned char* const case_x[];
extern const unsigned case_x_bytes[];
extern const unsigned char* const case_output[];
extern const unsigned case_output_bytes[];
extern const unsigned char* const case_score[];
extern const unsigned case_score_bytes[];

void SysTick_Handler(void); /* startup_mps2.c's vector table wants one */
void SysTick_Handler(void) {}

int main(void) {
  static float x[X_COUNT], output[OUTPUT_COUNT], score[SCORE_COUNT];
  static float want_output[OUTPUT_COUNT], want_score[SCORE_COUNT];
  struct cascade_inputs in;
  struct cascade_outputs out;
  unsigned k, passed = 0, verified = 0;
  in.x = x;
  out.output = output;
  out.score = score;
  for (k = 0; k < case_count; ++k) {
    int32_t status;
    int ok, ran;
    if (!load_floats(x, X_COUNT, case_x[k], case_x_bytes[k]) ||
        !load_floats(want_output, OUTPUT_COUNT, case_output[k], case_output_bytes[k]) ||
        !load_floats(want_score, SCORE_COUNT, case_score[k], case_score_bytes[k]))
      return 2;
    poison_floats(output, OUTPUT_COUNT);
    poison_floats(score, SCORE_COUNT);
    status = cascade_run(&in, &out);
    ran = output[0] != 0.0f || output[1] != 0.0f;
    printf("case %u: score %.7g, verifier %s, output", k, (double)score[0], ran ? "ran" : "skipped");
    print_floats(output, OUTPUT_COUNT);
    printf(": ");
    if (status != 0) printf("status %d\n", (int)status);
    ok = status == 0 && floats_close("score", score, want_score, SCORE_COUNT) &&
         floats_close("output", output, want_output, OUTPUT_COUNT);
    if (ok) {
      printf("match\n");
      passed++;
      verified += (unsigned)ran;
    }
  }
  printf("result: %s (%u of %u cases match: %u with the verifier, %u without)\n",
         passed == case_count ? "PASS" : "FAIL", passed, case_count, verified, passed - verified);
  fflush(stdout);
  return passed == case_count ? 0 : 1;
}
