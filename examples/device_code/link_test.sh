#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# link_test.sh PROGRAM SYMBOL [PROGRAM SYMBOL]...: PROGRAM --link links its modules for sm_75, sm_80,
# sm_86 and sm_90, and each cubin must define SYMBOL (the CUDA-C function) besides the kernels.
set -euo pipefail
export KERNEL_CACHE_DIR=off
while (($# >= 2)); do
  program=$1 symbol=$2
  shift 2
  out=$("$program" --link)
  echo "$out"
  for arch in sm_75 sm_80 sm_86 sm_90; do
    line=$(grep "^$arch: " <<<"$out") || { echo "FAIL: $program: nothing linked for $arch" >&2; exit 1; }
    grep -qE -- "(^| )$symbol( |\$)" <<<"${line#*defines}" || { echo "FAIL: $program: $symbol missing for $arch" >&2; exit 1; }
  done
done
echo PASS
