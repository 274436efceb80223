/* aotc_npu.h: the interface between generated code and an NPU driver.
 *
 * When aotc offloads part of a model to an NPU (a target with an [npu] table), the kernel
 * of each offloaded region hands the NPU one job: the command stream the compiler made
 * for the region, and a table of memory regions the stream addresses by index (its
 * constants, its scratch, the region's input and output tensors). The generated code
 * calls aotc_npu_invoke() below, which calls the driver through two functions:
 *
 *   int32_t aotc_npu_start(aotc_npu_job* job);  starts the job
 *   int32_t aotc_npu_wait(aotc_npu_job* job);   waits until it is done, returns its status
 *
 * Both return AOTC_OK (0) or a nonzero driver status; the generated code turns a nonzero
 * one into AOTC_ERR_NPU. A synchronous driver does the whole job in aotc_npu_start (the
 * reference driver, aotc_npu_ref.c, validates the stream and then interprets it on the
 * CPU); an asynchronous one programs the device there and blocks, sleeps or polls in
 * aotc_npu_wait. To use another driver, link your own aotc_npu_start / aotc_npu_wait
 * instead of aotc_npu_ref.c (aotc_add_model(... NPU_DRIVER <library>)).
 *
 * Every region's base is aligned to the target's [npu] alignment (16 bytes for npu-ref):
 * the generated code plans the scratch and the tensors that way and checks the pointers
 * the application passes for inputs and outputs the NPU reads or writes. No region is on
 * the CPU stack.
 */
#ifndef AOTC_NPU_H_
#define AOTC_NPU_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The region may be read but never written by the job (constants in flash). */
#define AOTC_NPU_REGION_READ_ONLY 1u

/* One entry of the region table: `size` bytes at `base`. A region of size 0 may have a
 * null base; the stream cannot address it. */
typedef struct aotc_npu_region {
  void* base;
  uint32_t size;
  uint32_t flags; /* AOTC_NPU_REGION_* */
} aotc_npu_region;

/* One job: a command stream and the regions it addresses. The driver may keep its own
 * state in `driver_state` between start and wait; `status` is the job's detailed
 * driver status once aotc_npu_wait has returned (0 on success). */
typedef struct aotc_npu_job {
  const uint8_t* stream;
  uint32_t stream_size; /* bytes */
  const aotc_npu_region* regions;
  uint32_t region_count;
  int32_t status;
  void* driver_state;
} aotc_npu_job;

/* The driver: see above. */
int32_t aotc_npu_start(aotc_npu_job* job);
int32_t aotc_npu_wait(aotc_npu_job* job);

/* What a kernel of an offloaded region calls: starts the job and waits for it. Returns 0,
 * or the driver's nonzero status. */
static inline int32_t aotc_npu_invoke(const uint8_t* stream, uint32_t stream_size, const aotc_npu_region* regions,
                                      uint32_t region_count) {
  aotc_npu_job job;
  int32_t status;
  job.stream = stream;
  job.stream_size = stream_size;
  job.regions = regions;
  job.region_count = region_count;
  job.status = 0;
  job.driver_state = NULL;
  status = aotc_npu_start(&job);
  if (status != 0) return status;
  return aotc_npu_wait(&job);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AOTC_NPU_H_ */
