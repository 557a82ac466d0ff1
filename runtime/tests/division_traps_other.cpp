// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// division_traps_shared.h's functions: one the linker prefers to the inline ones, and the
// extern template's instantiation.
int shared_reciprocal(int b) { return 1 / b; }

template <class T> inline T extern_reciprocal(T b) { return T(1) / b; }
template int extern_reciprocal<int>(int);
