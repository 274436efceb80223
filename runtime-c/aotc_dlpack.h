/* aotc_dlpack.h: optional DLPack (DLTensor) interop for aotc-generated models.
 *
 * Generated models take plain pointers. An application that already holds its data as
 * DLTensors (from TVM, PyTorch, NumPy, ...) uses these helpers to check that a tensor is
 * exactly what the model was compiled for before handing over its pointer, and to
 * describe the model's own flat buffers as DLTensors. A tensor that is not compact and
 * row-major, has another dtype or shape, or does not live in CPU memory is rejected with
 * AOTC_ERR_TENSOR_MISMATCH rather than read with the wrong layout.
 *
 * Needs <dlpack/dlpack.h> (DLPack 0.6 or later: DLDevice, not the older DLContext). That
 * header compiles cleanly under -std=c99 -pedantic -Wall -Wextra -Werror, also when it is
 * not on a system include path (it is not C89-clean: its enums end in a comma). Only
 * aotc_dlpack.c includes this file; applications without DLPack leave both out.
 */
#ifndef AOTC_DLPACK_H_
#define AOTC_DLPACK_H_

#include <dlpack/dlpack.h>

#include "aotc_runtime.h"

#if !defined(DLPACK_VERSION) || DLPACK_VERSION < 60
#error "aotc_dlpack.h needs DLPack 0.6 or later (DLTensor.device)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A DLDataType from its parts, e.g. aotc_dl_dtype(kDLFloat, 32, 1) for float32. */
static inline DLDataType aotc_dl_dtype(uint8_t code, uint8_t bits, uint16_t lanes) {
  DLDataType dtype;
  dtype.code = code;
  dtype.bits = bits;
  dtype.lanes = lanes;
  return dtype;
}

/* Checks that `tensor` is in CPU memory (kDLCPU) and has exactly `dtype`, `ndim` and
 * `shape` (shape[0..ndim-1]), with strides either NULL or the compact row-major ones
 * (the stride of a dimension of extent 1 is not looked at, as DLPack producers leave it
 * arbitrary), and that its first element is aligned to the element size. On success sets
 * *data to tensor->data + tensor->byte_offset and returns AOTC_OK; otherwise leaves
 * *data alone and returns AOTC_ERR_TENSOR_MISMATCH, or AOTC_ERR_INVALID_ARGUMENT for a
 * null tensor/data/out pointer, a negative ndim, or null shape with ndim > 0. */
int32_t aotc_dltensor_check(const DLTensor* tensor, DLDataType dtype, int32_t ndim,
                            const int64_t* shape, void** data);

/* Fills `tensor` to describe the compact row-major buffer `data` on the CPU: device
 * {kDLCPU, 0}, strides NULL, byte_offset 0. `shape` is borrowed, not copied: it must stay
 * valid as long as the tensor is used. Returns AOTC_ERR_INVALID_ARGUMENT for a null
 * tensor, a negative ndim or extent, or null shape with ndim > 0. */
int32_t aotc_dltensor_fill(DLTensor* tensor, void* data, DLDataType dtype, int32_t ndim,
                           int64_t* shape);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AOTC_DLPACK_H_ */
