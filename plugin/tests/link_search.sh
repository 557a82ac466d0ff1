#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Where a relative [[kernel::link]] path is looked for: beside the naming file, then at the
# same directory in each link root (a build's generated files, mirroring the sources), then
# on the include path, as #include "..." looks; the first found wins, and a file found
# nowhere is an error naming the first place looked at.
set -euo pipefail
plugin=$(realpath "$1")
ptx=$(realpath "$2")
stdlib=$(realpath stdlib/include)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p pkg gen/pkg inc/pkg
cp "$ptx" pkg/beside.ptx
cp "$ptx" gen/pkg/generated.ptx
cp "$ptx" inc/pkg/included.ptx
# Found beside the file and in the root too: the file's own directory wins.
cp "$ptx" gen/pkg/beside.ptx
cat >pkg/uses.cpp <<'CPP'
#include <kernel/kernel.h>
extern "C" [[kernel::declare_device, kernel::link("beside.ptx", "generated.ptx")]] int linked_a(int);
extern "C" [[kernel::declare_device, kernel::link("pkg/included.ptx")]] int linked_b(int);
[[kernel::jit]] void k(kernel::array_view<int> out) { out[0] = linked_a(1) + linked_b(2); }
CPP
compile() {
  # The resolved paths are in the annotations the plugin leaves on the declarations.
  clang++-19 -std=c++20 -fsyntax-only -fno-color-diagnostics -fplugin="$plugin" -isystem "$stdlib" \
    -Xclang -ast-dump -Xclang -ast-dump-filter=linked_ "$@" pkg/uses.cpp >uses.ast 2>out.txt
}
if ! compile -fplugin-arg-kernel-link-root=gen -iquote inc; then
  cat out.txt
  echo "FAIL: the files were not found" >&2
  exit 1
fi
for path in pkg/beside.ptx gen/pkg/generated.ptx inc/pkg/included.ptx; do
  grep -qF "$path" uses.ast || { echo "FAIL: '$path' was not the file linked" >&2; exit 1; }
done
if grep -qF gen/pkg/beside.ptx uses.ast; then
  echo "FAIL: a file in a link root was taken over the one beside the source" >&2
  exit 1
fi
# Without the root or the include path, the files are missing, each reported where named.
if compile; then
  echo "FAIL: files outside the search compiled" >&2
  exit 1
fi
cat out.txt
grep -qF "uses.cpp:2:65: error: cannot find the device code 'generated.ptx' to link (looked for 'pkg/generated.ptx', in the link roots and on the include path)" out.txt ||
  { echo "FAIL: generated.ptx's error" >&2; exit 1; }
grep -qF "uses.cpp:3:51: error: cannot find the device code 'pkg/included.ptx' to link" out.txt ||
  { echo "FAIL: pkg/included.ptx's error" >&2; exit 1; }
if grep -qF "'beside.ptx'" out.txt; then
  echo "FAIL: beside.ptx was not found beside its file" >&2
  exit 1
fi
# A root is a value.
if clang++-19 -std=c++20 -fsyntax-only -fplugin="$plugin" -fplugin-arg-kernel-link-root= \
  -isystem "$stdlib" pkg/uses.cpp 2>out.txt; then
  echo "FAIL: an empty link root was accepted" >&2
  exit 1
fi
grep -qF "kernel plugin: 'link-root' needs a value" out.txt || { cat out.txt; exit 1; }
echo PASS
