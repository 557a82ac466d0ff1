#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs clang's -verify mode with the kernel plugin over one test file: every diagnostic the
# file expects (// expected-error {{...}}) must be reported, and nothing else. A crash of
# clang fails the test even if the diagnostics matched.
set -uo pipefail
plugin=$1
source=$2
out=$(clang++-19 -std=c++20 -fsyntax-only -ferror-limit=0 -fno-color-diagnostics \
  -fplugin="$plugin" -isystem stdlib/include -Xclang -verify "$source" 2>&1)
status=$?
echo "$out"
if grep -q "PLEASE submit a bug report" <<<"$out"; then
  echo "FAIL: clang crashed on $source" >&2
  exit 1
fi
exit $status
