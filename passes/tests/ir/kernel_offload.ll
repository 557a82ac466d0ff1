; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; The whole offload pass on a host module: PTX for each architecture asked for, embedded in
; the __kernel_ptx section under the module's content hash, with the descriptor naming the
; entry by its host function, its simulator copy and the stack its threads need, the
; constructor that registers it and the destructor that unregisters it.
; RUN: opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -kernel-arch=sm_75 \
; RUN:     -passes=kernel-offload,kernel-simulator-stack %s -S | FileCheck %s --implicit-check-not=sm_90
;
; A host whose data layout puts the descriptors' fields elsewhere than the runtime's C
; header (here 32-bit pointers) gets an error, not descriptors the runtime would misread.
; RUN: sed 's/^target datalayout = .*/target datalayout = "e-m:e-p:32:32-i64:64-n8:16:32-S128"/' %s | \
; RUN:   not opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -passes=kernel-offload \
; RUN:   -disable-output 2>&1 | FileCheck %s --check-prefix=ABI
; ABI: error: kernel: GPU code cannot be embedded for the target 'x86_64-pc-linux-gnu': its data layout does not match the runtime's module ABI (kernel_image::ptx is at byte 4 in the host module but at byte 8 in kernel/detail/module_abi.h)

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str.entry = private unnamed_addr constant [54 x i8] c"kernel.entry\1Fjit\1Ffill\1Fvoid(int32[:])\1Ffill.cpp:3\1FA\1F8\1F8\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [9 x i8] c"fill.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z4fillRK6Params, ptr @.str.entry, ptr @.str.file, i32 3, ptr null }
], section "llvm.metadata"

; CHECK: @__kernel.[[HASH:[0-9a-f]+]].arch.sm_75 = private unnamed_addr constant [6 x i8] c"sm_75\00"
; CHECK: @__kernel.[[HASH]].ptx.sm_75 = private unnamed_addr constant {{.*}} c"// kernel-module hash=[[HASH]] arch=sm_75\0A{{.*}}.target sm_75{{.*}}.visible .entry _Z4fillRK6Params({{.*}}\00", section "__kernel_ptx", align 1
; CHECK: @__kernel.[[HASH]].entry.0.name = private unnamed_addr constant [5 x i8] c"fill\00"
; The entry's threads need its largest local (4000 bytes) and the 2400 bytes of the function
; it calls on every path, at least; not the megabyte of the one it calls on some paths.
; CHECK: @__kernel.[[HASH]].entries = private constant [1 x { ptr, ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32, i32 }] [{ ptr, ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32, i32 } { ptr @_Z4fillRK6Params, ptr @_Z4fillRK6Params.kernel_sim, ptr @__kernel.[[HASH]].entry.0.symbol, ptr @__kernel.[[HASH]].entry.0.name, ptr @__kernel.[[HASH]].entry.0.signature, ptr @__kernel.[[HASH]].entry.0.location, ptr @__kernel.[[HASH]].entry.0.orders, i32 2, i32 8, i32 8, i32 6400, i32 0, i32 0 }]
; CHECK: @__kernel.[[HASH]].module = private constant
; CHECK: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @__kernel.[[HASH]].register, ptr null }]
; CHECK: @llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @__kernel.[[HASH]].unregister, ptr null }]

; The host code is unchanged but for stack probes, which it shares with the simulator's copy.
; CHECK-LABEL: define void @_Z4fillRK6Params(ptr %params)
; CHECK-SAME: #[[PROBE:[0-9]+]] {
; CHECK-NEXT: entry:
; CHECK-NEXT: %scratch = alloca [1000 x i32]
; CHECK-NEXT: %small = alloca i32
; CHECK-NEXT: %tid = call i32 @__kernel_tid_x()
define void @_Z4fillRK6Params(ptr %params) {
entry:
  %scratch = alloca [1000 x i32]
  %small = alloca i32
  %tid = call i32 @__kernel_tid_x()
  %out = load ptr, ptr %params
  store i32 %tid, ptr %scratch
  store i32 %tid, ptr %small
  %v = load i32, ptr %scratch
  store i32 %v, ptr %out
  call void @_Z6alwaysPi(ptr %out)
  %odd = and i32 %tid, 1
  %rare = icmp ne i32 %odd, 0
  br i1 %rare, label %sometimes, label %done
sometimes:
  call void @_Z9sometimesPi(ptr %out)
  br label %done
done:
  ret void
}

define void @_Z6alwaysPi(ptr %out) {
  %a = alloca [300 x i64]
  store i32 1, ptr %a
  %v = load i32, ptr %a
  store i32 %v, ptr %out
  ret void
}

define void @_Z9sometimesPi(ptr %out) {
  %a = alloca [262144 x i32]
  store i32 1, ptr %a
  %v = load i32, ptr %a
  store i32 %v, ptr %out
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
; CHECK: attributes #[[PROBE]] = { "probe-stack"="inline-asm" }

declare i32 @__kernel_tid_x()
