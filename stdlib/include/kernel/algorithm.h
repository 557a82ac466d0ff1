// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Array algorithms beyond map and reduce: scans, sorts, k-selection, gathers and scatters,
// compaction and histograms, on every target with one spelling. As for ufuncs, device arrays
// are worked on where they are (results of a call on device arrays are device arrays), host
// arrays on the CPU, or on the target, device or stream chosen with `.on(...)`:
//
//   auto c = kernel::cumsum(x);                             // inclusive prefix sums
//   kernel::sort(dx);                                       // in place, on dx's device
//   auto order = kernel::argsort.on(kernel::target::parallel)(x, kernel::descending);
//   auto [values, indices] = kernel::top_k(matrix, 10, /*axis=*/0);  // per column
//   auto kept = kernel::select_if(x, kernel::ufunc<is_positive>{});
//
//   [[kernel::reduce]] float running_max(float a, float b) { return a > b ? a : b; }
//   constexpr kernel::scan<running_max> prefix_max;   // any associative operator
//
// Inputs (not the arrays sort and sort_by_key reorder in place, nor outputs) may be lazy
// expressions (kernel/fuse.h): an expression is evaluated into a new array first, where the
// call is placed (else where the expression places itself; on its device for device arrays),
// and the algorithm reads that.
//
// Orders are NumPy's: integers and floats by value, NaNs last (or first among the largest in
// top_k, as NaN sorts above every number), -0.0 equal to +0.0. Sorts are stable: argsort,
// sort_by_key and top_k keep equal keys in their order, -0.0 and +0.0 included; `sort`, which
// moves the values themselves without a gather, puts -0.0 before +0.0 ascending and after it
// descending (and NaNs by their payload bits), keeping every bit. Errors are argument_errors naming
// the algorithm and the argument, thrown before anything is written.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/array.h"
#include "kernel/detail/algorithm_device.h"
#include "kernel/detail/algorithm_host.h"
#include "kernel/detail/algorithm_kernel.h"
#include "kernel/detail/algorithm_run.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/number_text.h"
#include "kernel/detail/placement.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"

namespace kernel {

template <detail::function_pointer auto... F> class ufunc; // kernel/ufunc.h

/// Operators for scans: `+`, and the larger or smaller of two values (a NaN where either is
/// one, as NumPy's maximum and minimum).
inline constexpr detail::plus_t plus{};
inline constexpr detail::maximum_t maximum{};
inline constexpr detail::minimum_t minimum{};

/// The order of a sort.
enum class sort_order { ascending, descending };
inline constexpr sort_order ascending = sort_order::ascending;
inline constexpr sort_order descending = sort_order::descending;

namespace detail {

/// What sums of E are made in, as NumPy's sum and cumsum: bool and integers narrower than 64
/// bits widen to int64 (uint64 when unsigned), so that the sums do not wrap.
template <class E> struct sum_value {
  using type = E;
};
template <class E>
  requires(std::is_integral_v<E> && sizeof(E) < 8)
struct sum_value<E> {
  using type = std::conditional_t<std::is_signed_v<E> || std::is_same_v<E, bool>, std::int64_t, std::uint64_t>;
};

template <auto Op> inline constexpr bool is_plus = std::is_same_v<std::remove_cvref_t<decltype(Op)>, plus_t>;

/// The value type of a scan with `Op` over elements of type E.
template <auto Op, class E> struct scan_value {
  using type = std::conditional_t<is_plus<Op>, typename sum_value<E>::type, E>;
  static constexpr bool operator_fits = true;
};
template <auto Op, class E>
  requires std::is_pointer_v<decltype(Op)>
struct scan_value<Op, E> {
  using traits = function_traits<decltype(Op)>;
  using type = typename traits::result_type;
  /// Whether Op is T f(T, T); the scan compiles nothing more where it is not (its calls of Op
  /// gave a dozen errors more).
  static constexpr bool operator_fits = [] {
    if constexpr (traits::arity != 2)
      return false;
    else
      return std::is_same_v<typename traits::template arg<0>, type> &&
             std::is_same_v<typename traits::template arg<1>, type>;
  }();
  static_assert(traits::arity == 2, "a scan's operator takes two values");
  static_assert(traits::arity != 2 || operator_fits,
                "a scan's operator combines two values of its result type: T f(T, T)");
};

template <class T>
inline constexpr bool sortable = (std::is_integral_v<T> || std::is_floating_point_v<T>) && !no_gpu_type<T>;
template <class T> constexpr bool require_sortable() {
  static_assert(sortable<T>, "sorted, selected and counted values are bool, integers or floats");
  return sortable<T>;
}
/// An array of values that sort: errors where `A` is not, for the call to guard the rest of
/// its body with.
template <class A> constexpr bool require_sortable_array() {
  if constexpr (require_array<A>())
    return require_sortable<element_of<A>>();
  else
    return false;
}

template <class A> using shape_t = std::array<index_t, arg_of<A>::rank>;

} // namespace detail

// ---------------------------------------------------------------------------------------
// Scans

/// Prefix combinations with `Op` (kernel::plus, or an associative [[kernel::reduce]]
/// function, possibly of a struct type) along an axis (the last by default):
/// inclusive by default, `exclusive(x, init)` for the combination of `init` and the elements
/// before each one. New arrays of sums are NumPy's cumsum's type: bool and integers narrower
/// than 64 bits are summed as int64 (uint64 when unsigned). Into a given array, the sums are
/// made in its element type (so `cumsum(x, x)` works in place).
template <auto Op = plus> class scan : public detail::placed<scan<Op>> {
  template <class A> using value_of = typename detail::scan_value<Op, detail::element_of<A>>::type;
  template <class A, class Out>
  using into_value = std::conditional_t<detail::is_plus<Op>, detail::element_of<std::remove_cvref_t<Out>>, value_of<A>>;

public:
  constexpr scan() noexcept = default;
  // Errors name the function the user called: cumsum is the scan of plus.
  static constexpr std::string_view name() noexcept { return detail::is_plus<Op> ? "cumsum" : "scan"; }

  /// The inclusive scan of `in` as a new array.
  template <class A, detail::integer_argument Axis = int> auto operator()(const A &in, Axis axis = -1) const {
    if constexpr (detail::require_array<A>()) {
      using T = value_of<A>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), in);
      auto out = detail::make_result<T, detail::arg_of<A>::rank, detail::is_device_arg<A>>(site, detail::shape_of(in));
      run<T, true>(site, in, out, 0, axis, 2, std::nullopt, false);
      return out;
    } else {
      return detail::failed_call_result{};
    }
  }
  /// The inclusive scan of `in` into `out` (same shape; may be `in` itself).
  template <class A, class Out, detail::integer_argument Axis = int>
    requires(!detail::integer_argument<std::remove_cvref_t<Out>>)
  void operator()(const A &in, Out &&out, Axis axis = -1) const {
    // The sums' type is the output's elements': nothing more is compiled for no array.
    if constexpr (!require_output_not_number<Out>()) {
    } else if constexpr (detail::require_array<A>() & detail::require_array<std::remove_cvref_t<Out>>()) {
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), in, out);
      detail::require_lasting_output<Out>(name(), 2, this->placed_on());
      require_sum_cast<A, Out>();
      run<into_value<A, Out>, detail::is_plus<Op>>(site, in, out, 2, axis, 3, std::nullopt, false);
    }
  }

  /// The scans of an expression (evaluated first: see the header comment).
  template <class N, detail::integer_argument Axis = int> auto operator()(const expr<N> &in, Axis axis = -1) const {
    return (*this)(detail::evaluated(this->placed_on(), in), axis);
  }
  template <class N, class Out, detail::integer_argument Axis = int>
    requires(!detail::integer_argument<std::remove_cvref_t<Out>>)
  void operator()(const expr<N> &in, Out &&out, Axis axis = -1) const {
    (*this)(detail::evaluated(this->placed_on(), in), std::forward<Out>(out), axis);
  }

  /// The exclusive scan: element i is the combination of `init` and the elements before it.
  template <class A, detail::integer_argument Axis = int>
  auto exclusive(const A &in, value_of<A> init, Axis axis = -1) const {
    if constexpr (detail::require_array<A>()) {
      using T = value_of<A>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), in);
      auto out = detail::make_result<T, detail::arg_of<A>::rank, detail::is_device_arg<A>>(site, detail::shape_of(in));
      run<T, true>(site, in, out, 0, axis, 3, init, true);
      return out;
    } else {
      return detail::failed_call_result{};
    }
  }
  template <class A, class Out, detail::integer_argument Axis = int>
    requires(!detail::integer_argument<std::remove_cvref_t<Out>>)
  void exclusive(const A &in, into_value<A, Out> init, Out &&out, Axis axis = -1) const {
    if constexpr (!require_output_not_number<Out>()) {
    } else if constexpr (detail::require_array<A>() & detail::require_array<std::remove_cvref_t<Out>>()) {
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), in, out);
      detail::require_lasting_output<Out>(name(), 3, this->placed_on());
      require_sum_cast<A, Out>();
      run<into_value<A, Out>, detail::is_plus<Op>>(site, in, out, 3, axis, 4, init, true);
    }
  }
  template <class N, detail::integer_argument Axis = int>
  auto exclusive(const expr<N> &in, value_of<detail::evaluated_t<expr<N>>> init, Axis axis = -1) const {
    return exclusive(detail::evaluated(this->placed_on(), in), init, axis);
  }
  template <class N, class Out, detail::integer_argument Axis = int>
    requires(!detail::integer_argument<std::remove_cvref_t<Out>>)
  void exclusive(const expr<N> &in, into_value<detail::evaluated_t<expr<N>>, Out> init, Out &&out,
                 Axis axis = -1) const {
    exclusive(detail::evaluated(this->placed_on(), in), init, std::forward<Out>(out), axis);
  }

private:
  /// A number where the output array goes is an axis that is not an integer.
  template <class Out> static constexpr bool require_output_not_number() {
    constexpr bool number = std::is_arithmetic_v<std::remove_cvref_t<Out>>;
    static_assert(!number, "a scan's argument after its input (and exclusive's initial value) is the output "
                           "array or the axis, an integer: not a floating value or a bool, which would be cut "
                           "to an axis");
    return !number;
  }

  /// A sum of one run of built-in values through CUB (kernel/detail/cub_api.h) on a CUDA
  /// device; false when that declines.
  template <class S, class T>
  bool sum_through_cub(const detail::algorithm_site &site, const S *in, T *out, const detail::segment_layout &l,
                       const std::optional<T> &init, bool exclusive) const {
    if constexpr (detail::is_plus<Op> && scalar<S> && scalar<T>) {
      // CUB's inclusive sums start from the first element.
      if (l.segments != 1 || (init && !exclusive)) return false;
      const T start = init.value_or(T{});
      return detail::sum_scan_cub(name().data(), dtype_of<S>, dtype_of<T>, exclusive, in, out, &start, l.len,
                                  *site.call->device, *site.call->stream);
    } else {
      return false;
    }
  }

  /// Sums into a given array are made in its type, of a kind the input casts to.
  template <class A, class Out> static constexpr void require_sum_cast() {
    if constexpr (detail::is_plus<Op>)
      static_assert(can_cast_same_kind(dtype_of<detail::element_of<A>>, dtype_of<into_value<A, Out>>),
                    "cumsum into an array of a lower kind (float into int, signed into unsigned) would cut "
                    "every value: NumPy refuses the cast ('same_kind'); sum into an array of the input's kind");
  }

  /// `Widen`: a device input of another element type than the sums' is read as it is and
  /// converted to T by the scan (the sum type of the returning forms, the output's of the
  /// others), not refused as an implicit conversion.
  /// `out` is argument `out_argument` (0: the call's result) and `axis` argument `axis_argument`.
  template <class T, bool Widen, class A, class Out>
  auto run(const detail::algorithm_site &site, const A &in, Out &out, int out_argument, auto axis, int axis_argument,
           std::optional<T> init, bool exclusive) const {
    // Arrays, and an operator T f(T, T) (scan_value says why not).
    if constexpr (detail::require_array<A>() && detail::require_array<Out>())
      if constexpr (detail::scan_value<Op, detail::element_of<A>>::operator_fits) {
        constexpr bool same_rank = detail::arg_of<Out>::rank == detail::arg_of<A>::rank;
        static_assert(same_rank, "a scan's output has the input's rank");
        // After that error the scan is not compiled further (comparing the shapes gave another).
        if constexpr (same_rank)
          run_fitting<T, Widen>(site, in, out, out_argument, axis, axis_argument, init, exclusive);
      }
  }
  template <class T, bool Widen, class A, class Out>
  void run_fitting(const detail::algorithm_site &site, const A &in, Out &out, int out_argument, auto axis,
                   int axis_argument, std::optional<T> init, bool exclusive) const {
    constexpr std::size_t R = detail::arg_of<A>::rank;
    const auto shape = detail::shape_of(in);
    if (shape != detail::shape_of(out))
      throw argument_error(std::string(name()), out_argument, "has a shape other than the input's");
    // In place only over exactly the input: a shifted view would read sums as values.
    detail::require_apart(name(), out_argument, out, 1, in, /*may_be_same=*/true);
    if constexpr (R == 0) return;
    const int a = detail::axis_of(name(), axis_argument, axis, static_cast<int>(R));
    const detail::segment_layout l = detail::segments_along(shape, a);
    using S = std::conditional_t<Widen, detail::element_of<A>, T>;
    if (site.on_device()) {
      detail::input_elements<S> src = detail::input_on<S>(site, name(), 1, in);
      detail::output_elements<T> dst = detail::output_elements<T>::make(site, name(), out_argument, out);
      if (!sum_through_cub<S, T>(site, src.data, dst.data, l, init, exclusive))
        detail::scan_device<Op, S, T>(*site.call, src.data, dst.data, l, l, init, exclusive);
      detail::keep_until_done(*site.call, {src.keep});
      dst.deliver();
      return;
    }
    detail::input_elements<T> src = detail::input_on<T>(site, name(), 1, in);
    detail::output_elements<T> dst = detail::output_elements<T>::make(site, name(), out_argument, out);
    detail::scan_host<Op, T>(src.data, dst.data, l, init, exclusive, site.parallel());
    dst.deliver();
  }
};

/// Cumulative sums (NumPy's cumsum): kernel::cumsum(x), kernel::cumsum.exclusive(x, 0).
inline constexpr scan<plus> cumsum{};

// ---------------------------------------------------------------------------------------
// Sorts

namespace detail {

template <class Derived> class sorting : public placed<Derived> {
protected:
  // The order of keys (values of type T), with its NaN placement; see the header comment.
  static constexpr key_order order_of(sort_order o) noexcept {
    return o == sort_order::descending ? key_order::descending : key_order::ascending;
  }

  /// Sorts the segments of `in` along `axis`, writing what `want(layout)` asks for; the first
  /// `take` of each segment are sorted (all when not given), and `keep_in` (what holds `in`) lives
  /// until a device is done with it.
  template <class T, std::size_t R, class Want>
  void sort_segments(const algorithm_site &site, std::string_view name, const T *in, std::shared_ptr<void> keep_in,
                     const std::array<index_t, R> &shape, long long axis, key_order order, bool canonical,
                     std::optional<index_t> take, Want &&want) const {
    // After require_sortable's error, nothing more is instantiated for such elements.
    if constexpr (sortable<T>) {
      const int a = normalize_axis(name, 3, axis, static_cast<int>(R)); // (x, order or k, axis)
      const segment_layout l = segments_along(shape, a);
      const sorted_outputs<T> out = want(l);
      if (site.on_device()) {
        std::vector<std::shared_ptr<void>> keep{std::move(keep_in)};
        sort_device<T>(name, *site.call, in, l, order, canonical, false, out, keep);
        keep_until_done(*site.call, std::move(keep));
      } else {
        sort_host<T>(in, l, order, canonical, out, take.value_or(l.len), nullptr, site.parallel());
      }
    }
  }

  /// Outputs that are each element's position in its sorted segment, at `indices`.
  template <class T> static sorted_outputs<T> positions_into(index_t *indices, const segment_layout &l) {
    sorted_outputs<T> o;
    o.indices = indices;
    o.indices_layout = l;
    return o;
  }
};

} // namespace detail

/// Sorts an array in place along an axis (the last by default), stably: `sort(x)`,
/// `sort(x, kernel::descending)`, `sort(matrix, kernel::ascending, 0)` (each column).
class sort_fn : public detail::sorting<sort_fn> {
public:
  constexpr sort_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "sort"; }

  template <class A, detail::integer_argument Axis = int>
  void operator()(A &&x, sort_order order = ascending, Axis axis = -1) const {
    if constexpr (detail::require_array<std::remove_cvref_t<A>>())
      sort_fitting(std::forward<A>(x), order, detail::integer_value(name(), 3, axis, "axis"));
  }

private:
  // auto, as each call's other parts: instantiated with the call, so its errors show the
  // caller's line.
  template <class A> auto sort_fitting(A &&x, sort_order order, long long axis) const {
    detail::require_lasting_output<A>(name(), 1, this->placed_on());
    using T = detail::element_of<std::remove_cvref_t<A>>;
    detail::require_sortable<T>();
    constexpr std::size_t R = detail::arg_of<std::remove_cvref_t<A>>::rank;
    static_assert(R >= 1, "sort takes an array");
    if constexpr (detail::sortable<T> && R >= 1) {
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x);
      const auto shape = detail::shape_of(x);
      detail::input_elements<T> src = detail::input_on<T>(site, name(), 1, x);
      detail::output_elements<T> dst = detail::output_elements<T>::make(site, name(), 1, x);
      // Keys that keep -0.0 and NaN payloads, turned back into the values: no gather.
      this->sort_segments<T>(site, name(), src.data, src.keep, shape, axis, order_of(order), false, std::nullopt,
                             [&](const detail::segment_layout &l) {
                               detail::sorted_outputs<T> o;
                               o.values = dst.data;
                               o.values_layout = l;
                               return o;
                             });
      dst.deliver();
    }
  }
};
inline constexpr sort_fn sort{};

/// The positions (int64) that sort an array along an axis, stably: x[argsort(x)] is sorted.
class argsort_fn : public detail::sorting<argsort_fn> {
public:
  constexpr argsort_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "argsort"; }

  template <class A, detail::integer_argument Axis = int>
  auto operator()(const A &x, sort_order order = ascending, Axis axis = -1) const {
    if constexpr (detail::require_array<A>())
      return argsort_fitting(x, order, detail::integer_value(name(), 3, axis, "axis"));
    else
      return detail::failed_call_result{};
  }
  template <class N, detail::integer_argument Axis = int>
  auto operator()(const expr<N> &x, sort_order order = ascending, Axis axis = -1) const {
    return (*this)(detail::evaluated(this->placed_on(), x), order, axis);
  }

private:
  template <class A> auto argsort_fitting(const A &x, sort_order order, long long axis) const {
    using T = detail::element_of<A>;
    detail::require_sortable<T>();
    constexpr std::size_t R = detail::arg_of<A>::rank;
    static_assert(R >= 1, "argsort takes an array");
    if constexpr (detail::sortable<T> && R >= 1) {
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x);
      const auto shape = detail::shape_of(x);
      auto result = detail::make_result<index_t, R, detail::is_device_arg<A>>(site, shape);
      detail::input_elements<T> src = detail::input_on<T>(site, name(), 1, x);
      detail::output_elements<index_t> dst = detail::output_elements<index_t>::make(site, name(), 0, result);
      this->sort_segments<T>(
          site, name(), src.data, src.keep, shape, axis, order_of(order), true, std::nullopt,
          [&](const detail::segment_layout &l) { return this->template positions_into<T>(dst.data, l); });
      dst.deliver();
      return result;
    } else {
      return detail::failed_call_result{};
    }
  }
};
inline constexpr argsort_fn argsort{};

/// Sorts `keys` in place and moves `values` (same shape, any trivially copyable type) with
/// them, stably, along the last axis.
class sort_by_key_fn : public detail::sorting<sort_by_key_fn> {
public:
  constexpr sort_by_key_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "sort_by_key"; }

  template <class K, class V> void operator()(K &&keys, V &&values, sort_order order = ascending) const {
    using KA = std::remove_cvref_t<K>;
    using VA = std::remove_cvref_t<V>;
    // K and V as the caller gave them: a temporary on a stream is refused.
    if constexpr (detail::require_array<KA>() && detail::require_array<VA>()) fitting<K, V>(keys, values, order);
  }

private:
  template <class K, class V> auto fitting(K &keys, V &values, sort_order order) const {
    using KA = std::remove_cvref_t<K>;
    using VA = std::remove_cvref_t<V>;
    detail::require_lasting_output<K>(name(), 1, this->placed_on());
    detail::require_lasting_output<V>(name(), 2, this->placed_on());
    using T = detail::element_of<KA>;
    using W = detail::element_of<VA>;
    detail::require_sortable<T>();
    constexpr std::size_t R = detail::arg_of<KA>::rank;
    static_assert(R >= 1 && detail::arg_of<VA>::rank == R, "sort_by_key: the values have the keys' rank");
    // After those errors, nothing more is instantiated for such arguments.
    if constexpr (detail::sortable<T> && R >= 1 && detail::arg_of<VA>::rank == R) {
      const auto shape = detail::shape_of(keys);
      if (shape != detail::shape_of(values))
        throw argument_error(std::string(name()), 2, "has a shape other than the keys'");
      // Both are written: values sharing memory with the keys would be written over them.
      detail::require_apart(name(), 2, values, 1, keys);
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), keys, values);
      const detail::segment_layout l = detail::segments_along(shape, static_cast<int>(R) - 1);
      detail::input_elements<T> key_in = detail::input_on<T>(site, name(), 1, keys);
      detail::input_elements<W> value_in = detail::input_on<W>(site, name(), 2, values);
      detail::output_elements<T> key_out = detail::output_elements<T>::make(site, name(), 1, keys);
      detail::output_elements<W> value_out = detail::output_elements<W>::make(site, name(), 2, values);
      detail::sorted_outputs<T> o;
      o.values = key_out.data;
      o.values_layout = l;
      o.source_layout = l;
      if (site.on_device()) {
        const detail::device_call &c = *site.call;
        std::vector<std::shared_ptr<void>> keep{key_in.keep, value_in.keep};
        // Integer keys of one run, with values CUB can move: CUB's sort of pairs where it runs.
        if constexpr (std::is_integral_v<T> && (sizeof(W) == 4 || sizeof(W) == 8)) {
          if (l.segments == 1 && detail::sort_contiguous_cub<T, W>(name(), c, key_in.data, key_out.data, value_in.data,
                                                                   value_out.data, l.size(), order_of(order), keep)) {
            detail::keep_until_done(c, std::move(keep));
            key_out.deliver();
            value_out.deliver();
            return;
          }
        }
        // The outputs may be the inputs: gather from copies.
        auto key_copy = detail::device_temp<T>(c, l.size());
        auto value_copy = detail::device_temp<W>(c, l.size());
        keep.insert(keep.end(), {key_copy, value_copy});
        detail::copy_on_device(c, detail::data_of<T>(key_copy), key_in.data, l.size());
        detail::copy_on_device(c, detail::data_of<W>(value_copy), value_in.data, l.size());
        o.source = detail::data_of<T>(key_copy);
        const index_t *order_of_all =
            detail::sort_device<T>(name(), c, o.source, l, order_of(order), true, true, o, keep);
        detail::launch_over<detail::permute_entry<W>>(
            c, l.size(), {detail::data_of<W>(value_copy), l, order_of_all, l.len, value_out.data, l});
        detail::keep_until_done(c, std::move(keep));
      } else {
        const std::unique_ptr<T[]> key_copy = detail::host_copy(key_in.data, l.size());
        const std::unique_ptr<W[]> value_copy = detail::host_copy(value_in.data, l.size());
        std::vector<index_t> positions(static_cast<std::size_t>(l.size()));
        o.source = key_copy.get();
        detail::sort_host<T>(key_copy.get(), l, order_of(order), true, o, l.len, positions.data(), site.parallel());
        detail::maybe_parallel(site.parallel(), l.size(), detail::algorithm_grain, [&](index_t b, index_t e) {
          for (index_t i = b; i < e; ++i)
            value_out.data[i] =
                value_copy[static_cast<std::size_t>(i - i % l.len + positions[static_cast<std::size_t>(i)])];
        });
      }
      key_out.deliver();
      value_out.deliver();
    }
  }
};
inline constexpr sort_by_key_fn sort_by_key{};

// ---------------------------------------------------------------------------------------
// Selection

/// The k largest (or smallest) values along an axis, and their positions: for a matrix,
/// axis 0 selects in each column, axis 1 (the last, by default) in each row. The results
/// have extent k along that axis, in order (largest first, or smallest first), ties by
/// position; NaN counts as larger than any number.
template <class Values, class Indices> struct top_k_result {
  Values values;
  Indices indices;
};

class top_k_fn : public detail::sorting<top_k_fn> {
public:
  constexpr top_k_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "top_k"; }

  template <class A, detail::integer_argument K, detail::integer_argument Axis = int>
  auto operator()(const A &x, K k, Axis axis = -1, bool largest = true) const {
    if constexpr (detail::require_array<A>())
      return fitting(x, detail::integer_value(name(), 2, k, "k ="), detail::integer_value(name(), 3, axis, "axis"),
                     largest);
    else
      return detail::failed_call_result{};
  }
  template <class N, detail::integer_argument K, detail::integer_argument Axis = int>
  auto operator()(const expr<N> &x, K k, Axis axis = -1, bool largest = true) const {
    return (*this)(detail::evaluated(this->placed_on(), x), k, axis, largest);
  }
  /// `top_k(x, k, false)` would select along axis 0, the largest: refused.
  template <class A, detail::integer_argument K, std::same_as<bool> B> auto operator()(const A &, K, B) const {
    static_assert(!std::is_same_v<B, bool>, "top_k's third argument is the axis and `largest` the fourth: the k "
                                            "smallest along the last axis are top_k(x, k, -1, false)");
    return detail::failed_call_result{};
  }

private:
  template <class A> auto fitting(const A &x, long long k, long long axis, bool largest) const {
    using T = detail::element_of<A>;
    detail::require_sortable<T>();
    constexpr std::size_t R = detail::arg_of<A>::rank;
    static_assert(R >= 1, "top_k takes an array");
    // After those errors, nothing more is instantiated for such arguments.
    if constexpr (detail::sortable<T> && R >= 1) {
      constexpr bool D = detail::is_device_arg<A>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x);
      const auto shape = detail::shape_of(x);
      const int a = detail::normalize_axis(name(), 3, axis, static_cast<int>(R));
      if (k < 0 || k > shape[a])
        throw argument_error(std::string(name()), 2,
                             "k = " + std::to_string(k) + " is not between 0 and the axis' extent " +
                                 std::to_string(shape[a]));
      auto result_shape = shape;
      result_shape[a] = k;
      top_k_result<detail::result_array<T, R, D>, detail::result_array<index_t, R, D>> r{
          detail::make_result<T, R, D>(site, result_shape), detail::make_result<index_t, R, D>(site, result_shape)};
      detail::input_elements<T> src = detail::input_on<T>(site, name(), 1, x);
      detail::output_elements<T> values = detail::output_elements<T>::make(site, name(), 0, r.values);
      detail::output_elements<index_t> indices = detail::output_elements<index_t>::make(site, name(), 0, r.indices);
      const detail::key_order order = largest ? detail::key_order::reversed : detail::key_order::ascending;
      // Many short segments and a small k on a device: a thread per segment, one pass (over
      // rows side by side, or rows of a few hundred: a warp's lanes read rows len apart).
      const detail::segment_layout l = detail::segments_along(shape, a);
      if (site.on_device() && k >= 1 && k <= detail::top_k_most && l.segments >= 256 && l.segments >= l.len &&
          l.len <= 4096 && (l.inner > 1 || l.len <= 256)) {
        detail::launch_over<detail::top_k_entry<T>>(
            *site.call, l.segments,
            {src.data, l, k, order, values.data, indices.data, detail::segment_layout{l.segments, k, l.inner}});
        detail::keep_until_done(*site.call, {src.keep});
        values.deliver();
        indices.deliver();
        return r;
      }
      this->sort_segments<T>(site, name(), src.data, src.keep, shape, a, order, true, k,
                             [&](const detail::segment_layout &l) {
                               detail::sorted_outputs<T> o;
                               const detail::segment_layout taken{l.segments, k, l.inner};
                               o.values = values.data;
                               o.values_layout = taken;
                               o.source = src.data;
                               o.source_layout = l;
                               o.indices = indices.data;
                               o.indices_layout = taken;
                               return o;
                             });
      values.deliver();
      indices.deliver();
      return r;
    } else {
      return detail::failed_call_result{};
    }
  }
};
inline constexpr top_k_fn top_k{};

/// NumPy's argpartition along the last axis: positions such that the element at `kth` is the
/// one a sort would put there, those before it are not larger and those after not smaller.
class argpartition_fn : public detail::sorting<argpartition_fn> {
public:
  constexpr argpartition_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "argpartition"; }

  template <class A, detail::integer_argument K> auto operator()(const A &x, K kth) const {
    if constexpr (detail::require_array<A>())
      return fitting(x, detail::integer_value(name(), 2, kth, "kth ="));
    else
      return detail::failed_call_result{};
  }
  template <class N, detail::integer_argument K> auto operator()(const expr<N> &x, K kth) const {
    return (*this)(detail::evaluated(this->placed_on(), x), kth);
  }

private:
  template <class A> auto fitting(const A &x, long long kth) const {
    using T = detail::element_of<A>;
    detail::require_sortable<T>();
    constexpr std::size_t R = detail::arg_of<A>::rank;
    static_assert(R >= 1, "argpartition takes an array");
    // After those errors, nothing more is instantiated for such arguments.
    if constexpr (detail::sortable<T> && R >= 1) {
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x);
      const auto shape = detail::shape_of(x);
      const index_t len = shape[R - 1];
      if (kth < -len || kth >= len)
        throw argument_error(std::string(name()), 2,
                             "kth = " + std::to_string(kth) + " is out of range for an axis of " + std::to_string(len));
      if (kth < 0) kth += len;
      auto result = detail::make_result<index_t, R, detail::is_device_arg<A>>(site, shape);
      detail::input_elements<T> src = detail::input_on<T>(site, name(), 1, x);
      detail::output_elements<index_t> dst = detail::output_elements<index_t>::make(site, name(), 0, result);
      // On a device the segments are sorted whole (a partition too); on the host they are
      // partitioned around kth.
      this->sort_segments<T>(
          site, name(), src.data, src.keep, shape, -1, detail::key_order::ascending, true, kth + 1,
          [&](const detail::segment_layout &l) { return this->template positions_into<T>(dst.data, l); });
      dst.deliver();
      return result;
    } else {
      return detail::failed_call_result{};
    }
  }
};
inline constexpr argpartition_fn argpartition{};

// ---------------------------------------------------------------------------------------
// Gathers and scatters

namespace detail {

template <class Derived> class indexing : public placed<Derived> {
protected:
  /// Checks `count` indices against `extent` on the host; throws naming the first out of range.
  template <class I>
  static void check_indices_host(std::string_view name, int argument, const I *index, index_t count, index_t extent,
                                 bool parallel) {
    std::vector<index_t> first_bad(1, count);
    std::mutex lock;
    maybe_parallel(parallel, count, algorithm_grain, [&](index_t b, index_t e) {
      for (index_t i = b; i < e; ++i) {
        if (resolved_index(index[i], extent) < 0) {
          const std::lock_guard guard(lock);
          if (i < first_bad[0]) first_bad[0] = i;
          return;
        }
      }
    });
    if (first_bad[0] < count) throw_bad_index(name, argument, first_bad[0], index[first_bad[0]], extent);
  }

  template <class I>
  [[noreturn]] static void throw_bad_index(std::string_view name, int argument, index_t position, I value,
                                           index_t extent) {
    throw argument_error(std::string(name), argument,
                         "index " + std::to_string(value) + " at position " + std::to_string(position) +
                             " is out of range for " + std::to_string(extent) + " elements");
  }

  /// Runs the gather (dst[i] = src[index[i]]) or scatter (dst[index[i]] = src[i]) on a device;
  /// throws when an index is out of range, having written nothing where `check_first` (the
  /// destination is the caller's: a scatter, or a gather into an array given).
  template <class V, class I>
  static void run_device(std::string_view name, int index_argument, const device_call &c, const V *src, V *dst,
                         const I *index, index_t count, index_t extent, bool scatter, bool check_first,
                         std::vector<std::shared_ptr<void>> &keep) {
    auto bad = device_temp<index_t>(c, 1);
    keep.push_back(bad);
    copy_to_device(c, data_of<index_t>(bad), &count, 1);
    index_params<V, I> p{src, dst, index, count, extent, data_of<index_t>(bad), scatter, check_first, check_first};
    if (check_first) launch_over<index_entry<V, I>>(c, count, p);
    p.check_only = 0;
    launch_over<index_entry<V, I>>(c, count, p);
    const index_t first_bad = read_back(c, data_of<index_t>(bad), 1)[0];
    if (first_bad < count) {
      const I value = read_back(c, index + first_bad, 1)[0];
      keep_until_done(c, std::move(keep));
      throw_bad_index(name, index_argument, first_bad, value, extent);
    }
  }
};

/// Array `a` (argument `argument`) of the shape of `b` (rank and extents, as NumPy requires
/// of an `out` and of a boolean mask), else an argument_error giving both.
template <class A, class B>
void require_same_shape(std::string_view name, int argument, const A &a, std::string_view whose, const B &b) {
  const auto sa = arg_of<std::remove_cvref_t<A>>::view(a).shape();
  const auto sb = arg_of<B>::view(b).shape();
  if (sa.size() == sb.size() && std::equal(sa.begin(), sa.end(), sb.begin())) return;
  throw argument_error(std::string(name), argument,
                       "has shape " + shape_string(sa.data(), static_cast<int>(sa.size())) + " but " +
                           std::string(whose) + " shape is " + shape_string(sb.data(), static_cast<int>(sb.size())));
}

/// Scalar `w` as an element of type V, refused where V cannot hold it (a NaN, an infinity
/// or a value out of an integer type's range), where NumPy's cast would give an arbitrary
/// value.
template <class V, class W> V scalar_as(std::string_view name, int argument, const W &w) {
  if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool> && std::is_arithmetic_v<W> &&
                !std::is_same_v<W, bool>) {
    bool fits;
    if constexpr (std::is_integral_v<W>)
      fits = std::in_range<V>(as_standard_integer(w));
    else // the value that truncation toward zero gives must fit (long double holds 64-bit ends)
      fits = static_cast<long double>(w) > static_cast<long double>(std::numeric_limits<V>::min()) - 1 &&
             static_cast<long double>(w) < static_cast<long double>(std::numeric_limits<V>::max()) + 1;
    if (!fits)
      throw argument_error(std::string(name), argument,
                           "is " + detail::number_text(w) + ", which the array's " +
                               std::string(dtype_name(dtype_of<V>)) + " elements cannot hold");
  }
  return static_cast<V>(w);
}

template <class I> constexpr bool require_indices() {
  constexpr bool integers = std::is_integral_v<I> && !std::is_same_v<I, bool>;
  static_assert(integers, "indices are integers");
  return integers;
}

/// Whether `a` and `indices` are arrays, the indices integers; errors where they are not.
template <class A, class I> constexpr bool require_indexing() {
  if constexpr (require_array<A>() & require_array<I>())
    return require_indices<element_of<I>>();
  else
    return false;
}

} // namespace detail

/// NumPy's take: the elements of `a` (flattened, row-major) at `indices` (negative ones count
/// from the end), in an array of the indices' shape; or into `out`.
class take_fn : public detail::indexing<take_fn> {
public:
  constexpr take_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "take"; }

  template <class A, class I> auto operator()(const A &a, const I &indices) const {
    if constexpr (detail::require_indexing<A, I>()) {
      using V = detail::element_of<A>;
      constexpr bool D = detail::is_device_arg<A> || detail::is_device_arg<I>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), a, indices);
      auto out = detail::make_result<V, detail::arg_of<I>::rank, D>(site, detail::shape_of(indices));
      run(site, a, indices, out, false);
      return out;
    } else {
      return detail::failed_call_result{};
    }
  }
  template <class A, class I, class Out> void operator()(const A &a, const I &indices, Out &&out) const {
    if constexpr (detail::require_indexing<A, I>() && detail::require_array<std::remove_cvref_t<Out>>()) {
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), a, indices, out);
      detail::require_lasting_output<Out>(name(), 3, this->placed_on());
      detail::require_same_shape(name(), 3, out, "the indices'", indices);
      run(site, a, indices, out, true);
    }
  }
  template <class A, class I>
    requires(detail::any_expression_arg<A, I>)
  auto operator()(const A &a, const I &indices) const {
    return (*this)(detail::evaluated(this->placed_on(), a), detail::evaluated(this->placed_on(), indices));
  }
  template <class A, class I, class Out>
    requires(detail::any_expression_arg<A, I>)
  void operator()(const A &a, const I &indices, Out &&out) const {
    (*this)(detail::evaluated(this->placed_on(), a), detail::evaluated(this->placed_on(), indices),
            std::forward<Out>(out));
  }

private:
  template <class A, class I, class Out>
  auto run(const detail::algorithm_site &site, const A &a, const I &indices, Out &out, bool into_callers) const {
    using V = detail::element_of<A>;
    using J = detail::element_of<I>;
    // A gather must not write where it reads (take(a, i, a) would read values it replaced).
    detail::require_apart(name(), 3, out, 1, a);
    detail::require_apart(name(), 3, out, 2, indices);
    detail::input_elements<V> src = detail::input_on<V>(site, name(), 1, a);
    detail::input_elements<J> idx = detail::input_on<J>(site, name(), 2, indices);
    detail::output_elements<V> dst = detail::output_elements<V>::make(site, name(), 3, out);
    if (src.size == 0 && idx.size > 0) throw argument_error(std::string(name()), 1, "is empty: no index is in range");
    if (site.on_device()) {
      std::vector<std::shared_ptr<void>> keep{src.keep, idx.keep};
      run_device(name(), 2, *site.call, src.data, dst.data, idx.data, idx.size, src.size, false, into_callers, keep);
      detail::keep_until_done(*site.call, std::move(keep));
    } else {
      check_indices_host(name(), 2, idx.data, idx.size, src.size, site.parallel());
      detail::maybe_parallel(site.parallel(), idx.size, detail::algorithm_grain, [&](index_t b, index_t e) {
        for (index_t i = b; i < e; ++i) dst.data[i] = src.data[detail::resolved_index(idx.data[i], src.size)];
      });
    }
    dst.deliver();
  }
};
inline constexpr take_fn take{};

/// NumPy's put: a.flat[indices[i]] = values[i] (values repeated where fewer than the indices,
/// or one scalar, which must fit a's element type).
/// Repeated indices leave one of their values. Nothing is written when an index is out of
/// range.
class put_fn : public detail::indexing<put_fn> {
public:
  constexpr put_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "put"; }

  template <class A, class I, class W> void operator()(A &&a, const I &indices, const W &values) const {
    // A as the caller gave it: a temporary on a stream is refused.
    if constexpr (detail::require_indexing<std::remove_cvref_t<A>, I>())
      if constexpr (values_fit<std::remove_cvref_t<A>, W>()) fitting<A>(a, indices, values);
  }
  template <class A, class I, class W>
    requires(detail::any_expression_arg<I, W>)
  void operator()(A &&a, const I &indices, const W &values) const {
    (*this)(std::forward<A>(a), detail::evaluated(this->placed_on(), indices),
            detail::evaluated(this->placed_on(), values));
  }

private:
  /// Values are an array or one value; values convert to the elements as NumPy's put casts
  /// them (a float into an integer array is truncated), but a complex value has no real one.
  template <class AA, class W> static constexpr bool values_fit() {
    using arg = detail::arg_of<W>;
    constexpr bool given = arg::supported;
    static_assert(given, "put's values are an array or a number");
    if constexpr (given) {
      using From = typename arg::element_type;
      using To = detail::element_of<AA>;
      constexpr bool complex_to_real =
          !std::is_same_v<From, detail::real_of_t<From>> && std::is_same_v<To, detail::real_of_t<To>>;
      static_assert(!complex_to_real, "put's values are complex but the array's elements are real: put their real "
                                      "parts (std::real), or into a complex array");
      return !complex_to_real;
    } else {
      return false;
    }
  }

  template <class A, class I, class W> auto fitting(A &a, const I &indices, const W &values) const {
    using AA = std::remove_cvref_t<A>;
    detail::require_lasting_output<A>(name(), 1, this->placed_on());
    using V = detail::element_of<AA>;
    using J = detail::element_of<I>;
    const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), a, indices, values);
    const index_t count = detail::arg_of<I>::view(indices).size();
    // The values and indices are read while `a` is written: apart from it.
    detail::require_apart(name(), 1, a, 2, indices);
    if constexpr (!detail::arg_of<W>::is_scalar) detail::require_apart(name(), 1, a, 3, values);
    detail::input_elements<V> vals;
    // An ndarray, not a std::vector, whose bool elements have no data().
    ndarray<V, 1> repeated;
    if constexpr (detail::arg_of<W>::is_scalar) {
      repeated = ndarray<V, 1>(ndarray<V, 1>::uninitialized, {count}, name(), 3);
      std::fill_n(repeated.data(), count, detail::scalar_as<V>(name(), 3, values));
      vals = site.on_device() ? detail::device_input<V>(name(), 3, *site.call, repeated)
                              : detail::host_input<V>(name(), 3, repeated);
    } else if (const index_t given = detail::arg_of<W>::view(values).size(); given != count) {
      // As NumPy, values fewer than the indices are repeated (more are cut short).
      if (given == 0 && count > 0) throw argument_error(std::string(name()), 3, "is empty: there is no value to put");
      ndarray<V, 1> once(ndarray<V, 1>::uninitialized, {given}, name(), 3);
      if constexpr (detail::is_device_arg<W>) {
        const detail::input_elements<V> d = detail::device_input<V>(name(), 3, *site.call, values);
        detail::read_back_to(*site.call, d.data, d.size, once.data());
      } else {
        const detail::input_elements<V> h = detail::host_input<V>(name(), 3, values);
        std::copy_n(h.data, h.size, once.data());
      }
      repeated = ndarray<V, 1>(ndarray<V, 1>::uninitialized, {count}, name(), 3);
      for (index_t i = 0; i < count; ++i) repeated(i) = once(i % given);
      vals = site.on_device() ? detail::device_input<V>(name(), 3, *site.call, repeated)
                              : detail::host_input<V>(name(), 3, repeated);
    } else {
      vals = detail::input_on<V>(site, name(), 3, values);
    }
    detail::input_elements<J> idx = detail::input_on<J>(site, name(), 2, indices);
    // The destination as it is (a host copy is gathered, updated and delivered back whole).
    detail::input_elements<V> current = detail::input_on<V>(site, name(), 1, a);
    detail::output_elements<V> dst = detail::output_elements<V>::make(site, name(), 1, a);
    const index_t extent = current.size;
    if (site.on_device()) {
      std::vector<std::shared_ptr<void>> keep{vals.keep, idx.keep, current.keep};
      if (dst.data != current.data) detail::copy_on_device(*site.call, dst.data, current.data, extent);
      run_device(name(), 2, *site.call, vals.data, dst.data, idx.data, count, extent, true, true, keep);
      detail::keep_until_done(*site.call, std::move(keep));
    } else {
      check_indices_host(name(), 2, idx.data, count, extent, site.parallel());
      if (dst.data != current.data) std::copy(current.data, current.data + extent, dst.data);
      for (index_t i = 0; i < count; ++i) dst.data[detail::resolved_index(idx.data[i], extent)] = vals.data[i];
    }
    dst.deliver();
  }
};
inline constexpr put_fn put{};

// ---------------------------------------------------------------------------------------
// Compaction

namespace detail {

/// Whether P is a predicate: a bool mask, or a ufunc (anything placed on a target, as a ufunc
/// is) returning bool arrays. A plain function or lambda has no target to run on.
template <class P>
inline constexpr bool is_predicate = (ufunc_arg<const P &>::supported && !ufunc_arg<const P &>::is_scalar) ||
                                     requires(const P &p, target t) { p.on(t); };
template <class P> constexpr bool require_predicate() {
  static_assert(is_predicate<P>, "a predicate is a kernel::ufunc (kernel::ufunc<f>{} of a [[kernel::vectorize]] "
                                 "function f returning bool) or a bool mask of the array's shape");
  return is_predicate<P>;
}
/// A call on the elements of `x` for which `pred` holds: errors where either is not what it
/// should be, for the call to guard the rest of its body with.
template <class X, class P> constexpr bool require_array_and_predicate() {
  return require_array<X>() & require_predicate<P>();
}

/// The flags (1 byte each) of a predicate over `x` where the call runs: a ufunc (or any
/// callable taking the array and returning a bool array) evaluated on the same site, or a
/// bool array of x's size given directly.
template <class X, class P>
input_elements<std::uint8_t> flags_of(const algorithm_site &site, std::string_view name, const X &x,
                                      const input_elements<element_of<X>> &xs, const P &pred) {
  using E = element_of<X>;
  if constexpr (ufunc_arg<const P &>::supported && !ufunc_arg<const P &>::is_scalar) {
    static_assert(std::is_same_v<element_of<P>, bool>, "a mask is an array of bool");
    require_same_shape(name, 2, pred, "the array's", x);
    input_elements<bool> m = input_on<bool>(site, name, 2, pred);
    return {reinterpret_cast<const std::uint8_t *>(m.data), m.size, m.keep};
  } else if constexpr (!is_predicate<P>) {
    return {}; // reported by the call (require_predicate): nothing more is compiled for it
  } else {
    // The predicate over the contiguous elements, where they are, into a bool array there.
    if (site.on_device()) {
      const device_call &c = *site.call;
      device_view<const E, 1> in(device(c.device), xs.data, {xs.size});
      device_array<bool, 1> mask({xs.size}, c.stream);
      if (site.where.chosen_stream) {
        const stream on(c.stream);
        pred.on(on)(in, mask);
      } else {
        pred.on(device(c.device))(in, mask);
      }
      std::shared_ptr<void> memory = mask.memory();
      return {reinterpret_cast<const std::uint8_t *>(memory.get()), xs.size, memory};
    } else {
      auto mask = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(xs.size));
      array_view<const E, 1> in(xs.data, {xs.size});
      array_view<bool, 1> out(reinterpret_cast<bool *>(mask->data()), {xs.size});
      pred.on(site.where.where)(in, out);
      return {mask->data(), xs.size, mask};
    }
  }
}

/// Where the flagged elements go, and how many are flagged, where the call runs: on the host
/// each element's position among the flagged (an exclusive scan of the flags); on a device
/// each tile's offset (compact_entry), `tiles` + 1 of them, the total last.
struct flag_positions {
  std::shared_ptr<void> memory;
  const index_t *positions = nullptr;
  index_t kept = 0, tiles = 0;
};

/// Whether a predicate's parameter of type Arg takes elements of type V: V itself, or a number
/// the ufunc would cast to Arg safely on the host (int16 to float32), so that every target
/// accepts the same calls.
template <class V, class Arg> constexpr bool predicate_takes() {
  if constexpr (std::is_same_v<V, Arg>)
    return true;
  else if constexpr (scalar<V> && scalar<Arg>)
    return can_cast_safely(dtype_of<V>, dtype_of<Arg>);
  else
    return false;
}

/// The loop of a kernel::ufunc<F...> that a call with one array of V selects: the first of one
/// parameter that takes a V (as predicate_takes), as the ufunc's type resolution chooses;
/// null where none does.
template <class V, auto F, auto... Rest> constexpr auto first_loop_taking() {
  constexpr bool takes = [] {
    using traits = function_traits<decltype(F)>;
    if constexpr (traits::arity == 1)
      return predicate_takes<V, std::remove_cvref_t<typename traits::template arg<0>>>();
    else
      return false;
  }();
  if constexpr (takes)
    return F;
  else if constexpr (sizeof...(Rest) > 0)
    return first_loop_taking<V, Rest...>();
  else
    return nullptr;
}
template <auto F> constexpr auto if_returning_bool() {
  if constexpr (std::is_same_v<typename function_traits<decltype(F)>::result_type, bool>)
    return F;
  else
    return nullptr;
}

/// The predicate function of `P` when the compaction can call it itself on a device: the loop
/// of a kernel::ufunc that one array of V selects (first_loop_taking), where it returns bool;
/// else null, and the predicate makes a mask first. So a ufunc of several loops takes any
/// element type one of them takes safely, as on the host, not only a loop's own.
template <class P, class V> constexpr auto fused_predicate = nullptr;
template <auto... F, class V>
  requires(!std::is_same_v<decltype(first_loop_taking<V, F...>()), std::nullptr_t>)
constexpr auto fused_predicate<ufunc<F...>, V> = if_returning_bool<first_loop_taking<V, F...>()>();

/// The flag positions of `n` elements on a device: flagged in `flags`, or, with a predicate,
/// where Pred(src[i]) holds.
template <class V, auto Pred = nullptr>
flag_positions positions_on_device(const device_call &c, const std::uint8_t *flags, const V *src, index_t n) {
  flag_positions f;
  constexpr index_t tile = compact_entry<V, Pred>::tile_size;
  f.tiles = (n + tile - 1) / tile;
  f.memory = device_temp<index_t>(c, f.tiles + 1);
  f.positions = data_of<index_t>(f.memory);
  if (n == 0) return f;
  compact_params<V> p{src, flags, n, f.tiles, data_of<index_t>(f.memory), nullptr, 0, compact_mode::count, nullptr};
  launch_tiles<compact_entry<V, Pred>>(c, f.tiles, p);
  const segment_layout l{1, f.tiles + 1, 1};
  scan_device<plus_op, index_t, index_t>(c, p.offsets, p.offsets, l, l, index_t{0}, true);
  f.kept = read_back(c, f.positions + f.tiles, 1)[0];
  return f;
}

inline flag_positions positions_of(const algorithm_site &site, const input_elements<std::uint8_t> &flags) {
  if (site.on_device()) return positions_on_device<std::uint8_t>(*site.call, flags.data, nullptr, flags.size);
  flag_positions f;
  const index_t n = flags.size;
  auto v = std::make_shared<std::vector<index_t>>(static_cast<std::size_t>(n));
  index_t run = 0;
  for (index_t i = 0; i < n; ++i) {
    (*v)[static_cast<std::size_t>(i)] = run;
    run += flags.data[i] != 0;
  }
  f.kept = run;
  f.positions = v->data();
  f.memory = v;
  return f;
}

/// Writes the flagged elements of `src` (or their positions, when src is null) in order to
/// `dst`, and with `rest_after` the others after them. On a device with `Pred`, Pred(src[i])
/// flags (as for positions_on_device).
template <class V, auto Pred = nullptr>
void compact(const algorithm_site &site, const V *src, const input_elements<std::uint8_t> &flags,
             const flag_positions &f, V *dst, bool rest_after) {
  // Without Pred the positions were counted over the flags' bytes (positions_of): in tiles of
  // the same size.
  static_assert(!std::is_same_v<decltype(Pred), std::nullptr_t> ||
                    compact_entry<V, Pred>::tile_size == compact_entry<std::uint8_t>::tile_size,
                "a compaction by flags is placed by the flags' own tiles");
  if (site.on_device()) {
    launch_tiles<compact_entry<V, Pred>>(*site.call, f.tiles,
                                         {src, flags.data, flags.size, f.tiles, const_cast<index_t *>(f.positions), dst,
                                          rest_after, compact_mode::scatter, nullptr});
    return;
  }
  for (index_t i = 0; i < flags.size; ++i) {
    const V v = src ? src[i] : static_cast<V>(i);
    if (flags.data[i])
      dst[f.positions[i]] = v;
    else if (rest_after)
      dst[f.kept + i - f.positions[i]] = v;
  }
}

/// The flagged elements of `src` on a device, in order, in new device memory with room for
/// all `n` (written in one pass: compact_mode::select), and how many they are; nothing when
/// the device has no room for n more elements (the caller then takes the two passes, which
/// need room for the kept ones only).
struct selected_elements {
  std::shared_ptr<void> memory;
  index_t kept = 0;
};
/// Writes the flagged elements of `src` in order to `dst`, device memory with room for all
/// `n`, in one pass (compact_mode::select), and returns how many they are, once the stream
/// is done. Only the places below that count are written.
template <class V, auto Pred = nullptr>
index_t select_on_device_into(const device_call &c, const V *src, const std::uint8_t *flags, index_t n, V *dst) {
  if (n == 0) return 0;
  constexpr index_t tile = compact_entry<V, Pred>::tile_size;
  const index_t tiles = (n + tile - 1) / tile;
  const std::shared_ptr<void> states = device_temp<std::uint64_t>(c, tiles + 1);
  std::uint64_t *words = data_of<std::uint64_t>(states);
  zero_on_device(c, words, tiles + 1);
  launch_tiles<compact_entry<V, Pred>>(c, tiles, {src, flags, n, tiles, nullptr, dst, 0, compact_mode::select, words});
  return static_cast<index_t>(read_back(c, words + tiles, 1)[0]); // the stream is done
}
template <class V, auto Pred = nullptr>
std::optional<selected_elements> select_on_device(const device_call &c, const V *src, const std::uint8_t *flags,
                                                  index_t n) {
  selected_elements r;
  if (n == 0) return r;
  try {
    r.memory = device_temp<V>(c, n);
  } catch (const cuda_error &e) {
    if (!e.out_of_memory()) throw;
    return std::nullopt;
  }
  r.kept = select_on_device_into<V, Pred>(c, src, flags, n, data_of<V>(r.memory));
  return r;
}

/// The result of select_on_device as a 1-D array: a device array keeps the memory when at
/// least half of it is used (so it holds at most twice its size), or when the device has no
/// room for a copy, else gets a copy of its own; a host array gets a copy.
template <class V, bool Device>
result_array<V, 1, Device> selected_result(const algorithm_site &site, index_t n, selected_elements &&s) {
  const device_call &c = *site.call;
  if constexpr (Device) {
    if (s.kept > 0 && 2 * s.kept >= n)
      return device_array<V>(adopt_memory_t{}, {s.kept}, std::move(s.memory), c.stream);
    // The elements are already selected: a device too full for a smaller copy keeps them
    // where they are rather than failing the call.
    try {
      auto out = make_result<V, 1, Device>(site, {s.kept});
      copy_on_device(c, out.data(), data_of<V>(s.memory), s.kept); // s.memory is freed after it, in order
      return out;
    } catch (const cuda_error &e) {
      if (!e.out_of_memory()) throw;
      return device_array<V>(adopt_memory_t{}, {s.kept}, std::move(s.memory), c.stream);
    }
  } else {
    auto out = make_result<V, 1, Device>(site, {s.kept});
    if (s.kept > 0) {
      device_copy(*c.device, out.data(), s.memory.get(), static_cast<std::size_t>(s.kept) * sizeof(V),
                  copy_direction::device_to_host, *c.stream);
      stream_synchronize(*c.stream);
    }
    return out;
  }
}

/// Selects predicate_positions' constructor that makes the flags alone.
struct flags_alone_t {};

/// The flags of `pred` over `xs` and where the flagged go, as flags_of and positions_of
/// make them, except that on a device a predicate that compact_entry can call itself
/// (fused_predicate) makes no flags: `flags` then has the size alone.
template <class X, class P> struct predicate_positions {
  input_elements<std::uint8_t> flags;
  flag_positions positions;
  static constexpr auto fused = fused_predicate<P, element_of<X>>;
  static constexpr bool is_fused = !std::is_same_v<decltype(fused), const std::nullptr_t>;

  predicate_positions(const algorithm_site &site, std::string_view name, const X &x,
                      const input_elements<element_of<X>> &xs, const P &pred)
      : predicate_positions(site, name, x, xs, pred, flags_alone_t{}) {
    count(site, xs);
  }
  /// The flags alone: then either select_on_device, or count and compact.
  predicate_positions(const algorithm_site &site, std::string_view name, const X &x,
                      const input_elements<element_of<X>> &xs, const P &pred, flags_alone_t) {
    if (is_fused && site.on_device())
      flags.size = xs.size;
    else
      flags = flags_of(site, name, x, xs, pred);
  }

  /// Where the flagged go.
  void count(const algorithm_site &site, const input_elements<element_of<X>> &xs) {
    if constexpr (is_fused)
      if (site.on_device()) {
        positions = positions_on_device<element_of<X>, fused>(*site.call, nullptr, xs.data, xs.size);
        return;
      }
    positions = positions_of(site, flags);
  }

  /// detail::select_on_device with this predicate (the call runs on a device).
  std::optional<selected_elements> select_on_device(const algorithm_site &site,
                                                    const input_elements<element_of<X>> &xs) const {
    if constexpr (is_fused)
      return detail::select_on_device<element_of<X>, fused>(*site.call, xs.data, nullptr, xs.size);
    else
      return detail::select_on_device<element_of<X>>(*site.call, xs.data, flags.data, xs.size);
  }

  /// detail::select_on_device_into with this predicate (the call runs on a device).
  index_t select_into(const algorithm_site &site, const input_elements<element_of<X>> &xs, element_of<X> *dst) const {
    if constexpr (is_fused)
      return detail::select_on_device_into<element_of<X>, fused>(*site.call, xs.data, nullptr, xs.size, dst);
    else
      return detail::select_on_device_into<element_of<X>>(*site.call, xs.data, flags.data, xs.size, dst);
  }

  /// compact() with this predicate, once counted.
  void compact(const algorithm_site &site, const element_of<X> *src, element_of<X> *dst, bool rest_after) const {
    if constexpr (is_fused)
      if (site.on_device()) return detail::compact<element_of<X>, fused>(site, src, flags, positions, dst, rest_after);
    detail::compact(site, src, flags, positions, dst, rest_after);
  }
};

/// The first `count` elements of `a`, a 1-D array whose memory `v` views, with its stride.
template <class A, class T> auto front_of(const A &a, const array_view<T, 1> &v, index_t count) {
  if constexpr (ufunc_arg<const A &>::is_device)
    return device_view<T, 1>(a.device(), v.data(), {count}, {v.stride(0)});
  else
    return array_view<T, 1>(v.data(), {count}, {v.stride(0)});
}

} // namespace detail

/// The elements of `x` (flattened, in order) for which `pred` holds: `pred` is a ufunc
/// returning bool (evaluated where the call runs), or a bool mask of x's shape. A 1-D array.
/// On a device the data are read once, into room for every element: a device-array result
/// keeps that memory when it fills at least half of it (at most twice its own size), else it
/// is copied to memory of its size. Where the device has no room for every element, it counts
/// first and then reads the data again into memory of the result's size.
class select_if_fn : public detail::placed<select_if_fn> {
public:
  constexpr select_if_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "select_if"; }
  template <class X, class P> auto operator()(const X &x, const P &pred) const {
    if constexpr (detail::require_array_and_predicate<X, P>()) {
      using V = detail::element_of<X>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x, pred);
      detail::input_elements<V> xs = detail::input_on<V>(site, name(), 1, x);
      detail::predicate_positions<X, P> f(site, name(), x, xs, pred, detail::flags_alone_t{});
      // On a device one pass over the data (the count is not needed first); the call waits for it.
      if (site.on_device())
        if (auto kept = f.select_on_device(site, xs))
          return detail::selected_result<V, detail::is_device_arg<X>>(site, xs.size, std::move(*kept));
      f.count(site, xs);
      auto out = detail::make_result<V, 1, detail::is_device_arg<X>>(site, {f.positions.kept});
      detail::output_elements<V> dst = detail::output_elements<V>::make(site, name(), 0, out);
      f.compact(site, xs.data, dst.data, false);
      if (site.on_device()) detail::keep_until_done(*site.call, {xs.keep, f.flags.keep, f.positions.memory});
      dst.deliver();
      return out;
    } else {
      return detail::failed_call_result{};
    }
  }
  /// The same into `out`, a 1-D array of x's elements (or a view of one), as CUB's
  /// DeviceSelect writes its caller's buffer: the kept elements go to its first places in
  /// order, the places after them are left as they were, and their count is returned. `out`
  /// needs room for the kept ones (else an argument_error, thrown before anything is written).
  /// A contiguous device array of x's element type on the call's device, with room for every
  /// element of `x`, is written in the one pass, with no count first and no array of the
  /// call's own for the result.
  template <class X, class P, class Out> index_t operator()(const X &x, const P &pred, Out &&out) const {
    if constexpr (detail::require_array_and_predicate<X, P>() & detail::require_array<std::remove_cvref_t<Out>>()) {
      using W = detail::ufunc_arg<std::remove_reference_t<Out> &>;
      static_assert(W::rank == 1, "select_if writes the kept elements to a 1-D array");
      static_assert(W::writable, "select_if writes the kept elements to a writable array");
      // After those errors the selection is not compiled further.
      if constexpr (W::rank == 1 && W::writable) return select_into(x, pred, std::forward<Out>(out));
    }
    return 0;
  }

private:
  template <class X, class P, class Out> index_t select_into(const X &x, const P &pred, Out &&out) const {
    using W = detail::ufunc_arg<std::remove_reference_t<Out> &>;
    using V = detail::element_of<X>;
    const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x, pred, out);
    detail::require_lasting_output<Out>(name(), 3, this->placed_on());
    detail::require_apart(name(), 3, out, 1, x);
    if constexpr (detail::ufunc_arg<const P &>::supported && !detail::ufunc_arg<const P &>::is_scalar)
      detail::require_apart(name(), 3, out, 2, pred); // a mask
    const auto view = W::view(out);                   // of host or device memory
    detail::input_elements<V> xs = detail::input_on<V>(site, name(), 1, x);
    detail::predicate_positions<X, P> f(site, name(), x, xs, pred, detail::flags_alone_t{});
    if constexpr (W::is_device && std::is_same_v<typename W::element_type, V>) {
      if (site.on_device() && &out.device().state() == site.call->device && view.size() >= xs.size &&
          (view.size() <= 1 || view.stride(0) == 1))
        return f.select_into(site, xs, view.data()); // the stream is done: nothing to hold
    }
    f.count(site, xs);
    const index_t kept = f.positions.kept;
    if (kept > view.size())
      throw argument_error(std::string(name()), 3,
                           "has room for " + std::to_string(view.size()) + " elements but " + std::to_string(kept) +
                               " are selected");
    auto front = detail::front_of(out, view, kept);
    detail::output_elements<V> dst = detail::output_elements<V>::make(site, name(), 3, front);
    f.compact(site, xs.data, dst.data, false);
    // `front` views out's memory without owning it: a device array's is held here, as
    // output_elements holds an array it is given (it may be freed in another stream's order).
    if (site.on_device())
      detail::keep_until_done(*site.call,
                              {xs.keep, f.flags.keep, f.positions.memory, detail::owned_device_memory(out)});
    dst.deliver();
    return kept;
  }

public:
  template <class X, class P>
    requires(detail::any_expression_arg<X, P>)
  auto operator()(const X &x, const P &pred) const {
    return (*this)(detail::evaluated(this->placed_on(), x), detail::evaluated(this->placed_on(), pred));
  }
  template <class X, class P, class Out>
    requires(detail::any_expression_arg<X, P>)
  index_t operator()(const X &x, const P &pred, Out &&out) const {
    return (*this)(detail::evaluated(this->placed_on(), x), detail::evaluated(this->placed_on(), pred),
                   std::forward<Out>(out));
  }
};
inline constexpr select_if_fn select_if{};

/// How many elements of `x` satisfy `pred` (a ufunc returning bool, or a bool mask).
class count_if_fn : public detail::placed<count_if_fn> {
public:
  constexpr count_if_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "count_if"; }
  template <class X, class P> index_t operator()(const X &x, const P &pred) const {
    if constexpr (detail::require_array_and_predicate<X, P>()) {
      using V = detail::element_of<X>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x, pred);
      detail::input_elements<V> xs = detail::input_on<V>(site, name(), 1, x);
      const detail::predicate_positions<X, P> f(site, name(), x, xs, pred);
      if (site.on_device()) detail::keep_until_done(*site.call, {xs.keep, f.flags.keep, f.positions.memory});
      return f.positions.kept;
    } else {
      return 0;
    }
  }
  template <class X, class P>
    requires(detail::any_expression_arg<X, P>)
  index_t operator()(const X &x, const P &pred) const {
    return (*this)(detail::evaluated(this->placed_on(), x), detail::evaluated(this->placed_on(), pred));
  }
};
inline constexpr count_if_fn count_if{};

/// The elements of `x` (flattened) for which `pred` holds, in order, then the others, in
/// order; and how many hold.
template <class Values> struct partition_result {
  Values values;
  index_t count;
};

class stable_partition_fn : public detail::placed<stable_partition_fn> {
public:
  constexpr stable_partition_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "stable_partition"; }
  template <class X, class P> auto operator()(const X &x, const P &pred) const {
    if constexpr (detail::require_array_and_predicate<X, P>()) {
      using V = detail::element_of<X>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x, pred);
      detail::input_elements<V> xs = detail::input_on<V>(site, name(), 1, x);
      const detail::predicate_positions<X, P> f(site, name(), x, xs, pred);
      partition_result<detail::result_array<V, 1, detail::is_device_arg<X>>> r{
          detail::make_result<V, 1, detail::is_device_arg<X>>(site, {xs.size}), f.positions.kept};
      detail::output_elements<V> dst = detail::output_elements<V>::make(site, name(), 0, r.values);
      f.compact(site, xs.data, dst.data, true);
      if (site.on_device()) detail::keep_until_done(*site.call, {xs.keep, f.flags.keep, f.positions.memory});
      dst.deliver();
      return r;
    } else {
      return detail::failed_call_result{};
    }
  }
  template <class X, class P>
    requires(detail::any_expression_arg<X, P>)
  auto operator()(const X &x, const P &pred) const {
    return (*this)(detail::evaluated(this->placed_on(), x), detail::evaluated(this->placed_on(), pred));
  }
};
inline constexpr stable_partition_fn stable_partition{};

/// Runs of equal consecutive elements: each run's value and length.
template <class Values, class Counts> struct runs_result {
  Values values;
  Counts counts;
};

namespace detail {

template <class Derived> class run_finding : public sorting<Derived> {
protected:
  /// The flags of the heads of the runs of the same value (same_value) among the `n`
  /// values at `values`, where the call runs.
  template <class V>
  static input_elements<std::uint8_t> run_heads(const algorithm_site &site, const V *values, index_t n) {
    input_elements<std::uint8_t> flags;
    flags.size = n;
    if (site.on_device()) {
      flags.keep = device_temp<std::uint8_t>(*site.call, n);
      flags.data = data_of<std::uint8_t>(flags.keep);
      launch_over<run_heads_entry<V>>(*site.call, n, {values, data_of<std::uint8_t>(flags.keep), n});
    } else {
      auto v = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(n));
      for (index_t i = 0; i < n; ++i)
        (*v)[static_cast<std::size_t>(i)] = i == 0 || !same_value(values[i], values[i - 1]);
      flags.data = v->data();
      flags.keep = v;
    }
    return flags;
  }
};

} // namespace detail

/// The sorted distinct values of `x` (flattened), as NumPy's unique: -0.0 and +0.0 are one
/// value, and so are all NaNs (last).
class unique_fn : public detail::run_finding<unique_fn> {
public:
  constexpr unique_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "unique"; }
  template <class X> auto operator()(const X &x) const {
    // After those errors, nothing more is instantiated for such arguments.
    if constexpr (detail::require_sortable_array<X>()) {
      using V = detail::element_of<X>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x);
      detail::input_elements<V> xs = detail::input_on<V>(site, name(), 1, x);
      const index_t n = xs.size;
      const detail::segment_layout l{1, n, 1};
      std::vector<std::shared_ptr<void>> keep{xs.keep};
      // The sorted values, then the heads of their runs of equal keys.
      std::shared_ptr<void> sorted;
      const V *sorted_data = nullptr;
      if (site.on_device()) {
        sorted = detail::device_temp<V>(*site.call, n);
        sorted_data = detail::data_of<V>(sorted);
        // Sorted as sort sorts, on the host as here (-0.0 before +0.0, NaNs by their bits): each
        // run's first value, which unique gives, is then the same on every target.
        detail::sorted_outputs<V> o;
        o.values = detail::data_of<V>(sorted);
        o.values_layout = l;
        detail::sort_device<V>(name(), *site.call, xs.data, l, detail::key_order::ascending, false, false, o, keep);
      } else {
        std::shared_ptr<V[]> v = detail::host_copy(xs.data, n);
        detail::sorted_outputs<V> o;
        o.values = v.get();
        o.values_layout = l;
        detail::sort_host<V>(v.get(), l, detail::key_order::ascending, false, o, n, nullptr, site.parallel());
        sorted_data = v.get();
        sorted = v;
      }
      const detail::input_elements<std::uint8_t> heads = this->run_heads(site, sorted_data, n);
      if (site.on_device()) // one pass, as select_if (the call waits for it)
        if (auto kept = detail::select_on_device<V>(*site.call, sorted_data, heads.data, n))
          return detail::selected_result<V, detail::is_device_arg<X>>(site, n, std::move(*kept));
      const detail::flag_positions f = detail::positions_of(site, heads);
      auto out = detail::make_result<V, 1, detail::is_device_arg<X>>(site, {f.kept});
      detail::output_elements<V> dst = detail::output_elements<V>::make(site, name(), 0, out);
      detail::compact(site, sorted_data, heads, f, dst.data, false);
      if (site.on_device()) {
        keep.insert(keep.end(), {sorted, heads.keep, f.memory});
        detail::keep_until_done(*site.call, std::move(keep));
      }
      dst.deliver();
      return out;
    } else {
      return detail::failed_call_result{};
    }
  }
  template <class N> auto operator()(const expr<N> &x) const {
    return (*this)(detail::evaluated(this->placed_on(), x));
  }
};
inline constexpr unique_fn unique{};

/// Run-length encoding of `x` (flattened): the value and length of each run of equal
/// consecutive elements (equal as in unique).
class run_length_encode_fn : public detail::run_finding<run_length_encode_fn> {
public:
  constexpr run_length_encode_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "run_length_encode"; }
  template <class X> auto operator()(const X &x) const {
    // After those errors, nothing more is instantiated for such arguments.
    if constexpr (detail::require_sortable_array<X>()) {
      using V = detail::element_of<X>;
      constexpr bool D = detail::is_device_arg<X>;
      const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x);
      detail::input_elements<V> xs = detail::input_on<V>(site, name(), 1, x);
      const index_t n = xs.size;
      const detail::segment_layout l{1, n, 1};
      std::vector<std::shared_ptr<void>> keep{xs.keep};
      const detail::input_elements<std::uint8_t> heads = this->run_heads(site, xs.data, n);
      const detail::flag_positions f = detail::positions_of(site, heads);
      runs_result<detail::result_array<V, 1, D>, detail::result_array<index_t, 1, D>> r{
          detail::make_result<V, 1, D>(site, {f.kept}), detail::make_result<index_t, 1, D>(site, {f.kept})};
      detail::output_elements<V> values = detail::output_elements<V>::make(site, name(), 0, r.values);
      detail::output_elements<index_t> counts = detail::output_elements<index_t>::make(site, name(), 0, r.counts);
      // The runs' first positions, then their lengths, then their values.
      if (site.on_device()) {
        const detail::device_call &c = *site.call;
        auto starts = detail::device_temp<index_t>(c, f.kept);
        detail::compact<index_t>(site, nullptr, heads, f, detail::data_of<index_t>(starts), false);
        detail::launch_over<detail::run_lengths_entry>(c, f.kept,
                                                       {detail::data_of<index_t>(starts), counts.data, f.kept, n});
        detail::launch_over<detail::permute_entry<V>>(
            c, f.kept,
            {xs.data, l, detail::data_of<index_t>(starts), 0, values.data, detail::segment_layout{1, f.kept, 1}});
        keep.insert(keep.end(), {heads.keep, f.memory, starts});
        detail::keep_until_done(c, std::move(keep));
      } else {
        std::vector<index_t> starts(static_cast<std::size_t>(f.kept));
        detail::compact<index_t>(site, nullptr, heads, f, starts.data(), false);
        for (index_t r_ = 0; r_ < f.kept; ++r_) {
          const index_t b = starts[static_cast<std::size_t>(r_)];
          counts.data[r_] = (r_ + 1 < f.kept ? starts[static_cast<std::size_t>(r_ + 1)] : n) - b;
          values.data[r_] = xs.data[b];
        }
      }
      values.deliver();
      counts.deliver();
      return r;
    } else {
      return detail::failed_call_result{};
    }
  }
  template <class N> auto operator()(const expr<N> &x) const {
    return (*this)(detail::evaluated(this->placed_on(), x));
  }
};
inline constexpr run_length_encode_fn run_length_encode{};

// ---------------------------------------------------------------------------------------
// Histograms

/// Counts (int64) of the elements of `x` in `bins` equal bins of [lo, hi], as NumPy's
/// histogram: the last bin includes hi; values outside the range and NaNs are not counted.
/// With an array of edges instead: the bins between consecutive edges (never decreasing;
/// fewer than two edges make none, an empty result). As NumPy, a range of one value
/// (lo == hi) is widened to [lo - 0.5, hi + 0.5].
namespace detail {
/// Edges given as an array or an expression, not as a count of bins.
template <class E>
concept histogram_edges = !std::is_arithmetic_v<E>;
} // namespace detail

class histogram_fn : public detail::placed<histogram_fn> {
public:
  constexpr histogram_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "histogram"; }

  template <class X, detail::integer_argument B> auto operator()(const X &x, B bin_count, double lo, double hi) const {
    if constexpr (detail::require_array<X>()) {
      index_t bins = detail::integer_value(name(), 2, bin_count, "bins =");
      if (bins < 1)
        throw argument_error(std::string(name()), 2,
                             "the number of bins must be positive, not " + std::to_string(bins));
      detail::checked_size(name(), 2, &bins, 1, sizeof(index_t)); // the counts must fit in memory
      const auto range = [&] { return "the range [" + detail::number_text(lo) + ", " + detail::number_text(hi) + "]"; };
      if (!std::isfinite(lo)) throw argument_error(std::string(name()), 3, range() + ": lo must be finite");
      if (!std::isfinite(hi)) throw argument_error(std::string(name()), 4, range() + ": hi must be finite");
      if (hi < lo) throw argument_error(std::string(name()), 4, range() + ": hi must not be below lo");
      if (lo == hi) { // as NumPy: a range of one value is widened to a unit around it
        lo -= 0.5;
        hi += 0.5;
        if (!(lo < hi)) // past 2^53, half a unit is below a double's step
          throw argument_error(std::string(name()), 4,
                               range() + ": a range of one value this large cannot be widened by 0.5: give two ends");
      }
      if (!std::isfinite(hi - lo)) // the bins' width and edges would be inf and NaN
        throw argument_error(std::string(name()), 4, range() + " is wider than a double can hold");
      return run<double>(x, static_cast<const std::nullptr_t *>(nullptr), bins, lo, hi);
    } else {
      return detail::failed_call_result{};
    }
  }

  template <class X, detail::histogram_edges E> auto operator()(const X &x, const E &edges) const {
    if constexpr (detail::require_array<X>() & detail::require_array<E>()) {
      using F = detail::element_of<E>;
      static_assert(std::is_arithmetic_v<F>, "histogram edges are numbers");
      static_assert(detail::arg_of<E>::rank == 1, "histogram edges are a one-dimensional array (as NumPy's bins)");
      if constexpr (std::is_arithmetic_v<F> && detail::arg_of<E>::rank == 1) {
        const auto ev = detail::arg_of<E>::view(edges);
        // As NumPy's: fewer than two edges make no bin, and an empty histogram.
        return run<F>(x, &edges, ev.size() > 1 ? ev.size() - 1 : 0, 0, 0);
      } else {
        return detail::failed_call_result{};
      }
    } else {
      return detail::failed_call_result{};
    }
  }

  template <class N, detail::integer_argument B> auto operator()(const expr<N> &x, B bins, double lo, double hi) const {
    return (*this)(detail::evaluated(this->placed_on(), x), bins, lo, hi);
  }
  template <class X, detail::histogram_edges E>
    requires(detail::any_expression_arg<X, E>)
  auto operator()(const X &x, const E &edges) const {
    return (*this)(detail::evaluated(this->placed_on(), x), detail::evaluated(this->placed_on(), edges));
  }

private:
  template <class F, class X, class E> auto run(const X &x, const E *edges, index_t bins, double lo, double hi) const {
    using V = detail::element_of<X>;
    static_assert(std::is_arithmetic_v<V>, "histograms count numbers");
    // After that error nothing more is instantiated for such elements (their conversions to
    // the edges' type gave three more).
    if constexpr (!std::is_arithmetic_v<V>)
      return detail::failed_call_result{};
    else
      return count<F, V>(x, edges, bins, lo, hi);
  }
  template <class F, class V, class X, class E>
  auto count(const X &x, const E *edges, index_t bins, double lo, double hi) const {
    detail::algorithm_site site;
    if constexpr (std::is_same_v<E, std::nullptr_t>)
      site = detail::site_of(name(), this->placed_on(), x);
    else
      site = detail::site_of(name(), this->placed_on(), x, *edges);
    detail::input_elements<V> xs = detail::input_on<V>(site, name(), 1, x);
    detail::input_elements<F> es;
    if constexpr (!std::is_same_v<E, std::nullptr_t>) {
      // The edges are checked on the host before anything is counted.
      std::vector<F> checked;
      if constexpr (detail::is_device_arg<E>) {
        es = detail::device_input<F>(name(), 2, *site.call, *edges);
        checked = detail::read_back(*site.call, es.data, es.size);
      } else {
        es = detail::host_input<F>(name(), 2, *edges);
        checked.assign(es.data, es.data + es.size);
        if (site.on_device()) es = detail::device_input<F>(name(), 2, *site.call, *edges);
      }
      // As NumPy, edges may repeat (a bin between equal ones counts nothing); NaN is refused.
      for (std::size_t i = 0; i < checked.size(); ++i)
        if (checked[i] != checked[i])
          throw argument_error(std::string(name()), 2, "edge " + std::to_string(i) + " is NaN");
      for (std::size_t i = 1; i < checked.size(); ++i)
        if (checked[i] < checked[i - 1])
          throw argument_error(std::string(name()), 2,
                               "edges must not decrease: edge " + std::to_string(i) + " is below the one before it");
    }
    auto counts = detail::make_result<index_t, 1, detail::is_device_arg<X>>(site, {bins});
    detail::output_elements<index_t> dst = detail::output_elements<index_t>::make(site, name(), 0, counts);
    if (bins == 0) {
      // No bin: nothing to count into (the edges were still checked).
    } else if (site.on_device()) {
      const detail::device_call &c = *site.call;
      detail::zero_on_device(c, dst.data, bins);
      detail::launch_over<detail::histogram_entry<V, F>>(c, xs.size,
                                                         {xs.data, xs.size, es.data, es.size, lo, hi, bins, dst.data});
      detail::keep_until_done(c, {xs.keep, es.keep});
    } else {
      std::fill(dst.data, dst.data + bins, index_t{0});
      detail::maybe_parallel(site.parallel(), xs.size, detail::algorithm_grain, [&](index_t b, index_t e) {
        const auto bin_of = [&](index_t i) {
          return es.data ? detail::edge_bin(xs.data[i], es.data, es.size) : detail::even_bin(xs.data[i], lo, hi, bins);
        };
        if (bins > e - b) {
          // More bins than elements: a share's own counts would cost more to make and add up
          // than counting in place.
          for (index_t i = b; i < e; ++i)
            if (const index_t k = bin_of(i); k >= 0)
              std::atomic_ref<index_t>(dst.data[k]).fetch_add(1, std::memory_order_relaxed);
          return;
        }
        std::vector<index_t> local(static_cast<std::size_t>(bins), 0);
        for (index_t i = b; i < e; ++i)
          if (const index_t k = bin_of(i); k >= 0) ++local[static_cast<std::size_t>(k)];
        // Atomic, as the shares that count in place are.
        for (index_t k = 0; k < bins; ++k)
          if (const index_t n = local[static_cast<std::size_t>(k)])
            std::atomic_ref<index_t>(dst.data[k]).fetch_add(n, std::memory_order_relaxed);
      });
    }
    dst.deliver();
    return counts;
  }
};
inline constexpr histogram_fn histogram{};

} // namespace kernel
