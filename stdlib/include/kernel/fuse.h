// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fusion: a chain of ufuncs (and a reduction at its end) runs as one GPU kernel or one CPU
// loop, with intermediate values in registers and no temporary arrays.
//
//   auto e = gauss(scale(kernel::lazy(x), 2.0f), mu, sigma); // nothing runs yet
//   ndarray<float> y = e.eval();                            // one loop (or one kernel)
//   kernel::eval(kernel::assign(out, e));                  // into an existing array
//   float total = sum(e);                                   // kernel::reduce<add>: map-reduce
//   kernel::eval(kernel::assign(o1, f(t)), kernel::assign(o2, g(t)));  // two outputs, one pass
//
// A ufunc applied to a lazy operand returns a kernel::expr. Types are resolved at every node
// exactly as eager calls resolve them (the same loop is chosen; each intermediate is
// rounded to the type its loop returns), so fused results equal the eager chain's bitwise
// (on the CPU, to libmvec's accuracy for functions calling the math library: README,
// "Fusion"). The plugin compiles the GPU kernel of every expression a translation
// unit materialises ahead of time; without the plugin, expressions run on cpu and parallel.
//
// Lifetimes: an expression refers to the lvalue arrays it was built from (as a view would)
// and owns the arrays it was given as rvalues (kernel::lazy(make_array()) keeps the array
// alive); subexpressions and scalars are held by value. `kernel::lazy` of a const rvalue,
// which could be neither moved nor safely referenced, does not compile.
//
// Where it runs: on the devices of its device arrays, else where its outermost ufunc is
// placed (`.on(...)`), unless eval is given a target, device or stream.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/detail/fused_run.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/device.h"
#include "kernel/inspect.h"
#include "kernel/target.h"

namespace kernel {

/// A lazy elementwise expression: what a ufunc returns when an operand is lazy. Evaluated
/// when materialised: eval(), kernel::eval(kernel::assign(out, e)), a ufunc call with an
/// output array, copy_to_host(), or a kernel::reduce.
template <class Node> class expr {
public:
  using node_type = Node;
  using value_type = typename Node::value_type;
  static constexpr std::size_t rank = Node::rank;
  static constexpr bool is_device = Node::is_device;

  explicit expr(Node node) : node_(std::move(node)) {}

  const Node &node() const noexcept { return node_; }

  /// The composed expression: "gauss(scale(float32, float32[:]), float32, float32)".
  static constexpr std::string_view name() noexcept { return entry::kernel_name.view(); }
  /// The signature of its fused function: "float32(float32, float32[:], float32, float32)".
  static constexpr std::string_view signature() noexcept { return entry::kernel_signature.view(); }

  /// The broadcast shape it computes (checked as the eager calls would check it).
  std::array<index_t, rank> shape() const {
    const detail::node_shape s = detail::expression_shape(node_);
    std::array<index_t, rank> r{};
    std::copy_n(s.shape, rank, r.begin());
    return r;
  }

  /// A new array of the values: a device_array for expressions of device arrays, else an
  /// ndarray (computed where the expression or the argument places it: host arrays are
  /// copied to a device target and the results back, as eager calls do).
  auto eval() const { return detail::evaluate_new(detail::placement_of(node_), node_); }
  auto eval(target t) const { return detail::evaluate_new(detail::placement{t}, node_); }
  auto eval(device d) const { return detail::evaluate_new(detail::placement::of(d), node_); }
  /// Asynchronously on `s`: host results are there after s.synchronize().
  auto eval(const stream &s) const { return detail::evaluate_new(detail::placement::of(s), node_); }

  /// The values on the host, there when it returns (an expression placed on a stream is
  /// waited for).
  auto copy_to_host() const {
    const detail::placement where = detail::placement_of(node_);
    auto r = detail::evaluate_new(where, node_);
    if constexpr (is_device) {
      return r.copy_to_host();
    } else {
      if (where.chosen_stream)
        if (const std::shared_ptr<detail::stream_state> s = detail::live_stream(where.chosen_stream))
          detail::stream_synchronize(*s);
      return r;
    }
  }

  /// The fused GPU kernels compiled for this expression (two when it repeats a
  /// subexpression: a shared and an unshared one); empty without the plugin.
  static std::vector<kernel_info> inspect() {
    std::vector<kernel_info> kernels;
    auto add = [&]<class E>(std::type_identity<E>) {
      if (auto info = detail::find_kernel(reinterpret_cast<const void *>(&detail::fused_kernel<E>)))
        kernels.push_back(std::move(*info));
    };
    add(std::type_identity<entry>{});
    if constexpr (detail::has_repeated_nodes<Node>())
      add(std::type_identity<detail::fused<detail::program_for<true, Node>>>{});
    return kernels;
  }

private:
  using entry = detail::fused<detail::program_for<false, Node>>;
  Node node_;
};

/// Marks `a` lazy: ufuncs applied to it build an expression. An lvalue array is referenced
/// (it must outlive the expression); an rvalue array is moved into the expression.
/// A default-constructed device array has no device to read: an argument_error naming lazy.
template <class A> auto lazy(A &&a) {
  if constexpr (detail::is_expr<std::remove_cvref_t<A>>::value) {
    return std::remove_cvref_t<A>(a);
  } else {
    detail::require_device_of("lazy", 1, a);
    return expr<decltype(detail::make_array_leaf(std::forward<A>(a)))>(detail::make_array_leaf(std::forward<A>(a)));
  }
}
/// A const temporary can be neither moved into an expression nor referenced by it.
template <class A>
  requires(detail::owns_elements<std::remove_cvref_t<A>>())
void lazy(const A &&) = delete;

/// An output and the expression to write into it, for kernel::eval.
template <class Out, class N> auto assign(Out &out, const expr<N> &e) {
  // Checked here, first: deeper in, a scalar or a function named as the output gives a page
  // of errors from the library's internals. After the error, an assignment to an array of
  // nothing keeps the rest of the call from adding its own.
  constexpr bool array = detail::ufunc_arg<Out &>::supported && !detail::ufunc_arg<Out &>::is_scalar;
  static_assert(array, "kernel::assign writes an expression into an array (an ndarray, array_view, "
                       "std::vector or device_array), not into a scalar; reduce it (kernel::reduce) "
                       "for one value");
  if constexpr (array) {
    detail::require_device_of("assign", 1, out);
    return detail::assignment<Out, N>{out, e.node()};
  } else {
    static array_view<float> nothing;
    return detail::assignment<array_view<float>, N>{nothing, e.node()};
  }
}

namespace detail {
// The outputs' types are checked here, where the call is instantiated at once (its return
// type is deduced), so that an error shows the chain of instantiations from the user's line:
// a void function template is instantiated at the end of the file, from where it was named.
template <class... Out, class... N> auto eval_assignments(const placement &where, const assignment<Out, N> &...a) {
  constexpr bool casts =
      (can_cast_same_kind(dtype_of<typename N::value_type>, dtype_of<typename output_of<Out>::element_type>) && ...);
  static_assert(casts, "the output's element type cannot hold the expression's result (NumPy 'same_kind' casting)");
  constexpr bool exact =
      sizeof...(N) == 1 || (std::is_same_v<typename output_of<Out>::element_type, typename N::value_type> && ...);
  static_assert(exact, "the outputs of a multi-output evaluation have the element types of their expressions: "
                       "each is written without conversion (one kernel::assign alone may convert, as a ufunc "
                       "call's output may; or evaluate such an output by itself)");
  if constexpr (casts && exact) materialize(where, std::tuple<const N &...>(a.node...), std::tuple<Out &...>(a.out...));
}
template <class Out, class N, class... Rest> placement first_placement(const assignment<Out, N> &a, const Rest &...) {
  return placement_of(a.node);
}
} // namespace detail

/// Evaluates one or more assignments in one pass (one loop, or one kernel): subexpressions
/// the expressions share are computed once per element.
template <class Out, class N, class... Rest> void eval(const detail::assignment<Out, N> &first, const Rest &...rest) {
  detail::eval_assignments(detail::first_placement(first), first, rest...);
}
template <class... A> void eval(target t, const A &...a) { detail::eval_assignments(detail::placement{t}, a...); }
template <class... A> void eval(device d, const A &...a) { detail::eval_assignments(detail::placement::of(d), a...); }
template <class... A> void eval(const stream &s, const A &...a) {
  detail::eval_assignments(detail::placement::of(s), a...);
}

} // namespace kernel
