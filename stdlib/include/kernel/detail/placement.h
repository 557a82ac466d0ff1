// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where a call runs: the target, and the device or stream chosen with `.on(...)`. One type
// holds that choice for kernel::ufunc, kernel::gufunc, kernel::reduce and kernel::launcher, and
// one base class gives the first three their `on(target)`, `on(device)` and `on(stream)`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "kernel/detail/device_api.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/device.h"
#include "kernel/errors.h"
#include "kernel/target.h"

namespace kernel::detail {

/// The message of the error thrown when `callee` was to run on a GPU and cannot: `why`.
inline std::string no_device_message(std::string_view callee, const std::string &why) {
  return "'" + std::string(callee) + "' on target cuda: " + why +
         ". Targets that work on this machine: cpu, parallel, simulator";
}

/// A callable's target and the device and stream chosen for it. A device or stream is only
/// chosen together with target cuda or simulator: choosing a target drops them.
struct placement {
  target where = target::cpu;
  device_state *chosen_device = nullptr; ///< null: the arrays' device or the default one
  /// Non-zero: the call is asynchronous, on the stream of this id (stream_id). The stream
  /// itself, not the `stream` handle it was chosen with, so that moving or copying that handle
  /// (a vector of streams growing) leaves a placed callable valid; and its id, not its
  /// address, so that a call after every handle is gone (`s` reassigned) is an error naming
  /// the callable, not a use of freed memory.
  std::uint64_t chosen_stream = 0;
  /// Set by `.on(...)` and by a constructor given a target: a lazy expression the call takes
  /// is then evaluated there, not where its outermost ufunc is placed. An explicit
  /// `.on(target::cpu)` is a choice too, which the fields above alone could not tell apart.
  bool chosen = false;

  /// Device `d`, and its target: the simulator for the simulated device, cuda for a GPU.
  static placement of(device d) noexcept {
    return {d.is_simulator() ? target::simulator : target::cuda, &d.state(), 0};
  }
  /// Stream `s`, on its device.
  static placement of(const stream &s) noexcept {
    placement p = of(s.device());
    p.chosen_stream = stream_id(*s.state());
    return p;
  }

  /// True when the call runs on the host's cores, not on a device.
  constexpr bool runs_on_host() const noexcept { return where == target::cpu || where == target::parallel; }

  /// Where a device call of `callee` runs (see device_call_for): `array_device` is the device
  /// of the call's device arrays, or null; `unavailable(why)` the message when there is no
  /// device.
  template <class Unavailable>
  device_call call_on(std::string_view callee, device_state *array_device, Unavailable &&unavailable) const {
    return device_call_for(callee, chosen_stream, chosen_device, array_device, where, unavailable);
  }
};

/// The `on(...)` overloads of a callable `Derived` (CRTP): each returns a copy of it placed
/// elsewhere. Derived reads where it runs with placed_on() and finds its device with call_on().
template <class Derived> class placed {
public:
  /// The same callable running on target `t`.
  constexpr Derived on(target t) const noexcept { return placed_at(placement{t}); }
  /// The same callable running on device `d`.
  Derived on(device d) const noexcept { return placed_at(placement::of(d)); }
  /// The same callable running asynchronously, in order on stream `s`. The placed copy
  /// refers to the stream, not to the handle `s`: a copy or move of `s` may take its place,
  /// but some handle to the stream must live as long as the placed copy is called.
  Derived on(const stream &s) const noexcept { return placed_at(placement::of(s)); }
  /// Not on a temporary stream: no handle would be left to keep the stream alive until a
  /// call made later (keep the stream in a variable).
  Derived on(const stream &&) const = delete;

protected:
  constexpr placed() noexcept = default;
  constexpr explicit placed(target t) noexcept : placement_{t, nullptr, 0, true} {}

  constexpr const placement &placed_on() const noexcept { return placement_; }

  /// Where a device call of Derived runs; `unavailable(why)` is the message when there is no
  /// device (by default no_device_message for Derived::name()).
  template <class Unavailable> device_call call_on(device_state *array_device, Unavailable &&unavailable) const {
    return placement_.call_on(Derived::name(), array_device, unavailable);
  }
  device_call call_on(device_state *array_device) const {
    return placement_.call_on(Derived::name(), array_device,
                              [](const std::string &why) { return no_device_message(Derived::name(), why); });
  }

private:
  constexpr Derived placed_at(const placement &p) const noexcept {
    Derived copy = static_cast<const Derived &>(*this);
    static_cast<placed &>(copy).placement_ = p;
    static_cast<placed &>(copy).placement_.chosen = true;
    return copy;
  }

  placement placement_;
};

/// An array a call writes (its output, or an array changed in place), given as a temporary
/// host container (`A` as forwarded: not an lvalue reference) to a call placed on a stream:
/// the results would be copied back into it after it is gone. Refused, as a launch refuses
/// one; a named array, a view or a device array is fine, and so is any array off a stream
/// (the call is done when it returns).
template <class A> void require_lasting_output(std::string_view name, int argument, const placement &p) {
  if constexpr (temporary_host_container<A>())
    if (p.chosen_stream != 0)
      throw argument_error(std::string(name), argument,
                           "is a temporary host array: on a stream its results would be copied back after it is "
                           "gone; pass a named array");
}

} // namespace kernel::detail
