; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; What clang's instrumentation flags put in the host's IR, and so in the GPU copy of it, goes:
; -fprofile-instr-generate's counters, -fsanitize=cfi's type tests (true), -fsanitize=undefined's
; and -fsanitize-coverage's runtime calls, and the globals only they used. NVPTX selected none
; of the intrinsics ("Cannot select"), and no GPU library defines the runtimes.
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-strip-host-instrumentation %s -S | FileCheck %s \
; RUN:   --implicit-check-not=instrprof --implicit-check-not=type.test --implicit-check-not=__ubsan \
; RUN:   --implicit-check-not=__sanitizer_cov --implicit-check-not=__profn --implicit-check-not=func_sanitize
; RUN: opt -load-pass-plugin=%plugin -passes=kernel-strip-host-instrumentation %s | llc -mcpu=sm_75 -o /dev/null

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@__profn_add = private constant [3 x i8] c"add"
@.src = private unnamed_addr constant [6 x i8] c"a.cpp\00"
@.ubsan_data = private unnamed_addr global { { ptr, i32, i32 }, ptr } { { ptr, i32, i32 } { ptr @.src, i32 3, i32 12 }, ptr null }
; Kept: a private global the code still uses.
; CHECK: @table = private constant [2 x i32] [i32 1, i32 2]
@table = private constant [2 x i32] [i32 1, i32 2]

; CHECK-LABEL: define i32 @add(
; CHECK-NEXT: entry:
; CHECK-NEXT: %sum = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %a, i32 %b)
; CHECK: overflow:
; CHECK-NEXT: br label %done
; CHECK: done:
; CHECK-NEXT: %value = extractvalue
; CHECK-NEXT: %t = load i32, ptr @table
; CHECK-NEXT: %r = add i32 %value, %t
; CHECK-NEXT: ret i32 %r
define i32 @add(i32 %a, i32 %b) {
entry:
  call void @llvm.instrprof.increment(ptr @__profn_add, i64 1234, i32 1, i32 0)
  call void @__sanitizer_cov_trace_pc_guard(ptr null)
  %sum = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %a, i32 %b)
  %over = extractvalue { i32, i1 } %sum, 1
  br i1 %over, label %overflow, label %done
overflow:
  %ua = zext i32 %a to i64
  %ub = zext i32 %b to i64
  call void @__ubsan_handle_add_overflow(ptr @.ubsan_data, i64 %ua, i64 %ub)
  br label %done
done:
  %value = extractvalue { i32, i1 } %sum, 0
  %t = load i32, ptr @table
  %r = add i32 %value, %t
  ret i32 %r
}

; CHECK-LABEL: define i1 @checked(
; CHECK-NEXT: ret i1 true
define i1 @checked(ptr %vtable) {
  %ok = call i1 @llvm.type.test(ptr %vtable, metadata !"_ZTS4Base")
  ret i1 %ok
}

; -fsanitize=function: the check before a call through a pointer reads the callee's signature
; words before its address; read as zero, the call is made without the check.
; CHECK-LABEL: define i32 @calls_through_pointer(
; CHECK-NOT: load
; CHECK: icmp eq i32 0, -1056584962
define i32 @calls_through_pointer() {
entry:
  %magic = load i32, ptr getelementptr (i8, ptr @callee, i64 -8)
  %has = icmp eq i32 %magic, -1056584962
  br i1 %has, label %typecheck, label %call
typecheck:
  %hash = load i32, ptr getelementptr (i8, ptr @callee, i64 -4)
  %same = icmp eq i32 %hash, 905068220
  br i1 %same, label %call, label %mismatch
mismatch:
  call void @__ubsan_handle_function_type_mismatch(ptr @.ubsan_data, i64 0)
  br label %call
call:
  %r = call i32 @callee()
  ret i32 %r
}
; CHECK: define i32 @callee() {
define i32 @callee() !func_sanitize !0 {
  ret i32 7
}
!0 = !{i32 -1056584962, i32 905068220}

; -fno-sanitize-recover: the handler does not return; the check traps instead of vanishing
; (the unreachable after a removed call would make the optimizer assume the check passes).
; CHECK-LABEL: define i32 @unsigned_wrap(
; CHECK: overflow:
; CHECK-NEXT: call void @llvm.trap()
; CHECK-NEXT: unreachable
define i32 @unsigned_wrap(i32 %a, i32 %b) {
entry:
  %sum = call { i32, i1 } @llvm.uadd.with.overflow.i32(i32 %a, i32 %b)
  %over = extractvalue { i32, i1 } %sum, 1
  br i1 %over, label %overflow, label %done
overflow:
  call void @__ubsan_handle_add_overflow_abort(ptr @.ubsan_data, i64 0, i64 0)
  unreachable
done:
  %value = extractvalue { i32, i1 } %sum, 0
  ret i32 %value
}
declare { i32, i1 } @llvm.uadd.with.overflow.i32(i32, i32)
declare void @__ubsan_handle_add_overflow_abort(ptr, i64, i64)

declare void @__ubsan_handle_function_type_mismatch(ptr, i64)
declare void @llvm.instrprof.increment(ptr, i64, i32, i32)
declare void @__sanitizer_cov_trace_pc_guard(ptr)
declare { i32, i1 } @llvm.sadd.with.overflow.i32(i32, i32)
declare void @__ubsan_handle_add_overflow(ptr, i64, i64)
declare i1 @llvm.type.test(ptr, metadata)
