// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the runtime knows of a device, a stream and an event: the interface both device
// backends implement, the CUDA driver's (cuda/cuda_device.cpp) and the simulated device's
// (simulator/simulator_device.cpp). Headers see these types only as opaque pointers, through
// kernel/detail/device_api.h.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "kernel/detail/device_api.h"
#include "kernel/detail/host_task.h"

namespace kernel::detail {

class event_state;

// Always owned by a shared_ptr (make_shared), so that a handle can be had again from the
// stream itself (shared_stream), or from its id while it lives (live_stream: a callable placed
// on a stream holds only the id, and finds the stream gone rather than a dangling address).
class stream_state : public std::enable_shared_from_this<stream_state> {
public:
  explicit stream_state(device_state &device) : device_(device), id_(next_id()) { note_live_stream(*this); }
  virtual ~stream_state() { forget_live_stream(id_); }
  stream_state(const stream_state &) = delete;
  stream_state &operator=(const stream_state &) = delete;

  device_state &device() const noexcept { return device_; }
  /// Unique in the process: unlike the stream's address, never that of a later stream, so
  /// that what is cached per stream (cuFFT's plans) is never shared by two.
  std::uint64_t id() const noexcept { return id_; }
  virtual void synchronize() = 0;
  /// True when all work queued so far is done.
  virtual bool query() = 0;
  /// Later work on this stream waits for `e`.
  virtual void wait(event_state &e) = 0;
  /// The backend's handle (CUstream), or null.
  virtual void *native() noexcept = 0;
  /// Expires when the stream is destroyed, so that what is kept per stream (the math
  /// libraries' handles and plans) can be released then.
  std::weak_ptr<const void> liveness() const noexcept { return alive_; }

private:
  static std::uint64_t next_id() noexcept {
    static std::atomic<std::uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  device_state &device_;
  const std::uint64_t id_;
  const std::shared_ptr<const void> alive_ = std::make_shared<char>();
};

class event_state {
public:
  virtual ~event_state() = default;
  virtual void record(stream_state &s) = 0;
  virtual void synchronize() = 0;
  virtual bool query() = 0;
  /// Milliseconds from `start` to this event (both recorded and complete).
  virtual float elapsed_ms(event_state &start) = 0;

  /// The device of a kernel::event (set by detail::create_event; null for the runtime's own),
  /// and whether it was recorded: what the public calls check before the device's calls.
  device_state *device = nullptr;
  bool recorded = false;
};

class device_state {
public:
  virtual ~device_state() = default;
  device_state() = default;
  device_state(const device_state &) = delete;
  device_state &operator=(const device_state &) = delete;

  virtual std::string name() const = 0;
  virtual bool is_simulator() const noexcept = 0;
  /// Makes the device current on the calling thread for libraries that reach it through the
  /// CUDA runtime API (cuRAND), which uses the thread's current context.
  virtual void make_current() const {}

  /// What has been asked of the device so far (kernel::device::counters).
  std::atomic<std::uint64_t> launches{0};
  std::atomic<std::uint64_t> allocations{0};
  /// 90 for sm_90; 0 for the simulator.
  virtual int compute_capability() const noexcept = 0;

  virtual std::shared_ptr<stream_state> create_stream() = 0;
  /// Where work goes when the caller names no stream (the legacy default stream on CUDA).
  const std::shared_ptr<stream_state> &default_stream() const noexcept { return default_stream_; }
  virtual std::shared_ptr<event_state> create_event() = 0;

  /// Device memory, ordered on `s` (cuMemAllocAsync's pool on CUDA).
  virtual void *allocate(std::size_t bytes, stream_state &s) = 0;
  virtual void release(void *p, stream_state &s) noexcept = 0;
  virtual void copy(void *dst, const void *src, std::size_t bytes, copy_direction kind, stream_state &s) = 0;
  /// Sets `bytes` of device memory to zero, in order on `s`.
  virtual void zero(void *dst, std::size_t bytes, stream_state &s) = 0;

  /// Page-locked host memory for staging transfers (recycled through a pool).
  virtual void *allocate_pinned(std::size_t bytes) = 0;
  virtual void release_pinned(void *p, std::size_t bytes) noexcept = 0;

  /// Runs `work` on the host once everything queued on `s` before it is done. `work` must
  /// not call into the device API.
  virtual void host_work(stream_state &s, host_task work) = 0;
  /// True on the thread that runs host work queued on this device, where no driver call may
  /// be made (a CUDA host function): what is released there is released later.
  virtual bool in_host_work() const noexcept { return false; }

  virtual launch_config elementwise_config(const kernel_ref &k, index_t work) = 0;
  /// Blocks of `block` threads, as many as the device runs at once (fewer when `work` items
  /// need fewer, one thread each).
  virtual launch_config resident_config(const kernel_ref &k, index_t work, unsigned block) = 0;
  virtual void launch(const kernel_ref &k, const launch_config &config, const void *params, std::size_t param_size,
                      stream_state &s) = 0;

  virtual void synchronize() = 0;

protected:
  /// Set by each backend's constructor: a stream refers to its device, which must exist first.
  std::shared_ptr<stream_state> default_stream_;
};

} // namespace kernel::detail
