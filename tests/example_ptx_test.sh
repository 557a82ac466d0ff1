#!/usr/bin/env bash
# Every PTX module embedded in every example binary assembles with ptxas for the
# architecture it was generated for (sm_75 and sm_90 each).
set -euo pipefail
kernel_ptx=$1
shift
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for binary in "$@"; do
  dir=$tmp/$(basename "$binary")
  /usr/bin/python3 "$kernel_ptx" extract "$binary" "$dir" >/dev/null
  archs=()
  for ptx in "$dir"/*.ptx; do
    [[ -e $ptx ]] || { echo "FAIL: no PTX embedded in $binary" >&2; exit 1; }
    arch=${ptx%.ptx}
    arch=${arch##*.}
    "$ptxas" -arch="$arch" -c "$ptx" -o "$tmp/out.cubin" ||
      { echo "FAIL: $(basename "$ptx") of $binary does not assemble for $arch" >&2; exit 1; }
    archs+=("$arch")
  done
  sorted=$(printf '%s\n' "${archs[@]}" | sort -u | tr '\n' ' ')
  [[ $sorted == "sm_75 sm_90 " ]] || { echo "FAIL: $binary has PTX for '$sorted'" >&2; exit 1; }
  echo "$(basename "$binary"): ${#archs[@]} PTX modules assemble ($sorted)"
done
echo PASS
