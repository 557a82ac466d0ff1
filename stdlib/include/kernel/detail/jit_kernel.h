// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU side of a `[[kernel::jit]]` kernel: the entry the plugin instantiates for it.
//
// A kernel's arguments travel as one parameter block laid out by the C++ ABI (this
// aggregate), not as one PTX parameter per C++ parameter: the host then never needs to know
// how the x86-64 calling convention would have split a struct, and the pass only has to
// wrap `jit_kernel<&f>` in a PTX entry with one byval parameter.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "kernel/config.h"

namespace kernel::detail {

/// The arguments of a launch, in parameter order.
template <class... T> struct arg_block {};
template <class T, class... Rest> struct arg_block<T, Rest...> {
  T head;
  arg_block<Rest...> tail;
};

template <std::size_t I, class Block> KERNEL_ALWAYS_INLINE constexpr auto &get_arg(Block &b) noexcept {
  if constexpr (I == 0)
    return b.head;
  else
    return get_arg<I - 1>(b.tail);
}

template <class F> struct jit_args_of;
template <class F> struct jit_args_of<F const> : jit_args_of<F> {};
template <class... A> struct jit_args_of<void (*)(A...)> {
  using type = arg_block<std::remove_cvref_t<A>...>;
  static constexpr std::size_t arity = sizeof...(A);
};
template <class... A> struct jit_args_of<void (*)(A...) noexcept> : jit_args_of<void (*)(A...)> {};
template <auto F> using jit_args_for = typename jit_args_of<decltype(F)>::type;

template <auto F, std::size_t... I>
KERNEL_ALWAYS_INLINE void jit_invoke(const jit_args_for<F> &args, std::index_sequence<I...>) {
  F(get_arg<I>(args)...);
}

/// The entry of kernel `F`: calls it with the arguments of the launch. Not noexcept: on the
/// simulator, host code the kernel calls (a host implementation of a CUDA-C function) may
/// throw, and the simulator reports that as the thread's failure.
template <auto F> void jit_kernel(const jit_args_for<F> &args) {
  jit_invoke<F>(args, std::make_index_sequence<jit_args_of<decltype(F)>::arity>{});
}

} // namespace kernel::detail
