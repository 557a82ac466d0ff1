#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The null driver still stands in for the CUDA driver the runtime uses (a driver function the
# runtime starts to use and the null driver lacks makes the runtime refuse it), and the host
# overhead benchmark runs every call on it. Times are not checked: this is not a benchmark.
#   host_overhead_smoke_test.sh BENCH LIBCUDA LIBCUFFT
set -euo pipefail
bench=$1
libs=$(mktemp -d "${TEST_TMPDIR:-/tmp}/null_driver.XXXXXX")
cp "$2" "$libs/libcuda.so.1"
cp "$3" "$libs/libcufft.so.12"
rc=0
out=$(LD_LIBRARY_PATH=$libs KERNEL_CUFFT_LIBRARY=$libs/libcufft.so.12 KERNEL_CACHE_DIR="$libs/cache" \
  NULL_CUFFT_TRACE=1 "$bench" 2>&1) || rc=$?
echo "$out"
((rc == 0)) || { echo "FAIL: the benchmark exited with $rc" >&2; exit 1; }
grep -q "null GPU" <<<"$out" || { echo "FAIL: the runtime did not take the null driver" >&2; exit 1; }
for call in "ufunc on three device arrays" "launch of a 4-argument kernel" "fft_inplace 64^2 complex64" \
  "rfft2 64^2 float32 (a new array)" "irfft2 64^2 float32 (a new array)" "rfft2 64^2 float32 (into an array)" \
  "irfft2 64^2 float32 (into an array)"; do
  grep -q "^$call.* ns per call" <<<"$out" || { echo "FAIL: no figure for '$call'" >&2; exit 1; }
done
# irfft2 of 64 x 64 is one two-dimensional C2R plan (type 0x2c) of the whole array.
grep -q "null cuFFT: plan [0-9]*, type 0x2c, rank 2, n 64 64" <<<"$out" ||
  { echo "FAIL: irfft2 was not one 2-D C2R plan" >&2; exit 1; }
echo PASS
