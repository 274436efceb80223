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
 * Each block is preceded by a header (two size_t, rounded up to the alignment) that links
 * it to the block before, which lets aotc_workspace_free reject out-of-order frees instead
 * of silently releasing the blocks allocated after the one being freed.
 * AOTC_WORKSPACE_BLOCK_BYTES states that cost exactly, so the compiler can size a region
 * that is just large enough.
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
  AOTC_ERR_TENSOR_MISMATCH = 5,
  /* A loop would have run more iterations than the bound it was compiled with
   * (aotc --max-trip): its outputs would be wrong, so the run stops. */
  AOTC_ERR_TRIP_LIMIT = 6,
  /* The NPU driver rejected or failed a job of an offloaded region (aotc_npu.h). */
  AOTC_ERR_NPU = 7
};

/* A short, static, human-readable name for a status code ("unknown status" for others). */
const char* aotc_status_string(int32_t status);

/* ---- Workspace allocator ------------------------------------------------------------ */

/* Alignment of every block (and of the region base after aotc_workspace_init): a power of
 * two, written as a plain decimal number because it also names a symbol (below).
 *
 * aotc measures each kernel's workspace for its target's workspace_alignment and word size
 * (AOTC_WORKSPACE_BLOCK_BYTES below, per block), so the runtime must be built with the
 * target's alignment:
 *   - The copy of this header that `aotc compile` writes beside generated code has the
 *     target's workspace_alignment as the default below: building the generated files
 *     together needs no flag.
 *   - This file in aotc's runtime-c/ (which aotc_add_model compiles into the aotc_runtime
 *     library that all models of a project share) says 16, the value of every built-in
 *     target. Other values come from -DAOTC_WORKSPACE_ALIGNMENT=N (aotc_add_model: the
 *     CMake variable AOTC_WORKSPACE_ALIGNMENT), for the runtime and every model alike.
 * A mismatch stops the build instead of exhausting the workspace at run time: generated
 * code has an #error for a header with another alignment, and it reads
 * AOTC_WORKSPACE_ALIGNMENT_SYMBOL, which only an aotc_runtime.c built with the same
 * alignment defines, so linking against any other fails. */
#ifndef AOTC_WORKSPACE_ALIGNMENT
#define AOTC_WORKSPACE_ALIGNMENT 16
#endif

#if AOTC_WORKSPACE_ALIGNMENT < 1 || (AOTC_WORKSPACE_ALIGNMENT & (AOTC_WORKSPACE_ALIGNMENT - 1)) != 0
#error "AOTC_WORKSPACE_ALIGNMENT must be a power of two"
#endif

/* sizeof(size_t), where the preprocessor can use it (aotc_runtime.c checks that it is). */
#if SIZE_MAX > 0xFFFFFFFFu
#define AOTC_SIZE_T_BYTES 8
#elif SIZE_MAX > 0xFFFFu
#define AOTC_SIZE_T_BYTES 4
#else
#define AOTC_SIZE_T_BYTES 2
#endif

/* n rounded up to a multiple of AOTC_WORKSPACE_ALIGNMENT. */
#define AOTC_WORKSPACE_ALIGN_UP(n) \
  (((size_t)(n) + (AOTC_WORKSPACE_ALIGNMENT - 1)) & ~(size_t)(AOTC_WORKSPACE_ALIGNMENT - 1))

/* Bytes of the header before every block: two size_t, rounded up to the alignment so that
 * the payload after it stays aligned (16 for alignments up to 16 on a 64-bit machine, 8 for
 * alignments 4 and 8 on a 32-bit one). An integer constant expression without casts, so
 * that generated code can check it with #if. */
#define AOTC_WORKSPACE_HEADER_BYTES                                                         \
  ((2 * AOTC_SIZE_T_BYTES + AOTC_WORKSPACE_ALIGNMENT - 1) / AOTC_WORKSPACE_ALIGNMENT * \
   AOTC_WORKSPACE_ALIGNMENT)

/* Bytes of region one block of n bytes consumes: the header plus the payload rounded up to
 * the alignment. A region (after alignment) of exactly the sum of BLOCK_BYTES over the
 * blocks live at the same time holds them all. aotc's TargetFacts::workspace_block_bytes
 * computes the same from the target's workspace_alignment and word_size. */
#define AOTC_WORKSPACE_BLOCK_BYTES(n) \
  ((size_t)AOTC_WORKSPACE_HEADER_BYTES + AOTC_WORKSPACE_ALIGN_UP(n))

/* Bytes of memory to reserve so that n usable bytes remain after aotc_workspace_init
 * aligns an arbitrary base up to AOTC_WORKSPACE_ALIGNMENT. */
#define AOTC_WORKSPACE_REGION_BYTES(n) ((size_t)(n) + (AOTC_WORKSPACE_ALIGNMENT - 1))

/* Value of aotc_workspace.last when no block is live. */
#define AOTC_WORKSPACE_NO_BLOCK ((size_t)-1)

/* The name of an object that aotc_runtime.c defines (equal to its AOTC_WORKSPACE_ALIGNMENT)
 * and generated code reads: aotc_runtime_workspace_alignment_16 for a runtime built with
 * alignment 16. A model linked against a runtime built with another alignment fails to link
 * with an undefined reference that names the alignment the model needs. */
#define AOTC_WORKSPACE_PASTE_(a, b) a##b
#define AOTC_WORKSPACE_PASTE(a, b) AOTC_WORKSPACE_PASTE_(a, b)
#define AOTC_WORKSPACE_ALIGNMENT_SYMBOL \
  AOTC_WORKSPACE_PASTE(aotc_runtime_workspace_alignment_, AOTC_WORKSPACE_ALIGNMENT)
extern const size_t AOTC_WORKSPACE_ALIGNMENT_SYMBOL;

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
