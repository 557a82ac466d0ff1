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
# Included with -I rather than -isystem (a plain g++ or clang++ build, without the plugin),
# the headers and the templates a program instantiates from them warn of nothing under
# -Wall -Wextra: a user's -Werror build must not fail on our code.
{
  for h in stdlib/include/kernel/*.h; do echo "#include <${h#stdlib/include/}>"; done
  cat <<'EOF'
[[kernel::vectorize("float32(float32, float32)")]] float add(float a, float b) { return a + b; }
[[kernel::reduce]] float plus(float a, float b) { return a + b; }
constexpr kernel::ufunc<add> vadd;
constexpr kernel::reduce<plus> sum;
int main() {
  kernel::ndarray<float> x(100);
  const kernel::ndarray<float> y = vadd(kernel::lazy(x), 1.0f).eval();
  const float s = sum(vadd(kernel::lazy(x), 2.0f)) + sum(y);
  const kernel::ndarray<float> z = vadd(x, y);
  const kernel::ndarray<float> c = kernel::cumsum(z);
  return static_cast<int>(s + c[0]);
}
EOF
} >"$tmp/all.cpp"
for cxx in clang++-19 g++; do
  if ! "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I stdlib/include "$tmp/all.cpp" 2>"$tmp/log"; then
    echo "FAIL: $cxx -Wall -Wextra -Werror with -I stdlib/include:" >&2
    grep -E "error|warning" "$tmp/log" | head -20 >&2
    failed=1
  fi
done

# A histogram's even bins have NumPy's edges (k * step + lo, rounded twice) in a g++ build too:
# GCC's GNU modes contract the product and the sum into one fused multiply-add across
# statements where the CPU has one, which put values on an edge into the bin below (clang
# follows the header's fp-contract pragma; GCC has none).
if grep -qw fma /proc/cpuinfo; then
  cat >"$tmp/edges.cpp" <<'EOF'
#include <cstdio>
#include "kernel/detail/algorithm_kernel.h"
int main() {
  int wrong = 0;
  for (int bins = 3; bins < 200; ++bins) {
    const double lo = 0.1, hi = 7.3, step = (hi - lo) / bins;
    for (int k = 1; k < bins; ++k) {
      volatile double product = static_cast<double>(k) * step; // the edge, rounded twice
      wrong += kernel::detail::even_bin<double>(product + lo, lo, hi, bins) != k;
    }
  }
  std::printf("%d values on an edge in the wrong bin\n", wrong);
  return wrong != 0;
}
EOF
  if ! g++ -std=gnu++20 -O2 -march=x86-64-v3 -I stdlib/include "$tmp/edges.cpp" -o "$tmp/edges" 2>"$tmp/log" ||
    ! "$tmp/edges" >"$tmp/out"; then
    echo "FAIL: g++ -std=gnu++20 -march=x86-64-v3: histogram edges:" >&2
    cat "$tmp/log" "$tmp/out" >&2
    failed=1
  fi
fi

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
