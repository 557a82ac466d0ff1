// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// See cub_abi.h. Built by nvcc into libkernel_cub.so with the CUDA runtime linked statically
// and every symbol but these hidden, so that it coexists with a cudart the program has.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include "cub_abi.h"

#define KERNEL_CUB_EXPORT __attribute__((visibility("default")))

namespace {

cudaStream_t stream_of(void *s) { return static_cast<cudaStream_t>(s); }

template <class K, class V>
cudaError_t sort_pairs(void *temp, size_t *temp_bytes, void *keys[2], void *values[2], uint32_t n, int end_bit,
                       cudaStream_t stream, int *selector) {
  cub::DoubleBuffer<K> k(static_cast<K *>(keys[0]), static_cast<K *>(keys[1]));
  cub::DoubleBuffer<V> v(static_cast<V *>(values[0]), static_cast<V *>(values[1]));
  const cudaError_t status = cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, k, v, n, 0, end_bit, stream);
  *selector = k.selector;
  return status;
}

template <class K>
cudaError_t sort_keys_of(void *temp, size_t *temp_bytes, unsigned value_bytes, void *keys[2], void *values[2],
                         uint32_t n, int end_bit, cudaStream_t stream, int *selector) {
  switch (value_bytes) {
  case 0: {
    cub::DoubleBuffer<K> k(static_cast<K *>(keys[0]), static_cast<K *>(keys[1]));
    // 4-byte keys are counted in 64 bits, as thrust::sort counts them: CUB then sorts tiles of
    // 384 x 19 keys on sm_90 instead of 384 x 20, which on an H200 took 2^28 keys from 6.31 to
    // 5.42 ms (bench/cuda/radix_sort_tuning.cu: 19 is the fastest of 16 to 22 items).
    cudaError_t status;
    if constexpr (sizeof(K) == 4)
      status = cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, k, static_cast<long long>(n), 0, end_bit, stream);
    else
      status = cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, k, n, 0, end_bit, stream);
    *selector = k.selector;
    return status;
  }
  case 4: return sort_pairs<K, uint32_t>(temp, temp_bytes, keys, values, n, end_bit, stream, selector);
  case 8: return sort_pairs<K, uint64_t>(temp, temp_bytes, keys, values, n, end_bit, stream, selector);
  }
  return cudaErrorInvalidValue;
}

template <class In, class Out>
cudaError_t scan(void *temp, size_t *temp_bytes, int exclusive, const void *in, void *out, const void *init, uint32_t n,
                 cudaStream_t stream) {
  const In *from = static_cast<const In *>(in);
  Out *to = static_cast<Out *>(out);
  // The sums are made in the type of the initial value (CUB's accumulator type).
  const Out start = *static_cast<const Out *>(init);
  if (exclusive)
    return cub::DeviceScan::ExclusiveScan(temp, *temp_bytes, from, to, cuda::std::plus<>{}, start, n, stream);
  if constexpr (std::is_same_v<In, Out>)
    return cub::DeviceScan::InclusiveSum(temp, *temp_bytes, from, to, n, stream);
  else
    return cub::DeviceScan::InclusiveScanInit(temp, *temp_bytes, from, to, cuda::std::plus<>{}, Out{0}, n, stream);
}

constexpr int architectures[] = {__CUDA_ARCH_LIST__};

} // namespace

extern "C" {

KERNEL_CUB_EXPORT int kernel_cub_abi_version(void) { return KERNEL_CUB_ABI_VERSION; }

KERNEL_CUB_EXPORT int kernel_cub_lowest_architecture(void) { return architectures[0] / 10; }

KERNEL_CUB_EXPORT const char *kernel_cub_error_name(int error) {
  return cudaGetErrorName(static_cast<cudaError_t>(error));
}

KERNEL_CUB_EXPORT int kernel_cub_radix_sort(void *temp, size_t *temp_bytes, unsigned key_bytes, unsigned value_bytes,
                                            void *keys[2], void *values[2], uint32_t n, int end_bit, void *stream,
                                            int *selector) {
  const cudaStream_t s = stream_of(stream);
  switch (key_bytes) {
  case 1: return sort_keys_of<uint8_t>(temp, temp_bytes, value_bytes, keys, values, n, end_bit, s, selector);
  case 2: return sort_keys_of<uint16_t>(temp, temp_bytes, value_bytes, keys, values, n, end_bit, s, selector);
  case 4: return sort_keys_of<uint32_t>(temp, temp_bytes, value_bytes, keys, values, n, end_bit, s, selector);
  case 8: return sort_keys_of<uint64_t>(temp, temp_bytes, value_bytes, keys, values, n, end_bit, s, selector);
  }
  return cudaErrorInvalidValue;
}

KERNEL_CUB_EXPORT int kernel_cub_sum_scan(void *temp, size_t *temp_bytes, int in_type, int out_type, int exclusive,
                                          const void *in, void *out, const void *init, uint32_t n, void *stream) {
  const cudaStream_t s = stream_of(stream);
  if (in_type == out_type) {
    switch (out_type) {
    case kernel_cub_int32: return scan<int32_t, int32_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_int64: return scan<int64_t, int64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_uint32: return scan<uint32_t, uint32_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_uint64: return scan<uint64_t, uint64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_float32: return scan<float, float>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_float64: return scan<double, double>(temp, temp_bytes, exclusive, in, out, init, n, s);
    }
  } else if (out_type == kernel_cub_int64) {
    switch (in_type) {
    case kernel_cub_bool: return scan<bool, int64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_int8: return scan<int8_t, int64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_int16: return scan<int16_t, int64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_int32: return scan<int32_t, int64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    }
  } else if (out_type == kernel_cub_uint64) {
    switch (in_type) {
    case kernel_cub_uint8: return scan<uint8_t, uint64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_uint16: return scan<uint16_t, uint64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    case kernel_cub_uint32: return scan<uint32_t, uint64_t>(temp, temp_bytes, exclusive, in, out, init, n, s);
    }
  }
  return cudaErrorInvalidValue;
}

} // extern "C"
