; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; After linking, each function the GPU module calls must be defined, an intrinsic the NVPTX
; backend lowers, a function the CUDA driver resolves or a declared CUDA-C function; and no
; call may be indirect. opt stops at the first error: in each module the calls that are
; accepted come first, so an error about them would be the one reported.
; RUN: split-file %s %t
; RUN: not opt -load-pass-plugin=%plugin -kernel-libdevice=%libdevice -passes=kernel-verify-device \
; RUN:     %t/undefined.ll -disable-output 2>&1 | FileCheck %s --check-prefix=UNDEFINED
; RUN: not opt -load-pass-plugin=%plugin -kernel-libdevice=%t/missing.bc -passes=kernel-verify-device \
; RUN:     %t/undefined.ll -disable-output 2>&1 | FileCheck %s --check-prefix=NO-LIBDEVICE
; RUN: not opt -load-pass-plugin=%plugin -passes=kernel-verify-device %t/x86.ll -disable-output 2>&1 \
; RUN:   | FileCheck %s --check-prefix=X86
; RUN: not opt -load-pass-plugin=%plugin -passes=kernel-verify-device %t/indirect.ll \
; RUN:     -disable-output 2>&1 | FileCheck %s --check-prefix=INDIRECT

; UNDEFINED: error: kernel: GPU code calls 'missing(float)', which has no GPU implementation (called from 'user(float)', 'kernel'){{$}}
; NO-LIBDEVICE: error: kernel: GPU code calls 'missing(float)', which has no GPU implementation (called from 'user(float)', 'kernel'); the GPU math functions come from libdevice, which was not found (looked for {{.*}}missing.bc)
; X86: error: kernel: GPU code calls 'llvm.x86.rdtsc', which has no GPU implementation (called from 'f')
; INDIRECT: error: kernel: GPU code makes an indirect call in 'call_through(void (*)())'

;--- undefined.ll
target triple = "nvptx64-nvidia-cuda"

define void @accepted(ptr %p) {
  %r = call i32 @vprintf(ptr %p, ptr null)
  call void @__assertfail(ptr %p, ptr %p, i32 1, ptr %p, i64 1)
  %m = call ptr @malloc(i64 8)
  call void @free(ptr %m)
  %reflect = call i32 @__nvvm_reflect(ptr %p)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bar = call i32 @_Z3bari(i32 %tid)
  ret void
}

declare i32 @vprintf(ptr, ptr)
declare void @__assertfail(ptr, ptr, i32, ptr, i64)
declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @__nvvm_reflect(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @_Z3bari(i32)
declare void @_Z6unusedv()

define float @_Z4userf(float %x) {
  %y = call float @_Z7missingf(float %x)
  ret float %y
}

define void @kernel(ptr %p) {
  %y = call float @_Z7missingf(float 1.0)
  store float %y, ptr %p
  ret void
}

declare float @_Z7missingf(float)

!kernel.device_code = !{!0}
!0 = !{!"_Z3bari", !"kernel.declare_device\1Fc\1Fint bar(int)\1Fbar.cu:1"}

;--- x86.ll
target triple = "nvptx64-nvidia-cuda"

define i64 @f() {
  %t = call i64 @llvm.x86.rdtsc()
  ret i64 %t
}

declare i64 @llvm.x86.rdtsc()

;--- indirect.ll
target triple = "nvptx64-nvidia-cuda"

define void @_Z12call_throughPFvvE(ptr %f) {
  call void asm sideeffect "exit;", ""()
  call void %f()
  ret void
}
