// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU side of kernel/fft.h on devices: what cuFFT does not do. Real input to a complex
// transform is widened to complex first, transforms of one point are conversions, inputs are
// cropped or padded with zeros to the lengths a call asks for (NumPy's `n` and `s`), arrays
// are rolled by half their length along axes (fftshift, ifftshift), and
// NumPy's normalisation is one multiplication at the end (by the product of each pass's
// factor), or for the inverse real transforms part of the copy their input is made into.
// Complex values are pairs of their real type here.
#pragma once

#include "kernel/detail/algorithm_kernel.h"

namespace kernel::detail {

/// What fft_convert_entry does to each element.
enum class fft_conversion : int {
  widen,        // real to complex, the imaginary part 0
  copy_complex, // complex to complex
  real_part,    // complex to real
  conjugate,    // complex to its conjugate (hfft, ihfft; in place too)
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
      case fft_conversion::conjugate:
        p.out[2 * i] = p.in[2 * i];
        p.out[2 * i + 1] = -p.in[2 * i + 1];
        break;
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

template <class R, std::size_t Rank> struct fft_hermitian_params {
  const R *in;         // complex values as pairs of R, C-contiguous
  R *out;              // the same layout; may be `in`
  index_t n;           // complex values
  index_t shape[Rank]; // in complex values
  unsigned mirrored;   // bit d: axis d is one of the complex passes' axes
  index_t real_inner;  // the product of the extents after the real axis
  index_t real_extent; // the real axis' extent (coefficients: n/2 + 1 for a real length n)
  index_t nyquist;     // n/2 for an even real length, else -1
  R scale;             // the product of every pass's normalisation
  bool paired;         // `in` and `out` start on a whole complex value's alignment
};

/// The input of cuFFT's complex-to-real plan, made from the coefficients of an inverse real
/// transform (irfft, irfft2, irfftn): every value multiplied by the call's normalisation, and
/// the two planes NumPy reads only the real parts of (at 0 and n/2 along the real axis, after
/// the complex passes over the other axes) made Hermitian along those axes, each value and its
/// mirror v[-k] replaced by (v[k] + conj(v[-k])) / 2. Taking the real part after an inverse
/// transform is the same as that symmetrization before it, so the whole spectrum is then one
/// that cuFFT's C2R of every axis at once reads as NumPy's passes do, and the call is one
/// plan and this one pass (which the copy that C2R's overwriting of its input needs anyway).
/// The thread of the lower of a value and its mirror writes both, so `out` may be `in`. The
/// plane test is one 32-bit division per value where the array allows (a whole-index
/// division per value was what made an earlier symmetrizing copy twice as slow).
template <class R, std::size_t Rank> struct fft_hermitian_entry {
  using params = fft_hermitian_params<R, Rank>;
  static constexpr ctext make_name() { return entry_name<R>("fft_hermitian"); }
  static constexpr auto kernel_name = to_text<&fft_hermitian_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&fft_hermitian_entry::make_name>();
  KERNEL_ALWAYS_INLINE static index_t along_real_axis(const params &p, index_t i) noexcept {
    if (p.n <= index_t{0xffffffff}) {
      const auto line = p.real_inner == 1 ? static_cast<std::uint32_t>(i)
                                          : static_cast<std::uint32_t>(i) / static_cast<std::uint32_t>(p.real_inner);
      return static_cast<index_t>(line % static_cast<std::uint32_t>(p.real_extent));
    }
    return (i / p.real_inner) % p.real_extent;
  }
  /// A complex value as one load and one store of twice its real's width: two loads and
  /// stores of a real each, 8 bytes apart across a warp, took this pass to half the memory's
  /// speed (19 us for 2048 x 1025 values on an H200).
  struct alignas(2 * sizeof(R)) pair {
    R re, im;
  };
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) {
      R re, im;
      if (p.paired) {
        const pair v = reinterpret_cast<const pair *>(p.in)[i];
        re = v.re;
        im = v.im;
      } else {
        re = p.in[2 * i];
        im = p.in[2 * i + 1];
      }
      const index_t k = along_real_axis(p, i);
      if (k != 0 && k != p.nyquist) {
        if (p.paired) {
          reinterpret_cast<pair *>(p.out)[i] = pair{re * p.scale, im * p.scale};
        } else {
          p.out[2 * i] = re * p.scale;
          p.out[2 * i + 1] = im * p.scale;
        }
        continue;
      }
      index_t rest = i, mirror = 0, stride = 1;
      for (std::size_t d = Rank; d-- > 0;) {
        const index_t e = p.shape[d], at = rest % e;
        rest /= e;
        mirror += ((p.mirrored >> d) & 1u && at != 0 ? e - at : at) * stride;
        stride *= e;
      }
      if (mirror < i) continue; // written by the thread of the mirror
      const R half = p.scale / R(2);
      if (mirror == i) {
        p.out[2 * i] = re * p.scale;
        p.out[2 * i + 1] = R(0);
        continue;
      }
      const R mre = p.in[2 * mirror], mim = p.in[2 * mirror + 1];
      p.out[2 * i] = (re + mre) * half;
      p.out[2 * i + 1] = (im - mim) * half;
      p.out[2 * mirror] = (re + mre) * half;
      p.out[2 * mirror + 1] = (mim - im) * half;
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
