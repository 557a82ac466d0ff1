// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A ufunc call on a device (a CUDA GPU or the simulator): operands in device memory are used
// in place; host arrays are staged through page-locked memory, converted to the loop's types
// on the way in and out; scalars travel in the kernel's parameter block. Read-only inputs
// are never copied back. Without a stream the call returns when host results are written;
// with one, nothing waits (host results are there after the stream is synchronized).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/array.h"
#include "kernel/detail/broadcast.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/detail/ufunc_kernel.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"
#include "kernel/target.h"

namespace kernel::detail {

/// Where a device call runs and which stream orders its work.
struct device_call {
  device_state *device;
  std::shared_ptr<stream_state> stream;
  bool asynchronous; // a stream was given: do not wait for host results
};

/// A default-constructed device_array (no device, no elements) is an error of `callee` naming
/// the argument, before anything asks for its device.
template <class A> void require_device_of(std::string_view callee, int argument, const A &a) {
  if constexpr (requires { a.has_device(); })
    if (!a.has_device())
      throw argument_error(
          std::string(callee), argument,
          requires { a.memory(); }
              ? "is a default-constructed device_array, with no device and no elements: make it with "
                "a shape (and a device or stream)"
              : "is a default-constructed device_view, with no device and no elements: make it of a "
                "device array, or with a device, an address and a shape");
}

/// The device of the first device array among `args`, or null.
template <class... A> device_state *first_device(std::string_view callee, A &...args) {
  device_state *found = nullptr;
  int position = 0;
  auto visit = [&](auto &a) {
    ++position;
    if constexpr (ufunc_arg<decltype(a)>::supported && ufunc_arg<decltype(a)>::is_device) {
      require_device_of(callee, position, a);
      if (!found) found = &a.device().state();
    }
  };
  (visit(args), ...);
  return found;
}

/// Where a device call runs: on `stream` (asynchronously) when one was given, else on the
/// chosen device, the device of the arrays, the simulator when that is the target, or the
/// default device (CUDA device 0, or the simulator under KERNEL_ENABLE_SIMULATOR=1). When
/// there is no default device, `unavailable(reason)` is the message of the error thrown.
/// `where` is the target the call was placed on: the arrays' device must be of that target
/// (placed on cuda, arrays on the simulator are an error, not a run on the simulator).
template <class Unavailable>
device_call device_call_for(std::string_view callee, std::uint64_t stream, device_state *chosen,
                            device_state *array_device, target where, Unavailable &&unavailable) {
  const auto default_or_unavailable = [&] {
    try {
      return default_device();
    } catch (const target_unavailable_error &e) {
      throw target_unavailable_error(unavailable(e.what()));
    }
  };
  if (stream) {
    std::shared_ptr<stream_state> s = live_stream(stream);
    if (!s)
      throw argument_error(std::string(callee), 0,
                           "was placed on a stream (.on(stream)) that no longer exists: every kernel::stream handle "
                           "to it was destroyed or assigned another stream; keep one alive while calling it");
    device_state *d = &stream_device(*s);
    return {d, std::move(s), true};
  }
  if (!chosen && array_device && (where == target::cuda || where == target::simulator)) {
    const bool arrays_simulated = array_device == simulator_device();
    if (where == target::simulator && !arrays_simulated)
      throw argument_error(std::string(callee), 0,
                           "was placed on target simulator, but its device arrays are on " +
                               device_name(*array_device) +
                               "; place it on their device, or copy them to the simulator");
    // Under KERNEL_ENABLE_SIMULATOR=1 the simulator is the default device of target cuda.
    if (where == target::cuda && arrays_simulated && default_or_unavailable() != array_device)
      throw argument_error(std::string(callee), 0,
                           "was placed on target cuda, but its device arrays are on the simulator; place it "
                           ".on(kernel::target::simulator), or copy the arrays to a GPU");
  }
  device_state *d = chosen ? chosen : array_device;
  if (!d && where == target::simulator) d = simulator_device();
  if (!d) d = default_or_unavailable();
  return {d, default_stream(*d), false};
}

/// Device memory for argument `argument` of `callee` (a host array's copy): an allocation the
/// device cannot make is the same cuda_error (out_of_memory() still says so), naming the call,
/// the argument and the size, where the allocator alone could name only the device.
inline std::shared_ptr<void> allocate_for(std::string_view callee, int argument, const device_call &call,
                                          std::size_t bytes) {
  try {
    return device_allocate(*call.device, bytes, call.stream);
  } catch (const cuda_error &e) {
    throw cuda_error("'" + std::string(callee) + "': argument " + std::to_string(argument) + ", " +
                         std::to_string(bytes) + " bytes copied to the device: " + e.what(),
                     e.code());
  }
}

/// One operand after staging: its device address and layout, and what keeps it alive.
struct staged_operand {
  operand_layout layout;               // describes device memory
  std::shared_ptr<void> device_memory; // for operands staged from the host
  std::shared_ptr<void> array_memory;  // a device_array's own memory (null for views), for the
                                       // caller to hold until its work is done
  bool on_device_already = false;
};

/// The memory a device argument owns (a device_array's; a view owns none), which work queued
/// on a stream other than the one that allocated it must hold: freed in the order of its own
/// stream, it could be reused while that work still reads it (keep_until_done).
template <class A> std::shared_ptr<void> owned_device_memory(const A &a) {
  if constexpr (requires { a.memory(); })
    return a.memory();
  else
    return nullptr;
}

/// A device array the loop reads (or, `written`, writes) as Param on the call's device: on that
/// device, of that type (device arrays are never converted implicitly).
template <class Param, class A>
void require_device_operand(std::string_view callee, int argument, const device_call &call, const A &a,
                            bool written = false) {
  using arg = ufunc_arg<const A &>;
  if (&a.device().state() != call.device)
    throw argument_error(std::string(callee), argument,
                         "is a device array on " + a.device().name() + " but the call runs on " +
                             device_name(*call.device));
  if constexpr (!std::is_same_v<typename arg::element_type, Param>)
    throw argument_error(std::string(callee), argument,
                         "is a device array of " + std::string(dtype_name(dtype_of<typename arg::element_type>)) +
                             (written ? " but the selected loop writes " : " but the selected loop reads ") +
                             std::string(dtype_name(dtype_of<Param>)) +
                             (written ? ""
                                      : "; convert it on the device first (device arrays are never converted "
                                        "implicitly)"));
}

template <class Param, class A>
staged_operand stage_input(std::string_view callee, int argument, const device_call &call, A &a,
                           std::vector<std::shared_ptr<void>> &keep_alive) {
  using arg = ufunc_arg<A &>;
  staged_operand op;
  op.layout.argument = argument;
  if constexpr (arg::is_scalar) {
    return op; // travels by value in the parameter block
  } else if constexpr (arg::is_device) {
    require_device_operand<Param>(callee, argument, call, a);
    op.layout = layout_of(callee, arg::view(a), argument);
    op.on_device_already = true;
    op.array_memory = owned_device_memory(a);
    return op;
  } else {
    auto host = arg::view(a);
    const std::size_t count = static_cast<std::size_t>(host.size());
    const std::size_t bytes = count * sizeof(Param);
    array_view<Param, decltype(host)::rank> device_view(nullptr, host.shape());
    if (bytes > 0) {
      op.device_memory = allocate_for(callee, argument, call, bytes);
      auto staging = pinned_allocate(*call.device, bytes);
      gather(host, static_cast<Param *>(staging.get()));
      device_copy(*call.device, op.device_memory.get(), staging.get(), bytes, copy_direction::host_to_device,
                  *call.stream);
      keep_alive.push_back(std::move(staging));
      device_view = array_view<Param, decltype(host)::rank>(static_cast<Param *>(op.device_memory.get()), host.shape());
    }
    op.layout = layout_of(callee, device_view, argument);
    return op;
  }
}

/// The layout of a user's argument where it lives (host or device memory), checked, into
/// `l` as made (layouts[] of run_ufunc_on_device).
template <class A>
void fill_user_layout(operand_layout &l, std::string_view callee, A &a, int argument, bool is_output) {
  using arg = ufunc_arg<A &>;
  l.argument = argument;
  l.is_output = is_output;
  if constexpr (!arg::is_scalar) {
    if constexpr (arg::is_device) require_device_of(callee, argument, a);
    fill_layout(l, callee, arg::view(a), argument, is_output);
    if constexpr (arg::is_device) l.memory = &a.device().state();
  }
}

/// Runs loop `Fn` on the device of `call`: `out` is the output argument (a host or device
/// array) and `in...` the inputs.
template <auto Fn, class Out, class... In>
void run_ufunc_on_device(std::string_view callee, const device_call &call, Out &out, In &...in) {
  using traits = function_traits<decltype(Fn)>;
  using R = typename traits::result_type;
  using params_type = ufunc_params_for<Fn>;
  constexpr std::size_t nin = sizeof...(In);
  constexpr std::size_t N = nin + 1;
  using out_arg = ufunc_arg<Out &>;

  // The user's arrays are checked, broadcast and checked for overlap as the CPU targets do,
  // before anything is allocated or staged. Their layouts then become the device operands'
  // in place: a device array's is its own, a host array's becomes its staged copy's (the same
  // shape), so the iteration space is the user's. (Copies and second passes over these
  // layouts, of 32 dimensions each, were a third of a call's host time.)
  std::array<operand_layout, N> layouts; // each filled here, not zeroed first
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (fill_user_layout(layouts[K], callee, in, int(K) + 1, false), ...);
  }(std::index_sequence_for<In...>{});
  fill_user_layout(layouts[nin], callee, out, int(N), true);
  const iteration_space space = broadcast_shapes(callee, layouts);
  check_overlap(callee, layouts);

  // What the queued work must hold: empty, and never allocated, for device arrays of the
  // call's own stream, which are freed in its order anyway (the common case).
  std::vector<std::shared_ptr<void>> keep_alive;
  const auto hold = [&](std::shared_ptr<void> owned) {
    if (needs_holding(owned, *call.stream)) keep_alive.push_back(std::move(owned));
  };
  params_type params{};
  // Host inputs' device copies, freed in the call stream's order once the kernel is queued.
  std::array<std::shared_ptr<void>, N> staged;

  // Inputs: staged, and scalars converted into the parameter block.
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    auto stage = [&]<std::size_t I>(std::integral_constant<std::size_t, I>, auto &value) {
      using arg = ufunc_arg<std::remove_reference_t<decltype(value)> &>;
      using P = typename traits::template arg<I>;
      if constexpr (arg::is_scalar) {
        auto &operand = get_operand<I>(params.in);
        operand.data = nullptr;
        operand.value = convert_scalar<P>(callee, int(I) + 1, value);
      } else if constexpr (arg::is_device) {
        require_device_operand<P>(callee, int(I) + 1, call, value);
        hold(owned_device_memory(value));
      } else {
        staged_operand op = stage_input<P>(callee, int(I) + 1, call, value, keep_alive);
        layouts[I] = op.layout;
        staged[I] = std::move(op.device_memory);
      }
    };
    (stage(std::integral_constant<std::size_t, K>{}, in), ...);
  }(std::index_sequence_for<In...>{});

  // The output: a device array written in place, or device memory copied back afterwards.
  auto out_view = out_arg::view(out);
  std::shared_ptr<void> out_memory;
  if constexpr (out_arg::is_device) {
    require_device_operand<R>(callee, int(N), call, out, /*written=*/true);
    hold(owned_device_memory(out));
  } else {
    const std::size_t bytes = static_cast<std::size_t>(out_view.size()) * sizeof(R);
    array_view<R, decltype(out_view)::rank> device_view(nullptr, out_view.shape());
    if (bytes > 0) {
      out_memory = allocate_for(callee, int(N), call, bytes);
      device_view = array_view<R, decltype(out_view)::rank>(static_cast<R *>(out_memory.get()), out_view.shape());
    }
    layouts[nin] = layout_of(callee, device_view, int(N), /*is_output=*/true);
  }

  const loop_plan<N> plan = plan_loop<N>(space, layouts);
  const index_t size = space.size();
  if (size == 0) return;
  if (plan.ndim > max_device_dims)
    throw argument_error(std::string(callee), 0,
                         "the operands broadcast to " + std::to_string(plan.ndim) +
                             " dimensions that cannot be merged; GPU ufuncs handle up to " +
                             std::to_string(max_device_dims));

  params.size = size;
  params.ndim = plan.ndim;
  for (int d = 0; d < plan.ndim; ++d) params.shape[d] = plan.shape[d];
  for (int d = 0; d < plan.ndim; ++d) params.out.strides[d] = plan.strides[nin][d];
  params.out.data = static_cast<R *>(const_cast<void *>(layouts[nin].data));
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    auto set_array = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      auto &operand = get_operand<I>(params.in);
      if (layouts[I].rank == 0) return; // scalar, set above
      using P = typename traits::template arg<I>;
      operand.data = static_cast<const P *>(layouts[I].data);
      for (int d = 0; d < plan.ndim; ++d) operand.strides[d] = plan.strides[I][d];
    };
    (set_array(std::integral_constant<std::size_t, K>{}), ...);
  }(std::index_sequence_for<In...>{});

  const kernel_ref k{reinterpret_cast<const void *>(&ufunc_kernel<Fn>), callee,
                     [](const void *p) { ufunc_kernel<Fn>(*static_cast<const params_type *>(p)); }};
  const launch_config config = elementwise_config(*call.device, k, size);
  launch(*call.device, k, config, &params, sizeof params, *call.stream);

  if constexpr (!out_arg::is_device) {
    // Back through page-locked staging, converted and scattered into the host output.
    const std::size_t bytes = static_cast<std::size_t>(out_view.size()) * sizeof(R);
    auto staging = pinned_allocate(*call.device, bytes);
    device_copy(*call.device, staging.get(), out_memory.get(), bytes, copy_direction::device_to_host, *call.stream);
    deliver_into<R>(*call.stream, std::move(staging), out_view, std::move(keep_alive));
    if (!call.asynchronous) stream_synchronize(*call.stream);
  } else if (!keep_alive.empty()) {
    keep_until_done(*call.stream, std::move(keep_alive));
  }
}

} // namespace kernel::detail
