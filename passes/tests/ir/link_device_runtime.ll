; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; The device runtime embedded in the plugin provides what host IR expects from compiler-rt
; (complex arithmetic, in the x86-64 convention); only what the module uses is linked, and
; without the target CPU it was built for.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-link-device-runtime %s -S \
; RUN:   | FileCheck %s --implicit-check-not=__divsc3 --implicit-check-not=target-cpu

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define <2 x float> @multiply(float %a, float %b, float %c, float %d) {
  %p = call <2 x float> @__mulsc3(float %a, float %b, float %c, float %d)
  ret <2 x float> %p
}

; CHECK: define {{.*}}<2 x float> @__mulsc3(float {{.*}}, float {{.*}}, float {{.*}}, float {{.*}})
declare <2 x float> @__mulsc3(float, float, float, float)
