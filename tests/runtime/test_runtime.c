/* Tests for the C runtime in runtime-c/: the LIFO workspace allocator, its size macros,
 * the TVM-compatible entry points and the DLTensor helpers.
 *
 * Every expectation is written in terms of AOTC_WORKSPACE_ALIGNMENT, so the same tests run
 * with the default alignment and with the -DAOTC_WORKSPACE_ALIGNMENT=N builds of
 * tests/runtime/CMakeLists.txt (which also pass AOTC_TEST_ALIGNMENT=N, the value expected).
 *
 * Prints "N passed, N failed" and exits non-zero if anything failed (check.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "aotc_dlpack.h"
#include "aotc_runtime.h"
#include "check.h"

CHECK_DEFINE_COUNTERS;

/* Every region below starts at most this many bytes past a boundary of this many bytes, a
 * multiple of every alignment tested. */
#define BOUNDARY 64
#if AOTC_WORKSPACE_ALIGNMENT > BOUNDARY
#error "test_runtime.c places regions relative to 64-byte boundaries: raise BOUNDARY"
#endif

#define ALIGNMENT ((size_t)AOTC_WORKSPACE_ALIGNMENT)
#define HEADER ((size_t)AOTC_WORKSPACE_HEADER_BYTES)

/* Room for every region below, placed at any offset below BOUNDARY from a boundary. */
static uint8_t storage[8192 + 2 * BOUNDARY];

/* A pointer `offset` bytes past a BOUNDARY-byte boundary inside `storage`. */
static uint8_t* region_at(size_t offset) {
  uintptr_t address = (uintptr_t)storage;
  size_t skip = (size_t)((BOUNDARY - address % BOUNDARY) % BOUNDARY);
  return storage + skip + offset;
}

static int is_aligned(const void* p) {
  return (uintptr_t)p % AOTC_WORKSPACE_ALIGNMENT == 0;
}

static void test_status_strings(void) {
  int32_t codes[] = {AOTC_OK,
                     AOTC_ERR_INVALID_ARGUMENT,
                     AOTC_ERR_WORKSPACE_EXHAUSTED,
                     AOTC_ERR_WORKSPACE_FREE_ORDER,
                     AOTC_ERR_WORKSPACE_CORRUPTED,
                     AOTC_ERR_TENSOR_MISMATCH};
  size_t n = sizeof(codes) / sizeof(codes[0]);
  size_t i, j;
  CHECK_EQ_INT(0, AOTC_OK);
  for (i = 0; i < n; ++i) {
    const char* s = aotc_status_string(codes[i]);
    CHECK(s != NULL && s[0] != '\0');
    CHECK(strcmp(s, "unknown status") != 0);
    for (j = 0; j < i; ++j) CHECK(strcmp(s, aotc_status_string(codes[j])) != 0);
  }
  CHECK(strcmp(aotc_status_string(12345), "unknown status") == 0);
  CHECK(strcmp(aotc_status_string(-1), "unknown status") == 0);
}

static void test_macros(void) {
  /* Two size_t rounded up to the alignment: both are powers of two, so the larger. */
  const size_t two_sizes = 2 * sizeof(size_t);
  const size_t expected_header = ALIGNMENT > two_sizes ? ALIGNMENT : two_sizes;
#ifdef AOTC_TEST_ALIGNMENT
  CHECK_EQ_INT(AOTC_TEST_ALIGNMENT, AOTC_WORKSPACE_ALIGNMENT);
#else
  CHECK_EQ_INT(16, AOTC_WORKSPACE_ALIGNMENT); /* the default */
#endif
  CHECK_EQ_INT(sizeof(size_t), AOTC_SIZE_T_BYTES);
  CHECK_EQ_INT(expected_header, AOTC_WORKSPACE_HEADER_BYTES);
  CHECK_EQ_INT(0, AOTC_WORKSPACE_HEADER_BYTES % AOTC_WORKSPACE_ALIGNMENT);
  CHECK_EQ_INT(0, AOTC_WORKSPACE_ALIGN_UP(0));
  CHECK_EQ_INT(ALIGNMENT, AOTC_WORKSPACE_ALIGN_UP(1));
  CHECK_EQ_INT(ALIGNMENT, AOTC_WORKSPACE_ALIGN_UP(ALIGNMENT));
  CHECK_EQ_INT(2 * ALIGNMENT, AOTC_WORKSPACE_ALIGN_UP(ALIGNMENT + 1));
  CHECK_EQ_INT(HEADER, AOTC_WORKSPACE_BLOCK_BYTES(0));
  CHECK_EQ_INT(HEADER + ALIGNMENT, AOTC_WORKSPACE_BLOCK_BYTES(1));
  CHECK_EQ_INT(HEADER + ALIGNMENT, AOTC_WORKSPACE_BLOCK_BYTES(ALIGNMENT));
  CHECK_EQ_INT(HEADER + 2 * ALIGNMENT, AOTC_WORKSPACE_BLOCK_BYTES(ALIGNMENT + 1));
  CHECK_EQ_INT(100 + ALIGNMENT - 1, AOTC_WORKSPACE_REGION_BYTES(100));
  {
    /* A block of 36 bytes as aotc's TargetFacts::workspace_block_bytes measures it for a
     * target of this alignment and word size (tests/unit/test_lower_builtin.cc checks the
     * compiler against the same figures). */
    static const struct {
      size_t alignment, size_t_bytes, block_bytes;
    } figures[] = {{4, 4, 8 + 36},  {8, 4, 8 + 40},  {16, 4, 16 + 48}, {32, 4, 32 + 64},
                   {4, 8, 16 + 36}, {8, 8, 16 + 40}, {16, 8, 16 + 48}, {32, 8, 32 + 64}};
    size_t i;
    for (i = 0; i < sizeof(figures) / sizeof(figures[0]); ++i) {
      if (figures[i].alignment == ALIGNMENT && figures[i].size_t_bytes == sizeof(size_t)) {
        CHECK_EQ_INT(figures[i].block_bytes, AOTC_WORKSPACE_BLOCK_BYTES(36));
      }
    }
  }
}

static void test_init(void) {
  aotc_workspace ws;
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_workspace_init(NULL, storage, 64));
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_workspace_init(&ws, NULL, 64));
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, NULL, 0));
  CHECK_EQ_INT(0, ws.size);
  CHECK(aotc_workspace_alloc(&ws, 0) == NULL);

#if AOTC_WORKSPACE_ALIGNMENT > 1
  /* A region smaller than its unaligned head (ALIGNMENT - 1 bytes) is empty but valid. */
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region_at(1), ALIGNMENT - 2));
  CHECK_EQ_INT(0, ws.size);
  CHECK(aotc_workspace_alloc(&ws, 0) == NULL);
#endif

  CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region_at(3), 100));
  CHECK(is_aligned(ws.base));
  CHECK(ws.base == region_at(AOTC_WORKSPACE_ALIGN_UP(3)));
  CHECK_EQ_INT(100 - (AOTC_WORKSPACE_ALIGN_UP(3) - 3), ws.size);
  CHECK_EQ_INT(0, ws.top);
  CHECK_EQ_INT(0, ws.peak);
  CHECK_EQ_INT(0, ws.live_blocks);
  CHECK(ws.last == AOTC_WORKSPACE_NO_BLOCK);

  CHECK(aotc_workspace_alloc(NULL, 1) == NULL);
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_workspace_free(NULL, storage));
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_workspace_reset(NULL));
}

static void test_alignment_and_disjoint_blocks(void) {
  static const size_t sizes[] = {1, 3, 17, 0, 100, 16, 33};
  const size_t count = sizeof(sizes) / sizeof(sizes[0]);
  size_t offset;
  for (offset = 0; offset < BOUNDARY; ++offset) {
    aotc_workspace ws;
    uint8_t* blocks[sizeof(sizes) / sizeof(sizes[0])];
    uint8_t* region = region_at(offset);
    const size_t region_size = 1024;
    size_t i, j;
    CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region, region_size));
    for (i = 0; i < count; ++i) {
      blocks[i] = (uint8_t*)aotc_workspace_alloc(&ws, sizes[i]);
      CHECK(blocks[i] != NULL);
      if (blocks[i] == NULL) return;
      CHECK(is_aligned(blocks[i]));
      CHECK(blocks[i] >= region && blocks[i] + sizes[i] <= region + region_size);
      if (i > 0) CHECK(blocks[i - 1] + sizes[i - 1] <= blocks[i]);
      memset(blocks[i], (int)(0xA0 + i), sizes[i]);
    }
    /* Filling later blocks did not touch earlier ones. */
    for (i = 0; i < count; ++i) {
      int intact = 1;
      for (j = 0; j < sizes[i]; ++j) intact &= blocks[i][j] == (uint8_t)(0xA0 + i);
      CHECK(intact);
    }
    CHECK_EQ_INT(count, ws.live_blocks);
    for (i = count; i > 0; --i) CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, blocks[i - 1]));
    CHECK_EQ_INT(0, ws.top);
    CHECK_EQ_INT(0, ws.live_blocks);
  }
}

static void test_exhaustion(void) {
  /* Room for blocks of 40 and 30 bytes and one more header: 128 bytes at alignment 16. */
  const size_t size = AOTC_WORKSPACE_BLOCK_BYTES(40) + AOTC_WORKSPACE_BLOCK_BYTES(30) + HEADER;
  aotc_workspace ws;
  aotc_workspace before;
  void* a;
  void* b;
  void* c;
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region_at(0), size));
  a = aotc_workspace_alloc(&ws, 40);
  b = aotc_workspace_alloc(&ws, 30);
  CHECK(a != NULL && b != NULL);
  before = ws;
  CHECK(aotc_workspace_alloc(&ws, 1) == NULL); /* needs HEADER + ALIGNMENT, HEADER left */
  CHECK(aotc_workspace_alloc(&ws, (size_t)-1) == NULL);
  CHECK(aotc_workspace_alloc(&ws, (size_t)-1 - 3) == NULL);
  CHECK(aotc_workspace_alloc(&ws, (size_t)-1 - HEADER) == NULL);
  /* A failed allocation changes nothing. */
  CHECK(memcmp(&before, &ws, sizeof ws) == 0);
  /* A zero-byte block needs only its header, which still fits. */
  c = aotc_workspace_alloc(&ws, 0);
  CHECK(c != NULL);
  CHECK_EQ_INT(size, ws.top);
  CHECK(aotc_workspace_alloc(&ws, 0) == NULL);
  /* Still usable after failures: free and reuse. What b and the last header took is one
   * block's payload now. */
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, c));
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, b));
  c = aotc_workspace_alloc(&ws, AOTC_WORKSPACE_BLOCK_BYTES(30));
  CHECK(c == b);
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, c));
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, a));
  CHECK(aotc_workspace_alloc(&ws, size - HEADER) == a);
}

static void test_lifo_order(void) {
  aotc_workspace ws;
  aotc_workspace before;
  uint8_t* a;
  uint8_t* b;
  uint8_t* c;
  int outside = 0;
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region_at(0), 512));
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, region_at(16)));
  a = (uint8_t*)aotc_workspace_alloc(&ws, 10);
  b = (uint8_t*)aotc_workspace_alloc(&ws, 20);
  c = (uint8_t*)aotc_workspace_alloc(&ws, 30);
  CHECK(a != NULL && b != NULL && c != NULL);
  before = ws;
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, b));
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, a));
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, NULL));
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, c + 1));
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, &outside));
  CHECK(memcmp(&before, &ws, sizeof ws) == 0);
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, c));
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, c)); /* double free */
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, a));
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, b));
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, a));
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, a));
  CHECK_EQ_INT(0, ws.top);
  CHECK(ws.last == AOTC_WORKSPACE_NO_BLOCK);

  /* Interleaved allocate/free keeps the chain right. */
  a = (uint8_t*)aotc_workspace_alloc(&ws, 8);
  b = (uint8_t*)aotc_workspace_alloc(&ws, 8);
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, b));
  c = (uint8_t*)aotc_workspace_alloc(&ws, 64);
  CHECK(c == b);
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, a));
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, c));
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, a));

  /* reset releases everything at once. */
  a = (uint8_t*)aotc_workspace_alloc(&ws, 8);
  b = (uint8_t*)aotc_workspace_alloc(&ws, 8);
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_reset(&ws));
  CHECK_EQ_INT(0, ws.top);
  CHECK_EQ_INT(0, ws.live_blocks);
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, aotc_workspace_free(&ws, b));
  CHECK(aotc_workspace_alloc(&ws, 8) == a);
}

static void test_corrupted_header(void) {
  aotc_workspace ws;
  uint8_t* a;
  uint8_t* b;
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region_at(0), 512));
  a = (uint8_t*)aotc_workspace_alloc(&ws, 20);
  b = (uint8_t*)aotc_workspace_alloc(&ws, 20);
  CHECK(a != NULL && b != NULL);
  /* Overrun `a` by a few bytes: that lands in b's header. */
  memset(a, 0x5A, AOTC_WORKSPACE_ALIGN_UP(20) + 4);
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_CORRUPTED, aotc_workspace_free(&ws, b));
  CHECK_EQ_INT(2, ws.live_blocks);
}

static void test_peak(void) {
  aotc_workspace ws;
  void* a;
  void* b;
  void* c;
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region_at(0), 2048));
  a = aotc_workspace_alloc(&ws, 100);
  b = aotc_workspace_alloc(&ws, 200);
  CHECK_EQ_INT(AOTC_WORKSPACE_BLOCK_BYTES(100) + AOTC_WORKSPACE_BLOCK_BYTES(200), ws.peak);
  CHECK_EQ_INT(ws.top, ws.peak);
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, b));
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_free(&ws, a));
  CHECK_EQ_INT(0, ws.top);
  CHECK_EQ_INT(AOTC_WORKSPACE_BLOCK_BYTES(100) + AOTC_WORKSPACE_BLOCK_BYTES(200), ws.peak);
  a = aotc_workspace_alloc(&ws, 10);
  CHECK_EQ_INT(AOTC_WORKSPACE_BLOCK_BYTES(100) + AOTC_WORKSPACE_BLOCK_BYTES(200), ws.peak);
  b = aotc_workspace_alloc(&ws, 500);
  c = aotc_workspace_alloc(&ws, 0);
  CHECK(a != NULL && b != NULL && c != NULL);
  CHECK_EQ_INT(AOTC_WORKSPACE_BLOCK_BYTES(10) + AOTC_WORKSPACE_BLOCK_BYTES(500) +
                   AOTC_WORKSPACE_BLOCK_BYTES(0),
               ws.peak);
  CHECK_EQ_INT(AOTC_OK, aotc_workspace_reset(&ws));
  CHECK_EQ_INT(AOTC_WORKSPACE_BLOCK_BYTES(10) + AOTC_WORKSPACE_BLOCK_BYTES(500) +
                   AOTC_WORKSPACE_BLOCK_BYTES(0),
               ws.peak);
  /* A failed allocation does not raise the peak. */
  CHECK(aotc_workspace_alloc(&ws, 4096) == NULL);
  CHECK_EQ_INT(AOTC_WORKSPACE_BLOCK_BYTES(10) + AOTC_WORKSPACE_BLOCK_BYTES(500) +
                   AOTC_WORKSPACE_BLOCK_BYTES(0),
               ws.peak);
}

/* A region of exactly REGION_BYTES(sum of BLOCK_BYTES) holds all the blocks at every base
 * offset, and they can be filled completely; one byte less does not hold them when the
 * base is at its worst offset. */
static void test_region_size_is_exact(void) {
  static const size_t sizes[] = {1, 16, 17, 100, 0, 255, 7};
  const size_t count = sizeof(sizes) / sizeof(sizes[0]);
  size_t needed = 0;
  size_t offset;
  size_t i;
  for (i = 0; i < count; ++i) needed += AOTC_WORKSPACE_BLOCK_BYTES(sizes[i]);

  for (offset = 0; offset < BOUNDARY; ++offset) {
    aotc_workspace ws;
    uint8_t* blocks[sizeof(sizes) / sizeof(sizes[0])];
    uint8_t* region = region_at(offset);
    const size_t region_size = AOTC_WORKSPACE_REGION_BYTES(needed);
    int all_fit = 1;
    /* Poison just past the region to see that filling stays inside it. */
    region[region_size] = 0xEE;
    CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region, region_size));
    for (i = 0; i < count; ++i) {
      blocks[i] = (uint8_t*)aotc_workspace_alloc(&ws, sizes[i]);
      if (blocks[i] == NULL) {
        all_fit = 0;
        break;
      }
      memset(blocks[i], 0x11, sizes[i]);
    }
    CHECK(all_fit);
    CHECK_EQ_INT(needed, ws.top);
    CHECK_EQ_INT(needed, ws.peak);
    CHECK(aotc_workspace_alloc(&ws, 0) == NULL);
    CHECK(region[region_size] == 0xEE);
  }

  {
    /* Base 1 byte past a boundary: ALIGNMENT - 1 bytes are skipped, so REGION_BYTES - 1 is
     * short. */
    aotc_workspace ws;
    void* last = NULL;
    CHECK_EQ_INT(AOTC_OK,
                 aotc_workspace_init(&ws, region_at(1), AOTC_WORKSPACE_REGION_BYTES(needed) - 1));
    for (i = 0; i < count; ++i) last = aotc_workspace_alloc(&ws, sizes[i]);
    CHECK(last == NULL);
  }
}

static void test_tvm_entry_points(void) {
  aotc_workspace ws;
  void* a;
  void* b;
  aotc_set_default_workspace(NULL);
  CHECK(aotc_get_default_workspace() == NULL);
  CHECK(TVMBackendAllocWorkspace(1, 0, 16, 2, 32) == NULL);
  CHECK(TVMBackendFreeWorkspace(1, 0, storage) != 0);

  CHECK_EQ_INT(AOTC_OK, aotc_workspace_init(&ws, region_at(5), 600));
  aotc_set_default_workspace(&ws);
  CHECK(aotc_get_default_workspace() == &ws);
  a = TVMBackendAllocWorkspace(1, 0, 100, 2, 32);
  b = TVMBackendAllocWorkspace(1, 0, 200, 0, 8);
  CHECK(a != NULL && b != NULL && is_aligned(a) && is_aligned(b));
  CHECK_EQ_INT(2, ws.live_blocks);
  CHECK(TVMBackendAllocWorkspace(1, 0, 1000, 2, 32) == NULL);
  CHECK(TVMBackendAllocWorkspace(1, 0, UINT64_MAX, 2, 32) == NULL);
  CHECK_EQ_INT(AOTC_ERR_WORKSPACE_FREE_ORDER, TVMBackendFreeWorkspace(1, 0, a));
  CHECK_EQ_INT(0, TVMBackendFreeWorkspace(1, 0, b));
  CHECK_EQ_INT(0, TVMBackendFreeWorkspace(1, 0, a));
  CHECK_EQ_INT(0, ws.live_blocks);
  aotc_set_default_workspace(NULL);
}

static void test_dltensor(void) {
  /* A 2x3x4 float32 tensor, aligned for every check below. */
  static float values[2 * 3 * 4 + 4];
  int64_t shape[3] = {2, 3, 4};
  int64_t other_shape[3] = {2, 4, 3};
  int64_t strides[3] = {12, 4, 1};
  const DLDataType f32 = aotc_dl_dtype(kDLFloat, 32, 1);
  DLTensor t;
  void* data = NULL;

  CHECK_EQ_INT(AOTC_OK, aotc_dltensor_fill(&t, values, f32, 3, shape));
  CHECK(t.data == (void*)values);
  CHECK_EQ_INT(kDLCPU, t.device.device_type);
  CHECK_EQ_INT(0, t.device.device_id);
  CHECK_EQ_INT(3, t.ndim);
  CHECK(t.shape == shape);
  CHECK(t.strides == NULL);
  CHECK_EQ_INT(0, t.byte_offset);
  CHECK(t.dtype.code == kDLFloat && t.dtype.bits == 32 && t.dtype.lanes == 1);

  CHECK_EQ_INT(AOTC_OK, aotc_dltensor_check(&t, f32, 3, shape, &data));
  CHECK(data == (void*)values);

  /* Wrong dtype: code, bits, lanes. */
  data = NULL;
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH,
               aotc_dltensor_check(&t, aotc_dl_dtype(kDLInt, 32, 1), 3, shape, &data));
  CHECK(data == NULL);
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH,
               aotc_dltensor_check(&t, aotc_dl_dtype(kDLFloat, 16, 1), 3, shape, &data));
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH,
               aotc_dltensor_check(&t, aotc_dl_dtype(kDLFloat, 32, 4), 3, shape, &data));
  /* Wrong rank and shape. */
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&t, f32, 2, shape, &data));
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&t, f32, 3, other_shape, &data));

  /* Explicit compact strides are fine; transposed ones are not. */
  t.strides = strides;
  CHECK_EQ_INT(AOTC_OK, aotc_dltensor_check(&t, f32, 3, shape, &data));
  strides[1] = 1;
  strides[2] = 3;
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&t, f32, 3, shape, &data));
  strides[1] = 4;
  strides[2] = 1;
  strides[0] = 24; /* padded rows */
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&t, f32, 3, shape, &data));

  {
    /* Extent-1 dimensions may carry any stride. */
    int64_t shape1[3] = {1, 3, 1};
    int64_t strides1[3] = {99, 1, 7};
    DLTensor u;
    CHECK_EQ_INT(AOTC_OK, aotc_dltensor_fill(&u, values, f32, 3, shape1));
    u.strides = strides1;
    CHECK_EQ_INT(AOTC_OK, aotc_dltensor_check(&u, f32, 3, shape1, &data));
    strides1[1] = 2;
    CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&u, f32, 3, shape1, &data));
  }
  t.strides = NULL;

  /* Device. */
  t.device.device_type = kDLCUDA;
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&t, f32, 3, shape, &data));
  t.device.device_type = kDLCPU;

  /* byte_offset moves the data pointer; a misaligned one is rejected. */
  t.byte_offset = 16;
  CHECK_EQ_INT(AOTC_OK, aotc_dltensor_check(&t, f32, 3, shape, &data));
  CHECK(data == (void*)(values + 4));
  t.byte_offset = 2;
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&t, f32, 3, shape, &data));
  {
    /* Bytes have no alignment requirement. */
    DLTensor bytes;
    int64_t n[1] = {5};
    const DLDataType u8 = aotc_dl_dtype(kDLUInt, 8, 1);
    CHECK_EQ_INT(AOTC_OK, aotc_dltensor_fill(&bytes, storage, u8, 1, n));
    bytes.byte_offset = 3;
    CHECK_EQ_INT(AOTC_OK, aotc_dltensor_check(&bytes, u8, 1, n, &data));
    CHECK(data == (void*)(storage + 3));
  }
  t.byte_offset = 0;

  /* Scalars: ndim 0, shape may be NULL. */
  {
    DLTensor s;
    CHECK_EQ_INT(AOTC_OK, aotc_dltensor_fill(&s, values, f32, 0, NULL));
    CHECK(s.shape == NULL);
    CHECK_EQ_INT(AOTC_OK, aotc_dltensor_check(&s, f32, 0, NULL, &data));
    CHECK(data == (void*)values);
    CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&s, f32, 1, shape, &data));
  }

  /* A tensor claiming ndim > 0 with no shape array. */
  t.shape = NULL;
  CHECK_EQ_INT(AOTC_ERR_TENSOR_MISMATCH, aotc_dltensor_check(&t, f32, 3, shape, &data));
  t.shape = shape;

  /* Invalid arguments. */
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_check(NULL, f32, 3, shape, &data));
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_check(&t, f32, 3, shape, NULL));
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_check(&t, f32, 3, NULL, &data));
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_check(&t, f32, -1, shape, &data));
  t.data = NULL;
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_check(&t, f32, 3, shape, &data));
  t.data = values;
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_fill(NULL, values, f32, 3, shape));
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_fill(&t, values, f32, 3, NULL));
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_fill(&t, values, f32, -2, shape));
  other_shape[1] = -4;
  CHECK_EQ_INT(AOTC_ERR_INVALID_ARGUMENT, aotc_dltensor_fill(&t, values, f32, 3, other_shape));
}

int main(void) {
  test_status_strings();
  test_macros();
  test_init();
  test_alignment_and_disjoint_blocks();
  test_exhaustion();
  test_lifo_order();
  test_corrupted_header();
  test_peak();
  test_region_size_is_exact();
  test_tvm_entry_points();
  test_dltensor();
  return check_report();
}
