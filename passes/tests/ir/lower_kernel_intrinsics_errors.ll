; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; Static shared memory the GPU cannot have is an error at compile time, not a 0-byte array or
; a link failure at run time: a shared array whose size is not a constant, and a kernel whose
; shared arrays (its own and its callees', each counted once) exceed PTX's 48 KiB. opt stops
; at the first error: the kernel at the limit comes first, so an error about it would be the
; one reported.
; RUN: split-file %s %t
; RUN: not opt -load-pass-plugin=%plugin -passes=kernel-lower-intrinsics %t/run_time_size.ll \
; RUN:     -disable-output 2>&1 | FileCheck %s --check-prefix=SIZE
; RUN: not opt -load-pass-plugin=%plugin -passes=kernel-lower-intrinsics %t/limit.ll \
; RUN:     -disable-output 2>&1 | FileCheck %s --check-prefix=LIMIT

; SIZE: error: kernel: a shared array in 'sized_at_run_time(unsigned long)' has a size or alignment that is not a compile-time constant; static shared memory is sized when the kernel is compiled (use dynamic_shared_array for a size chosen at launch)
; LIMIT: error: kernel: the kernel 'too_much()' uses 57344 bytes of static shared memory (shared_array), more than the 49152 a GPU kernel may have; use dynamic_shared_array for more

;--- run_time_size.ll
target triple = "nvptx64-nvidia-cuda"
@site = internal constant i8 0

define void @_Z17sized_at_run_timem(i64 %n) {
  %p = call ptr @__kernel_shared_static(ptr @site, i64 %n, i64 4)
  store i8 0, ptr %p
  ret void
}
declare ptr @__kernel_shared_static(ptr, i64, i64)

;--- limit.ll
target triple = "nvptx64-nvidia-cuda"
@small = internal constant i8 0
@big = internal constant i8 0
@other = internal constant i8 0

define internal ptr @helper() {
  %p = call ptr @__kernel_shared_static(ptr @big, i64 40960, i64 4)
  ret ptr %p
}

; 48 KiB exactly is allowed.
define void @_Z8at_limitv() {
  %a = call ptr @helper()
  %b = call ptr @__kernel_shared_static(ptr @other, i64 8192, i64 4)
  store i8 0, ptr %a
  store i8 0, ptr %b
  ret void
}

; 40 KiB through the helper, called twice (one array), plus 16 KiB of its own: 56 KiB.
define void @_Z8too_muchv() {
  %a = call ptr @helper()
  %b = call ptr @helper()
  %c = call ptr @__kernel_shared_static(ptr @small, i64 16384, i64 4)
  store i8 0, ptr %a
  store i8 0, ptr %b
  store i8 0, ptr %c
  ret void
}
declare ptr @__kernel_shared_static(ptr, i64, i64)
