; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; A declared CUDA-C function gets a weak host definition that reports, through the runtime,
; that it has no host implementation: its declaration, where it was declared and its
; convention; with C linkage (extern "C") where the declaration has it, as a host
; implementation must have it to replace the fallback. Functions the annotations do not
; declare are left alone.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-host-fallbacks %s -S | FileCheck %s

target triple = "x86_64-pc-linux-gnu"

@.str.declare = private unnamed_addr constant [58 x i8] c"kernel.declare_device\1Fnumba\1Ffloat bar(int, int)\1Fbar.cpp:4\00", section "llvm.metadata"
@.str.declare_c = private unnamed_addr constant [47 x i8] c"kernel.declare_device\1Fc\1Fint baz(int)\1Fbar.cpp:5\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [8 x i8] c"bar.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z3barii, ptr @.str.declare, ptr @.str.file, i32 4, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @baz, ptr @.str.declare_c, ptr @.str.file, i32 5, ptr null }
], section "llvm.metadata"

; CHECK-DAG: @kernel.host_fallback.signature = private unnamed_addr constant [20 x i8] c"float bar(int, int)\00"
; CHECK-DAG: @kernel.host_fallback.location = private unnamed_addr constant [10 x i8] c"bar.cpp:4\00"
; CHECK-DAG: @kernel.host_fallback.abi = private unnamed_addr constant [6 x i8] c"numba\00"

; CHECK-DAG: @kernel.host_fallback.signature.1 = private unnamed_addr constant [24 x i8] c"extern \22C\22 int baz(int)\00"

define float @_Z6callerv() {
  %r = call float @_Z3barii(i32 1, i32 2)
  %i = call i32 @baz(i32 1)
  ret float %r
}

; CHECK: define weak float @_Z3barii(i32 %0, i32 %1) #[[ATTRS:[0-9]+]] {
; CHECK-NEXT: entry:
; CHECK-NEXT: call void @__kernel_missing_host_function(ptr @kernel.host_fallback.signature, ptr @kernel.host_fallback.location, ptr @kernel.host_fallback.abi)
; CHECK-NEXT: unreachable
declare float @_Z3barii(i32, i32) nounwind

; CHECK: define weak i32 @baz(i32 %0)
; CHECK-NEXT: entry:
; CHECK-NEXT: call void @__kernel_missing_host_function(ptr @kernel.host_fallback.signature.1,
declare i32 @baz(i32)

; CHECK: declare void @_Z11not_devicev()
declare void @_Z11not_devicev()

; CHECK: declare void @__kernel_missing_host_function(ptr, ptr, ptr) #[[NORETURN:[0-9]+]]
; CHECK: attributes #[[ATTRS]] = { uwtable }
; CHECK: attributes #[[NORETURN]] = { noreturn }
