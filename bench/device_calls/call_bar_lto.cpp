// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `bar` linked as LTO-IR (nvcc -dlto): nvJitLink links with -lto.
#include "bench/device_calls/call_bar.h"

KERNEL_BENCH_CALL_BAR(call_bar_lto)
