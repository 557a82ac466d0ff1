// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Without <kernel/kernel.h> (here only <kernel/array.h>, whose templates the functions use),
// each attribute says so once, at the attribute, with no notes about unrelated instantiations.
#include <kernel/array.h>

// expected-error@+1 {{kernel::guvectorize needs the declarations of <kernel/kernel.h>: include it before 'first'}}
[[kernel::guvectorize("(n)->()")]] void first(kernel::array_view<const float> a, float &out) {
  out = a[0];
}
// expected-error@+1 {{kernel::jit needs the declarations of <kernel/kernel.h>: include it before 'fill'}}
[[kernel::jit]] void fill(kernel::array_view<float> a) { a[0] = 1; }
