/* aotc_dlpack.c: DLTensor checks and construction (see aotc_dlpack.h). */
#include "aotc_dlpack.h"

static int same_dtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/* Strides are in elements. Row-major compact: the last dimension has stride 1 and each
 * earlier one the product of the extents after it. */
static int is_compact_row_major(const int64_t* shape, const int64_t* strides, int32_t ndim) {
  int64_t expected = 1;
  int32_t i;
  if (strides == NULL) return 1;
  for (i = ndim - 1; i >= 0; --i) {
    if (shape[i] != 1 && strides[i] != expected) return 0;
    expected *= shape[i];
  }
  return 1;
}

int32_t aotc_dltensor_check(const DLTensor* tensor, DLDataType dtype, int32_t ndim,
                            const int64_t* shape, void** data) {
  uint8_t* first;
  int32_t i;
  if (tensor == NULL || data == NULL || ndim < 0 || (shape == NULL && ndim > 0)) {
    return AOTC_ERR_INVALID_ARGUMENT;
  }
  if (tensor->data == NULL) return AOTC_ERR_INVALID_ARGUMENT;
  if (tensor->device.device_type != kDLCPU) return AOTC_ERR_TENSOR_MISMATCH;
  if (!same_dtype(tensor->dtype, dtype)) return AOTC_ERR_TENSOR_MISMATCH;
  if (tensor->ndim != ndim) return AOTC_ERR_TENSOR_MISMATCH;
  if (ndim > 0 && tensor->shape == NULL) return AOTC_ERR_TENSOR_MISMATCH;
  for (i = 0; i < ndim; ++i) {
    if (tensor->shape[i] != shape[i]) return AOTC_ERR_TENSOR_MISMATCH;
  }
  if (!is_compact_row_major(tensor->shape, tensor->strides, ndim)) {
    return AOTC_ERR_TENSOR_MISMATCH;
  }
#if UINTPTR_MAX < UINT64_MAX
  if (tensor->byte_offset > (uint64_t)UINTPTR_MAX) return AOTC_ERR_TENSOR_MISMATCH;
#endif
  first = (uint8_t*)tensor->data + (uintptr_t)tensor->byte_offset;
  /* Generated code loads whole elements; a misaligned one faults on cores without
   * unaligned access (Cortex-M0+), so reject it here rather than there. */
  switch (dtype.bits) {
    case 16:
    case 32:
    case 64:
      if (((uintptr_t)first & (uintptr_t)(dtype.bits / 8 - 1)) != 0) {
        return AOTC_ERR_TENSOR_MISMATCH;
      }
      break;
    default:
      break;
  }
  *data = first;
  return AOTC_OK;
}

int32_t aotc_dltensor_fill(DLTensor* tensor, void* data, DLDataType dtype, int32_t ndim,
                           int64_t* shape) {
  int32_t i;
  if (tensor == NULL || ndim < 0 || (shape == NULL && ndim > 0)) {
    return AOTC_ERR_INVALID_ARGUMENT;
  }
  for (i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return AOTC_ERR_INVALID_ARGUMENT;
  }
  tensor->data = data;
  tensor->device.device_type = kDLCPU;
  tensor->device.device_id = 0;
  tensor->ndim = (int)ndim;
  tensor->dtype = dtype;
  tensor->shape = ndim > 0 ? shape : NULL;
  tensor->strides = NULL;
  tensor->byte_offset = 0;
  return AOTC_OK;
}
