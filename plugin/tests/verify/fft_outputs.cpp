// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// An FFT's output array (NumPy's out, the second argument) of the wrong rank or the wrong
// kind of element is refused at compile time with one message each: coefficients are
// complex, an inverse real transform's values real. Precisions may differ (host arrays
// convert); shapes are checked at run time.
#include <complex>
#include <vector>

#include <kernel/fft.h>

using c64 = std::complex<float>;

void outputs(const kernel::ndarray<float, 2> &r, const kernel::ndarray<c64, 2> &c, kernel::ndarray<float, 2> &reals,
             kernel::ndarray<c64, 1> &line, kernel::ndarray<c64, 2> &coefficients,
             kernel::ndarray<std::complex<double>, 2> &wide, kernel::ndarray<double, 2> &wide_reals,
             const kernel::ndarray<c64, 2> &fixed) {
  kernel::fft2(c, reals);          // complex results into reals
  kernel::rfft2(r, line);          // rank 1 for rank 2
  kernel::irfft2(c, coefficients); // real results into complex values
  kernel::fft(r, reals, 8);        // real input, complex results, into reals
  kernel::fftn(c, wide, {0, 1});   // other precisions are taken
  kernel::irfftn(c, wide_reals);
  kernel::fft2(c, fixed);          // a const output
}
// expected-error@* 2 {{the output of a transform to coefficients is a complex64 or complex128 array}}
// expected-error@* 1 {{an FFT's output array (argument 2) has the rank of its input}}
// expected-error@* 1 {{an FFT's output array (argument 2) is written, so neither const nor of const elements}}
// expected-error@* 1 {{the output of an inverse real transform (irfft, irfft2, irfftn) is a float32 or float64 array}}
// expected-note@* 0+ {{in instantiation of}}
// expected-note@* 0+ {{requested here}}
// expected-note@* 0+ {{evaluates to}}
// expected-note@* 0+ {{while substituting}}
