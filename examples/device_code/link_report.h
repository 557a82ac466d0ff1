// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// `PROGRAM --link`: links the program's GPU modules with its CUDA-C code for sm_75, sm_80,
// sm_86 and sm_90 (nvJitLink runs on the CPU, no GPU needed) and lists what each cubin
// defines, one line per module and architecture. link_test.sh reads these lines. sm_80 and
// sm_86 have no cubin of their own in the libraries: they link the oldest architecture's PTX.
#pragma once

#include <kernel/kernel.h>

#include <cstdio>
#include <string>

inline int print_linked_modules() {
  for (int arch : {75, 80, 86, 90})
    for (const kernel::linked_module &m : kernel::link_modules(arch)) {
      std::printf("%s: %s linked with", m.arch.c_str(), m.kernels.front().c_str());
      for (const std::string &l : m.linked) std::printf(" %s", l.c_str());
      std::printf(" (%zu bytes); defines", m.cubin_bytes);
      for (const std::string &s : m.symbols) std::printf(" %s", s.c_str());
      std::printf("\n");
    }
  return 0;
}
