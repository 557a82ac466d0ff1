#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs an example program (with any arguments after it); it checks its own results and exits non-zero when they are wrong.
set -euo pipefail
"$@"
