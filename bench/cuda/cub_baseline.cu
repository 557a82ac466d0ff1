// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// See cub_baseline.h.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <climits>

#include "cub_baseline.h"

namespace {

cudaStream_t stream_of(void *s) { return static_cast<cudaStream_t>(s); }

// CUB's fastest kernels index with 32 bits, and a CUB user passes an int where it fits.
bool fits(std::int64_t n) { return n >= 0 && n <= INT_MAX; }

struct positive {
  __device__ bool operator()(float x) const { return x > 0.0f; }
};

// The offsets of equal segments, computed where CUB reads them rather than stored.
struct segment_begin {
  int length;
  __host__ __device__ int operator()(int i) const { return i * length; }
};

} // namespace

extern "C" {

int cub_sort_keys(void *temp, std::size_t *temp_bytes, const std::uint32_t *in, std::uint32_t *out, std::int64_t n,
                  void *stream) {
  if (!fits(n)) return cudaErrorInvalidValue;
  return cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, in, out, static_cast<int>(n), 0, 32, stream_of(stream));
}

int cub_sort_pairs(void *temp, std::size_t *temp_bytes, const std::uint32_t *keys_in, std::uint32_t *keys_out,
                   const std::uint32_t *values_in, std::uint32_t *values_out, std::int64_t n, void *stream) {
  if (!fits(n)) return cudaErrorInvalidValue;
  return cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, keys_in, keys_out, values_in, values_out,
                                         static_cast<int>(n), 0, 32, stream_of(stream));
}

int cub_inclusive_sum(void *temp, std::size_t *temp_bytes, const float *in, float *out, std::int64_t n, void *stream) {
  if (!fits(n)) return cudaErrorInvalidValue;
  return cub::DeviceScan::InclusiveSum(temp, *temp_bytes, in, out, static_cast<int>(n), stream_of(stream));
}

int cub_sum(void *temp, std::size_t *temp_bytes, const float *in, float *out, std::int64_t n, void *stream) {
  if (!fits(n)) return cudaErrorInvalidValue;
  return cub::DeviceReduce::Sum(temp, *temp_bytes, in, out, static_cast<int>(n), stream_of(stream));
}

int cub_select_positive(void *temp, std::size_t *temp_bytes, const float *in, float *out, std::int64_t *count,
                        std::int64_t n, void *stream) {
  if (!fits(n)) return cudaErrorInvalidValue;
  return cub::DeviceSelect::If(temp, *temp_bytes, in, out, count, static_cast<int>(n), positive{}, stream_of(stream));
}

int cub_segmented_sort_descending(void *temp, std::size_t *temp_bytes, const float *keys_in, float *keys_out,
                                  const std::int32_t *values_in, std::int32_t *values_out, std::int64_t segments,
                                  std::int64_t length, void *stream) {
  if (!fits(segments * length)) return cudaErrorInvalidValue;
  const auto begins = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), segment_begin{int(length)});
  return cub::DeviceSegmentedSort::SortPairsDescending(temp, *temp_bytes, keys_in, keys_out, values_in, values_out,
                                                       static_cast<int>(segments * length), static_cast<int>(segments),
                                                       begins, begins + 1, stream_of(stream));
}
}
