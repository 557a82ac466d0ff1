#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Two builds of the same source, in different directories, embed identical PTX under
# identical registration keys (content hashes, never random or path-dependent ids).
set -euo pipefail
plugin=$(readlink -f "$1")
shift
include=$(readlink -f stdlib/include)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for src in "$@"; do
  name=$(basename "$src")
  for build in one two; do
    mkdir -p "$tmp/$build/src-$build"
    cp "$src" "$tmp/$build/src-$build/$name"
    # The headers beside it (the examples' worst_error.h), which it includes by a relative path.
    for h in "$(dirname "$src")"/*.h; do [[ -e $h ]] && cp "$h" "$tmp/$build/src-$build/"; done
    (cd "$tmp/$build" && clang++-19 -std=c++20 -O2 -fno-math-errno -c -fplugin="$plugin" \
      -isystem "$include" "src-$build/$name" -o "$name.o" &&
      llvm-objcopy-19 --dump-section __kernel_ptx="$name.ptx" "$name.o")
  done
  cmp "$tmp/one/$name.ptx" "$tmp/two/$name.ptx" || { echo "FAIL: $name: PTX differs" >&2; exit 1; }
  hashes() { grep -ao "kernel-module hash=[0-9a-f]* arch=sm_[0-9]*" "$1" | sort; }
  [[ "$(hashes "$tmp/one/$name.ptx")" == "$(hashes "$tmp/two/$name.ptx")" ]] ||
    { echo "FAIL: $name: keys differ" >&2; exit 1; }
  # The key registered at run time is the same string.
  key=$(hashes "$tmp/one/$name.ptx" | head -1 | sed 's/kernel-module hash=\([0-9a-f]*\).*/\1/')
  grep -qa "$key" "$tmp/two/$name.o" || { echo "FAIL: $name: registration key missing" >&2; exit 1; }
  echo "$name: identical PTX ($(wc -c <"$tmp/one/$name.ptx") bytes) and key $key"
done
echo PASS
