// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The kernel that calls the seed's CUDA-C `bar`, included by two translation units that link
// `bar` differently (a relocatable object, LTO-IR), so that each gets its own module.
#pragma once

#include <kernel/kernel.h>

extern "C" [[kernel::declare_device]] int bar(int a, int b);

// `calls` dependent calls per element: calls = 1 over 2^20 elements is a million calls.
#define KERNEL_BENCH_CALL_BAR(name)                                                                          \
  [[kernel::jit]] void name(kernel::array_view<const int> in, kernel::array_view<int> out, int calls) {      \
    const kernel::index_t i = kernel::grid<1>();                                                             \
    if (i >= in.size()) return;                                                                              \
    int v = in[i];                                                                                           \
    for (int c = 0; c < calls; ++c) v = bar(v, 2);                                                           \
    out[i] = v;                                                                                              \
  }
