#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The null driver, cuFFT, cuBLAS and cuSPARSE still stand in for the libraries the runtime
# uses (a function the runtime starts to use and a null library lacks makes the runtime refuse
# it), the host overhead benchmark runs every call on them, and they count the calls made
# into them. Times are not checked: this is not a benchmark.
#   host_overhead_smoke_test.sh BENCH LIBCUDA LIBCUFFT LIBCUBLAS LIBCUSPARSE
set -euo pipefail
bench=$1
libs=$(mktemp -d "${TEST_TMPDIR:-/tmp}/null_driver.XXXXXX")
cp "$2" "$libs/libcuda.so.1"
cp "$3" "$libs/libcufft.so.12"
cp "$4" "$libs/libcublas.so.13"
cp "$5" "$libs/libcusparse.so.12"
rc=0
out=$(LD_LIBRARY_PATH=$libs KERNEL_CUFFT_LIBRARY=$libs/libcufft.so.12 KERNEL_CUBLAS_LIBRARY=$libs/libcublas.so.13 \
  KERNEL_CUSPARSE_LIBRARY=$libs/libcusparse.so.12 KERNEL_CACHE_DIR="$libs/cache" NULL_CUFFT_TRACE=1 "$bench" 2>&1) ||
  rc=$?
echo "$out"
((rc == 0)) || { echo "FAIL: the benchmark exited with $rc" >&2; exit 1; }
grep -q "null GPU" <<<"$out" || { echo "FAIL: the runtime did not take the null driver" >&2; exit 1; }
for call in "ufunc on three device arrays" "launch of a 4-argument kernel" "fft_inplace 64^2 complex64" \
  "rfft2 64^2 float32 (a new array)" "irfft2 64^2 float32 (a new array)" "rfft2 64^2 float32 (into an array)" \
  "irfft2 64^2 float32 (into an array)" "matrix_product 8 x 64^2 float32" "dot 2^10 float32" \
  "spmv 256 rows, 8 per row"; do
  grep -q "^$call.* ns per call" <<<"$out" || { echo "FAIL: no figure for '$call'" >&2; exit 1; }
  # The line after each figure: the library calls the null libraries counted.
  grep -A1 "^$call.* ns per call" <<<"$out" | grep -q "library calls per call: [1-9]" ||
    { echo "FAIL: no library calls counted for '$call'" >&2; exit 1; }
done
# What the direct calls make, counted: one launch; one transform; one product.
grep -A1 "^launch of a 4-argument kernel" <<<"$out" | grep -q "direct 1 (cuLaunchKernel 1)$" ||
  { echo "FAIL: the direct launch was not counted as one cuLaunchKernel" >&2; exit 1; }
grep -A1 "^fft_inplace 64^2 complex64 " <<<"$out" | grep -q "direct 1 (cufftExecC2C 1)$" ||
  { echo "FAIL: the direct transform was not counted as one cufftExecC2C" >&2; exit 1; }
grep -A1 "^matrix_product 8 x 64^2" <<<"$out" | grep -q "direct 1 (cublasGemmStridedBatchedEx 1)$" ||
  { echo "FAIL: the direct product was not counted as one cublasGemmStridedBatchedEx" >&2; exit 1; }
# irfft2 of 64 x 64 is one two-dimensional C2R plan (type 0x2c) of the whole array.
grep -q "null cuFFT: plan [0-9]*, type 0x2c, rank 2, n 64 64" <<<"$out" ||
  { echo "FAIL: irfft2 was not one 2-D C2R plan" >&2; exit 1; }
echo PASS
