// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a ufunc call's arguments are: scalars or arrays, of which element type and rank,
// writable or not, and which of the ufunc's loops (one per function in `ufunc<F...>`)
// accepts them under NumPy's type resolution.
#pragma once

#include <algorithm>
#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "kernel/array.h"
#include "kernel/detail/contiguous.h"
#include "kernel/detail/function_traits.h"
#include "kernel/errors.h"
#include "kernel/types.h"

namespace kernel::detail {

template <class T> struct is_array_view : std::false_type {};
template <class T, std::size_t R> struct is_array_view<array_view<T, R>> : std::true_type {};
template <class T> struct is_ndarray : std::false_type {};
template <class T, std::size_t R> struct is_ndarray<ndarray<T, R>> : std::true_type {};
/// Device arrays get their ufunc_arg in kernel/device_array.h.
template <class T> struct is_device_array : std::false_type {};

/// True for arrays that an rvalue argument hands over: they own their elements (a temporary
/// of one takes its elements with it; a view's are someone else's).
template <class D> constexpr bool owns_elements() {
  if constexpr (is_ndarray<D>::value)
    return true;
  else if constexpr (is_device_array<D>::value)
    return requires(const D &d) { d.copy(); }; // device_array, not device_view
  else if constexpr (is_array_view<D>::value)
    return false;
  else
    return !std::ranges::enable_borrowed_range<std::remove_cvref_t<D>>;
}

/// True for an argument given as a temporary host container (`A` as forwarded, not an lvalue
/// reference, and owning its elements): they are gone when the statement ends, before a call
/// on a stream would have written its results into them.
template <class A> constexpr bool temporary_host_container() {
  using D = std::remove_cvref_t<A>;
  return !std::is_lvalue_reference_v<A> && !is_device_array<D>::value && owns_elements<D>();
}

/// How a ufunc sees one argument of type `A` (as passed, with its reference and const).
template <class A, class = void> struct ufunc_arg {
  static constexpr bool supported = false;
  static constexpr bool is_scalar = false;
  static constexpr bool is_device = false;
};

// Scalars: arithmetic values and std::complex.
template <class A> struct ufunc_arg<A, std::enable_if_t<scalar<std::remove_cvref_t<A>>>> {
  static constexpr bool supported = true;
  static constexpr bool is_scalar = true;
  static constexpr bool is_device = false;
  static constexpr bool writable = false;
  static constexpr std::size_t rank = 0;
  using element_type = std::remove_cvref_t<A>;
};

// Arrays: views, ndarrays and contiguous ranges (std::vector, std::span, std::array).
template <class A> struct ufunc_arg<A, std::enable_if_t<is_array_view<std::remove_cvref_t<A>>::value>> {
  using view_type = std::remove_cvref_t<A>;
  // Arrays of any trivially copyable type are supported as kernel arguments; ufunc loops
  // further require scalars (arg_accepts).
  static constexpr bool supported = std::is_trivially_copyable_v<typename view_type::element_type>;
  static constexpr bool is_scalar = false;
  static constexpr bool is_device = false;
  static constexpr bool writable = !std::is_const_v<typename view_type::element_type>;
  static constexpr std::size_t rank = view_type::rank;
  using element_type = typename view_type::value_type;
  static view_type view(const view_type &a) { return a; }
};

template <class A> struct ufunc_arg<A, std::enable_if_t<is_ndarray<std::remove_cvref_t<A>>::value>> {
  using array_type = std::remove_cvref_t<A>;
  static constexpr bool supported = true;
  static constexpr bool is_scalar = false;
  static constexpr bool is_device = false;
  static constexpr bool writable = !std::is_const_v<std::remove_reference_t<A>>;
  static constexpr std::size_t rank = array_type::rank;
  using element_type = typename array_type::value_type;
  static auto view(std::remove_reference_t<A> &a) { return a.view(); }
};

template <class A>
struct ufunc_arg<
    A, std::enable_if_t<!is_array_view<std::remove_cvref_t<A>>::value && !is_ndarray<std::remove_cvref_t<A>>::value &&
                        !is_device_array<std::remove_cvref_t<A>>::value && contiguous_sized_range<A>>> {
  using stored_type = contiguous_element_t<A>;
  using reference = stored_type &;
  static constexpr bool supported = std::is_trivially_copyable_v<stored_type>;
  static constexpr bool is_scalar = false;
  static constexpr bool is_device = false;
  static constexpr bool writable = !std::is_const_v<stored_type>;
  static constexpr std::size_t rank = 1;
  using element_type = std::remove_cv_t<stored_type>;
  static array_view<stored_type, 1> view(std::remove_reference_t<A> &a) {
    return array_view<stored_type, 1>(std::ranges::data(a), {static_cast<index_t>(std::ranges::size(a))});
  }
};

/// Scalars are "weak", as Python scalars are under NumPy's NEP 50: any scalar of the same
/// kind or a lower one fits a loop's parameter (2.0 into float32, 3 into int8 if it fits),
/// with integer values range-checked at the call.
constexpr bool scalar_fits(dtype value, dtype param) noexcept {
  const dtype_kind vk = kind_of(value), pk = kind_of(param);
  const bool value_integer = vk == dtype_kind::signed_integer || vk == dtype_kind::unsigned_integer;
  const bool param_integer = pk == dtype_kind::signed_integer || pk == dtype_kind::unsigned_integer;
  if (value_integer && param_integer) return true;
  return kind_rank(vk) <= kind_rank(pk);
}

/// True when a loop parameter of type `Param` accepts argument `Arg`: arrays must cast
/// safely, scalars must fit.
template <class Arg, class Param> constexpr bool arg_accepts() {
  using arg = ufunc_arg<Arg>;
  if constexpr (!arg::supported || !scalar<Param> || !scalar<typename arg::element_type>)
    return false;
  else if constexpr (arg::is_scalar)
    return scalar_fits(dtype_of<typename arg::element_type>, dtype_of<Param>);
  else
    return can_cast_safely(dtype_of<typename arg::element_type>, dtype_of<Param>);
}

template <auto F, class... Args, std::size_t... I> constexpr bool loop_accepts_impl(std::index_sequence<I...>) {
  using traits = function_traits<decltype(F)>;
  return (arg_accepts<Args, typename traits::template arg<I>>() && ...);
}

/// True when loop `F` accepts arguments `Args` as its inputs.
template <auto F, class... Args> constexpr bool loop_accepts() {
  if constexpr (function_traits<decltype(F)>::arity != sizeof...(Args))
    return false;
  else
    return loop_accepts_impl<F, Args...>(std::index_sequence_for<Args...>{});
}

/// Index of the first loop in `Fs` accepting `Args`, or -1 (NumPy also takes the first
/// matching loop in registration order, so list the narrowest types first).
template <class ArgsTuple, auto... Fs> struct select_loop;
template <class... Args, auto... Fs> struct select_loop<std::tuple<Args...>, Fs...> {
  static constexpr int value = [] {
    int index = 0, found = -1;
    ((found < 0 && loop_accepts<Fs, Args...>() ? (found = index) : 0, ++index), ...);
    return found;
  }();
};

/// The dtype a scalar argument counts as when a call's arguments are all scalars. C++'s own
/// default types play the part of Python's scalars of no fixed dtype (NEP 50): `bool`, signed
/// `int`/`long`/`long long` (an integer literal), `double` (a floating literal) and
/// `std::complex<double>` take their kind's default dtype: bool, int64, float64, complex128.
/// A scalar of any other type was chosen for its type (`0.5f`, `3u`, `std::int8_t{1}`) and
/// keeps it, as a NumPy scalar with a dtype does.
template <class S> struct default_typed {
  using type = S;
};
template <class S>
  requires(std::is_same_v<S, int> || std::is_same_v<S, long> || std::is_same_v<S, long long>)
struct default_typed<S> {
  using type = std::int64_t;
};
/// An array of the default type of scalar argument `A`, as type resolution sees it.
template <class A>
using default_typed_array = const array_view<const typename default_typed<std::remove_cvref_t<A>>::type, 1> &;

/// The dtype of argument `A` when it is an array of scalars, else nothing.
template <class A> constexpr std::optional<dtype> array_dtype() {
  using arg = ufunc_arg<A>;
  if constexpr (!arg::supported || arg::is_scalar)
    return std::nullopt;
  else if constexpr (!scalar<typename arg::element_type>)
    return std::nullopt;
  else
    return dtype_of<typename arg::element_type>;
}
/// The highest kind among the arrays of `Args` (kind_rank), or -1 when there are none.
template <class... Args> constexpr int array_kind_rank() {
  int rank = -1;
  for (std::optional<dtype> d : {array_dtype<Args>()...})
    if (d) rank = std::max(rank, kind_rank(kind_of(*d)));
  return rank;
}
template <class... Args> constexpr bool any_double_precision_array() {
  for (std::optional<dtype> d : {array_dtype<Args>()...})
    if (d == dtype::float64 || d == dtype::complex128) return true;
  return false;
}

/// How argument `A` of a call with arguments `All` takes part in type resolution. A weak
/// scalar of a kind above every array's is not cast down into the arrays' kind: it counts as
/// an array of its kind's default type (NEP 50: an int16 array plus 0.1 is float64, a bool
/// array plus 1 int64), but a complex scalar with float arrays as the complex type of their
/// precision (a float32 array plus 1i is complex64). Anything else is itself.
template <class A, class... All> constexpr auto resolution_role() {
  using arg = ufunc_arg<A>;
  if constexpr (!arg::supported || !arg::is_scalar) {
    return std::type_identity<A>{};
  } else if constexpr (!scalar<typename arg::element_type>) {
    return std::type_identity<A>{};
  } else {
    using S = std::remove_cvref_t<typename arg::element_type>;
    constexpr int arrays = array_kind_rank<All...>();
    constexpr dtype_kind k = kind_of(dtype_of<S>);
    if constexpr (arrays < 0 || kind_rank(k) <= arrays) {
      return std::type_identity<A>{};
    } else if constexpr (k == dtype_kind::complex && arrays == kind_rank(dtype_kind::floating) &&
                         !any_double_precision_array<All...>() && std::is_same_v<S, std::complex<double>>) {
      return std::type_identity<const array_view<const std::complex<float>, 1> &>{};
    } else {
      return std::type_identity<default_typed_array<A>>{};
    }
  }
}
template <class A, class... All> using resolution_role_t = typename decltype(resolution_role<A, All...>())::type;

/// Never defined: when no loop of a ufunc accepts a call's arguments, its name in the error lists
/// their types (`Arguments`) and the loops' (`Loops`).
template <class Arguments, class... Loops> struct no_loop_accepts;

/// What a call returns after its compile errors (no loop accepts its arguments, its elements
/// cannot be sorted...): a value, not void, so that `auto r = f(x);` adds no error of its own.
struct failed_call_result {};

/// The loop of `Fs` for arguments `Args`: when every argument is a scalar, the first loop
/// accepting them as arrays of their default_typed types (`f(0.1, 0.2)` and `f(1, 2)` run
/// float64 and int64 loops, `f(0.1f, 0.2f)` a float32 one), and failing that the first
/// accepting the scalars as weak scalars; else the first accepting the arguments, scalars in
/// their resolution_role (`select_loop`).
template <class ArgsTuple, auto... Fs> struct resolve_loop;
template <class... Args, auto... Fs> struct resolve_loop<std::tuple<Args...>, Fs...> {
  static constexpr int value = [] {
    if constexpr (sizeof...(Args) > 0 && (ufunc_arg<Args>::is_scalar && ...)) {
      constexpr int by_default = select_loop<std::tuple<default_typed_array<Args>...>, Fs...>::value;
      if (by_default >= 0) return by_default;
      return select_loop<std::tuple<Args...>, Fs...>::value;
    } else {
      return select_loop<std::tuple<resolution_role_t<Args, Args...>...>, Fs...>::value;
    }
  }();
};

/// Converts a scalar argument to the loop's parameter type, rejecting integers that do not
/// fit (300 for an int8 parameter) instead of wrapping them.
template <class Param, class Value> Param convert_scalar(std::string_view callee, int argument, const Value &value) {
  if constexpr (std::is_integral_v<Value> && std::is_integral_v<Param> && !std::is_same_v<Param, bool>) {
    // Promoted, as std::in_range takes no bool or character type (`true`, 'a').
    const auto promoted = +value;
    if (!std::in_range<Param>(promoted))
      throw argument_error(std::string(callee), argument,
                           "value " + std::to_string(promoted) + " does not fit the loop's " +
                               std::string(dtype_name(dtype_of<Param>)) + " parameter");
    return static_cast<Param>(promoted);
  } else if constexpr (std::is_same_v<Param, bool>) {
    return static_cast<bool>(value != Value{});
  } else {
    return static_cast<Param>(value);
  }
}

} // namespace kernel::detail
