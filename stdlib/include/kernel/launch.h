// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Launching CUDA-style kernels: `[[kernel::jit]]` functions, as Numba's kernel[grid, block](...)
// and CUDA's kernel<<<grid, block, shared, stream>>>(...).
//
//   [[kernel::jit]] void increment(kernel::array_view<float> a) {
//     const kernel::index_t i = kernel::grid<1>();
//     if (i < a.size()) a[i] += 1;
//   }
//
//   kernel::launch<increment>(blocks, threads)(d_a);                 // a device array: no copy
//   kernel::launch<increment>(blocks, threads, stream)(d_a);         // asynchronous on `stream`
//   kernel::launch<increment>(blocks, threads, stream, shared)(d_a); // dynamic shared memory
//   kernel::launch<increment>(blocks, threads)(host_vector);         // copied in, and back out
//   kernel::launch<increment>(blocks, threads).on(kernel::target::simulator)(host_vector);
//
// Array parameters (array_view<T, N>) take device arrays, used in place, or host arrays of
// the same element type and rank, which are copied to the device before the kernel and, when
// the parameter is writable (array_view<T>, not array_view<const T>), back afterwards. The
// same host array given twice shares one copy; other overlaps of host arrays, one of them
// written, are an argument_error (their copies would not share the kernel's writes).
// Scalars and trivially copyable structs are passed by value. Without a stream and host
// arrays to copy back the launch is asynchronous, as in CUDA; the simulator runs it at once.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/array.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/host_task.h"
#include "kernel/detail/jit_kernel.h"
#include "kernel/detail/placement.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/device.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"
#include "kernel/inspect.h"
#include "kernel/target.h"

namespace kernel {

namespace detail {

template <class P> struct kernel_param {
  using type = std::remove_cvref_t<P>;
  static constexpr bool is_array = is_array_view<type>::value;
};

// How argument A feeds parameter P, checked at compile time: whether it can (and if not, an
// error saying why).
template <class P, class A> constexpr bool check_kernel_argument() {
  using param = kernel_param<P>;
  using arg = ufunc_arg<A &>;
  if constexpr (param::is_array) {
    using view = typename param::type;
    constexpr bool array = arg::supported && !arg::is_scalar;
    static_assert(array, "a kernel's array parameter takes a device array or a host array (std::vector, ndarray, span, "
                         "array_view)");
    if constexpr (!array) {
      return false;
    } else {
      constexpr bool same_elements = std::is_same_v<typename arg::element_type, typename view::value_type>;
      constexpr bool same_rank = arg::rank == view::rank;
      constexpr bool writable = arg::writable || std::is_const_v<typename view::element_type>;
      static_assert(same_elements, "a kernel's array argument must have the parameter's element type (no implicit "
                                   "conversion of arrays)");
      static_assert(same_rank, "a kernel's array argument must have the parameter's rank");
      if constexpr (!arg::is_device)
        static_assert(writable, "the kernel writes this array parameter but the host argument is const: its results "
                                "could not be copied back; pass a writable host array or a device array");
      else
        static_assert(writable,
                      "the kernel writes this array parameter but the device argument is a view of const elements");
      return same_elements && same_rank && writable;
    }
  } else {
    constexpr bool copyable = std::is_trivially_copyable_v<typename param::type>;
    constexpr bool converts = std::is_convertible_v<A &, typename param::type>;
    static_assert(copyable, "kernel parameters that are not arrays are passed by value and must be trivially copyable");
    static_assert(converts, "a kernel argument does not convert to the parameter's type");
    return copyable && converts;
  }
}

/// A host array a launch copies to the device: where its elements are, to find arguments that
/// share memory (the copies would not).
struct host_argument {
  bool is_host_array = false;
  bool writable = false; // the parameter it feeds may be written
  operand_layout layout; // where its elements are (the user's view)
  int same_as = -1;      // an earlier argument with exactly these elements, whose copy it shares
  char copy_order = 'C'; // how its device copy is laid out: 'C' row-major, 'F' column-major
};

/// Argument A feeds array parameter P from host memory: it is copied to the device (launcher::pass).
template <class P, class A>
inline constexpr bool host_array_argument = kernel_param<P>::is_array && !ufunc_arg<const A &>::is_device;

template <class P, class A> host_argument describe_host_argument(const A &a) {
  host_argument h;
  if constexpr (host_array_argument<P, A>) {
    const auto v = ufunc_arg<const A &>::view(a);
    static_assert(ufunc_arg<const A &>::rank <= max_dims, "arrays have at most 32 dimensions");
    h.is_host_array = true;
    h.writable = !std::is_const_v<typename kernel_param<P>::type::element_type>;
    h.layout.data = v.data();
    h.layout.elem_size = sizeof(*v.data());
    h.layout.rank = static_cast<int>(v.shape().size());
    std::copy(v.shape().begin(), v.shape().end(), h.layout.shape);
    std::copy(v.strides().begin(), v.strides().end(), h.layout.strides);
  }
  return h;
}

/// Host arrays are copied to the device one by one, and writable ones back in order: two that
/// share memory would become two copies, and the later copy back would undo the kernel's writes
/// through the other. An argument with exactly the elements of an earlier one (the same array
/// twice) shares its copy, as it shares its memory; any other overlap involving a writable one is
/// an error, raised before anything is copied. So is a writable one that reaches an element
/// twice (a zero stride): its contiguous copy would be copied back over that element once per
/// place, the last winning over the kernel's other writes.
inline void pair_shared_host_arguments(std::string_view kernel, std::span<host_argument> args) {
  for (std::size_t k = 0; k < args.size(); ++k) {
    host_argument &b = args[k];
    if (b.is_host_array && b.writable)
      require_distinct_elements(kernel, static_cast<int>(k) + 1, b.layout.shape, b.layout.strides, b.layout.rank);
    const auto [blo, bhi] = memory_extent(b.layout);
    if (!b.is_host_array || blo == bhi) continue;
    for (std::size_t j = 0; j < k && b.same_as < 0; ++j) {
      const host_argument &a = args[j];
      const auto [alo, ahi] = memory_extent(a.layout);
      if (!a.is_host_array || alo == ahi || !(alo < bhi && blo < ahi) ||
          elements_apart(bytes_of_layout(a.layout), bytes_of_layout(b.layout)))
        continue;
      const operand_layout &x = a.layout, &y = b.layout;
      if (x.data == y.data && alo == blo && ahi == bhi && x.rank == y.rank &&
          std::equal(x.shape, x.shape + x.rank, y.shape) && std::equal(x.strides, x.strides + x.rank, y.strides)) {
        b.same_as = a.same_as >= 0 ? a.same_as : static_cast<int>(j);
      } else if (a.writable || b.writable) {
        throw argument_error(std::string(kernel), static_cast<int>(k) + 1,
                             "is a host array that overlaps argument " + std::to_string(j + 1) +
                                 " in memory but holds other elements: the launch copies each host array to the "
                                 "device on its own, so the kernel's writes through one would not reach the other; "
                                 "pass the same array, arrays apart, or device arrays");
      }
    }
  }
}

/// The order of each host array's device copy (copy_order): column-major where a signature
/// declares Fortran order for it or for an argument sharing its copy (same_as), else
/// row-major. Arguments sharing one copy declared in both orders are an error, raised before
/// anything is copied. `orders` holds one declared order per parameter ('C', 'F' or 'A').
inline void choose_copy_orders(std::string_view kernel, std::span<host_argument> args, std::string_view orders) {
  const auto declared = [&](std::size_t k) { return k < orders.size() ? orders[k] : 'A'; };
  // Each copy's order, decided by the first argument of its group that declares one.
  std::vector<char> group(args.size(), 'A');
  std::vector<std::size_t> decided_by(args.size(), 0);
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (!args[k].is_host_array) continue;
    const std::size_t root = args[k].same_as >= 0 ? static_cast<std::size_t>(args[k].same_as) : k;
    const char order = declared(k);
    if (order == 'A') continue;
    if (group[root] == 'A') {
      group[root] = order;
      decided_by[root] = k;
    } else if (group[root] != order) {
      const auto named = [](char o) { return std::string(o == 'F' ? "Fortran" : "C"); };
      throw argument_error(std::string(kernel), static_cast<int>(k) + 1,
                           "is the host array given as argument " + std::to_string(decided_by[root] + 1) +
                               ", which the kernel's signature declares in " + named(group[root]) +
                               " order and this one in " + named(order) +
                               " order: the one copy they share cannot be both; pass a device array");
    }
  }
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::size_t root = args[k].same_as >= 0 ? static_cast<std::size_t>(args[k].same_as) : k;
    args[k].copy_order = group[root] == 'F' ? 'F' : 'C';
  }
}

/// Whether a view of `shape` and `strides` (in elements) is laid out as a signature's `order`
/// declares ('C' row-major without gaps, 'F' column-major, 'A' any), by NumPy's rules: an
/// extent of 1 takes any stride, an empty array is in every order.
template <std::size_t R>
bool in_declared_order(char order, const std::array<index_t, R> &shape, const std::array<index_t, R> &strides) {
  if (order == 'A' || std::find(shape.begin(), shape.end(), index_t{0}) != shape.end()) return true;
  index_t expected = 1;
  for (std::size_t i = 0; i < R; ++i) {
    const std::size_t d = order == 'F' ? i : R - 1 - i;
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

[[noreturn]] inline void out_of_declared_order(std::string_view kernel, int argument, char order,
                                               std::span<const index_t> shape, std::span<const index_t> strides) {
  const auto list = [](std::span<const index_t> v) {
    std::string text = "(";
    for (std::size_t d = 0; d < v.size(); ++d) text += (d ? ", " : "") + std::to_string(v[d]);
    return text + (v.size() == 1 ? ",)" : ")");
  };
  const std::string layout =
      order == 'F' ? "Fortran order ('::1' on its first dimension)" : "C order ('::1' on its last dimension)";
  throw argument_error(std::string(kernel), argument,
                       "is a device array of shape " + list(shape) + " and strides " + list(strides) +
                           " (elements), not contiguous in " + layout +
                           " as the kernel's signature declares it; pass a contiguous copy, or declare the "
                           "parameter with ':' alone to take any strides");
}

/// `v` with its dimensions in reverse order: gathered row-major, the elements of `v` in
/// column-major order.
template <class T, std::size_t R> array_view<T, R> reversed_axes(const array_view<T, R> &v) {
  std::array<index_t, R> shape{}, strides{};
  for (std::size_t d = 0; d < R; ++d) {
    shape[d] = v.shape()[R - 1 - d];
    strides[d] = v.strides()[R - 1 - d];
  }
  return array_view<T, R>(v.data(), shape, strides);
}

/// The column-major strides of an array of `shape`.
template <std::size_t R> std::array<index_t, R> fortran_strides(const std::array<index_t, R> &shape) {
  std::array<index_t, R> s{};
  index_t step = 1;
  for (std::size_t d = 0; d < R; ++d) {
    s[d] = step;
    step *= shape[d];
  }
  return s;
}

} // namespace detail

/// The kernel compiled for `F` (a [[kernel::jit]] function), if its translation unit was
/// compiled with the plugin.
template <auto F> std::optional<kernel_info> inspect_kernel() {
  return detail::find_kernel(reinterpret_cast<const void *>(&detail::jit_kernel<F>));
}

/// A launch of kernel `F` with its configuration; calling it with the kernel's arguments
/// launches the kernel.
template <auto F> class launcher {
  using traits = detail::function_traits<decltype(F)>;
  static_assert(std::is_void_v<typename traits::result_type>, "a kernel returns void");
  using params_type = detail::jit_args_for<F>;

public:
  launcher(dim3 grid, dim3 block, unsigned shared_bytes = 0) noexcept : config_{grid, block, shared_bytes} {}
  /// The launcher keeps the stream (a shared handle), so that a launch configuration made with
  /// a temporary stream and called later still has it.
  launcher(dim3 grid, dim3 block, const stream &s, unsigned shared_bytes = 0) noexcept
      : config_{grid, block, shared_bytes}, stream_(s) {}

  /// The launch on another target: target::simulator runs it on the simulated device,
  /// target::cuda on the current GPU. As for ufuncs, choosing a target drops a device or stream
  /// chosen before.
  launcher on(target t) const {
    if (t != target::simulator && t != target::cuda)
      throw argument_error(std::string(name()), 0, "kernels run on target cuda or simulator");
    launcher l = *this;
    l.stream_.reset();
    l.placement_.where = t;
    l.placement_.chosen_device = t == target::simulator ? detail::simulator_device() : nullptr;
    return l;
  }
  /// The launch on device `d`. A stream given to kernel::launch decides where it runs: a
  /// stream of another device is an argument_error here (it ran on the stream's device).
  launcher on(device d) const {
    if (stream_ && stream_->state() && &detail::stream_device(*stream_->state()) != &d.state())
      throw argument_error(std::string(name()), 0,
                           "was given a stream of " + detail::device_name(detail::stream_device(*stream_->state())) +
                               " by kernel::launch and placed on " + d.name() +
                               " with .on(): a launch runs on its stream's device; give a stream of " + d.name() +
                               " or place it without one");
    launcher l = *this;
    l.placement_.chosen_device = &d.state();
    return l;
  }

  static constexpr std::string_view name() noexcept { return detail::function_name<F>(); }

  template <class... Args> void operator()(Args &&...args) const {
    static_assert(sizeof...(Args) == traits::arity, "a kernel launch passes one argument per kernel parameter");
    // Arguments that do not fit their parameters are reported once each, at the caller's line,
    // and the launch is not compiled further (no errors from inside it that follow from them).
    if constexpr (sizeof...(Args) == traits::arity) {
      constexpr bool fit = []<std::size_t... K>(std::index_sequence<K...>) {
        // Every argument is checked (not only up to the first that does not fit).
        const bool fits[] = {
            detail::check_kernel_argument<typename traits::template arg<K>, std::remove_reference_t<Args>>()..., true};
        for (const bool f : fits)
          if (!f) return false;
        return true;
      }(std::make_index_sequence<traits::arity>{});
      if constexpr (fit) launch_with(std::forward<Args>(args)...);
    }
  }

private:
  template <class... Args> void launch_with(Args &&...args) const {

    const detail::device_call call = call_for(args...);
    // The parameter block is bytes, in which an arg_block of trivially copyable members lives
    // implicitly: filled by copying each value's bytes in, since a parameter type may have no
    // default constructor or assignment (const members) and still be passed, as in CUDA.
    alignas(params_type) std::byte block[sizeof(params_type)];
    std::memset(block, 0, sizeof block);
    params_type &params = *std::launder(reinterpret_cast<params_type *>(block));
    // Empty, and never allocated, where every array is a device array of the launch's own
    // stream (freed in its order anyway: see pass).
    std::vector<std::shared_ptr<void>> keep;
    std::vector<detail::host_task> copy_back;
    // Which arguments are temporary host containers, gone with their elements when the
    // statement ends (a temporary view's elements are the caller's).
    constexpr bool temporary[] = {detail::temporary_host_container<Args>()..., false};
    // Host arrays are described (to find arguments sharing elements, which share one copy)
    // only when there are any: each description holds a layout of 32 dimensions, and zeroing
    // and copying them was a fifth of a launch's host time with device arrays alone.
    constexpr bool any_host_array = []<std::size_t... K>(std::index_sequence<K...>) {
      return (detail::host_array_argument<typename traits::template arg<K>, std::remove_cvref_t<Args>> || ...);
    }(std::make_index_sequence<traits::arity>{});
    constexpr std::size_t described = any_host_array ? traits::arity + 1 : 1;
    std::array<detail::host_argument, described> hosts{};
    std::array<std::shared_ptr<void>, described> copies{};
    // The order each array parameter's signature declares ("float32[:, ::1]"): a device array
    // must be in it, a host array is copied in it. Read from the registry once per kernel, once
    // it is registered (a launch before its module registers, from a static constructor, looks
    // again the next time).
    constexpr bool any_array = []<std::size_t... K>(std::index_sequence<K...>) {
      return (detail::kernel_param<typename traits::template arg<K>>::is_array || ...);
    }(std::make_index_sequence<traits::arity>{});
    const auto lookup = [] {
      if constexpr (any_array)
        return detail::declared_array_orders(reinterpret_cast<const void *>(&detail::jit_kernel<F>));
      else
        return std::string();
    };
    static const std::string registered = lookup();
    const std::string unregistered = registered.empty() && any_array ? lookup() : std::string();
    const std::string &orders = registered.empty() ? unregistered : registered;
    const auto order_of = [&orders](std::size_t k) { return k < orders.size() ? orders[k] : 'A'; };
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      // Device arrays out of their declared order are refused before anything is copied.
      (check_declared_order<K>(args, order_of(K)), ...);
      if constexpr (any_host_array) {
        ((hosts[K] = detail::describe_host_argument<typename traits::template arg<K>>(args)), ...);
        const std::span<detail::host_argument> described_args(hosts.data(), traits::arity);
        detail::pair_shared_host_arguments(name(), described_args);
        detail::choose_copy_orders(name(), described_args, orders);
      }
      auto refs = std::forward_as_tuple(args...);
      (pass<K>(call, std::get<K>(refs), temporary[K], detail::get_arg<K>(params), keep, copy_back, hosts, copies), ...);
    }(std::make_index_sequence<traits::arity>{});

    const detail::kernel_ref k{reinterpret_cast<const void *>(&detail::jit_kernel<F>), name(),
                               [](const void *p) { detail::jit_kernel<F>(*static_cast<const params_type *>(p)); }};
    detail::launch(*call.device, k, config_, &params, sizeof params, *call.stream);
    for (auto &f : copy_back) f();
    if (!copy_back.empty() && !call.asynchronous) detail::stream_synchronize(*call.stream);
    if (!keep.empty()) detail::keep_until_done(*call.stream, std::move(keep));
  }

  template <class... Args> detail::device_call call_for(Args &...args) const {
    detail::placement where = placement_;
    if (stream_) where.chosen_stream = detail::stream_id(*stream_->state());
    return where.call_on(name(), detail::first_device(name(), args...), [](const std::string &why) {
      return "kernel '" + std::string(name()) + "': " + why +
             "; launch it .on(kernel::target::simulator) to run it on the CPU";
    });
  }

  // A device array for parameter K is in the order its signature declares (`order`).
  template <std::size_t K, class A> void check_declared_order(const A &a, char order) const {
    using P = std::remove_cvref_t<typename traits::template arg<K>>;
    if constexpr (detail::is_array_view<P>::value && detail::ufunc_arg<const A &>::is_device) {
      const auto v = detail::ufunc_arg<const A &>::view(a);
      if (!detail::in_declared_order(order, v.shape(), v.strides()))
        detail::out_of_declared_order(name(), static_cast<int>(K) + 1, order, v.shape(), v.strides());
    }
  }

  template <std::size_t K, class A, class Slot, std::size_t H>
  void pass(const detail::device_call &call, A &a, bool temporary, Slot &slot, std::vector<std::shared_ptr<void>> &keep,
            std::vector<detail::host_task> &copy_back, std::array<detail::host_argument, H> &hosts,
            std::array<std::shared_ptr<void>, H> &copies) const {
    using P = std::remove_cvref_t<typename traits::template arg<K>>;
    const auto store = [&slot](const P &value) { std::memcpy(static_cast<void *>(&slot), &value, sizeof(P)); };
    if constexpr (!detail::is_array_view<P>::value) {
      store(static_cast<P>(a));
    } else {
      using arg = detail::ufunc_arg<A &>;
      using T = typename P::element_type;
      if constexpr (arg::is_device) {
        if (&a.device().state() != call.device)
          throw argument_error(std::string(name()), static_cast<int>(K) + 1,
                               "is a device array on " + a.device().name() + " but the launch runs on " +
                                   detail::device_name(*call.device));
        auto v = arg::view(a);
        store(P(v.data(), v.shape(), v.strides()));
        // Held until the kernel is done, should the launch run on another stream than the
        // one that frees the array.
        if (auto owned = detail::owned_device_memory(a); detail::needs_holding(owned, *call.stream))
          keep.push_back(std::move(owned));
      } else {
        // A host array: a device copy in, and out again if the kernel may write it.
        if constexpr (!std::is_const_v<T>)
          if (temporary && call.asynchronous)
            throw argument_error(std::string(name()), static_cast<int>(K) + 1,
                                 "is a temporary host array the kernel may write: on a stream its results would be "
                                 "copied back after it is gone; pass a named array");
        auto host = arg::view(a);
        using E = typename P::value_type;
        const std::size_t bytes = static_cast<std::size_t>(host.size()) * sizeof(E);
        std::shared_ptr<void> memory;
        bool copies_back = !std::is_const_v<T>;
        // Row-major, or column-major where the signatures declare Fortran order (choose_copy_orders).
        const char copy_order = hosts[K].copy_order;
        if (const int first = hosts[K].same_as; first >= 0) {
          // The same elements as an earlier argument: its copy, copied back once.
          memory = copies[static_cast<std::size_t>(first)];
          copies_back = copies_back && !hosts[static_cast<std::size_t>(first)].writable;
          hosts[static_cast<std::size_t>(first)].writable =
              hosts[static_cast<std::size_t>(first)].writable || copies_back;
        } else if (bytes > 0) {
          memory = detail::allocate_for(name(), static_cast<int>(K) + 1, call, bytes);
          auto staging = detail::pinned_allocate(*call.device, bytes);
          detail::gather(copy_order == 'F' ? detail::reversed_axes(host) : host, static_cast<E *>(staging.get()));
          detail::device_copy(*call.device, memory.get(), staging.get(), bytes, detail::copy_direction::host_to_device,
                              *call.stream);
          keep.push_back(std::move(staging));
          keep.push_back(memory);
          copies[K] = memory;
        }
        store(copy_order == 'F' ? P(static_cast<T *>(memory.get()), host.shape(), detail::fortran_strides(host.shape()))
                                : P(static_cast<T *>(memory.get()), host.shape()));
        if constexpr (!std::is_const_v<T>) {
          if (bytes > 0 && copies_back)
            copy_back.push_back([&call, memory, host = copy_order == 'F' ? detail::reversed_axes(host) : host, bytes] {
              auto staging = detail::pinned_allocate(*call.device, bytes);
              detail::device_copy(*call.device, staging.get(), memory.get(), bytes,
                                  detail::copy_direction::device_to_host, *call.stream);
              detail::deliver_into<E>(*call.stream, std::move(staging), host);
            });
        }
      }
    }
  }

  detail::launch_config config_;
  // Unplaced, a launch runs on its device arrays' device, or the default one (a GPU: no
  // fallback to the simulator without one). on(target::cuda) is a GPU whatever the arrays
  // (simulator arrays are an error); on(target::simulator) chooses the simulated device.
  // (target::cpu here means "not placed": a kernel never runs on the host targets.)
  detail::placement placement_{target::cpu};
  std::optional<stream> stream_; // the stream given to kernel::launch: the call's, when set
};

namespace detail {
/// A count of blocks or threads given as an integer of any type, as one dimension: a negative
/// count, or one past 32 bits, is an error naming the kernel (an implicit dim3 would wrap it).
template <auto F, std::integral I> dim3 launch_extent(I count, const char *what) {
  const auto n = as_standard_integer(count);
  if (std::cmp_less(n, 0) || std::cmp_greater(n, std::numeric_limits<std::uint32_t>::max()))
    throw argument_error(std::string(launcher<F>::name()), 0,
                         std::string("a launch of ") + std::to_string(n) + " " + what +
                             " per dimension: counts are 0 to 2^32 - 1 (see the device's limits)");
  return dim3(static_cast<std::uint32_t>(n));
}
template <auto F> dim3 launch_extent(dim3 d, const char *) noexcept { return d; }

/// A launch's grid or block: a dim3, or a count as an integer of any type.
template <class E>
concept launch_extent_like = std::is_same_v<std::remove_cvref_t<E>, dim3> || std::integral<E>;

/// Bytes of dynamic shared memory given as an integer of any type: checked as the counts are
/// (a size_t past 32 bits would wrap to a small size).
template <auto F, std::integral S> unsigned launch_shared_bytes(S given) {
  const auto bytes = as_standard_integer(given);
  if (std::cmp_less(bytes, 0) || std::cmp_greater(bytes, std::numeric_limits<std::uint32_t>::max()))
    throw argument_error(std::string(launcher<F>::name()), 0,
                         "a launch with " + std::to_string(bytes) +
                             " bytes of dynamic shared memory: they are 0 to 2^32 - 1 (see the device's limits)");
  return static_cast<unsigned>(bytes);
}
} // namespace detail

/// Launches kernel `F` over `grid` blocks of `block` threads, with `shared_bytes` of dynamic
/// shared memory per block: `kernel::launch<f>(grid, block)(args...)`. Grid and block are
/// dim3s (braced lists too) or counts as integers of any type, mixed as one likes.
template <auto F, std::integral S = unsigned> launcher<F> launch(dim3 grid, dim3 block, S shared_bytes = 0) {
  return launcher<F>(grid, block, detail::launch_shared_bytes<F>(shared_bytes));
}

/// The same, asynchronous and ordered on stream `s`.
template <auto F, std::integral S = unsigned>
launcher<F> launch(dim3 grid, dim3 block, const stream &s, S shared_bytes = 0) {
  return launcher<F>(grid, block, s, detail::launch_shared_bytes<F>(shared_bytes));
}

/// launch(grid, block) where either is a count as an integer of any type.
template <auto F, detail::launch_extent_like G, detail::launch_extent_like B, std::integral S = unsigned>
  requires(!std::is_same_v<G, dim3> || !std::is_same_v<B, dim3>)
launcher<F> launch(G grid, B block, S shared_bytes = 0) {
  return launcher<F>(detail::launch_extent<F>(grid, "blocks"), detail::launch_extent<F>(block, "threads"),
                     detail::launch_shared_bytes<F>(shared_bytes));
}
template <auto F, detail::launch_extent_like G, detail::launch_extent_like B, std::integral S = unsigned>
  requires(!std::is_same_v<G, dim3> || !std::is_same_v<B, dim3>)
launcher<F> launch(G grid, B block, const stream &s, S shared_bytes = 0) {
  return launcher<F>(detail::launch_extent<F>(grid, "blocks"), detail::launch_extent<F>(block, "threads"), s,
                     detail::launch_shared_bytes<F>(shared_bytes));
}

} // namespace kernel
