; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; The whole offload pass on a host module: PTX for each architecture asked for, embedded in
; the __kernel_ptx section under the module's content hash, with the descriptor naming the
; entry by its host function and its simulator copy, the constructor that registers it and
; the destructor that unregisters it.
; The host code is unchanged.
; RUN: opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -kernel-arch=sm_75 \
; RUN:     -passes=kernel-offload %s -S | FileCheck %s --implicit-check-not=sm_90
;
; A host whose data layout puts the descriptors' fields elsewhere than the runtime's C
; header (here 32-bit pointers) gets an error, not descriptors the runtime would misread.
; RUN: sed 's/^target datalayout = .*/target datalayout = "e-m:e-p:32:32-i64:64-n8:16:32-S128"/' %s | \
; RUN:   not opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -passes=kernel-offload \
; RUN:   -disable-output 2>&1 | FileCheck %s --check-prefix=ABI
; ABI: error: kernel: GPU code cannot be embedded for the target 'x86_64-pc-linux-gnu': its data layout does not match the runtime's module ABI (kernel_image::ptx is at byte 4 in the host module but at byte 8 in kernel/detail/module_abi.h)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str.entry = private unnamed_addr constant [52 x i8] c"kernel.entry\1Fjit\1Ffill\1Fvoid(int32[:])\1Ffill.cpp:3\1F8\1F8\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [9 x i8] c"fill.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z4fillRK6Params, ptr @.str.entry, ptr @.str.file, i32 3, ptr null }
], section "llvm.metadata"

; CHECK: @__kernel.[[HASH:[0-9a-f]+]].arch.sm_75 = private unnamed_addr constant [6 x i8] c"sm_75\00"
; CHECK: @__kernel.[[HASH]].ptx.sm_75 = private unnamed_addr constant {{.*}} c"// kernel-module hash=[[HASH]] arch=sm_75\0A{{.*}}.target sm_75{{.*}}.visible .entry _Z4fillRK6Params({{.*}}\00", section "__kernel_ptx", align 1
; CHECK: @__kernel.[[HASH]].entry.0.name = private unnamed_addr constant [5 x i8] c"fill\00"
; CHECK: @__kernel.[[HASH]].module = private constant
; CHECK: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @__kernel.[[HASH]].register, ptr null }]
; CHECK: @llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @__kernel.[[HASH]].unregister, ptr null }]

; CHECK-LABEL: define void @_Z4fillRK6Params(ptr %params) {
; CHECK-NEXT: %tid = call i32 @__kernel_tid_x()
; CHECK-NEXT: %out = load ptr, ptr %params
; CHECK-NEXT: store i32 %tid, ptr %out
; CHECK-NEXT: ret void
define void @_Z4fillRK6Params(ptr %params) {
  %tid = call i32 @__kernel_tid_x()
  %out = load ptr, ptr %params
  store i32 %tid, ptr %out
  ret void
}

; CHECK-LABEL: define internal void @_Z4fillRK6Params.kernel_sim(
; CHECK: call void @__kernel_sim_access(

; CHECK: declare extern_weak void @__kernel_register_module(ptr)
; CHECK: define internal void @__kernel.[[HASH]].register() #{{[0-9]+}} {
; CHECK: call void @__kernel_register_module(ptr @__kernel.[[HASH]].module)
; CHECK: declare extern_weak void @__kernel_unregister_module(ptr)
; CHECK: define internal void @__kernel.[[HASH]].unregister() #{{[0-9]+}} {
; CHECK: call void @__kernel_unregister_module(ptr @__kernel.[[HASH]].module)

declare i32 @__kernel_tid_x()
