// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Arrays in device memory, and transfers.
//
//   auto dx = kernel::to_device(x);                     // host -> device (a copy)
//   kernel::device_array<float> dout(x.size());         // uninitialised device memory
//   auto dy = kernel::device_array_like(x);             // same shape and element type
//   vsaxpy(2.0f, dx, dy, dout);                         // no transfer: all on the device
//   std::vector<float> out = dout.copy_to_host().to_vector();
//   dout.copy_to_host(out);                             // into an existing container
//
// Every operation takes an optional stream: with one, allocation, copies and frees are
// ordered on it and the host does not wait (results are there after s.synchronize()).
// A device_array owns its memory and moves but does not copy; copy() makes a second one.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/array.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/shape_check.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/device.h"
#include "kernel/errors.h"
#include "kernel/types.h"

namespace kernel {

namespace detail {
/// Selects device_array's constructor that takes memory the runtime allocated.
struct adopt_memory_t {};

// Visits the elements of a view in row-major order.
template <class T, std::size_t Rank, class F> void for_each_element(const array_view<T, Rank> &v, F &&f) {
  if (v.size() == 0) return;
  index_t idx[Rank] = {};
  for (index_t n = v.size(); n > 0; --n) {
    index_t offset = 0;
    for (std::size_t d = 0; d < Rank; ++d) offset += idx[d] * v.stride(d);
    f(v.data()[offset]);
    for (std::size_t d = Rank; d-- > 0;) {
      if (++idx[d] < v.shape(d)) break;
      idx[d] = 0;
    }
  }
}

/// The memory a view's elements lie in: from its lowest byte to just past its highest.
template <class T, std::size_t Rank> std::pair<const void *, const void *> bytes_of(const array_view<T, Rank> &v) {
  if (v.size() == 0) return {nullptr, nullptr};
  return element_bytes(v.data(), v.shape().data(), v.strides().data(), Rank, sizeof(T));
}

/// Waits for the results calls on streams are delivering into a host view's memory: what
/// every read of host memory for a device call does first.
template <class T, std::size_t Rank> void await_host_writes(const array_view<T, Rank> &v) {
  const auto [first, past] = bytes_of(v);
  await_host_writes(first, past);
}

/// Copies a view's elements, in row-major order, to contiguous memory, once the results that
/// calls on streams are delivering into them have arrived (await_host_writes).
template <class T, std::size_t Rank, class U> void gather(const array_view<T, Rank> &v, U *out) {
  await_host_writes(v);
  if (v.is_c_contiguous()) {
    if constexpr (std::is_same_v<std::remove_cv_t<T>, U>) {
      std::memcpy(out, v.data(), static_cast<std::size_t>(v.size()) * sizeof(U));
      return;
    }
  }
  for_each_element(v, [&](const T &x) { *out++ = static_cast<U>(x); });
}

/// Copies contiguous row-major elements into a view.
template <class T, std::size_t Rank, class U> void scatter(const U *in, const array_view<T, Rank> &v) {
  if (v.is_c_contiguous()) {
    if constexpr (std::is_same_v<T, U>) {
      std::memcpy(v.data(), in, static_cast<std::size_t>(v.size()) * sizeof(U));
      return;
    }
  }
  for_each_element(v, [&](T &x) { x = static_cast<T>(*in++); });
}

/// Queues on `s` the copy of `staging` (U values, contiguous and row-major) into the host
/// view `v` once the stream reaches it, holding `keep` until then; meanwhile reads of `v`'s
/// memory through gather wait for it.
template <class U, class T, std::size_t Rank>
void deliver_into(stream_state &s, std::shared_ptr<void> staging, const array_view<T, Rank> &v,
                  std::vector<std::shared_ptr<void>> keep = {}) {
  const auto [first, past] = bytes_of(v);
  deliver_to_host(s, first, past, [staging = std::move(staging), v, keep = std::move(keep)] {
    scatter(static_cast<const U *>(staging.get()), v);
  });
}

template <std::size_t Rank>
void require_same_shape(std::string_view operation, const std::array<index_t, Rank> &expected,
                        const std::array<index_t, Rank> &actual) {
  if (expected != actual)
    throw argument_error(std::string(operation), 1,
                         "the host array has shape " + kernel::shape_string(actual) +
                             " but the device array has shape " + kernel::shape_string(expected));
}

} // namespace detail

/// A strided view of device memory: what kernels receive, and what ufuncs accept as an
/// operand on its device. Unlike an array_view, it knows its memory is a device's, so it is
/// never mistaken for host memory.
template <class T, std::size_t Rank = 1> class device_view {
public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using extents_type = std::array<index_t, Rank>;
  static constexpr std::size_t rank = Rank;

  device_view() noexcept = default;
  /// A view of `shape` elements at device address `data` with the given strides (elements).
  device_view(kernel::device d, T *data, const index_list<Rank> &shape, const index_list<Rank> &strides)
      : view_(data, shape, strides), device_(&d.state()) {
    detail::check_view("device_view", 3, view_);
  }
  device_view(kernel::device d, T *data, const index_list<Rank> &shape)
      : view_(data,
              (detail::checked_size("device_view", 3, shape.values.data(), static_cast<int>(Rank), sizeof(T)), shape)),
        device_(&d.state()) {}

  kernel::device device() const noexcept { return kernel::device(device_); }
  /// False only for a default-constructed view, which has no device (calls refuse it).
  bool has_device() const noexcept { return device_ != nullptr; }
  T *data() const noexcept { return view_.data(); }
  const extents_type &shape() const noexcept { return view_.shape(); }
  index_t shape(std::size_t d) const noexcept { return view_.shape(d); }
  const extents_type &strides() const noexcept { return view_.strides(); }
  index_t size() const noexcept { return view_.size(); }

  /// The same memory as an array_view, for a kernel parameter. Explicit, so that a host
  /// function taking an array_view is not handed device memory unawares.
  const array_view<T, Rank> &view() const noexcept { return view_; }
  explicit operator array_view<T, Rank>() const noexcept { return view_; }
  template <class U>
    requires(!std::is_same_v<U, T> && std::is_convertible_v<T (*)[], U (*)[]>)
  operator device_view<U, Rank>() const noexcept {
    return device_view<U, Rank>(device(), view_.data(), view_.shape(), view_.strides());
  }

private:
  array_view<T, Rank> view_;
  detail::device_state *device_ = nullptr;
};

// `device_view v(gpu, p, a.shape())` and `(gpu, p, shape, strides)`: the rank from the std::arrays.
template <class T, detail::index_value I, std::size_t R>
device_view(kernel::device, T *, const std::array<I, R> &) -> device_view<T, R>;
template <class T, detail::index_value I, detail::index_value J, std::size_t R>
device_view(kernel::device, T *, const std::array<I, R> &, const std::array<J, R> &) -> device_view<T, R>;

template <class T, std::size_t Rank = 1>
  requires std::is_trivially_copyable_v<T>
class device_array {
  static_assert(Rank >= 1, "device_array needs rank >= 1; keep a single value in a variable");
  static_assert(!std::is_const_v<T> && !std::is_volatile_v<T>,
                "a device_array owns its elements and fills them: make a device_array<T>, and pass its "
                "view() to what reads it only (a kernel's array_view<const T> parameter takes the array itself)");
  static_assert(!detail::no_gpu_type<T>, "a device_array's elements have no GPU type: 'long double' (no GPU has it); "
                                         "use double");

public:
  using value_type = T;
  using extents_type = std::array<index_t, Rank>;
  static constexpr std::size_t rank = Rank;

  device_array() noexcept = default;

  /// Uninitialised device memory for `shape` elements on `d`.
  explicit device_array(const index_list<Rank> &shape, kernel::device d = kernel::device::current())
      : device_array(shape.values, detail::default_stream(d.state())) {}
  /// Uninitialised device memory, allocated in order on `s` (and freed in order on it).
  device_array(const index_list<Rank> &shape, const stream &s) : device_array(shape.values, s.state()) {}
  /// `n` elements of a 1-d array. Templates, so that a braced `{n}` of any integer type is a
  /// shape (index_list) rather than a narrowing conversion to index_t.
  template <detail::index_value I>
    requires(Rank == 1)
  explicit device_array(I n, kernel::device d = kernel::device::current())
      : device_array(extents_type{detail::to_index(n)}, d) {}
  template <detail::index_value I>
    requires(Rank == 1)
  device_array(I n, const stream &s) : device_array(extents_type{detail::to_index(n)}, s) {}

  /// A moved-from array is empty, on the same device.
  device_array(device_array &&o) noexcept
      : memory_(std::move(o.memory_)), shape_(std::exchange(o.shape_, extents_type{})), device_(o.device_) {}
  device_array &operator=(device_array &&o) noexcept {
    if (this != &o) {
      memory_ = std::move(o.memory_);
      shape_ = std::exchange(o.shape_, extents_type{});
      device_ = o.device_;
    }
    return *this;
  }
  device_array(const device_array &) = delete;
  device_array &operator=(const device_array &) = delete;

  /// The array's device; an argument_error for a default-constructed array, which has none.
  kernel::device device() const { return kernel::device(&state()); }
  /// False only for a default-constructed array (a moved-from one keeps its device).
  bool has_device() const noexcept { return device_ != nullptr; }
  const extents_type &shape() const noexcept { return shape_; }
  index_t shape(std::size_t dim) const noexcept { return shape_[dim]; }
  index_t size() const noexcept {
    index_t n = 1;
    for (index_t e : shape_) n *= e;
    return n;
  }
  bool empty() const noexcept { return size() == 0; }
  std::size_t bytes() const noexcept { return static_cast<std::size_t>(size()) * sizeof(T); }

  /// The device address of the first element (not dereferenceable on the host, except on
  /// the simulator).
  T *data() const noexcept { return static_cast<T *>(memory_.get()); }
  /// A view of the device memory, for kernels and ufuncs.
  device_view<T, Rank> view() const { return device_view<T, Rank>(device(), data(), shape_); }
  operator device_view<T, Rank>() const { return view(); }
  /// Device memory as an array_view: explicit, so that a host function taking an array_view
  /// is not handed device memory unawares (a launch takes the array itself).
  explicit operator array_view<T, Rank>() const noexcept { return array_view<T, Rank>(data(), shape_); }

  /// A host copy. Without a stream the host waits for it.
  ndarray<T, Rank> copy_to_host() const {
    ndarray<T, Rank> host(ndarray<T, Rank>::uninitialized, shape_, "copy_to_host", 0);
    if (bytes() == 0) return host;
    read(host.data(), *detail::default_stream(state()));
    detail::stream_synchronize(*detail::default_stream(state()));
    return host;
  }
  /// A host copy, written in order on `s`: valid after s.synchronize().
  ndarray<T, Rank> copy_to_host(const stream &s) const {
    ndarray<T, Rank> host(ndarray<T, Rank>::uninitialized, shape_, "copy_to_host", 0);
    if (bytes() == 0) return host;
    require_stream_here("copy_to_host", 1, *s.state());
    read(host.data(), *s.state());
    return host;
  }

  /// Copies into an existing host container of the same shape (std::vector, std::span,
  /// ndarray, array_view of any strides). Without a stream the host waits for it; with one
  /// the container must stay alive until the stream is synchronized.
  template <class Host>
    requires(!std::is_same_v<std::remove_cvref_t<Host>, stream>)
  void copy_to_host(Host &&dest) const {
    copy_into(std::forward<Host>(dest), device_ ? detail::default_stream(*device_) : nullptr, /*wait=*/true);
  }
  template <class Host>
    requires(!std::is_same_v<std::remove_cvref_t<Host>, stream>)
  void copy_to_host(Host &&dest, const stream &s) const {
    // A temporary container would be gone before the copy reaches it.
    if constexpr (detail::temporary_host_container<Host>())
      throw argument_error("copy_to_host", 1,
                           "is a temporary host array: on a stream the copy reaches it after it is gone; pass a "
                           "named array");
    copy_into(std::forward<Host>(dest), s.state(), /*wait=*/false);
  }

  /// Copies a host container of the same shape into the device array.
  template <class Host> void copy_from_host(const Host &src) {
    copy_from(src, device_ ? detail::default_stream(*device_) : nullptr);
  }
  template <class Host> void copy_from_host(const Host &src, const stream &s) { copy_from(src, s.state()); }

  /// A second device array with the same contents (a device-to-device copy).
  device_array copy() const { return device_ ? copy_on(detail::default_stream(*device_)) : device_array(); }
  device_array copy(const stream &s) const { return device_ ? copy_on(s.state()) : device_array(); }

  /// The memory, shared with transfers still in flight.
  const std::shared_ptr<void> &memory() const noexcept { return memory_; }

  /// Errors (a shape too large, no room on the device) name `callee`, the call that makes
  /// the array, and its `argument` (0: a result), as ndarray's uninitialized constructor.
  device_array(const extents_type &shape, const std::shared_ptr<detail::stream_state> &s,
               std::string_view callee = "device_array", int argument = 1)
      : shape_(shape), device_(&detail::stream_device(*s)) {
    detail::checked_size(callee, argument, shape.data(), static_cast<int>(Rank), sizeof(T));
    if (bytes() == 0) return;
    try {
      memory_ = detail::device_allocate(*device_, bytes(), s);
    } catch (const cuda_error &e) {
      // The same error (out_of_memory() still says so), naming the call and the shape; another
      // (a fault of earlier work the allocation reports) is not this call's.
      if (!e.out_of_memory()) throw;
      throw cuda_error(detail::allocation_subject(callee, argument, shape.data(), static_cast<int>(Rank)) + ": " +
                           e.what(),
                       e.code());
    }
  }

  /// Takes `memory`, device memory allocated on `s` with room for at least `shape` (results the
  /// runtime wrote before their number was known).
  device_array(detail::adopt_memory_t, const extents_type &shape, std::shared_ptr<void> memory,
               const std::shared_ptr<detail::stream_state> &s)
      : memory_(std::move(memory)), shape_(shape), device_(&detail::stream_device(*s)) {}

private:
  detail::device_state &state() const {
    if (!device_)
      throw argument_error("device_array", 0,
                           "was default-constructed and has no device: make it with a shape (and a device or stream)");
    return *device_;
  }
  /// Transfers on stream `s` go between memories of one device.
  /// `argument`: the stream's position in the call.
  void require_stream_here(const char *what, int argument, const detail::stream_state &s) const {
    if (&detail::stream_device(s) != &state())
      throw argument_error(what, argument,
                           "is a stream of " + detail::device_name(detail::stream_device(s)) +
                               " but the device array is on " + detail::device_name(*device_));
  }

  void read(T *host, detail::stream_state &s) const {
    if (bytes() > 0) {
      detail::device_copy(*device_, host, data(), bytes(), detail::copy_direction::device_to_host, s);
      hold_for(s);
    }
  }

  /// A transfer queued on `s`, which may not be the stream that frees the array: the array's
  /// memory is held until it is done, as a launch holds its arrays (else a free in the other
  /// stream's order could hand the memory to a new array while the copy still uses it).
  void hold_for(detail::stream_state &s) const {
    if (detail::needs_holding(memory_, s)) detail::keep_until_done(s, {memory_});
  }

  // Whether a host array (as ufunc_arg sees it) can be copied to or from this one.
  template <class arg>
  static constexpr bool host_array_fits = arg::supported && !arg::is_scalar && !arg::is_device &&
                                          std::is_same_v<typename arg::element_type, T> && arg::rank == Rank;

  template <class Host> void copy_into(Host &&dest, const std::shared_ptr<detail::stream_state> &s, bool wait) const {
    using arg = detail::ufunc_arg<Host &>;
    static_assert(arg::supported && !arg::is_scalar && arg::writable, "copy_to_host needs a writable host array");
    static_assert(!arg::is_device, "copy_to_host copies into a host array; device to device is copy() or a view");
    static_assert(std::is_same_v<typename arg::element_type, T>,
                  "copy_to_host: the host array's element type differs from the device array's");
    static_assert(arg::rank == Rank, "copy_to_host: the host array's rank differs");
    // A host array that does not fit is the one error above (not followed by errors from the
    // copy, which would compile on with its types).
    if constexpr (host_array_fits<arg> && arg::writable) copy_into_fitting<arg>(dest, s, wait);
  }
  template <class arg, class Host>
  void copy_into_fitting(Host &dest, const std::shared_ptr<detail::stream_state> &s, bool wait) const {
    auto view = arg::view(dest);
    detail::check_view("copy_to_host", 1, view);
    detail::require_same_shape("copy_to_host", shape_, view.shape());
    // Each element once: a destination whose strides reach one element twice (a zero stride,
    // rows that overlap) would keep the last of several values.
    detail::require_distinct_elements("copy_to_host", 1, view.shape().data(), view.strides().data(),
                                      static_cast<int>(Rank));
    if (bytes() == 0) return;
    require_stream_here("copy_to_host", 2, *s);
    if (view.is_c_contiguous()) {
      // Written by the copy itself, after what other streams are delivering into it (what
      // this stream delivers comes first in its order anyway), as a delivery would be.
      const auto [first, past] = detail::bytes_of(view);
      detail::await_other_streams_writes(*s, first, past);
      read(view.data(), *s);
    } else {
      // Through page-locked staging, then scattered into the strided view on the host.
      auto staging = detail::pinned_allocate(*device_, bytes());
      read(static_cast<T *>(staging.get()), *s);
      detail::deliver_into<T>(*s, std::move(staging), view);
    }
    if (wait) detail::stream_synchronize(*s);
  }

  template <class Host> void copy_from(const Host &src, const std::shared_ptr<detail::stream_state> &stream) {
    using arg = detail::ufunc_arg<const Host &>;
    static_assert(arg::supported && !arg::is_scalar, "copy_from_host needs a host array");
    static_assert(!arg::is_device, "copy_from_host copies from a host array; device to device is copy() or a view");
    static_assert(std::is_same_v<typename arg::element_type, T>,
                  "copy_from_host: the host array's element type differs from the device array's");
    static_assert(arg::rank == Rank, "copy_from_host: the host array's rank differs");
    if constexpr (host_array_fits<arg>) copy_from_fitting<arg>(src, stream);
  }
  template <class arg, class Host>
  void copy_from_fitting(const Host &src, const std::shared_ptr<detail::stream_state> &stream) {
    auto view = arg::view(src);
    detail::check_view("copy_from_host", 1, view);
    detail::require_same_shape("copy_from_host", shape_, view.shape());
    if (bytes() == 0) return;
    require_stream_here("copy_from_host", 2, *stream);
    detail::stream_state &s = *stream;
    if (view.is_c_contiguous()) {
      detail::await_host_writes(view); // gather does, below
      detail::device_copy(*device_, data(), view.data(), bytes(), detail::copy_direction::host_to_device, s);
    } else {
      auto staging = detail::pinned_allocate(*device_, bytes());
      detail::gather(view, static_cast<T *>(staging.get()));
      detail::device_copy(*device_, data(), staging.get(), bytes(), detail::copy_direction::host_to_device, s);
      detail::host_work(s, [staging] {}); // keeps the staging alive until the copy is done
    }
    hold_for(s);
  }

  device_array copy_on(const std::shared_ptr<detail::stream_state> &s) const {
    require_stream_here("copy", 1, *s);
    device_array result(shape_, s);
    if (bytes() > 0) {
      detail::device_copy(*device_, result.data(), data(), bytes(), detail::copy_direction::device_to_device, *s);
      hold_for(*s);
    }
    return result;
  }

  std::shared_ptr<void> memory_;
  extents_type shape_{};
  detail::device_state *device_ = nullptr;
};

namespace detail {
template <class T, std::size_t R> struct is_device_array<device_array<T, R>> : std::true_type {};
template <class T, std::size_t R> struct is_device_array<device_view<T, R>> : std::true_type {};
template <class A> struct is_device_view : std::false_type {};
template <class T, std::size_t R> struct is_device_view<device_view<T, R>> : std::true_type {};

// Device arrays and views as ufunc arguments: operands in device memory, never transferred.
template <class A> struct ufunc_arg<A, std::enable_if_t<is_device_array<std::remove_cvref_t<A>>::value>> {
  using array_type = std::remove_cvref_t<A>;
  static constexpr bool supported = true;
  static constexpr bool is_scalar = false;
  static constexpr bool is_device = true;
  // A view's elements are writable whether the view itself is const or not (as array_view's
  // and std::span's); an array's through a non-const array only (as ndarray's).
  static constexpr bool writable =
      (is_device_view<array_type>::value || !std::is_const_v<std::remove_reference_t<A>>) &&
      !std::is_const_v<std::remove_pointer_t<decltype(std::declval<array_type>().data())>>;
  static constexpr std::size_t rank = array_type::rank;
  using element_type = typename array_type::value_type;
  // The device memory as a plain view (the call checks the device separately).
  using view_type = array_view<std::remove_pointer_t<decltype(std::declval<array_type>().data())>, rank>;
  static view_type view(const array_type &a) { return view_type(a); }
};

template <class A> auto host_view_of(const A &a, std::string_view callee = "to_device") {
  using arg = ufunc_arg<const A &>;
  static_assert(arg::supported && !arg::is_scalar && !arg::is_device,
                "to_device takes a host array: std::vector, std::span, std::array, ndarray or array_view");
  auto view = arg::view(a);
  check_view(callee, 1, view);
  return view;
}
} // namespace detail

/// A device copy of a host array, on device `d`.
template <class Host> auto to_device(const Host &host, device d = device::current()) {
  auto view = detail::host_view_of(host);
  using T = std::remove_cv_t<typename decltype(view)::element_type>;
  device_array<T, decltype(view)::rank> result(view.shape(), d);
  result.copy_from_host(view);
  return result;
}

/// A device copy of a host array, made in order on `s`.
template <class Host> auto to_device(const Host &host, const stream &s) {
  auto view = detail::host_view_of(host);
  using T = std::remove_cv_t<typename decltype(view)::element_type>;
  device_array<T, decltype(view)::rank> result(view.shape(), s);
  result.copy_from_host(view, s);
  return result;
}

/// A host array as it is (no copy) or a device array copied to the host: for code written
/// once for host and device arrays that needs a few values on the host.
template <class T, std::size_t Rank> const ndarray<T, Rank> &to_host(const ndarray<T, Rank> &a) noexcept { return a; }
template <class T, std::size_t Rank> ndarray<T, Rank> to_host(ndarray<T, Rank> &&a) noexcept { return std::move(a); }
template <class T, std::size_t Rank> ndarray<T, Rank> to_host(const device_array<T, Rank> &a) {
  return a.copy_to_host();
}

/// A new array of `shape` (by default a's) and a's element type, where `a` is: an ndarray, or
/// a device array on a's device. Its values are unspecified (NumPy's empty_like).
template <class T, std::size_t Rank>
ndarray<T, Rank> empty_like(const ndarray<T, Rank> &, const std::type_identity_t<index_list<Rank>> &shape) {
  return ndarray<T, Rank>(ndarray<T, Rank>::uninitialized, shape, "empty_like", 0);
}
template <class T, std::size_t Rank> ndarray<T, Rank> empty_like(const ndarray<T, Rank> &a) {
  return empty_like(a, a.shape());
}
template <class T, std::size_t Rank>
device_array<T, Rank> empty_like(const device_array<T, Rank> &a, const std::type_identity_t<index_list<Rank>> &shape) {
  return device_array<T, Rank>(shape.values, detail::default_stream(a.device().state()), "empty_like", 0);
}
template <class T, std::size_t Rank> device_array<T, Rank> empty_like(const device_array<T, Rank> &a) {
  return empty_like(a, a.shape());
}

namespace detail {
template <class A> auto shape_and_type_of(const A &a) {
  if constexpr (requires {
                  a.device();
                  a.view();
                }) {
    return device_array<typename A::value_type, A::rank>();
  } else {
    auto view = host_view_of(a, "device_array_like");
    return device_array<std::remove_cv_t<typename decltype(view)::element_type>, decltype(view)::rank>();
  }
}
template <class A> auto extents_of(const A &a) {
  if constexpr (requires {
                  a.device();
                  a.view();
                })
    return a.shape();
  else
    return host_view_of(a, "device_array_like").shape();
}
} // namespace detail

/// An uninitialised device array with the shape and element type of `a` (a host array or a
/// device array), on device `d`.
template <class A> auto device_array_like(const A &a, device d) {
  return decltype(detail::shape_and_type_of(a))(detail::extents_of(a), d);
}

/// The same, on `a`'s device for a device array, else the current device.
template <class A> auto device_array_like(const A &a) {
  if constexpr (requires { a.device(); })
    return device_array_like(a, a.device());
  else
    return device_array_like(a, device::current());
}

/// The same, allocated in order on `s`.
template <class A> auto device_array_like(const A &a, const stream &s) {
  return decltype(detail::shape_and_type_of(a))(detail::extents_of(a), s);
}

} // namespace kernel
