; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; Each entry's descriptor gets the stack its simulated threads need at least: its largest
; local plus what the functions it calls on every path need; a tail call needs the larger of
; the two; calls on some paths, recursion and callees another definition may replace are
; left out; with an instrumented copy, the smaller of the copy's and the original's.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-simulator-stack %s -S | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%entry = type { ptr, ptr, ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32, i32 }

; CHECK: @__kernel.0123.entries = private constant [4 x %entry] [
; CHECK-SAME: %entry { ptr @tail, ptr @tail.kernel_sim, ptr null, ptr null, ptr null, ptr null, ptr null, i32 2, i32 8, i32 8, i32 5000, i32 0, i32 0 },
; CHECK-SAME: %entry { ptr @no_return, ptr null, ptr null, ptr null, ptr null, ptr null, ptr null, i32 2, i32 8, i32 8, i32 16, i32 0, i32 0 },
; CHECK-SAME: %entry { ptr @replaceable, ptr null, ptr null, ptr null, ptr null, ptr null, ptr null, i32 2, i32 8, i32 8, i32 64, i32 0, i32 0 },
; CHECK-SAME: %entry { ptr @recursive, ptr null, ptr null, ptr null, ptr null, ptr null, ptr null, i32 2, i32 8, i32 8, i32 2032, i32 0, i32 0 }]
@__kernel.0123.entries = private constant [4 x %entry] [
  %entry { ptr @tail, ptr @tail.kernel_sim, ptr null, ptr null, ptr null, ptr null, ptr null, i32 2, i32 8, i32 8, i32 0, i32 0, i32 0 },
  %entry { ptr @no_return, ptr null, ptr null, ptr null, ptr null, ptr null, ptr null, i32 2, i32 8, i32 8, i32 0, i32 0, i32 0 },
  %entry { ptr @replaceable, ptr null, ptr null, ptr null, ptr null, ptr null, ptr null, i32 2, i32 8, i32 8, i32 0, i32 0, i32 0 },
  %entry { ptr @recursive, ptr null, ptr null, ptr null, ptr null, ptr null, ptr null, i32 2, i32 8, i32 8, i32 0, i32 0, i32 0 }]

declare void @use(ptr)

define void @needs_5000() {
  %a = alloca [5000 x i8]
  call void @use(ptr %a)
  ret void
}

; 1000 bytes, then a tail call: its frame may replace this one, so 5000.
define void @tail() {
  %a = alloca [1000 x i8]
  call void @use(ptr %a)
  tail call void @needs_5000()
  ret void
}

; The copy needs 8000 bytes and 5000 more; the original (a launch of one thread) less.
define internal void @tail.kernel_sim() {
  %a = alloca [8000 x i8]
  call void @use(ptr %a)
  call void @needs_5000()
  ret void
}

; Its only return is unreachable: the entry block alone runs on every path, not the call.
define void @no_return(i1 %c) {
entry:
  %a = alloca [16 x i8]
  call void @use(ptr %a)
  br i1 %c, label %some, label %spin
some:
  call void @needs_5000()
  br label %spin
spin:
  br label %spin
dead:
  call void @needs_5000()
  ret void
}

; Another definition of a weak function may be the one that runs.
define weak void @weak_big() {
  %a = alloca [100000 x i8]
  call void @use(ptr %a)
  ret void
}

define void @replaceable() {
  %a = alloca [64 x i8]
  call void @use(ptr %a)
  call void @weak_big()
  ret void
}

; Recursion is cut: 32 bytes and the 2000 of the function it calls (which calls it back).
define void @recursive() {
  %a = alloca [32 x i8]
  call void @use(ptr %a)
  call void @needs_2000()
  ret void
}

define void @needs_2000() {
  %a = alloca [2000 x i8]
  call void @use(ptr %a)
  call void @recursive()
  ret void
}
