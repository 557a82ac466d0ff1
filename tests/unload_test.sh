#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A shared library compiled with the plugin registers its kernels when loaded and unregisters
# them when unloaded (dlclose): nothing dangling is left in the runtime's registry.
set -euo pipefail
plugin=$(readlink -f "$1")
runtime=$(readlink -f "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cxx=(clang++-19 -std=c++20 -O1 -fno-math-errno -isystem stdlib/include)
# Both the library and the program use the runtime's shared library: one registry.
"${cxx[@]}" -fPIC -shared -fplugin="$plugin" tests/unload/kernels.cpp -o "$tmp/libunload_kernels.so" \
  "$runtime" -Wl,-rpath,"$(dirname "$runtime")"
"${cxx[@]}" tests/unload/main.cpp -o "$tmp/unload_main" "$runtime" -Wl,-rpath,"$(dirname "$runtime")" -ldl
"$tmp/unload_main" "$tmp/libunload_kernels.so"
