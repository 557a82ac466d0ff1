#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# nvcc.sh NVCC ARGS...: runs the toolkit's nvcc from where it is installed. nvcc finds the
# rest of its toolkit (nvvm, cicc, the headers) from the path it was started by, and Bazel
# hands actions a symlink to it (a sandbox's, or @cuda's), whose directory has none of that.
set -euo pipefail
nvcc=$(readlink -f "$1")
shift
exec "$nvcc" "$@"
