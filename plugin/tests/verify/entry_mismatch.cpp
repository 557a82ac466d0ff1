// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An entry template that does not have the shape the plugin instantiates (a <kernel/kernel.h>
// from another version) is an error at the attribute, not a function left without its entry.
namespace kernel::detail {
template <int N> void jit_kernel();
template <auto F> void ufunc_kernel(const void *params, long count);
} // namespace kernel::detail

// expected-error@+1 {{cannot instantiate kernel::detail::jit_kernel for 'fill' from <kernel/kernel.h>: the template does not take the function's address as its template argument (is the header from another version of the toolkit?)}}
[[kernel::jit]] void fill(float *a) { a[0] = 1; }

// expected-error@+1 {{cannot instantiate kernel::detail::ufunc_kernel for 'twice' from <kernel/kernel.h>: the entry does not take exactly one parameter block (is the header from another version of the toolkit?)}}
[[kernel::vectorize]] float twice(float x) { return 2 * x; }
