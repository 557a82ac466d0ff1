// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU side of kernel/fft.h on devices: what cuFFT does not do. Real input to a complex
// transform is widened to complex first, transforms of one point are conversions, inputs are
// cropped or padded with zeros to the lengths a call asks for (NumPy's `n` and `s`), arrays
// are rolled by half their length along axes (fftshift, ifftshift), and
// NumPy's normalisation is one multiplication at the end (by the product of each pass's
// factor). Complex values are pairs of their real type here.
#pragma once

#include "kernel/detail/algorithm_kernel.h"

namespace kernel::detail {

/// What fft_convert_entry does to each element.
enum class fft_conversion : int {
  widen,        // real to complex, the imaginary part 0
  copy_complex, // complex to complex
  real_part,    // complex to real
};

template <class R> struct fft_convert_params {
  const R *in;
  R *out;
  index_t n; // elements
  fft_conversion conversion;
};

/// Real input to complex, and the transforms of one point (which cuFFT is not asked for):
/// the identity, from real to complex, or from complex to real.
template <class R> struct fft_convert_entry {
  using params = fft_convert_params<R>;
  static constexpr ctext make_name() { return entry_name<R>("fft_convert"); }
  static constexpr auto kernel_name = to_text<&fft_convert_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&fft_convert_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) {
      switch (p.conversion) {
      case fft_conversion::widen:
        p.out[2 * i] = p.in[i];
        p.out[2 * i + 1] = R(0);
        break;
      case fft_conversion::copy_complex:
        p.out[2 * i] = p.in[2 * i];
        p.out[2 * i + 1] = p.in[2 * i + 1];
        break;
      case fft_conversion::real_part: p.out[i] = p.in[2 * i]; break;
      }
    }
  }
};

template <class R> struct fft_scale_params {
  R *values;
  index_t n;
  R factor;
};

template <class R> struct fft_scale_entry {
  using params = fft_scale_params<R>;
  static constexpr ctext make_name() { return entry_name<R>("fft_scale"); }
  static constexpr auto kernel_name = to_text<&fft_scale_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&fft_scale_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) p.values[i] *= p.factor;
  }
};

template <class R, std::size_t Rank> struct fft_resize_params {
  const R *in;
  R *out;
  index_t n;          // reals out
  index_t from[Rank]; // C-contiguous extents in, in reals (complex: the last doubled)
  index_t to[Rank];   // and out
};

/// out = in cropped or padded with zeros to a new shape, both C-contiguous: the input of a
/// transform of another length than the array's.
template <class R, std::size_t Rank> struct fft_resize_entry {
  using params = fft_resize_params<R, Rank>;
  static constexpr ctext make_name() { return entry_name<R>("fft_resize"); }
  static constexpr auto kernel_name = to_text<&fft_resize_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&fft_resize_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) {
      index_t rest = i, at = 0, stride = 1;
      bool inside = true;
      for (std::size_t d = Rank; d-- > 0;) {
        const index_t k = rest % p.to[d];
        rest /= p.to[d];
        inside = inside && k < p.from[d];
        at += k * stride;
        stride *= p.from[d];
      }
      p.out[i] = inside ? p.in[at] : R(0);
    }
  }
};

template <class R> struct fft_real_planes_params {
  R *values;       // complex values as pairs of R, C-contiguous
  index_t n;       // values changed: outer * inner * (nyquist < 0 ? 1 : 2)
  index_t length;  // along the real axis
  index_t inner;   // the product of the extents after it
  index_t nyquist; // n/2 for an even real length, else -1
};

/// Zeroes the imaginary parts that NumPy's inverse real transform ignores, of the values at
/// 0 and (for an even real length) n/2 along the real axis, once the complex passes over the
/// other axes are done: cuFFT's C2R reads them (on an H100 at n = 8192 it gave -149 where
/// NumPy gives 1). Only those planes are touched: a copy that made the whole spectrum
/// Hermitian first doubled the device time of irfft2.
template <class R> struct fft_real_planes_entry {
  using params = fft_real_planes_params<R>;
  static constexpr ctext make_name() { return entry_name<R>("fft_real_planes"); }
  static constexpr auto kernel_name = to_text<&fft_real_planes_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&fft_real_planes_entry::make_name>();
  static void run(const params &p) noexcept {
    const index_t planes = p.nyquist < 0 ? 1 : 2;
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) {
      const index_t within = i % p.inner, line = i / p.inner, plane = line % planes, outer = line / planes;
      const index_t at = (outer * p.length + (plane == 0 ? 0 : p.nyquist)) * p.inner + within;
      p.values[2 * at + 1] = R(0);
    }
  }
};

template <class R, std::size_t Rank> struct fft_shift_params {
  const R *in;
  R *out;
  index_t n;           // reals
  index_t shape[Rank]; // C-contiguous, in reals (complex: the last doubled)
  index_t from[Rank];  // out[k] = in[(k + from) mod shape] along each dimension
};

/// out = in rolled along each dimension: fftshift and ifftshift.
template <class R, std::size_t Rank> struct fft_shift_entry {
  using params = fft_shift_params<R, Rank>;
  static constexpr ctext make_name() { return entry_name<R>("fft_shift"); }
  static constexpr auto kernel_name = to_text<&fft_shift_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&fft_shift_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) {
      index_t rest = i, at = 0, stride = 1;
      for (std::size_t d = Rank; d-- > 0;) {
        index_t k = rest % p.shape[d] + p.from[d];
        rest /= p.shape[d];
        if (k >= p.shape[d]) k -= p.shape[d];
        at += k * stride;
        stride *= p.shape[d];
      }
      p.out[i] = p.in[at];
    }
  }
};

} // namespace kernel::detail
