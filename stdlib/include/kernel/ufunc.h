// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Universal functions: an elementwise function applied over arrays with NumPy broadcasting.
//
//   [[kernel::vectorize("float32(float32, float32, float32)")]]
//   float saxpy(float a, float x, float y) { return a * x + y; }
//
//   constexpr kernel::ufunc<saxpy> vsaxpy;
//   vsaxpy(2.0f, x, y, out);                          // into `out`, on the CPU
//   auto r = vsaxpy.on(kernel::target::parallel)(2.0f, x, y);   // allocates the result
//   vsaxpy.on(kernel::target::cuda)(2.0f, x, y, out); // host arrays: copied in and out
//   vsaxpy(2.0f, dx, dy, dout);                       // device arrays: on their device
//   vsaxpy.on(stream)(2.0f, dx, dy, dout);            // asynchronous, ordered on `stream`
//
// Several functions make one ufunc with several loops (a template instantiated for several
// types): `kernel::ufunc<hypot<float>, hypot<double>>`. A call picks the first loop whose
// parameters accept the arguments (arrays cast safely, scalars by kind), at compile time.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/array.h"
#include "kernel/config.h"
#include "kernel/detail/axis.h"
#include "kernel/detail/broadcast.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/number_text.h"
#include "kernel/detail/placement.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/detail/shape_check.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/detail/ufunc_cpu.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/detail/ufunc_kernel.h"
#include "kernel/device.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"
#include "kernel/fuse.h"
#include "kernel/inspect.h"
#include "kernel/target.h"
#include "kernel/types.h"

namespace kernel {

namespace detail {
// Work per parallel task: below this, spreading a loop over cores costs more than it saves.
inline constexpr index_t parallel_grain = 1 << 15;

template <auto F, auto... Rest> struct first_loop {
  static constexpr auto value = F;
};

template <std::size_t... R> constexpr std::size_t max_rank() {
  std::size_t m = 0;
  ((m = R > m ? R : m), ...);
  return m;
}
} // namespace detail

/// A binary ufunc's identity (Numba's `@vectorize(identity=...)`, NumPy's `ufunc.identity`),
/// given when the ufunc is made: `constexpr kernel::ufunc<add> vadd{kernel::identity::zero};`.
/// As in NumPy, `zero` and `one` start every reduction not given an initial value (so an
/// empty axis reduces to them). Any but `none` also says that the function combines elements
/// in any order alike (it is associative and commutative), which reducing over several axes
/// at once needs, and which lets reductions run in a tree or in chunks.
enum class identity { none, zero, one, reorderable };

/// `reduce`'s axes argument for every axis of the array (NumPy's `axis=None`).
struct all_axes_t {
  // Made from a tag only, so that empty braces, `reduce(a, {})`, do not make one (they are
  // NumPy's axis=(), refused at compile time).
  struct tag {};
  explicit constexpr all_axes_t(tag) {}
};
inline constexpr all_axes_t all_axes{all_axes_t::tag{}};

/// A ufunc made of the loops `F...` (functions with the same number of scalar parameters).
/// `on(...)` places it on a target, device or stream (detail::placed); on a stream, host
/// results are written when the stream is synchronized.
template <detail::function_pointer auto... F> class ufunc : public detail::placed<ufunc<F...>> {
  static_assert(sizeof...(F) >= 1, "kernel::ufunc needs at least one function");
  static constexpr auto primary = detail::first_loop<F...>::value;
  using primary_traits = detail::function_traits<decltype(primary)>;
  // What empty braces make: reduce's axes, reduceat's indices.
  struct empty_braces {};

public:
  /// Inputs per call.
  static constexpr std::size_t nin = primary_traits::arity;
  static_assert(((detail::function_traits<decltype(F)>::arity == nin) && ...),
                "every loop of a ufunc takes the same number of arguments");
  /// Outputs per call (NumPy's `nout`): one.
  static constexpr std::size_t nout = 1;
  /// Arguments of a call given its output (NumPy's `nargs`).
  static constexpr std::size_t nargs = nin + nout;
  /// Loops (NumPy's `ntypes`).
  static constexpr std::size_t ntypes = sizeof...(F);

  constexpr ufunc() noexcept = default;
  constexpr explicit ufunc(target t) noexcept : detail::placed<ufunc>(t) {}
  /// A ufunc with an identity (kept by `on(...)`).
  constexpr explicit ufunc(kernel::identity id) noexcept : identity_(id) {}

  constexpr target where() const noexcept { return this->placed_on().where; }
  /// The identity it was made with (kernel::identity::none unless given).
  constexpr kernel::identity identity() const noexcept { return identity_; }

  /// The name used in messages: the first loop's function.
  static constexpr std::string_view name() noexcept { return detail::function_name<primary>(); }

  /// The GPU kernels compiled for this ufunc, one per loop; empty for loops whose translation
  /// unit was compiled without the plugin.
  static std::vector<kernel_info> inspect() {
    std::vector<kernel_info> kernels;
    for (const void *key : {reinterpret_cast<const void *>(&detail::ufunc_kernel<F>)...})
      if (auto info = detail::find_kernel(key)) kernels.push_back(std::move(*info));
    return kernels;
  }

  /// Applies the ufunc. With `nin` arguments the result is allocated and returned (an
  /// ndarray, or a scalar when every argument is a scalar); with one more, the last argument
  /// is the output, which must already have the broadcast shape.
  ///
  /// When an input is lazy (kernel::lazy, or an expression), the call returns a kernel::expr
  /// and runs nothing; with an output it evaluates the expression into it, in one loop or
  /// kernel (kernel/fuse.h).
  template <class... Args> auto operator()(Args &&...args) const {
    static_assert(sizeof...(Args) == nin || sizeof...(Args) == nin + 1,
                  "a ufunc call takes its inputs, optionally followed by one output array");
    // The output, as given: a temporary container on a stream would be written when gone.
    if constexpr (sizeof...(Args) == nin + 1)
      detail::require_lasting_output<std::tuple_element_t<nin, std::tuple<Args...>>>(name(), static_cast<int>(nin) + 1,
                                                                                     this->placed_on());
    if constexpr ((detail::lazy_operand<Args> || ...)) {
      if constexpr (sizeof...(Args) == nin) {
        return lazy_call(std::forward<Args>(args)...);
      } else {
        auto refs = std::forward_as_tuple(std::forward<Args>(args)...);
        static_assert(!detail::lazy_operand<std::tuple_element_t<nin, decltype(refs)>>,
                      "the output of a ufunc call is an array, not an expression");
        const auto e = [&]<std::size_t... I>(std::index_sequence<I...>) {
          return lazy_call(std::get<I>(std::move(refs))...);
        }(std::make_index_sequence<nin>{});
        detail::eval_assignments(this->placed_on(), kernel::assign(std::get<nin>(refs), e));
      }
    } else if constexpr (sizeof...(Args) == nin) {
      return allocate_and_call(args...);
    } else {
      auto refs = std::forward_as_tuple(args...);
      return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
        return call_into(std::get<nin>(refs), std::get<I>(refs)...);
      }(std::make_index_sequence<nin>{});
    }
  }

  /// Where a lazy expression whose outermost call is this one runs.
  constexpr const detail::placement &placement_for_fusion() const noexcept { return this->placed_on(); }

  /// NumPy's and Numba's `ufunc.reduce(array, axis)` for a binary ufunc: the elements along
  /// `axis` (negative counts from the end) combined in order, `f(f(f(a0, a1), a2), ...)`; the
  /// result has the array's other dimensions (a scalar for a 1-d array). The loop is the one a
  /// call with two such arrays selects. A ufunc whose identity is zero or one starts from it,
  /// as NumPy's does; an empty axis reduces to that start, and without one is an error.
  /// Host arrays reduce on the host (`parallel` spreads the results over cores); device
  /// arrays, or a device target, take one call of the ufunc per step along the axis, on the
  /// device; with an identity, whose order of combining is free, and a loop that takes its
  /// result type in both parameters, a tree of ceil(log2 n) calls there.
  template <class A> auto reduce(const A &array) const { return reduce(array, 0); }
  template <class A, detail::integer_argument Axis> // (braces, `{1}`, are a list of axes)
  auto reduce(const A &array, Axis axis) const {
    static_assert(nin == 2, "reduce needs a binary ufunc");
    using arg = detail::ufunc_arg<const A &>;
    static_assert(arg::supported && !arg::is_scalar, "reduce takes an array");
    // After those errors the reduction is not compiled further.
    if constexpr (nin != 2 || !arg::supported || arg::is_scalar)
      return detail::failed_call_result{};
    else
      return started([&](const auto &initial) { return reduce_fitting(array, axis_number(axis, 2), initial); });
  }

  /// reduce from NumPy's `initial`: `f(f(f(initial, a0), a1), ...)`, so that an empty axis
  /// reduces to `initial` (converted to the result type) and, on a device, an axis of one
  /// element takes a step too. `initial` is a scalar the loop's first parameter takes, as a
  /// call's scalar argument.
  template <class A, detail::integer_argument Axis, class I>
  auto reduce(const A &array, Axis axis, const I &initial) const {
    static_assert(nin == 2, "reduce needs a binary ufunc");
    using arg = detail::ufunc_arg<const A &>;
    static_assert(arg::supported && !arg::is_scalar, "reduce takes an array");
    static_assert(scalar<I>, "reduce's initial value is a number (a scalar the loop's first parameter takes)");
    if constexpr (nin != 2 || !arg::supported || arg::is_scalar || !scalar<I>)
      return detail::failed_call_result{};
    else
      return reduce_fitting(array, axis_number(axis, 2), initial);
  }

  /// reduce over several axes at once (NumPy's `axis=(0, 2)`; `kernel::all_axes` for every
  /// one, a scalar result): `f.reduce(a, {0, 2})`, optionally from an initial value. The
  /// result has the other dimensions, in order. Over more than one axis the ufunc needs an
  /// identity (kernel::identity), whose order of combining elements is free: each result is
  /// the fold of its elements in C order, on the host; on a device, where the arrays are, as a
  /// reduce along one axis (in a tree), after one pass that gathers the axes' elements
  /// together where their strides do not already.
  template <class A, std::size_t K> auto reduce(const A &array, const int (&axes)[K]) const {
    return reduce_axes_checked(array, std::to_array(axes), no_initial{});
  }
  template <class A, std::size_t K, class I> auto reduce(const A &array, const int (&axes)[K], const I &initial) const {
    static_assert(scalar<I>, "reduce's initial value is a number (a scalar the loop's first parameter takes)");
    return reduce_axes_checked(array, std::to_array(axes), initial);
  }
  template <class A, std::size_t K> auto reduce(const A &array, const std::array<int, K> &axes) const {
    return reduce_axes_checked(array, axes, no_initial{});
  }
  template <class A, std::size_t K, class I>
  auto reduce(const A &array, const std::array<int, K> &axes, const I &initial) const {
    static_assert(scalar<I>, "reduce's initial value is a number (a scalar the loop's first parameter takes)");
    return reduce_axes_checked(array, axes, initial);
  }
  /// Empty braces, NumPy's axis=() (no reduction, the array itself), are refused: reduce over
  /// one axis at least.
  template <class A> auto reduce(const A &array, empty_braces) const {
    return reduce_axes_checked(array, std::array<int, 0>{}, no_initial{});
  }
  template <class A, class I> auto reduce(const A &array, empty_braces, const I &initial) const {
    return reduce_axes_checked(array, std::array<int, 0>{}, initial);
  }
  template <class A> auto reduce(const A &array, all_axes_t) const {
    return reduce_axes_checked(array, every_axis<A>(), no_initial{});
  }
  template <class A, class I> auto reduce(const A &array, all_axes_t, const I &initial) const {
    static_assert(scalar<I>, "reduce's initial value is a number (a scalar the loop's first parameter takes)");
    return reduce_axes_checked(array, every_axis<A>(), initial);
  }

  /// NumPy's `ufunc.outer(a, b)` for a binary ufunc: the function of every pair of elements,
  /// `r[i..., j...] = f(a[i...], b[j...])`, of shape `a.shape + b.shape`; with a third
  /// argument, into that array, which has that shape. A scalar counts as an array of no
  /// dimensions. It runs where a call with the two arrays runs: device arrays on their device,
  /// host arrays where the ufunc is placed.
  template <class A, class B, class... Out> auto outer(A &&a, B &&b, Out &&...out) const {
    static_assert(nin == 2, "outer needs a binary ufunc");
    static_assert(sizeof...(Out) <= 1, "outer takes two inputs, optionally followed by one output array");
    static_assert(!detail::lazy_operand<A> && !detail::lazy_operand<B>,
                  "outer takes arrays or scalars, not a lazy expression: evaluate it first (.eval())");
    using arg_a = detail::ufunc_arg<const std::remove_reference_t<A> &>;
    using arg_b = detail::ufunc_arg<const std::remove_reference_t<B> &>;
    static_assert(detail::lazy_operand<A> || detail::lazy_operand<B> || (arg_a::supported && arg_b::supported),
                  "outer takes arrays or scalars");
    if constexpr (nin != 2 || sizeof...(Out) > 1 || detail::lazy_operand<A> || detail::lazy_operand<B> ||
                  !arg_a::supported || !arg_b::supported) {
      return detail::failed_call_result{};
    } else {
      static_assert(arg_a::rank + arg_b::rank <= detail::max_dims,
                    "outer: the two arrays have more dimensions together than an array may have (32)");
      if constexpr (arg_a::rank + arg_b::rank > detail::max_dims) {
        return detail::failed_call_result{};
      } else {
        // Each input spread over the other's dimensions (extent 1, stride 0): the call's
        // broadcasting then pairs every element of one with every element of the other.
        constexpr std::size_t ra = arg_a::rank, rb = arg_b::rank;
        const auto spread_a = spread_over<0, rb>(1, a);
        const auto spread_b = spread_over<ra, 0>(2, b);
        if constexpr (!arg_a::is_device && !arg_b::is_device) {
          return (*this)(spread_a, spread_b, std::forward<Out>(out)...);
        } else {
          // The spread views own nothing: the arrays' memory is held until the queued call is
          // done, as the call holds arrays given to it.
          const detail::device_call c = this->call_on(
              this->placed_on().runs_on_host() ? detail::first_device(name(), a, b) : nullptr, unavailable_message);
          if constexpr (sizeof...(Out) == 1) {
            (*this)(spread_a, spread_b, std::forward<Out>(out)...);
            detail::keep_until_done(*c.stream, {detail::owned_device_memory(a), detail::owned_device_memory(b)});
          } else {
            auto result = (*this)(spread_a, spread_b);
            detail::keep_until_done(*c.stream, {detail::owned_device_memory(a), detail::owned_device_memory(b)});
            return result;
          }
        }
      }
    }
  }

  /// NumPy's `ufunc.accumulate(array, axis)` for a binary ufunc: every step of reduce's fold
  /// along `axis` (negative counts from the end), `r[0] = a[0]`, `r[k] = f(r[k-1], a[k])`; the
  /// result has the array's shape and the loop's result type. In order, as NumPy's: the
  /// function need not be associative (for a parallel scan of an associative one, see
  /// kernel::scan). Host arrays accumulate on the host (`parallel` spreads the lines over
  /// cores); device arrays, or a device target, take one call of the ufunc per step along the
  /// axis, on the device.
  template <class A, detail::integer_argument Axis = int> auto accumulate(const A &array, Axis axis = 0) const {
    static_assert(nin == 2, "accumulate needs a binary ufunc");
    using arg = detail::ufunc_arg<const A &>;
    static_assert(arg::supported && !arg::is_scalar, "accumulate takes an array");
    if constexpr (nin != 2 || !arg::supported || arg::is_scalar)
      return detail::failed_call_result{};
    else
      return accumulate_fitting(array, axis_number(axis, 2));
  }

  /// NumPy's `ufunc.reduceat(array, indices, axis)` for a binary ufunc: reduce over the slices
  /// along `axis` (negative counts from the end) from each index to the next, each in order from
  /// its first element, `r[i] = f(...f(a[j], a[j + 1])..., a[k - 1])` for j = indices[i] and
  /// k = indices[i + 1] (the axis's end for the last); where k <= j, r[i] is a[j] itself. The
  /// result has the array's shape with `axis` as long as the indices, and the loop's result type.
  /// The indices are a 1-d integer array (host or device), each in [0, n) for an axis of n
  /// elements, as NumPy's (no negative ones): one outside is an argument_error naming its
  /// position. Host arrays reduce on the host (`parallel` spreads the slices and lines over
  /// cores); device arrays, or a device target, on the device, a call per step of each slice,
  /// or, where reduce would take a tree, a tree per slice.
  template <class A, class I, detail::integer_argument Axis = int>
  auto reduceat(const A &array, const I &indices, Axis axis = 0) const {
    static_assert(nin == 2, "reduceat needs a binary ufunc");
    using arg = detail::ufunc_arg<const A &>;
    using arg_i = detail::ufunc_arg<const I &>;
    static_assert(arg::supported && !arg::is_scalar, "reduceat takes an array");
    constexpr bool indices_given = [] {
      if constexpr (arg_i::supported && !arg_i::is_scalar)
        return arg_i::rank == 1 && std::is_integral_v<typename arg_i::element_type> &&
               !std::is_same_v<typename arg_i::element_type, bool>;
      else
        return false;
    }();
    static_assert(indices_given, "reduceat's indices are a 1-d integer array");
    if constexpr (nin != 2 || !arg::supported || arg::is_scalar || !indices_given)
      return detail::failed_call_result{};
    else
      return reduceat_fitting(array, indices, axis_number(axis, 3));
  }

  /// reduceat at indices in braces, `f.reduceat(x, {0, 4, 1, 5})` (`{}`: none, an empty result).
  template <class A, std::size_t K, detail::integer_argument Axis = int>
  auto reduceat(const A &array, const index_t (&indices)[K], Axis axis = 0) const {
    return reduceat(array, std::vector<index_t>(indices, indices + K), axis);
  }
  template <class A, detail::integer_argument Axis = int>
  auto reduceat(const A &array, empty_braces, Axis axis = 0) const {
    return reduceat(array, std::vector<index_t>(), axis);
  }

  /// NumPy's and Numba's `ufunc.at(a, indices, b)`: in place and unbuffered, for each index in
  /// turn (an integer array, in C order, or one integer), `a[i] = f(a[i], b_k)` along a's first
  /// axis, where `b` is a scalar or an array broadcast to `indices.shape + a.shape[1:]` and b_k
  /// its part for index k; a unary ufunc takes no `b`. A repeated index applies again
  /// (`vadd.at(a, std::vector{0, 0}, 1)` adds 2). Negative indices count from the end; one out
  /// of range is an argument_error naming its position, before anything is written. The loop
  /// is the one a call with a's elements and `b` selects; its result is written back as a
  /// call's output (NumPy 'same_kind' casting). Host arrays change on the host, in order; a
  /// device array on its device, one call per index, in order on the call's stream.
  template <class A, class I, class... B> void at(A &&a, const I &indices, const B &...b) const {
    static_assert(nin == 1 || nin == 2, "at takes a unary or a binary ufunc");
    static_assert(sizeof...(B) + 1 == nin,
                  "at takes the array and the indices, and for a binary ufunc the second operand too");
    using arg_a = detail::ufunc_arg<std::remove_reference_t<A> &>;
    using arg_i = detail::ufunc_arg<const I &>;
    constexpr bool array_given = [] {
      if constexpr (arg_a::supported && !arg_a::is_scalar)
        return arg_a::writable;
      else
        return false;
    }();
    static_assert(array_given, "at changes an array in place: its first argument is a writable array");
    constexpr bool indices_given = [] {
      if constexpr (arg_i::supported)
        return std::is_integral_v<typename arg_i::element_type> && !std::is_same_v<typename arg_i::element_type, bool>;
      else
        return false;
    }();
    static_assert(indices_given, "at's indices are integers: an integer array or one integer");
    constexpr bool operand_given = [] {
      if constexpr (sizeof...(B) == 1)
        return (detail::ufunc_arg<const B &>::supported && ...) && (!detail::lazy_operand<B> && ...);
      else
        return true;
    }();
    static_assert(operand_given, "at's last argument is an array or a scalar");
    if constexpr ((nin == 1 || nin == 2) && sizeof...(B) + 1 == nin && array_given && indices_given && operand_given) {
      detail::require_lasting_output<A>(name(), 1, this->placed_on());
      at_fitting(a, indices, b...);
    }
  }

private:
  // An axis (argument `argument`) of any integer type, as the axis checks take it.
  template <class Axis> static long long axis_number(Axis axis, int argument) {
    return detail::integer_value(name(), argument, axis, "axis");
  }

  static constexpr const char *no_value_for_empty =
      ", and the ufunc has no identity value to reduce them to (give reduce an initial value, or the ufunc "
      "kernel::identity::zero or one)";

  // reduce without an initial value.
  struct no_initial {};
  // reduce from the ufunc's identity, zero or one.
  struct identity_start {
    bool one;
  };

  // Without an initial value, a ufunc whose identity is a value starts its folds from it, as
  // NumPy's do (a ufunc of identity one: subtract.reduce([5, 1]) = (1 - 5) - 1); else from the
  // first element. `reduce` takes the initial value.
  template <class Reduce> auto started(const Reduce &reduce) const {
    if (identity_ == kernel::identity::zero || identity_ == kernel::identity::one)
      return reduce(identity_start{identity_ == kernel::identity::one});
    return reduce(no_initial{});
  }

  // How at's operand takes part in selecting the loop: a scalar as it is, an array by type.
  template <class B>
  using at_operand_t =
      std::conditional_t<detail::ufunc_arg<const B &>::is_scalar, const B &,
                         const array_view<const typename detail::ufunc_arg<const B &>::element_type, 1> &>;

  template <class A, class I, class... B> void at_fitting(A &a, const I &indices, const B &...b) const {
    using arg_a = detail::ufunc_arg<A &>;
    using arg_i = detail::ufunc_arg<const I &>;
    using E = typename arg_a::element_type;
    constexpr std::size_t ra = arg_a::rank, ri = arg_i::rank, rt = ri + ra - 1;
    struct site;
    require_loop<site, const array_view<const E, 1> &, at_operand_t<B>...>();
    constexpr int L = select<const array_view<const E, 1> &, at_operand_t<B>...>();
    constexpr auto fn = loop_fn<L>();
    using R = typename detail::function_traits<decltype(fn)>::result_type;
    static_assert(can_cast_same_kind(dtype_of<R>, dtype_of<E>),
                  "at writes the loop's result into the array, whose element type cannot hold it (NumPy "
                  "'same_kind' casting)");
    static_assert(rt <= detail::max_dims, "at: the indices' dimensions and the array's after its first are more than "
                                          "an array may have (32)");
    if constexpr (can_cast_same_kind(dtype_of<R>, dtype_of<E>) && rt <= detail::max_dims) {
      const auto av = arg_a::view(a);
      detail::check_view(name(), 1, av);
      if constexpr (arg_a::is_device) detail::require_device_of(name(), 1, a);
      // The rows, checked before anything is written.
      std::array<index_t, rt> target{};
      std::vector<index_t> rows;
      if constexpr (arg_i::is_scalar) {
        rows.push_back(resolved_row(indices, 0, av.shape(0)));
      } else {
        const auto host_indices = indices_on_host(indices, 2);
        rows.reserve(static_cast<std::size_t>(host_indices.size()));
        for (index_t k = 0; k < host_indices.size(); ++k)
          rows.push_back(resolved_row(host_indices.data()[k], k, av.shape(0)));
        for (std::size_t d = 0; d < ri; ++d) target[d] = host_indices.shape()[d];
      }
      for (std::size_t d = 1; d < ra; ++d) target[ri + d - 1] = av.shape(d);
      if constexpr (sizeof...(B) == 0) {
        at_rows<fn>(a, av, rows, target, 0);
      } else {
        (at_rows<fn>(a, av, rows, target, b), ...);
      }
    }
  }

  // An array of indices (argument `argument`), wherever it is, as a C-contiguous host copy.
  template <class I> auto indices_on_host(const I &indices, int argument) const {
    using arg_i = detail::ufunc_arg<const I &>;
    if constexpr (arg_i::is_device) {
      detail::require_device_of(name(), argument, indices);
      if constexpr (requires { indices.copy_to_host(); }) {
        return indices.copy_to_host();
      } else { // a view, of any strides: gathered on its device first
        const detail::device_call c = this->call_on(&indices.device().state(), unavailable_message);
        return gathered_on_device(c, indices, argument).copy_to_host();
      }
    } else {
      const auto iv = arg_i::view(indices);
      detail::check_view(name(), argument, iv);
      detail::await_host_writes(iv);
      ndarray<std::remove_cv_t<typename arg_i::element_type>, arg_i::rank> copy(
          ndarray<std::remove_cv_t<typename arg_i::element_type>, arg_i::rank>::uninitialized, iv.shape(), name(),
          argument);
      detail::gather(iv, copy.data());
      return copy;
    }
  }

  // Index `i` (at position `k`) of an axis of `extent` elements, from the end where negative.
  template <class J> static index_t resolved_row(J i, index_t k, index_t extent) {
    const auto wide = static_cast<long long>(i);
    if constexpr (std::is_signed_v<J>) {
      if (wide < 0 && wide >= -static_cast<long long>(extent)) return static_cast<index_t>(wide + extent);
    }
    if (wide >= 0 && static_cast<unsigned long long>(i) < static_cast<unsigned long long>(extent))
      return static_cast<index_t>(wide);
    throw argument_error(std::string(name()), 2,
                         "index " + detail::number_text(i) + " at position " + std::to_string(k) +
                             " is out of range for axis 0, of " + std::to_string(extent) + " element" +
                             (extent == 1 ? "" : "s"));
  }

  // Where index k's part of at's operand starts: k's place in the indices' shape (the first Ri
  // dimensions of `target`) through the operand's strides over it.
  template <std::size_t Ri, std::size_t Rt>
  static index_t operand_offset(index_t k, const std::array<index_t, Rt> &target,
                                const std::array<index_t, Rt> &strides) noexcept {
    index_t offset = 0;
    for (std::size_t d = Ri; d-- > 0;) {
      offset += (k % target[d]) * strides[d];
      k /= target[d];
    }
    return offset;
  }

  // at's work once the rows are known: `target` is the shape b is broadcast to; `b` is the
  // operand (0 for a unary ufunc, which takes none).
  template <auto Fn, class A, class V, class B, std::size_t Rt>
  void at_rows(A &a, const V &av, const std::vector<index_t> &rows, const std::array<index_t, Rt> &target,
               const B &b) const {
    using traits = detail::function_traits<decltype(Fn)>;
    using E = std::remove_const_t<typename V::element_type>;
    constexpr std::size_t ra = V::rank, ri = Rt + 1 - ra;
    constexpr bool binary = traits::arity == 2;
    using arg_b = detail::ufunc_arg<const B &>;
    // b's strides over the target shape (0 where broadcast), as NumPy aligns shapes from the end.
    std::array<index_t, Rt> b_strides{};
    const auto b_view = [&] {
      if constexpr (binary && !arg_b::is_scalar) {
        const auto bv = arg_b::view(b);
        detail::check_view(name(), 3, bv);
        if constexpr (arg_b::is_device) detail::require_device_of(name(), 3, b);
        constexpr std::size_t rb = arg_b::rank;
        bool fits = rb <= Rt;
        for (std::size_t d = 0; fits && d < rb; ++d) {
          const index_t want = target[Rt - rb + d];
          if (bv.shape(d) == want && want != 1)
            b_strides[Rt - rb + d] = bv.stride(d);
          else
            fits = bv.shape(d) == want || bv.shape(d) == 1;
        }
        if (!fits)
          throw argument_error(std::string(name()), 3,
                               "has shape " + detail::shape_string(bv.shape().data(), static_cast<int>(rb)) +
                                   ", which does not broadcast to the indexed shape " +
                                   detail::shape_string(target.data(), static_cast<int>(Rt)) +
                                   " (the indices' shape, then the array's after its first axis)");
        return bv;
      } else {
        return 0;
      }
    }();
    // No element of `a` may be reached twice (as of a call's output); and an operand sharing
    // its memory, even as the same elements, would be read after earlier rows changed it.
    {
      const std::array<detail::operand_layout, 1> ops{detail::layout_of(name(), av, 1, /*is_output=*/true)};
      detail::check_overlap(name(), ops);
      if constexpr (binary && !arg_b::is_scalar && arg_b::is_device == detail::ufunc_arg<A &>::is_device) {
        const detail::operand_layout lb = detail::layout_of(name(), b_view, 3);
        const auto [alo, ahi] = detail::memory_extent(ops[0]);
        const auto [blo, bhi] = detail::memory_extent(lb);
        if (alo != ahi && blo != bhi && blo < ahi && alo < bhi &&
            !detail::elements_apart(detail::bytes_of_layout(lb), detail::bytes_of_layout(ops[0])))
          throw argument_error(std::string(name()), 3,
                               "shares memory with the array (argument 1), which at changes while it reads this; "
                               "pass a copy");
      }
    }
    if constexpr (detail::ufunc_arg<A &>::is_device) {
      // One call per index, in order, over its row: the calls' own checks and conversions.
      const kernel::device dev = a.device();
      const detail::device_call c = this->call_on(&dev.state(), unavailable_message);
      // What the calls would refuse, refused first with at's own argument numbers.
      using R = typename traits::result_type;
      detail::require_device_operand<std::remove_cvref_t<typename traits::template arg<0>>>(name(), 1, c, a);
      if constexpr (!std::is_same_v<R, E>)
        throw argument_error(std::string(name()), 1,
                             "is a device array of " + std::string(dtype_name(dtype_of<E>)) +
                                 " but the selected loop writes " + std::string(dtype_name(dtype_of<R>)) +
                                 " (device arrays are never converted implicitly)");
      if constexpr (binary && arg_b::is_device)
        detail::require_device_operand<std::remove_cvref_t<typename traits::template arg<1>>>(name(), 3, c, b);
      if constexpr (binary && arg_b::is_scalar)
        (void)detail::convert_scalar<std::remove_cvref_t<typename traits::template arg<1>>>(name(), 3, b);
      std::array<index_t, ra> row_shape = av.shape(), b_row_strides{};
      row_shape[0] = 1;
      for (std::size_t d = 1; d < ra; ++d) b_row_strides[d] = b_strides[ri + d - 1];
      drained_on_failure(*c.stream, [&] {
        for (std::size_t k = 0; k < rows.size(); ++k) {
          device_view<E, ra> row(dev, av.data() + rows[k] * av.stride(0), row_shape, av.strides());
          if constexpr (!binary) {
            (*this)(row, row);
          } else if constexpr (arg_b::is_scalar) {
            (*this)(row, b, row);
          } else {
            using Bt = std::remove_const_t<typename decltype(b_view)::element_type>;
            const auto *part = b_view.data() + operand_offset<ri>(static_cast<index_t>(k), target, b_strides);
            if constexpr (arg_b::is_device)
              (*this)(row, device_view<const Bt, ra>(dev, part, row_shape, b_row_strides), row);
            else
              (*this)(row, array_view<const Bt, ra>(part, row_shape, b_row_strides), row);
          }
        }
      });
      if constexpr (binary && arg_b::is_device)
        detail::keep_until_done(*c.stream, {detail::owned_device_memory(a), detail::owned_device_memory(b)});
      else
        detail::keep_until_done(*c.stream, {detail::owned_device_memory(a)});
    } else {
      static_assert(!binary || !arg_b::is_device,
                    "at of a host array takes a host operand (copy the device array to the host first)");
      using P0 = typename traits::template arg<0>;
      const auto operand = [&] {
        if constexpr (binary && arg_b::is_scalar)
          return detail::convert_scalar<typename traits::template arg<1>>(name(), 3, b);
        else
          return 0;
      }();
      detail::await_host_writes(av);
      if constexpr (binary && !arg_b::is_scalar) detail::await_host_writes(b_view);
      struct job {
        const V *a;
        const std::vector<index_t> *rows;
        const std::array<index_t, Rt> *target, *b_strides;
        const decltype(b_view) *b;
        const decltype(operand) *value;
      } j{&av, &rows, &target, &b_strides, &b_view, &operand};
      // In order, on the calling thread, through loop_trapping: an integer division by zero in
      // the loop function is an error (the rows done before it stay done).
      auto body = [](void *ctx, index_t, index_t) {
        const job &jb = *static_cast<const job *>(ctx);
        const V &x = *jb.a;
        const auto &t = *jb.target;
        index_t inner = 1;
        for (std::size_t d = ri; d < Rt; ++d) inner *= t[d];
        for (std::size_t k = 0; k < jb.rows->size(); ++k) {
          const index_t b_at = operand_offset<ri>(static_cast<index_t>(k), t, *jb.b_strides);
          E *row = x.data() + (*jb.rows)[k] * x.stride(0);
          for (index_t e = 0; e < inner; ++e) {
            index_t a_off = 0, b_off = b_at, rest = e;
            for (std::size_t d = Rt; d-- > ri;) {
              const index_t at = rest % t[d];
              a_off += at * x.stride(d - ri + 1);
              b_off += at * (*jb.b_strides)[d];
              rest /= t[d];
            }
            E &y = row[a_off];
            if constexpr (!binary)
              y = static_cast<E>(Fn(static_cast<P0>(y)));
            else if constexpr (arg_b::is_scalar)
              y = static_cast<E>(Fn(static_cast<P0>(y), *jb.value));
            else
              y = static_cast<E>(
                  Fn(static_cast<P0>(y), static_cast<typename traits::template arg<1>>(jb.b->data()[b_off])));
          }
        }
      };
      detail::loop_trapping(name(), false, 1, 1, body, &j);
    }
  }

  template <class A> static constexpr auto every_axis() {
    std::array<int, detail::ufunc_arg<const A &>::rank> axes{};
    for (std::size_t d = 0; d < axes.size(); ++d) axes[d] = static_cast<int>(d);
    return axes;
  }

  template <class A, std::size_t K, class I>
  auto reduce_axes_checked(const A &array, const std::array<int, K> &axes, const I &initial) const {
    static_assert(nin == 2, "reduce needs a binary ufunc");
    using arg = detail::ufunc_arg<const A &>;
    static_assert(arg::supported && !arg::is_scalar, "reduce takes an array");
    constexpr std::size_t rank = [] {
      if constexpr (arg::supported && !arg::is_scalar)
        return arg::rank;
      else
        return K; // (reported above)
    }();
    static_assert(K > 0, "reduce over no axes: give one at least (empty braces would be NumPy's axis=(), which "
                         "reduces nothing)");
    static_assert(K <= rank, "reduce over more axes than the array has dimensions");
    if constexpr (nin != 2 || !arg::supported || arg::is_scalar || K == 0 || K > rank ||
                  (!std::is_same_v<I, no_initial> && !scalar<I>))
      return detail::failed_call_result{};
    else if constexpr (std::is_same_v<I, no_initial>)
      return started([&](const auto &start) { return reduce_axes_from(array, axes, start); });
    else
      return reduce_axes_from(array, axes, initial);
  }
  template <class A, std::size_t K, class I>
  auto reduce_axes_from(const A &array, const std::array<int, K> &axes, const I &initial) const {
    if constexpr (K == 1)
      return reduce_fitting(array, axes[0], initial);
    else
      return reduce_axes(array, axes, initial);
  }

  // reduce over K > 1 axes: the array viewed with the other dimensions first and the axes'
  // last, in order, those merged into one (gathered first where their strides do not line up),
  // and reduced along it.
  template <class A, std::size_t K, class I>
  auto reduce_axes(const A &array, const std::array<int, K> &axes, const I &initial) const {
    using arg = detail::ufunc_arg<const A &>;
    constexpr std::size_t rank = arg::rank, kept = rank - K;
    using T = typename arg::element_type;
    const array_view<const T, rank> v = arg::view(array);
    std::array<bool, rank> reduced{};
    for (std::size_t i = 0; i < K; ++i) {
      const std::size_t ax = checked_axis(array, v, axes[i]);
      if (reduced[ax]) throw argument_error(std::string(name()), 2, "axis " + std::to_string(ax) + " is given twice");
      reduced[ax] = true;
    }
    if (identity_ == kernel::identity::none)
      throw argument_error(std::string(name()), 2,
                           "reducing over " + std::to_string(K) +
                               " axes at once combines elements out of order, which needs a ufunc with an "
                               "identity (kernel::ufunc<f>{kernel::identity::reorderable}, or zero or one), as "
                               "in NumPy; reduce one axis at a time");
    // The permuted shape and strides: the kept dimensions, then the reduced ones.
    std::array<index_t, rank> shape{}, strides{};
    for (std::size_t d = 0, k = 0, r = kept; d < rank; ++d) {
      const std::size_t at = reduced[d] ? r++ : k++;
      shape[at] = v.shape(d);
      strides[at] = v.stride(d);
    }
    const array_view<const T, rank> permuted(v.data(), shape, strides);
    // The reduced dimensions as one: extent their product; stride the innermost's, where each
    // other's stride steps over the ones inside it (dimensions of one element aside).
    index_t count = 1, stride = 0;
    bool lined_up = true;
    for (std::size_t d = rank; d-- > kept;) {
      if (shape[d] == 1) continue;
      if (count > 1 && strides[d] != stride * count) lined_up = false;
      if (count == 1) stride = strides[d];
      count *= shape[d];
    }
    if constexpr (std::is_same_v<I, no_initial>)
      if (count == 0)
        throw argument_error(std::string(name()), 2,
                             "the axes reduced have no elements" + std::string(no_value_for_empty));
    std::array<index_t, kept + 1> merged_shape{}, merged_strides{};
    for (std::size_t d = 0; d < kept; ++d) {
      merged_shape[d] = shape[d];
      merged_strides[d] = strides[d];
    }
    merged_shape[kept] = count;
    if constexpr (arg::is_device) {
      const kernel::device dev = array.device();
      // The views own nothing: the array is held until the calls are done, as a call holds it.
      const detail::device_call c = this->call_on(&dev.state(), unavailable_message);
      const auto hold = [&](auto &&result) {
        detail::keep_until_done(*c.stream, {detail::owned_device_memory(array)});
        return std::move(result);
      };
      if (lined_up || count == 0) {
        merged_strides[kept] = stride;
        return hold(
            reduce_fitting(device_view<const T, kept + 1>(dev, v.data(), merged_shape, merged_strides), -1, initial));
      }
      const device_array<T, rank> together =
          gathered_on_device(c, device_view<const T, rank>(dev, v.data(), shape, strides), 1);
      detail::keep_until_done(*c.stream, {detail::owned_device_memory(array)}); // (the steps read the copy)
      const auto contiguous = array_view<T, kept + 1>::contiguous_strides(merged_shape);
      return reduce_fitting(device_view<const T, kept + 1>(dev, together.data(), merged_shape, contiguous), -1,
                            initial);
    } else {
      if (lined_up || count == 0) {
        merged_strides[kept] = stride;
        return reduce_fitting(array_view<const T, kept + 1>(v.data(), merged_shape, merged_strides), -1, initial);
      }
      detail::await_host_writes(v);
      ndarray<T, rank> together(ndarray<T, rank>::uninitialized, shape, name(), 1);
      detail::gather(permuted, together.data());
      const auto contiguous = array_view<T, kept + 1>::contiguous_strides(merged_shape);
      return reduce_fitting(array_view<const T, kept + 1>(together.data(), merged_shape, contiguous), -1, initial);
    }
  }

  template <class A, class I> auto reduce_fitting(const A &array, long long axis, const I &initial) const {
    using arg = detail::ufunc_arg<const A &>;
    constexpr std::size_t rank = arg::rank;
    using T = typename arg::element_type;
    using in_view = array_view<const T, rank>;
    struct site;
    require_loop<site, const in_view &, const in_view &>();
    using loop = fold_loop<T, rank>;
    constexpr auto fn = loop::fn;
    using R = typename loop::R;
    using P0 = typename loop::P0;
    using P1 = typename loop::P1;
    static_assert(loop::result_fits, "reduce needs a loop whose result casts safely back to its first parameter");
    constexpr bool has_initial = !std::is_same_v<I, no_initial>;
    constexpr bool from_identity = std::is_same_v<I, identity_start>;
    // Whether a device reduction starts from the start: it feeds the loop's first parameter,
    // which on a device takes the running value as it is. An identity that cannot is left out
    // there (f(identity, x) is x), as a device reduction without an initial value runs.
    constexpr bool device_start = has_initial && (!from_identity || std::is_same_v<R, P0>);
    constexpr bool initial_fits = [] {
      if constexpr (has_initial && !from_identity)
        return detail::arg_accepts<const I &, P0>();
      else
        return true;
    }();
    static_assert(initial_fits, "reduce's initial value is not a scalar the loop's first parameter takes (of the same "
                                "kind or a lower one, as a call's scalar argument)");
    // The initial value as the first parameter takes it (range-checked, as a call's scalar).
    const auto start = [&] {
      if constexpr (from_identity)
        return static_cast<P0>(initial.one ? 1 : 0); // (as NumPy casts its identity)
      else if constexpr (has_initial && initial_fits)
        return detail::convert_scalar<P0>(name(), 3, initial);
      else
        return no_initial{};
    }();
    const in_view v = arg::view(array); // (views and spans of writable elements too)
    const std::size_t ax = checked_axis(array, v, axis);
    // An empty axis is the initial value (or identity), converted to the result type.
    const bool empty = v.shape(ax) == 0;
    R unit{};
    if constexpr (has_initial && initial_fits)
      unit = static_cast<R>(start);
    else if (empty)
      throw argument_error(std::string(name()), 1,
                           "axis " + std::to_string(ax) + " has no elements" + no_value_for_empty);
    constexpr std::size_t out_rank = rank > 1 ? rank - 1 : 1;
    std::array<index_t, out_rank> shape{};
    shape[0] = 1;
    for (std::size_t d = 0, o = 0; d < rank; ++d)
      if (d != ax) shape[o++] = v.shape(d);
    if constexpr (arg::is_device) {
      const detail::device_call c = this->call_on(&array.device().state(), unavailable_message);
      // From the third element on, the running value feeds the first parameter as it is.
      if constexpr (!std::is_same_v<R, P0>)
        if (v.shape(ax) > 2 && v.size() > 0)
          refuse_running_value_on_device<R, P0>("reducing", " (an axis of more than two elements; reduce on the host)");
      device_array<R, out_rank> result(shape, c.stream, name(), 0);
      // The slices are views, which own nothing: the array is held as a call holds it, and
      // a step that fails after others were queued waits for them.
      drained_on_failure(*c.stream, [&] {
        // (A tree's loop returns its first parameter's type: a start is taken there too.)
        const device_view<R, rank> acc = with_axis_kept(array.device(), result, v.shape(), ax);
        if (empty) {
          fill_on_device(*c.stream, result, unit);
        } else if (in_tree<fn, T>(v.shape(ax))) {
          reduce_in_tree<fn>(c, v, ax, array.device(), acc, &start);
        } else if constexpr (device_start) {
          if constexpr (!std::is_same_v<R, P0>)
            refuse_running_value_on_device<R, P0>("reducing", "");
          else
            reduce_by_calls<fn>(*this, v, ax, array.device(), acc, false, &start);
        } else {
          reduce_by_calls<fn>(*this, v, ax, array.device(), acc);
        }
      });
      detail::keep_until_done(*c.stream, {detail::owned_device_memory(array)});
      if constexpr (rank == 1) {
        detail::stream_synchronize(*c.stream); // the calls may be queued on the user's stream
        return result.copy_to_host()[0];
      } else
        return result;
    } else {
      ndarray<R, out_rank> result(ndarray<R, out_rank>::uninitialized, shape, name(), 0);
      if (empty) {
        std::fill_n(result.data(), result.size(), unit);
      } else if (this->placed_on().runs_on_host() || (!device_start && v.shape(ax) == 1)) {
        // (An axis of one element takes no step: its elements converted, wherever the call
        // was placed: after the results calls on streams are delivering into them.)
        detail::await_host_writes(v);
        fold_on_host<fn, false>(v, ax, result.data(), start);
      } else {
        // On a device: the array goes there once, converted to the type of the loop's second
        // parameter as a host call converts it; the first slice, converted to the result type as
        // the host's fold converts it, is the accumulator; then one call per step along the axis,
        // acc = f(acc, slice k). The accumulator feeds the first parameter, which a device array
        // must match exactly.
        if constexpr (!std::is_same_v<R, P0>) {
          refuse_running_value_on_device<R, P0>("reducing", "; reduce on the host");
        } else {
          const bool tree = in_tree<fn, P1>(v.shape(ax));
          const auto partial = [&](kernel::device dev) {
            device_array<R, out_rank> acc(shape, detail::default_stream(dev.state()), name(), 0);
            if (!has_initial && !tree) {
              std::array<index_t, rank> first_shape = v.shape();
              first_shape[ax] = 1;
              ndarray<R, rank> first(ndarray<R, rank>::uninitialized, first_shape, name(), 1);
              detail::gather(in_view(v.data(), first_shape, v.strides()), first.data());
              acc.copy_from_host(array_view<const R, out_rank>(first.data(), shape));
            }
            return acc;
          };
          fold_placed_on_device<P1>(v, partial, result,
                                    [&](const auto &c, kernel::device dev, const auto &in, auto &out) {
                                      const device_view<R, rank> acc = with_axis_kept(dev, out, v.shape(), ax);
                                      if (tree)
                                        reduce_in_tree<fn>(c, in, ax, dev, acc, &start);
                                      else if constexpr (has_initial)
                                        reduce_by_calls<fn>(*this, in, ax, dev, acc, false, &start);
                                      else
                                        reduce_by_calls<fn>(*this, in, ax, dev, acc, /*from_first=*/true);
                                    });
        }
      }
      if constexpr (rank == 1)
        return result[0];
      else
        return result;
    }
  }

  // `a` as an array of Lead + rank + Trail dimensions, the added ones of extent 1 and stride
  // 0 (a scalar as it is), where it lives: the operand `argument` of outer.
  template <std::size_t Lead, std::size_t Trail, class A> static auto spread_over(int argument, const A &a) {
    using arg = detail::ufunc_arg<const A &>;
    if constexpr (arg::is_scalar) {
      return a;
    } else {
      using T = typename arg::element_type;
      constexpr std::size_t rank = Lead + arg::rank + Trail;
      if constexpr (arg::is_device) detail::require_device_of(name(), argument, a);
      const auto v = arg::view(a);
      std::array<index_t, rank> shape, strides;
      shape.fill(1);
      strides.fill(0);
      for (std::size_t d = 0; d < arg::rank; ++d) {
        shape[Lead + d] = v.shape(d);
        strides[Lead + d] = v.stride(d);
      }
      if constexpr (arg::is_device)
        return device_view<const T, rank>(a.device(), v.data(), shape, strides);
      else
        return array_view<const T, rank>(v.data(), shape, strides);
    }
  }

  // A working array's layout for steps along `ax`: C-contiguous with `ax` outermost, so that
  // its slices along `ax` lie apart in memory (a call refuses operands whose memory
  // interleaves, as slices along a middle axis would). `shape` is the array's; the result is
  // the shape to allocate (`ax` first) and the strides that view it in `shape`'s order.
  template <std::size_t Rank>
  static std::pair<std::array<index_t, Rank>, std::array<index_t, Rank>>
  axis_outermost(const std::array<index_t, Rank> &shape, std::size_t ax) {
    std::array<std::size_t, Rank> order{}; // the allocation's dimensions: `ax`, then the others
    order[0] = ax;
    for (std::size_t d = 0, o = 1; d < Rank; ++d)
      if (d != ax) order[o++] = d;
    std::array<index_t, Rank> allocated{}, strides{};
    for (std::size_t i = 0; i < Rank; ++i) allocated[i] = shape[order[i]];
    const auto allocated_strides = array_view<index_t, Rank>::contiguous_strides(allocated);
    for (std::size_t i = 0; i < Rank; ++i) strides[order[i]] = allocated_strides[i];
    return {allocated, strides};
  }

  // A reduction's `result` (C-contiguous over the dimensions of `shape` but `ax`) viewed in
  // `shape`'s dimensions with `ax` of one element and stride 0, lined up with the slices along
  // `ax` that the steps combine into it.
  template <class R, std::size_t OutRank, std::size_t Rank>
  static device_view<R, Rank> with_axis_kept(kernel::device dev, device_array<R, OutRank> &result,
                                             std::array<index_t, Rank> shape, std::size_t ax) {
    shape[ax] = 1;
    std::array<index_t, Rank> strides = array_view<R, Rank>::contiguous_strides(shape);
    strides[ax] = 0;
    return device_view<R, Rank>(dev, result.data(), shape, strides);
  }

  // A C-contiguous copy of device memory `from`, made where the ufunc is placed, as its calls
  // are, on the call's stream, in whose order it is freed; `argument` is the one named where
  // the device has no room for it.
  template <class T, std::size_t Rank>
  device_array<std::remove_const_t<T>, Rank> gathered_on_device(const detail::device_call &c,
                                                                const device_view<T, Rank> &from, int argument) const {
    device_array<std::remove_const_t<T>, Rank> together(from.shape(), c.stream, name(), argument);
    device_view<std::remove_const_t<T>, Rank> into = together.view();
    detail::eval_assignments(this->placed_on(), kernel::assign(into, kernel::lazy(from)));
    return together;
  }

  // `out` (C-contiguous) = the accumulation of `in` (device memory) along `ax`, on the call's
  // stream: r[0] = `first` (device memory of the first slice's shape), then one call per step.
  // The steps work in an array whose axis `ax` is outermost, so that a step's slice and the
  // one before it lie apart (a call refuses operands whose memory interleaves, and along a
  // middle axis theirs would), copied into `out` at the end unless `ax` is outermost there.
  // The copies are fused assignments where the ufunc is placed, as its calls are.
  template <class S, class F0, class R, std::size_t Rank>
  void accumulate_on_device(const detail::device_call &c, kernel::device dev, const array_view<S, Rank> &in,
                            const array_view<F0, Rank> &first, std::size_t ax, device_array<R, Rank> &out) const {
    const auto [work_shape, strides] = axis_outermost(out.shape(), ax);
    device_array<R, Rank> separate;
    if (ax != 0) separate = device_array<R, Rank>(work_shape, c.stream, name(), 0);
    const device_view<R, Rank> work(dev, ax != 0 ? separate.data() : out.data(), out.shape(), strides);
    std::array<index_t, Rank> slice_shape = out.shape();
    slice_shape[ax] = 1;
    device_view<R, Rank> at_first(dev, work.data(), slice_shape, strides);
    const device_view<const R, Rank> from(dev, first.data(), first.shape(), first.strides());
    detail::eval_assignments(this->placed_on(), kernel::assign(at_first, kernel::lazy(from)));
    accumulate_by_calls(*this, in, ax, dev, work);
    if (ax != 0) {
      device_view<R, Rank> into = out.view();
      const device_view<const R, Rank> whole(work);
      detail::eval_assignments(this->placed_on(), kernel::assign(into, kernel::lazy(whole)));
    }
  }

  // The array `a` (viewed as `v`) checked as the first argument of reduce, accumulate or
  // reduceat, and `axis` (negative counts from the end, argument `argument`) as an index of its
  // dimensions.
  template <class A, class T, std::size_t Rank>
  static std::size_t checked_axis(const A &a, const array_view<T, Rank> &v, long long axis, int argument = 2) {
    detail::check_view(name(), 1, v);
    if constexpr (detail::ufunc_arg<const A &>::is_device) detail::require_device_of(name(), 1, a);
    return static_cast<std::size_t>(detail::normalize_axis(name(), argument, axis, static_cast<int>(Rank)));
  }

  // A fold of host array `v` where the ufunc is placed on a device: `v` goes there once,
  // converted to P1 as a host call converts it; `make_out(dev)` makes the device array the
  // steps write (copying any first values into it on the device's default stream); then
  // `steps(c, dev, in, out)` queues the calls where the ufunc is placed (perhaps on a stream of
  // the user's), after those copies, which the host orders, and waits for them, also when one
  // fails, before the memory they use is freed; `out` is copied into `into` at the end.
  template <class P1, class T, std::size_t Rank, class MakeOut, class Into, class Steps>
  void fold_placed_on_device(const array_view<const T, Rank> &v, const MakeOut &make_out, Into &into,
                             const Steps &steps) const {
    const detail::device_call c = this->call_on(nullptr, unavailable_message);
    const kernel::device dev(c.device);
    const auto on_device = converted_to_device<P1>(v, dev);
    auto out = make_out(dev);
    detail::stream_synchronize(*detail::default_stream(*c.device));
    drained_on_failure(*c.stream, [&] { steps(c, dev, on_device.view().view(), out); });
    detail::stream_synchronize(*c.stream);
    out.copy_to_host(into);
  }

  // `v` in device memory of `dev`, converted to P1 on the host first as a host call converts it.
  template <class P1, class T, std::size_t Rank>
  static device_array<P1, Rank> converted_to_device(const array_view<const T, Rank> &v, kernel::device dev) {
    if constexpr (std::is_same_v<P1, T>) {
      return kernel::to_device(v, dev);
    } else {
      ndarray<P1, Rank> converted(ndarray<P1, Rank>::uninitialized, v.shape(), name(), 1);
      detail::gather(v, converted.data());
      return kernel::to_device(converted, dev);
    }
  }

  // On a device the running value feeds the loop's first parameter as it is: `doing` there
  // needs a loop that returns that type.
  template <class R, class P0>
  [[noreturn]] static void refuse_running_value_on_device(const char *doing, const char *instead) {
    throw argument_error(std::string(name()), 1,
                         std::string(doing) +
                             " on a device takes a loop whose result type is its first parameter's "
                             "(the running value's); this loop returns " +
                             std::string(dtype_name(dtype_of<R>)) + " and takes " +
                             std::string(dtype_name(dtype_of<P0>)) + instead);
  }

  // Runs `queue`, which queues work on `s`; if it throws, waits for `s` first (ignoring what the
  // wait says), so that the unwinding frees no memory the work queued so far still uses.
  template <class Queue> static void drained_on_failure(detail::stream_state &s, Queue &&queue) {
    try {
      queue();
    } catch (...) {
      try {
        detail::stream_synchronize(s);
      } catch (...) {
      }
      throw;
    }
  }

  // Every element of `a` = `value` (what reductions of empty axes give), written from the host
  // once `s`, on which `a` was allocated, has reached it.
  template <class R, std::size_t Rank>
  static void fill_on_device(detail::stream_state &s, device_array<R, Rank> &a, const R &value) {
    if (a.size() == 0) return;
    detail::stream_synchronize(s);
    a.copy_from_host(ndarray<R, Rank>(a.shape(), value));
  }

  template <class A, class I> auto reduceat_fitting(const A &array, const I &indices, long long axis) const {
    using arg = detail::ufunc_arg<const A &>;
    constexpr std::size_t rank = arg::rank;
    using T = typename arg::element_type;
    using in_view = array_view<const T, rank>;
    struct site;
    require_loop<site, const in_view &, const in_view &>();
    using loop = fold_loop<T, rank>;
    constexpr auto fn = loop::fn;
    using R = typename loop::R;
    using P0 = typename loop::P0;
    using P1 = typename loop::P1;
    static_assert(loop::result_fits, "reduceat needs a loop whose result casts safely back to its first parameter");
    const in_view v = arg::view(array);
    const std::size_t ax = checked_axis(array, v, axis, 3);
    const index_t n = v.shape(ax);
    // The slices, from each index, checked before anything is allocated or queued: the host's
    // indices where they lie, if contiguous, else a copy.
    using J = std::remove_cv_t<typename detail::ufunc_arg<const I &>::element_type>;
    ndarray<J, 1> held;
    const J *begins = nullptr;
    std::size_t count = 0;
    if constexpr (detail::ufunc_arg<const I &>::is_device) {
      held = indices_on_host(indices, 2);
    } else {
      const auto iv = detail::ufunc_arg<const I &>::view(indices);
      detail::check_view(name(), 2, iv);
      if (iv.stride(0) == 1 || iv.size() <= 1) {
        detail::await_host_writes(iv);
        begins = iv.data();
        count = static_cast<std::size_t>(iv.size());
      } else {
        held = indices_on_host(indices, 2);
      }
    }
    if (!begins) {
      begins = held.data();
      count = static_cast<std::size_t>(held.size());
    }
    for (std::size_t i = 0; i < count; ++i) {
      // (A negative one, sign-extended, is past any extent.)
      if (static_cast<unsigned long long>(begins[i]) >= static_cast<unsigned long long>(n))
        throw argument_error(std::string(name()), 2,
                             "index " + detail::number_text(begins[i]) + " at position " + std::to_string(i) +
                                 " is out of range for axis " + std::to_string(ax) + ", of " + std::to_string(n) +
                                 " element" + (n == 1 ? "" : "s") + " (reduceat's indices are in [0, " +
                                 std::to_string(n) + "))");
    }
    // Slice i: from begins[i] to the next index, if above, else one element; the last to the
    // axis's end.
    const auto begin_of = [&](std::size_t i) { return static_cast<index_t>(begins[i]); };
    const auto end_of = [&](std::size_t i) { return i + 1 == count ? n : std::max(begin_of(i + 1), begin_of(i) + 1); };
    std::array<index_t, rank> shape = v.shape();
    shape[ax] = static_cast<index_t>(count);
    // Slice i along the axis: of the input, [begin_of(i), end_of(i)); of the result, element i.
    const auto segment = [&]<class E>(const array_view<E, rank> &of, std::size_t i) {
      std::array<index_t, rank> extent = of.shape();
      extent[ax] = end_of(i) - begin_of(i);
      return array_view<const std::remove_cv_t<E>, rank>(of.data() + begin_of(i) * of.stride(ax), extent, of.strides());
    };
    std::array<index_t, rank> one_shape = v.shape();
    one_shape[ax] = 1;
    const auto result_strides = array_view<R, rank>::contiguous_strides(shape);
    const auto result_at = [&](kernel::device dev, R *data, std::size_t i) {
      return device_view<R, rank>(dev, data + static_cast<index_t>(i) * result_strides[ax], one_shape, result_strides);
    };
    if constexpr (arg::is_device) {
      const kernel::device dev = array.device();
      const detail::device_call c = this->call_on(&dev.state(), unavailable_message);
      // From a slice's third element on, the running value feeds the first parameter as it is.
      if constexpr (!std::is_same_v<R, P0>)
        for (std::size_t i = 0; i < count; ++i)
          if (end_of(i) - begin_of(i) > 2 && v.size() > 0)
            refuse_running_value_on_device<R, P0>("reducing",
                                                  " (a slice of more than two elements; reduce on the host)");
      if constexpr (!std::is_same_v<std::remove_const_t<T>, R>) {
        // A slice of one element is that element as the result, which a device array's is not
        // implicitly converted to.
        for (std::size_t i = 0; i < count; ++i)
          if (end_of(i) - begin_of(i) == 1 && v.size() > 0)
            throw argument_error(std::string(name()), 1,
                                 "the slice at position " + std::to_string(i) + " of the indices (index " +
                                     std::to_string(begin_of(i)) +
                                     ") has one element, which would be its result: the device array's " +
                                     std::string(dtype_name(dtype_of<std::remove_const_t<T>>)) +
                                     " elements, converted to the loop's " + std::string(dtype_name(dtype_of<R>)) +
                                     " result type, and device arrays are not converted implicitly (convert it "
                                     "first, or reduce on the host)");
      }
      device_array<R, rank> result(shape, c.stream, name(), 0);
      if (result.size() == 0) return result;
      // The slices are views, which own nothing: the array is held as a call holds it, and a
      // step that fails after others were queued waits for them.
      drained_on_failure(*c.stream, [&] {
        for (std::size_t i = 0; i < count; ++i) {
          const auto part = segment(v, i);
          if (in_tree<fn, T>(part.shape(ax)))
            reduce_in_tree<fn>(c, part, ax, dev, result_at(dev, result.data(), i),
                               static_cast<const no_initial *>(nullptr));
          else
            reduce_by_calls<fn>(*this, part, ax, dev, result_at(dev, result.data(), i));
        }
      });
      detail::keep_until_done(*c.stream, {detail::owned_device_memory(array)});
      return result;
    } else {
      ndarray<R, rank> result(ndarray<R, rank>::uninitialized, shape, name(), 0);
      if (result.size() == 0) return result;
      detail::await_host_writes(v);
      if (this->placed_on().runs_on_host()) {
        segments_on_host<fn>(v, ax, begins, count, false, result.data());
        return result;
      }
      // On a device: the array goes there once, converted to the type of the loop's second
      // parameter as a host call converts it; each slice's first element, converted to the result
      // type on the host as the host's fold converts it, starts its result there; then the steps
      // (or a tree) of each slice. The running value feeds the first parameter as it is.
      if constexpr (!std::is_same_v<R, P0>) {
        refuse_running_value_on_device<R, P0>("reducing", "; reduceat on the host");
      } else {
        const auto firsts = [&](kernel::device dev) {
          segments_on_host<fn>(v, ax, begins, count, /*first_only=*/true, result.data());
          device_array<R, rank> partial(shape, detail::default_stream(dev.state()), name(), 0);
          partial.copy_from_host(result);
          return partial;
        };
        fold_placed_on_device<P1>(v, firsts, result, [&](const auto &c, kernel::device dev, const auto &in, auto &out) {
          for (std::size_t i = 0; i < count; ++i) {
            const auto part = segment(in, i); // (in its own layout, C order)
            if (in_tree<fn, P1>(part.shape(ax)))
              reduce_in_tree<fn>(c, part, ax, dev, result_at(dev, out.data(), i),
                                 static_cast<const no_initial *>(nullptr));
            else if (part.shape(ax) > 1)
              reduce_by_calls<fn>(*this, part, ax, dev, result_at(dev, out.data(), i), /*from_first=*/true);
          }
        });
        return result;
      }
    }
  }

  // Where line `o` of `a` along `ax` (row-major over its other dimensions) starts: in `a`, and
  // in an output of strides `out_strides` (the axis's stride there aside).
  template <class T, std::size_t Rank>
  static std::pair<index_t, index_t> line_start(const array_view<const T, Rank> &a, std::size_t ax, index_t o,
                                                const std::array<index_t, Rank> &out_strides) noexcept {
    index_t offset = 0, out_offset = 0;
    for (std::size_t d = Rank; d-- > 0;) {
      if (d == ax) continue;
      const index_t at = o % a.shape(d);
      offset += at * a.stride(d);
      out_offset += at * out_strides[d];
      o /= a.shape(d);
    }
    return {offset, out_offset};
  }

  // reduceat on the host: `out` (C-contiguous, v's shape with `ax` as long as `begins`) at i
  // along `ax` = the fold along `ax` of v's elements from begins[i] to the next index (at least
  // one element; the axis's end for the last), from the first; with `first_only`, that first
  // element alone. The (line, slice) pairs are shared among the cores on `parallel`.
  template <auto Fn, class T, std::size_t Rank, class J, class R>
  void segments_on_host(const array_view<const T, Rank> &v, std::size_t ax, const J *begins, std::size_t count,
                        bool first_only, R *out) const {
    using traits = detail::function_traits<decltype(Fn)>;
    using P0 = typename traits::template arg<0>;
    using P1 = typename traits::template arg<1>;
    struct job {
      const array_view<const T, Rank> *v;
      std::size_t ax;
      const J *begins;
      index_t count;
      bool first_only;
      R *out;
    } j{&v, ax, begins, static_cast<index_t>(count), first_only, out};
    index_t lines = 1;
    for (std::size_t d = 0; d < Rank; ++d)
      if (d != ax) lines *= v.shape(d);
    auto body = [](void *ctx, index_t first, index_t last) {
      const job &jb = *static_cast<const job *>(ctx);
      const array_view<const T, Rank> &a = *jb.v;
      const index_t step = a.stride(jb.ax), n = a.shape(jb.ax), count = jb.count;
      std::array<index_t, Rank> out_shape = a.shape();
      out_shape[jb.ax] = count;
      const auto out_strides = array_view<R, Rank>::contiguous_strides(out_shape);
      const index_t out_step = out_strides[jb.ax];
      for (index_t t = first; t < last;) {
        // Line o, from its slice i to the task's end or the line's.
        const index_t o = t / count, stop = std::min(last, (o + 1) * count);
        const auto [offset, out_offset] = line_start(a, jb.ax, o, out_strides);
        const T *line = a.data() + offset;
        R *into = jb.out + out_offset;
        for (index_t i = t % count; t < stop; ++t, ++i) {
          const auto b = static_cast<index_t>(jb.begins[i]);
          const index_t e = jb.first_only   ? b + 1
                            : i + 1 < count ? std::max(static_cast<index_t>(jb.begins[i + 1]), b + 1)
                                            : n;
          const T *p = line + b * step;
          R acc = static_cast<R>(p[0]);
          for (index_t k = 1; k < e - b; ++k) acc = Fn(static_cast<P0>(acc), static_cast<P1>(p[k * step]));
          into[i * out_step] = acc;
        }
      }
    };
    // Tasks of about parallel_grain steps, the slices taken as long on average.
    const index_t per_slice = first_only ? 1 : std::max<index_t>(1, v.shape(ax) / std::max<index_t>(1, j.count));
    // Through run_trapping: an integer division by zero in the loop function is an error.
    detail::loop_trapping(name(), this->placed_on().where == target::parallel, lines * j.count,
                          std::max<index_t>(1, detail::parallel_grain / per_slice), body, &j);
  }

  template <class A> auto accumulate_fitting(const A &array, long long axis) const {
    using arg = detail::ufunc_arg<const A &>;
    constexpr std::size_t rank = arg::rank;
    using T = typename arg::element_type;
    using in_view = array_view<const T, rank>;
    struct site;
    require_loop<site, const in_view &, const in_view &>();
    using loop = fold_loop<T, rank>;
    constexpr auto fn = loop::fn;
    using R = typename loop::R;
    using P0 = typename loop::P0;
    using P1 = typename loop::P1;
    static_assert(loop::result_fits, "accumulate needs a loop whose result casts safely back to its first parameter");
    const in_view v = arg::view(array);
    const std::size_t ax = checked_axis(array, v, axis);
    const index_t n = v.shape(ax);
    // The first slice, r[0] = a[0] as the loop's result type; then r[k] = f(r[k-1], a[k]).
    std::array<index_t, rank> first_shape = v.shape();
    first_shape[ax] = n > 0 ? 1 : 0;
    if constexpr (arg::is_device) {
      const detail::device_call c = this->call_on(&array.device().state(), unavailable_message);
      if constexpr (!std::is_same_v<R, T> || !std::is_same_v<R, P0>) {
        throw argument_error(std::string(name()), 1,
                             "accumulating a device array takes a loop whose result type is the array's element "
                             "type and its first parameter's (device arrays are never converted implicitly); this "
                             "loop returns " +
                                 std::string(dtype_name(dtype_of<R>)) + " for " + std::string(dtype_name(dtype_of<T>)) +
                                 " elements");
      } else {
        detail::require_device_operand<P1>(name(), 1, c, array);
        device_array<R, rank> result(v.shape(), c.stream, name(), 0);
        if (n == 0 || result.size() == 0) return result;
        // The steps read the array's slices, views that own nothing: it is held as a call holds
        // what it is given, also when a step fails after others were queued.
        drained_on_failure(*c.stream, [&] {
          accumulate_on_device(c, array.device(), v, in_view(v.data(), first_shape, v.strides()), ax, result);
        });
        detail::keep_until_done(*c.stream, {detail::owned_device_memory(array)});
        return result;
      }
    } else {
      ndarray<R, rank> result(ndarray<R, rank>::uninitialized, v.shape(), name(), 0);
      if (n == 0 || result.size() == 0) return result;
      if (this->placed_on().runs_on_host() || n == 1) {
        detail::await_host_writes(v);
        fold_on_host<fn, true>(v, ax, result.data(), no_initial{});
        return result;
      }
      // On a device: the array goes there once, converted to the type of the loop's second
      // parameter as a host call converts it; the first slice, converted to the result type as
      // the host's converts it, goes into the result there; then one call per step.
      if constexpr (!std::is_same_v<R, P0>) {
        refuse_running_value_on_device<R, P0>("accumulating", "; accumulate on the host");
      } else {
        // r[0] converted on the host as the host's first step converts it, and taken up.
        device_array<R, rank> first_on_device;
        const auto running = [&](kernel::device dev) {
          ndarray<R, rank> first(ndarray<R, rank>::uninitialized, first_shape, name(), 1);
          detail::gather(in_view(v.data(), first_shape, v.strides()), first.data());
          first_on_device = kernel::to_device(first, dev);
          return device_array<R, rank>(v.shape(), detail::default_stream(dev.state()), name(), 0);
        };
        fold_placed_on_device<P1>(v, running, result,
                                  [&](const auto &c, kernel::device dev, const auto &in, auto &out) {
                                    accumulate_on_device(c, dev, in, first_on_device.view().view(), ax, out);
                                  });
        return result;
      }
    }
  }

  // On a device: out[k] = f(out[k-1], slice k of `v`) for k >= 1, each an elementwise call
  // over the other dimensions (out[0] is in place already).
  template <class Placed, class T, std::size_t Rank, class R>
  static void accumulate_by_calls(const Placed &f, const array_view<T, Rank> &v, std::size_t ax, kernel::device dev,
                                  const device_view<R, Rank> &out) {
    std::array<index_t, Rank> slice_shape = v.shape();
    slice_shape[ax] = 1;
    const auto in_slice = [&](index_t k) {
      return device_view<const std::remove_const_t<T>, Rank>(dev, v.data() + k * v.stride(ax), slice_shape,
                                                             v.strides());
    };
    const auto out_slice = [&](index_t k) {
      return device_view<R, Rank>(dev, out.data() + k * out.strides()[ax], slice_shape, out.strides());
    };
    for (index_t k = 1; k < v.shape(ax); ++k) {
      device_view<R, Rank> next = out_slice(k);
      f(out_slice(k - 1), in_slice(k), next);
    }
  }

  // The fold of every line along `ax` on the calling thread(s), from `start` (or no_initial:
  // from the line's first element), into `out`, C-contiguous: `KeepSteps` (accumulate) keeps
  // every step, in an array of the input's shape; else (reduce) only the last, in one of its
  // other dimensions. Line `o` is row-major over those.
  //
  // A reduction on `parallel` with fewer lines than the cores could share, by a ufunc with an
  // identity (whose order of combining is free) and a loop that takes its result back as its
  // second parameter, folds each line in chunks on the cores, then the chunks' results.
  template <auto Fn, bool KeepSteps, class T, std::size_t Rank, class R, class Start>
  void fold_on_host(const array_view<const T, Rank> &v, std::size_t ax, R *out, const Start &start) const {
    using traits = detail::function_traits<decltype(Fn)>;
    using P0 = typename traits::template arg<0>;
    using P1 = typename traits::template arg<1>;
    struct job {
      const array_view<const T, Rank> *v;
      std::size_t ax;
      R *out;
      const Start *start;
      index_t chunks; // per line: each task folds one
      R *partial;     // chunks per line, where there are several
    } j{&v, ax, out, &start, 1, nullptr};
    index_t lines = 1;
    for (std::size_t d = 0; d < Rank; ++d)
      if (d != ax) lines *= v.shape(d);
    const index_t n = v.shape(ax);
    const bool parallel = this->placed_on().where == target::parallel;
    std::unique_ptr<R[]> partial;
    constexpr bool chunkable = !KeepSteps && can_cast_safely(dtype_of<R>, dtype_of<std::remove_cvref_t<P1>>);
    if constexpr (chunkable) {
      if (parallel && identity_ != kernel::identity::none && lines < 64 && n >= 2 * detail::parallel_grain) {
        j.chunks = std::min<index_t>(n / detail::parallel_grain, 256);
        partial = std::make_unique_for_overwrite<R[]>(static_cast<std::size_t>(lines * j.chunks));
        j.partial = partial.get();
      }
    }
    auto body = [](void *ctx, index_t begin, index_t end) {
      const job &jb = *static_cast<const job *>(ctx);
      const array_view<const T, Rank> &a = *jb.v;
      const index_t n = a.shape(jb.ax), step = a.stride(jb.ax);
      // Where the results go: the input's shape, the axis of one element unless kept whole.
      std::array<index_t, Rank> out_shape = a.shape();
      if (!KeepSteps) out_shape[jb.ax] = 1;
      const auto out_strides = array_view<R, Rank>::contiguous_strides(out_shape);
      for (index_t t = begin; t < end; ++t) {
        const index_t o = t / jb.chunks, chunk = t % jb.chunks;
        const auto [offset, out_offset] = line_start(a, jb.ax, o, out_strides);
        // This task's elements of the line: [first, last).
        const index_t share = n / jb.chunks, extra = n % jb.chunks; // (the first `extra` take one more)
        const index_t first = chunk * share + std::min(chunk, extra), last = first + share + (chunk < extra ? 1 : 0);
        const T *p = a.data() + offset + first * step;
        R *q = jb.partial ? jb.partial + t : jb.out + out_offset;
        R acc;
        if constexpr (std::is_same_v<Start, no_initial>)
          acc = static_cast<R>(p[0]);
        else if (chunk == 0)
          acc = Fn(*jb.start, static_cast<P1>(p[0]));
        else
          acc = static_cast<R>(p[0]);
        if constexpr (KeepSteps) q[0] = acc;
        for (index_t k = 1; k < last - first; ++k) {
          acc = Fn(static_cast<P0>(acc), static_cast<P1>(p[k * step]));
          if constexpr (KeepSteps) q[k * out_strides[jb.ax]] = acc;
        }
        if constexpr (!KeepSteps) *q = acc;
      }
    };
    // Through run_trapping: an integer division by zero in the loop function is an error.
    detail::loop_trapping(name(), parallel, lines * j.chunks,
                          std::max<index_t>(1, detail::parallel_grain / (n > 0 ? n / j.chunks : 1)), body, &j);
    if constexpr (chunkable) {
      if (!j.partial) return;
      auto combine = [](void *ctx, index_t begin, index_t end) {
        const job &jb = *static_cast<const job *>(ctx);
        for (index_t o = begin; o < end; ++o) {
          const R *p = jb.partial + o * jb.chunks;
          R acc = p[0];
          for (index_t c = 1; c < jb.chunks; ++c) acc = Fn(static_cast<P0>(acc), static_cast<P1>(p[c]));
          jb.out[o] = acc;
        }
      };
      detail::loop_trapping(name(), false, lines, lines, combine, &j);
    }
  }

  // On a device: acc = f(slice 0, slice 1), then acc = f(acc, slice k) in place, each an
  // elementwise call over the other dimensions; `acc`, the result, has the axis kept (extent 1)
  // so that it lines up with the slices.
  template <auto Fn, class Placed, class T, std::size_t Rank, class R, class Start = no_initial>
  static void reduce_by_calls(const Placed &f, const array_view<T, Rank> &v, std::size_t ax, kernel::device dev,
                              device_view<R, Rank> acc, bool from_first = false, const Start *initial = nullptr) {
    const auto &slice_shape = acc.shape();
    auto slice = [&](index_t k) {
      return device_view<const T, Rank>(dev, v.data() + k * v.stride(ax), slice_shape, v.strides());
    };
    const index_t n = v.shape(ax);
    if constexpr (!std::is_same_v<Start, no_initial>) {
      f(*initial, slice(0), acc); // (n > 0: an empty axis is filled)
      for (index_t k = 1; k < n; ++k) f(acc, slice(k), acc);
      return;
    }
    if (from_first) { // `result` holds slice 0 already
      for (index_t k = 1; k < n; ++k) f(acc, slice(k), acc);
      return;
    }
    if (n == 1) {
      // No step to take: the result is the one slice, converted as a call's output converts.
      using E = std::remove_const_t<T>;
      if constexpr (std::is_same_v<E, R>) {
        detail::eval_assignments(f.placement_for_fusion(), kernel::assign(acc, kernel::lazy(slice(0))));
        return;
      } else {
        throw argument_error(std::string(name()), 1,
                             "axis " + std::to_string(ax) +
                                 " has one element, which would be the result: the device "
                                 "array's " +
                                 std::string(dtype_name(dtype_of<E>)) + " elements, converted to the loop's " +
                                 std::string(dtype_name(dtype_of<R>)) +
                                 " result type, and device arrays are not converted implicitly (convert it first, or "
                                 "reduce on the host)");
      }
    }
    f(slice(0), slice(1), acc);
    for (index_t k = 2; k < n; ++k) f(acc, slice(k), acc);
  }

  // Whether a device reduction of `n` elements (of type T there) along its axis combines them
  // in a tree (reduce_in_tree): where the ufunc's identity frees the order, and the loop takes
  // its result type in both parameters, as the tree's partial results are.
  template <auto Fn, class T> static constexpr bool tree_types() {
    using traits = detail::function_traits<decltype(Fn)>;
    using R = typename traits::result_type;
    return std::is_same_v<std::remove_const_t<T>, R> &&
           std::is_same_v<std::remove_cvref_t<typename traits::template arg<0>>, R> &&
           std::is_same_v<std::remove_cvref_t<typename traits::template arg<1>>, R>;
  }
  template <auto Fn, class T> bool in_tree(index_t n) const {
    return tree_types<Fn, T>() && identity_ != kernel::identity::none && n > 2;
  }

  // On a device, for a ufunc whose order of combining is free: the axis's slices combined in
  // halves, w[i] = f(w[i], w[i + m - h]) for i < h = m / 2 (the middle one of an odd m stays),
  // until one is left, ceil(log2 n) calls instead of n - 1; the first reads the array, the
  // others a working array whose axis is outermost, so that the halves lie apart. `acc` (the
  // result, with the axis kept) = that slice, or f(*initial, it).
  template <auto Fn, class T, std::size_t Rank, class R, class Start>
  void reduce_in_tree(const detail::device_call &c, const array_view<T, Rank> &v, std::size_t ax, kernel::device dev,
                      const device_view<R, Rank> &acc, const Start *initial) const {
    if constexpr (tree_types<Fn, T>()) {
      index_t m = v.shape(ax), h = m / 2;
      std::array<index_t, Rank> shape = v.shape();
      shape[ax] = m - h;
      const auto [work_shape, strides] = axis_outermost(shape, ax);
      device_array<R, Rank> work(work_shape, c.stream, name(), 0);
      // Slices [begin, begin + count) along the axis.
      const auto part = [&]<class E>(E *data, const std::array<index_t, Rank> &st, index_t begin, index_t count) {
        std::array<index_t, Rank> sh = v.shape();
        sh[ax] = count;
        return device_view<E, Rank>(dev, data + begin * st[ax], sh, st);
      };
      R *const w = work.data();
      const T *const a = v.data();
      (*this)(part(a, v.strides(), 0, h), part(a, v.strides(), m - h, h), part(w, strides, 0, h));
      if (m - h > h) {
        auto middle = part(w, strides, h, 1);
        detail::eval_assignments(this->placed_on(), kernel::assign(middle, kernel::lazy(part(a, v.strides(), h, 1))));
      }
      for (m -= h; m > 1; m -= h) {
        h = m / 2;
        (*this)(part(w, strides, 0, h), part(w, strides, m - h, h), part(w, strides, 0, h));
      }
      // The last slice into the result.
      device_view<R, Rank> into = acc;
      const device_view<const R, Rank> last = part(static_cast<const R *>(w), strides, 0, 1);
      if constexpr (!std::is_same_v<Start, no_initial>)
        (*this)(*initial, last, into);
      else
        detail::eval_assignments(this->placed_on(), kernel::assign(into, kernel::lazy(last)));
    }
  }

  // The loop for arguments In; 0 where none accepts them, which require_loop reports: kept
  // apart, so that the error leaves the index a constant and adds no errors of its own.
  template <class... In> static constexpr int select() {
    constexpr int loop = detail::resolve_loop<std::tuple<In...>, F...>::value;
    return loop < 0 ? 0 : loop;
  }
  // `Site` is a class local to the calling function, a type of its own in each of its
  // specializations: calls with the same arguments from two places are two specializations,
  // each reporting its error (a second use of one that failed is a confusing 'no matching
  // function'). Constexpr, so that it is instantiated at once, at the chain from the user's line.
  template <class Site, class... In> static constexpr void require_loop() {
    constexpr int loop = detail::resolve_loop<std::tuple<In...>, F...>::value;
    static_assert(loop >= 0, "no loop of this ufunc accepts these argument types: arrays must cast safely "
                             "to a loop's parameter types (NumPy 'safe' casting) and scalars must be of the "
                             "same kind or a lower one; the loops are the ufunc's template arguments");
    // The next error names the arguments' types and the loops' (the template's arguments).
    if constexpr (loop < 0) (void)sizeof(detail::no_loop_accepts<std::tuple<In...>, decltype(F)...>);
  }

  template <int L> static constexpr auto loop_fn() { return std::get<L>(std::make_tuple(F...)); }

  // The loop of a fold (reduce, accumulate, reduceat) of an array of T: the one a call with two
  // such arrays selects (require_loop reports where there is none), its result type R and its
  // parameters' P0 (the running value's) and P1 (the elements').
  template <class T, std::size_t Rank> struct fold_loop {
    using in_view = array_view<const T, Rank>;
    static constexpr auto fn = loop_fn<select<const in_view &, const in_view &>()>();
    using traits = detail::function_traits<decltype(fn)>;
    using R = typename traits::result_type;
    using P0 = std::remove_cvref_t<typename traits::template arg<0>>;
    using P1 = std::remove_cvref_t<typename traits::template arg<1>>;
    // The running value, of the result type, goes back to the first parameter.
    static constexpr bool result_fits = can_cast_safely(dtype_of<R>, dtype_of<typename traits::template arg<0>>);
  };

  // A node of a lazy expression: the loop eager resolution picks for the children's types.
  template <class... Args> auto lazy_call(Args &&...args) const {
    struct site;
    require_loop<site, detail::resolution_arg_t<detail::child_t<Args>>...>();
    constexpr int L = select<detail::resolution_arg_t<detail::child_t<Args>>...>();
    using node = detail::map_node<ufunc, loop_fn<L>(), detail::child_t<Args>...>;
    return expr<node>(node{*this, {detail::make_child(std::forward<Args>(args))...}});
  }

  // A call no loop accepts is its two errors only: nothing is instantiated with a loop that
  // does not fit its arguments (which added a page of conversion errors).
  template <class... In> static constexpr bool has_loop() {
    return detail::resolve_loop<std::tuple<In...>, F...>::value >= 0;
  }
  template <class... In> auto allocate_and_call(In &...in) const {
    if constexpr (has_loop<In &...>()) {
      return allocate_and_call_fitting(in...);
    } else {
      struct site;
      require_loop<site, In &...>();
      return detail::failed_call_result{};
    }
  }
  // `auto`, not void: instantiated at once, so that its error shows the chain from the user's
  // line (a void function template is instantiated at the end of the file).
  template <class Out, class... In> auto call_into(Out &out, In &...in) const {
    if constexpr (has_loop<In &...>()) {
      call_into_fitting(out, in...);
    } else {
      struct site;
      require_loop<site, In &...>();
    }
  }

  template <class... In> auto allocate_and_call_fitting(In &...in) const {
    constexpr int L = select<In &...>();
    constexpr auto fn = loop_fn<L>();
    using R = typename detail::function_traits<decltype(fn)>::result_type;
    constexpr std::size_t rank = detail::max_rank<detail::ufunc_arg<In &>::rank...>();
    if constexpr (rank == 0) {
      if (this->placed_on().runs_on_host()) {
        // Through run_trapping, as an array call: an integer division by zero is an error.
        std::optional<R> r;
        auto compute = [&] { r.emplace(invoke_scalars<fn>(std::index_sequence_for<In...>{}, in...)); };
        detail::run_trapping(
            name(), [](void *c, index_t, index_t) { (*static_cast<decltype(compute) *>(c))(); }, &compute, 0, 1);
        return std::move(*r);
      }
      // Placed on a device, scalars are computed there as arrays are: a GPU's results (and
      // its errors, an unavailable target's among them) are not a host call's.
      ndarray<R, 1> result(ndarray<R, 1>::uninitialized, std::array<index_t, 1>{1});
      call_into(result, in...);
      return R(result[0]);
    } else {
      std::array<detail::operand_layout, nin> layouts = input_layouts(std::index_sequence_for<In...>{}, in...);
      const detail::iteration_space space = detail::broadcast_shapes(name(), layouts);
      std::array<index_t, rank> shape{};
      std::copy_n(space.shape, rank, shape.begin());
      // The result's bytes must fit: a broadcast of repeated elements (stride 0) can have
      // more elements than memory holds.
      detail::checked_size(name(), 0, shape.data(), static_cast<int>(rank), sizeof(R));
      if constexpr ((detail::ufunc_arg<In &>::is_device || ...)) {
        // Device inputs give a device result, on the call's device and stream.
        const detail::device_call call = this->call_on(
            this->placed_on().runs_on_host() ? detail::first_device(name(), in...) : nullptr, unavailable_message);
        device_array<R, rank> result(shape, call.stream, name(), 0);
        call_into(result, in...);
        return result;
      } else {
        ndarray<R, rank> result(ndarray<R, rank>::uninitialized, shape, name(), 0);
        call_into(result, in...);
        return result;
      }
    }
  }

  template <auto Fn, std::size_t... I, class... In> auto invoke_scalars(std::index_sequence<I...>, In &...in) const {
    using traits = detail::function_traits<decltype(Fn)>;
    return Fn(detail::convert_scalar<typename traits::template arg<I>>(name(), int(I) + 1, in)...);
  }

  template <std::size_t... I, class... In>
  static std::array<detail::operand_layout, nin> input_layouts(std::index_sequence<I...>, In &...in) {
    return {input_layout<I>(in)...};
  }

  template <std::size_t I, class A> static detail::operand_layout input_layout(A &a) {
    using arg = detail::ufunc_arg<A &>;
    if constexpr (arg::is_scalar) {
      detail::operand_layout l;
      l.argument = int(I) + 1;
      return l;
    } else {
      if constexpr (arg::is_device) detail::require_device_of(name(), int(I) + 1, a);
      return detail::layout_of(name(), arg::view(a), int(I) + 1);
    }
  }

  // What the loop reads for input I: array elements in place, or the scalar converted once.
  template <std::size_t I, auto Fn, class A> static auto input_source(A &a) {
    using arg = detail::ufunc_arg<A &>;
    using param = typename detail::function_traits<decltype(Fn)>::template arg<I>;
    if constexpr (arg::is_scalar)
      return detail::convert_scalar<param>(name(), int(I) + 1, a);
    else
      return arg::view(a);
  }

  // `auto` as call_into, for its output's checks.
  template <class Out, class... In> auto call_into_fitting(Out &out, In &...in) const {
    using out_arg = detail::ufunc_arg<Out &>;
    static_assert(out_arg::supported && !out_arg::is_scalar,
                  "the last argument of a ufunc call with an output must be an array");
    static_assert(out_arg::writable, "the output array of a ufunc call must be writable");
    constexpr int L = select<In &...>();
    constexpr auto fn = loop_fn<L>();
    using R = typename detail::function_traits<decltype(fn)>::result_type;
    using out_elem = typename out_arg::element_type;
    static_assert(can_cast_same_kind(dtype_of<R>, dtype_of<out_elem>),
                  "the output's element type cannot hold the ufunc's result (NumPy "
                  "'same_kind' casting)");
    constexpr bool any_device = out_arg::is_device || (detail::ufunc_arg<In &>::is_device || ...);
    if (this->placed_on().runs_on_host()) {
      if constexpr (any_device) {
        // Device arrays given to a host target: run where the arrays are, as NumPy would
        // run a ufunc where its operands live, rather than copying behind the user's back.
        const detail::device_call call = this->call_on(detail::first_device(name(), in..., out), unavailable_message);
        detail::run_ufunc_on_device<fn>(name(), call, out, in...);
      } else {
        run<fn>(out_arg::view(out), std::index_sequence_for<In...>{}, in...);
      }
      return;
    }
    const detail::device_call call = this->call_on(nullptr, unavailable_message);
    detail::run_ufunc_on_device<fn>(name(), call, out, in...);
  }

  // No device to run on: `why`, and first, when it is so, that no GPU code was compiled.
  static std::string unavailable_message(const std::string &why) {
    std::string missing_code;
    bool compiled = true;
    for (const void *key : {reinterpret_cast<const void *>(&detail::ufunc_kernel<F>)...})
      compiled = compiled && detail::find_kernel(key).has_value();
    if (!compiled) {
      missing_code = "no GPU code was compiled for it (build the translation unit that defines it with the "
                     "kernel plugin, tools/kernel-clang++ or a kernel_cc_* Bazel rule, and with the attribute on "
                     "that definition: an attribute only on a declaration elsewhere compiles nothing";
      for (const std::string &r : detail::rejected_modules()) missing_code += "; " + r;
      missing_code += "); and ";
    }
    return detail::no_device_message(name(), missing_code + why);
  }

  template <auto Fn, class OutView, std::size_t... I, class... In>
  void run(const OutView &out, std::index_sequence<I...>, In &...in) const {
    using out_elem = typename OutView::value_type;
    constexpr std::size_t N = nin + 1;

    // Sources stay alive for the whole call: converted scalars live here.
    auto sources = std::make_tuple(input_source<I, Fn>(in)...);
    std::array<detail::operand_layout, N> layouts; // each assigned here, not zeroed first
    ((layouts[I] = layout_from_source<I>(std::get<I>(sources))), ...);
    layouts[nin] = detail::layout_of(name(), out, int(nin) + 1, /*is_output=*/true);

    const detail::iteration_space space = detail::broadcast_shapes(name(), layouts);
    const detail::loop_plan<N> plan = detail::plan_loop<N>(space, layouts);
    detail::check_overlap(name(), layouts);
    const index_t size = space.size();
    if (size == 0) return;
    detail::await_host_operands(layouts);

    using loop = detail::cpu_loop<Fn, out_elem, loop_input_t<std::tuple_element_t<I, decltype(sources)>>...>;
    const typename loop::inputs ptrs{loop_source(std::get<I>(sources))...};

    // Through run_trapping: an integer division by zero in the loop function is an error.
    struct job {
      const detail::loop_plan<N> *plan;
      out_elem *out;
      const typename loop::inputs *in;
    } j{&plan, out.data(), &ptrs};
    constexpr auto body = [](void *ctx, index_t b, index_t e) {
      const job &jb = *static_cast<const job *>(ctx);
      loop::run(*jb.plan, jb.out, *jb.in, b, e);
    };
    detail::loop_trapping(name(), this->placed_on().where == target::parallel, size, detail::parallel_grain, body, &j);
  }

  // How the CPU loop reads each input: a scalar argument as a value, an array in memory.
  template <class S> struct loop_input {
    using type = detail::array_input<std::remove_cv_t<typename S::element_type>>;
  };
  template <class S>
    requires scalar<S>
  struct loop_input<S> {
    using type = detail::scalar_input<S>;
  };
  template <class S> using loop_input_t = typename loop_input<S>::type;

  template <std::size_t I, class S> static detail::operand_layout layout_from_source(const S &s) {
    if constexpr (scalar<S>) {
      detail::operand_layout l;
      l.data = &s;
      l.elem_size = sizeof(S);
      l.argument = int(I) + 1;
      return l;
    } else {
      return detail::layout_of(name(), s, int(I) + 1);
    }
  }

  template <class S> static auto loop_source(const S &s) {
    if constexpr (scalar<S>)
      return typename detail::scalar_input<S>::source{s};
    else
      return static_cast<const typename S::value_type *>(s.data());
  }

  kernel::identity identity_ = kernel::identity::none;
};

} // namespace kernel
