; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; A Numba-convention CUDA-C function whose address GPU code takes (here passed to another
; function) cannot be given its result slot: an error naming it, not a crash erasing a
; function that is still used.
; RUN: not opt -load-pass-plugin=%plugin -passes=kernel-lower-numba-calls %s -disable-output 2>&1 \
; RUN:   | FileCheck %s
; CHECK: error: kernel: GPU code uses the address of the CUDA-C device function 'float bar(int, int)' (Numba convention, declared at bar.cu:1); such functions can only be called directly

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define float @caller(i32 %a, i32 %b) {
  %r = call float @_Z3barii(i32 %a, i32 %b)
  call void @_Z5applyPFfiiE(ptr @_Z3barii)
  ret float %r
}

declare float @_Z3barii(i32, i32)
declare void @_Z5applyPFfiiE(ptr)

!kernel.device_code = !{!0}
!0 = !{!"_Z3barii", !"kernel.declare_device\1Fnumba\1Ffloat bar(int, int)\1Fbar.cu:1"}
