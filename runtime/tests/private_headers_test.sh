#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The runtime's headers are private to it: a target that depends on //runtime compiles with
# the include paths //runtime exports ($1, one flag a line), with which <kernel/kernel.h>
# compiles and no header of the runtime's layers is found by the name the layers use for it
# ("cuda/driver.h"), though each is there (runtime/<layer>/<name>.h in the runfiles).
set -uo pipefail

mapfile -t flags < "$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
  echo "FAIL: $*"
  status=1
}

echo '#include <kernel/kernel.h>' > "$tmp/public.cpp"
clang++-19 -std=c++20 -fsyntax-only "${flags[@]}" "$tmp/public.cpp" ||
  fail "<kernel/kernel.h> does not compile with the include paths of //runtime"

mapfile -t headers < <(cd runtime && find . -name '*.h' | sed 's|^\./||' | sort)
[[ " ${headers[*]} " == *" cuda/driver.h "* ]] ||
  fail "runtime/cuda/driver.h is not in the runfiles: the check below would prove nothing"

for h in "${headers[@]}"; do
  echo "#include \"$h\"" > "$tmp/private.cpp"
  if clang++-19 -std=c++20 -E "${flags[@]}" "$tmp/private.cpp" -o /dev/null 2> "$tmp/err"; then
    fail "a target that depends on //runtime can include \"$h\""
  elif ! grep -q "'$h' file not found" "$tmp/err"; then
    fail "including \"$h\" fails, but not because it is not found:"
    cat "$tmp/err"
  fi
  # The check can fail: with the runtime's include root the header is found.
  clang++-19 -std=c++20 -E "${flags[@]}" -iquote runtime "$tmp/private.cpp" -o /dev/null 2> "$tmp/err"
  ! grep -q "'$h' file not found" "$tmp/err" || fail "\"$h\" is not found under runtime/ either"
done

[[ $status == 0 ]] && echo "PASS: ${#headers[@]} runtime headers, none visible to users of //runtime"
exit $status
