#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The first GPU call of a process, cold (empty cache: nvJitLink links the module) and from
# the disk cache (a second process), each in a fresh process. Needs a GPU.
#
#   bazel build -c opt //bench:gpu_ufunc_bench && bench/gpu_cold_start.sh [runs]
set -euo pipefail
binary=${BINARY:-bazel-bin/bench/gpu_ufunc_bench}
runs=${1:-5}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
for ((r = 1; r <= runs; r++)); do
  rm -rf "${cache:?}"/*
  cold=$(KERNEL_CACHE_DIR=$cache "$binary" first-call)
  case $cold in first_call*) ;; *) echo "$cold"; exit 0 ;; esac
  # The cold run must have written the entry that the second one reads.
  entries=$(find "$cache" -type f | wc -l)
  warm=$(KERNEL_CACHE_DIR=$cache "$binary" first-call)
  echo "run $r: cold ${cold#first_call } | disk-cached ${warm#first_call } | $entries cache file(s) after the cold run"
done
