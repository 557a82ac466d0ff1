; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; printf becomes the CUDA driver's vprintf(format, arguments), the arguments stored at their
; natural alignment in a buffer on the thread's stack.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-lower-printf %s -S \
; RUN:   | FileCheck %s --implicit-check-not=@printf

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@.fmt = private constant [10 x i8] c"%d %f %s\0A\00"
@.plain = private constant [4 x i8] c"hi\0A\00"
@.name = private constant [2 x i8] c"x\00"

; CHECK-LABEL: define i32 @report(
; CHECK-NEXT: %[[ARGS:.*]] = alloca { i32, double, ptr }, align 8
; CHECK: %[[A0:.*]] = getelementptr inbounds { i32, double, ptr }, ptr %[[ARGS]], i32 0, i32 0
; CHECK-NEXT: store i32 %n, ptr %[[A0]]
; CHECK-NEXT: %[[A1:.*]] = getelementptr inbounds { i32, double, ptr }, ptr %[[ARGS]], i32 0, i32 1
; CHECK-NEXT: store double %d, ptr %[[A1]]
; CHECK-NEXT: %[[A2:.*]] = getelementptr inbounds { i32, double, ptr }, ptr %[[ARGS]], i32 0, i32 2
; CHECK-NEXT: store ptr @.name, ptr %[[A2]]
; CHECK-NEXT: %[[R:.*]] = call i32 @vprintf(ptr @.fmt, ptr %[[ARGS]])
; CHECK-NEXT: call i32 @vprintf(ptr @.plain, ptr null)
; CHECK-NEXT: ret i32 %[[R]]
define i32 @report(i32 %n, float %x) {
  %d = fpext float %x to double
  %r = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %n, double %d, ptr @.name)
  call i32 (ptr, ...) @printf(ptr @.plain)
  ret i32 %r
}

; CHECK: declare i32 @vprintf(ptr, ptr)
declare i32 @printf(ptr, ...)
