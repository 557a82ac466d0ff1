// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An inline function that another translation unit defines too (division_traps_other.cpp,
// built without the plugin and with the optimiser, which makes its 1 / b a compare and
// select), where the linker takes that unit's copy: as it may for any inline function, and
// always here, where the other copy is not inline and is linked in.
#pragma once

[[gnu::noinline]] inline int shared_reciprocal(int b) { return 1 / b; }

// An inline function template whose instantiation for int is declared extern here and defined
// in the other unit: with optimisation, clang emits its body here only for inlining (which
// the GPU code needs too), and the program's calls go to the other unit's.
template <class T> inline T extern_reciprocal(T b) { return T(1) / b; }
extern template int extern_reciprocal<int>(int);
