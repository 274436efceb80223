/* Runs person_detect_vela compiled for cortex-m55-ethos-u55 (model prefix `pd`) against the
 * stand-in Ethos-U driver and checks the one call the model makes:
 *   harness STREAM WEIGHTS SCRATCH_BYTES SCRATCH_FAST_BYTES
 * STREAM and WEIGHTS hold what the .tflite file has in the ethos-u operator's command
 * stream and weights tensors, the sizes those of its two scratch tensors (the test reads
 * them from the file). Exit status 0 when every check passes; each failure is printed.
 *
 * A firmware image (tests/firmware/ethos_u) has no command line: its startup code calls
 * main(void), the four arguments are compiled in (HARNESS_STREAM, HARNESS_WEIGHTS,
 * HARNESS_SCRATCH, HARNESS_SCRATCH_FAST) and the files are read over semihosting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aotc_runtime.h"
#include "pd.h"
#include "stand_in_driver.h"

static int failures = 0;

#define CHECK(condition)                                               \
  do {                                                                 \
    if (!(condition)) {                                                \
      printf("check failed, line %d: %s\n", __LINE__, #condition);     \
      ++failures;                                                      \
    }                                                                  \
  } while (0)

static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* bytes;
  long n;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    printf("cannot read %s\n", path);
    exit(2);
  }
  bytes = (unsigned char*)malloc((size_t)n + 1);
  if (bytes == NULL || fread(bytes, 1, (size_t)n, f) != (size_t)n) exit(2);
  fclose(f);
  *size = (size_t)n;
  return bytes;
}

/* Whether [a, a + an) and [b, b + bn) share a byte. */
static int overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) { return a < b + bn && b < a + an; }

static uint8_t input_storage[PD_INPUT_INPUT_SIZE + 32];
static uint8_t output_storage[PD_OUTPUT_MOBILENETV1_PREDICTIONS_RESHAPE_1_SIZE + 32];

static int harness(int argc, const char* const* argv) {
  volatile uint8_t main_local = 0;
  size_t stream_size, weights_size, i;
  unsigned char *stream, *weights;
  uint64_t scratch_sizes[2];
  int8_t *input, *output;
  struct pd_inputs in;
  struct pd_outputs out;
  int32_t status;
  if (argc != 5) {
    printf("usage: harness STREAM WEIGHTS SCRATCH_BYTES SCRATCH_FAST_BYTES\n");
    return 2;
  }
  stream = read_file(argv[1], &stream_size);
  weights = read_file(argv[2], &weights_size);
  scratch_sizes[0] = strtoull(argv[3], NULL, 10);
  scratch_sizes[1] = strtoull(argv[4], NULL, 10);
  input = (int8_t*)(input_storage + (16 - (uintptr_t)input_storage % 16) % 16);
  output = (int8_t*)(output_storage + (16 - (uintptr_t)output_storage % 16) % 16);
  for (i = 0; i < PD_INPUT_INPUT_SIZE; ++i) input[i] = (int8_t)(i * 13u);
  memset(output, 0, PD_OUTPUT_MOBILENETV1_PREDICTIONS_RESHAPE_1_SIZE);
  in.input = input;
  out.MobilenetV1_Predictions_Reshape_1 = output;

  status = pd_run(&in, &out);
  CHECK(status == 0);
  CHECK(stand_in.reserved == 1 && stand_in.invoked == 1 && stand_in.released == 1);
  CHECK(stand_in.reserved_while_invoking);
  /* The stream, byte for byte. */
  CHECK(stand_in.stream_size == (int)stream_size);
  CHECK(stand_in.stream != NULL && memcmp(stand_in.stream, stream, stream_size) == 0);
  /* The table: weights, scratch, scratch_fast, input, output, as TFLite Micro builds it. */
  CHECK(stand_in.count == 5);
  CHECK(stand_in.sizes[0] == weights_size && memcmp((const void*)(uintptr_t)stand_in.bases[0], weights, weights_size) == 0);
  CHECK(stand_in.sizes[1] == scratch_sizes[0] && stand_in.sizes[2] == scratch_sizes[1]);
  CHECK(stand_in.bases[3] == (uint64_t)(uintptr_t)input && stand_in.sizes[3] == PD_INPUT_INPUT_SIZE);
  CHECK(stand_in.bases[4] == (uint64_t)(uintptr_t)output &&
        stand_in.sizes[4] == PD_OUTPUT_MOBILENETV1_PREDICTIONS_RESHAPE_1_SIZE);
  for (i = 0; i < 5; ++i) CHECK(stand_in.bases[i] % 16 == 0);
  /* Scratch: apart from everything else, and not on the stack between main and the driver. */
  for (i = 1; i <= 2; ++i) {
    size_t j;
    uint64_t low = (uint64_t)stand_in.invoke_stack - 4096, high = (uint64_t)(uintptr_t)&main_local + 4096;
    CHECK(!overlap(stand_in.bases[i], stand_in.sizes[i], low, high - low));
    for (j = 0; j < 5; ++j)
      if (j != i) CHECK(!overlap(stand_in.bases[i], stand_in.sizes[i], stand_in.bases[j], stand_in.sizes[j]));
  }
  /* What the device wrote is the model's output. */
  for (i = 0; i < PD_OUTPUT_MOBILENETV1_PREDICTIONS_RESHAPE_1_SIZE; ++i) CHECK(output[i] == STAND_IN_OUTPUT_BYTE);

  /* A misaligned input never reaches the NPU. */
  in.input = input + 1;
  CHECK(pd_run(&in, &out) == AOTC_ERR_INVALID_ARGUMENT);
  CHECK(stand_in.invoked == 1);

  printf("%s: %d checks failed\n", failures ? "FAIL" : "ok", failures);
  printf("result: %s\n", failures ? "FAIL" : "PASS");
  free(stream);
  free(weights);
  return failures ? 1 : 0;
}

#if defined(HARNESS_STREAM)
void SysTick_Handler(void); /* the firmware's vector table wants one */
void SysTick_Handler(void) {}

int main(void) {
  const char* const argv[] = {"harness", HARNESS_STREAM, HARNESS_WEIGHTS, HARNESS_SCRATCH, HARNESS_SCRATCH_FAST};
  return harness(5, argv);
}
#else
int main(int argc, char** argv) { return harness(argc, (const char* const*)argv); }
#endif
