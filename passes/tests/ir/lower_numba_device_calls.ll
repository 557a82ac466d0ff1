; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; A call to a CUDA-C function in Numba's convention, declared in C++ as `float bar(int, int)`,
; becomes `int bar(float *result, int, int)`; a non-zero status is recorded, with the
; function's position + 1 among the declared functions, in the global the runtime reads.
; Functions in the C convention are left alone.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-lower-numba-calls %s -S | FileCheck %s

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK: @__kernel_device_status = addrspace(1) global i64 0, align 8

; CHECK-LABEL: define float @caller(
; CHECK-NEXT: %[[SLOT:numba.result]] = alloca float
; CHECK-NEXT: %[[STATUS:numba.status]] = call i32 @_Z3barii(ptr %[[SLOT]], i32 %a, i32 %b)
; CHECK-NEXT: %[[FAILED:.*]] = icmp ne i32 %[[STATUS]], 0
; CHECK-NEXT: br i1 %[[FAILED]], label %[[RECORD:.*]], label %[[DONE:.*]]
; CHECK: [[RECORD]]:
; CHECK-NEXT: %[[CODE:.*]] = zext i32 %[[STATUS]] to i64
; The second declared function: (1 + 1) << 32.
; CHECK-NEXT: %[[TAGGED:.*]] = or i64 8589934592, %[[CODE]]
; CHECK-NEXT: cmpxchg ptr addrspace(1) @__kernel_device_status, i64 0, i64 %[[TAGGED]] monotonic monotonic, align 8
; CHECK: [[DONE]]:
; CHECK-NEXT: %[[VALUE:.*]] = load float, ptr %[[SLOT]]
; CHECK-NEXT: %c = call i32 @_Z3bazi(i32 %a)
; CHECK-NEXT: %sum = fadd float %[[VALUE]], 1.000000e+00
define float @caller(i32 %a, i32 %b) {
  %r = call float @_Z3barii(i32 %a, i32 %b)
  %c = call i32 @_Z3bazi(i32 %a)
  %sum = fadd float %r, 1.0
  ret float %sum
}

; CHECK-DAG: declare i32 @_Z3bazi(i32)
; CHECK-DAG: declare i32 @_Z3barii(ptr, i32, i32)
declare float @_Z3barii(i32, i32)
declare i32 @_Z3bazi(i32)

!kernel.device_code = !{!0, !1}
!0 = !{!"_Z3bazi", !"kernel.declare_device\1Fc\1Fint baz(int)\1Fbaz.cu:1"}
!1 = !{!"_Z3barii", !"kernel.declare_device\1Fnumba\1Ffloat bar(int, int)\1Fbar.cu:1"}
