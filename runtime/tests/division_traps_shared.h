// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An inline function that another translation unit defines too (division_traps_other.cpp,
// built without the plugin and with the optimiser, which makes its 1 / b a compare and
// select), where the linker takes that unit's copy: as it may for any inline function, and
// always here, where the other copy is not inline and is linked in.
#pragma once

[[gnu::noinline]] inline int shared_reciprocal(int b) { return 1 / b; }
