#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The Bazel rules accept exactly the device code formats the compiler and runtime link, in the
# same order: tools/bazel/link_inputs.bzl against kernel/detail/link_inputs.h.
set -euo pipefail
table=$("$1")
bazel_list=$(python3 -c '
import ast, sys
for node in ast.parse(open(sys.argv[1]).read()).body:
    if isinstance(node, ast.Assign) and node.targets[0].id == "LINK_INPUT_EXTENSIONS":
        print("\n".join(ast.literal_eval(node.value)))
' "$2")
[[ -n $table ]] || { echo "FAIL: the C++ table is empty" >&2; exit 1; }
if [[ $table != "$bazel_list" ]]; then
  echo "FAIL: kernel/detail/link_inputs.h lists" $table "but tools/bazel/link_inputs.bzl lists" $bazel_list >&2
  exit 1
fi
echo "PASS: both list" $table
