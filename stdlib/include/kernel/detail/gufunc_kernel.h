// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A generalized ufunc's loop: the parameter block that describes every operand (a pointer,
// its strides over the loop dimensions and the shape and strides of its core), the call of
// the user's function for one loop index, and the GPU entry the plugin instantiates for
// every `[[kernel::guvectorize]]` function. The CPU targets run the same per-index call.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernel/array.h"
#include "kernel/config.h"
#include "kernel/detail/gufunc_layout.h"
#include "kernel/detail/ufunc_kernel.h"
#include "kernel/intrinsics.h"

namespace kernel::detail {

/// One operand of a gufunc loop, for the function parameter of type P.
template <class P> struct gu_operand {
  using traits = gu_param<P>;
  static constexpr std::size_t core = static_cast<std::size_t>(traits::core_rank);
  typename traits::pointer data;         // nullptr: a scalar input, held in `value`
  index_t loop_strides[max_device_dims]; // elements, per loop dimension
  std::array<index_t, core> core_shape;
  std::array<index_t, core> core_strides;
  typename traits::element value;
};

template <class... P> struct gu_pack {};
template <class P, class... Rest> struct gu_pack<P, Rest...> {
  gu_operand<P> head;
  gu_pack<Rest...> tail;
};

template <std::size_t I, class Pack> KERNEL_ALWAYS_INLINE constexpr auto &get_gu_operand(Pack &p) noexcept {
  if constexpr (I == 0)
    return p.head;
  else
    return get_gu_operand<I - 1>(p.tail);
}

template <class... P> struct gufunc_params {
  index_t size;                   // loop iterations
  std::int32_t ndim;              // loop dimensions
  index_t shape[max_device_dims]; // extent of each loop dimension
  gu_pack<P...> ops;
};

template <class F> struct gufunc_params_of;
template <class F> struct gufunc_params_of<F const> : gufunc_params_of<F> {};
template <class... P> struct gufunc_params_of<void (*)(P...)> {
  using type = gufunc_params<P...>;
  static constexpr std::size_t arity = sizeof...(P);
};
template <class... P> struct gufunc_params_of<void (*)(P...) noexcept> : gufunc_params_of<void (*)(P...)> {};
template <auto F> using gufunc_params_for = typename gufunc_params_of<decltype(F)>::type;

// The argument for parameter P at loop offset `off`; `value` is the operand's scalar, read
// from the parameter block once, before the loop, so that no pointer into the block is
// formed (see ufunc_kernel.h).
template <class P>
KERNEL_ALWAYS_INLINE decltype(auto) gu_argument(const gu_operand<P> &op, index_t off,
                                                const typename gu_param<P>::element &value) noexcept {
  using traits = gu_param<P>;
  if constexpr (traits::core_rank > 0) {
    using T = std::remove_pointer_t<typename traits::pointer>;
    return array_view<T, gu_operand<P>::core>(op.data + off, op.core_shape, op.core_strides);
  } else if constexpr (traits::scalar_output) {
    return static_cast<P>(op.data[off]);
  } else {
    return op.data ? op.data[off] : value;
  }
}

template <auto F, std::size_t... K>
KERNEL_ALWAYS_INLINE auto gu_values(const gufunc_params_for<F> &p, std::index_sequence<K...>) noexcept {
  return std::make_tuple(get_gu_operand<K>(p.ops).value...);
}

template <auto F, class Values, std::size_t... K>
KERNEL_ALWAYS_INLINE void gufunc_call(const gufunc_params_for<F> &p, index_t i, const Values &values,
                                      std::index_sequence<K...>) {
  index_t off[sizeof...(K)] = {};
  for_each_loop_coordinate(
      i, p.ndim, p.shape, [&](int d, index_t at) { ((off[K] += at * get_gu_operand<K>(p.ops).loop_strides[d]), ...); });
  F(gu_argument(get_gu_operand<K>(p.ops), off[K], std::get<K>(values))...);
}

/// Loop iterations [begin, end) on the calling thread: the CPU targets' loop.
template <auto F> void gufunc_range(const gufunc_params_for<F> &p, index_t begin, index_t end) {
  constexpr auto seq = std::make_index_sequence<gufunc_params_of<decltype(F)>::arity>{};
  const auto values = gu_values<F>(p, seq);
  for (index_t i = begin; i < end; ++i) gufunc_call<F>(p, i, values, seq);
}

/// The GPU entry: a grid-stride loop over the loop iterations.
template <auto F> void gufunc_kernel(const gufunc_params_for<F> &p) {
  constexpr auto seq = std::make_index_sequence<gufunc_params_of<decltype(F)>::arity>{};
  const auto values = gu_values<F>(p, seq);
  const index_t step = gridsize<1>();
  for (index_t i = grid<1>(); i < p.size; i += step) {
    at_element(i, p.size);
    gufunc_call<F>(p, i, values, seq);
  }
}

} // namespace kernel::detail
