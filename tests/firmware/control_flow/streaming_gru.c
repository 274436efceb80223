/* streaming_gru.c: the streaming GRU of tests/models/control_flow/streaming_gru on a
 * Cortex-M core, its state kept inside the generated code.
 *
 * The model takes a chunk and the GRU state and gives a score and the next state;
 * compiled with STATES state_in=state_out, the state is a static array of the generated
 * code (STREAM_STATE_SIZE bytes): stream_run takes only the chunk and gives only the
 * score, and stream_reset() zeroes the state. torch ran the stream one chunk per call,
 * feeding each call's state to the next; its chunks and scores are compiled in
 * (data_streaming_gru.c). main runs the whole stream twice, each time after
 * stream_reset(), and checks every chunk's score within float_check.h's tolerance: the
 * first pass shows the state carried from chunk to chunk, the second that the reset
 * really starts a new stream (without it, the second pass would start from the first's
 * final state). It prints over semihosting
 *
 *   stream P chunk I: score (A, B, C, D): match|MISMATCH
 *   result: PASS|FAIL (M of 2 x N chunks match)
 *
 * and returns 0 only if every chunk matched. */
#include <stdint.h>
#include <stdio.h>

#include "float_check.h"
#include "stream.h"

#define CHUNK_COUNT (STREAM_INPUT_CHUNK_SIZE / sizeof(float))
#define SCORE_COUNT (STREAM_OUTPUT_SCORE_SIZE / sizeof(float))
#define PASSES 2u

/* data_streaming_gru.c */
extern const unsigned chunk_count;
extern const unsigned char* const chunk_input[];
extern const unsigned chunk_input_bytes[];
extern const unsigned char* const chunk_score[];
extern const unsigned chunk_score_bytes[];

void SysTick_Handler(void); /* startup_mps2.c's vector table wants one */
void SysTick_Handler(void) {}

int main(void) {
  static float input[CHUNK_COUNT], score[SCORE_COUNT], want[SCORE_COUNT];
  struct stream_inputs in;
  struct stream_outputs out;
  unsigned pass, i, passed = 0;
  in.chunk = input;
  out.score = score;
  for (pass = 0; pass < PASSES; ++pass) {
    stream_reset();
    for (i = 0; i < chunk_count; ++i) {
      int32_t status;
      if (!load_floats(input, CHUNK_COUNT, chunk_input[i], chunk_input_bytes[i]) ||
          !load_floats(want, SCORE_COUNT, chunk_score[i], chunk_score_bytes[i]))
        return 2;
      poison_floats(score, SCORE_COUNT);
      status = stream_run(&in, &out);
      printf("stream %u chunk %u: score", pass, i);
      print_floats(score, SCORE_COUNT);
      printf(": ");
      if (status != 0) printf("status %d\n", (int)status);
      if (status == 0 && floats_close("score", score, want, SCORE_COUNT)) {
        printf("match\n");
        passed++;
      }
    }
  }
  printf("result: %s (%u of %u x %u chunks match)\n", passed == PASSES * chunk_count ? "PASS" : "FAIL", passed,
         PASSES, chunk_count);
  fflush(stdout);
  return passed == PASSES * chunk_count ? 0 : 1;
}
