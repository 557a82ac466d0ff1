// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The seed's foo kernel (out[i] = bar(inp[i], 2)) and its check, shared by the C-ABI and
// the Numba-convention programs: only the declaration of bar differs between them.
#pragma once

#include <kernel/kernel.h>

#include "link_report.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

[[kernel::jit]] void foo(kernel::array_view<const int> inp, kernel::array_view<int> out) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < out.size()) out[i] = bar(inp[i], 2);
}

inline bool run_foo(kernel::device d, const std::vector<int> &inp) {
  std::vector<int> out(inp.size(), 0);
  kernel::launch<foo>((inp.size() + 127) / 128, 128).on(d)(inp, out);
  bool ok = true;
  for (std::size_t i = 0; i < inp.size(); ++i) ok &= out[i] == inp[i] * 2 + 1;
  std::printf("foo on %-40s out[5] = %d (expected %d) %s\n", d.name().c_str(), out[5], inp[5] * 2 + 1,
              ok ? "ok" : "WRONG");
  return ok;
}

inline int foo_main(int argc, char **argv, void (*extra)(kernel::device)) {
  if (argc > 1 && std::strcmp(argv[1], "--link") == 0) return print_linked_modules();
  std::vector<int> inp(1000);
  for (std::size_t i = 0; i < inp.size(); ++i) inp[i] = static_cast<int>(i);
  bool ok = run_foo(kernel::device::simulator(), inp);
  try {
    kernel::device gpu = kernel::device::cuda();
    ok &= run_foo(gpu, inp);
    if (extra) extra(gpu);
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("cuda: not run here (%s)\n", e.what());
  }
  if (extra) extra(kernel::device::simulator());
  return ok ? 0 : 1;
}
