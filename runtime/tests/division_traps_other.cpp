// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// division_traps_shared.h's function, a definition the linker prefers to the inline ones.
int shared_reciprocal(int b) { return 1 / b; }
