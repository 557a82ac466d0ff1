#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Each public header compiles on its own (a user includes only what they use), and none of
# them pulls in <filesystem>, <ranges> or <functional>, whose parsing every user's translation
# unit would pay (bench/compile_time.sh measures what the headers cost).
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for h in stdlib/include/kernel/*.h; do
  name=${h#stdlib/include/}
  printf '#include <%s>\nint main() {}\n' "$name" >"$tmp/one.cpp"
  if ! clang++-19 -std=c++20 -fsyntax-only -Werror -isystem stdlib/include -H "$tmp/one.cpp" 2>"$tmp/log"; then
    echo "FAIL: <$name> does not compile alone:" >&2
    grep -v "^\.\|^Multiple include guards\|^/" "$tmp/log" >&2 || true
    failed=1
    continue
  fi
  heavy=$(grep -oE "^\.+ [^ ]*/c\+\+/[0-9]+/(filesystem|ranges|functional)$" "$tmp/log" | sed 's|.*/||' | sort -u |
    tr '\n' ' ' || true)
  if [[ -n $heavy ]]; then
    echo "FAIL: <$name> includes $heavy" >&2
    failed=1
  fi
done
# Under an older standard the first error says what is needed.
printf '#include <kernel/kernel.h>\nint main() {}\n' >"$tmp/old.cpp"
if clang++-19 -std=c++17 -fsyntax-only -isystem stdlib/include "$tmp/old.cpp" 2>"$tmp/log"; then
  echo "FAIL: <kernel/kernel.h> compiled as C++17" >&2
  failed=1
elif ! grep -m1 "error:" "$tmp/log" | grep -q "the kernel headers need C++20"; then
  echo "FAIL: the first error under C++17 is not the C++20 requirement:" >&2
  grep -m3 "error:" "$tmp/log" >&2
  failed=1
fi
((failed == 0)) && echo PASS
exit $failed
