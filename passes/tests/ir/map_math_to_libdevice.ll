; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; C math and LLVM's math intrinsics become libdevice's functions, or native instructions
; where PTX has them with the same IEEE semantics; what cannot be mapped is an error.
; RUN: split-file %s %t
; RUN: opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -passes=kernel-map-math \
; RUN:     %t/math.ll -S | FileCheck %s
; RUN: not opt -load-pass-plugin=%plugin -kernel-libdevice=%t/missing.bc -passes=kernel-map-math \
; RUN:     %t/math.ll -disable-output 2>&1 | FileCheck %s --check-prefix=NO-LIBDEVICE
; RUN: not opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -passes=kernel-map-math \
; RUN:     %t/wrong_type.ll -disable-output 2>&1 | FileCheck %s --check-prefix=WRONG-TYPE

; NO-LIBDEVICE: error: kernel: no GPU version of the math functions 'llvm.exp.f32', 'llvm.lround.i64.f32'{{.*}}; the GPU math functions come from libdevice, which was not found (looked for {{.*}}missing.bc): install the CUDA toolkit or pass -fplugin-arg-kernel-libdevice=PATH
; WRONG-TYPE: error: kernel: no GPU version of the math functions 'exp'{{$}}

;--- math.ll
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define float @single(
; CHECK-NEXT: call float @__nv_expf(float %x)
; CHECK-NEXT: call float @__nv_expf(float %x)
; CHECK-NEXT: call float @llvm.sqrt.f32(float %x)
; CHECK-NEXT: call float @llvm.floor.f32(float %x)
; CHECK-NEXT: call float @_Z4userf(float %x)
define float @single(float %x) {
  %a = call float @expf(float %x)
  %b = call float @llvm.exp.f32(float %x)
  %c = call float @sqrtf(float %x)
  %d = call float @floorf(float %x)
  %e = call float @_Z4userf(float %x)
  ret float %a
}

; CHECK-LABEL: define double @double(
; CHECK-NEXT: call double @__nv_hypot(double %x, double %y)
; CHECK-NEXT: call double @llvm.fabs.f64(double %x)
; CHECK-NEXT: call double @llvm.maxnum.f64(double %x, double %y)
define double @double(double %x, double %y) {
  %a = call double @hypot(double %x, double %y)
  %b = call double @fabs(double %x)
  %c = call double @fmax(double %x, double %y)
  ret double %a
}

; Rounding to a 64-bit integer: libdevice's llround and llrint, for intrinsics and libm names.
; CHECK-LABEL: define i64 @to_integers(
; CHECK-NEXT: call i64 @__nv_llroundf(float %x)
; CHECK-NEXT: call i64 @__nv_llround(double %y)
; CHECK-NEXT: call i64 @__nv_llrintf(float %x)
; CHECK-NEXT: call i64 @__nv_llrint(double %y)
; CHECK-NEXT: call i64 @__nv_llround(double %y)
; CHECK-NEXT: call i64 @__nv_llrintf(float %x)
define i64 @to_integers(float %x, double %y) {
  %a = call i64 @llvm.lround.i64.f32(float %x)
  %b = call i64 @llvm.llround.i64.f64(double %y)
  %c = call i64 @llvm.lrint.i64.f32(float %x)
  %d = call i64 @llvm.llrint.i64.f64(double %y)
  %e = call i64 @lround(double %y)
  %f = call i64 @lrintf(float %x)
  ret i64 %a
}

; CHECK-DAG: declare float @__nv_expf(float)
; CHECK-DAG: declare double @__nv_hypot(double, double)
declare float @expf(float)
declare float @llvm.exp.f32(float)
declare float @sqrtf(float)
declare float @floorf(float)
declare float @_Z4userf(float)
declare double @hypot(double, double)
declare double @fabs(double)
declare double @fmax(double, double)
declare i64 @llvm.lround.i64.f32(float)
declare i64 @llvm.llround.i64.f64(double)
declare i64 @llvm.lrint.i64.f32(float)
declare i64 @llvm.llrint.i64.f64(double)
declare i64 @lround(double)
declare i64 @lrintf(float)

;--- wrong_type.ll
target triple = "nvptx64-nvidia-cuda"

define float @f(float %x) {
  %y = call float @exp(float %x)
  ret float %y
}

declare float @exp(float)
