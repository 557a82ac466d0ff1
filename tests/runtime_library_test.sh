#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# libkernel_runtime.so can be loaded with dlopen by any process: no initial-exec TLS (which
# needs room in the static TLS block that a process may have used up), and it loads.
set -euo pipefail
lib=$(readlink -f "$1")
if readelf -d "$lib" | grep -q STATIC_TLS; then
  echo "FAIL: $lib uses initial-exec TLS (STATIC_TLS):" >&2
  readelf -r "$lib" | grep TPOFF >&2 || true
  exit 1
fi
python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$lib"
echo "PASS: $lib has no static TLS and loads with dlopen"
