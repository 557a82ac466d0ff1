; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; DeviceCodeAnalysis reads a host module's llvm.global.annotations and, once
; ExtractDeviceModule has replaced them, the device module's kernel.device_code: the same
; entries, device functions and declared functions either way.
; RUN: opt -load-pass-plugin=%plugin -passes='print<kernel-device-code>' %s -disable-output 2>&1 \
; RUN:   | FileCheck %s
; RUN: opt -load-pass-plugin=%plugin '-passes=kernel-extract-device-module,print<kernel-device-code>' \
; RUN:     %s -disable-output 2>&1 | FileCheck %s

; CHECK: entry _Z1bRK6Params ufunc 'b' 'float64(float64)' params 40 align 8
; CHECK-NEXT: entry _Z1cRK6Params jit 'c' 'void(float32[:])' params 16 align 16
; CHECK-NEXT: device _Z3devf
; CHECK-NEXT: external _Z4cbarii c 'int cbar(int, int)'
; CHECK-NEXT: external _Z4nbarii numba 'int nbar(int, int)'
; CHECK-NOT: {{.}}

target triple = "x86_64-pc-linux-gnu"

@.str.c = private unnamed_addr constant [52 x i8] c"kernel.entry\1Fjit\1Fc\1Fvoid(float32[:])\1Fc.cpp:9\1FA\1F16\1F16\00", section "llvm.metadata"
@.str.b = private unnamed_addr constant [53 x i8] c"kernel.entry\1Fufunc\1Fb\1Ffloat64(float64)\1Fb.cpp:2\1FA\1F40\1F8\00", section "llvm.metadata"
@.str.dev = private unnamed_addr constant [41 x i8] c"kernel.device\1Ffloat32(float32)\1Fdev.cpp:1\00", section "llvm.metadata"
@.str.vec = private unnamed_addr constant [42 x i8] c"kernel.vectorize\1Ffloat64(float64)\1Fb.cpp:1\00", section "llvm.metadata"
@.str.n = private unnamed_addr constant [54 x i8] c"kernel.declare_device\1Fnumba\1Fint nbar(int, int)\1Fn.cu:1\00", section "llvm.metadata"
@.str.cc = private unnamed_addr constant [50 x i8] c"kernel.declare_device\1Fc\1Fint cbar(int, int)\1Fc.cu:1\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [6 x i8] c"x.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [6 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z1cRK6Params, ptr @.str.c, ptr @.str.file, i32 9, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z4nbarii, ptr @.str.n, ptr @.str.file, i32 1, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z1bRK6Params, ptr @.str.b, ptr @.str.file, i32 2, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z3devf, ptr @.str.dev, ptr @.str.file, i32 1, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z1bd, ptr @.str.vec, ptr @.str.file, i32 1, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z4cbarii, ptr @.str.cc, ptr @.str.file, i32 1, ptr null }
], section "llvm.metadata"

define void @_Z1bRK6Params(ptr %p) {
  ret void
}

define void @_Z1cRK6Params(ptr %p) {
  %n = call i32 @_Z4nbarii(i32 1, i32 2)
  %c = call i32 @_Z4cbarii(i32 1, i32 2)
  ret void
}

define float @_Z3devf(float %x) {
  ret float %x
}

define double @_Z1bd(double %x) {
  ret double %x
}

declare i32 @_Z4nbarii(i32, i32)
declare i32 @_Z4cbarii(i32, i32)
