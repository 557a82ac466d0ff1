#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The examples are ordinary C++: g++, which knows nothing of the plugin, builds them and
# they run correctly on the CPU targets.
set -euo pipefail
runtime_dir=$(dirname "$(readlink -f "$1")")
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$runtime_dir/libkernel_runtime.so" "$tmp/"
for src in "$@"; do
  name=$(basename "$src" .cpp)
  g++ -std=c++20 -O2 -Wall -Wextra -Werror -isystem stdlib/include "$src" -o "$tmp/$name" \
    -L"$tmp" -Wl,-rpath,"$tmp" -lkernel_runtime -ltbb -pthread
  out=$("$tmp/$name")
  echo "$out"
  # No GPU code was compiled, and the cuda target says so (kernel examples ask for the
  # device first, so on a machine without a driver that is what they report).
  if grep -q "^GPU kernel" <<<"$out"; then
    echo "FAIL: $name built with g++ reports GPU kernels" >&2
    exit 1
  fi
  grep -q "no GPU code was compiled\|CUDA driver could not be loaded" <<<"$out" || { echo "FAIL: $name: cuda error" >&2; exit 1; }
done
echo PASS
