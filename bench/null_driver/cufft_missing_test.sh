#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs cufft_missing_test on the null driver (no GPU needed): its libcuda.so.1 first on the
# library path, the null libcufft given for the second half of the test.
#   cufft_missing_test.sh TEST LIBCUDA LIBCUFFT
set -euo pipefail
libs=$(mktemp -d "${TEST_TMPDIR:-/tmp}/null_driver.XXXXXX")
cp "$2" "$libs/libcuda.so.1"
cp "$3" "$libs/libcufft.so.12"
LD_LIBRARY_PATH=$libs KERNEL_CACHE_DIR="$libs/cache" exec "$1" "$libs/libcufft.so.12"
