// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// fft2, ifft2, rfft2 and irfft2 without axes transform the last two: an array of rank 1 has
// no two, which its type says, so the call is a compile error rather than an argument_error
// naming axes the caller never wrote. With axes given, or for the n-dimensional transforms,
// rank 1 is fine.
#include <complex>
#include <vector>

#include <kernel/fft.h>

using c64 = std::complex<float>;

void defaults(const kernel::ndarray<float, 1> &r, const kernel::ndarray<c64, 1> &c, kernel::ndarray<c64, 1> &out) {
  (void)kernel::fft2(c);  // no last two axes
  (void)kernel::rfft2(r); // nor here
  kernel::ifft2(c, out);  // nor into an array
  (void)kernel::fftn(c);  // every axis: one
  (void)kernel::fft2(c, {0});
  (void)kernel::rfftn(r);
}
// One diagnostic per instantiation: fft2's and ifft2's of complex64 rank 1 are one.
// expected-error@* 2 {{fft2, ifft2, rfft2 and irfft2 transform the last two axes by default}}
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{requested here}}
// expected-note@* 0+ {{evaluates to}}
// expected-note@* 0+ {{while substituting}}
