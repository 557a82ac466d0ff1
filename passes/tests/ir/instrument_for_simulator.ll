; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; For the simulator's race checks, each entry gets an instrumented copy of itself and what it
; calls: plain loads, stores and memcpy/memset report their address first, with the alignment
; a GPU's access needs there (the IR's, at most the size and 16; 1 for a copy of a length known
; only at run time); atomics report their address, size and whether they read, write or both
; (for their alignment, and the ordering a fence and an atomic make between blocks), and those
; that read report again after (where they acquire). The thread's own stack, the host's globals and the entry's parameters are not reported; the
; back-edges of loops that may wait for another thread give way to the block's other threads
; (__kernel_sim_yield); the original functions are not changed, but for stack probes (which
; the copies share), so that a frame larger than a simulated thread's guard faults in it.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-instrument-simulator %s -S | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str.entry = private unnamed_addr constant [54 x i8] c"kernel.entry\1Fjit\1Fkernel\1Fvoid(int64[:])\1Fk.cpp:3\1FA\1F16\1F8\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [6 x i8] c"k.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z6kernelRK6Params, ptr @.str.entry, ptr @.str.file, i32 3, ptr null }
], section "llvm.metadata"

; CHECK: @__kernel_sim_where = private unnamed_addr constant [8 x i8] c"k.cpp:5\00"

; The originals stay as they were.
; CHECK-LABEL: define void @_Z6kernelRK6Params(ptr %params)
; CHECK-SAME: #[[PROBE:[0-9]+]] {
; CHECK-NOT: __kernel_sim_access
; CHECK: ret void
define void @_Z6kernelRK6Params(ptr %params) {
  %local = alloca i64
  %data = load ptr, ptr %params
  %x = load i64, ptr %data, !dbg !8
  store i64 %x, ptr %local
  %old = atomicrmw add ptr %data, i64 1 monotonic
  call void @_Z6helperPl(ptr %data)
  call void @llvm.memcpy.p0.p0.i64(ptr %data, ptr %local, i64 8, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %data, ptr align 8 %local, i64 12, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %data, ptr %local, i64 %x, i1 false)
  %v = load <4 x float>, ptr %data, align 16
  %w = load <4 x float>, ptr %data, align 8
  %h = load i16, ptr %data, align 1
  %vol = load volatile i32, ptr %data, align 4
  store volatile i32 %vol, ptr %data, align 4
  %volv = load volatile <4 x float>, ptr %data, align 16
  call void @_Z4spinPi(ptr %data)
  call void @_Z3sumPl(ptr %data)
  ret void
}

; A loop that cannot wait for another thread (plain loads, no calls) does not give way.
define void @_Z3sumPl(ptr %p) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %at = getelementptr i64, ptr %p, i64 %i
  %v = load i64, ptr %at
  %next = add i64 %i, %v
  %done = icmp ugt i64 %next, 100
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; Spins until another thread sets the flag: the loop's latch gives way, once however many
; edges lead back. The global's load is not reported.
; CHECK-LABEL: define void @_Z4spinPi(ptr %flag)
; CHECK-SAME: #[[PROBE]] {
; CHECK-NOT: __kernel_sim_yield
; CHECK: ret void
@global_flag = global i32 0
define void @_Z4spinPi(ptr %flag) {
entry:
  br label %loop
loop:
  %v = load atomic i32, ptr %flag monotonic, align 4
  %g = load i32, ptr @global_flag
  %sum = add i32 %v, %g
  %done = icmp ne i32 %sum, 0
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; CHECK-LABEL: define void @_Z6helperPl(ptr %p)
; CHECK-SAME: #[[PROBE]] {
; CHECK-NEXT: store i64 0, ptr %p
define void @_Z6helperPl(ptr %p) {
  store i64 0, ptr %p
  ret void
}

; CHECK-LABEL: define internal void @_Z6kernelRK6Params.kernel_sim(ptr %0)
; CHECK-SAME: #[[PROBE]] {
; CHECK-NEXT: %local = alloca i64
; CHECK-NEXT: %data = load ptr, ptr %0
; CHECK-NEXT: call void @__kernel_sim_access(ptr %data, i64 8, i32 0, i32 8, ptr @__kernel_sim_where)
; CHECK-NEXT: %x = load i64, ptr %data
; CHECK-NEXT: store i64 %x, ptr %local
; CHECK-NEXT: call void @__kernel_sim_atomic_access(ptr %data, i32 8, i32 3, ptr null)
; CHECK-NEXT: %old = atomicrmw add ptr %data, i64 1 monotonic
; CHECK-NEXT: call void @__kernel_sim_atomic_done(ptr %data)
; CHECK-NEXT: call void @_Z6helperPl.kernel_sim(ptr %data)
; CHECK-NEXT: call void @__kernel_sim_access(ptr %data, i64 8, i32 1, i32 1, ptr null)
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %data, ptr %local, i64 8, i1 false)
; CHECK-NEXT: call void @__kernel_sim_access(ptr %data, i64 12, i32 1, i32 4, ptr null)
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr align 4 %data, ptr align 8 %local, i64 12, i1 false)
; CHECK-NEXT: call void @__kernel_sim_access(ptr %data, i64 %x, i32 1, i32 1, ptr null)
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr align 8 %data, ptr %local, i64 %x, i1 false)
; CHECK-NEXT: call void @__kernel_sim_access(ptr %data, i64 16, i32 0, i32 16, ptr null)
; CHECK-NEXT: %v = load <4 x float>, ptr %data, align 16
; CHECK-NEXT: call void @__kernel_sim_access(ptr %data, i64 16, i32 0, i32 8, ptr null)
; CHECK-NEXT: %w = load <4 x float>, ptr %data, align 8
; CHECK-NEXT: call void @__kernel_sim_access(ptr %data, i64 2, i32 0, i32 1, ptr null)
; CHECK-NEXT: %h = load i16, ptr %data, align 1
; A volatile word is a relaxed atomic on a GPU: reported as one (a load acquires), marked
; volatile (8), before which the other threads make theirs; a wider volatile access is plain
; accesses.
; CHECK-NEXT: call void @__kernel_sim_atomic_access(ptr %data, i32 4, i32 9, ptr null)
; CHECK-NEXT: %vol = load volatile i32, ptr %data, align 4
; CHECK-NEXT: call void @__kernel_sim_atomic_done(ptr %data)
; CHECK-NEXT: call void @__kernel_sim_atomic_access(ptr %data, i32 4, i32 10, ptr null)
; CHECK-NEXT: store volatile i32 %vol, ptr %data, align 4
; CHECK-NEXT: call void @__kernel_sim_access(ptr %data, i64 16, i32 0, i32 16, ptr null)
; CHECK-NEXT: %volv = load volatile <4 x float>, ptr %data, align 16

; CHECK-LABEL: define internal void @_Z3sumPl.kernel_sim(ptr %0)
; CHECK-SAME: #[[PROBE]] {
; CHECK: call void @__kernel_sim_access(ptr %at, i64 8, i32 0, i32 8, ptr null)
; CHECK-NOT: __kernel_sim_yield
; CHECK: ret void

; CHECK-LABEL: define internal void @_Z4spinPi.kernel_sim(ptr %0)
; CHECK-SAME: #[[PROBE]] {
; CHECK: loop:
; CHECK-NEXT: call void @__kernel_sim_atomic_access(ptr %0, i32 4, i32 1, ptr null)
; CHECK-NEXT: %v = load atomic i32, ptr %0 monotonic, align 4
; CHECK-NEXT: call void @__kernel_sim_atomic_done(ptr %0)
; CHECK-NEXT: %g = load i32, ptr @global_flag
; CHECK-NEXT: %sum = add i32 %v, %g
; CHECK-NEXT: %done = icmp ne i32 %sum, 0
; CHECK-NEXT: call void @__kernel_sim_yield()
; CHECK-NEXT: br i1 %done, label %exit, label %loop
; CHECK: exit:
; CHECK-NEXT: ret void

; CHECK-LABEL: define internal void @_Z6helperPl.kernel_sim(ptr %0)
; CHECK-SAME: #[[PROBE]] {
; CHECK-NEXT: call void @__kernel_sim_access(ptr %0, i64 8, i32 1, i32 8, ptr null)
; CHECK-NEXT: store i64 0, ptr %0

; CHECK: declare void @__kernel_sim_access(ptr, i64, i32, i32, ptr)
; CHECK: declare void @__kernel_sim_atomic_access(ptr, i32, i32, ptr)
; CHECK: declare void @__kernel_sim_atomic_done(ptr)
; CHECK: declare void @__kernel_sim_yield()
; CHECK: attributes #[[PROBE]] = { "probe-stack"="inline-asm" }
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "k.cpp", directory: "/tmp")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "kernel", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 5, column: 3, scope: !5)
