; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; The libdevice functions the module calls are linked from libdevice (only those), and
; NVVMReflect is told that denormals are kept, as nvcc does by default.
; RUN: opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -passes=kernel-link-libdevice \
; RUN:     %s -S | FileCheck %s --implicit-check-not=__nv_logf

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define float @f(float %x) {
  %y = call float @__nv_expf(float %x)
  ret float %y
}

; CHECK: define {{.*}}float @__nv_expf(float
declare float @__nv_expf(float)

; CHECK: !{i32 4, !"nvvm-reflect-ftz", i32 0}
