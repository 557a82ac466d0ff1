; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; The kernel hooks become PTX special registers, barriers, shuffles, votes and shared
; variables; the simulator's bounds checks and element records disappear.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-lower-intrinsics %s -S \
; RUN:   | FileCheck %s --implicit-check-not=__kernel_

target triple = "nvptx64-nvidia-cuda"

@__kernel_simulating = external thread_local global i32
@site = internal constant i8 0
@.file = private constant [6 x i8] c"k.cpp\00"

; One shared variable per shared_array site, aligned to at least 16 bytes.
; CHECK: @__kernel_shared = internal addrspace(3) global [256 x i8] undef, align 16
; CHECK: @__kernel_dynamic_shared = external addrspace(3) global [0 x i8], align 16

; CHECK-LABEL: define i32 @index(
; CHECK: %[[CTAID:.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; CHECK: %[[NTID:.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK: %[[TID:.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK: %[[BASE:.*]] = mul i32 %[[CTAID]], %[[NTID]]
; CHECK: add i32 %[[BASE]], %[[TID]]
define i32 @index() {
  %b = call i32 @__kernel_ctaid_x()
  %n = call i32 @__kernel_ntid_x()
  %t = call i32 @__kernel_tid_x()
  %bn = mul i32 %b, %n
  %i = add i32 %bn, %t
  ret i32 %i
}

; CHECK-LABEL: define i32 @warp(
; CHECK: call void @llvm.nvvm.barrier0()
; CHECK: %[[PRED:.*]] = icmp ne i32 %p, 0
; CHECK: %[[PRED32:.*]] = zext i1 %[[PRED]] to i32
; CHECK: call i32 @llvm.nvvm.barrier0.popc(i32 %[[PRED32]])
; Width 16: segment mask (32 - 16) << 8 = 4096, maximum lane 31.
; CHECK: call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %v, i32 1, i32 4127)
; CHECK: call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1
; CHECK: call void @llvm.nvvm.membar.gl()
define i32 @warp(i32 %v, i32 %p) {
  call void @__kernel_syncthreads_at(ptr @.file, i32 3, i32 5)
  %count = call i32 @__kernel_syncthreads_count_at(i32 %p, ptr @.file, i32 4, i32 7)
  %down = call i32 @__kernel_shfl_down(i32 -1, i32 %v, i32 1, i32 16)
  %ballot = call i32 @__kernel_vote_ballot(i32 -1, i32 %p)
  call void @__kernel_threadfence()
  %s1 = add i32 %count, %down
  %s2 = add i32 %s1, %ballot
  ret i32 %s2
}

; CHECK-LABEL: define ptr @shared(
; CHECK: ret ptr addrspacecast (ptr addrspace(3) @__kernel_shared to ptr)
define ptr @shared() {
  %p = call ptr @__kernel_shared_static(ptr @site, i64 256, i64 4)
  ret ptr %p
}

; CHECK-LABEL: define ptr @dynamic_shared(
; CHECK: call i32 asm "mov.u32 $0, %dynamic_smem_size;", "=r"()
; CHECK: addrspacecast (ptr addrspace(3) @__kernel_dynamic_shared to ptr)
define ptr @dynamic_shared(ptr %out) {
  %bytes = call i32 @__kernel_shared_dynamic_bytes()
  store i32 %bytes, ptr %out
  %p = call ptr @__kernel_shared_dynamic()
  ret ptr %p
}

; The simulator's flag (thread-local on the host) is zero on the GPU, read directly or through
; llvm.threadlocal.address, and its check is never called.
; CHECK-LABEL: define i32 @flag_through_tls(
; CHECK-NEXT: ret i32 0
define i32 @flag_through_tls() {
  %p = call ptr @llvm.threadlocal.address.p0(ptr @__kernel_simulating)
  %v = load i32, ptr %p
  ret i32 %v
}
declare ptr @llvm.threadlocal.address.p0(ptr)


; CHECK-LABEL: define float @checked_load(
; CHECK-NEXT: %on = icmp ne i32 0, 0
define float @checked_load(ptr %data, ptr %shape, ptr %index) {
  %simulating = load i32, ptr @__kernel_simulating
  %on = icmp ne i32 %simulating, 0
  br i1 %on, label %check, label %load
check:
  call void @__kernel_check_index(ptr %data, i64 1, ptr %shape, ptr %index)
  br label %load
load:
  %v = load float, ptr %data
  ret float %v
}

; The element an elementwise loop is at, which only the simulator records, goes too.
; CHECK-LABEL: define void @elementwise_loop(
; CHECK-NEXT: entry:
; CHECK-NEXT: br label %loop
; CHECK: loop:
; CHECK-NEXT: %i = phi i64
; CHECK-NEXT: %on = icmp ne i32 0, 0
; CHECK-NEXT: br i1 %on, label %note, label %body
; CHECK: note:
; CHECK-NEXT: br label %body
define void @elementwise_loop(ptr %out, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %body ]
  %simulating = load i32, ptr @__kernel_simulating
  %on = icmp ne i32 %simulating, 0
  br i1 %on, label %note, label %body
note:
  call void @__kernel_at_element(i64 %i, i64 %n)
  br label %body
body:
  %p = getelementptr float, ptr %out, i64 %i
  store float 1.0, ptr %p
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

declare i32 @__kernel_ctaid_x()
declare i32 @__kernel_ntid_x()
declare i32 @__kernel_tid_x()
declare void @__kernel_syncthreads_at(ptr, i32, i32)
declare i32 @__kernel_syncthreads_count_at(i32, ptr, i32, i32)
declare i32 @__kernel_shfl_down(i32, i32, i32, i32)
declare i32 @__kernel_vote_ballot(i32, i32)
declare void @__kernel_threadfence()
declare ptr @__kernel_shared_static(ptr, i64, i64)
declare ptr @__kernel_shared_dynamic()
declare i32 @__kernel_shared_dynamic_bytes()
declare void @__kernel_check_index(ptr, i64, ptr, ptr)
declare void @__kernel_at_element(i64, i64)

; Warp matches (sm_70 and later) and the lanes below this one.
; CHECK-LABEL: define i32 @matches(
; CHECK: %[[LT:.*]] = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
; CHECK: call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %v)
; CHECK: call i32 @llvm.nvvm.match.any.sync.i64(i32 -1, i64 %w)
; CHECK: %[[ALL:.*]] = call { i32, i1 } @llvm.nvvm.match.all.sync.i32p(i32 %m, i32 %v)
; CHECK: %[[PRED:.*]] = extractvalue { i32, i1 } %[[ALL]], 1
; CHECK: %[[PRED32:.*]] = zext i1 %[[PRED]] to i32
; CHECK: store i32 %[[PRED32]], ptr %equal
; CHECK: extractvalue { i32, i1 } %[[ALL]], 0
; CHECK: call { i32, i1 } @llvm.nvvm.match.all.sync.i64p(i32 %m, i64 %w)
define i32 @matches(i32 %m, i32 %v, i64 %w, ptr %equal) {
  %lt = call i32 @__kernel_lanemask_lt()
  %a = call i32 @__kernel_match_any_32(i32 -1, i32 %v)
  %b = call i32 @__kernel_match_any_64(i32 -1, i64 %w)
  %c = call i32 @__kernel_match_all_32(i32 %m, i32 %v, ptr %equal)
  %d = call i32 @__kernel_match_all_64(i32 %m, i64 %w, ptr %equal)
  %s1 = add i32 %lt, %a
  %s2 = add i32 %s1, %b
  %s3 = add i32 %s2, %c
  %s4 = add i32 %s3, %d
  ret i32 %s4
}
declare i32 @__kernel_lanemask_lt()
declare i32 @__kernel_match_any_32(i32, i32)
declare i32 @__kernel_match_any_64(i32, i64)
declare i32 @__kernel_match_all_32(i32, i32, ptr)
declare i32 @__kernel_match_all_64(i32, i64, ptr)
