; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; The offload pass's device pipeline on a host module (as the offload pass runs it on a copy
; of the module), and the same passes run one by one by name: each finds what it needs in
; the module it is given, so both give the same GPU module.
; RUN: opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -passes=kernel-device-pipeline \
; RUN:     %s -S | FileCheck %s --implicit-check-not=host_ --implicit-check-not=@printf \
; RUN:         --implicit-check-not=@expf --implicit-check-not=@__kernel_tid_x
; RUN: opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice \
; RUN:     -passes=kernel-extract-device-module,kernel-retarget-nvptx,kernel-link-device-runtime,kernel-lower-intrinsics,kernel-lower-printf,kernel-map-math,kernel-link-libdevice,kernel-create-entries,kernel-lower-numba-calls,kernel-verify-device \
; RUN:     %s -S | FileCheck %s --implicit-check-not=host_ --implicit-check-not=@printf \
; RUN:         --implicit-check-not=@expf --implicit-check-not=@__kernel_tid_x

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.fmt = private unnamed_addr constant [4 x i8] c"%f\0A\00"
@.str.entry = private unnamed_addr constant [56 x i8] c"kernel.entry\1Fjit\1Fkernel\1Fvoid(float32[:])\1Fk.cpp:3\1FA\1F16\1F8\00", section "llvm.metadata"
@.str.declare = private unnamed_addr constant [54 x i8] c"kernel.declare_device\1Fnumba\1Fint nbar(int, int)\1Fn.cu:1\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [6 x i8] c"k.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z6kernelRK6Params, ptr @.str.entry, ptr @.str.file, i32 3, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z4nbarii, ptr @.str.declare, ptr @.str.file, i32 1, ptr null }
], section "llvm.metadata"

; CHECK: target triple = "nvptx64-nvidia-cuda"
; CHECK: @__kernel_device_status = addrspace(1) global i64 0, align 8

; CHECK: define internal void @_Z6kernelRK6Params.body(ptr noundef %params) #[[BODY:[0-9]+]] {
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK: call float @__nv_expf(float
; CHECK: call i32 @vprintf(ptr @.fmt, ptr
; CHECK: call i32 @_Z4nbarii(ptr %numba.result, i32
define dso_local void @_Z6kernelRK6Params(ptr noundef %params) #0 {
  %tid = call i32 @__kernel_tid_x()
  %x = uitofp i32 %tid to float
  %y = call float @expf(float %x)
  %d = fpext float %y to double
  %p = call i32 (ptr, ...) @printf(ptr @.fmt, double %d)
  %n = call i32 @_Z4nbarii(i32 %tid, i32 1)
  store float %y, ptr %params
  ret void
}

; CHECK: declare i32 @vprintf(ptr, ptr)
; CHECK-LABEL: define internal float @__nv_expf(

; CHECK-LABEL: define ptx_kernel void @_Z6kernelRK6Params(ptr noalias byval([16 x i8]) align 8 %params)
; CHECK-NEXT: entry:
; CHECK-NEXT: call void @_Z6kernelRK6Params.body(ptr %params)

; CHECK-DAG: declare i32 @_Z4nbarii(ptr, i32, i32)
; CHECK-DAG: attributes #[[BODY]] = { alwaysinline mustprogress }
; CHECK-DAG: !{i32 4, !"nvvm-reflect-ftz", i32 0}
; CHECK-DAG: !{ptr @_Z6kernelRK6Params, !"grid_constant", !{{[0-9]+}}}

define dso_local i32 @host_main() #0 {
  call void @_Z6kernelRK6Params(ptr null)
  %r = call i32 @puts(ptr @.fmt)
  ret i32 0
}

declare i32 @__kernel_tid_x()
declare float @expf(float)
declare i32 @printf(ptr, ...)
declare i32 @puts(ptr)
declare i32 @_Z4nbarii(i32, i32)

; -O0's attributes.
attributes #0 = { mustprogress noinline optnone uwtable "frame-pointer"="all" "target-cpu"="x86-64" }
