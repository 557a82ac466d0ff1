// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Lazy ufunc expressions and the fused programs they compile to.
//
// A ufunc applied to a lazy operand (kernel::lazy) builds a node instead of running: the
// node's type records the ufunc, the loop that eager type resolution selects for the
// children's types, and the children (array leaves, scalar leaves, other nodes). When an
// expression is materialised its tree is flattened into a *program*: the distinct leaves
// become the parameters of one elementwise function, and every node one step of it, in
// post-order. Steps read their operands from leaves or from earlier steps, so intermediate
// values live in registers; each step's result is the type its loop returns and is converted
// to the consumer's parameter type exactly as an eager call converts an intermediate array.
//
// Programs come in two flavours. The unshared one evaluates every node where it occurs. The
// shared one evaluates each node *type* once: used when, at run time, every occurrence of a
// repeated node type has the same leaves (the same arrays and scalar values), which is what
// reusing one expression object in several places (or in several outputs) gives.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernel/array.h"
#include "kernel/config.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/indexed_slots.h"
#include "kernel/detail/static_text.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/device_array.h"
#include "kernel/types.h"

namespace kernel::detail {

// ---------------------------------------------------------------------------------------
// Nodes

/// An array operand: a view of const elements (host or device memory) and, when the
/// expression was given the array as an rvalue, the array itself.
template <class V> struct array_leaf {
  using view_type = V;
  using value_type = std::remove_cv_t<typename V::element_type>;
  static constexpr std::size_t rank = V::rank;
  static constexpr bool is_device = is_device_array<V>::value;
  V view;
  std::shared_ptr<const void> owner;
};

/// A scalar operand, kept as the user's type until materialisation converts it to the
/// consuming loop's parameter type (with the eager range checks).
template <class S> struct scalar_leaf {
  using value_type = S;
  static constexpr std::size_t rank = 0;
  static constexpr bool is_device = false;
  S value;
};

template <class... R> constexpr std::size_t max_of(R... r) {
  std::size_t m = 0;
  ((m = r > m ? r : m), ...);
  return m;
}

/// A ufunc `U` (with its placement) applied with loop `Fn` to `C...`.
template <class U, auto Fn, class... C> struct map_node {
  using ufunc_type = U;
  static constexpr auto fn = Fn;
  using value_type = typename function_traits<decltype(Fn)>::result_type;
  static constexpr std::size_t rank = max_of(std::size_t{0}, C::rank...);
  static constexpr bool is_device = (C::is_device || ...);
  U ufunc;
  std::tuple<C...> children;
};

template <class N> struct is_map_node : std::false_type {};
template <class U, auto Fn, class... C> struct is_map_node<map_node<U, Fn, C...>> : std::true_type {};
template <class N> struct is_scalar_leaf : std::false_type {};
template <class S> struct is_scalar_leaf<scalar_leaf<S>> : std::true_type {};

/// What eager type resolution sees for child `C`: the scalar, the array, or for a node an
/// array of the type its loop returns.
template <class C> struct resolution_arg {
  using type = const typename C::view_type &;
};
template <class S> struct resolution_arg<scalar_leaf<S>> {
  using type = const S &;
};
template <class U, auto Fn, class... C> struct resolution_arg<map_node<U, Fn, C...>> {
  using node = map_node<U, Fn, C...>;
  using type = std::conditional_t<node::is_device, const device_view<const typename node::value_type, node::rank> &,
                                  const array_view<const typename node::value_type, node::rank> &>;
};
template <class C> using resolution_arg_t = typename resolution_arg<C>::type;

/// True when two nodes of one type compute the same values: the same arrays (address,
/// shape, strides) and bitwise-equal scalars.
template <class V> bool same_node(const array_leaf<V> &a, const array_leaf<V> &b) {
  return a.view.data() == b.view.data() && a.view.shape() == b.view.shape() && a.view.strides() == b.view.strides();
}
template <class S> bool same_node(const scalar_leaf<S> &a, const scalar_leaf<S> &b) {
  return std::memcmp(&a.value, &b.value, sizeof(S)) == 0;
}
template <class U, auto Fn, class... C> bool same_node(const map_node<U, Fn, C...> &a, const map_node<U, Fn, C...> &b) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return (same_node(std::get<I>(a.children), std::get<I>(b.children)) && ...);
  }(std::index_sequence_for<C...>{});
}

// ---------------------------------------------------------------------------------------
// Programs

/// Parameter K of a program's function: elements of type T read from an array of `Rank`
/// dimensions, or (Rank 0) a scalar already converted to T.
template <class T, std::size_t Rank> struct leaf_param {
  using type = T;
  static constexpr std::size_t rank = Rank;
  static constexpr bool is_scalar = Rank == 0;
};
template <std::size_t K> struct leaf_ref {};
template <std::size_t J> struct step_ref {};
/// One node evaluated: loop `Fn` applied to the operands `Refs`.
template <auto Fn, class... Refs> struct step {};
/// A key standing for one occurrence of a node in an unshared program.
template <std::size_t J> struct occurrence {};

template <class T, class Tuple> struct tuple_index;
template <class T> struct tuple_index<T, std::tuple<>> {
  static constexpr int value = -1;
};
template <class T, class H, class... R> struct tuple_index<T, std::tuple<H, R...>> {
  static constexpr int value =
      std::is_same_v<T, H>
          ? 0
          : (tuple_index<T, std::tuple<R...>>::value < 0 ? -1 : 1 + tuple_index<T, std::tuple<R...>>::value);
};

template <class Keys, class Steps, class Leaves> struct builder {
  using keys = Keys;
  using steps = Steps;
  using leaves = Leaves;
};

template <class Tuple, class T> struct append;
template <class... A, class T> struct append<std::tuple<A...>, T> {
  using type = std::tuple<A..., T>;
};
template <class Tuple, class T> using append_t = typename append<Tuple, T>::type;

/// Visiting node `N`, consumed as a `Param`, in state `S`: the state after it and the
/// operand reference it gives its consumer.
template <bool Share, class N, class Param, class S> struct visit;

template <bool Share, class V, class Param, class S> struct visit<Share, array_leaf<V>, Param, S> {
  static constexpr std::size_t index = std::tuple_size_v<typename S::leaves>;
  using state = builder<typename S::keys, typename S::steps,
                        append_t<typename S::leaves, leaf_param<typename array_leaf<V>::value_type, V::rank>>>;
  using ref = leaf_ref<index>;
};

template <bool Share, class T, class Param, class S> struct visit<Share, scalar_leaf<T>, Param, S> {
  static constexpr std::size_t index = std::tuple_size_v<typename S::leaves>;
  using state = builder<typename S::keys, typename S::steps, append_t<typename S::leaves, leaf_param<Param, 0>>>;
  using ref = leaf_ref<index>;
};

template <bool Share, auto Fn, class S, class Children, class Refs, std::size_t I = 0> struct visit_children;
template <bool Share, auto Fn, class S, class... Refs, std::size_t I>
struct visit_children<Share, Fn, S, std::tuple<>, std::tuple<Refs...>, I> {
  using state = S;
  using refs = std::tuple<Refs...>;
};
template <bool Share, auto Fn, class S, class C, class... Rest, class... Refs, std::size_t I>
struct visit_children<Share, Fn, S, std::tuple<C, Rest...>, std::tuple<Refs...>, I> {
  using param = typename function_traits<decltype(Fn)>::template arg<I>;
  using child = visit<Share, C, param, S>;
  using next = visit_children<Share, Fn, typename child::state, std::tuple<Rest...>,
                              std::tuple<Refs..., typename child::ref>, I + 1>;
  using state = typename next::state;
  using refs = typename next::refs;
};

template <auto Fn, class Refs> struct make_step;
template <auto Fn, class... Refs> struct make_step<Fn, std::tuple<Refs...>> {
  using type = step<Fn, Refs...>;
};

template <bool Share, class N, class S> struct visit_map {
  using children =
      visit_children<Share, N::fn, S, std::remove_cvref_t<decltype(std::declval<N>().children)>, std::tuple<>>;
  using after = typename children::state;
  static constexpr std::size_t index = std::tuple_size_v<typename after::steps>;
  using key = std::conditional_t<Share, N, occurrence<index>>;
  using state = builder<append_t<typename after::keys, key>,
                        append_t<typename after::steps, typename make_step<N::fn, typename children::refs>::type>,
                        typename after::leaves>;
  using ref = step_ref<index>;
  static constexpr bool seen = false;
};

template <bool Share, class U, auto Fn, class... C, class Param, class S>
struct visit<Share, map_node<U, Fn, C...>, Param, S> {
  using node = map_node<U, Fn, C...>;
  static constexpr int found = Share ? tuple_index<node, typename S::keys>::value : -1;
  static constexpr bool seen = found >= 0;
  using fresh = visit_map<Share, node, S>;
  using state = std::conditional_t<seen, S, typename fresh::state>;
  using ref = std::conditional_t<seen, step_ref<static_cast<std::size_t>(found < 0 ? 0 : found)>, typename fresh::ref>;
};

/// The program of expressions `Roots...`: its steps, the parameters of its function (one
/// per leaf visited), and one operand reference per root.
template <class Steps, class Leaves, class RootRefs, class Keys> struct program;

template <bool Share, class S, class Roots, class Refs> struct visit_roots;
template <bool Share, class S, class... Refs> struct visit_roots<Share, S, std::tuple<>, std::tuple<Refs...>> {
  using type = program<typename S::steps, typename S::leaves, std::tuple<Refs...>, typename S::keys>;
};
template <bool Share, class S, class R, class... Rest, class... Refs>
struct visit_roots<Share, S, std::tuple<R, Rest...>, std::tuple<Refs...>> {
  using root = visit<Share, R, typename R::value_type, S>;
  using type = typename visit_roots<Share, typename root::state, std::tuple<Rest...>,
                                    std::tuple<Refs..., typename root::ref>>::type;
};

template <bool Share, class... Roots>
using program_for = typename visit_roots<Share, builder<std::tuple<>, std::tuple<>, std::tuple<>>, std::tuple<Roots...>,
                                         std::tuple<>>::type;

// ---------------------------------------------------------------------------------------
// Evaluating a program: one element

template <class Leaves> struct leaf_values;
template <class... L> struct leaf_values<std::tuple<L...>> {
  using type = std::tuple<typename L::type...>;
};

template <class Ref> struct operand_value;
template <std::size_t K> struct operand_value<leaf_ref<K>> {
  template <class L, class V> static KERNEL_ALWAYS_INLINE auto get(const L &leaves, const V &) noexcept {
    return std::get<K>(leaves);
  }
};
template <std::size_t J> struct operand_value<step_ref<J>> {
  template <class L, class V> static KERNEL_ALWAYS_INLINE auto get(const L &, const V &values) noexcept {
    return slot<J>(values).value;
  }
};

template <class Step> struct step_eval;
template <auto Fn, class... Refs> struct step_eval<step<Fn, Refs...>> {
  using traits = function_traits<decltype(Fn)>;
  using result = typename traits::result_type;
  template <class L, class V> static KERNEL_ALWAYS_INLINE result compute(const L &leaves, const V &values) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return Fn(static_cast<typename traits::template arg<I>>(operand_value<Refs>::get(leaves, values))...);
    }(std::index_sequence_for<Refs...>{});
  }
};

template <class Program> struct program_traits;
template <class... S, class... L, class... R, class Keys>
struct program_traits<program<std::tuple<S...>, std::tuple<L...>, std::tuple<R...>, Keys>> {
  using steps = std::tuple<S...>;
  using leaves = std::tuple<L...>;
  using values = std::tuple<typename L::type...>;
  static constexpr std::size_t nleaves = sizeof...(L);
  static constexpr std::size_t nsteps = sizeof...(S);
  static constexpr std::size_t nout = sizeof...(R);
  /// The results of the steps for one element, a slot per step (indexed_slots: a tuple grown
  /// one step at a time instantiated every length up to the step count).
  using slots = indexed_slots<deferred<typename step_eval<S>::result>...>;

  /// Every root's value for one element.
  static KERNEL_ALWAYS_INLINE auto evaluate(const values &l) {
    slots v;
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      (::new (static_cast<void *>(&slot<J>(v).value)) typename step_eval<S>::result(step_eval<S>::compute(l, v)), ...);
    }(std::index_sequence_for<S...>{});
    return std::make_tuple(operand_value<R>::get(l, v)...);
  }
  using results = decltype(evaluate(std::declval<const values &>()));
  template <std::size_t K> using result = std::remove_cvref_t<std::tuple_element_t<K, results>>;

  /// The program as one function of its leaves (single output): what the CPU loop inlines.
  static result<0> apply(typename L::type... l) { return std::get<0>(evaluate(values(l...))); }
};

// ---------------------------------------------------------------------------------------
// Names: "gauss(scale(float32, float32[:]), float32, float32)", built at compile time.

template <class T, std::size_t Rank> constexpr ctext leaf_name() {
  ctext s;
  s += dtype_name(dtype_of<T>);
  if constexpr (Rank > 0) {
    s += "[:";
    for (std::size_t d = 1; d < Rank; ++d) s += ",:";
    s += "]";
  }
  return s;
}

template <class Program, class Ref> struct ref_name;
template <class Program, std::size_t K> struct ref_name<Program, leaf_ref<K>> {
  static constexpr ctext get() {
    using L = std::tuple_element_t<K, typename program_traits<Program>::leaves>;
    return leaf_name<typename L::type, L::rank>();
  }
};
template <class Program, std::size_t J> struct ref_name<Program, step_ref<J>> {
  static constexpr ctext get() { return step_name(std::tuple_element_t<J, typename program_traits<Program>::steps>{}); }
  template <auto Fn, class... Refs> static constexpr ctext step_name(step<Fn, Refs...>) {
    ctext s;
    s += function_name<Fn>();
    s += "(";
    bool first = true;
    ((s += (first ? "" : ", "), s += ref_name<Program, Refs>::get(), first = false), ...);
    s += ")";
    return s;
  }
};

template <class Program> struct program_names;
template <class Steps, class... L, class... R, class Keys>
struct program_names<program<Steps, std::tuple<L...>, std::tuple<R...>, Keys>> {
  using P = program<Steps, std::tuple<L...>, std::tuple<R...>, Keys>;
  /// The composed expression(s).
  static constexpr ctext expression() {
    ctext s;
    if (sizeof...(R) > 1) s += "(";
    bool first = true;
    ((s += (first ? "" : ", "), s += ref_name<P, R>::get(), first = false), ...);
    if (sizeof...(R) > 1) s += ")";
    return s;
  }
  /// The flat signature of the program's function: "float32(float32[:], float32)".
  static constexpr ctext signature() {
    using traits = program_traits<P>;
    ctext s;
    if (sizeof...(R) > 1) s += "(";
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      bool first = true;
      ((s += (first ? "" : ", "), s += leaf_name<typename traits::template result<K>, 0>(), first = false), ...);
    }(std::make_index_sequence<sizeof...(R)>{});
    if (sizeof...(R) > 1) s += ")";
    s += "(";
    bool first = true;
    ((s += (first ? "" : ", "), s += leaf_name<typename L::type, L::rank>(), first = false), ...);
    s += ")";
    return s;
  }
};

} // namespace kernel::detail
