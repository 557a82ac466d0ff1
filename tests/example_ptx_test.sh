#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Every PTX module embedded in every program given (examples, tests) assembles with ptxas for the
# architecture it was generated for (sm_75 and sm_90 each), and reads its kernels'
# parameter blocks in the parameter space: a generic pointer to a block (cvta.param) makes
# every thread read it through memory, which cost the GPU ufuncs a third of their bandwidth.
# The runtime's array-algorithm kernels over plain numbers (compaction, radix sort passes,
# permutations, gathers and scatters, histograms, run heads, random fills, strided copies)
# keep their per-thread arrays in registers: a stack frame means an array indexed by a
# variable went to local memory, which cost the compaction a round trip of 128 bytes a thread.
# (top_k's per-thread candidates, of a length known at run time, live there by design.)
# The compaction's wide tiles (a predicate over values of at most 4 bytes), laid out for
# blocks of 512 threads, bound them (.maxntid) and ask for two such blocks a multiprocessor on
# sm_90 (.minnctapersm 2: 64 registers a thread), one on Turing's smaller multiprocessors; the
# other compactions run unbounded blocks of 256.
set -euo pipefail
kernel_ptx=$1
shift
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for binary in "$@"; do
  dir=$tmp/$(basename "$binary")
  /usr/bin/python3 "$kernel_ptx" extract "$binary" "$dir" >/dev/null
  # A test built without -c opt keeps its objects, and their PTX, in a library of its own.
  while read -r lib; do
    /usr/bin/python3 "$kernel_ptx" extract "$lib" "$dir" >/dev/null
  done < <(ldd "$binary" | awk '$1 ~ /objects\.so$/ && $3 != "not" {print $3}')
  archs=()
  for ptx in "$dir"/*.ptx; do
    [[ -e $ptx ]] || { echo "FAIL: no PTX embedded in $binary" >&2; exit 1; }
    arch=${ptx%.ptx}
    arch=${arch##*.}
    "$ptxas" -arch="$arch" -v -c "$ptx" -o "$tmp/out.cubin" 2>"$tmp/ptxas.log" ||
      { cat "$tmp/ptxas.log" >&2; echo "FAIL: $(basename "$ptx") of $binary does not assemble for $arch" >&2; exit 1; }
    framed=$(awk '/Function properties for/ {name = $NF}
                  /bytes stack frame/ && $1 + 0 > 0 && name ~ /(13compact_entry|11radix_entry|14radix_io_entry|13permute_entry|11index_entry|15histogram_entry|15run_heads_entry|17random_fill_entry|18strided_copy_entry|17segment_key_entry)/ {print name ": " $1 " bytes"}' \
      "$tmp/ptxas.log")
    if [[ -n $framed ]]; then
      echo "FAIL: $(basename "$ptx") of $binary: runtime kernels keep arrays in local memory:" >&2
      echo "$framed" >&2
      exit 1
    fi
    blocks=$([[ $arch == sm_75 ]] && echo 1 || echo 2)
    # Each compaction kernel: bounded as a wide tile (.maxntid 512 with .minnctapersm for this
    # architecture), or not at all; those of a predicate over float, int32 or uint32 are wide.
    misbounded=$(awk -v blocks="$blocks" '
      function judge() {
        if (!name) return
        wide = name ~ /13compact_entryI[fij]Xad/
        if (threads == "" && rest == "" && !wide) return
        if (threads != "512, 1, 1" || rest != blocks) print name " (.maxntid " threads ", .minnctapersm " rest ")"
      }
      /\.entry / {name = $3 ~ /13compact_entry/ ? $3 : ""; threads = ""; rest = ""; next}
      name && /^\.maxntid / {threads = substr($0, 10); next}
      name && /^\.minnctapersm / {rest = $2; next}
      name && /^\{/ {judge(); name = ""}' "$ptx")
    if [[ -n $misbounded ]]; then
      echo "FAIL: $(basename "$ptx") of $binary: compaction kernels not bounded as wide tiles (.maxntid 512, .minnctapersm $blocks) or not at all:" >&2
      echo "$misbounded" >&2
      exit 1
    fi
    if grep -q "cvta.param" "$ptx"; then
      echo "FAIL: $(basename "$ptx") of $binary takes a generic pointer to a kernel's parameter block:" >&2
      grep -n "cvta.param" "$ptx" >&2
      exit 1
    fi
    archs+=("$arch")
  done
  sorted=$(printf '%s\n' "${archs[@]}" | sort -u | tr '\n' ' ')
  [[ $sorted == "sm_75 sm_90 " ]] || { echo "FAIL: $binary has PTX for '$sorted'" >&2; exit 1; }
  echo "$(basename "$binary"): ${#archs[@]} PTX modules assemble ($sorted)"
done
# A file without modules is said to hold none (on stderr; the listing itself is empty).
listed=$(/usr/bin/python3 "$kernel_ptx" list /usr/bin/python3 2>"$tmp/list.err")
[[ -z $listed ]] && grep -q "holds no PTX modules" "$tmp/list.err" ||
  { echo "FAIL: kernel-ptx list of a file without modules said: $listed $(cat "$tmp/list.err")" >&2; exit 1; }
echo PASS
