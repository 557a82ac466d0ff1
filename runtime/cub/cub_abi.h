// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The C interface of libkernel_cub.so (cub_library.cu): CUB's device-wide algorithms for the
// built-in types, compiled ahead of time by nvcc, which the runtime loads on first use
// (cub_calls.cpp). Each call is CUB's two-phase call: with `temp` null it only sets
// `*temp_bytes`; otherwise it queues the work on `stream` (a CUstream) in the context current
// on the calling thread. Each returns a cudaError_t: 0 is success.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Changes whenever a function below changes; the runtime refuses a library of another.
#define KERNEL_CUB_ABI_VERSION 2

/// The element types of the scans.
enum kernel_cub_type {
  kernel_cub_bool,
  kernel_cub_int8,
  kernel_cub_int16,
  kernel_cub_int32,
  kernel_cub_int64,
  kernel_cub_uint8,
  kernel_cub_uint16,
  kernel_cub_uint32,
  kernel_cub_uint64,
  kernel_cub_float32,
  kernel_cub_float64
};

int kernel_cub_abi_version(void);

/// The lowest compute capability (major * 10 + minor) the library has kernels for: SASS for
/// each architecture it was built for, and PTX of the newest for those after it.
int kernel_cub_lowest_architecture(void);

/// cudaGetErrorName.
const char *kernel_cub_error_name(int error);

/// CUB's stable LSD radix sort of `n` unsigned keys of `key_bytes` bytes (1, 2, 4 or 8) by
/// their bits [0, end_bit), moving values of `value_bytes` bytes (0: none, 4 or 8) with them.
/// keys[0] (values[0]) holds the input and keys[1] (values[1]) is scratch of the same size;
/// both are overwritten, and the results are in keys[*selector] (values[*selector]).
int kernel_cub_radix_sort(void *temp, size_t *temp_bytes, unsigned key_bytes, unsigned value_bytes, void *keys[2],
                          void *values[2], uint32_t n, int end_bit, void *stream, int *selector);

/// Prefix sums of `n` values of `in_type` from `in` to `out` (which may be `in` when the types
/// are one), made in `out_type`: inclusive, or exclusive starting from *init (a value of
/// `out_type`). The types are one of the 32- and 64-bit ones, or bool and integers widened as
/// NumPy's cumsum widens them (to int64, unsigned ones to uint64); other pairs are
/// cudaErrorInvalidValue.
int kernel_cub_sum_scan(void *temp, size_t *temp_bytes, int in_type, int out_type, int exclusive, const void *in,
                        void *out, const void *init, uint32_t n, void *stream);

#ifdef __cplusplus
} // extern "C"
#endif
