; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; Each entry gets the PTX kernel the runtime launches: its parameter block as one byval
; grid-constant parameter, the entry inlined into it. Everything but the kernels and the
; [[kernel::device]] functions is internalised, and what nothing uses is dropped. An entry
; that bounds its blocks (an algorithm step laid out for two blocks of 512 threads a
; multiprocessor) gets PTX's .maxntid and .minnctapersm. The
; entries come from kernel.device_code, as ExtractDeviceModule leaves it.
; RUN: split-file %s %t
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-create-entries %t/entries.ll -S \
; RUN:   | FileCheck %s --implicit-check-not=unused_after_retarget
; RUN: not opt -load-pass-plugin=%plugin -passes=kernel-create-entries %t/bad_shape.ll \
; RUN:     -disable-output 2>&1 | FileCheck %s --check-prefix=BAD-SHAPE

; BAD-SHAPE: error: kernel: the GPU entry of 'two_params' does not have the expected shape (one parameter block)

;--- entries.ll
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK: @table = internal global [2 x float]
@table = global [2 x float] [float 1.0, float 2.0]

; CHECK-LABEL: define internal void @_Z5entryRK6Params.body(ptr %params) #0 {
define void @_Z5entryRK6Params(ptr %params) #0 {
  %x = load float, ptr @table
  %y = call float @_Z6helperf(float %x)
  store float %y, ptr %params
  ret void
}

; CHECK-LABEL: define internal float @_Z6helperf(
define float @_Z6helperf(float %x) {
  ret float %x
}

; CHECK-LABEL: define internal void @_Z4wideRK6Params.body(ptr %params) #0 {
define void @_Z4wideRK6Params(ptr %params) #0 {
  store float 0.0, ptr %params
  ret void
}

; CHECK-LABEL: define float @_Z9device_fnf(
define float @_Z9device_fnf(float %x) {
  ret float %x
}

define linkonce_odr void @unused_after_retarget() {
  ret void
}

; CHECK-LABEL: define ptx_kernel void @_Z5entryRK6Params(ptr noalias byval([24 x i8]) align 8 %params) #1 {
; CHECK-NEXT: entry:
; CHECK-NEXT: call void @_Z5entryRK6Params.body(ptr %params)
; CHECK-NEXT: ret void

; CHECK: attributes #0 = { alwaysinline }
; CHECK: attributes #1 = { mustprogress nounwind }
; Only wide is bounded.
; CHECK: !nvvm.annotations = !{![[GRID:[0-9]+]], ![[WIDE_GRID:[0-9]+]], ![[WIDE_BOUND:[0-9]+]], ![[WIDE_BLOCKS:[0-9]+]]}
; CHECK-DAG: ![[WIDE_GRID]] = !{ptr @_Z4wideRK6Params, !"grid_constant", ![[ONE:[0-9]+]]}
; CHECK-DAG: ![[ONE]] = !{i32 1}
; CHECK-DAG: ![[WIDE_BOUND]] = !{ptr @_Z4wideRK6Params, !"maxntidx", i32 512}
; CHECK-DAG: ![[WIDE_BLOCKS]] = !{ptr @_Z4wideRK6Params, !"minctasm", i32 2}
; CHECK-DAG: ![[GRID]] = !{ptr @_Z5entryRK6Params, !"grid_constant", ![[ONE]]}
attributes #0 = { noinline }

!kernel.device_code = !{!0, !1, !2}
!0 = !{!"_Z5entryRK6Params", !"kernel.entry\1Fufunc\1Fentry\1Ffloat32(float32)\1Fentry.cpp:3\1FA\1F24\1F8"}
!1 = !{!"_Z9device_fnf", !"kernel.device"}
!2 = !{!"_Z4wideRK6Params", !"kernel.entry\1Falgorithm\1Fwide\1Fwide\1Fentry.cpp:9\1F\1F8\1F8\1F512\1F2"}

;--- bad_shape.ll
target triple = "nvptx64-nvidia-cuda"

define void @_Z10two_paramsPfS_(ptr %a, ptr %b) {
  ret void
}

!kernel.device_code = !{!0}
!0 = !{!"_Z10two_paramsPfS_", !"kernel.entry\1Fjit\1Ftwo_params\1Fvoid(float32[:])\1Fk.cpp:1\1FA\1F16\1F8"}
