/* Times one model compiled with `--name net`: reads the input (float32 raw), runs once and
 * writes the output (float32 raw), then times `runs` more runs one by one and prints the
 * median in milliseconds.
 *   harness INPUT.f32 OUTPUT.f32 RUNS
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "net.h"

static float input[NET_INPUT_INPUT_SIZE / 4], output[NET_OUTPUT_OUTPUT_SIZE / 4];

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  struct net_inputs in;
  struct net_outputs out;
  double* times;
  int runs, i;
  FILE* f;
  if (argc != 4 || (runs = atoi(argv[3])) < 1) return 2;
  f = fopen(argv[1], "rb");
  if (!f || fread(input, 1, sizeof input, f) != sizeof input) return 2;
  fclose(f);
  in.input = input;
  out.output = output;
  if (net_run(&in, &out) != 0) return 3;
  f = fopen(argv[2], "wb");
  if (!f || fwrite(output, 1, sizeof output, f) != sizeof output) return 2;
  fclose(f);
  times = (double*)malloc(sizeof(double) * (size_t)runs);
  for (i = 0; i < runs; ++i) {
    double start = now_ms();
    net_run(&in, &out);
    times[i] = now_ms() - start;
  }
  qsort(times, (size_t)runs, sizeof(double), by_value);
  printf("%.4f\n", times[runs / 2]);
  return 0;
}
