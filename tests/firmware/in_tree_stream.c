/* in_tree_stream.c: aotc_add_model(... STATES state_in=state_out) makes the GRU state of
 * tests/models/control_flow/streaming_gru one state inside the generated code. Over the
 * stream of 12 chunks in argv[1] (chunk_K.bin), each score must match torch's
 * (score_K.bin, run chunk by chunk with the state carried) within 1e-3 relative + 1e-5,
 * and the scores must change along the stream (the state carries over); after
 * stream_reset() the first chunk gives the first score again. Exit status 0 on success.
 * tests/e2e/test_control_flow.cc builds it too, on `aotc compile --name stream --state`. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stream.h"

static int read_file(const char* dir, const char* name, int k, void* data, size_t bytes) {
  char path[1024];
  FILE* f;
  size_t n;
  snprintf(path, sizeof path, "%s/%s_%d.bin", dir, name, k);
  f = fopen(path, "rb");
  if (!f) return 0;
  n = fread(data, 1, bytes, f);
  fclose(f);
  return n == bytes;
}

int main(int argc, char** argv) {
  static float chunk[16], score[4], want[4], first[4];
  struct stream_inputs in;
  struct stream_outputs out;
  int k, i;
  if (argc != 2 || STREAM_INPUT_COUNT != 1 || STREAM_STATE_SIZE != 2 * 128) return 2; /* two buffers of the 32-float state */
  in.chunk = chunk;
  out.score = score;
  for (k = 0; k < 13; ++k) {
    int chunk_index = k < 12 ? k : 0;
    if (k == 12) stream_reset();
    if (!read_file(argv[1], "chunk", chunk_index, chunk, sizeof chunk) ||
        !read_file(argv[1], "score", chunk_index, want, sizeof want))
      return 3;
    if (stream_run(&in, &out) != 0) return 4;
    if (k == 0) memcpy(first, score, sizeof score);
    if (k == 5 && memcmp(first, score, sizeof score) == 0) {
      fprintf(stderr, "chunk 5 gives chunk 0's score: the state does not carry over\n");
      return 1;
    }
    for (i = 0; i < 4; ++i) {
      if (fabs((double)score[i] - want[i]) > 1e-5 + 1e-3 * fabs((double)want[i])) {
        fprintf(stderr, "chunk %d: score[%d] = %g, torch %g\n", k, i, (double)score[i], (double)want[i]);
        return 1;
      }
    }
  }
  if (memcmp(first, score, sizeof score) != 0) {
    fprintf(stderr, "after stream_reset() the first chunk gives another score\n");
    return 1;
  }
  return 0;
}
