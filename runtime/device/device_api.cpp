// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The functions of kernel/detail/device_api.h: the headers' entry into the device layer.
#include "kernel/detail/device_api.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/cuda_device.h"
#include "device/device_state.h"
#include "device/immortal.h"
#include "kernel/detail/shape_check.h"
#include "kernel/errors.h"
#include "settings/environment.h"
#include "simulator/simulator_device.h"

namespace kernel::detail {

device_state *cuda_device(int ordinal) { return &runtime::cuda::cuda_device::get(ordinal); }

device_state *simulator_device() { return &runtime::sim::simulator_device::get(); }

device_state *default_device() {
  static const bool simulate = [] {
    return runtime::switch_setting("KERNEL_ENABLE_SIMULATOR", "run device code on the simulator").value_or(false);
  }();
  return simulate ? simulator_device() : cuda_device(0);
}

std::string device_name(const device_state &d) { return d.name(); }
bool device_is_simulator(const device_state &d) noexcept { return d.is_simulator(); }
int device_compute_capability(const device_state &d) noexcept { return d.compute_capability(); }
void device_synchronize(device_state &d) { d.synchronize(); }

std::shared_ptr<stream_state> create_stream(device_state &d) { return d.create_stream(); }
const std::shared_ptr<stream_state> &default_stream(device_state &d) { return d.default_stream(); }
std::shared_ptr<stream_state> shared_stream(stream_state &s) { return s.shared_from_this(); }
device_state &stream_device(const stream_state &s) noexcept { return s.device(); }
void stream_synchronize(stream_state &s) { s.synchronize(); }
bool stream_query(stream_state &s) { return s.query(); }
void *stream_native(stream_state &s) noexcept { return s.native(); }
// Events and streams of different kinds of device (the simulator's, a GPU's) cannot meet: the
// devices' calls would take one for the other.
static void require_same_kind(const char *call, int argument, const device_state *event_device,
                              const device_state &other) {
  if (event_device && event_device->is_simulator() != other.is_simulator())
    throw argument_error(call, argument, "is on " + other.name() + " but the event is on " + event_device->name());
}

void stream_wait(stream_state &s, event_state &e) {
  require_same_kind("event::wait", 1, e.device, s.device());
  s.wait(e);
}

std::shared_ptr<event_state> create_event(device_state &d) {
  std::shared_ptr<event_state> e = d.create_event();
  e->device = &d;
  return e;
}
void event_record(event_state &e, stream_state &s) {
  if (e.device && e.device != &s.device())
    throw argument_error("event::record", 1,
                         "is a stream of " + s.device().name() + " but the event is on " + e.device->name());
  e.record(s);
  e.recorded = true;
}
void event_synchronize(event_state &e) { e.synchronize(); }
bool event_query(event_state &e) { return e.query(); }
float event_elapsed_ms(event_state &end, event_state &start) {
  if (!end.recorded || !start.recorded)
    throw argument_error("event::elapsed_ms", end.recorded ? 1 : 0,
                         std::string(end.recorded ? "the start event" : "this event") +
                             " was never recorded: record both events on a stream first");
  if (end.device != start.device)
    throw argument_error("event::elapsed_ms", 1, "the start event is on another device than this event");
  return end.elapsed_ms(start);
}

// The callers check shapes (kernel/detail/shape_check.h); this is the last line of defence
// against a byte count that wrapped or came from a negative extent.
static void check_allocation(const char *what, std::size_t bytes) {
  if (bytes > max_object_bytes)
    throw argument_error(what, 0, std::to_string(bytes) + " bytes is more than one allocation can hold");
}

namespace {
/// Guards every device_release's `others`: taken once per call that uses memory of another
/// stream, and once when such memory is freed. Immortal, as memory may be freed at exit.
std::mutex &other_streams_lock() {
  static runtime::immortal<std::mutex> m;
  return m.get();
}

/// device_allocate's deleter, a type of its own so that freed_in_order_on can find the stream.
/// It keeps the stream alive: the memory is freed in order on it, after the work that
/// `others` (streams other than its own that used it) had queued by the time it is freed.
struct device_release {
  device_state *device;
  std::shared_ptr<stream_state> stream;
  std::vector<std::shared_ptr<stream_state>> others;

  void operator()(void *q) noexcept {
    std::vector<std::shared_ptr<stream_state>> used_by;
    {
      std::lock_guard guard(other_streams_lock());
      used_by.swap(others);
    }
    // On the thread of a CUDA host function (memory a host task held) no driver call may be
    // made: the device frees it later on the legacy stream, which waits for every other one.
    if (device->in_host_work()) used_by.clear();
    for (const std::shared_ptr<stream_state> &other : used_by) {
      // The free waits, in its stream's order, for an event after the other stream's work.
      try {
        const std::shared_ptr<event_state> done = other->device().create_event();
        done->record(*other);
        stream->wait(*done);
      } catch (...) {
        try {
          other->synchronize();
        } catch (...) {
          // The device is failing: what frees the memory reports it, if anything can.
        }
      }
    }
    device->release(q, *stream);
  }
};

/// A stream of a CUDA device uses `memory` of another stream of device_allocate: the free
/// will wait for the work the stream has queued by then. False for any other memory.
bool freed_after_work_on(const std::shared_ptr<void> &memory, stream_state &s) {
  device_release *r = std::get_deleter<device_release>(memory);
  if (!r || r->device->is_simulator() || s.device().is_simulator()) return false;
  std::shared_ptr<stream_state> user = shared_stream(s);
  std::lock_guard guard(other_streams_lock());
  if (std::ranges::find(r->others, user) == r->others.end()) r->others.push_back(std::move(user));
  return true;
}
} // namespace

std::shared_ptr<void> device_allocate(device_state &d, std::size_t bytes, const std::shared_ptr<stream_state> &s) {
  check_allocation("device_allocate", bytes);
  void *p = d.allocate(bytes, *s);
  d.allocations.fetch_add(1, std::memory_order_relaxed);
  return std::shared_ptr<void>(p, device_release{&d, s, {}});
}

bool freed_in_order_on(const std::shared_ptr<void> &memory, const stream_state &s) noexcept {
  const device_release *r = std::get_deleter<device_release>(memory);
  return r && r->stream.get() == &s && !r->device->is_simulator();
}

void device_copy(device_state &d, void *dst, const void *src, std::size_t bytes, copy_direction direction,
                 stream_state &s) {
  d.copy(dst, src, bytes, direction, s);
}

void device_zero(device_state &d, void *dst, std::size_t bytes, stream_state &s) {
  if (bytes > 0) d.zero(dst, bytes, s);
}

std::shared_ptr<void> pinned_allocate(device_state &d, std::size_t bytes) {
  check_allocation("pinned_allocate", bytes);
  void *p = d.allocate_pinned(bytes);
  return std::shared_ptr<void>(p, [&d, bytes](void *q) { d.release_pinned(q, bytes); });
}

void host_work(stream_state &s, host_task work) { s.device().host_work(s, std::move(work)); }

void keep_until_done(stream_state &s, std::vector<std::shared_ptr<void>> what) {
  // Device memory of another stream is not held by host work, which costs a GPU call tens of
  // microseconds of host time and stalls the stream until the host has run it (an fft_inplace
  // of an array made on the default stream took 79 us a call instead of 8, and twice the
  // device time): its free waits for this stream instead (freed_after_work_on).
  std::erase_if(what,
                [&](const std::shared_ptr<void> &p) { return !needs_holding(p, s) || freed_after_work_on(p, s); });
  if (!what.empty()) host_work(s, [what = std::move(what)] {});
}

launch_config elementwise_config(device_state &d, const kernel_ref &k, index_t work) {
  return d.elementwise_config(k, work);
}

launch_config resident_config(device_state &d, const kernel_ref &k, index_t work, unsigned block) {
  return d.resident_config(k, work, block);
}

void launch(device_state &d, const kernel_ref &k, const launch_config &config, const void *params,
            std::size_t param_size, stream_state &s) {
  d.launch(k, config, params, param_size, s);
  d.launches.fetch_add(1, std::memory_order_relaxed);
}

device_counters device_counters_of(const device_state &d) noexcept {
  return {d.launches.load(std::memory_order_relaxed), d.allocations.load(std::memory_order_relaxed)};
}

} // namespace kernel::detail
