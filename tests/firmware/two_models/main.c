/* main.c: runs two int8 aotc-generated models, kws and ad, in one Cortex-M4 image and
 * checks each output against TensorFlow Lite Micro's reference bytes (both compiled for
 * aotc's reference NPU, whose one driver they share: their buffers are 16-byte aligned for
 * it); and a float one,
 * img (a softmax at its end), against TFLM's float outputs within 1e-5 + 1e-3 |want|
 * (newlib's expf need not round like glibc's). Prints over semihosting (the int8 outputs
 * in hex too) and returns 0 only if all three match (startup_mps2.c passes the status to
 * QEMU). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ad.h"
#include "img.h"
#include "kws.h"

/* The NPU reads and writes these buffers by DMA (see aotc_npu.h). */
#define NPU_ALIGNED __attribute__((aligned(16)))

extern const unsigned char kws_input[KWS_INPUT_INPUT_1_SIZE];
extern const unsigned char kws_expected[KWS_OUTPUT_IDENTITY_SIZE];
extern const unsigned char ad_input[AD_INPUT_INPUT_1_SIZE];
extern const unsigned char ad_expected[AD_OUTPUT_IDENTITY_SIZE];
extern const unsigned char img_input[IMG_INPUT_INPUT_1_SIZE];
extern const unsigned char img_expected[IMG_OUTPUT_IDENTITY_SIZE];

void SysTick_Handler(void); /* startup_mps2.c's vector table wants one */
void SysTick_Handler(void) {}

/* Prints "<name> output: <hex>" (for the test script's own comparison with the reference
 * file) and "<name>: status S, match|MISMATCH". */
static int check(const char* name, int32_t status, const int8_t* output,
                 const unsigned char* expected, size_t size) {
  size_t i;
  int ok = status == 0 && memcmp(output, expected, size) == 0;
  printf("%s output: ", name);
  for (i = 0; i < size; ++i) printf("%02x", (unsigned)(uint8_t)output[i]);
  printf("\n%s: status %d, %s\n", name, (int)status, ok ? "match" : "MISMATCH");
  return ok;
}

/* The float model's output against img_expected: prints the first value out of tolerance,
 * and "img: status S, match|MISMATCH". */
static int check_img(int32_t status, const float* output) {
  static float expected[IMG_OUTPUT_IDENTITY_SIZE / sizeof(float)];
  size_t i;
  int ok = status == 0;
  memcpy(expected, img_expected, sizeof expected);
  for (i = 0; i < sizeof expected / sizeof expected[0] && ok; ++i) {
    if (!(fabsf(output[i] - expected[i]) <= 1e-5f + 1e-3f * fabsf(expected[i]))) {
      printf("img output %u: %.9g, expected %.9g\n", (unsigned)i, (double)output[i], (double)expected[i]);
      ok = 0;
    }
  }
  printf("img: status %d, %s\n", (int)status, ok ? "match" : "MISMATCH");
  return ok;
}

int main(void) {
  static int8_t kws_in[KWS_INPUT_INPUT_1_SIZE] NPU_ALIGNED;
  static int8_t kws_out[KWS_OUTPUT_IDENTITY_SIZE] NPU_ALIGNED;
  static int8_t ad_in[AD_INPUT_INPUT_1_SIZE] NPU_ALIGNED;
  static int8_t ad_out[AD_OUTPUT_IDENTITY_SIZE] NPU_ALIGNED;
  struct kws_inputs kin;
  struct kws_outputs kout;
  struct ad_inputs ain;
  struct ad_outputs aout;
  static float img_in[IMG_INPUT_INPUT_1_SIZE / sizeof(float)];
  static float img_out[IMG_OUTPUT_IDENTITY_SIZE / sizeof(float)];
  struct img_inputs iin;
  struct img_outputs iout;
  int ok;

  memcpy(kws_in, kws_input, sizeof kws_in);
  memcpy(ad_in, ad_input, sizeof ad_in);
  kin.input_1 = kws_in;
  kout.Identity = kws_out;
  ain.input_1 = ad_in;
  aout.Identity = ad_out;
  memcpy(img_in, img_input, sizeof img_in);
  iin.input_1 = img_in;
  iout.Identity = img_out;

  ok = check("kws", kws_run(&kin, &kout), kws_out, kws_expected, sizeof kws_out);
  ok &= check("ad", ad_run(&ain, &aout), ad_out, ad_expected, sizeof ad_out);
  ok &= check_img(img_run(&iin, &iout), img_out);
  printf("result: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
