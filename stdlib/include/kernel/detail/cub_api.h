// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's CUB calls (runtime/cub/): the array algorithms' radix sorts and prefix sums of
// built-in types on CUDA devices, through CUB compiled ahead of time (libkernel_cub.so, loaded
// on first use). Each call queues its work on the stream, or declines, queuing nothing, and
// the caller then runs kernels of this library instead: on the simulator, where the library
// cannot be found or is turned off (KERNEL_CUB=0), on devices older than its kernels, and
// for sizes and widths it was not built for.
#pragma once

#include <string>

#include "kernel/types.h"

namespace kernel::detail {

class device_state;
class stream_state;

/// The buffers of a radix sort: keys[0] (values[0]) hold the input, keys[1] (values[1]) are
/// scratch of the same size; the sort overwrites both.
struct cub_sort_buffers {
  void *keys[2] = {nullptr, nullptr};
  void *values[2] = {nullptr, nullptr};
};

/// Queues CUB's stable radix sort of `n` unsigned keys of `key_bytes` bytes by their bits
/// [0, end_bit), moving values of `value_bytes` bytes (0: none) with them, on `stream`, and
/// returns which of the buffers hold the results (0 or 1); returns -1 when it declines.
/// Throws cuda_error naming `name` and CUB's call when CUB fails.
int radix_sort_cub(const char *name, unsigned key_bytes, unsigned value_bytes, cub_sort_buffers &b, index_t n,
                   int end_bit, device_state &device, stream_state &stream);

/// Queues the prefix sums of `n` values of `in_type` from `in` to `out` (which may be `in`
/// when the types are one), made in `out_type`, inclusive or exclusive from *init (an
/// `out_type`), and returns true; false when it declines. The types are one of int32, int64,
/// uint32, uint64, float32 and float64, or bool and integers widened as cumsum widens them.
/// Errors as radix_sort_cub's.
bool sum_scan_cub(const char *name, dtype in_type, dtype out_type, bool exclusive, const void *in, void *out,
                  const void *init, index_t n, device_state &device, stream_state &stream);

/// Empty when the calls above take their work to CUB on `device`, else why they decline.
std::string cub_unavailable(device_state &device);

/// Whether the calls above may take work to CUB on `device` (cub_unavailable is empty), so
/// that a caller prepares their buffers only then. They may still decline: for sizes and
/// widths, and when the first call finds that CUB's CUDA runtime cannot start.
bool cub_may_run(device_state &device);

} // namespace kernel::detail
