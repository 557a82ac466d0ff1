// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host side of a reduction on a device, shared by kernel::reduce and the reduction of a
// lazy expression: a block-reduction kernel (reduce_kernel.h, fused_kernel.h) launched once
// over the elements, every block writing one value, then, when there are several, once more
// in one block over those values.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernel/detail/device_api.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/types.h"

namespace kernel::detail {

/// Reduces `n` elements with kernel `k` on `call`'s stream and returns the value (waiting for
/// it). `first` is the parameter block of the first launch, whose per-block values go to the
/// address `set_out(first, out)` is given; `over_values(values, count, out)` makes the block
/// of the second launch, which folds `count` values at `values` into `out`.
template <class T, class Params, class SetOut, class OverValues>
T reduce_in_two_launches(const device_call &call, const kernel_ref &k, index_t n, Params first, SetOut &&set_out,
                         OverValues &&over_values) {
  constexpr unsigned block = 256; // whole warps: the kernels' shuffles need them
  // As many blocks as the device holds at once, counted at this block size: fewer left most
  // of an H200 idle, more ran the last ninth of the grid as a second wave on a few SMs.
  const launch_config resident = resident_config(*call.device, k, n, block);
  const index_t blocks = resident.grid.x;
  auto partials = device_allocate(*call.device, static_cast<std::size_t>(blocks) * sizeof(T), call.stream);
  set_out(first, static_cast<T *>(partials.get()));
  launch(*call.device, k, resident, &first, sizeof first, *call.stream);
  std::shared_ptr<void> result = partials;
  if (blocks > 1) {
    result = device_allocate(*call.device, sizeof(T), call.stream);
    const Params second = over_values(static_cast<const T *>(partials.get()), blocks, static_cast<T *>(result.get()));
    // One block of `block` threads folds the partial values (a few thousand at most): every
    // kernel can run 256 threads (255 registers each fit a multiprocessor), where one of many
    // registers (a complex128 product, a deep fused expression) cannot run 1024, and a GPU
    // refused the launch.
    launch(*call.device, k, {dim3(1), dim3(block), 0}, &second, sizeof second, *call.stream);
  }
  T value{};
  device_copy(*call.device, &value, result.get(), sizeof(T), copy_direction::device_to_host, *call.stream);
  stream_synchronize(*call.stream);
  return value;
}

} // namespace kernel::detail
