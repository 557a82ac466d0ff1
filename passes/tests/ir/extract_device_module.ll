; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; A host module reduced to what its GPU roots (the entry, the [[kernel::device]] function)
; reach; the annotations become kernel.device_code.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-extract-device-module %s -S \
; RUN:   | FileCheck %s --implicit-check-not=host_ --implicit-check-not=llvm.global.annotations \
; RUN:       --implicit-check-not=llvm.used --implicit-check-not=llvm.global_ctors \
; RUN:       --implicit-check-not=llvm.metadata

target triple = "x86_64-pc-linux-gnu"

@device_table = internal constant [2 x float] [float 1.0, float 2.0]
@device_pointer = global ptr @device_table
@host_counter = global i32 0

@.str.entry = private unnamed_addr constant [61 x i8] c"kernel.entry\1Fufunc\1Fscale\1Ffloat32(float32)\1Fscale.cpp:7\1FA\1F24\1F8\00", section "llvm.metadata"
@.str.device = private unnamed_addr constant [14 x i8] c"kernel.device\00", section "llvm.metadata"
@.str.declare = private unnamed_addr constant [51 x i8] c"kernel.declare_device\1Fnumba\1Fint bar(int)\1Fbar.cpp:1\00", section "llvm.metadata"
@.str.file = private unnamed_addr constant [10 x i8] c"scale.cpp\00", section "llvm.metadata"
@llvm.global.annotations = appending global [3 x { ptr, ptr, ptr, i32, ptr }] [
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z12scale_kernelRK6Params, ptr @.str.entry, ptr @.str.file, i32 7, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @_Z9device_fnf, ptr @.str.device, ptr @.str.file, i32 3, ptr null },
  { ptr, ptr, ptr, i32, ptr } { ptr @bar, ptr @.str.declare, ptr @.str.file, i32 1, ptr null }
], section "llvm.metadata"
@llvm.used = appending global [2 x ptr] [ptr @_Z12scale_kernelRK6Params, ptr @host_main], section "llvm.metadata"
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @host_init, ptr null }]

; CHECK-DAG: @device_table = internal constant [2 x float]
; CHECK-DAG: @device_pointer = global ptr @device_table

; CHECK-LABEL: define void @_Z12scale_kernelRK6Params(
define void @_Z12scale_kernelRK6Params(ptr %params) {
  %table = load ptr, ptr @device_pointer
  %x = load float, ptr %table
  %y = call float @_Z6helperf(float %x)
  %n = call i32 @bar(i32 1)
  store float %y, ptr %params
  ret void
}

; CHECK-LABEL: define float @_Z6helperf(
define float @_Z6helperf(float %x) {
  %y = fmul float %x, 2.0
  ret float %y
}

; Kept although nothing here calls it: kernels of other translation units may.
; CHECK-LABEL: define float @_Z9device_fnf(
define float @_Z9device_fnf(float %x) {
  ret float %x
}

define i32 @host_main() {
  store i32 1, ptr @host_counter
  call void @_Z12scale_kernelRK6Params(ptr null)
  call void @host_library()
  ret i32 0
}

define internal void @host_init() {
  ret void
}

; CHECK-LABEL: declare i32 @bar(i32)
declare i32 @bar(i32)
declare void @host_library()

; CHECK: !kernel.device_code = !{![[ENTRY:[0-9]+]], ![[DEVICE:[0-9]+]], ![[EXTERNAL:[0-9]+]]}
; CHECK: ![[ENTRY]] = !{!"_Z12scale_kernelRK6Params", !"kernel.entry\1Fufunc\1Fscale\1Ffloat32(float32)\1Fscale.cpp:7\1FA\1F24\1F8"}
; CHECK: ![[DEVICE]] = !{!"_Z9device_fnf", !"kernel.device"}
; CHECK: ![[EXTERNAL]] = !{!"bar", !"kernel.declare_device\1Fnumba\1Fint bar(int)\1Fbar.cpp:1"}
