#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tools/kernel-clang++ from the SDK: builds and links a program in one command, inspects,
# builds without the plugin, mixes translation units compiled with and without it, and
# explains a missing installation.
set -euo pipefail
sdk=$(readlink -f "$1")
driver=$sdk/bin/kernel-clang++
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$driver" -O2 examples/saxpy.cpp -o "$tmp/saxpy"
out=$("$tmp/saxpy")
echo "$out"
grep -q "GPU kernel saxpy float32(float32, float32, float32): PTX for 2 architectures" <<<"$out" ||
  fail "saxpy built by the driver has no GPU kernel"

"$driver" -O2 --kernel-inspect="$tmp/inspect" --kernel-arch=sm_80 -c examples/hypot.cpp -o "$tmp/h.o"
ls "$tmp/inspect"
ls "$tmp"/inspect/hypot.cpp.*.sm_80.ptx >/dev/null || fail "no sm_80 PTX written"
ls "$tmp"/inspect/hypot.cpp.*.sm_80.ll >/dev/null || fail "no LLVM IR written"
grep -q "^cu_hypot<float>	float32(float32, float32)	ufunc	hypot.cpp:" "$tmp"/inspect/*.kernels ||
  fail "kernel list"

# Architectures the compiler cannot emit PTX for are refused at once, not left to fail when
# the PTX is assembled on the GPU.
for arch in sm_100 sm_70 sm_91; do
  if "$driver" -O2 --kernel-arch=sm_90,$arch -c examples/hypot.cpp -o "$tmp/bad.o" 2>"$tmp/err"; then
    fail "--kernel-arch=$arch was taken"
  fi
  grep -q "'$arch' is not" "$tmp/err" || fail "--kernel-arch=$arch: $(cat "$tmp/err")"
done

# Too much static shared memory is found in the compiled module; the message says where the
# kernel is.
cat >"$tmp/shared.cpp" <<'CPP'
#include <kernel/kernel.h>
[[kernel::jit]] void too_much_shared(kernel::array_view<float> out) {
  auto tile = kernel::shared_array<float, 13000>();
  tile[kernel::threadIdx.x] = 1;
  kernel::syncthreads();
  out[kernel::threadIdx.x] = tile[0];
}
CPP
if "$driver" -O2 -c "$tmp/shared.cpp" -o "$tmp/shared.o" 2>"$tmp/err"; then
  fail "52000 bytes of static shared memory were taken"
fi
grep -q "shared.cpp:2: the kernel 'too_much_shared' uses 52000 bytes of static shared memory" "$tmp/err" ||
  fail "shared memory message: $(cat "$tmp/err")"

"$driver" -O2 --kernel-no-plugin examples/saxpy.cpp -o "$tmp/plain"
out=$("$tmp/plain")
grep -q "^GPU kernel" <<<"$out" && fail "built without the plugin but has GPU kernels"
grep -q "no GPU code was compiled for it" <<<"$out" || fail "cuda error without the plugin"

# Kernels registered by one translation unit are found from another compiled without the
# plugin: the key is the address of the kernel's host entry, the same in every unit.
cat >"$tmp/kernels.cpp" <<'CPP'
#include <kernel/kernel.h>
[[kernel::vectorize]] float scale(float x, float s) { return x * s; }
CPP
cat >"$tmp/main.cpp" <<'CPP'
#include <cstdio>
#include <kernel/kernel.h>
#include <vector>
float scale(float x, float s);
int main() {
  std::vector<float> x{1, 2, 3};
  constexpr kernel::ufunc<scale> vscale;
  auto r = vscale(x, 2.0f);
  for (const auto &k : vscale.inspect()) std::printf("%s %s\n", k.name.c_str(), k.signature.c_str());
  return r[2] == 6.0f ? 0 : 1;
}
CPP
"$driver" -O2 -c "$tmp/kernels.cpp" -o "$tmp/kernels.o"
"$driver" -O2 --kernel-no-plugin -c "$tmp/main.cpp" -o "$tmp/main.o"
"$driver" "$tmp/kernels.o" "$tmp/main.o" -o "$tmp/mixed"
[[ $("$tmp/mixed") == "scale float32(float32, float32)" ]] || fail "kernel from another unit not found"

# A precompiled header, however the header is named as one, is compiled and not linked (the
# link flags would be unused arguments, errors under -Werror), and a program uses it.
printf '#include <kernel/kernel.h>\n' >"$tmp/all.hpp"
"$driver" -Werror -O2 -x c++-header "$tmp/all.hpp" -o "$tmp/x.pch"
"$driver" -Werror -O2 --language=c++-header "$tmp/all.hpp" -o "$tmp/language.pch"
"$driver" -Werror -O2 "$tmp/all.hpp" -o "$tmp/named.pch"
"$driver" -Werror -O2 -include-pch "$tmp/named.pch" "$tmp/main.cpp" "$tmp/kernels.o" -o "$tmp/with_pch"
[[ $("$tmp/with_pch") == "scale float32(float32, float32)" ]] || fail "program built with a precompiled header"
# A source named as a header but given as C++ is linked.
cp "$tmp/main.cpp" "$tmp/main_source.h"
"$driver" -O2 -x c++ "$tmp/main_source.h" -x none "$tmp/kernels.o" -o "$tmp/from_h"
[[ $("$tmp/from_h") == "scale float32(float32, float32)" ]] || fail "-x c++ with a .h source"

# [[kernel::link]] on a declaration nothing calls still links its file (clang emits no such
# declaration, and its annotation went with it).
mkdir -p "$tmp/inc"
printf '#pragma once\n#define FACTOR 1\n' >"$tmp/inc/factor.h"
cat >"$tmp/bar.cu" <<'CU'
#include "inc/factor.h"
extern "C" __device__ int bar(int a, int b) { return a * b * FACTOR; }
CU
cat >"$tmp/anchor.cpp" <<'CPP'
#include <cstdio>
#include <kernel/inspect.h>
#include <kernel/kernel.h>
[[kernel::link("bar.cu")]] void device_code_anchor();
extern "C" [[kernel::declare_device]] int bar(int a, int b);
[[kernel::jit]] void times_two(kernel::array_view<int> a) { a[0] = bar(a[0], 2); }
int main() {
  for (const auto &m : kernel::link_modules(75))
    for (const auto &l : m.linked) std::printf("linked %s\n", l.c_str());
}
CPP
"$driver" -O1 "$tmp/anchor.cpp" -o "$tmp/anchor"
[[ $(KERNEL_CACHE_DIR=off "$tmp/anchor") == "linked bar.cu" ]] || fail "[[kernel::link]] on an unused declaration"
# The files embedded in the object, and those their quoted includes name, are in its
# dependency file, so that Make, CMake and Ninja recompile it when one changes.
"$driver" -O1 -c "$tmp/anchor.cpp" -o "$tmp/anchor.o" -MMD -MF "$tmp/anchor.d"
grep -q "bar.cu" "$tmp/anchor.d" || fail "[[kernel::link]] file not in the dependency file: $(cat "$tmp/anchor.d")"
grep -q "inc/factor.h" "$tmp/anchor.d" || fail "included header not in the dependency file: $(cat "$tmp/anchor.d")"

# The kernel options act where sources are compiled: on a command that only links, each is
# named as unused; where a source is compiled (a file, or standard input as C++), none is.
"$driver" "$tmp/kernels.o" "$tmp/main.o" --kernel-link=bar.cu --kernel-arch=sm_90 -o "$tmp/linked" 2>"$tmp/err"
grep -q "warning: --kernel-link=bar.cu is unused: this command compiles no source file" "$tmp/err" ||
  fail "--kernel-link at a link: $(cat "$tmp/err")"
grep -q "warning: --kernel-arch=sm_90 is unused" "$tmp/err" || fail "--kernel-arch at a link: $(cat "$tmp/err")"
"$driver" -O2 --kernel-arch=sm_90 "$tmp/main.cpp" "$tmp/kernels.o" -o "$tmp/compiled" 2>"$tmp/err"
[[ ! -s "$tmp/err" ]] || fail "--kernel-arch with a source: $(cat "$tmp/err")"
"$driver" -fsyntax-only --kernel-arch=sm_90 -x c++ - <"$tmp/kernels.cpp" 2>"$tmp/err"
[[ ! -s "$tmp/err" ]] || fail "--kernel-arch with standard input: $(cat "$tmp/err")"

if KERNEL_PLUGIN=/nonexistent/kernel_plugin.so "$driver" -c examples/saxpy.cpp -o "$tmp/x.o" 2>"$tmp/err"; then
  fail "compiled without a plugin file"
fi
grep -q "the kernel plugin is not at /nonexistent/kernel_plugin.so; build it with 'bazel build //tools:sdk'" "$tmp/err" ||
  fail "missing plugin message"

# A header forced in with -include sees the plugin's macro too (it was defined after them).
printf '#include <cstdio>\nint main() { std::printf("%%d\\n", int(kernel::compiled_with_plugin)); }\n' >"$tmp/forced.cpp"
"$driver" -include kernel/kernel.h "$tmp/forced.cpp" -o "$tmp/forced"
[[ $("$tmp/forced") == 1 ]] || fail "-include kernel/kernel.h: compiled_with_plugin is $("$tmp/forced")"

# -save-temps would skip the plugin's passes (clang's saved stages): refused, not a program
# without its GPU code. Without the plugin it is clang's own.
if "$driver" -save-temps -c examples/saxpy.cpp -o "$tmp/st.o" 2>"$tmp/err"; then
  fail "-save-temps compiled with the plugin"
fi
grep -q "kernel-clang++: -save-temps is not supported with the kernel plugin" "$tmp/err" ||
  fail "-save-temps message: $(cat "$tmp/err")"
(src=$PWD/examples/saxpy.cpp && cd "$tmp" && "$driver" --kernel-no-plugin -save-temps -c "$src" -o st_plain.o) ||
  fail "-save-temps without the plugin"
echo PASS
