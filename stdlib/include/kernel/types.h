// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Element types: the Numba/NumPy scalar types, their C++ spellings and NumPy's casting rules.
#pragma once

#include <complex>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace kernel {

/// Index and extent type of arrays (NumPy's intp).
using index_t = std::int64_t;

/// The scalar element types kernels and ufuncs accept, named as in Numba.
enum class dtype : std::uint8_t {
  boolean,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float32,
  float64,
  complex64,
  complex128,
};

/// Numba's name of a dtype ("float32", "complex64", ...).
constexpr std::string_view dtype_name(dtype t) noexcept {
  switch (t) {
  case dtype::boolean: return "boolean";
  case dtype::int8: return "int8";
  case dtype::int16: return "int16";
  case dtype::int32: return "int32";
  case dtype::int64: return "int64";
  case dtype::uint8: return "uint8";
  case dtype::uint16: return "uint16";
  case dtype::uint32: return "uint32";
  case dtype::uint64: return "uint64";
  case dtype::float32: return "float32";
  case dtype::float64: return "float64";
  case dtype::complex64: return "complex64";
  case dtype::complex128: return "complex128";
  }
  return "?";
}

namespace detail {
template <class T> struct dtype_of_impl {
  static constexpr bool known = false;
};
template <dtype D> struct dtype_tag {
  static constexpr bool known = true;
  static constexpr dtype value = D;
};
// Integers are classified by width and signedness, so `long` and `long long` are both
// int64 as they are in Numba's C interface.
template <class T> constexpr dtype integer_dtype() {
  if constexpr (std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1)
      return dtype::int8;
    else if constexpr (sizeof(T) == 2)
      return dtype::int16;
    else if constexpr (sizeof(T) == 4)
      return dtype::int32;
    else
      return dtype::int64;
  } else {
    if constexpr (sizeof(T) == 1)
      return dtype::uint8;
    else if constexpr (sizeof(T) == 2)
      return dtype::uint16;
    else if constexpr (sizeof(T) == 4)
      return dtype::uint32;
    else
      return dtype::uint64;
  }
}
template <> struct dtype_of_impl<bool> : dtype_tag<dtype::boolean> {};
#define KERNEL_INTEGER_DTYPE(T)                                                                                        \
  template <> struct dtype_of_impl<T> : dtype_tag<integer_dtype<T>()> {};
KERNEL_INTEGER_DTYPE(signed char)
KERNEL_INTEGER_DTYPE(char)
KERNEL_INTEGER_DTYPE(unsigned char)
KERNEL_INTEGER_DTYPE(short)
KERNEL_INTEGER_DTYPE(unsigned short)
KERNEL_INTEGER_DTYPE(int)
KERNEL_INTEGER_DTYPE(unsigned int)
KERNEL_INTEGER_DTYPE(long)
KERNEL_INTEGER_DTYPE(unsigned long)
KERNEL_INTEGER_DTYPE(long long)
KERNEL_INTEGER_DTYPE(unsigned long long)
#undef KERNEL_INTEGER_DTYPE
template <> struct dtype_of_impl<float> : dtype_tag<dtype::float32> {};
template <> struct dtype_of_impl<double> : dtype_tag<dtype::float64> {};
template <> struct dtype_of_impl<std::complex<float>> : dtype_tag<dtype::complex64> {};
template <> struct dtype_of_impl<std::complex<double>> : dtype_tag<dtype::complex128> {};

/// Floating types no GPU has: the x87 `long double` (and the 128-bit float where the host has
/// one), alone or as complex numbers. Device arrays and the library's array calls refuse them
/// at compile time, as the plugin refuses them in kernels: no GPU code could be made for them.
template <class T> struct no_gpu_type_impl : std::is_same<T, long double> {};
template <class T> struct no_gpu_type_impl<std::complex<T>> : no_gpu_type_impl<T> {};
#ifdef __SIZEOF_FLOAT128__
template <> struct no_gpu_type_impl<__float128> : std::true_type {};
#endif
template <class T> inline constexpr bool no_gpu_type = no_gpu_type_impl<std::remove_cv_t<T>>::value;
} // namespace detail

/// True for the C++ types that are array elements and ufunc scalars.
template <class T>
concept scalar = detail::dtype_of_impl<std::remove_cv_t<T>>::known;

/// The dtype of a scalar C++ type.
template <scalar T> inline constexpr dtype dtype_of = detail::dtype_of_impl<std::remove_cv_t<T>>::value;

/// Size in bytes of one element of a dtype.
constexpr std::size_t dtype_size(dtype t) noexcept {
  switch (t) {
  case dtype::boolean:
  case dtype::int8:
  case dtype::uint8: return 1;
  case dtype::int16:
  case dtype::uint16: return 2;
  case dtype::int32:
  case dtype::uint32:
  case dtype::float32: return 4;
  case dtype::int64:
  case dtype::uint64:
  case dtype::float64:
  case dtype::complex64: return 8;
  case dtype::complex128: return 16;
  }
  return 0;
}

/// NumPy's kinds, in the order casts may go up.
enum class dtype_kind : std::uint8_t { boolean, signed_integer, unsigned_integer, floating, complex };

constexpr dtype_kind kind_of(dtype t) noexcept {
  switch (t) {
  case dtype::boolean: return dtype_kind::boolean;
  case dtype::int8:
  case dtype::int16:
  case dtype::int32:
  case dtype::int64: return dtype_kind::signed_integer;
  case dtype::uint8:
  case dtype::uint16:
  case dtype::uint32:
  case dtype::uint64: return dtype_kind::unsigned_integer;
  case dtype::float32:
  case dtype::float64: return dtype_kind::floating;
  case dtype::complex64:
  case dtype::complex128: return dtype_kind::complex;
  }
  return dtype_kind::boolean;
}

namespace detail {
constexpr int kind_rank(dtype_kind k) noexcept {
  switch (k) {
  case dtype_kind::boolean: return 0;
  case dtype_kind::signed_integer:
  case dtype_kind::unsigned_integer: return 1;
  case dtype_kind::floating: return 2;
  case dtype_kind::complex: return 3;
  }
  return 0;
}
// Bytes of the real part: what a float or complex type can hold exactly.
constexpr std::size_t real_size(dtype t) noexcept {
  return kind_of(t) == dtype_kind::complex ? dtype_size(t) / 2 : dtype_size(t);
}
} // namespace detail

/// NumPy's "safe" casting: every value of `from` is represented in `to` (NumPy also counts
/// int64 -> float64 as safe, and so do we).
constexpr bool can_cast_safely(dtype from, dtype to) noexcept {
  if (from == to) return true;
  const dtype_kind fk = kind_of(from), tk = kind_of(to);
  const std::size_t fs = dtype_size(from);
  switch (fk) {
  case dtype_kind::boolean: return true;
  case dtype_kind::signed_integer:
    if (tk == dtype_kind::signed_integer) return dtype_size(to) >= fs;
    if (tk == dtype_kind::floating || tk == dtype_kind::complex) return detail::real_size(to) == 8 || fs <= 2;
    return false;
  case dtype_kind::unsigned_integer:
    if (tk == dtype_kind::unsigned_integer) return dtype_size(to) >= fs;
    if (tk == dtype_kind::signed_integer) return dtype_size(to) > fs;
    if (tk == dtype_kind::floating || tk == dtype_kind::complex) return detail::real_size(to) == 8 || fs <= 2;
    return false;
  case dtype_kind::floating:
    if (tk == dtype_kind::floating || tk == dtype_kind::complex) return detail::real_size(to) >= fs;
    return false;
  case dtype_kind::complex: return tk == dtype_kind::complex && dtype_size(to) >= dtype_size(from);
  }
  return false;
}

/// NumPy's "same_kind" casting: safe, or within a kind (float64 -> float32), or up a kind.
/// Signed to unsigned integers is never allowed.
constexpr bool can_cast_same_kind(dtype from, dtype to) noexcept {
  if (can_cast_safely(from, to)) return true;
  const dtype_kind fk = kind_of(from), tk = kind_of(to);
  if (fk == dtype_kind::signed_integer && tk == dtype_kind::unsigned_integer) return false;
  return detail::kind_rank(tk) >= detail::kind_rank(fk);
}

namespace detail {

/// The real type of a complex type, and a real type itself.
template <class T> struct real_of {
  using type = T;
};
template <class T> struct real_of<std::complex<T>> {
  using type = T;
};
template <class T> using real_of_t = typename real_of<T>::type;

} // namespace detail

namespace detail {
/// An integer of any type as one of the standard integer types that std::in_range and
/// std::cmp_less take (bool and the character types are not among them).
template <class I> constexpr auto as_standard_integer(I v) noexcept {
  if constexpr (std::is_same_v<I, bool> || std::is_same_v<I, char> || std::is_same_v<I, wchar_t> ||
                std::is_same_v<I, char8_t> || std::is_same_v<I, char16_t> || std::is_same_v<I, char32_t>)
    return static_cast<long long>(v);
  else
    return v;
}
} // namespace detail

} // namespace kernel
