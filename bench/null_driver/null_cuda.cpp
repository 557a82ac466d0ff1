// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A CUDA driver that does nothing, as libcuda.so.1, for measuring the runtime's own host
// time per call on a machine without a GPU (bench/host_overhead_bench): every driver
// function the runtime uses succeeds at once, "device" memory is host memory (copies and
// fills are done, so that what the runtime reads back is what it wrote), launches run no
// code, streams and events are always done. Host functions queued on a stream run at its
// next synchronisation, as the real driver runs them after the work before them, on a
// thread of its own. It describes one GPU of compute capability 9.0 with 132
// multiprocessors. Never used by the runtime's tests: results of kernels are not computed.
#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#define NULL_LIBRARY_COUNTS null_cuda_calls
#include "null_calls.h"

#define NULL_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// Distinct non-null handles for contexts, streams, events, modules and functions.
template <class Handle> Handle next_handle() {
  static std::mutex lock;
  static std::uintptr_t next = 0x1000;
  std::lock_guard guard(lock);
  next += 16;
  return reinterpret_cast<Handle>(next);
}

struct host_function {
  CUhostFn fn;
  void *data;
};

std::mutex &queued_lock() {
  static std::mutex m;
  return m;
}
std::vector<host_function> &queued() {
  static std::vector<host_function> q;
  return q;
}

/// Runs the host functions queued so far (on any stream: the null GPU has finished them all).
void run_queued() {
  std::vector<host_function> now;
  {
    std::lock_guard guard(queued_lock());
    now.swap(queued());
  }
  for (const host_function &f : now) f.fn(f.data);
}

/// "Device" memory: host memory, kept for reuse by size once freed (as the real driver's
/// stream-ordered pool keeps it), so that a call that allocates costs what a pool's lookup
/// does and not a fresh mapping of its pages.
std::mutex &memory_lock() {
  static std::mutex m;
  return m;
}
std::unordered_map<void *, std::size_t> &sizes() {
  static std::unordered_map<void *, std::size_t> s;
  return s;
}
std::unordered_multimap<std::size_t, void *> &free_blocks() {
  static std::unordered_multimap<std::size_t, void *> f;
  return f;
}

CUdeviceptr host_memory(std::size_t bytes) {
  bytes = bytes ? bytes : 1;
  std::lock_guard guard(memory_lock());
  void *p = nullptr;
  if (auto kept = free_blocks().find(bytes); kept != free_blocks().end()) {
    p = kept->second;
    free_blocks().erase(kept);
  } else {
    p = std::malloc(bytes);
    sizes()[p] = bytes;
  }
  return reinterpret_cast<CUdeviceptr>(p);
}

void free_host_memory(CUdeviceptr at) {
  void *p = reinterpret_cast<void *>(at);
  std::lock_guard guard(memory_lock());
  if (auto known = sizes().find(p); known != sizes().end()) free_blocks().emplace(known->second, p);
}

} // namespace

NULL_CUDA_EXPORT CUresult cuInit(unsigned) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDriverGetVersion(int *v) {
  NULL_COUNTED();
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuGetErrorName(CUresult, const char **s) {
  NULL_COUNTED();
  *s = "CUDA_ERROR_NULL_DRIVER";
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuGetErrorString(CUresult, const char **s) {
  NULL_COUNTED();
  *s = "the null driver of bench/null_driver";
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDeviceGetCount(int *n) {
  NULL_COUNTED();
  *n = 1;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  NULL_COUNTED();
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice) {
  NULL_COUNTED();
  std::strncpy(name, "null GPU", static_cast<std::size_t>(len));
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
  NULL_COUNTED();
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 0x7fffffff; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 227 * 1024; break;
  default: *v = 0;
  }
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDeviceTotalMem(std::size_t *bytes, CUdevice) {
  NULL_COUNTED();
  *bytes = std::size_t{80} << 30;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice) {
  NULL_COUNTED();
  static const CUcontext primary = next_handle<CUcontext>();
  *c = primary;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *p, CUdevice) {
  NULL_COUNTED();
  static const CUmemoryPool pool = next_handle<CUmemoryPool>();
  *p = pool;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute, void *) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuCtxSetCurrent(CUcontext) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuCtxSynchronize() {
  NULL_COUNTED();
  run_queued();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *p, std::size_t bytes, CUstream) {
  NULL_COUNTED();
  *p = host_memory(bytes);
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemFreeAsync(CUdeviceptr p, CUstream) {
  NULL_COUNTED();
  free_host_memory(p);
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemHostAlloc(void **p, std::size_t bytes, unsigned) {
  NULL_COUNTED();
  *p = reinterpret_cast<void *>(host_memory(bytes));
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemFreeHost(void *p) {
  NULL_COUNTED();
  free_host_memory(reinterpret_cast<CUdeviceptr>(p));
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, std::size_t bytes, CUstream) {
  NULL_COUNTED();
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, std::size_t bytes, CUstream) {
  NULL_COUNTED();
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream) {
  NULL_COUNTED();
  std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, std::size_t bytes, CUstream) {
  NULL_COUNTED();
  std::memset(reinterpret_cast<void *>(dst), value, bytes);
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuStreamCreate(CUstream *s, unsigned) {
  NULL_COUNTED();
  *s = next_handle<CUstream>();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuStreamDestroy(CUstream) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuStreamSynchronize(CUstream) {
  NULL_COUNTED();
  run_queued();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuStreamQuery(CUstream) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuLaunchHostFunc(CUstream, CUhostFn fn, void *data) {
  NULL_COUNTED();
  std::lock_guard guard(queued_lock());
  queued().push_back({fn, data});
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuEventCreate(CUevent *e, unsigned) {
  NULL_COUNTED();
  *e = next_handle<CUevent>();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuEventDestroy(CUevent) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuEventRecord(CUevent, CUstream) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuEventSynchronize(CUevent) {
  NULL_COUNTED();
  run_queued();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuEventQuery(CUevent) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent, CUevent) {
  NULL_COUNTED();
  *ms = 0;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *) {
  NULL_COUNTED();
  *m = next_handle<CUmodule>();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuModuleUnload(CUmodule) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule, const char *) {
  NULL_COUNTED();
  *f = next_handle<CUfunction>();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuModuleGetGlobal(CUdeviceptr *p, std::size_t *bytes, CUmodule, const char *) {
  NULL_COUNTED();
  // The runtime's globals are flags and counters of a few words, zero as a module loads them
  // (the runtime reads a status word after launches of some modules).
  if (p) {
    *p = host_memory(4096);
    std::memset(reinterpret_cast<void *>(*p), 0, 4096);
  }
  if (bytes) *bytes = 4096;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction) {
  NULL_COUNTED();
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *v = 48 * 1024; break;
  default: *v = 0;
  }
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block, CUfunction, CUoccupancyB2DSize,
                                                           std::size_t, int limit) {
  NULL_COUNTED();
  *block = limit > 0 && limit < 256 ? limit : 256;
  *min_grid = 132 * (2048 / *block);
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction, int block, std::size_t) {
  NULL_COUNTED();
  *blocks = block > 0 ? 2048 / block : 0;
  return CUDA_SUCCESS;
}
NULL_CUDA_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                         unsigned, CUstream, void **, void **) {
  NULL_COUNTED();
  return CUDA_SUCCESS;
}
