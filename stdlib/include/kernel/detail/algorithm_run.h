// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What every array algorithm (kernel/algorithm.h) does around its work: decide where it runs
// (the arrays' device, or the target and device chosen with `.on(...)`, as ufuncs do), bring
// its inputs into contiguous memory where it runs, give it contiguous memory for its
// results and deliver those to the user's arrays, allocate device temporaries on the call's
// stream, and launch its kernels.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/array.h"
#include "kernel/detail/algorithm_kernel.h"
#include "kernel/detail/axis.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/placement.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/detail/shape_check.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/device.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"

namespace kernel {
template <class Node> class expr;
} // namespace kernel

namespace kernel::detail {

// Declared in fused_run.h, which defines them wherever an expression exists to be passed.
template <class N> auto evaluate_new(const placement &where, const N &root);
template <class N> placement placement_of(const N &root);

template <class A> inline constexpr bool is_expression_arg = false;
template <class N> inline constexpr bool is_expression_arg<expr<N>> = true;
template <class... A> inline constexpr bool any_expression_arg = (is_expression_arg<A> || ...);

/// An algorithm's operand as the algorithm reads it: an expression evaluated into a new array
/// (a device array for expressions of device arrays) where the call is placed, or where the
/// expression places itself when the call is not placed; any other operand as it is.
template <class A> decltype(auto) evaluated(const placement &p, const A &a) {
  if constexpr (is_expression_arg<A>) {
    const placement where = p.chosen ? p : placement_of(a.node());
    auto values = evaluate_new(where, a.node());
    // Host values evaluated on a stream arrive when it gets there: the call reads them at
    // once, and the array must outlive the copy into it.
    if constexpr (!A::is_device)
      if (where.chosen_stream)
        if (const std::shared_ptr<stream_state> s = live_stream(where.chosen_stream)) stream_synchronize(*s);
    return values;
  } else {
    return (a);
  }
}
template <class E> using evaluated_t = std::remove_cvref_t<decltype(evaluated(placement{}, std::declval<const E &>()))>;

/// Where an algorithm call runs: on the host's cores (one, or all with target parallel), or
/// on a device.
struct algorithm_site {
  placement where;
  std::optional<device_call> call;
  std::string_view name; // the call's, for its errors: it outlives the site

  bool on_device() const noexcept { return call.has_value(); }
  bool parallel() const noexcept { return where.where == target::parallel; }
};

/// Device arrays decide the device; else the placement does.
template <class... A> algorithm_site site_of(std::string_view name, const placement &p, const A &...arrays) {
  device_state *d = first_device(name, arrays...);
  if (!d && p.runs_on_host()) return {p, std::nullopt, name};
  return {p, p.call_on(name, d, [&](const std::string &why) { return no_device_message(name, why); }), name};
}

template <class A> using arg_of = ufunc_arg<const A &>;
template <class A> using element_of = typename arg_of<A>::element_type;

/// require_distinct_elements for the user's array `a` that results are written to.
template <class A> void require_distinct_elements(std::string_view name, int argument, const A &a) {
  const auto v = arg_of<A>::view(a);
  require_distinct_elements(name, argument, v.shape().data(), v.strides().data(), static_cast<int>(v.shape().size()));
}
template <class A> inline constexpr bool is_device_arg = arg_of<A>::supported && arg_of<A>::is_device;

/// Whether `A` is an array, with an error where it is not. Calls guard the rest of their body
/// with it (`if constexpr`): a scalar given for an array is then this one error, not one more
/// for each use of it as an array (its view, rank, shape and output).
template <class A> constexpr bool require_array() {
  constexpr bool array = ufunc_arg<const A &>::supported && !ufunc_arg<const A &>::is_scalar;
  static_assert(array, "this argument is an array: a std::vector, std::span, ndarray, array_view or device array");
  if constexpr (array) {
    constexpr bool gpu_type = !no_gpu_type<typename ufunc_arg<const A &>::element_type>;
    static_assert(gpu_type, "this array's elements have no GPU type: 'long double' (no GPU has it); use double");
    return gpu_type;
  }
  return array;
}

/// Whether `A` (as the caller passes it) is an array results can be written to, with an error
/// where it is not; for calls to guard the rest of their body with, as require_array.
template <class A> constexpr bool require_output_array() {
  if constexpr (!require_array<std::remove_cvref_t<A>>()) {
    return false;
  } else {
    constexpr bool writable = ufunc_arg<std::remove_reference_t<A> &>::writable;
    static_assert(writable, "the results go to a writable array");
    return writable;
  }
}

template <std::size_t R> bool c_contiguous(const operand_layout &l) {
  index_t expected = 1;
  for (int d = static_cast<int>(R) - 1; d >= 0; --d) {
    if (l.shape[d] != 1 && l.strides[d] != expected) return false;
    expected *= l.shape[d];
  }
  return true;
}

template <class T> std::shared_ptr<void> device_temp(const device_call &c, index_t n) {
  if (n <= 0) return nullptr;
  return device_allocate(*c.device, static_cast<std::size_t>(n) * sizeof(T), c.stream);
}
template <class T> T *data_of(const std::shared_ptr<void> &p) noexcept { return static_cast<T *>(p.get()); }

template <class T> void copy_to_device(const device_call &c, T *dst, const T *src, index_t n) {
  if (n > 0)
    device_copy(*c.device, dst, src, static_cast<std::size_t>(n) * sizeof(T), copy_direction::host_to_device,
                *c.stream);
}
template <class T> void zero_on_device(const device_call &c, T *dst, index_t n) {
  if (n > 0) device_zero(*c.device, dst, static_cast<std::size_t>(n) * sizeof(T), *c.stream);
}
template <class T> void copy_on_device(const device_call &c, T *dst, const T *src, index_t n) {
  if (n > 0)
    device_copy(*c.device, dst, src, static_cast<std::size_t>(n) * sizeof(T), copy_direction::device_to_device,
                *c.stream);
}
/// A host copy of the `n` elements at `src`, in an array rather than a std::vector, whose
/// bool has no data().
template <class T> std::unique_ptr<T[]> host_copy(const T *src, index_t n) {
  auto copy = std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(n));
  std::copy_n(src, n, copy.get());
  return copy;
}

/// Reads `n` values back to `dst` on the host, waiting for them.
template <class T> void read_back_to(const device_call &c, const T *src, index_t n, T *dst) {
  if (n <= 0) return;
  device_copy(*c.device, dst, src, static_cast<std::size_t>(n) * sizeof(T), copy_direction::device_to_host, *c.stream);
  stream_synchronize(*c.stream);
}

/// Reads `n` values back to the host, waiting for them.
template <class T> std::vector<T> read_back(const device_call &c, const T *src, index_t n) {
  static_assert(!std::is_same_v<T, bool>, "vector<bool> has no data(): use read_back_to");
  std::vector<T> v(static_cast<std::size_t>(n));
  read_back_to(c, src, n, v.data());
  return v;
}

/// The elements of an input array, in row-major order, as T, in contiguous memory where the
/// call runs: the array itself when it already is that, else a converted copy.
template <class T> struct input_elements {
  const T *data = nullptr;
  index_t size = 0;
  std::shared_ptr<void> keep; // the copy, when one was made
};

template <class T, class A> input_elements<T> host_input(std::string_view name, int argument, const A &a) {
  auto v = arg_of<A>::view(a);
  check_view(name, argument, v);
  input_elements<T> in;
  in.size = v.size();
  if constexpr (std::is_same_v<std::remove_cv_t<typename decltype(v)::value_type>, T>)
    if (v.is_c_contiguous()) {
      await_host_writes(v); // as gather does
      in.data = v.data();
      return in;
    }
  // Not a std::vector: vector<bool> has no data().
  std::shared_ptr<T[]> copy = std::make_shared_for_overwrite<T[]>(static_cast<std::size_t>(in.size));
  gather(v, copy.get());
  in.data = copy.get();
  in.keep = copy;
  return in;
}

template <class E> kernel_ref algorithm_ref() {
  return {reinterpret_cast<const void *>(&algorithm_kernel<E>), E::kernel_name.view(),
          [](const void *p) { algorithm_kernel<E>(*static_cast<const typename E::params *>(p)); }};
}

/// `blocks` blocks of E's threads (block_threads_of), for the kernels that work per tile.
template <class E> void launch_tiles(const device_call &c, index_t blocks, const typename E::params &p) {
  if (blocks <= 0) return;
  if (blocks > 0x7fffffff)
    throw argument_error(std::string(E::kernel_name.view()), 0, "needs more blocks than a launch can have");
  launch(*c.device, algorithm_ref<E>(), {dim3(static_cast<std::uint32_t>(blocks)), dim3(block_threads_of<E>()), 0}, &p,
         sizeof p, *c.stream);
}

/// A grid-stride kernel over `work` items.
template <class E> void launch_over(const device_call &c, index_t work, const typename E::params &p) {
  if (work <= 0) return;
  const kernel_ref k = algorithm_ref<E>();
  launch(*c.device, k, elementwise_config(*c.device, k, work), &p, sizeof p, *c.stream);
}

/// Keeps `what` alive until the work queued on the call's stream so far is done (see
/// device_api.h: host work only where it is needed).
inline void keep_until_done(const device_call &c, std::vector<std::shared_ptr<void>> what) {
  keep_until_done(*c.stream, std::move(what));
}
inline void keep_until_done(const device_call &c, std::initializer_list<std::shared_ptr<void>> what) {
  keep_until_done(*c.stream, what);
}

/// Copies `n` elements between device memory laid out as `from` and as `to` (same shape), on
/// the call's stream.
template <class T, std::size_t R>
void copy_strided_on_device(const device_call &c, const operand_layout &from, const operand_layout &to, index_t n) {
  strided_copy_params<T, R> p{
      static_cast<const T *>(from.data), static_cast<T *>(const_cast<void *>(to.data)), n, {}, {}, {}};
  for (std::size_t d = 0; d < R; ++d) {
    p.shape[d] = from.shape[d];
    p.src_strides[d] = from.strides[d];
    p.dst_strides[d] = to.strides[d];
  }
  launch_over<strided_copy_entry<T, R>>(c, n, p);
}

/// The layout of `n` contiguous elements of `shape`'s shape at `data`.
template <std::size_t R> operand_layout contiguous_layout(const operand_layout &shape, const void *data) {
  operand_layout l = shape;
  l.data = data;
  index_t stride = 1;
  for (int d = static_cast<int>(R) - 1; d >= 0; --d) {
    l.strides[d] = stride;
    stride *= l.shape[d];
  }
  return l;
}

template <class T, class A>
input_elements<T> device_input(std::string_view name, int argument, const device_call &c, const A &a) {
  constexpr std::size_t R = arg_of<A>::rank;
  std::vector<std::shared_ptr<void>> keep;
  const staged_operand op = stage_input<T>(name, argument, c, a, keep);
  input_elements<T> in;
  in.size = 1;
  for (int d = 0; d < op.layout.rank; ++d) in.size *= op.layout.shape[d];
  if (op.on_device_already && !c_contiguous<R>(op.layout)) {
    // A strided device view (a transpose, a slice): its elements gathered on the device.
    std::shared_ptr<void> copy = device_temp<T>(c, in.size);
    copy_strided_on_device<T, R>(c, op.layout, contiguous_layout<R>(op.layout, copy.get()), in.size);
    keep_until_done(*c.stream, {op.array_memory}); // the array, until gathered
    in.data = data_of<T>(copy);
    in.keep = std::move(copy);
    return in;
  }
  in.data = static_cast<const T *>(op.layout.data);
  if (op.device_memory) {
    in.keep = op.device_memory;
    keep_until_done(*c.stream, std::move(keep)); // the staging, until copied
  } else {
    in.keep = op.array_memory; // the caller's to hold until its work is done
  }
  return in;
}

template <class T, class A>
input_elements<T> input_on(const algorithm_site &site, std::string_view name, int argument, const A &a) {
  return site.on_device() ? device_input<T>(name, argument, *site.call, a) : host_input<T>(name, argument, a);
}

template <class T> constexpr std::string_view dtype_name_of() {
  if constexpr (scalar<T>)
    return dtype_name(dtype_of<T>);
  else
    return "struct";
}

/// Contiguous memory for results of type T, where the call runs, and how they then reach
/// the user's array (`deliver`).
template <class T> class output_elements {
public:
  T *data = nullptr;
  index_t size = 0;
  void deliver() {
    if (deliver_) deliver_();
  }

  template <class A>
  static output_elements make(const algorithm_site &site, std::string_view name, int argument, A &a) {
    using arg = ufunc_arg<A &>;
    constexpr bool writable = arg::supported && !arg::is_scalar && arg::writable;
    static_assert(writable, "the results go to a writable array");
    output_elements out;
    // After the error, nothing of the array is used: no more errors from writing into it.
    if constexpr (!writable) {
      return out;
    } else if constexpr (arg::is_device) {
      require_distinct_elements(name, argument, a);
      if (!site.on_device() || &a.device().state() != site.call->device)
        throw argument_error(std::string(name), argument,
                             "is a device array on " + a.device().name() + " but the call runs elsewhere");
      if constexpr (!std::is_same_v<typename arg::element_type, T>)
        throw argument_error(std::string(name), argument,
                             "is a device array of " + std::string(dtype_name_of<typename arg::element_type>()) +
                                 " but the results are " + std::string(dtype_name_of<T>()) +
                                 " (device arrays are never converted implicitly)");
      else {
        const operand_layout l = layout_of(name, arg::view(a), argument, true);
        out.size = arg::view(a).size();
        if (c_contiguous<arg::rank>(l)) {
          out.data = static_cast<T *>(const_cast<void *>(l.data));
          // The array's memory, held until the call's work is done (owned_device_memory).
          // Memory freed in the order of the call's own stream needs nothing.
          if (auto owned = owned_device_memory(a); needs_holding(owned, *site.call->stream))
            out.deliver_ = [c = *site.call, owned = std::move(owned)] { keep_until_done(c, {owned}); };
        } else {
          // A strided device view: results made contiguous, then scattered into it on the device.
          const device_call c = *site.call;
          std::shared_ptr<void> memory = device_temp<T>(c, out.size);
          out.data = data_of<T>(memory);
          // Device memory is freed in stream order (device_allocate), after the scatter.
          out.deliver_ = [c, memory, l, n = out.size] {
            copy_strided_on_device<T, arg::rank>(c, contiguous_layout<arg::rank>(l, memory.get()), l, n);
          };
        }
      }
    } else {
      require_distinct_elements(name, argument, a);
      auto view = arg::view(a);
      check_view(name, argument, view);
      out.size = view.size();
      if (site.on_device()) {
        const device_call c = *site.call;
        auto memory = device_temp<T>(c, out.size);
        out.data = data_of<T>(memory);
        out.deliver_ = [c, memory, view, n = out.size] {
          if (n == 0) return;
          const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
          auto staging = pinned_allocate(*c.device, bytes);
          device_copy(*c.device, staging.get(), memory.get(), bytes, copy_direction::device_to_host, *c.stream);
          deliver_into<T>(*c.stream, std::move(staging), view);
          if (!c.asynchronous) stream_synchronize(*c.stream);
        };
      } else {
        // After the results calls on streams are delivering into it, which would otherwise
        // land over this call's (program order, as for the host arrays calls read).
        await_host_writes(view);
        bool direct = false;
        if constexpr (std::is_same_v<typename arg::element_type, T>) direct = view.is_c_contiguous();
        if (direct) {
          out.data = reinterpret_cast<T *>(view.data());
        } else {
          std::shared_ptr<T[]> temp = std::make_shared_for_overwrite<T[]>(static_cast<std::size_t>(out.size));
          out.data = temp.get();
          out.deliver_ = [temp, view] { scatter(temp.get(), view); };
        }
      }
    }
    return out;
  }

private:
  host_task deliver_;
};

/// A new array for results: a device array on the call's stream when the inputs were device
/// arrays, else a host array (whose values come back from a device when the call ran on one).
template <class T, std::size_t R, bool Device>
using result_array = std::conditional_t<Device, device_array<T, R>, ndarray<T, R>>;

template <class T, std::size_t R, bool Device>
result_array<T, R, Device> make_result(const algorithm_site &site, const std::array<index_t, R> &shape) {
  if constexpr (Device)
    return device_array<T, R>(shape, site.call->stream, site.name, 0);
  else
    return ndarray<T, R>(ndarray<T, R>::uninitialized, shape, site.name, 0);
}

// ---------------------------------------------------------------------------------------
// Launching the algorithm entries

/// The segments along `axis` of a C-contiguous array of `shape`.
template <std::size_t R> segment_layout segments_along(const std::array<index_t, R> &shape, int axis) {
  segment_layout l;
  index_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[d];
  for (int d = axis + 1; d < static_cast<int>(R); ++d) inner *= shape[d];
  l.len = shape[axis];
  l.inner = inner;
  l.segments = outer * inner;
  return l;
}

template <class A> auto shape_of(const A &a) { return arg_of<A>::view(a).shape(); }

/// Whether `a_bytes` bytes at `a` and `b_bytes` bytes at `b` share any (no bytes share none,
/// wherever they point).
inline bool memory_overlaps(const void *a, std::size_t a_bytes, const void *b, std::size_t b_bytes) noexcept {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes != 0 && b_bytes != 0 && x < y + b_bytes && y < x + a_bytes;
}

/// The lowest and one past the highest byte of the user's array `a` itself (host or device
/// memory), its data pointer and strides: what the checks below compare.
template <class A> auto user_extent(const A &a) {
  const auto v = arg_of<A>::view(a);
  const auto [first, past] =
      element_bytes(v.data(), v.shape().data(), v.strides().data(), v.shape().size(), sizeof(*v.data()));
  return std::tuple{first, past, v.strides()};
}

/// The layout of a view for elements_apart (which reads its shape and strides: the view must
/// outlive it).
template <class V> strided_bytes bytes_of_view(const V &v) {
  return {v.data(), sizeof(*v.data()), v.shape().data(), v.strides().data(), v.shape().size()};
}

/// Results must not be written over an input (except over exactly the input itself, where
/// `may_be_same`; interleaved layouts that share no byte are apart), checked on the user's
/// arrays, so that every target rejects the same calls.
template <class C, class A>
void require_apart(std::string_view name, int out_argument, const C &out, int in_argument, const A &in,
                   bool may_be_same = false) {
  if constexpr (is_device_arg<C> == is_device_arg<A>) {
    const auto [a0, a1, sa] = user_extent(out);
    const auto [b0, b1, sb] = user_extent(in);
    bool same = false;
    if constexpr (arg_of<C>::rank == arg_of<A>::rank) same = a0 == b0 && a1 == b1 && sa == sb;
    if (memory_overlaps(a0, static_cast<std::size_t>(a1 - a0), b0, static_cast<std::size_t>(b1 - b0)) &&
        !(may_be_same && same) &&
        !elements_apart(bytes_of_view(arg_of<C>::view(out)), bytes_of_view(arg_of<A>::view(in))))
      throw argument_error(std::string(name), out_argument,
                           "overlaps argument " + std::to_string(in_argument) +
                               " in memory: the results must not be written over an input");
  }
}

} // namespace kernel::detail
