// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one header users include.
//
//   [[kernel::vectorize("float32(float32, float32)")]]   elementwise function -> ufunc
//   [[kernel::jit]]                                      CUDA-style kernel
//   [[kernel::device]]                                   helper callable from both
//
// Compiled with the kernel plugin (tools/kernel-clang++, or the Bazel kernel_cc_* rules),
// annotated functions are checked and also compiled to PTX for the GPU. Compiled without it
// (any C++20 compiler), the same source builds and runs on the CPU targets.
#pragma once

#include "kernel/array.h"
#include "kernel/atomic.h"
#include "kernel/config.h"
#include "kernel/detail/jit_kernel.h"
#include "kernel/device.h"
#include "kernel/device_array.h"
#include "kernel/device_code.h"
#include "kernel/errors.h"
#include "kernel/fuse.h"
#include "kernel/gufunc.h"
#include "kernel/inspect.h"
#include "kernel/intrinsics.h"
#include "kernel/launch.h"
#include "kernel/memory.h"
#include "kernel/random.h"
#include "kernel/reduce.h"
#include "kernel/target.h"
#include "kernel/types.h"
#include "kernel/ufunc.h"
#include "kernel/version.h"
