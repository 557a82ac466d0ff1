// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host implementation of the library's fast_rsqrt, for the CPU targets.
#include <cmath>

extern "C" float fast_rsqrt(float x) { return 1.0f / std::sqrt(x); }
