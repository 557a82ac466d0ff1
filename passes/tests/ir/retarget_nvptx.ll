; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; The extracted module becomes an NVPTX module: triple and layout, no host attributes, no
; exception handling, comdats, sections, inline assembly, debug info or host module flags;
; no -finstrument-functions attributes, which would make the device pipeline call the host's
; __cyg_profile_func_* hooks.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-retarget-nvptx %s -S | FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

module asm ".globl host_symbol"

$inline_helper = comdat any

@table = dso_local global [2 x float] [float 1.0, float 2.0], section ".host_data", align 4

; CHECK: target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
; CHECK: target triple = "nvptx64-nvidia-cuda"
; CHECK-NOT: module asm
; CHECK-NOT: comdat
; CHECK: @table = global [2 x float] [float 1.000000e+00, float 2.000000e+00], align 4

; CHECK: define linkonce_odr float @inline_helper(float %x) [[ATTRS:#[0-9]+]] {
define linkonce_odr dso_local float @inline_helper(float %x) #0 comdat {
  %y = fmul float %x, 2.0
  ret float %y
}

; Invokes (only cleanups remain after the plugin's checks) become calls.
; CHECK: define void @with_cleanup(ptr %out) [[ATTRS]] {
; CHECK-NEXT: entry:
; CHECK-NEXT: call void @may_throw()
; CHECK-NEXT: br label %ok
define dso_local void @with_cleanup(ptr %out) #0 personality ptr @__gxx_personality_v0 {
entry:
  invoke void @may_throw()
          to label %ok unwind label %cleanup

ok:
  store float 1.0, ptr %out, align 4, !dbg !8
  ret void

cleanup:
  %lp = landingpad { ptr, i32 }
          cleanup
  resume { ptr, i32 } %lp
}

; A user's noinline (without optnone, so not -O0's) is kept.
; CHECK: define void @kept_noinline() [[NOINLINE:#[0-9]+]] {
define dso_local void @kept_noinline() #1 {
  ret void
}

declare void @may_throw()
declare i32 @__gxx_personality_v0(...)

; CHECK-NOT: landingpad
; CHECK-NOT: personality ptr
; CHECK-NOT: !dbg
; CHECK: attributes [[ATTRS]] = { mustprogress "no-trapping-math"="true" }
; CHECK: attributes [[NOINLINE]] = { noinline }
; CHECK-NOT: llvm.module.flags
; CHECK-NOT: llvm.ident
; CHECK-NOT: DICompileUnit
attributes #0 = { mustprogress noinline optnone uwtable "frame-pointer"="all" "instrument-function-entry"="__cyg_profile_func_enter" "instrument-function-exit"="__cyg_profile_func_exit" "instrument-function-entry-inlined"="__cyg_profile_func_enter" "instrument-function-exit-inlined"="__cyg_profile_func_exit" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { noinline "target-cpu"="x86-64" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}
!llvm.ident = !{!4}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "retarget.cpp", directory: "/tmp")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{!"clang version 19"}
!5 = distinct !DISubprogram(name: "with_cleanup", scope: !1, file: !1, line: 3, type: !6, scopeLine: 3, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 4, column: 3, scope: !5)
