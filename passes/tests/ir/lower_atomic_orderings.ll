; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; C++'s memory orders on the GPU: fences become membars of their scope, and atomics stronger
; than relaxed become relaxed ones with membars on the sides their order needs (LLVM 19's
; NVPTX backend selects neither fences nor ordered atomic loads and stores).
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-lower-atomic-orderings %s -S | FileCheck %s \
; RUN:   --implicit-check-not=fence --implicit-check-not=seq_cst --implicit-check-not=acquire \
; RUN:   --implicit-check-not=release --implicit-check-not=acq_rel
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-lower-atomic-orderings %s | llc -mcpu=sm_75 -o /dev/null

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @fences(
; CHECK-NEXT: call void @llvm.nvvm.membar.sys()
; CHECK-NEXT: call void @llvm.nvvm.membar.cta()
; CHECK-NEXT: call void @llvm.nvvm.membar.gl()
; CHECK-NEXT: ret void
define void @fences() {
  fence seq_cst
  fence syncscope("singlethread") seq_cst
  fence syncscope("workgroup") acquire
  fence syncscope("agent") release
  ret void
}

; CHECK-LABEL: define i32 @loads_and_stores(
; CHECK-NEXT: %a = load atomic i32, ptr addrspace(1) %p monotonic, align 4
; CHECK-NEXT: call void @llvm.nvvm.membar.sys()
; CHECK-NEXT: call void @llvm.nvvm.membar.sys()
; CHECK-NEXT: %b = load atomic i32, ptr addrspace(1) %p monotonic, align 4
; CHECK-NEXT: call void @llvm.nvvm.membar.sys()
; CHECK-NEXT: %r = load atomic i32, ptr addrspace(1) %p monotonic, align 4
; CHECK-NEXT: call void @llvm.nvvm.membar.sys()
; CHECK-NEXT: store atomic i32 %a, ptr addrspace(1) %p monotonic, align 4
; CHECK-NEXT: call void @llvm.nvvm.membar.sys()
; CHECK-NEXT: store atomic i32 %b, ptr addrspace(1) %p monotonic, align 4
; CHECK-NEXT: call void @llvm.nvvm.membar.sys()
; CHECK-NEXT: store atomic i32 %r, ptr addrspace(1) %p monotonic, align 4
; CHECK-NEXT: %s = add i32 %a, %b
define i32 @loads_and_stores(ptr addrspace(1) %p) {
  %a = load atomic i32, ptr addrspace(1) %p acquire, align 4
  %b = load atomic i32, ptr addrspace(1) %p seq_cst, align 4
  %r = load atomic i32, ptr addrspace(1) %p monotonic, align 4
  store atomic i32 %a, ptr addrspace(1) %p release, align 4
  store atomic i32 %b, ptr addrspace(1) %p seq_cst, align 4
  store atomic i32 %r, ptr addrspace(1) %p monotonic, align 4
  %s = add i32 %a, %b
  ret i32 %s
}

; CHECK-LABEL: define i32 @read_modify_write(
; CHECK-NEXT: call void @llvm.nvvm.membar.sys()
; CHECK-NEXT: %a = atomicrmw add ptr addrspace(1) %p, i32 1 monotonic, align 4
; CHECK-NEXT: %b = atomicrmw add ptr addrspace(1) %p, i32 1 monotonic, align 4
; CHECK-NEXT: call void @llvm.nvvm.membar.cta()
; CHECK-NEXT: %c = cmpxchg ptr addrspace(1) %p, i32 %a, i32 %b syncscope("workgroup") monotonic monotonic, align 4
; CHECK-NEXT: call void @llvm.nvvm.membar.cta()
define i32 @read_modify_write(ptr addrspace(1) %p) {
  %a = atomicrmw add ptr addrspace(1) %p, i32 1 release, align 4
  %b = atomicrmw add ptr addrspace(1) %p, i32 1 monotonic, align 4
  %c = cmpxchg ptr addrspace(1) %p, i32 %a, i32 %b syncscope("workgroup") seq_cst acquire, align 4
  %v = extractvalue { i32, i1 } %c, 0
  ret i32 %v
}
