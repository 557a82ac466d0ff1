; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; In the host code the GPU entries reach, each integer division that may trap (a divisor not
; known to be other than 0, or -1 for a signed one) is preceded by a test that, where it
; would trap, makes a division the optimiser cannot see through (operands through an empty
; inline asm that touches no memory, result into one with side effects), then nothing more.
; Past the test the division is left as it was. So optimised, 1 / b still traps for b = 0
; (it is no longer a compare and select alone), a division whose result is unused still
; traps, and so does a / -1 for the most negative a. So for other widths than x86 divides in
; one instruction and for vectors (a lane that would trap is enough), where the trap is a
; 32-bit division by zero. Divisions by other constants (in every lane), and of code no entry
; reaches, are left alone. Calls through an alias are calls of the function it names.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-keep-division-traps %s -S | FileCheck %s
; RUN: opt -load-pass-plugin=%plugin -passes='kernel-keep-division-traps,default<O2>' %s -S \
; RUN:   | FileCheck %s --check-prefix=OPT

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

$inline_caller = comdat any
$ctor_base = comdat any
$inline_recip = comdat any

@.str.entry = private unnamed_addr constant [53 x i8] c"kernel.entry\1Fufunc\1Frecip\1Fint32(int32)\1Fk.cpp:3\1FA\1F16\1F8\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [6 x i8] c"k.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @entry, ptr @.str.entry, ptr @.str.file, i32 3, ptr null }
], section "llvm.metadata"

; CHECK-LABEL: define void @entry(ptr %p)
; CHECK: call i32 @inline_caller.kernel_traps(i32 %b)
; CHECK-NEXT: call i32 @declared_extern_template.kernel_traps(i32 %b)
; CHECK-NEXT: call i32 @weak_recip(i32 %b)
; CHECK-NEXT: call i32 @ctor_base.kernel_traps(i32 %b)
define void @entry(ptr %p) {
  %b = load i32, ptr %p
  %r = call i32 @recip(i32 %b)
  store i32 %r, ptr %p
  %b64 = sext i32 %b to i64
  call void @unused(i64 %b64)
  %w = call i32 @inline_caller(i32 %b)
  %x = call i32 @declared_extern_template(i32 %b)
  %y = call i32 @weak_recip(i32 %b)
  %z = call i32 @ctor_complete(i32 %b)
  %bv = insertelement <2 x i32> zeroinitializer, i32 %b, i32 0
  %lane = call <2 x i32> @zero_lane(<2 x i32> %bv)
  ret void
}

; A constant divisor with a zero lane: the test is a constant, and the division always traps.
; CHECK-LABEL: define <2 x i32> @zero_lane(<2 x i32> %v)
; CHECK-NEXT: call i1 @llvm.vector.reduce.or.v2i1(<2 x i1> <i1 false, i1 true>)
; CHECK: udiv i32
; CHECK: %r = urem <2 x i32> %v, <i32 3, i32 0>
define <2 x i32> @zero_lane(<2 x i32> %v) {
  %r = urem <2 x i32> %v, <i32 3, i32 0>
  ret <2 x i32> %r
}

; CHECK-LABEL: define i32 @recip(i32 %b)
; CHECK-NEXT: [[ZERO:%.*]] = icmp eq i32 %b, 0
; CHECK-NEXT: [[MINUS_ONE:%.*]] = icmp eq i32 %b, -1
; CHECK: br i1 {{%.*}}, label %[[TRAP:.*]], label %[[GO:.*]], !prof
; CHECK: [[TRAP]]:
; CHECK-NEXT: [[A:%.*]] = call i32 asm "", "=r,0"(i32 1) #[[HIDDEN:[0-9]+]]
; CHECK-NEXT: [[B:%.*]] = call i32 asm "", "=r,0"(i32 %b) #[[HIDDEN]]
; CHECK-NEXT: [[Q:%.*]] = sdiv i32 [[A]], [[B]]
; CHECK-NEXT: call void asm sideeffect "", "r"(i32 [[Q]])
; CHECK-NEXT: unreachable
; CHECK: [[GO]]:
; CHECK-NEXT: %q = sdiv i32 1, %b
; CHECK: icmp eq i8 {{%.*}}, 0
; CHECK-NOT: icmp eq i8 {{.*}}-128
; CHECK: %m = urem i8 %small, %small
; CHECK: %neg = sdiv i64 %b64, -1
; CHECK-NOT: icmp
; CHECK: %by7 = udiv i32 %b, 7
; CHECK-NEXT: %b128 = sext i32 %b to i128
; CHECK-NEXT: icmp eq i128 %b128, 0
; CHECK-NEXT: icmp eq i128 %b128, -1
; CHECK-NEXT: icmp eq i128 %b128, -170141183460469231731687303715884105728
; CHECK: br i1 {{%.*}}, label %[[WIDE_TRAP:.*]], label %[[WIDE_GO:.*]], !prof
; CHECK: [[WIDE_TRAP]]:
; CHECK-NEXT: [[ONE:%.*]] = call i32 asm "", "=r,0"(i32 1)
; CHECK-NEXT: [[NONE:%.*]] = call i32 asm "", "=r,0"(i32 0)
; CHECK-NEXT: [[WQ:%.*]] = udiv i32 [[ONE]], [[NONE]]
; CHECK-NEXT: call void asm sideeffect "", "r"(i32 [[WQ]])
; CHECK-NEXT: unreachable
; CHECK: [[WIDE_GO]]:
; CHECK-NEXT: %wide = sdiv i128 %b128, %b128
; CHECK: [[LANES:%.*]] = icmp eq <2 x i32> %bv, zeroinitializer
; CHECK: [[ANY:%.*]] = call i1 @llvm.vector.reduce.or.v2i1(<2 x i1>
; CHECK-NEXT: br i1 [[ANY]], label %[[VEC_TRAP:.*]], label %[[VEC_GO:.*]], !prof
; CHECK: [[VEC_TRAP]]:
; CHECK: udiv i32
; CHECK: [[VEC_GO]]:
; CHECK-NEXT: %vec = sdiv <2 x i32> <i32 1, i32 1>, %bv
; CHECK-NEXT: %v0 = extractelement
; CHECK-NEXT: %lanes = udiv <2 x i32> %bv, <i32 3, i32 5>
; CHECK-NEXT: %l0 = extractelement
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
  %lanes = udiv <2 x i32> %bv, <i32 3, i32 5>
  %l0 = extractelement <2 x i32> %lanes, i32 0
  %s1 = add i32 %q, %m32
  %s2 = add i32 %s1, %neg32
  %s3 = add i32 %s2, %by7
  %s4 = add i32 %s3, %wide32
  %s5 = add i32 %s4, %v0
  %s6 = add i32 %s5, %l0
  ret i32 %s6
}

; A division whose result is unused still traps once optimised.
; CHECK-LABEL: define void @unused(i64 %b)
; CHECK: icmp eq i64 %b, 0
; OPT-LABEL: define {{.*}}void @unused(i64 {{.*}}%b)
; OPT: icmp eq i64 %b, 0
; OPT: sdiv i64
; OPT: call void asm sideeffect "", "r"(i64
; OPT: unreachable
define void @unused(i64 %b) {
  %q = sdiv i64 7, %b
  ret void
}

; An inline function (another unit may define it too, and the linker take that copy, compiled
; without the test), the inline function that calls it, and a function declared extern
; template here (its body is another unit's): the code of this unit calls copies of its own,
; internal, which keep the tests. The originals keep them too; what takes an address takes
; theirs.
; CHECK-LABEL: define linkonce_odr i32 @inline_caller(i32 %b)
; CHECK-NEXT: call i32 @inline_recip.kernel_traps(i32 %b)
define linkonce_odr i32 @inline_caller(i32 %b) comdat {
  %r = call i32 @inline_recip(i32 %b)
  ret i32 %r
}

; CHECK-LABEL: define linkonce_odr i32 @inline_recip(i32 %b)
; CHECK-NEXT: icmp eq i32 %b, 0
define linkonce_odr i32 @inline_recip(i32 %b) comdat {
  %q = udiv i32 1, %b
  ret i32 %q
}

; CHECK-LABEL: define available_externally i32 @declared_extern_template(i32 %b)
; CHECK-NEXT: icmp eq i32 %b, 0
define available_externally i32 @declared_extern_template(i32 %b) {
  %q = srem i32 1, %b
  ret i32 %q
}

; A weak function that is not ODR (__attribute__((weak))) is replaced on purpose by another
; unit's definition: calls keep reaching the one the linker takes (this one keeps its test).
; CHECK-LABEL: define weak i32 @weak_recip(i32 %b)
; CHECK-NEXT: icmp eq i32 %b, 0
define weak i32 @weak_recip(i32 %b) {
  %q = udiv i32 1, %b
  ret i32 %q
}

; Host code calls the copies too; an address taken is the original's.
; CHECK-LABEL: define ptr @host_calls(i32 %b)
; CHECK-NEXT: call i32 @inline_caller.kernel_traps(i32 %b)
; CHECK-NEXT: ret ptr @inline_recip
define ptr @host_calls(i32 %b) {
  %r = call i32 @inline_caller(i32 %b)
  ret ptr @inline_recip
}

; Host code no entry reaches keeps its divisions as C++ leaves them.
; CHECK-LABEL: define i32 @host_only(i32 %b)
; CHECK-NEXT: %q = sdiv i32 1, %b
define i32 @host_only(i32 %b) {
  %q = sdiv i32 1, %b
  ret i32 %q
}

; A constructor called through the alias clang makes of it (the complete object's for the
; base's): the call is one of the function, which another unit may also define.
; CHECK-LABEL: define linkonce_odr i32 @ctor_base(i32 %b)
; CHECK-NEXT: icmp eq i32 %b, 0
@ctor_complete = linkonce_odr alias i32 (i32), ptr @ctor_base
define linkonce_odr i32 @ctor_base(i32 %b) comdat {
  %q = udiv i32 1, %b
  ret i32 %q
}

; CHECK-LABEL: define internal i32 @inline_recip.kernel_traps(i32 %b) {
; CHECK-NEXT: icmp eq i32 %b, 0
; CHECK-LABEL: define internal i32 @declared_extern_template.kernel_traps(i32 %b)
; CHECK-NEXT: icmp eq i32 %b, 0
; CHECK-LABEL: define internal i32 @ctor_base.kernel_traps(i32 %b)
; CHECK-NEXT: icmp eq i32 %b, 0
; CHECK-LABEL: define internal i32 @inline_caller.kernel_traps(i32 %b)
; CHECK-NEXT: call i32 @inline_recip.kernel_traps(i32 %b)
; CHECK-NOT: @weak_recip.kernel_traps

; The asm that hides a value touches no memory and returns.
; CHECK: attributes #[[HIDDEN]] = { nounwind willreturn memory(none) }

