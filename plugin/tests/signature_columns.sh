#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A malformed signature is reported at the offending character inside the string literal
# (-verify checks lines only; this checks columns).
set -euo pipefail
plugin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/columns.cpp" <<'CPP'
#include <kernel/kernel.h>
[[kernel::vectorize("float32(float32, flaot32)")]] float a(float x, float y) { return x; }
[[kernel::vectorize("float32(float32 float32)")]] float b(float x, float y) { return x; }
[[kernel::vectorize("float32(float32, float64)")]] float c(float x, float y) { return x; }
[[kernel::jit("void(float32[:, ::1, :])")]] void d(kernel::array_view<float, 3> a) {}
CPP
if clang++-19 -std=c++20 -fsyntax-only -fno-color-diagnostics -fplugin="$plugin" \
  -isystem stdlib/include "$tmp/columns.cpp" 2>"$tmp/out.txt"; then
  echo "FAIL: malformed signatures compiled" >&2
  exit 1
fi
cat "$tmp/out.txt"
expect() {
  grep -qF "$1" "$tmp/out.txt" || { echo "FAIL: missing '$1'" >&2; exit 1; }
}
# The errors point inside the string literals, at the offending character.
expect "columns.cpp:2:39: error: malformed kernel::vectorize signature: unknown type 'flaot32'"
expect "columns.cpp:3:38: error: malformed kernel::vectorize signature: expected ',' or ')'"
expect "columns.cpp:4:39: error: signature 'float32(float32, float64)' does not match 'c': parameter 2"
expect "columns.cpp:5:32: error: malformed kernel::jit signature: '::1' must be the last dimension"
echo PASS
