/* aotc_runtime.c: status strings and the LIFO workspace allocator (see aotc_runtime.h). */
#include "aotc_runtime.h"

/* C99 has no _Static_assert; a negative array size stops the build instead. (That the
 * alignment is a power of two, aotc_runtime.h checks with #error.) */
typedef char aotc_check_size_t_bytes[AOTC_SIZE_T_BYTES == sizeof(size_t) ? 1 : -1];

/* The header is two size_t, padded to the alignment; the payload after it stays aligned. */
#define HEADER_BYTES ((size_t)AOTC_WORKSPACE_HEADER_BYTES)
typedef char aotc_check_header_holds_two_sizes[HEADER_BYTES >= 2 * sizeof(size_t) ? 1 : -1];
typedef char aotc_check_header_keeps_alignment[HEADER_BYTES % AOTC_WORKSPACE_ALIGNMENT == 0 ? 1 : -1];

/* Generated code reads this object, so that it links only against a runtime built with the
 * alignment it was compiled for (see AOTC_WORKSPACE_ALIGNMENT_SYMBOL in aotc_runtime.h). */
const size_t AOTC_WORKSPACE_ALIGNMENT_SYMBOL = AOTC_WORKSPACE_ALIGNMENT;

const char* aotc_status_string(int32_t status) {
  switch (status) {
    case AOTC_OK:
      return "ok";
    case AOTC_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case AOTC_ERR_WORKSPACE_EXHAUSTED:
      return "workspace exhausted";
    case AOTC_ERR_WORKSPACE_FREE_ORDER:
      return "workspace free out of order";
    case AOTC_ERR_WORKSPACE_CORRUPTED:
      return "workspace block header corrupted";
    case AOTC_ERR_TENSOR_MISMATCH:
      return "tensor mismatch";
    case AOTC_ERR_TRIP_LIMIT:
      return "loop trip limit reached";
    case AOTC_ERR_NPU:
      return "NPU job failed";
    default:
      return "unknown status";
  }
}

/* ---- Block headers --------------------------------------------------------------------
 * A header holds the offset of the previous live block's header (so free can restore
 * `last`) followed by its bitwise complement (so a header overwritten by a stray write is
 * detected rather than followed). They are stored byte by byte: the region's memory may
 * be declared as any type, and byte access is always allowed and needs no alignment. */

static void store_size(uint8_t* at, size_t value) {
  size_t i;
  for (i = 0; i < sizeof(size_t); ++i) {
    at[i] = (uint8_t)(value >> (8u * i));
  }
}

static size_t load_size(const uint8_t* at) {
  size_t value = 0;
  size_t i;
  for (i = 0; i < sizeof(size_t); ++i) {
    value |= (size_t)at[i] << (8u * i);
  }
  return value;
}

static void write_header(uint8_t* header, size_t previous) {
  store_size(header, previous);
  store_size(header + sizeof(size_t), ~previous);
}

/* Returns 1 and sets *previous if the header is intact. */
static int read_header(const uint8_t* header, size_t* previous) {
  size_t value = load_size(header);
  size_t check = load_size(header + sizeof(size_t));
  if (check != ~value) return 0;
  *previous = value;
  return 1;
}

/* ---- Workspace ------------------------------------------------------------------------ */

int32_t aotc_workspace_init(aotc_workspace* ws, void* base, size_t size) {
  uintptr_t address;
  size_t skip;
  if (ws == NULL || (base == NULL && size > 0)) return AOTC_ERR_INVALID_ARGUMENT;
  address = (uintptr_t)base;
  skip = (size_t)((AOTC_WORKSPACE_ALIGNMENT - (address % AOTC_WORKSPACE_ALIGNMENT)) %
                  AOTC_WORKSPACE_ALIGNMENT);
  if (skip > size) skip = size;
  /* Even adding 0 to a null pointer is undefined, and base may be null when size is 0. */
  ws->base = skip > 0 ? (uint8_t*)base + skip : (uint8_t*)base;
  ws->size = size - skip;
  ws->top = 0;
  ws->peak = 0;
  ws->last = AOTC_WORKSPACE_NO_BLOCK;
  ws->live_blocks = 0;
  return AOTC_OK;
}

void* aotc_workspace_alloc(aotc_workspace* ws, size_t nbytes) {
  size_t available;
  size_t payload;
  uint8_t* header;
  if (ws == NULL) return NULL;
  /* top never exceeds size. Compare before rounding up, so a huge nbytes cannot wrap. */
  available = ws->size - ws->top;
  if (available < HEADER_BYTES) return NULL;
  available -= HEADER_BYTES;
  if (nbytes > available) return NULL;
  payload = AOTC_WORKSPACE_ALIGN_UP(nbytes);
  if (payload > available) return NULL;

  header = ws->base + ws->top;
  write_header(header, ws->last);
  ws->last = ws->top;
  ws->top += HEADER_BYTES + payload;
  if (ws->top > ws->peak) ws->peak = ws->top;
  ws->live_blocks += 1;
  return header + HEADER_BYTES;
}

int32_t aotc_workspace_free(aotc_workspace* ws, void* ptr) {
  size_t previous;
  uint8_t* header;
  if (ws == NULL) return AOTC_ERR_INVALID_ARGUMENT;
  if (ws->last == AOTC_WORKSPACE_NO_BLOCK) return AOTC_ERR_WORKSPACE_FREE_ORDER;
  header = ws->base + ws->last;
  /* Compare addresses as integers: relational comparison of unrelated pointers is
   * undefined, and ptr may point anywhere. */
  if ((uintptr_t)ptr != (uintptr_t)(header + HEADER_BYTES)) {
    return AOTC_ERR_WORKSPACE_FREE_ORDER;
  }
  if (!read_header(header, &previous)) return AOTC_ERR_WORKSPACE_CORRUPTED;
  if (previous != AOTC_WORKSPACE_NO_BLOCK &&
      (previous >= ws->last || previous % AOTC_WORKSPACE_ALIGNMENT != 0)) {
    return AOTC_ERR_WORKSPACE_CORRUPTED;
  }
  ws->top = ws->last;
  ws->last = previous;
  ws->live_blocks -= 1;
  return AOTC_OK;
}

int32_t aotc_workspace_reset(aotc_workspace* ws) {
  if (ws == NULL) return AOTC_ERR_INVALID_ARGUMENT;
  ws->top = 0;
  ws->last = AOTC_WORKSPACE_NO_BLOCK;
  ws->live_blocks = 0;
  return AOTC_OK;
}

/* ---- TVM-compatible entry points ------------------------------------------------------ */

static aotc_workspace* default_workspace = NULL;

void aotc_set_default_workspace(aotc_workspace* ws) { default_workspace = ws; }

aotc_workspace* aotc_get_default_workspace(void) { return default_workspace; }

#ifndef AOTC_NO_TVM_ENTRY_POINTS
void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                               int dtype_code_hint, int dtype_bits_hint) {
  (void)device_type;
  (void)device_id;
  (void)dtype_code_hint;
  (void)dtype_bits_hint;
#if SIZE_MAX < UINT64_MAX
  /* size_t is narrower than uint64_t on 32-bit targets; such a request can never fit. */
  if (nbytes > (uint64_t)SIZE_MAX) return NULL;
#endif
  return aotc_workspace_alloc(default_workspace, (size_t)nbytes);
}

int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr) {
  (void)device_type;
  (void)device_id;
  return (int)aotc_workspace_free(default_workspace, ptr);
}
#endif
