// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Devices, streams and events.
//
//   kernel::device gpu = kernel::device::cuda();      // CUDA device 0
//   kernel::device sim = kernel::device::simulator(); // the simulated device (host memory)
//   kernel::stream s;                                 // on the default device
//   vsaxpy.on(s)(2.0f, dx, dy, dout);                 // asynchronous on s
//   s.synchronize();
//
// The default device is CUDA device 0, or the simulator when the environment variable
// KERNEL_ENABLE_SIMULATOR=1 is set (as NUMBA_ENABLE_CUDASIM is for Numba).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "kernel/detail/device_api.h"
#include "kernel/errors.h"
#include "kernel/target.h"

namespace kernel {

class device {
public:
  /// CUDA device `ordinal`; throws target_unavailable_error when there is no such GPU.
  static device cuda(int ordinal = 0) { return device(detail::cuda_device(ordinal)); }
  /// The simulated device: memory on the host, kernels run by the simulator.
  static device simulator() { return device(detail::simulator_device()); }
  /// CUDA device 0, or the simulator under KERNEL_ENABLE_SIMULATOR=1. Without a GPU, the error
  /// says what a device array, stream or event made without a device could use instead.
  static device current() {
    try {
      return device(detail::default_device());
    } catch (const target_unavailable_error &e) {
      throw target_unavailable_error(std::string("the default device (of device arrays, streams and events given "
                                                 "none) is CUDA device 0: ") +
                                     e.what() +
                                     "; kernel::device::simulator() runs device code on the CPU, and "
                                     "KERNEL_ENABLE_SIMULATOR=1 makes it the default device");
    }
  }
  /// The device target `t` runs on: simulator() for target::simulator, current() for
  /// target::cuda; target::cpu and target::parallel run on the host (an argument_error).
  static device of(target t) {
    if (t == target::simulator) return simulator();
    if (t == target::cuda) return current();
    throw argument_error("device::of", 1,
                         "target " + std::string(target_name(t)) + " runs on the host, not on a device");
  }

  /// "cuda:0 (NVIDIA H100 80GB HBM3, sm_90)", "simulator".
  std::string name() const { return detail::device_name(*state_); }
  bool is_simulator() const noexcept { return detail::device_is_simulator(*state_); }
  /// 90 for sm_90; 0 for the simulator.
  int compute_capability() const noexcept { return detail::device_compute_capability(*state_); }
  /// Kernels launched and device allocations made on this device so far: to see what a
  /// call costs (a fused expression is one launch and no temporaries).
  detail::device_counters counters() const noexcept { return detail::device_counters_of(*state_); }
  /// Waits for all work on the device.
  void synchronize() const { detail::device_synchronize(*state_); }

  detail::device_state &state() const noexcept { return *state_; }
  friend bool operator==(const device &a, const device &b) noexcept { return a.state_ == b.state_; }

  explicit device(detail::device_state *state) noexcept : state_(state) {}

private:
  detail::device_state *state_;
};

/// An in-order queue of work on a device (a CUDA stream). Work given to a stream runs
/// asynchronously with the host; synchronize() waits for it.
class stream {
public:
  explicit stream(kernel::device d = kernel::device::current()) : state_(detail::create_stream(d.state())) {}
  // A handle: copies and moves share the stream, and a moved-from one stays usable.
  stream(const stream &) = default;
  stream(stream &&o) noexcept : state_(o.state_) {}
  stream &operator=(const stream &) = default;
  stream &operator=(stream &&o) noexcept {
    state_ = o.state_;
    return *this;
  }

  kernel::device device() const noexcept { return kernel::device(&detail::stream_device(*state_)); }
  void synchronize() const { detail::stream_synchronize(*state_); }
  /// True when all work queued so far is done.
  bool query() const { return detail::stream_query(*state_); }
  /// The CUstream, for interoperating with CUDA libraries; null on the simulator.
  void *native_handle() const noexcept { return detail::stream_native(*state_); }

  const std::shared_ptr<detail::stream_state> &state() const noexcept { return state_; }
  /// Another handle of the stream `state` (the library's: streams it was given by a call).
  explicit stream(std::shared_ptr<detail::stream_state> state) noexcept : state_(std::move(state)) {}

private:
  std::shared_ptr<detail::stream_state> state_;
};

/// A point in a stream's work, for waiting on and timing.
class event {
public:
  explicit event(device d = device::current()) : state_(detail::create_event(d.state())), device_(d) {}
  // A handle, as stream.
  event(const event &) = default;
  event(event &&o) noexcept : state_(o.state_), device_(o.device_) {}
  event &operator=(const event &) = default;
  event &operator=(event &&o) noexcept {
    state_ = o.state_;
    device_ = o.device_;
    return *this;
  }

  /// Records the event at the current end of `s`'s work.
  void record(const stream &s) { detail::event_record(*state_, *s.state()); }
  /// Records the event on the device's default stream.
  void record() { detail::event_record(*state_, *detail::default_stream(device_.state())); }
  void synchronize() const { detail::event_synchronize(*state_); }
  bool query() const { return detail::event_query(*state_); }
  /// Milliseconds from `start` to this event.
  float elapsed_ms(const event &start) const { return detail::event_elapsed_ms(*state_, *start.state_); }
  /// Makes later work on `s` wait for this event.
  void wait(const stream &s) const { detail::stream_wait(*s.state(), *state_); }

private:
  std::shared_ptr<detail::event_state> state_;
  device device_;
};

} // namespace kernel
