// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Compiler detection shared by every public header.
//
// The plugin defines __KERNEL_PLUGIN__ when it is loaded. Without it the `kernel::`
// attributes mean nothing to the compiler, and the same source must still build and run
// on the CPU targets, so the unknown-attribute warnings they cause are silenced here.
#pragma once

// One clear error instead of dozens from the first concept or requires-clause.
#if __cplusplus < 202002L
#error "the kernel headers need C++20: compile with -std=c++20 (or later)"
#endif

#if defined(__clang__)
#if !defined(__KERNEL_PLUGIN__)
#pragma clang diagnostic ignored "-Wunknown-attributes"
#endif
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored_attributes "kernel::"
#endif

// Pragmas and attributes only clang has: nothing under another compiler, which would warn of
// each in every build that includes the headers with -I (g++ -Wall, without the plugin).
#if defined(__clang__)
#define KERNEL_UNROLL _Pragma("unroll")
#define KERNEL_NO_FP_CONTRACT _Pragma("clang fp contract(off)")
#define KERNEL_NOMERGE [[clang::nomerge]]
#else
#define KERNEL_UNROLL
#define KERNEL_NO_FP_CONTRACT
#define KERNEL_NOMERGE
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KERNEL_ALWAYS_INLINE inline __attribute__((always_inline))
#define KERNEL_NOINLINE __attribute__((noinline))
#else
#define KERNEL_ALWAYS_INLINE inline
#define KERNEL_NOINLINE
#endif

namespace kernel {
/// True when this translation unit is compiled by the kernel plugin (GPU code is generated).
inline constexpr bool compiled_with_plugin =
#if defined(__KERNEL_PLUGIN__)
    true;
#else
    false;
#endif
} // namespace kernel
