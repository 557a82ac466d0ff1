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
#include <type_traits>

#include "kernel/config.h"
#include "kernel/detail/function_traits.h"
#include "kernel/intrinsics.h"
#include "kernel/types.h"

namespace kernel::detail {

/// Most loop dimensions a GPU ufunc call may have after broadcasting and collapsing
/// (contiguous calls collapse to one).
inline constexpr int max_device_dims = 8;

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
  if constexpr (I == 0) return p.head;
  else return get_operand<I - 1>(p.tail);
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
  using type = ufunc_params<R, std::remove_cvref_t<A>...>;
};
template <class R, class... A>
struct ufunc_params_of<R (*)(A...) noexcept> : ufunc_params_of<R (*)(A...)> {};
template <auto F> using ufunc_params_for = typename ufunc_params_of<decltype(F)>::type;

template <class T> KERNEL_ALWAYS_INLINE T load_operand(const device_operand<const T> &op, index_t offset) noexcept {
  return op.data ? op.data[offset] : op.value;
}

template <auto F, std::size_t... I>
KERNEL_ALWAYS_INLINE void ufunc_element(const ufunc_params_for<F> &p, index_t i,
                                         std::index_sequence<I...>) noexcept {
  if (p.ndim <= 1) {
    p.out.data[i * p.out.strides[0]] =
        F(load_operand(get_operand<I>(p.in), i * get_operand<I>(p.in).strides[0])...);
    return;
  }
  // Unravel the flat index over the loop dimensions, innermost first.
  index_t out_offset = 0;
  index_t in_offset[sizeof...(I) + 1] = {};
  index_t rest = i;
  for (int d = p.ndim - 1; d >= 0; --d) {
    const index_t at = rest % p.shape[d];
    rest /= p.shape[d];
    out_offset += at * p.out.strides[d];
    ((in_offset[I] += at * get_operand<I>(p.in).strides[d]), ...);
  }
  p.out.data[out_offset] = F(load_operand(get_operand<I>(p.in), in_offset[I])...);
}

/// The elementwise kernel: a grid-stride loop over the iteration space.
template <auto F> void ufunc_kernel(const ufunc_params_for<F> &p) noexcept {
  constexpr std::size_t nin = function_traits<decltype(F)>::arity;
  const index_t step = gridsize<1>();
  for (index_t i = grid<1>(); i < p.size; i += step)
    ufunc_element<F>(p, i, std::make_index_sequence<nin>{});
}

} // namespace kernel::detail
