#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The offload pass end to end with the real toolchain: sources compiled by clang++-19 with
# the plugin at -O0 and -O2, the PTX they embed assembled by ptxas for sm_75 and sm_90, the
# math mapped, and the errors when libdevice is missing.
set -euo pipefail
plugin=$1
shift
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cxx=(clang++-19 -std=c++20 -c -fno-color-diagnostics -fplugin="$plugin" -isystem stdlib/include)
fail() { echo "FAIL: $*" >&2; exit 1; }

for src in "$@"; do
  name=$(basename "$src" .cpp)
  for opt in -O0 -O2; do
    dir=$tmp/$name$opt
    "${cxx[@]}" $opt -fno-math-errno -fplugin-arg-kernel-inspect="$dir" "$src" -o "$dir.o"
    count=0
    for ptx in "$dir"/*.ptx; do
      arch=${ptx%.ptx}
      arch=${arch##*.}
      "$ptxas" -arch="$arch" -c "$ptx" -o "$tmp/out.cubin" || fail "$ptx does not assemble for $arch"
      count=$((count + 1))
    done
    [[ $count == 2 ]] || fail "$src $opt: expected PTX for sm_75 and sm_90, got $count files"
    # No call may be left to a host math function or an unlowered intrinsic.
    if grep -E "(call|declare)[^@]*@(exp|log|sin|cos|hypot|pow|erf|tgamma)f?\(|@llvm\.(exp|log|sin|cos|pow)\." "$dir"/*.sm_90.ll; then
      fail "$src $opt: host math left in GPU code"
    fi
    echo "$src $opt: $(wc -l <"$dir"/*.kernels) kernels, PTX assembles for sm_75 and sm_90"
  done
done

# nanosleep becomes PTX's, with the thread's duration.
grep -q "nanosleep.u32" "$tmp"/warp_match-O2/*.sm_90.ptx || fail "nanosleep did not become nanosleep.u32"

# printf becomes the driver's vprintf.
"${cxx[@]}" -O2 -fplugin-arg-kernel-inspect="$tmp/valid" plugin/tests/verify/valid_code.cpp -o "$tmp/v.o"
grep -A1 "call.uni" "$tmp"/valid/*.sm_90.ptx | grep -q "vprintf" || fail "printf did not become vprintf"

# Device code to embed is checked before it is: a truncated binary (nvJitLink would crash on
# it at run time) is a compile error naming it ...
head -c 200 "$tmp/v.o" >"$tmp/truncated.cubin"
if "${cxx[@]}" -O0 -fplugin-arg-kernel-link="$tmp/truncated.cubin" plugin/tests/verify/valid_code.cpp \
  -o "$tmp/t.o" 2>"$tmp/err_link.txt"; then
  fail "embedded a truncated cubin"
fi
grep -q "cannot embed the device code '$tmp/truncated.cubin' as cubin: its section headers lie past its end" \
  "$tmp/err_link.txt" || { cat "$tmp/err_link.txt"; fail "unclear error for a truncated cubin"; }
# ... and a .cu file's quoted includes are embedded with it (NVRTC would read them at run time).
mkdir -p "$tmp/cu/inc"
printf '#include "inc/body.h"\n#include "inc/body.h"\nextern "C" __device__ int twice(int a) { return BODY; }\n' \
  >"$tmp/cu/twice.cu"
printf '#pragma once\n#define BODY (a * 2 + 0x5eed)\n' >"$tmp/cu/inc/body.h"
"${cxx[@]}" -O0 -fplugin-arg-kernel-link="$tmp/cu/twice.cu" plugin/tests/verify/valid_code.cpp -o "$tmp/cu.o"
grep -a -q "define BODY (a \* 2 + 0x5eed)" "$tmp/cu.o" ||
  fail "the header of a linked .cu file was not embedded with it"
# A header that is not there (a sandbox not given it) is a warning naming it: NVRTC would
# fail on the line only on a GPU.
printf '#include "inc/absent.h"\nextern "C" __device__ int thrice(int a) { return 3 * a; }\n' >"$tmp/cu/thrice.cu"
"${cxx[@]}" -O0 -fplugin-arg-kernel-link="$tmp/cu/thrice.cu" plugin/tests/verify/valid_code.cpp -o "$tmp/thrice.o" \
  2>"$tmp/err_absent.txt"
grep -q "warning: kernel: the device code '$tmp/cu/thrice.cu' includes '$tmp/cu/inc/absent.h', which is not there" \
  "$tmp/err_absent.txt" || { cat "$tmp/err_absent.txt"; fail "no warning for a header that is not there"; }
# A host compiler's object, or a library of them, holds no device code: nvJitLink would find
# that only on a GPU, at the first launch.
ar rc "$tmp/libhost.a" "$tmp/v.o"
for host in "$tmp/v.o" "$tmp/libhost.a"; do
  if "${cxx[@]}" -O0 -fplugin-arg-kernel-link="$host" plugin/tests/verify/valid_code.cpp -o "$tmp/h.o" \
    2>"$tmp/err_host.txt"; then
    fail "embedded $host, which holds no device code"
  fi
  grep -qE "cannot embed the device code '$host' as .*(it holds no device code|none of its objects holds device code).* x86-64" \
    "$tmp/err_host.txt" ||
    { cat "$tmp/err_host.txt"; fail "unclear error for $host"; }
done

# sqrt is IEEE-rounded, as with nvcc, not libdevice's approximation.
"${cxx[@]}" -O2 -fno-math-errno -fplugin-arg-kernel-inspect="$tmp/math" passes/tests/math.cpp -o "$tmp/m.o"
grep -q "sqrt.rn.f32" "$tmp"/math/*.sm_90.ptx || fail "sqrtf did not become sqrt.rn.f32"
grep -q "sqrt.rn.f64" "$tmp"/math/*.sm_90.ptx || fail "sqrt did not become sqrt.rn.f64"

# Without libdevice, math is an error that says where libdevice was looked for.
if "${cxx[@]}" -O2 -fno-math-errno -fplugin-arg-kernel-libdevice=/nonexistent/libdevice.10.bc \
  passes/tests/math.cpp -o "$tmp/m.o" 2>"$tmp/err1.txt"; then
  fail "compiled without libdevice"
fi
grep -q "no GPU version of the math functions 'llvm.exp.f32'.*libdevice, which was not found (looked for /nonexistent/libdevice.10.bc)" "$tmp/err1.txt" ||
  { cat "$tmp/err1.txt"; fail "unclear error without libdevice (intrinsics)"; }
if "${cxx[@]}" -O2 -fmath-errno -ferror-limit=0 -fplugin-arg-kernel-libdevice=/nonexistent/libdevice.10.bc \
  passes/tests/math.cpp -o "$tmp/m.o" 2>"$tmp/err2.txt"; then
  fail "compiled without libdevice"
fi
grep -q "GPU code calls 'hypotf', which has no GPU implementation (called from .*'std::hypot(float, float)'); the GPU math functions come from libdevice" "$tmp/err2.txt" ||
  { cat "$tmp/err2.txt"; fail "unclear error without libdevice (library calls)"; }

# A translation unit without kernels is left alone: no PTX section, no registration.
echo 'int main() { return 0; }' >"$tmp/plain.cpp"
"${cxx[@]}" -O2 "$tmp/plain.cpp" -o "$tmp/plain.o"
if llvm-objdump-19 -h "$tmp/plain.o" | grep -q __kernel_ptx; then
  fail "a translation unit without kernels got a PTX section"
fi

# Plugin arguments are checked.
if "${cxx[@]}" -fplugin-arg-kernel-arch=sm_50 "$tmp/plain.cpp" -o "$tmp/x.o" 2>"$tmp/err3.txt"; then
  fail "accepted sm_50"
fi
grep -q "'sm_50' is not a GPU architecture this toolkit supports" "$tmp/err3.txt" || fail "arch error"
if "${cxx[@]}" -fplugin-arg-kernel-colour=blue "$tmp/plain.cpp" -o "$tmp/x.o" 2>"$tmp/err4.txt"; then
  fail "accepted an unknown argument"
fi
grep -q "unknown argument 'colour=blue'" "$tmp/err4.txt" || fail "unknown argument error"
echo PASS
