#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Every PTX module embedded in every example links with nvJitLink (as the runtime links it
# on a GPU) into cubins for sm_75 and sm_90 that contain all of its kernels.
set -euo pipefail
kernel_ptx=$1
check=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for binary in "$@"; do
  /usr/bin/python3 "$kernel_ptx" extract "$binary" "$tmp/$(basename "$binary")" >/dev/null
done
"$check" "$tmp"/*/*.ptx
echo PASS
