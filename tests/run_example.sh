#!/usr/bin/env bash
# Runs an example program; it checks its own results and exits non-zero when they are wrong.
set -euo pipefail
"$1"
