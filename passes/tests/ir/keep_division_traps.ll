; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; In the host code the GPU entries reach, each integer division that may trap (a divisor not
; known to be other than 0, or -1 for a signed one) takes its operands through an empty inline
; asm, so that the optimiser cannot turn it into code that does not trap: 1 / b stays a
; division, not a compare and select; a / -1 stays a division, not a negation. Divisions by
; other constants, of integers wider than 64 bits or of vectors, and of code no entry reaches
; are left alone.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-keep-division-traps %s -S | FileCheck %s
; RUN: opt -load-pass-plugin=%plugin -passes='kernel-keep-division-traps,default<O2>' %s -S \
; RUN:   | FileCheck %s --check-prefix=OPT

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str.entry = private unnamed_addr constant [51 x i8] c"kernel.entry\1Fufunc\1Frecip\1Fint32(int32)\1Fk.cpp:3\1F16\1F8\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [6 x i8] c"k.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @entry, ptr @.str.entry, ptr @.str.file, i32 3, ptr null }
], section "llvm.metadata"

define void @entry(ptr %p) {
  %b = load i32, ptr %p
  %r = call i32 @recip(i32 %b)
  store i32 %r, ptr %p
  ret void
}

; CHECK-LABEL: define i32 @recip(i32 %b)
; CHECK-NEXT: [[ONE:%.*]] = call i32 asm "", "=r,0"(i32 1)
; CHECK-NEXT: [[B:%.*]] = call i32 asm "", "=r,0"(i32 %b)
; CHECK-NEXT: %q = sdiv i32 [[ONE]], [[B]]
; CHECK: urem i8 {{%.*}}, {{%.*}}
; CHECK: call i64 asm "", "=r,0"(i64 -1)
; CHECK-NEXT: %neg = sdiv i64 {{%.*}}, {{%.*}}
; CHECK: %by7 = udiv i32 %b, 7
; CHECK: %wide = sdiv i128 %b128, %b128
; CHECK: %vec = sdiv <2 x i32> <i32 1, i32 1>, %bv
; OPT-LABEL: define {{.*}}i32 @recip(i32 %b)
; OPT: asm "", "=r,0"(i32 1)
; OPT: sdiv i32
; OPT-NOT: select i1
; OPT: ret i32
define i32 @recip(i32 %b) {
  %q = sdiv i32 1, %b
  %small = trunc i32 %b to i8
  %m = urem i8 %small, %small
  %m32 = zext i8 %m to i32
  %b64 = sext i32 %b to i64
  %neg = sdiv i64 %b64, -1
  %neg32 = trunc i64 %neg to i32
  %by7 = udiv i32 %b, 7
  %b128 = sext i32 %b to i128
  %wide = sdiv i128 %b128, %b128
  %wide32 = trunc i128 %wide to i32
  %bv = insertelement <2 x i32> zeroinitializer, i32 %b, i32 0
  %vec = sdiv <2 x i32> <i32 1, i32 1>, %bv
  %v0 = extractelement <2 x i32> %vec, i32 0
  %s1 = add i32 %q, %m32
  %s2 = add i32 %s1, %neg32
  %s3 = add i32 %s2, %by7
  %s4 = add i32 %s3, %wide32
  %s5 = add i32 %s4, %v0
  ret i32 %s5
}

; Host code no entry reaches keeps its divisions as C++ leaves them.
; CHECK-LABEL: define i32 @host_only(i32 %b)
; CHECK-NEXT: %q = sdiv i32 1, %b
define i32 @host_only(i32 %b) {
  %q = sdiv i32 1, %b
  ret i32 %q
}
