// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's FFTs (runtime/fft/): one pass of 1-D transforms along an axis of a strided
// array, for kernel/fft.h: on the host (its own FFT: the cpu and parallel targets and the
// simulator's memory) and on CUDA memory (cuFFT, loaded on first use).
#pragma once

#include <string_view>

#include "kernel/types.h"

namespace kernel::detail {

class device_state;
class stream_state;

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
  bool input_disposable = false; // c2r: the input is the caller's own copy, which cuFFT may overwrite
};

/// Runs the transforms of every line along `axis`. `in` and `out` may be the same memory with
/// the same layout (in place); any other overlap is the caller's to avoid.
void fft_host(const fft_pass &p);

/// Queues the pass on `stream` of CUDA device `device`, through cuFFT: `in` and `out` are
/// that device's memory. cuFFT does not scale, so `scale` must be 1, nor take real input to
/// a complex transform, so `real_input` must be false (kernel/fft.h does both with kernels
/// of its own). The input of a c2r pass is kept (cuFFT overwrites it: it reads a copy) unless
/// the pass says it is disposable.
/// Plans are made once per layout, type, device and stream and kept (at most 64; released
/// once the stream is destroyed). Throws target_unavailable_error when cuFFT cannot be
/// loaded ($KERNEL_CUFFT_LIBRARY, else the toolkit's libcufft) and cuda_error naming the
/// cuFFT function and its status when a call fails; `name` (the kernel/fft.h function)
/// begins each message.
void fft_cuda(std::string_view name, const fft_pass &p, device_state &device, stream_state &stream);

/// Queues as fft_cuda does the leading passes of `passes[0..count)` that one cuFFT plan can
/// transform together, and returns how many (at least one): complex passes of one direction
/// and precision along distinct axes, the later ones in place on the first's output, up to
/// three, where their strides nest (runtime/fft/cufft_layout.h); so too a real pass followed
/// by forward complex ones in place (rfftn), and inverse complex passes followed by a real
/// pass of their output (irfftn, one plan from the first pass's input), where the real axis
/// is the innermost. Such a plan reads and writes the array once where a pass per axis does
/// so per axis (CuPy's fft2 and rfft2 make one too). kernel/fft.h's irfftn hands its passes
/// over together, on a Hermitian copy of the coefficients that it makes first.
int fft_cuda_passes(std::string_view name, const fft_pass *passes, int count, device_state &device,
                    stream_state &stream);

/// Loads cuFFT as fft_cuda does, or throws target_unavailable_error as it would.
void cufft_require(std::string_view name);

} // namespace kernel::detail
