// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU entries of fused expressions: one elementwise kernel per materialised program
// (any number of outputs) and one map-reduce kernel per reduction of an expression.
//
// Unlike the entries of annotated functions, these are instantiated by ordinary template
// instantiation where an expression is materialised; the plugin finds every instantiation of
// kernel::detail::fused_kernel and fused_reduce_kernel in the translation unit, checks it as
// GPU code and marks it as an entry, naming it by the `kernel_name` of its template argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernel/config.h"
#include "kernel/detail/fused_expr.h"
#include "kernel/detail/reduce_kernel.h"
#include "kernel/detail/sixteen_bytes.h"
#include "kernel/detail/ufunc_kernel.h"
#include "kernel/intrinsics.h"

namespace kernel::detail {

// The operands of a fused launch. A program's leaves are known at compile time to be arrays
// or scalars, so each takes only what it needs of the parameter block: an array its address
// and strides, a scalar its value (a chain with a scalar per node fits 500 scalars, not 50).

/// An array operand (an input of `const T`, or an output).
template <class T> struct strided_operand {
  T *data;
  index_t strides[max_device_dims]; // elements, per loop dimension
};
/// A scalar input, converted to the parameter type of the loop that consumes it.
template <class T> struct scalar_operand {
  T value;
};
template <class L>
using leaf_operand =
    std::conditional_t<L::is_scalar, scalar_operand<typename L::type>, strided_operand<const typename L::type>>;

/// The operands in one flat aggregate (indexed_slots: a recursive pack's accessors were
/// instantiated once per slot and depth, quadratic in the leaves of a deep expression).
template <class... Operand> using operands_of = indexed_slots<Operand...>;

template <class Traits, class Results = typename Traits::results, class Leaves = typename Traits::leaves>
struct fused_params_of;
template <class Traits, class... R, class... L> struct fused_params_of<Traits, std::tuple<R...>, std::tuple<L...>> {
  struct type {
    index_t size;                   // elements in the iteration space
    std::int32_t ndim;              // loop dimensions (innermost last)
    index_t shape[max_device_dims]; // extent of each loop dimension
    operands_of<strided_operand<R>...> out;
    operands_of<leaf_operand<L>...> in;
  };
};

/// A materialised program `P`: what fused_kernel is instantiated with.
template <class P> struct fused {
  using program = P;
  using traits = program_traits<P>;
  using params = typename fused_params_of<traits>::type;
  static constexpr auto kernel_name = to_text<&program_names<P>::expression>();
  static constexpr auto kernel_signature = to_text<&program_names<P>::signature>();
};

template <class Traits, std::size_t K>
constexpr bool leaf_is_scalar = std::tuple_element_t<K, typename Traits::leaves>::is_scalar;

/// What a kernel keeps of leaf L: an array's address, a scalar's value.
template <class L> using leaf_register = std::conditional_t<L::is_scalar, typename L::type, const typename L::type *>;
template <class L> KERNEL_ALWAYS_INLINE leaf_register<L> leaf_register_of(const leaf_operand<L> &op) noexcept {
  if constexpr (L::is_scalar)
    return op.value;
  else
    return op.data;
}

// The leaves' pointers and scalar values, read once from the parameter block; scalars are
// known to be scalars at compile time, so loading one is no load at all.
template <class Traits, class Params, std::size_t... K> struct fused_operands {
  template <std::size_t J> using leaf = std::tuple_element_t<J, typename Traits::leaves>;
  std::tuple<leaf_register<leaf<K>>...> registers;

  KERNEL_ALWAYS_INLINE explicit fused_operands(const Params &p) noexcept
      : registers(leaf_register_of<leaf<K>>(slot<K>(p.in))...) {}

  template <std::size_t J> KERNEL_ALWAYS_INLINE auto load(index_t at) const noexcept {
    if constexpr (leaf_is_scalar<Traits, J>)
      return std::get<J>(registers);
    else
      return std::get<J>(registers)[at];
  }
  KERNEL_ALWAYS_INLINE typename Traits::values row(index_t at) const noexcept {
    return typename Traits::values(load<K>(at)...);
  }
  KERNEL_ALWAYS_INLINE typename Traits::values row(const index_t *at) const noexcept {
    return typename Traits::values(load<K>(at[K])...);
  }
};

/// The stride of leaf K in loop dimension d: 0 for a scalar.
template <class Traits, std::size_t K, class Pack>
KERNEL_ALWAYS_INLINE index_t leaf_stride(const Pack &in, int d) noexcept {
  if constexpr (leaf_is_scalar<Traits, K>)
    return 0;
  else
    return slot<K>(in).strides[d];
}

template <class Traits, class Params, std::size_t... K>
KERNEL_ALWAYS_INLINE bool inputs_contiguous(const Params &p, std::index_sequence<K...>) noexcept {
  return ((int{leaf_is_scalar<Traits, K>} | int{leaf_stride<Traits, K>(p.in, 0) == 1}) & ... & 1) != 0;
}

/// The fused elementwise kernel: a grid-stride loop computing every output of the program.
template <class E> void fused_kernel(const typename E::params &p) {
  using traits = typename E::traits;
  using params = typename E::params;
  [&]<std::size_t... K, std::size_t... O>(std::index_sequence<K...> leaves, std::index_sequence<O...>) {
    const fused_operands<traits, params, K...> ops(p);
    const std::tuple<typename traits::template result<O> *...> out(slot<O>(p.out).data...);
    const index_t n = p.size, step = gridsize<1>();
    const auto store = [&](index_t at, const auto &results) { ((std::get<O>(out)[at] = std::get<O>(results)), ...); };
    const bool contiguous = (int{p.ndim <= 1} & (int{slot<O>(p.out).strides[0] == 1} & ...) &
                             int{inputs_contiguous<traits>(p, leaves)}) != 0;
    if (contiguous) {
      // As the ufunc kernel does: elementwise_unroll elements a grid-stride apart per trip,
      // all loaded before the first store.
      index_t i = grid<1>();
      for (; i + (elementwise_unroll - 1) * step < n; i += elementwise_unroll * step)
        [&]<std::size_t... U>(std::index_sequence<U...>) {
          // (The simulator is told each element before its loads, its evaluation and its
          // stores: a wild view faults in the first or the last.)
          const auto at = [&](index_t k) {
            at_element(k, p.size);
            return k;
          };
          const auto rows = std::make_tuple(ops.row(at(i + index_t{U} * step))...);
          const auto results = std::make_tuple((at(i + index_t{U} * step), traits::evaluate(std::get<U>(rows)))...);
          (store(at(i + index_t{U} * step), std::get<U>(results)), ...);
        }(std::make_index_sequence<elementwise_unroll>{});
      for (; i < n; i += step) {
        at_element(i, p.size);
        store(i, traits::evaluate(ops.row(i)));
      }
      return;
    }
    for (index_t i = grid<1>(); i < n; i += step) {
      index_t in_offset[sizeof...(K) + 1] = {};
      index_t out_offset[sizeof...(O)] = {};
      for_each_loop_coordinate(i, p.ndim, p.shape, [&](int d, index_t at) {
        ((in_offset[K] += at * leaf_stride<traits, K>(p.in, d)), ...);
        ((out_offset[O] += at * slot<O>(p.out).strides[d]), ...);
      });
      at_element(i, p.size);
      const auto results = traits::evaluate(ops.row(in_offset));
      ((std::get<O>(out)[out_offset[O]] = std::get<O>(results)), ...);
    }
  }(std::make_index_sequence<traits::nleaves>{}, std::make_index_sequence<traits::nout>{});
}

// ---------------------------------------------------------------------------------------
// Map-reduce

template <class T, class Traits, class Leaves = typename Traits::leaves> struct fused_reduce_params_of;
template <class T, class Traits, class... L> struct fused_reduce_params_of<T, Traits, std::tuple<L...>> {
  struct type {
    index_t size; // elements mapped, or partial values folded when `partials` is set
    std::int32_t ndim;
    index_t shape[max_device_dims];
    operands_of<leaf_operand<L>...> in;
    const T *partials; // the second pass: fold these instead of mapping
    T *out;            // one value per block
  };
};

/// The reduction with `F` of the single-output program `P`: fused_reduce_kernel's argument.
template <auto F, class P> struct fused_reduction {
  using program = P;
  using traits = program_traits<P>;
  using value_type = typename function_traits<decltype(F)>::result_type;
  using params = typename fused_reduce_params_of<value_type, traits>::type;
  static constexpr auto combine = F;
  static constexpr ctext name() {
    ctext s;
    s += "reduce<";
    s += function_name<F>();
    s += ">(";
    s += program_names<P>::expression();
    s += ")";
    return s;
  }
  static constexpr auto kernel_name = to_text<&fused_reduction::name>();
  static constexpr auto kernel_signature = to_text<&program_names<P>::signature>();
  static KERNEL_ALWAYS_INLINE value_type map(const typename traits::values &row) noexcept {
    return static_cast<value_type>(std::get<0>(traits::evaluate(row)));
  }
};

/// Each block writes the reduction of its share of the mapped elements (or of the partial
/// values) to p.out[blockIdx.x], combining as reduce_kernel does.
template <class E> void fused_reduce_kernel(const typename E::params &p) {
  using T = typename E::value_type;
  using traits = typename E::traits;
  constexpr auto F = E::combine;
  T acc{};
  bool have = false;
  const index_t n = p.size, step = gridsize<1>();
  if (p.partials) {
    reduce_range<F>(acc, have, grid<1>(), n, step, [&](index_t i) { return p.partials[i]; });
  } else {
    [&]<std::size_t... K>(std::index_sequence<K...> leaves) {
      const fused_operands<traits, typename E::params, K...> ops(p);
      const bool contiguous = (int{p.ndim <= 1} & int{inputs_contiguous<traits>(p, leaves)}) != 0;
      const auto mapped = [&](index_t i) {
        if (contiguous) return E::map(ops.row(i));
        index_t offset[sizeof...(K) + 1] = {};
        for_each_loop_coordinate(
            i, p.ndim, p.shape, [&](int d, index_t at) { ((offset[K] += at * leaf_stride<traits, K>(p.in, d)), ...); });
        return E::map(ops.row(offset));
      };
      // In reduce_kernel's order over the materialised array (new, so contiguous and aligned):
      // 16 bytes of values at a time where every thread has such a vector, then the rest one by
      // one. A fused reduction so gives the bits reducing the array gives on the same grid.
      constexpr int width = sixteen_bytes_of<T>;
      if constexpr (width > 1) {
        if (n / width >= static_cast<index_t>(step)) {
          const index_t whole = n / width;
          reduce_range<F>(acc, have, grid<1>(), whole, step, [&](index_t v) {
            T x = mapped(v * width);
            for (int u = 1; u < width; ++u) x = F(x, mapped(v * width + u));
            return x;
          });
          for (index_t i = whole * width + grid<1>(); i < n; i += step) reduce_combine<F>(acc, have, mapped(i), true);
          return;
        }
      }
      if (contiguous) {
        reduce_range<F>(acc, have, grid<1>(), n, step, mapped);
        return;
      }
      for (index_t i = grid<1>(); i < n; i += step) reduce_combine<F>(acc, have, mapped(i), true);
    }(std::make_index_sequence<traits::nleaves>{});
  }
  reduce_block<F>(acc, have, p.out);
}

} // namespace kernel::detail
