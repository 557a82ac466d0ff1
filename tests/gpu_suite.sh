#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The GPU part of the test suite: the device-path tests again with KERNEL_TEST_DEVICE=cuda
# (the same tests that CI runs on the simulated device), then every example, each of which
# runs on the GPU when there is one and checks its results there against its reference.
# On a machine without a GPU it says so and passes.
#
#   tests/gpu_suite.sh TEST_BINARY... -- EXAMPLE_BINARY...
set -uo pipefail

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu_suite: no GPU on this machine; the GPU part of the suite did not run"
  exit 0
fi

tests=()
examples=()
seen_separator=false
for a in "$@"; do
  if [[ $a == -- ]]; then seen_separator=true
  elif $seen_separator; then examples+=("$a")
  else tests+=("$a")
  fi
done

failed=()
for t in "${tests[@]}"; do
  echo "== $(basename "$t") on the GPU"
  KERNEL_TEST_DEVICE=cuda "$t" --gtest_brief=1 || failed+=("$(basename "$t")")
done
for e in "${examples[@]}"; do
  echo "== $(basename "$e")"
  out=$("$e" 2>&1)
  rc=$?
  echo "$out"
  # With a GPU here, an example that skipped its cuda run is a failure too.
  if ((rc != 0)) || grep -q "not run here" <<<"$out"; then failed+=("$(basename "$e")"); fi
done

if ((${#failed[@]})); then
  echo "gpu_suite: FAILED: ${failed[*]}"
  exit 1
fi
echo "gpu_suite: all ${#tests[@]} test programs and ${#examples[@]} examples passed on the GPU"
