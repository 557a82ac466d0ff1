// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's host FFT (runtime/fft/): one pass of 1-D transforms along an axis of a strided
// array, for kernel/fft.h on the cpu and parallel targets and on the simulator's memory. The
// cuda target calls cuFFT instead.
#pragma once

#include "kernel/types.h"

namespace kernel::detail {

enum class fft_transform : int {
  c2c_forward, // complex to complex, e^{-2 pi i jk/n}
  c2c_inverse, // complex to complex, e^{+2 pi i jk/n}, unscaled
  r2c,         // real (n along the axis) to the n/2+1 first coefficients
  c2r,         // n/2+1 coefficients of a Hermitian spectrum to n real values
};

struct fft_pass {
  fft_transform transform = fft_transform::c2c_forward;
  bool double_precision = false; // complex128/float64, else complex64/float32
  bool real_input = false;       // c2c: the input is real (float32/float64), its imaginary parts 0
  int rank = 0;
  const index_t *in_shape = nullptr; // the two shapes differ only along `axis` (r2c, c2r)
  const index_t *out_shape = nullptr;
  const void *in = nullptr;
  const index_t *in_strides = nullptr; // elements (of the input's type: complex or real)
  void *out = nullptr;
  const index_t *out_strides = nullptr;
  int axis = 0;
  index_t n = 0;    // the transform's length: the real length for r2c and c2r
  double scale = 1; // multiplies every output
  bool parallel = false;
};

/// Runs the transforms of every line along `axis`. `in` and `out` may be the same memory with
/// the same layout (in place); any other overlap is the caller's to avoid.
void fft_host(const fft_pass &p);

} // namespace kernel::detail
