// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `bar` linked as a relocatable object (nvcc -dc): a call across the module boundary.
#include "bench/device_calls/call_bar.h"

KERNEL_BENCH_CALL_BAR(call_bar_object)
