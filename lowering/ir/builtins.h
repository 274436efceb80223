// Names of the calls and constants that passes put into the IR and the C code generator
// knows how to print. They match runtime-c/aotc_runtime.h.
#pragma once

namespace aotc::ir::builtin {

// handle aotc_workspace_alloc(nbytes): a block from the model's LIFO workspace, or NULL.
constexpr const char* kWorkspaceAlloc = "aotc_workspace_alloc";
// int32 aotc_workspace_free(handle): 0, or an error if it is not the newest block.
constexpr const char* kWorkspaceFree = "aotc_workspace_free";
// bool isnull(handle)
constexpr const char* kIsNull = "isnull";
// handle address_of(buffer[indices]): a pointer to one element, for runtime micro-kernels
// that take arrays (its one argument is the Load of that element). See ir::address_of.
constexpr const char* kAddressOf = "address_of";

// int32 calls of a device's driver for one external function (aot/graph/external.h): start a
// command stream on the device and wait for it. Arguments: the stream (a handle), its size
// in bytes, then three per entry of the table of memory regions the stream addresses: the
// region's handle (or the integer 0 for an empty region), its size in bytes, and 1 if the
// device may write it, else 0. kNpuInvoke is aotc's generic NPU driver interface
// (runtime-c/npu/aotc_npu.h), kEthosuInvoke Arm's Ethos-U driver (runtime-c/npu/aotc_ethosu.h).
constexpr const char* kNpuInvoke = "aotc_npu_invoke";
constexpr const char* kEthosuInvoke = "aotc_ethosu_invoke";

// Zero-argument calls that stand for the runtime's error codes.
constexpr const char* kErrWorkspaceExhausted = "AOTC_ERR_WORKSPACE_EXHAUSTED";
constexpr const char* kErrWorkspaceFreeOrder = "AOTC_ERR_WORKSPACE_FREE_ORDER";
// A run-time operand out of its valid range (an index past the end of an axis).
constexpr const char* kErrInvalidArgument = "AOTC_ERR_INVALID_ARGUMENT";
// A device's driver failed an external function's job.
constexpr const char* kErrNpu = "AOTC_ERR_NPU";

}  // namespace aotc::ir::builtin
