#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Compile time of each example with the plugin and pass against plain clang++-19 -O2 with
# the same flags, median of several runs, as a ratio.
#
#   bench/compile_time.sh [runs]        (after `bazel build //plugin:kernel_plugin.so`)
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
runs=${1:-7}
plugin=${KERNEL_PLUGIN:-bazel-bin/plugin/kernel_plugin.so}
[[ -f $plugin ]] || { echo "build the plugin first: bazel build //plugin:kernel_plugin.so" >&2; exit 2; }
flags=(-std=c++20 -O2 -fno-math-errno -fveclib=libmvec -march=x86-64-v3 -isystem stdlib/include -c -o /dev/null)

median_ms() {
  local times=()
  for ((r = 0; r < runs; r++)); do
    local t0 t1
    t0=$(date +%s%N)
    "$@"
    t1=$(date +%s%N)
    times+=($(((t1 - t0) / 1000000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

printf '%-22s %10s %12s %8s\n' example "plain ms" "plugin ms" ratio
for src in examples/*.cpp bench/fusion_ten_expressions.cpp; do
  plain=$(median_ms clang++-19 "${flags[@]}" "$src")
  with=$(median_ms clang++-19 "${flags[@]}" -fplugin="$plugin" "$src")
  printf '%-22s %10d %12d %8.2f\n' "$(basename "$src")" "$plain" "$with" \
    "$(awk -v a="$with" -v b="$plain" 'BEGIN { print a / b }')"
done

# What including the SDK costs a translation unit: an empty main with <kernel/kernel.h> (and
# with <kernel/ufunc.h> alone) against one with <vector>, <complex> and <string>, same flags,
# with the plugin. Target: kernel.h adds at most 0.5 s.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#include <complex>\n#include <string>\n#include <vector>\nint main() {}\n' >"$work/std.cpp"
printf '#include <kernel/kernel.h>\nint main() {}\n' >"$work/kernel.cpp"
printf '#include <kernel/ufunc.h>\nint main() {}\n' >"$work/ufunc.cpp"
echo
printf '%-34s %10s %12s\n' "empty main including" "ms" "added ms"
base=$(median_ms clang++-19 "${flags[@]}" -fplugin="$plugin" "$work/std.cpp")
printf '%-34s %10d %12s\n' "<vector> <complex> <string>" "$base" "(baseline)"
for h in kernel ufunc; do
  t=$(median_ms clang++-19 "${flags[@]}" -fplugin="$plugin" "$work/$h.cpp")
  printf '%-34s %10d %12d\n' "<kernel/$h.h>" "$t" "$((t - base))"
done
