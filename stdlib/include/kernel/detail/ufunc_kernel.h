// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU side of a ufunc: the elementwise kernel the plugin instantiates for every
// `[[kernel::vectorize]]` function, and its parameter block.
//
// The kernel is ordinary C++. The plugin instantiates `ufunc_kernel<&f>` for each
// vectorized function `f` (and each signature of a template), the pass compiles it to PTX
// with `f` inlined, and the runtime launches it with one `ufunc_params` as its only
// parameter. On the host the same function is what the simulator runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernel/config.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/simulator_hooks.h"
#include "kernel/intrinsics.h"
#include "kernel/types.h"

namespace kernel::detail {

/// Most loop dimensions a GPU ufunc call may have after broadcasting and collapsing
/// (contiguous calls collapse to one).
inline constexpr int max_device_dims = 8;

/// Elements per thread per trip of a contiguous ufunc's loop.
inline constexpr int elementwise_unroll = 4;

/// One operand of a GPU ufunc launch.
template <class T> struct device_operand {
  T *data;                          // nullptr: a scalar, held in `value`
  index_t strides[max_device_dims]; // elements, per loop dimension
  std::remove_const_t<T> value;
};

/// The inputs of a launch, one `device_operand` each. A plain aggregate rather than a
/// std::tuple so that its layout is fixed by the C++ ABI: the host that fills it and the
/// kernel that reads it may come from different compilers.
template <class... T> struct operand_pack {};
template <class T, class... Rest> struct operand_pack<T, Rest...> {
  device_operand<const T> head;
  operand_pack<Rest...> tail;
};

template <std::size_t I, class Pack> KERNEL_ALWAYS_INLINE constexpr auto &get_operand(Pack &p) noexcept {
  if constexpr (I == 0)
    return p.head;
  else
    return get_operand<I - 1>(p.tail);
}

/// The parameter block of a ufunc kernel launch.
template <class R, class... A> struct ufunc_params {
  index_t size;                   // elements in the iteration space
  std::int32_t ndim;              // loop dimensions (innermost last)
  index_t shape[max_device_dims]; // extent of each loop dimension
  device_operand<R> out;
  operand_pack<A...> in;
};

template <class F> struct ufunc_params_of;
template <class F> struct ufunc_params_of<F const> : ufunc_params_of<F> {};
template <class R, class... A> struct ufunc_params_of<R (*)(A...)> {
  using type = ufunc_params<std::remove_cv_t<R>, std::remove_cvref_t<A>...>; // as function_traits
};
template <class R, class... A> struct ufunc_params_of<R (*)(A...) noexcept> : ufunc_params_of<R (*)(A...)> {};
template <auto F> using ufunc_params_for = typename ufunc_params_of<decltype(F)>::type;

// The kernel reads its parameter block only at constant offsets (no dynamic index, no
// pointer into it that outlives a load), so that the NVPTX backend keeps it in the
// parameter space and reads it with ld.param. Anything else makes the whole block go
// through a generic pointer, which costs every thread far more than the element it computes.

/// Dimension D of for_each_loop_coordinate: what is left of the flat index `i` unravelled.
template <int D, class Visit>
KERNEL_ALWAYS_INLINE void loop_coordinate(index_t &i, std::int32_t ndim, const index_t (&shape)[max_device_dims],
                                          Visit &visit) noexcept {
  if (D >= ndim) return;
  const index_t at = D == 0 ? i : i % shape[D]; // the outermost takes what is left
  i = D == 0 ? 0 : i / shape[D];
  visit(D, at);
}
template <class Visit, int... D>
KERNEL_ALWAYS_INLINE void loop_coordinates(index_t i, std::int32_t ndim, const index_t (&shape)[max_device_dims],
                                           Visit &visit, std::integer_sequence<int, D...>) noexcept {
  (loop_coordinate<max_device_dims - 1 - D>(i, ndim, shape, visit), ...);
}

/// Unravels the flat loop index `i` over the loop dimensions `shape[0, ndim)`, innermost
/// first, calling `visit(d, coordinate)` for each. Unrolled over the largest rank, so that
/// the caller's shapes and strides are read at constant offsets: by a fold over the
/// dimensions, not `#pragma unroll`, which the optimizer may decline (and warn, in the
/// user's build) when `visit` is large, as a fused expression of many operands makes it.
template <class Visit>
KERNEL_ALWAYS_INLINE void for_each_loop_coordinate(index_t i, std::int32_t ndim,
                                                   const index_t (&shape)[max_device_dims], Visit &&visit) noexcept {
  loop_coordinates(i, ndim, shape, visit, std::make_integer_sequence<int, max_device_dims>{});
}

// The operands' pointers and scalar values, read once into registers.
template <auto F, std::size_t... I> struct ufunc_operands {
  using params = ufunc_params_for<F>;
  decltype(params{}.out.data) out;
  std::tuple<decltype(get_operand<I>(std::declval<params &>().in).data)...> data;
  std::tuple<decltype(get_operand<I>(std::declval<params &>().in).value)...> value;

  KERNEL_ALWAYS_INLINE explicit ufunc_operands(const params &p) noexcept
      : out(p.out.data), data(get_operand<I>(p.in).data...), value(get_operand<I>(p.in).value...) {}

  /// Operand J's element at `offset`, or its scalar. Two values, not `data ? data[offset] :
  /// value`: that chooses between two addresses, which for a struct (std::complex) kept the
  /// scalar in local memory and made every load of the array a generic one.
  template <std::size_t J> KERNEL_ALWAYS_INLINE auto load(index_t offset) const noexcept {
    using V = std::remove_cvref_t<decltype(std::get<J>(value))>;
    if (const auto *d = std::get<J>(data)) return V(d[offset]);
    return V(std::get<J>(value));
  }
};

// True when the call is one contiguous run: every array operand (the output too) has unit
// stride over a single loop dimension. Uniform across the grid, so it costs one check.
// Written with `&`, not `&&`: every load is issued at once rather than one after the other
// (on ints: clang warns of `&` between bools with calls in them).
template <auto F, std::size_t... I>
KERNEL_ALWAYS_INLINE bool ufunc_is_contiguous(const ufunc_params_for<F> &p, std::index_sequence<I...>) noexcept {
  return (int{p.ndim <= 1} & int{p.out.strides[0] == 1} &
          ((int{!get_operand<I>(p.in).data} | int{get_operand<I>(p.in).strides[0] == 1}) & ... & 1)) != 0;
}

/// The elementwise kernel: a grid-stride loop over the iteration space.
template <auto F> void ufunc_kernel(const ufunc_params_for<F> &p) {
  constexpr std::size_t nin = function_traits<decltype(F)>::arity;
  [&]<std::size_t... I>(std::index_sequence<I...> in) {
    const ufunc_operands<F, I...> ops(p);
    const index_t n = p.size, step = gridsize<1>();
    if (ufunc_is_contiguous<F>(p, in)) {
      // The common case. Each thread takes elementwise_unroll elements a grid-stride apart
      // per trip: all their loads are in flight together before the first store.
      index_t i = grid<1>();
      // (The simulator is told each element before its loads, its call and its store: a
      // wild view faults in the first.)
      const auto row = [&](index_t at) {
        at_element(at, p.size);
        return std::make_tuple(ops.template load<I>(at)...);
      };
      for (; i + (elementwise_unroll - 1) * step < n; i += elementwise_unroll * step)
        [&]<std::size_t... U>(std::index_sequence<U...>) {
          const auto rows = std::make_tuple(row(i + index_t{U} * step)...);
          const auto call = [](const auto &...a) { return F(a...); }; // a direct call, not through a pointer
          ((at_element(i + index_t{U} * step, p.size),
            ops.out[i + index_t{U} * step] = std::apply(call, std::get<U>(rows))),
           ...);
        }(std::make_index_sequence<elementwise_unroll>{});
      for (; i < n; i += step) {
        at_element(i, p.size);
        ops.out[i] = F(ops.template load<I>(i)...);
      }
      return;
    }
    for (index_t i = grid<1>(); i < n; i += step) {
      index_t out_offset = 0;
      index_t in_offset[sizeof...(I) + 1] = {};
      for_each_loop_coordinate(i, p.ndim, p.shape, [&](int d, index_t at) {
        out_offset += at * p.out.strides[d];
        ((in_offset[I] += at * get_operand<I>(p.in).strides[d]), ...);
      });
      at_element(i, p.size);
      ops.out[out_offset] = F(ops.template load<I>(in_offset[I])...);
    }
  }(std::make_index_sequence<nin>{});
}

} // namespace kernel::detail
