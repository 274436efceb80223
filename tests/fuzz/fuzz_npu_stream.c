/* libFuzzer harness of the reference NPU driver (runtime-c/npu/aotc_npu_ref.c): any bytes as
 * a command stream, over a region table that the input also chooses.
 *
 * Input: byte 0, the region count (mod 6); per region 3 bytes, its size (16 bits mod
 * 2049) and flags: bit 0 read-only, bit 1 a null base, bit 2 a base one byte past 16-byte
 * alignment, bit 3 the previous region's memory (an alias; the size is cut to fit);
 * then the stream's length (16 bits, cut to what is left), the stream, and the regions'
 * contents in order (zeros once the input ends). tests/fuzz/npu_stream_seeds.c writes
 * valid inputs in this form.
 *
 * Each region is a block of exactly its size, so AddressSanitizer reports any access
 * past it. Besides the sanitizers' findings, a job aborts (a finding) when validate and
 * execute disagree, when a rejected job changed any byte, or when a read-only region
 * changed (through no alias of a writable one). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aotc_npu_ref.h"

#define MAX_REGIONS 6
#define MAX_REGION_BYTES 2048u

enum { FLAG_READ_ONLY = 1, FLAG_NULL = 2, FLAG_MISALIGNED = 4, FLAG_ALIAS = 8 };

typedef struct input {
  const uint8_t* data;
  size_t size;
  size_t at;
} input;

static uint32_t take(input* in, int bytes) {
  uint32_t value = 0;
  int i;
  for (i = 0; i < bytes; ++i) value |= (uint32_t)(in->at < in->size ? in->data[in->at++] : 0) << (8 * i);
  return value;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  input in = {data, size, 0};
  aotc_npu_region regions[MAX_REGIONS];
  uint8_t* blocks[MAX_REGIONS] = {0};
  uint8_t* before[MAX_REGIONS] = {0};
  uint32_t flags[MAX_REGIONS] = {0};
  uint32_t count = take(&in, 1) % MAX_REGIONS, i, length;
  const uint8_t* stream;
  uint8_t* stream_copy;
  int32_t validated, executed;
  for (i = 0; i < count; ++i) {
    uint32_t bytes = take(&in, 2) % (MAX_REGION_BYTES + 1);
    flags[i] = take(&in, 1);
    regions[i].flags = flags[i] & FLAG_READ_ONLY ? AOTC_NPU_REGION_READ_ONLY : 0u;
    if ((flags[i] & FLAG_ALIAS) && i > 0) {
      regions[i].base = regions[i - 1].base;
      regions[i].size = bytes < regions[i - 1].size ? bytes : regions[i - 1].size;
    } else if (flags[i] & FLAG_NULL) {
      regions[i].base = NULL;
      regions[i].size = bytes;
    } else {
      uint32_t skip = flags[i] & FLAG_MISALIGNED ? 1u : 0u;
      blocks[i] = (uint8_t*)malloc(bytes + skip + (bytes + skip == 0));
      if (blocks[i] == NULL) abort();
      regions[i].base = blocks[i] + skip;
      regions[i].size = bytes;
    }
  }
  length = take(&in, 2);
  if (length > in.size - in.at) length = (uint32_t)(in.size - in.at);
  stream = in.data + in.at;
  in.at += length;
  /* The stream in a block of its own: reading past its end is a finding. */
  stream_copy = (uint8_t*)malloc(length == 0 ? 1 : length);
  if (stream_copy == NULL) abort();
  memcpy(stream_copy, stream, length);
  for (i = 0; i < count; ++i) {
    uint32_t j;
    if (blocks[i] == NULL) continue;
    for (j = 0; j < regions[i].size; ++j) ((uint8_t*)regions[i].base)[j] = (uint8_t)take(&in, 1);
    before[i] = (uint8_t*)malloc(regions[i].size + 1);
    if (before[i] == NULL) abort();
    memcpy(before[i], regions[i].base, regions[i].size);
  }

  validated = aotc_npu_ref_validate(stream_copy, length, regions, count);
  executed = aotc_npu_ref_execute(stream_copy, length, regions, count);
  if (validated != executed || executed > 0 || executed < AOTC_NPU_REF_ERR_PARAMETER) abort();
  for (i = 0; i < count; ++i) {
    /* A block shares its memory with the aliases that follow it. */
    int writable_alias = 0, unchanged;
    uint32_t k;
    if (before[i] == NULL) continue;
    for (k = i + 1; k < count && (flags[k] & FLAG_ALIAS); ++k) writable_alias |= !(flags[k] & FLAG_READ_ONLY);
    unchanged = memcmp(before[i], regions[i].base, regions[i].size) == 0;
    if (!unchanged && (executed != AOTC_NPU_REF_OK || ((flags[i] & FLAG_READ_ONLY) && !writable_alias))) abort();
  }
  for (i = 0; i < count; ++i) {
    free(blocks[i]);
    free(before[i]);
  }
  free(stream_copy);
  return 0;
}
