#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs one IR test of the kernel passes, as LLVM's lit would (Debian packages no lit): each
# `; RUN:` line of the file (a trailing \ continues it on the next one) runs in bash with
# pipefail, with these substitutions:
#   %s          the test file
#   %plugin     the pass library (libkernel_passes.so)
#   %libdevice  CUDA's libdevice bitcode
#   %t          a path in a fresh temporary directory
# and opt, FileCheck and not from LLVM 19 on the PATH.
#
# Then it checks that the test can fail: each RUN line that runs passes must fail when its
# pipeline (-passes=...) is replaced by no-op-module, that is, when the passes it tests do
# nothing.
#
# Usage: run_ir_test.sh PLUGIN LIBDEVICE TEST.ll
set -euo pipefail

plugin=$(readlink -f "$1")
libdevice=$(readlink -f "$2")
test_file=$(readlink -f "$3")
export PATH=/usr/lib/llvm-19/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_lines=()
line=""
while IFS= read -r text; do
  [[ $text =~ ^\;\ RUN:\ ?(.*)$ ]] || continue
  part=${BASH_REMATCH[1]}
  if [[ $part == *\\ ]]; then
    line+="${part%\\} "
    continue
  fi
  run_lines+=("$line$part")
  line=""
done <"$test_file"
[[ ${#run_lines[@]} -gt 0 ]] || { echo "FAIL: no RUN lines in $test_file" >&2; exit 1; }

substitute() {
  local s=$1
  s=${s//%plugin/$plugin}
  s=${s//%libdevice/$libdevice}
  s=${s//%t/$tmp/t}
  s=${s//%s/$test_file}
  printf '%s' "$s"
}

status=0
for run in "${run_lines[@]}"; do
  command=$(substitute "$run")
  echo "RUN: $command"
  if ! bash -o pipefail -c "$command"; then
    echo "FAIL: $run" >&2
    status=1
  fi
done
[[ $status == 0 ]] || exit 1

for run in "${run_lines[@]}"; do
  if [[ $run != *-passes=* ]]; then # setup, such as split-file
    bash -o pipefail -c "$(substitute "$run")" >/dev/null 2>&1
    continue
  fi
  no_op=$(sed -E "s/-passes=('[^']*'|\"[^\"]*\"|[^ ]+)/-passes=no-op-module/g" <<<"$run")
  if bash -o pipefail -c "$(substitute "$no_op")" >/dev/null 2>&1; then
    echo "FAIL: passes even when the passes do nothing: $run" >&2
    status=1
  fi
done
[[ $status == 0 ]] || exit 1
echo PASS
