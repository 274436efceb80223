/* Runs a model compiled with `--name stream --state ...` over an audio file chunk by
 * chunk (the state stays inside the generated code) and compares each run's output with
 * a reference file, within rtol 1e-3 and atol 1e-5; then stream_reset() and the first
 * chunk again must give the first output again. A model whose sample rate `sr` is an
 * input (not bound) gets STREAM_SAMPLE_RATE (-DSTREAM_SAMPLE_RATE=8000; 16000 if not set).
 *   stream_harness AUDIO.f32 REFERENCE.f32     (exit status 0: every output matches)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stream.h"

#define CHUNK (STREAM_INPUT_INPUT_SIZE / 4)
#ifndef STREAM_SAMPLE_RATE
#define STREAM_SAMPLE_RATE 16000
#endif

static float* read_floats(const char* path, long* count) {
  FILE* f = fopen(path, "rb");
  float* data;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *count = ftell(f) / 4;
  fseek(f, 0, SEEK_SET);
  data = (float*)malloc((size_t)*count * 4 + 4);
  if (data && fread(data, 4, (size_t)*count, f) != (size_t)*count) *count = 0;
  fclose(f);
  return data;
}

static int close_enough(float got, float want) { return fabsf(got - want) <= 1e-5f + 1e-3f * fabsf(want); }

int main(int argc, char** argv) {
  long samples = 0, references = 0, k, worst = 0;
  float *audio, *reference, output[STREAM_OUTPUT_OUTPUT_SIZE / 4], first = 0, worst_error = 0;
  struct stream_inputs in;
  struct stream_outputs out;
  int failures = 0;
  if (argc != 3) return 2;
  audio = read_floats(argv[1], &samples);
  reference = read_floats(argv[2], &references);
  if (!audio || !reference || samples / CHUNK != references) {
    fprintf(stderr, "%ld samples (%ld chunks of %d), %ld reference outputs\n", samples, samples / CHUNK, CHUNK, references);
    return 2;
  }
  out.output = output;
#ifdef STREAM_INPUT_SR_SIZE
  {
    static int64_t rate = STREAM_SAMPLE_RATE;
    in.sr = &rate;
  }
#endif
  for (k = 0; k < references; ++k) {
    float error;
    in.input = audio + k * CHUNK;
    if (stream_run(&in, &out) != 0) return 3;
    if (k == 0) first = output[0];
    error = fabsf(output[0] - reference[k]);
    if (error > worst_error) worst_error = error, worst = k;
    if (!close_enough(output[0], reference[k])) {
      printf("chunk %ld: %.7f, reference %.7f\n", k, (double)output[0], (double)reference[k]);
      ++failures;
    }
  }
  stream_reset();
  in.input = audio;
  if (stream_run(&in, &out) != 0 || output[0] != first) {
    printf("after stream_reset: %.7f, first run gave %.7f\n", (double)output[0], (double)first);
    ++failures;
  }
  printf("%ld chunks of %d samples: %s (largest difference %.3g, chunk %ld)\n", references, CHUNK,
         failures ? "MISMATCH" : "all within rtol 1e-3, atol 1e-5 of ONNX Runtime", (double)worst_error, worst);
  return failures ? 1 : 0;
}
