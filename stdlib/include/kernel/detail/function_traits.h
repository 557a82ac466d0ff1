// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Parameter and result types of the functions users annotate, and their printable names.
#pragma once

#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>

namespace kernel::detail {

/// What ufunc, gufunc and reduce take as template arguments: a function (its address), not a
/// lambda or another function object, of which the plugin makes no GPU entry. As a constraint,
/// such an argument is one error at the user's line rather than a cascade from the traits.
template <class P>
concept function_pointer = std::is_pointer_v<P> && std::is_function_v<std::remove_pointer_t<P>>;

template <class F> struct function_traits;
template <class F> struct function_traits<F const> : function_traits<F> {};

template <class R, class... A> struct function_traits<R (*)(A...)> {
  /// What a call gives: a function returning a const class (`const point f(...)`) gives a
  /// point, which results, temporaries and fused steps hold.
  using result_type = std::remove_cv_t<R>;
  using args_tuple = std::tuple<A...>;
  /// Parameters as values: `const float&` and `float` both read a float.
  using value_args_tuple = std::tuple<std::remove_cvref_t<A>...>;
  static constexpr std::size_t arity = sizeof...(A);
  template <std::size_t I> using arg = std::remove_cvref_t<std::tuple_element_t<I, args_tuple>>;
};
template <class R, class... A> struct function_traits<R (*)(A...) noexcept> : function_traits<R (*)(A...)> {};

/// The name of the function `F` as the compiler prints it ("saxpy", "ns::mul"), read from
/// the signature of this function template so it works without the plugin too.
template <auto F> constexpr std::string_view function_name_of_signature() noexcept {
  std::string_view s = __PRETTY_FUNCTION__;
  const std::size_t key = s.find("F = ");
  if (key == std::string_view::npos) return "<function>";
  s.remove_prefix(key + 4);
  if (!s.empty() && s.front() == '&') s.remove_prefix(1);
  const std::size_t end = s.find_first_of(";]");
  return end == std::string_view::npos ? s : s.substr(0, end);
}
/// Read once, at compile time: every ufunc call names its function, for its errors.
template <auto F> inline constexpr std::string_view function_name_v = function_name_of_signature<F>();
template <auto F> constexpr std::string_view function_name() noexcept { return function_name_v<F>; }

} // namespace kernel::detail
