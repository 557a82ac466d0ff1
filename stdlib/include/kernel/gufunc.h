// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Generalized universal functions (Numba's @guvectorize): a function over core
// sub-arrays, applied over the loop dimensions in front of them with broadcasting.
//
//   [[kernel::guvectorize("(n),(n)->()")]]
//   void dot(kernel::array_view<const float> a, kernel::array_view<const float> b, float &out) {
//     out = 0;
//     for (kernel::index_t i = 0; i < a.size(); ++i) out += a[i] * b[i];
//   }
//
//   constexpr kernel::gufunc<"(n),(n)->()", dot> vdot;
//   auto r = vdot(a, b);             // a, b of shape (m, n): r of shape (m,)
//   vdot.on(kernel::target::parallel)(a, b, r);
//
// The layout is also the gufunc's template argument, so that it is checked against the
// function at compile time even without the plugin. Core operands are array_views of the
// core rank; scalar ("()") inputs are scalars, scalar outputs non-const references. Array
// element types must equal the function's (no implicit conversion of whole sub-arrays);
// scalar arguments convert as for ufuncs. Several functions make several loops, chosen by
// the first whose element types match.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/array.h"
#include "kernel/detail/broadcast.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/gufunc_kernel.h"
#include "kernel/detail/gufunc_layout.h"
#include "kernel/detail/host_task.h"
#include "kernel/detail/placement.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/device.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"
#include "kernel/inspect.h"
#include "kernel/target.h"

namespace kernel {

namespace detail {

template <class P, class Arg> constexpr bool gu_accepts() {
  using param = gu_param<P>;
  using arg = ufunc_arg<Arg>;
  if constexpr (!param::supported || !arg::supported)
    return false;
  else if constexpr (arg::is_scalar)
    return param::core_rank == 0 && !param::scalar_output &&
           scalar_fits(dtype_of<typename arg::element_type>, dtype_of<typename param::element>);
  else
    return std::is_same_v<typename arg::element_type, typename param::element> &&
           static_cast<int>(arg::rank) >= param::core_rank && (!param::writable || arg::writable);
}

template <auto F, class... Args, std::size_t... K> constexpr bool gu_loop_accepts(std::index_sequence<K...>) {
  using fn = decltype(F);
  return (gu_accepts<std::tuple_element_t<K, typename function_traits<fn>::args_tuple>, Args>() && ...);
}

template <auto F, class... Args> constexpr bool gu_loop_accepts() {
  if constexpr (function_traits<decltype(F)>::arity != sizeof...(Args))
    return false;
  else
    return gu_loop_accepts<F, Args...>(std::index_sequence_for<Args...>{});
}

// The core dimension sizes bound so far, by name.
struct gu_dims {
  index_t size[gu_max_names];
  int bound_by[gu_max_names];
  gu_dims() {
    for (int i = 0; i < gu_max_names; ++i) {
      size[i] = -1;
      bound_by[i] = 0;
    }
  }
};

} // namespace detail

/// `on(...)` places a gufunc on a target, device or stream (detail::placed).
template <detail::fixed_string Layout, detail::function_pointer auto... F>
class gufunc : public detail::placed<gufunc<Layout, F...>> {
  static_assert(sizeof...(F) >= 1, "kernel::gufunc needs at least one function");
  static constexpr detail::gu_layout layout = detail::parse_gu_layout(Layout.view());
  static constexpr auto primary = std::get<0>(std::make_tuple(F...));

  template <auto Fn> static constexpr bool matches_layout() {
    using traits = detail::function_traits<decltype(Fn)>;
    if constexpr (traits::arity != static_cast<std::size_t>(layout.operands())) {
      return false;
    } else {
      return []<std::size_t... K>(std::index_sequence<K...>) {
        return (
            (detail::gu_param<std::tuple_element_t<K, typename traits::args_tuple>>::supported &&
             detail::gu_param<std::tuple_element_t<K, typename traits::args_tuple>>::core_rank == layout.core_rank[K] &&
             (static_cast<int>(K) < layout.nin ||
              detail::gu_param<std::tuple_element_t<K, typename traits::args_tuple>>::writable)) &&
            ...);
      }(std::make_index_sequence<traits::arity>{});
    }
  }
  static_assert((matches_layout<F>() && ...),
                "every function of a gufunc takes one parameter per operand of the layout: an array_view "
                "of the operand's core rank (writable for outputs), a scalar for a \"()\" input, a non-const "
                "reference for a \"()\" output");

public:
  static constexpr int nin = layout.nin;
  static constexpr int nout = layout.nout;

  constexpr gufunc() noexcept = default;
  constexpr explicit gufunc(target t) noexcept : detail::placed<gufunc>(t) {}

  static constexpr std::string_view name() noexcept { return detail::function_name<primary>(); }
  static constexpr std::string_view signature() noexcept { return Layout.view(); }

  /// The GPU kernels compiled for this gufunc, one per loop.
  static std::vector<kernel_info> inspect() {
    std::vector<kernel_info> kernels;
    for (const void *key : {reinterpret_cast<const void *>(&detail::gufunc_kernel<F>)...})
      if (auto info = detail::find_kernel(key)) kernels.push_back(std::move(*info));
    return kernels;
  }

  /// With `nin` arguments the outputs are allocated and returned (one: an ndarray or
  /// device_array, or a scalar when it has no dimensions, as `()->()` called with scalars;
  /// several: a std::tuple of them); with `nin + nout`, the last are the outputs.
  template <class... Args> auto operator()(Args &&...args) const {
    static_assert(sizeof...(Args) == nin || sizeof...(Args) == nin + nout,
                  "a gufunc call takes its inputs, optionally followed by all its outputs");
    if constexpr (sizeof...(Args) == nin) {
      return allocate_and_call(args...);
    } else {
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (detail::require_lasting_output<std::tuple_element_t<nin + K, std::tuple<Args...>>>(
             name(), static_cast<int>(nin + K) + 1, this->placed_on()),
         ...);
      }(std::make_index_sequence<nout>{});
      call(args...);
    }
  }

private:
  template <class... Args> static constexpr int select() {
    int index = 0, found = -1;
    ((found < 0 && detail::gu_loop_accepts<F, Args...>() ? (found = index) : 0, ++index), ...);
    return found;
  }
  template <int L> static constexpr auto loop_fn() { return std::get<L>(std::make_tuple(F...)); }

  // The loop whose inputs accept `In...` (outputs are not known yet).
  template <class... In> static constexpr int select_inputs() {
    int index = 0, found = -1;
    auto accepts = []<auto Fn>() {
      using traits = detail::function_traits<decltype(Fn)>;
      return []<std::size_t... K>(std::index_sequence<K...>) {
        return (detail::gu_accepts<std::tuple_element_t<K, typename traits::args_tuple>,
                                   std::tuple_element_t<K, std::tuple<In...>>>() &&
                ...);
      }(std::index_sequence_for<In...>{});
    };
    ((found < 0 && accepts.template operator()<F>() ? (found = index) : 0, ++index), ...);
    return found;
  }

  // A call no loop accepts is its two errors only (as for ufuncs): nothing is instantiated
  // with a loop that does not fit its arguments.
  template <class... In> auto allocate_and_call(In &...in) const {
    constexpr int L = select_inputs<In &...>();
    if constexpr (L >= 0) {
      return allocate_and_call_fitting<L>(in...);
    } else {
      static_assert(L >= 0, "no loop of this gufunc accepts these inputs: array element types must equal a "
                            "function's, and arrays need at least the layout's core dimensions");
      // The next error names the arguments' types and the loops' (the template's arguments).
      (void)sizeof(detail::no_loop_accepts<std::tuple<In &...>, decltype(F)...>);
      return detail::failed_call_result{};
    }
  }

  template <int L, class... In> auto allocate_and_call_fitting(In &...in) const {
    constexpr auto fn = loop_fn<L>();
    using traits = detail::function_traits<decltype(fn)>;
    constexpr bool on_device_arrays = (detail::ufunc_arg<In &>::is_device || ...);

    // Bind the core dimensions and broadcast the loop dimensions of the inputs.
    detail::gu_dims dims;
    std::array<detail::operand_layout, nin> loops{};
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((loops[K] = bind_operand<K>(in, dims)), ...);
    }(std::index_sequence_for<In...>{});
    const detail::iteration_space space = detail::broadcast_shapes(name(), loops, true);

    auto make = [&]<std::size_t O>(std::integral_constant<std::size_t, O>) {
      constexpr int op = nin + static_cast<int>(O);
      using P = std::tuple_element_t<op, typename traits::args_tuple>;
      using T = typename detail::gu_param<P>::element;
      constexpr std::size_t loop_rank = max_input_loop_rank<In...>();
      // An output of no dimensions (all inputs scalars or bare cores) is returned as a
      // scalar: it is computed into an array of one element.
      constexpr std::size_t rank = std::max<std::size_t>(output_rank<O, In...>(), 1);
      std::array<index_t, rank> shape{};
      shape[0] = 1;
      for (std::size_t d = 0; d < loop_rank; ++d) shape[d] = space.shape[d + space.rank - loop_rank];
      for (int j = 0; j < layout.core_rank[op]; ++j) {
        const int id = layout.dim[op][j];
        if (dims.size[id] < 0)
          throw argument_error(std::string(name()), op + 1,
                               "core dimension '" + std::string(layout.name[id]) +
                                   "' of this output is not given by any input; pass the output");
        shape[loop_rank + static_cast<std::size_t>(j)] = dims.size[id];
      }
      detail::checked_size(name(), op + 1, shape.data(), static_cast<int>(rank), sizeof(T));
      if constexpr (on_device_arrays) {
        const detail::device_call c = this->call_on(detail::first_device(name(), in...));
        return device_array<T, rank>(shape, c.stream, name(), 0);
      } else {
        return ndarray<T, rank>(ndarray<T, rank>::uninitialized, shape, name(), 0);
      }
    };
    auto outputs = [&]<std::size_t... O>(std::index_sequence<O...>) {
      return std::make_tuple(make(std::integral_constant<std::size_t, O>{})...);
    }(std::make_index_sequence<nout>{});
    std::apply([&](auto &...out) { call(in..., out...); }, outputs);
    auto result = [&]<std::size_t O>(std::integral_constant<std::size_t, O>) {
      auto &out = std::get<O>(outputs);
      if constexpr (output_rank<O, In...>() > 0)
        return std::move(out);
      else if constexpr (on_device_arrays) {
        detail::device_synchronize(out.device().state()); // the call may be on the user's stream
        return out.copy_to_host()[0];
      } else
        return out[0];
    };
    if constexpr (nout == 1)
      return result(std::integral_constant<std::size_t, 0>{});
    else
      return [&]<std::size_t... O>(std::index_sequence<O...>) {
        return std::make_tuple(result(std::integral_constant<std::size_t, O>{})...);
      }(std::make_index_sequence<nout>{});
  }

  // The rank of output O for inputs In: the inputs' loop dimensions and the output's core.
  template <std::size_t O, class... In> static constexpr std::size_t output_rank() {
    return max_input_loop_rank<In...>() + static_cast<std::size_t>(layout.core_rank[nin + static_cast<int>(O)]);
  }

  template <class... In> static constexpr std::size_t max_input_loop_rank() {
    std::size_t m = 0, k = 0;
    ((m = std::max<std::size_t>(m, detail::ufunc_arg<In &>::rank > static_cast<std::size_t>(layout.core_rank[k])
                                       ? detail::ufunc_arg<In &>::rank - static_cast<std::size_t>(layout.core_rank[k])
                                       : 0),
      ++k),
     ...);
    return m;
  }

  // Binds operand K's core dimensions (checking them against earlier operands) and returns
  // the layout of its loop dimensions. `op` (when given) receives the core shape/strides.
  template <std::size_t K, class A, class Operand = void>
  static detail::operand_layout bind_operand(A &a, detail::gu_dims &dims, Operand *op = nullptr) {
    using arg = detail::ufunc_arg<A &>;
    detail::operand_layout l;
    l.argument = static_cast<int>(K) + 1;
    l.is_output = static_cast<int>(K) >= nin;
    if constexpr (arg::is_scalar) {
      return l;
    } else {
      auto v = arg::view(a);
      detail::check_view(name(), static_cast<int>(K) + 1, v);
      constexpr int total = static_cast<int>(decltype(v)::rank);
      constexpr int core = layout.core_rank[K];
      static_assert(total >= core, "a gufunc argument has fewer dimensions than the layout's core dimensions");
      for (int j = 0; j < core; ++j) {
        const int id = layout.dim[K][j];
        const index_t size = v.shape(static_cast<std::size_t>(total - core + j));
        if (dims.size[id] < 0) {
          dims.size[id] = size;
          dims.bound_by[id] = static_cast<int>(K) + 1;
        } else if (dims.size[id] != size) {
          const std::string dim(layout.name[id]);
          // Named twice in this operand's own core ("(n,n)"): its two extents differ.
          const bool own = dims.bound_by[id] == static_cast<int>(K) + 1;
          throw argument_error(
              std::string(name()), static_cast<int>(K) + 1,
              own ? "its core dimensions named '" + dim + "' differ: " + std::to_string(dims.size[id]) + " and " +
                        std::to_string(size) + " (the layout names '" + dim + "' more than once, so they must be equal)"
                  : "core dimension '" + dim + "' is " + std::to_string(size) + " but argument " +
                        std::to_string(dims.bound_by[id]) + " gave " + dim + " = " + std::to_string(dims.size[id]));
        }
        if constexpr (!std::is_void_v<Operand>) {
          if constexpr (Operand::core > 0) {
            op->core_shape[static_cast<std::size_t>(j)] = size;
            op->core_strides[static_cast<std::size_t>(j)] = v.stride(static_cast<std::size_t>(total - core + j));
          }
        }
      }
      l.data = v.data();
      l.elem_size = sizeof(typename decltype(v)::element_type);
      l.rank = total - core;
      for (int d = 0; d < l.rank; ++d) {
        l.shape[d] = v.shape(static_cast<std::size_t>(d));
        l.strides[d] = v.stride(static_cast<std::size_t>(d));
      }
      return l;
    }
  }

  // The return type is deduced so that the call is instantiated at once, and its errors
  // show the chain of instantiations from the user's line (a void function template is
  // instantiated at the end of the file, from where it was named).
  template <class... A> auto call(A &...all) const {
    constexpr int L = select<A &...>();
    if constexpr (L >= 0) {
      call_fitting<loop_fn<L>()>(all...);
    } else {
      static_assert(L >= 0, "no loop of this gufunc accepts these arguments: array element types must equal a "
                            "function's, outputs must be writable, and arrays need the layout's core dimensions");
      (void)sizeof(detail::no_loop_accepts<std::tuple<A &...>, decltype(F)...>);
    }
  }

  template <auto fn, class... A> void call_fitting(A &...all) const {
    constexpr bool any_device = (detail::ufunc_arg<A &>::is_device || ...);
    check_user_arrays(all...);
    const bool on_host = this->placed_on().runs_on_host();
    if (on_host && !any_device) {
      run_host<fn>(all...);
      return;
    }
    run_device<fn>(this->call_on(on_host ? detail::first_device(name(), all...) : nullptr), all...);
  }

  // The overlap rule of ufuncs (detail::check_overlap), on the user's arrays with their core
  // dimensions, whatever the target: before anything is staged or written.
  template <class... A> static void check_user_arrays(A &...all) {
    std::array<detail::operand_layout, sizeof...(A)> user{};
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      auto one = [&]<std::size_t I>(std::integral_constant<std::size_t, I>, auto &a) {
        using arg = detail::ufunc_arg<decltype(a)>;
        detail::operand_layout &l = user[I];
        l.argument = static_cast<int>(I) + 1;
        l.is_output = static_cast<int>(I) >= nin;
        if constexpr (!arg::is_scalar) {
          l = detail::layout_of(name(), arg::view(a), static_cast<int>(I) + 1, static_cast<int>(I) >= nin);
          l.core_rank = layout.core_rank[I];
          if constexpr (arg::is_device) l.memory = &a.device().state();
        }
      };
      (one(std::integral_constant<std::size_t, K>{}, all), ...);
    }(std::index_sequence_for<A...>{});
    detail::check_overlap(name(), user);
  }

  // Fills the parameter block from operands whose data pointers are all in one memory (the
  // host's, or one device's).
  template <auto Fn, class... A> index_t fill_params(detail::gufunc_params_for<Fn> &p, A &...all) const {
    constexpr std::size_t N = sizeof...(A);
    using traits = detail::function_traits<decltype(Fn)>;
    detail::gu_dims dims;
    std::array<detail::operand_layout, N> loops{};
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      auto one = [&]<std::size_t I>(std::integral_constant<std::size_t, I>, auto &a) {
        auto &op = detail::get_gu_operand<I>(p.ops);
        loops[I] = bind_operand<I>(a, dims, &op);
        using arg = detail::ufunc_arg<decltype(a)>;
        using P = std::tuple_element_t<I, typename traits::args_tuple>;
        if constexpr (arg::is_scalar) {
          op.data = nullptr;
          op.value = detail::convert_scalar<typename detail::gu_param<P>::element>(name(), int(I) + 1, a);
        } else {
          op.data = static_cast<typename detail::gu_param<P>::pointer>(const_cast<void *>(loops[I].data));
        }
      };
      (one(std::integral_constant<std::size_t, K>{}, all), ...);
    }(std::index_sequence_for<A...>{});
    const detail::iteration_space space = detail::broadcast_shapes(name(), loops, true);
    const detail::loop_plan<N> plan = detail::plan_loop<N>(space, loops);
    if (plan.ndim > detail::max_device_dims)
      throw argument_error(std::string(name()), 0,
                           "the arrays' loop dimensions (those before the cores) do not merge into " +
                               std::to_string(detail::max_device_dims) +
                               " or fewer: their strides leave gaps in more than that many; copy the arrays "
                               "with gaps to contiguous arrays first");
    p.size = space.size();
    p.ndim = plan.ndim;
    for (int d = 0; d < plan.ndim; ++d) p.shape[d] = plan.shape[d];
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((std::copy_n(plan.strides[K], plan.ndim, detail::get_gu_operand<K>(p.ops).loop_strides)), ...);
    }(std::make_index_sequence<N>{});
    return p.size;
  }

  template <auto Fn, class... A> void run_host(A &...all) const {
    detail::gufunc_params_for<Fn> p{};
    const index_t size = fill_params<Fn>(p, all...);
    if (size == 0) return;
    // After the calls on streams delivering into these host arrays (program order).
    (
        [&] {
          using arg = detail::ufunc_arg<decltype(all)>;
          if constexpr (arg::supported && !arg::is_scalar && !arg::is_device) detail::await_host_writes(arg::view(all));
        }(),
        ...);
    // Through run_trapping: an integer division by zero in the loop function is an error.
    constexpr auto body = [](void *ctx, index_t b, index_t e) {
      detail::gufunc_range<Fn>(*static_cast<const detail::gufunc_params_for<Fn> *>(ctx), b, e);
    };
    // A gufunc's iterations each do a core computation: parallelise from a few hundred up.
    detail::loop_trapping(name(), this->placed_on().where == target::parallel, size, 256, body, &p);
  }

  // On a device: host arrays are copied to device memory (outputs back afterwards), device
  // arrays are used in place.
  template <auto Fn, class... A> void run_device(const detail::device_call &c, A &...all) const {
    std::vector<std::shared_ptr<void>> keep;
    std::vector<detail::host_task> copy_back;
    auto staged = [&]<std::size_t... K>(std::index_sequence<K...>) {
      auto refs = std::forward_as_tuple(all...);
      return std::make_tuple(stage(c, std::get<K>(refs), static_cast<int>(K), keep, copy_back)...);
    }(std::index_sequence_for<A...>{});
    std::apply(
        [&](auto &...s) {
          detail::gufunc_params_for<Fn> p{};
          const index_t size = fill_params<Fn>(p, s...);
          if (size == 0) return;
          const detail::kernel_ref k{
              reinterpret_cast<const void *>(&detail::gufunc_kernel<Fn>), name(),
              [](const void *q) { detail::gufunc_kernel<Fn>(*static_cast<const detail::gufunc_params_for<Fn> *>(q)); }};
          detail::launch(*c.device, k, detail::elementwise_config(*c.device, k, size), &p, sizeof p, *c.stream);
        },
        staged);
    for (auto &f : copy_back) f();
    if (!copy_back.empty() && !c.asynchronous) detail::stream_synchronize(*c.stream);
    if (!keep.empty()) detail::keep_until_done(*c.stream, std::move(keep));
  }

  // A device-memory stand-in for one argument: scalars as they are, device arrays as views,
  // host arrays as a contiguous device copy, outputs too (a function may read its output or
  // leave elements of it as they were, as it would in the host's memory on the CPU).
  template <class A>
  static auto stage(const detail::device_call &c, A &a, int index, std::vector<std::shared_ptr<void>> &keep,
                    std::vector<detail::host_task> &copy_back) {
    using arg = detail::ufunc_arg<A &>;
    if constexpr (arg::is_scalar) {
      return std::remove_cvref_t<A>(a);
    } else if constexpr (arg::is_device) {
      if (&a.device().state() != c.device)
        throw argument_error(std::string(name()), index + 1,
                             "is a device array on " + a.device().name() + " but the call runs on " +
                                 detail::device_name(*c.device));
      if (auto owned = detail::owned_device_memory(a); detail::needs_holding(owned, *c.stream))
        keep.push_back(std::move(owned));
      // Read-only operands (views of const elements, const device arrays) stay read-only.
      const auto v = arg::view(a);
      using T = std::remove_pointer_t<decltype(v.data())>;
      return device_view<std::conditional_t<arg::writable, T, const T>, decltype(v)::rank>(a.device(), v.data(),
                                                                                           v.shape(), v.strides());
    } else {
      auto host = arg::view(a);
      using T = typename arg::element_type;
      using V = device_view<std::conditional_t<arg::writable, T, const T>, decltype(host)::rank>;
      const std::size_t bytes = static_cast<std::size_t>(host.size()) * sizeof(T);
      std::shared_ptr<void> memory;
      if (bytes > 0) memory = detail::allocate_for(name(), index + 1, c, bytes);
      const bool output = index >= nin;
      if (bytes > 0) {
        auto staging = detail::pinned_allocate(*c.device, bytes);
        detail::gather(host, static_cast<T *>(staging.get()));
        detail::device_copy(*c.device, memory.get(), staging.get(), bytes, detail::copy_direction::host_to_device,
                            *c.stream);
        keep.push_back(std::move(staging));
      }
      // Only a writable array can be an output (a const view as an input must not
      // instantiate the copy back into it).
      if constexpr (arg::writable) {
        if (output && bytes > 0) {
          copy_back.push_back([&c, memory, host, bytes] {
            auto staging = detail::pinned_allocate(*c.device, bytes);
            detail::device_copy(*c.device, staging.get(), memory.get(), bytes, detail::copy_direction::device_to_host,
                                *c.stream);
            detail::deliver_into<T>(*c.stream, std::move(staging), host);
          });
        }
      }
      keep.push_back(memory);
      return V(kernel::device(c.device), static_cast<T *>(memory.get()), host.shape());
    }
  }
};

} // namespace kernel
