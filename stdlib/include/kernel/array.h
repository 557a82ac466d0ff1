// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Strided N-d array views (pointer + shape + strides, like mdspan or a NumPy array without
// ownership) and `ndarray`, an owning C-contiguous host array.
//
// `array_view` is trivially copyable and has no host-only members, so the same type is
// what kernels receive as their array parameters on the GPU and in the simulator.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/config.h"
#include "kernel/detail/contiguous.h"
#include "kernel/detail/shape_check.h"
#include "kernel/detail/simulator_hooks.h"
#include "kernel/types.h"

namespace kernel {

template <class T, std::size_t Rank = 1> class array_view;

namespace detail {
/// What an extent or a stride may be given as: an integer of any type but bool, or an
/// unscoped enumerator (`enum { rows = 4 }`), as the array types of C take them.
template <class I>
concept index_value =
    (std::integral<I> && !std::same_as<I, bool>) || (std::is_enum_v<I> && std::is_convertible_v<I, long long>);

/// `v` as an index. A value past index_t's range (a std::size_t above 2^63 - 1) becomes the
/// largest index, which the shape checks report as too large, where a cast would make it a
/// negative extent the caller never wrote.
template <index_value I> constexpr index_t to_index(I v) noexcept {
  if constexpr (std::is_enum_v<I>) {
    return to_index(static_cast<std::underlying_type_t<I>>(v));
  } else {
    const auto promoted = +v; // std::cmp_greater takes no character type
    if (std::cmp_greater(promoted, std::numeric_limits<index_t>::max())) return std::numeric_limits<index_t>::max();
    return static_cast<index_t>(promoted);
  }
}
} // namespace detail

/// Exactly `Rank` extents or strides: a std::array of any integer type (a shape(), or
/// `std::array<std::size_t, 2>`), or a braced list of `Rank` integers or unscoped enumerators
/// of any types (`{rows, cols}`). A list of another length does not compile, where a
/// std::array parameter would pad it with zeros: a rank-3 array made from two extents would
/// be silently empty, a view given one stride of two would repeat its rows.
template <std::size_t Rank> struct index_list {
  std::array<index_t, Rank> values{};

  constexpr index_list(const std::array<index_t, Rank> &v) noexcept : values(v) {}
  template <detail::index_value I> constexpr index_list(const std::array<I, Rank> &v) noexcept {
    for (std::size_t d = 0; d < Rank; ++d) values[d] = detail::to_index(v[d]);
  }
  template <detail::index_value... I>
    requires(sizeof...(I) == Rank)
  constexpr index_list(I... v) noexcept : values{detail::to_index(v)...} {}

  constexpr operator const std::array<index_t, Rank> &() const noexcept { return values; }
};

/// A strided view of an N-d array. Extents and strides are counted in elements.
template <class T, std::size_t Rank> class array_view {
  static_assert(Rank >= 1, "array_view needs rank >= 1; pass scalars by value");

public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using extents_type = std::array<index_t, Rank>;
  static constexpr std::size_t rank = Rank;

  constexpr array_view() noexcept = default;

  /// A C-contiguous (row-major) view of `shape` elements starting at `data`.
  constexpr array_view(T *data, const index_list<Rank> &shape) noexcept
      : data_(data), shape_(shape.values), strides_(contiguous_strides(shape.values)) {}

  /// A view with explicit strides (in elements; 0 repeats an element, negative walks back).
  constexpr array_view(T *data, const index_list<Rank> &shape, const index_list<Rank> &strides) noexcept
      : data_(data), shape_(shape.values), strides_(strides.values) {}

  /// A 1-d view of a contiguous range: std::vector, std::span, std::array, ndarray. As for
  /// std::span, a view of mutable elements is not made of a temporary container, which would
  /// be gone before the view is used (a view of const elements is, for function arguments).
  template <detail::contiguous_sized_range R>
    requires(Rank == 1 && std::is_convertible_v<detail::contiguous_element_t<R> (*)[], T (*)[]> &&
             (std::ranges::borrowed_range<R> || std::is_const_v<T>))
  constexpr array_view(R &&range) noexcept
      : data_(std::ranges::data(range)), shape_{static_cast<index_t>(std::ranges::size(range))}, strides_{1} {}

  /// Views of non-const elements convert to views of const elements.
  template <class U>
    requires(!std::is_same_v<U, T> && std::is_convertible_v<U (*)[], T (*)[]>)
  constexpr array_view(const array_view<U, Rank> &other) noexcept
      : data_(other.data()), shape_(other.shape()), strides_(other.strides()) {}

  constexpr T *data() const noexcept { return data_; }
  constexpr const extents_type &shape() const noexcept { return shape_; }
  constexpr const extents_type &strides() const noexcept { return strides_; }
  constexpr index_t shape(std::size_t dim) const noexcept { return shape_[dim]; }
  constexpr index_t stride(std::size_t dim) const noexcept { return strides_[dim]; }

  /// Number of elements.
  constexpr index_t size() const noexcept {
    index_t n = 1;
    for (index_t e : shape_) n *= e;
    return n;
  }
  constexpr bool empty() const noexcept { return size() == 0; }

  /// True when the elements are stored row-major without gaps.
  constexpr bool is_c_contiguous() const noexcept {
    index_t expected = 1;
    for (std::size_t d = Rank; d-- > 0;) {
      if (shape_[d] != 1 && strides_[d] != expected) return false;
      expected *= shape_[d];
    }
    return true;
  }

  /// Element access, one index per dimension, as `a(i, j)` (Numba's `a[i, j]`).
  template <class... I>
    requires(sizeof...(I) == Rank && (std::is_integral_v<I> && ...))
  KERNEL_ALWAYS_INLINE constexpr T &operator()(I... idx) const noexcept {
    const index_t index[Rank] = {static_cast<index_t>(idx)...};
    // The simulator's bounds check; on the GPU the pass folds the flag to zero.
    if (!std::is_constant_evaluated() && detail::__kernel_simulating) [[unlikely]]
      detail::__kernel_check_index(data_, Rank, shape_.data(), index);
    index_t offset = 0;
    for (std::size_t d = 0; d < Rank; ++d) offset += index[d] * strides_[d];
    return data_[offset];
  }

  /// 1-d element access.
  KERNEL_ALWAYS_INLINE constexpr T &operator[](index_t i) const noexcept
    requires(Rank == 1)
  {
    return (*this)(i);
  }

  /// The C-contiguous strides of an array of `shape`.
  static constexpr extents_type contiguous_strides(const extents_type &shape) noexcept {
    extents_type s{};
    index_t step = 1;
    for (std::size_t d = Rank; d-- > 0;) {
      s[d] = step;
      step *= shape[d];
    }
    return s;
  }

private:
  T *data_ = nullptr;
  extents_type shape_{};
  extents_type strides_{};
};

template <detail::contiguous_sized_range R> array_view(R &&) -> array_view<detail::contiguous_element_t<R>, 1>;
// `array_view v(p, a.shape())` and `(p, shape, strides)`: the rank from the std::arrays.
template <class T, detail::index_value I, std::size_t R> array_view(T *, const std::array<I, R> &) -> array_view<T, R>;
template <class T, detail::index_value I, detail::index_value J, std::size_t R>
array_view(T *, const std::array<I, R> &, const std::array<J, R> &) -> array_view<T, R>;

/// A 1-d view of `n` elements at `data` (a raw pointer and a length).
template <class T> constexpr array_view<T, 1> view(T *data, index_t n) noexcept { return array_view<T, 1>(data, {n}); }

/// A C-contiguous N-d view of `data` with the given shape.
template <class T, std::size_t Rank>
constexpr array_view<T, Rank> view(T *data, const index_t (&shape)[Rank]) noexcept {
  std::array<index_t, Rank> s{};
  std::copy(std::begin(shape), std::end(shape), s.begin());
  return array_view<T, Rank>(data, s);
}

/// A 1-d view of a contiguous container.
template <detail::contiguous_sized_range R> constexpr auto view(R &&range) noexcept {
  static_assert(std::ranges::borrowed_range<R> || std::is_const_v<detail::contiguous_element_t<R>>,
                "kernel::view of a temporary container would dangle once the statement ends: keep the "
                "container in a variable and view that");
  return array_view<detail::contiguous_element_t<R>, 1>(range);
}

namespace detail {
struct aligned_delete {
  void operator()(void *p) const noexcept { ::operator delete(p, std::align_val_t{64}); }
};
} // namespace detail

/// An owning, C-contiguous host array (of scalars, or of trivially copyable structs). Storage is 64-byte aligned so
/// that CPU loops use aligned vector loads and transfers can be pinned without a copy.
template <class T, std::size_t Rank = 1>
  requires std::is_trivially_copyable_v<T>
class ndarray {
  static_assert(Rank >= 1, "ndarray needs rank >= 1; keep a single value in a variable");

public:
  using value_type = T;
  using extents_type = std::array<index_t, Rank>;
  static constexpr std::size_t rank = Rank;

  ndarray() noexcept = default;

  /// A zero-filled array of `shape`.
  explicit ndarray(const index_list<Rank> &shape) : ndarray(shape, T{}) {}

  /// An array of `shape` with every element set to `fill`. Explicit, so that `({3, 4})` (a
  /// one-argument copy from a braced pair) does not compile into three fours.
  explicit ndarray(const index_list<Rank> &shape, const T &fill) : ndarray(uninitialized, shape) {
    std::fill_n(data(), size(), fill);
  }

  /// A zero-filled 1-d array of `n` elements. `ndarray<float>(n)`, `ndarray<float>({n})` and
  /// `ndarray<float>{n}` all mean this: no constructor takes the elements themselves (that is
  /// `of`), so a braced size is never read as a one-element array holding the size, the trap
  /// of std::vector's `{n}`.
  template <detail::index_value I>
    requires(Rank == 1)
  explicit ndarray(I n) : ndarray(extents_type{detail::to_index(n)}) {}

  /// Not `{3, 4}` either, for rank 1: an integer and a value would read as three fours where
  /// the code before `of` meant the elements 3 and 4. A size and a fill is `({3}, 4)`.
  template <detail::index_value I>
    requires(Rank == 1)
  ndarray(I, const T &) = delete;

  /// A 1-d array holding `values`: `ndarray<int>::of({1, 2, 3})`.
  static ndarray of(std::initializer_list<T> values)
    requires(Rank == 1)
  {
    ndarray a(uninitialized, extents_type{static_cast<index_t>(values.size())});
    std::copy(values.begin(), values.end(), a.data());
    return a;
  }

  /// A C-contiguous copy of any view.
  template <class U>
    requires std::is_same_v<std::remove_cv_t<U>, T>
  explicit ndarray(const array_view<U, Rank> &source)
      : ndarray(uninitialized, (detail::check_view("ndarray", 1, source), source.shape())) {
    copy_from(source);
  }

  ndarray(const ndarray &other) : ndarray(uninitialized, other.shape_) {
    if (size() > 0) std::memcpy(data(), other.data(), static_cast<std::size_t>(size()) * sizeof(T));
  }
  ndarray &operator=(const ndarray &other) {
    if (this != &other) *this = ndarray(other);
    return *this;
  }
  /// A moved-from array is empty (shape all zeros), as a moved-from device_array is: its
  /// shape must not outlive its elements.
  ndarray(ndarray &&o) noexcept : storage_(std::move(o.storage_)), shape_(std::exchange(o.shape_, extents_type{})) {}
  ndarray &operator=(ndarray &&o) noexcept {
    if (this != &o) {
      storage_ = std::move(o.storage_);
      shape_ = std::exchange(o.shape_, extents_type{});
    }
    return *this;
  }

  /// Storage left uninitialized; for outputs that are written completely. Errors (a shape
  /// too large, no room on the host) name `callee`, the call that makes the array, and its
  /// `argument` (0: a result).
  struct uninitialized_t {};
  static constexpr uninitialized_t uninitialized{};
  ndarray(uninitialized_t, const index_list<Rank> &shape, std::string_view callee = "ndarray", int argument = 1)
      : shape_(shape.values) {
    const index_t n = detail::checked_size(callee, argument, shape_.data(), static_cast<int>(Rank), sizeof(T));
    if (n > 0)
      storage_.reset(static_cast<T *>(
          detail::allocate_host_array(callee, argument, shape_.data(), static_cast<int>(Rank), n, sizeof(T))));
  }

  T *data() noexcept { return storage_.get(); }
  const T *data() const noexcept { return storage_.get(); }
  const extents_type &shape() const noexcept { return shape_; }
  index_t shape(std::size_t dim) const noexcept { return shape_[dim]; }
  index_t size() const noexcept {
    index_t n = 1;
    for (index_t e : shape_) n *= e;
    return n;
  }
  bool empty() const noexcept { return size() == 0; }

  T *begin() noexcept { return data(); }
  T *end() noexcept { return data() + size(); }
  const T *begin() const noexcept { return data(); }
  const T *end() const noexcept { return data() + size(); }

  array_view<T, Rank> view() noexcept { return array_view<T, Rank>(data(), shape_); }
  array_view<const T, Rank> view() const noexcept { return array_view<const T, Rank>(data(), shape_); }
  /// Views of mutable elements only of an array that outlives the statement (as std::span).
  operator array_view<T, Rank>() & noexcept { return view(); }
  operator array_view<const T, Rank>() const noexcept { return view(); }

  template <class... I>
    requires(sizeof...(I) == Rank && (std::is_integral_v<I> && ...))
  T &operator()(I... idx) noexcept {
    return view()(idx...);
  }
  template <class... I>
    requires(sizeof...(I) == Rank && (std::is_integral_v<I> && ...))
  const T &operator()(I... idx) const noexcept {
    return view()(idx...);
  }
  T &operator[](index_t i) noexcept
    requires(Rank == 1)
  {
    return data()[i];
  }
  const T &operator[](index_t i) const noexcept
    requires(Rank == 1)
  {
    return data()[i];
  }

  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

private:
  template <class U> void copy_from(const array_view<U, Rank> &source) {
    index_t idx[Rank] = {};
    T *out = data();
    for (index_t n = size(); n > 0; --n) {
      index_t offset = 0;
      for (std::size_t d = 0; d < Rank; ++d) offset += idx[d] * source.stride(d);
      *out++ = source.data()[offset];
      for (std::size_t d = Rank; d-- > 0;) {
        if (++idx[d] < shape_[d]) break;
        idx[d] = 0;
      }
    }
  }

  std::unique_ptr<T, detail::aligned_delete> storage_;
  extents_type shape_{};
};

/// "(3, 4)": a shape as NumPy prints it, for error messages.
template <std::size_t N> std::string shape_string(const std::array<index_t, N> &shape) {
  return detail::shape_string(shape.data(), static_cast<int>(N));
}

} // namespace kernel
