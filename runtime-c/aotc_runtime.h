/* aotc_runtime.h: the small C runtime that `aotc compile` copies beside generated code.
 *
 * Generated code needs two things from its surroundings: status codes to report failure
 * without aborting, and scratch memory for buffers the memory planner did not place in a
 * static pool. This header provides both for bare-metal targets, so it uses nothing beyond
 * <stdint.h> and <stddef.h>: no malloc, no stdio, no abort and no other libc call.
 *
 * The workspace is a LIFO (stack) allocator over one region of memory the application or
 * the generated code provides. It keeps no global state: every call names its
 * aotc_workspace, so several models (or several instances of one) can run side by side.
 * Each block is preceded by a one-alignment-unit header that links it to the block before,
 * which lets aotc_workspace_free reject out-of-order frees instead of silently releasing
 * the blocks allocated after the one being freed. AOTC_WORKSPACE_BLOCK_BYTES states that
 * cost exactly, so the compiler can size a region that is just large enough.
 *
 * TVMBackendAllocWorkspace / TVMBackendFreeWorkspace are provided over a default workspace
 * (aotc_set_default_workspace) for code written against TVM's C backend API. Define
 * AOTC_NO_TVM_ENTRY_POINTS to leave them out, e.g. when linking TVM's own runtime too.
 */
#ifndef AOTC_RUNTIME_H_
#define AOTC_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes ------------------------------------------------------------------- */

/* Every aotc_* function that can fail returns one of these as an int32_t; 0 is success. */
enum aotc_status {
  AOTC_OK = 0,
  /* A null pointer or out-of-range value where a valid one is required. */
  AOTC_ERR_INVALID_ARGUMENT = 1,
  /* A workspace allocation did not fit in what is left of the region. */
  AOTC_ERR_WORKSPACE_EXHAUSTED = 2,
  /* aotc_workspace_free was given a pointer that is not the most recent live block. */
  AOTC_ERR_WORKSPACE_FREE_ORDER = 3,
  /* A block header was overwritten, most likely by a write past the end of the block
   * allocated just before it. */
  AOTC_ERR_WORKSPACE_CORRUPTED = 4,
  /* A DLTensor handed to the model does not have the dtype, shape, layout or device the
   * model was compiled for (see aotc_dlpack.h). */
  AOTC_ERR_TENSOR_MISMATCH = 5
};

/* A short, static, human-readable name for a status code ("unknown status" for others). */
const char* aotc_status_string(int32_t status);

/* ---- Workspace allocator ------------------------------------------------------------ */

/* Alignment of every block (and of the region base after aotc_workspace_init). Can be
 * raised at build time (e.g. -DAOTC_WORKSPACE_ALIGNMENT=32 for a target whose vector
 * loads want it); it must be a power of two and at least 2 * sizeof(size_t), the size of
 * the block header. */
#ifndef AOTC_WORKSPACE_ALIGNMENT
#define AOTC_WORKSPACE_ALIGNMENT 16
#endif

/* n rounded up to a multiple of AOTC_WORKSPACE_ALIGNMENT. */
#define AOTC_WORKSPACE_ALIGN_UP(n) \
  (((size_t)(n) + (AOTC_WORKSPACE_ALIGNMENT - 1)) & ~(size_t)(AOTC_WORKSPACE_ALIGNMENT - 1))

/* Bytes of region one block of n bytes consumes: one header unit plus the payload rounded
 * up to the alignment. A region (after alignment) of exactly the sum of BLOCK_BYTES over
 * the blocks live at the same time holds them all. */
#define AOTC_WORKSPACE_BLOCK_BYTES(n) \
  ((size_t)AOTC_WORKSPACE_ALIGNMENT + AOTC_WORKSPACE_ALIGN_UP(n))

/* Bytes of memory to reserve so that n usable bytes remain after aotc_workspace_init
 * aligns an arbitrary base up to AOTC_WORKSPACE_ALIGNMENT. */
#define AOTC_WORKSPACE_REGION_BYTES(n) ((size_t)(n) + (AOTC_WORKSPACE_ALIGNMENT - 1))

/* Value of aotc_workspace.last when no block is live. */
#define AOTC_WORKSPACE_NO_BLOCK ((size_t)-1)

typedef struct aotc_workspace {
  uint8_t* base;      /* region start, aligned to AOTC_WORKSPACE_ALIGNMENT */
  size_t size;        /* usable bytes from base */
  size_t top;         /* bytes in use: offset of the first free byte */
  size_t peak;        /* largest top seen since init (or aotc_workspace_reset) */
  size_t last;        /* offset of the most recent live block's header, or NO_BLOCK */
  size_t live_blocks; /* number of blocks allocated and not yet freed */
} aotc_workspace;

/* Takes over `size` bytes at `base` (which need not be aligned: the unaligned head is
 * skipped). A region smaller than that head leaves a valid workspace of 0 usable bytes.
 * Returns AOTC_ERR_INVALID_ARGUMENT if ws is null, or base is null while size > 0. */
int32_t aotc_workspace_init(aotc_workspace* ws, void* base, size_t size);

/* Returns a block of nbytes aligned to AOTC_WORKSPACE_ALIGNMENT, or NULL if it does not
 * fit (or ws is null). A failed allocation leaves the workspace unchanged and usable. */
void* aotc_workspace_alloc(aotc_workspace* ws, size_t nbytes);

/* Releases `ptr`, which must be the most recently allocated live block: returns
 * AOTC_ERR_WORKSPACE_FREE_ORDER (and changes nothing) for any other pointer, including
 * NULL and pointers already freed, and AOTC_ERR_WORKSPACE_CORRUPTED if the block's header
 * was overwritten. */
int32_t aotc_workspace_free(aotc_workspace* ws, void* ptr);

/* Releases every block at once (e.g. after an inference that returned early on error).
 * Keeps `peak`. */
int32_t aotc_workspace_reset(aotc_workspace* ws);

/* ---- TVM-compatible entry points over a default workspace --------------------------- */

/* Sets the workspace that TVMBackendAllocWorkspace / TVMBackendFreeWorkspace use (NULL to
 * unset). This is the only global state in the runtime, and only those two use it. */
void aotc_set_default_workspace(aotc_workspace* ws);
aotc_workspace* aotc_get_default_workspace(void);

#ifndef AOTC_NO_TVM_ENTRY_POINTS
/* Allocates from the default workspace; NULL if none is set, or the block does not fit.
 * The device and dtype arguments are accepted for signature compatibility and ignored. */
void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint);
/* Frees from the default workspace. Returns 0 or an aotc_status code. */
int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AOTC_RUNTIME_H_ */
