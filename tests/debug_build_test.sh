#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Debug builds through the plugin: every source given is compiled with -g at -O2 and with
# -gline-tables-only at -O1 (the combinations where clang attaches debug information to the
# declarations the passes give bodies, e.g. the host fallback of a declared device function),
# and the object must carry its line table. Then builds with instrumentation flags.
set -euo pipefail
plugin=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cxx=(clang++-19 -std=c++20 -c -fno-color-diagnostics -fno-math-errno -fplugin="$plugin"
  -isystem stdlib/include)
fail() { echo "FAIL: $*" >&2; exit 1; }

for src in "$@"; do
  for flags in "-g -O2" "-gline-tables-only -O1"; do
    # shellcheck disable=SC2086 # flags is a list of words
    if ! "${cxx[@]}" $flags -I"$(dirname "$src")" "$src" -o "$tmp/out.o" 2>"$tmp/err.txt"; then
      head -20 "$tmp/err.txt" >&2
      fail "$src does not build with $flags"
    fi
    sections=$(llvm-objdump-19 -h "$tmp/out.o")
    grep -q "\.debug_line" <<<"$sections" || fail "$src $flags: no line table"
    echo "$src $flags: builds"
  done
done
# Instrumented builds of the last source: the host keeps the instrumentation, the GPU code is
# compiled as without it (the backend stopped at llvm.instrprof.increment and llvm.type.test,
# and __ubsan_handle_* had no GPU definition).
src=${*: -1}
for flags in "-fprofile-instr-generate -O2" "-fsanitize=undefined -O1" "-fsanitize=cfi-icall -flto -fvisibility=hidden -O2"; do
  # shellcheck disable=SC2086 # flags is a list of words
  if ! "${cxx[@]}" $flags -I"$(dirname "$src")" "$src" -o "$tmp/out.o" 2>"$tmp/err.txt"; then
    head -20 "$tmp/err.txt" >&2
    fail "$src does not build with $flags"
  fi
  echo "$src $flags: builds"
done
echo PASS
