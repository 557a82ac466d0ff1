// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUB's device-wide algorithms as a CUDA user calls them, compiled by nvcc (cub_baseline.cu)
// for gpu_algorithm_bench. Each function is CUB's two-phase call: with `temp` null it only
// sets `*temp_bytes`; otherwise it enqueues the work on `stream` (a CUstream). They return a
// cudaError_t (0 is success); sizes past INT_MAX are refused (cudaErrorInvalidValue), as CUB is
// called with int sizes, the way its users call it.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

/// cub::DeviceRadixSort::SortKeys of all 32 bits.
int cub_sort_keys(void *temp, std::size_t *temp_bytes, const std::uint32_t *in, std::uint32_t *out, std::int64_t n,
                  void *stream);
/// cub::DeviceRadixSort::SortPairs of all 32 bits of the keys.
int cub_sort_pairs(void *temp, std::size_t *temp_bytes, const std::uint32_t *keys_in, std::uint32_t *keys_out,
                   const std::uint32_t *values_in, std::uint32_t *values_out, std::int64_t n, void *stream);
/// cub::DeviceScan::InclusiveSum.
int cub_inclusive_sum(void *temp, std::size_t *temp_bytes, const float *in, float *out, std::int64_t n, void *stream);
/// cub::DeviceReduce::Sum into one float of device memory.
int cub_sum(void *temp, std::size_t *temp_bytes, const float *in, float *out, std::int64_t n, void *stream);
/// cub::DeviceSelect::If with `x > 0`; the count goes to device memory.
int cub_select_positive(void *temp, std::size_t *temp_bytes, const float *in, float *out, std::int64_t *count,
                        std::int64_t n, void *stream);
/// cub::DeviceSegmentedSort::SortPairsDescending of `segments` contiguous segments of
/// `length` keys each, carrying int values (the positions in each segment).
int cub_segmented_sort_descending(void *temp, std::size_t *temp_bytes, const float *keys_in, float *keys_out,
                                  const std::int32_t *values_in, std::int32_t *values_out, std::int64_t segments,
                                  std::int64_t length, void *stream);
}
