// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's device layer as the header templates see it: opaque device, stream and
// event states and the functions that act on them (runtime/device/device_api.cpp). The
// public wrappers are in kernel/device.h and kernel/device_array.h.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/detail/host_task.h"
#include "kernel/intrinsics.h"
#include "kernel/types.h"

namespace kernel::detail {

class device_state;
class stream_state;
class event_state;

/// A GPU entry as the headers name it: the address of its host copy (the registry key), the
/// user's name for messages, and how the simulator calls the host copy.
struct kernel_ref {
  const void *host_key;
  std::string_view name;
  void (*invoke)(const void *params);
};

struct launch_config {
  dim3 grid;
  dim3 block;
  unsigned shared_bytes = 0;
};

enum class copy_direction { host_to_device, device_to_host, device_to_device };

device_state *cuda_device(int ordinal);
device_state *simulator_device();
/// The simulator when KERNEL_ENABLE_SIMULATOR=1, else CUDA device 0.
device_state *default_device();
std::string device_name(const device_state &d);
bool device_is_simulator(const device_state &d) noexcept;
int device_compute_capability(const device_state &d) noexcept;
void device_synchronize(device_state &d);

std::shared_ptr<stream_state> create_stream(device_state &d);
const std::shared_ptr<stream_state> &default_stream(device_state &d);
/// A handle of a stream that some handle still holds.
std::shared_ptr<stream_state> shared_stream(stream_state &s);
/// A stream's id: unique in the process, never reused (unlike its address).
std::uint64_t stream_id(const stream_state &s) noexcept;
/// The stream of `id` while some handle to it lives, else null.
std::shared_ptr<stream_state> live_stream(std::uint64_t id) noexcept;
/// What stream_state's constructor and destructor tell live_stream.
void note_live_stream(stream_state &s);
void forget_live_stream(std::uint64_t id) noexcept;
device_state &stream_device(const stream_state &s) noexcept;
void stream_synchronize(stream_state &s);
bool stream_query(stream_state &s);
void *stream_native(stream_state &s) noexcept;
void stream_wait(stream_state &s, event_state &e);

std::shared_ptr<event_state> create_event(device_state &d);
void event_record(event_state &e, stream_state &s);
void event_synchronize(event_state &e);
bool event_query(event_state &e);
float event_elapsed_ms(event_state &end, event_state &start);

/// Device memory of `bytes`, allocated and eventually freed in order on `s` (which the
/// allocation keeps alive).
std::shared_ptr<void> device_allocate(device_state &d, std::size_t bytes, const std::shared_ptr<stream_state> &s);
/// Whether `memory` may be let go while work queued on `s` still uses it: memory of
/// device_allocate on `s` itself, which a CUDA device frees in that stream's order
/// (cuMemFreeAsync). The simulator frees at once, and other memory is freed in the order of
/// its own stream, or on the host: those must be held until the work is done.
bool freed_in_order_on(const std::shared_ptr<void> &memory, const stream_state &s) noexcept;
/// Whether work queued on `s` must hold `memory` until it is done: not null, and not freed in
/// `s`'s order anyway. Where nothing does, a call builds no list of it (keep_until_done).
inline bool needs_holding(const std::shared_ptr<void> &memory, const stream_state &s) noexcept {
  return memory && !freed_in_order_on(memory, s);
}
void device_copy(device_state &d, void *dst, const void *src, std::size_t bytes, copy_direction direction,
                 stream_state &s);
/// Sets `bytes` of device memory to zero, in order on `s`.
void device_zero(device_state &d, void *dst, std::size_t bytes, stream_state &s);
/// Page-locked host memory for staging transfers.
std::shared_ptr<void> pinned_allocate(device_state &d, std::size_t bytes);
/// Runs `work` on the host after everything queued on `s` so far.
void host_work(stream_state &s, host_task work);
/// host_work that writes host memory [begin, end) (a result copied out of its staging
/// buffer): until it has, await_host_writes on memory overlapping it waits. Queued after
/// the deliveries other streams queued into memory overlapping it have been written (it
/// waits for them), so that the calls' results land in program order.
void deliver_to_host(stream_state &s, const void *begin, const void *end, host_task deliver);
/// Waits for the deliveries queued into host memory overlapping [begin, end), so that a read
/// of it (a later call staging it as an input) sees the results of the calls before.
void await_host_writes(const void *begin, const void *end);
/// Waits for the deliveries streams other than `s` queued into host memory overlapping
/// [begin, end): before work on `s` writes that memory itself.
void await_other_streams_writes(const stream_state &s, const void *begin, const void *end);
/// Whether any delivery into host memory is queued: where none is, a call with many host
/// operands asks once rather than once per operand.
bool host_deliveries_pending() noexcept;
/// Keeps `what` alive until the work queued on `s` so far is done. Null pointers need
/// nothing, nor does device memory that the device frees in `s`'s order anyway
/// (freed_in_order_on); a CUDA device's memory of another stream is freed in its own
/// stream's order after an event on `s`. Host work holds the stream up until the host has
/// run it (tens of microseconds a call on a GPU), so it is queued only for what needs it
/// (host memory, the simulator's, objects that own memory).
void keep_until_done(stream_state &s, std::vector<std::shared_ptr<void>> what);
/// The same for a few pointers in braces, without building their list on the heap where none
/// needs holding (the common case: a device array of the call's own stream).
inline void keep_until_done(stream_state &s, std::initializer_list<std::shared_ptr<void>> what) {
  if (std::any_of(what.begin(), what.end(), [&](const std::shared_ptr<void> &p) { return needs_holding(p, s); }))
    keep_until_done(s, std::vector<std::shared_ptr<void>>(what));
}

/// The configuration for `work` independent items processed in a grid-stride loop: up to
/// one thread per item.
launch_config elementwise_config(device_state &d, const kernel_ref &k, index_t work);
/// Blocks of `block` threads, at most as many as the device runs at once, for kernels that
/// combine per block (reductions): each block walks a share of the `work` items. Counted at
/// that block size: a count of the occupancy calculator's larger blocks, converted, can ask
/// for more than fit (one block in nine ran as a second wave on an H200).
launch_config resident_config(device_state &d, const kernel_ref &k, index_t work, unsigned block);
/// Kernels launched on a device and device allocations made, since the program started.
struct device_counters {
  std::uint64_t launches = 0;
  std::uint64_t allocations = 0;
};
device_counters device_counters_of(const device_state &d) noexcept;

/// Launches kernel `k` with its parameter block on `s`.
void launch(device_state &d, const kernel_ref &k, const launch_config &config, const void *params,
            std::size_t param_size, stream_state &s);

} // namespace kernel::detail
