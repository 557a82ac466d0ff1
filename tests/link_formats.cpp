// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Prints the extensions of kernel::detail::link_formats, one per line without the dot, for
// link_inputs_test.sh to compare with the Bazel rules' list.
#include <cstdio>

#include "kernel/detail/link_inputs.h"

int main() {
  for (const kernel::detail::link_format_info &f : kernel::detail::link_formats)
    std::printf("%.*s\n", static_cast<int>(f.extension.size() - 1), f.extension.data() + 1);
}
