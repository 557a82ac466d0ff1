// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fast Fourier transforms of arrays, on every target, with NumPy's conventions:
//
//   auto X = kernel::fft(x);                      // 1-D, along the last axis; NumPy's
//   auto X2 = kernel::fft(x, 4096, 0);            // (x, n, axis, norm): padded, along axis 0
//   auto Y = kernel::fft2(image);                 // the last two axes
//   auto Z = kernel::fftn(volume, {0, 2});        // chosen axes (all by default)
//   auto x2 = kernel::ifft(X);                    // inverses: ifft, ifft2, ifftn
//   auto H = kernel::rfft(signal);                // real input: the n/2+1 first coefficients
//   auto s = kernel::irfft(H, n);                 // back to n real values
//   auto R = kernel::rfft2(image);                // real along the last axis, complex the other
//   auto r = kernel::irfft2(R, {-2, -1}, {h, w}); // rfftn, irfftn: along any axes
//   auto P = kernel::fft2(x, {0, 1}, {64, 64});   // lengths (NumPy's s): cropped or zero-padded
//   kernel::rfft2(image, spectrum);               // into a given array (NumPy's out), second
//   kernel::fft(x, X, {}, 0);                     // then the same arguments as without it
//   auto C = kernel::fftshift(F);                 // zero frequency in the middle; ifftshift back
//   auto h = kernel::hfft(half, n);               // a Hermitian signal's real spectrum; ihfft back
//   auto f = kernel::fftfreq(n, dt);              // the coefficients' frequencies; rfftfreq
//   kernel::fft_inplace(image);                   // complex arrays, every axis by default
//   kernel::ifft_inplace(image, {0, 1}, kernel::fft_norm::ortho);
//
// Inputs are any arrays (std::vector, ndarray, views of any strides, device arrays, or lazy
// expressions of kernel/fuse.h, evaluated into arrays first where the call runs) of
// float32/float64 (transformed as complex with zero imaginary parts) or complex64/complex128;
// results are complex64 for single precision and complex128 for double (as CuPy; NumPy
// always gives complex128). `norm`: backward (forward transforms unscaled, inverses divided by
// n), ortho (both by sqrt(n)) or forward (forward divided by n). The target follows the arrays
// and `.on(...)`, as for ufuncs: device arrays give device arrays. cpu and parallel use the
// runtime's FFT (runtime/fft/: mixed radix, Bluestein for large prime factors), and so does
// the simulator, on its memory, in stream order. CUDA devices use cuFFT, loaded at the first
// transform of CUDA memory ($KERNEL_CUFFT_LIBRARY, else the toolkit's libcufft), with its
// plans made once per layout and stream; results agree with the host's to the rounding of
// either.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/detail/algorithm_run.h"
#include "kernel/detail/axis.h"
#include "kernel/detail/fft_api.h"
#include "kernel/detail/fft_kernel.h"
#include "kernel/detail/fixed_list.h"
#include "kernel/errors.h"

namespace kernel {

enum class fft_norm { backward, ortho, forward };

namespace detail {

/// Up to 32 values given in braces, as a call's axes or lengths. More are counted but not
/// kept: the calls refuse more axes than an array has dimensions (at most 32).
template <class T> class brace_list {
public:
  static constexpr int capacity = 32;
  constexpr brace_list(std::initializer_list<T> values) {
    for (T v : values) push(v);
  }
  constexpr int count() const noexcept { return count_; }
  constexpr T operator[](int i) const noexcept { return values_[static_cast<std::size_t>(i)]; }

protected:
  constexpr void push(T v) noexcept {
    if (count_ < static_cast<int>(values_.size())) values_[static_cast<std::size_t>(count_)] = v;
    ++count_;
  }

private:
  std::array<T, capacity> values_{};
  int count_ = 0;
};

} // namespace detail

/// The axes a transform runs along: `{0, 1}`, or one axis (an integer of any type: not a
/// floating value, which would be cut to one); negative axes count from the end.
class fft_axes : public detail::brace_list<long long> {
public:
  using brace_list::brace_list;
  template <detail::integer_argument I> constexpr fft_axes(I axis) : brace_list({wide(axis)}) {
    if constexpr (std::is_unsigned_v<I>)
      if (static_cast<long long>(axis) < 0) past_range_ = axis; // past long long's range
  }
  /// Every axis of an array of rank `rank`.
  static constexpr fft_axes all(int rank) noexcept {
    fft_axes a{};
    for (int d = 0; d < rank; ++d) a.push(d);
    return a;
  }

  /// An unsigned axis past long long's range, the axes' calls refuse first, naming it as given.
  void require_in_range(std::string_view name, int argument) const {
    if (past_range_)
      throw argument_error(std::string(name), argument, "axis " + std::to_string(past_range_) + " is out of range");
  }

private:
  // Such an axis is kept as out of range for any array, and as given for the error.
  template <class I> static constexpr long long wide(I axis) noexcept {
    if constexpr (std::is_unsigned_v<I>)
      if (axis > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
        return std::numeric_limits<long long>::max();
    return static_cast<long long>(axis);
  }
  unsigned long long past_range_ = 0;
};

/// The lengths of the transforms along a call's axes, one per axis (NumPy's `s`): the input is
/// cropped, or padded with zeros, to them first. For the inverse real transforms, the last is
/// the length of the real output, which reads its first n/2+1 coefficients.
class fft_lengths : public detail::brace_list<index_t> {
public:
  using brace_list::brace_list;
};

namespace detail {

/// The number of points of a transform along one axis (NumPy's `n`): an integer of any type,
/// or `{}` (std::nullopt, an empty std::optional) for the input's length. Not a floating
/// value, which would be cut to a count.
class fft_points {
public:
  constexpr fft_points() noexcept = default;
  constexpr fft_points(std::nullopt_t) noexcept {}
  template <integer_argument I> constexpr fft_points(I n) noexcept : given_(true), n_(static_cast<long long>(n)) {
    if constexpr (std::is_unsigned_v<I>) past_range_ = n > static_cast<unsigned long long>(n_max);
  }
  template <integer_argument I> constexpr fft_points(const std::optional<I> &n) noexcept : fft_points() {
    if (n) *this = fft_points(*n);
  }

  constexpr bool given() const noexcept { return given_; }
  /// The lengths to transform to, for `name`'s argument `argument`; 0 when not given.
  fft_lengths lengths(std::string_view name, int argument) const {
    if (past_range_)
      throw argument_error(std::string(name), argument,
                           "n = " + std::to_string(static_cast<unsigned long long>(n_)) + " is out of range");
    return fft_lengths{given_ ? static_cast<index_t>(n_) : index_t{0}};
  }

private:
  static constexpr long long n_max = std::numeric_limits<long long>::max();
  bool given_ = false, past_range_ = false;
  long long n_ = 0;
};

/// One pass of the runtime's FFT with its shapes and strides held by value, so that it can
/// wait in a stream's queue.
struct fft_step {
  fft_transform transform = fft_transform::c2c_forward;
  bool double_precision = false;
  bool real_input = false;
  // A c2r step on a device, whose input is the call's own memory, which cuFFT may overwrite
  // (real_inverse made it, Hermitian where NumPy reads only real parts).
  bool input_disposable = false;
  int rank = 0, axis = 0;
  index_t n = 0;
  double scale = 1;
  const void *in = nullptr;
  void *out = nullptr;
  std::array<index_t, max_dims> in_shape{}, out_shape{}, in_strides{}, out_strides{};

  fft_pass pass(bool parallel) const noexcept {
    fft_pass p;
    p.transform = transform;
    p.double_precision = double_precision;
    p.real_input = real_input;
    p.rank = rank;
    p.in_shape = in_shape.data();
    p.out_shape = out_shape.data();
    p.in = in;
    p.in_strides = in_strides.data();
    p.out = out;
    p.out_strides = out_strides.data();
    p.axis = axis;
    p.n = n;
    p.scale = scale;
    p.parallel = parallel;
    p.input_disposable = input_disposable;
    return p;
  }
};

/// The axes of a call, normalised, in the call's order.
using fft_axis_list = fixed_list<int, max_dims>;

/// A pass along `axis` from a C-contiguous array of `in_shape` to one of `out_shape` (the two
/// differ only along the axis, for the real transforms).
template <std::size_t R>
fft_step fft_step_along(fft_transform transform, bool double_precision, const std::array<index_t, R> &in_shape,
                        const std::array<index_t, R> &out_shape, int axis, index_t n, double scale, const void *in,
                        void *out) {
  fft_step s;
  s.transform = transform;
  s.double_precision = double_precision;
  s.rank = static_cast<int>(R);
  s.axis = axis;
  s.n = n;
  s.scale = scale;
  s.in = in;
  s.out = out;
  // In place: the step is a kilobyte, zeroed once.
  index_t in_stride = 1, out_stride = 1;
  for (std::size_t d = R; d-- > 0;) {
    s.in_shape[d] = in_shape[d];
    s.out_shape[d] = out_shape[d];
    s.in_strides[d] = in_stride;
    s.out_strides[d] = out_stride;
    in_stride *= in_shape[d];
    out_stride *= out_shape[d];
  }
  return s;
}

/// What a transform of `n` points along an axis is multiplied by.
inline double fft_scale(fft_norm norm, bool inverse, index_t n) {
  switch (norm) {
  case fft_norm::ortho: return 1 / std::sqrt(static_cast<double>(n));
  case fft_norm::forward: return inverse ? 1 : 1 / static_cast<double>(n);
  case fft_norm::backward:
  default: return inverse ? 1 / static_cast<double>(n) : 1;
  }
}

/// A norm that is one of the three (an enum can be cast from any integer).
inline void require_norm(std::string_view name, fft_norm norm, int argument) {
  if (norm != fft_norm::backward && norm != fft_norm::ortho && norm != fft_norm::forward)
    throw argument_error(std::string(name), argument,
                         "norm " + std::to_string(static_cast<int>(norm)) + " is not backward, ortho or forward");
}

/// `axes` for an array of rank `rank`: in range, distinct, at least one.
inline fft_axis_list fft_axes_of(std::string_view name, int argument, const fft_axes &axes, int rank) {
  axes.require_in_range(name, argument);
  if (axes.count() == 0) throw argument_error(std::string(name), argument, "names no axis to transform");
  if (axes.count() > rank)
    throw argument_error(std::string(name), argument,
                         "names " + std::to_string(axes.count()) + " axes of an array of rank " + std::to_string(rank));
  fft_axis_list out;
  for (int i = 0; i < axes.count(); ++i) {
    const int a = normalize_axis(name, argument, axes[i], rank);
    for (int b : out)
      if (b == a) throw argument_error(std::string(name), argument, "names axis " + std::to_string(a) + " twice");
    out.push_back(a);
  }
  return out;
}

template <std::size_t R>
void require_points(std::string_view name, const std::array<index_t, R> &shape, const fft_axis_list &axes) {
  for (int a : axes)
    if (shape[static_cast<std::size_t>(a)] == 0)
      throw argument_error(std::string(name), 1, "has no points along axis " + std::to_string(a) + " to transform");
}

/// Queues `steps` on a device, in order on the call's stream. The transforms are cuFFT's on
/// a CUDA device and the runtime's host FFT on the simulator (whose memory the host reaches);
/// around them, on both, what cuFFT does not do, by kernels of this library (fft_kernel.h):
/// the real input of a complex transform widened first, transforms of one point (the
/// identity), and the passes' scales multiplied into one pass at the end. R is the real type
/// of the transforms.
template <class R> void run_fft_on_device(std::string_view name, const device_call &c, std::vector<fft_step> steps) {
  const auto count = [](const std::array<index_t, max_dims> &shape, int rank) {
    index_t n = 1;
    for (int d = 0; d < rank; ++d) n *= shape[static_cast<std::size_t>(d)];
    return n;
  };
  const bool simulator = device_is_simulator(*c.device);
  // Before a kernel of this call is queued: a missing cuFFT leaves the output as it was. A
  // call whose first work is a cuFFT plan learns it there, before it queues anything.
  bool cufft_found = simulator;
  const auto convert = [&](const void *in, void *out, index_t n, fft_conversion how) {
    if (!std::exchange(cufft_found, true)) cufft_require(name);
    launch_over<fft_convert_entry<R>>(c, n, {static_cast<const R *>(in), static_cast<R *>(out), n, how});
  };
  // cuFFT's passes not yet queued, consecutive: as few plans as can take them. In place for
  // up to three (a call's host time is a few microseconds; a heap allocation is seen in it).
  std::array<fft_pass, 3> few_pending;
  std::vector<fft_pass> more_pending(steps.size() > few_pending.size() ? steps.size() : 0);
  fft_pass *const pending = more_pending.empty() ? few_pending.data() : more_pending.data();
  int pending_count = 0;
  const auto queue_pending = [&] {
    for (int i = 0; i < pending_count;)
      i += fft_cuda_passes(name, pending + i, pending_count - i, *c.device, *c.stream);
    if (pending_count > 0) cufft_found = true;
    pending_count = 0;
  };
  double scale = 1;
  for (fft_step &s : steps) {
    const index_t elements = count(s.in_shape, s.rank);
    if (s.real_input) {
      queue_pending();
      convert(s.in, s.out, elements, fft_conversion::widen);
      s.in = s.out;
      s.in_strides = s.out_strides;
      s.real_input = false;
    }
    scale *= s.scale;
    s.scale = 1;
    if (s.n == 1) {
      queue_pending();
      // The identity, with the real transforms' change of type (the layouts are contiguous).
      if (s.transform == fft_transform::r2c)
        convert(s.in, s.out, elements, fft_conversion::widen);
      else if (s.transform == fft_transform::c2r)
        convert(s.in, s.out, elements, fft_conversion::real_part);
      else if (s.in != s.out)
        convert(s.in, s.out, elements, fft_conversion::copy_complex);
    } else if (simulator) {
      host_work(*c.stream, [s] { fft_host(s.pass(true)); });
    } else {
      pending[pending_count++] = s.pass(false); // its arrays stay in `steps`
    }
  }
  queue_pending();
  // Transforms of one point only, in place: nothing queued yet, and no cuFFT needed, but a
  // call of this shape fails as any other where cuFFT is missing.
  if (!cufft_found) cufft_require(name);
  const fft_step &last = steps.back();
  if (scale != 1) {
    const index_t reals = count(last.out_shape, last.rank) * (last.transform == fft_transform::c2r ? 1 : 2);
    launch_over<fft_scale_entry<R>>(c, reals, {static_cast<R *>(last.out), reals, static_cast<R>(scale)});
  }
}

/// Runs `steps` where the call runs: at once on the host, else in stream order on the
/// device. `keep` (memory, or a list of it) lives until they are done. R is the real type of
/// the transforms.
template <class R, class Keep>
void run_fft_steps(std::string_view name, const algorithm_site &site, std::vector<fft_step> steps, Keep keep) {
  if (!site.on_device()) {
    for (const fft_step &s : steps) fft_host(s.pass(site.parallel()));
    return;
  }
  run_fft_on_device<R>(name, *site.call, std::move(steps));
  if constexpr (std::is_same_v<Keep, std::shared_ptr<void>>)
    keep_until_done(*site.call, {std::move(keep)});
  else
    keep_until_done(*site.call, std::move(keep));
}

/// `shape` with `lengths[i]` along `along[i]`, checked: what an input is cropped or padded to.
/// Without lengths, `shape` itself.
template <std::size_t R>
std::array<index_t, R> fft_sized(std::string_view name, int argument, std::array<index_t, R> shape,
                                 const fft_axis_list &along, const fft_lengths *lengths) {
  if (!lengths) return shape;
  if (lengths->count() != static_cast<int>(along.size()))
    throw argument_error(std::string(name), argument,
                         "gives " + std::to_string(lengths->count()) + " lengths for " + std::to_string(along.size()) +
                             (along.size() == 1 ? " axis" : " axes"));
  for (std::size_t i = 0; i < along.size(); ++i) {
    const index_t n = (*lengths)[static_cast<int>(i)];
    if (n < 1)
      throw argument_error(std::string(name), argument,
                           "asks for " + std::to_string(n) + " points along axis " + std::to_string(along[i]) +
                               ": a transform has at least one");
    shape[static_cast<std::size_t>(along[i])] = n;
  }
  return shape;
}

template <std::size_t R> index_t elements_of(const std::array<index_t, R> &shape) {
  index_t n = 1;
  for (index_t e : shape) n *= e;
  return n;
}

/// Memory for `n` elements where the call runs, for the transforms' intermediate results.
template <class T> std::shared_ptr<void> fft_scratch(const algorithm_site &site, index_t n) {
  if (site.on_device()) return device_temp<T>(*site.call, n);
  return std::make_shared_for_overwrite<T[]>(static_cast<std::size_t>(n > 0 ? n : 1));
}

/// `in`, C-contiguous of shape `from`, cropped or padded with zeros to `to`, where the call
/// runs, in stream order on a device. The elements are T, real or complex.
template <class T, std::size_t R>
input_elements<T> fft_resized(const algorithm_site &site, const input_elements<T> &in,
                              const std::array<index_t, R> &from, const std::array<index_t, R> &to) {
  using Real = real_of_t<T>;
  constexpr index_t width = sizeof(T) / sizeof(Real); // a complex value is two reals
  std::array<index_t, R> from_reals = from, to_reals = to;
  from_reals[R - 1] *= width;
  to_reals[R - 1] *= width;
  input_elements<T> out;
  out.size = elements_of(to);
  out.keep = fft_scratch<T>(site, out.size);
  out.data = static_cast<const T *>(out.keep.get());
  const Real *src = reinterpret_cast<const Real *>(in.data);
  Real *dst = static_cast<Real *>(out.keep.get());
  if (site.on_device()) {
    fft_resize_params<Real, R> p{src, dst, out.size * width, {}, {}};
    for (std::size_t d = 0; d < R; ++d) {
      p.from[d] = from_reals[d];
      p.to[d] = to_reals[d];
    }
    launch_over<fft_resize_entry<Real, R>>(*site.call, p.n, p);
    keep_until_done(*site.call, {in.keep});
    return out;
  }
  // Row by row: the part of each row inside the input copied, the rest zeros.
  const index_t row = to_reals[R - 1], rows = row > 0 ? out.size * width / row : 0;
  const index_t kept = std::min(row, from_reals[R - 1]);
  maybe_parallel(site.parallel(), rows, std::max<index_t>(1, (index_t{1} << 15) / std::max<index_t>(row, 1)),
                 [&](index_t begin, index_t end) {
                   for (index_t r = begin; r < end; ++r) {
                     Real *o = dst + r * row;
                     index_t rest = r, at = 0, stride = from_reals[R - 1];
                     bool inside = true;
                     for (std::size_t d = R - 1; d-- > 0;) {
                       const index_t k = rest % to_reals[d];
                       rest /= to_reals[d];
                       inside = inside && k < from_reals[d];
                       at += k * stride;
                       stride *= from_reals[d];
                     }
                     const index_t copied = inside ? kept : 0;
                     if (copied > 0) std::copy(src + at, src + at + copied, o);
                     std::fill(o + copied, o + row, Real(0));
                   }
                 });
  return out;
}

/// Where a call's results go: a new array made for them (errors about it name argument 0,
/// the call's result)...
struct fft_new_array {
  static constexpr bool new_array = true;
  static constexpr int argument = 0;
};
/// ... or the caller's array `array`, argument 2 (NumPy's `out`): of the results' shape, any
/// strides; a host array of the other precision takes them converted, a device array must be
/// of their type (device arrays are never converted implicitly).
template <class Out> struct fft_into {
  static constexpr bool new_array = false;
  static constexpr int argument = 2;
  using given = Out; // as forwarded: not a reference for a temporary
  Out &array;
};

/// An argument that is an output array rather than a length, an axis or a norm.
template <class O>
concept fft_output_array = ufunc_arg<O &>::supported && !ufunc_arg<O &>::is_scalar;

/// Whether the output array `Out` takes a transform's results of input `A` (coefficients
/// where Complex, else real values): of their rank, complex or real as they are (of either
/// precision), and writable. Where not, the call stops at compile time here, with one message,
/// and the transform is not instantiated.
template <class Out, class A, bool Complex> constexpr bool fft_output_fits() {
  using E = evaluated_t<A>;
  if constexpr (!require_array<E>()) {
    return false; // the input's error alone
  } else {
    using O = element_of<std::remove_cvref_t<Out>>;
    constexpr bool writable = ufunc_arg<Out &>::writable;
    static_assert(writable, "an FFT's output array (argument 2) is written, so neither const nor of const elements");
    constexpr bool rank = arg_of<std::remove_cvref_t<Out>>::rank == arg_of<E>::rank;
    static_assert(rank, "an FFT's output array (argument 2) has the rank of its input");
    if constexpr (Complex) {
      constexpr bool kind = std::is_same_v<O, std::complex<float>> || std::is_same_v<O, std::complex<double>>;
      static_assert(kind, "the output of a transform to coefficients is a complex64 or complex128 array");
      return writable && rank && kind;
    } else {
      constexpr bool kind = std::is_same_v<O, float> || std::is_same_v<O, double>;
      static_assert(kind, "the output of an inverse real transform (irfft, irfft2, irfftn) is a float32 or float64 "
                          "array");
      return writable && rank && kind;
    }
  }
}

/// fft_output_fits for the array of `Sink`; a new array always fits.
template <class Sink, class A, bool Complex> constexpr bool fft_sink_fits() {
  if constexpr (Sink::new_array)
    return true;
  else
    return fft_output_fits<decltype(std::declval<const Sink &>().array), A, Complex>();
}

/// The array a call's results of type T and `shape` go to, for `sink`: made into `made`, or the
/// caller's (fft_output_fits), checked: its shape, and that it does not overlap the input `x`,
/// unless it is exactly `x` where `may_be_input`.
template <class T, std::size_t R, bool Device, class Sink, class A>
auto &fft_output(std::string_view name, const algorithm_site &site, const Sink &sink,
                 std::optional<result_array<T, R, Device>> &made, const std::array<index_t, R> &shape, const A &x,
                 bool may_be_input) {
  if constexpr (Sink::new_array) {
    // Lengths that make a result past memory's reach are the call's fault, named as such.
    checked_size(name, 0, shape.data(), static_cast<int>(R), sizeof(T));
    return made.emplace(make_result<T, R, Device>(site, shape));
  } else {
    const auto got = shape_of(sink.array);
    if (got != shape)
      throw argument_error(std::string(name), Sink::argument,
                           "has shape " + kernel::shape_string(got) + " but the results have shape " +
                               kernel::shape_string(shape));
    require_apart(name, Sink::argument, sink.array, 1, x, may_be_input);
    require_lasting_output<typename Sink::given>(name, Sink::argument, site.where);
    return sink.array;
  }
}

/// The site of a call reading `x` and writing to `sink`'s array: the output's device counts.
template <class Sink, class A>
algorithm_site fft_site(std::string_view name, const placement &p, const Sink &sink, const A &x) {
  if constexpr (Sink::new_array)
    return site_of(name, p, x);
  else
    return site_of(name, p, x, sink.array);
}

/// The axes of fft2, ifft2, rfft2 and irfft2 (the last two), or of the n-dimensional
/// transforms (every axis of `A`, an array or an expression), where none are given.
template <bool AllAxes, class A> constexpr fft_axes fft_default_axes() {
  if constexpr (!require_array<evaluated_t<A>>()) {
    return {}; // the input's error alone
  } else {
    // The type says so: a compile error, not an argument_error blaming axes never written.
    static_assert(AllAxes || arg_of<evaluated_t<A>>::rank >= 2,
                  "fft2, ifft2, rfft2 and irfft2 transform the last two axes by default: the array needs rank 2 or "
                  "more (or give the axes)");
    if constexpr (AllAxes)
      return fft_axes::all(arg_of<evaluated_t<A>>::rank);
    else
      return fft_axes{-2, -1};
  }
}

/// What a transform takes: any FFT element type, complex values (fft_inplace, irfft, hfft),
/// real values (rfft, ihfft), or any numbers (fftshift).
enum class fft_input { any, complex_in_place, real, complex_to_real, numbers, hermitian_signal, hermitian_spectrum };

/// Whether `A` is an array of rank 1 or more of the elements a transform takes (`Kind`), with
/// one error saying what it is not; the transform compiles nothing more when it is not.
template <fft_input Kind, class A> constexpr bool require_fft_input() {
  if constexpr (!require_array<A>()) {
    return false;
  } else {
    using T = element_of<A>;
    constexpr bool real = std::is_same_v<T, float> || std::is_same_v<T, double>;
    constexpr bool complex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;
    constexpr bool rank = arg_of<A>::rank >= 1;
    constexpr bool elements = Kind == fft_input::any                                             ? real || complex
                              : Kind == fft_input::real || Kind == fft_input::hermitian_spectrum ? real
                              : Kind == fft_input::numbers ? std::is_arithmetic_v<T> || complex
                                                           : complex;
    if constexpr (Kind == fft_input::any)
      static_assert(elements, "FFTs take float32, float64, complex64 or complex128 arrays");
    else if constexpr (Kind == fft_input::complex_in_place)
      static_assert(elements, "an FFT in place takes a complex64 or complex128 array");
    else if constexpr (Kind == fft_input::real)
      static_assert(elements, "the real transforms (rfft, rfft2, rfftn) take a float32 or float64 array");
    else if constexpr (Kind == fft_input::complex_to_real)
      static_assert(elements,
                    "the inverse real transforms (irfft, irfft2, irfftn) take a complex64 or complex128 array");
    else if constexpr (Kind == fft_input::numbers)
      static_assert(elements, "fftshift and ifftshift take arrays of numbers (real or complex)");
    else if constexpr (Kind == fft_input::hermitian_signal)
      static_assert(elements, "hfft takes complex64 or complex128 arrays (the first half of a Hermitian signal)");
    else
      static_assert(elements, "ihfft takes float32 or float64 arrays");
    // A rank-0 array is one value: there is no axis to transform.
    static_assert(!elements || rank, "an FFT takes an array of one dimension or more");
    return elements && rank;
  }
}

template <class Derived> class fft_calls : public placed<Derived> {
protected:
  /// The one axis of fft, rfft and the others, argument `argument`: an integer of any type.
  template <class Axis> static fft_axes one_axis(Axis axis, int argument) {
    return fft_axes{integer_value(Derived::name(), argument, axis, "axis")};
  }

  /// What transform and real_forward work out first, in this order: where the call runs, the
  /// input's shape, the axes, and the lengths transformed (the input's, cropped or padded to
  /// `lengths` where given), those and the norm checked.
  template <std::size_t R> struct transform_setup {
    algorithm_site site;
    std::array<index_t, R> shape;
    fft_axis_list along;
    std::array<index_t, R> sized;
  };
  template <class Sink, class A>
  auto setup_of(std::string_view name, const Sink &sink, const A &x, const fft_axes &axes, int axes_argument,
                const fft_lengths *lengths, int lengths_argument, fft_norm norm, int norm_argument) const {
    constexpr std::size_t R = arg_of<A>::rank;
    transform_setup<R> s{fft_site(name, this->placed_on(), sink, x), shape_of(x), {}, {}};
    s.along = fft_axes_of(name, axes_argument, axes, static_cast<int>(R));
    s.sized = fft_sized(name, lengths_argument, s.shape, s.along, lengths);
    require_points(name, s.sized, s.along);
    require_norm(name, norm, norm_argument);
    return s;
  }

  /// Complex transforms along `axes` (argument `axes_argument`) of any array, cropped or
  /// padded to `lengths` (argument `lengths_argument`) when given, into a new complex array
  /// or the caller's (`sink`; it may be `x` itself).
  template <class Sink, class A>
  auto transform(std::string_view name, const Sink &sink, const A &x, const fft_axes &axes, int axes_argument,
                 const fft_lengths *lengths, int lengths_argument, fft_norm norm, int norm_argument,
                 bool inverse) const {
    if constexpr (require_fft_input<fft_input::any, A>()) {
      using T = element_of<A>;
      using Complex = std::complex<real_of_t<T>>;
      constexpr std::size_t R = arg_of<A>::rank;
      const auto [site, shape, along, sized] =
          setup_of(name, sink, x, axes, axes_argument, lengths, lengths_argument, norm, norm_argument);
      std::optional<result_array<Complex, R, is_device_arg<A>>> made;
      auto &result = fft_output<Complex, R, is_device_arg<A>>(name, site, sink, made, sized, x, true);
      output_elements<Complex> dst = output_elements<Complex>::make(site, name, Sink::argument, result);
      input_elements<T> src = input_on<T>(site, name, 1, x);
      if (sized != shape) src = fft_resized(site, src, shape, sized);
      run_c2c(name, site, src, dst, sized, along, norm, inverse);
      if constexpr (Sink::new_array) return std::move(*made);
    } else {
      if constexpr (Sink::new_array) return failed_call_result{};
    }
  }

  /// An expression's transforms: the expression is evaluated into an array first, where the
  /// call is placed (as for the array algorithms).
  template <class Sink, class N>
  auto transform(std::string_view name, const Sink &sink, const kernel::expr<N> &x, const fft_axes &axes,
                 int axes_argument, const fft_lengths *lengths, int lengths_argument, fft_norm norm, int norm_argument,
                 bool inverse) const {
    return transform(name, sink, evaluated(this->placed_on(), x), axes, axes_argument, lengths, lengths_argument, norm,
                     norm_argument, inverse);
  }

  /// Complex transforms along `axes` of a complex array, whose elements the results replace.
  template <class A>
  void in_place(std::string_view name, A &&x, const fft_axes &axes, fft_norm norm, int norm_argument,
                bool inverse) const {
    if constexpr (require_fft_input<fft_input::complex_in_place, std::remove_cvref_t<A>>()) {
      using AA = std::remove_cvref_t<A>;
      using T = element_of<AA>;
      constexpr std::size_t R = arg_of<AA>::rank;
      const algorithm_site site = site_of(name, this->placed_on(), x);
      const auto shape = shape_of(x);
      const fft_axis_list along = fft_axes_of(name, 2, axes, static_cast<int>(R));
      require_points(name, shape, along);
      require_norm(name, norm, norm_argument);
      // The array's own memory where it is contiguous and where the call runs; else a copy,
      // written back.
      input_elements<T> src = input_on<T>(site, name, 1, x);
      output_elements<T> dst = output_elements<T>::make(site, name, 1, x);
      run_c2c(name, site, src, dst, shape, along, norm, inverse);
    }
  }

  /// The transform of real values: along the last of `axes` (argument `axes_argument`) real
  /// to its n/2+1 first coefficients, then complex along the others (NumPy's rfftn), each
  /// input length cropped or padded to `lengths` when given.
  template <class Sink, class A>
  auto real_forward(std::string_view name, const Sink &sink, const A &x, const fft_axes &axes, int axes_argument,
                    const fft_lengths *lengths, int lengths_argument, fft_norm norm, int norm_argument) const {
    if constexpr (require_fft_input<fft_input::real, A>()) {
      using T = element_of<A>;
      using Complex = std::complex<T>;
      constexpr std::size_t R = arg_of<A>::rank;
      const auto [site, shape, along, sized] =
          setup_of(name, sink, x, axes, axes_argument, lengths, lengths_argument, norm, norm_argument);
      const auto last = static_cast<std::size_t>(along.back());
      auto out_shape = sized;
      out_shape[last] = sized[last] / 2 + 1;
      std::optional<result_array<Complex, R, is_device_arg<A>>> made;
      auto &result = fft_output<Complex, R, is_device_arg<A>>(name, site, sink, made, out_shape, x, false);
      output_elements<Complex> dst = output_elements<Complex>::make(site, name, Sink::argument, result);
      input_elements<T> src = input_on<T>(site, name, 1, x);
      if (sized != shape) src = fft_resized(site, src, shape, sized);
      std::vector<fft_step> steps;
      steps.reserve(along.size());
      steps.push_back(fft_step_along(fft_transform::r2c, std::is_same_v<T, double>, sized, out_shape, along.back(),
                                     sized[last], fft_scale(norm, false, sized[last]), src.data, dst.data));
      for (std::size_t i = 0; i + 1 < along.size(); ++i) {
        const index_t n = out_shape[static_cast<std::size_t>(along[i])];
        steps.push_back(fft_step_along(fft_transform::c2c_forward, std::is_same_v<T, double>, out_shape, out_shape,
                                       along[i], n, fft_scale(norm, false, n), dst.data, dst.data));
      }
      if (elements_of(out_shape) > 0) run_fft_steps<T>(name, site, std::move(steps), src.keep);
      dst.deliver();
      if constexpr (Sink::new_array) return std::move(*made);
    } else {
      if constexpr (Sink::new_array) return failed_call_result{};
    }
  }

  /// The inverse of real_forward: complex along all but the last of `axes`, then to real
  /// values along the last, of `lengths` when given (the input cropped or padded to n/2+1
  /// coefficients for a length n), else of the input's lengths and 2 (m - 1) for m
  /// coefficients along the last axis.
  template <class Sink, class A>
  auto real_inverse(std::string_view name, const Sink &sink, const A &x, const fft_axes &axes, int axes_argument,
                    const fft_lengths *lengths, int lengths_argument, fft_norm norm, int norm_argument) const {
    if constexpr (require_fft_input<fft_input::complex_to_real, A>()) {
      using C = element_of<A>;
      using T = typename C::value_type;
      constexpr std::size_t R = arg_of<A>::rank;
      const algorithm_site site = fft_site(name, this->placed_on(), sink, x);
      const auto shape = shape_of(x);
      const fft_axis_list along = fft_axes_of(name, axes_argument, axes, static_cast<int>(R));
      const auto last = static_cast<std::size_t>(along.back());
      auto out_shape = fft_sized(name, lengths_argument, shape, along, lengths);
      require_norm(name, norm, norm_argument);
      if (!lengths) {
        require_points(name, shape, along);
        out_shape[last] = 2 * (shape[last] - 1);
        if (out_shape[last] < 1)
          throw argument_error(std::string(name), 1,
                               "has 1 coefficient along axis " + std::to_string(last) +
                                   ", which makes 2 (m - 1) = 0 real values: give the output length");
      }
      // The coefficients the output reads.
      auto needed = out_shape;
      needed[last] = out_shape[last] / 2 + 1;
      std::optional<result_array<T, R, is_device_arg<A>>> made;
      auto &result = fft_output<T, R, is_device_arg<A>>(name, site, sink, made, out_shape, x, false);
      output_elements<T> dst = output_elements<T>::make(site, name, Sink::argument, result);
      input_elements<C> src = input_on<C>(site, name, 1, x);
      bool own_copy = needed != shape;
      if (own_copy) src = fft_resized(site, src, shape, needed);
      std::vector<fft_step> steps;
      steps.reserve(along.size());
      std::vector<std::shared_ptr<void>> keep{src.keep};
      const bool device = site.on_device() && elements_of(needed) > 0;
      double scale = 1;
      const auto pass_scale = [&](index_t n) {
        const double s = fft_scale(norm, true, n);
        if (!device) return s;
        scale *= s;
        return 1.0;
      };
      // On a device every pass reads and writes memory of the call's own (cuFFT's C2R
      // overwrites its input), made from the coefficients by one pass that also normalises and
      // makes the planes NumPy takes real parts of Hermitian (fft_hermitian_entry), so that
      // cuFFT can take the passes as one C2R plan. On the host each pass reads as NumPy's.
      const void *spectrum = src.data;
      C *work = const_cast<C *>(src.data);
      if (!own_copy && (device || along.size() > 1)) {
        // Passes that write their input write memory of this call's own, never the caller's.
        keep.push_back(fft_scratch<C>(site, elements_of(needed)));
        work = static_cast<C *>(keep.back().get());
      }
      for (std::size_t i = 0; i + 1 < along.size(); ++i) {
        const index_t n = needed[static_cast<std::size_t>(along[i])];
        steps.push_back(fft_step_along(fft_transform::c2c_inverse, std::is_same_v<T, double>, needed, needed, along[i],
                                       n, pass_scale(n), i == 0 && !device ? spectrum : work, work));
      }
      if (along.size() > 1 || device) spectrum = work;
      steps.push_back(fft_step_along(fft_transform::c2r, std::is_same_v<T, double>, needed, out_shape, along.back(),
                                     out_shape[last], pass_scale(out_shape[last]), spectrum, dst.data));
      steps.back().input_disposable = device;
      if (device) {
        // Queued before run_fft_on_device finds cuFFT missing, if it is: it writes only `work`,
        // memory of the call's own, so the output and the input are left as they were.
        fft_hermitian_params<T, R> p{reinterpret_cast<const T *>(src.data),
                                     reinterpret_cast<T *>(work),
                                     elements_of(needed),
                                     {},
                                     0,
                                     1,
                                     needed[last],
                                     out_shape[last] % 2 == 0 ? out_shape[last] / 2 : -1,
                                     static_cast<T>(scale),
                                     false};
        const auto whole = [](const void *at) { return reinterpret_cast<std::uintptr_t>(at) % (2 * sizeof(T)) == 0; };
        p.paired = whole(src.data) && whole(work);
        for (std::size_t d = 0; d < R; ++d) {
          p.shape[d] = needed[d];
          if (d > last) p.real_inner *= needed[d];
        }
        for (std::size_t i = 0; i + 1 < along.size(); ++i) p.mirrored |= 1u << along[i];
        launch_over<fft_hermitian_entry<T, R>>(*site.call, p.n, p);
      }
      if (elements_of(out_shape) > 0) run_fft_steps<T>(name, site, std::move(steps), std::move(keep));
      dst.deliver();
      if constexpr (Sink::new_array) return std::move(*made);
    } else {
      if constexpr (Sink::new_array) return failed_call_result{};
    }
  }

private:
  template <class T, class Complex, std::size_t R>
  static void run_c2c(std::string_view name, const algorithm_site &site, input_elements<T> &src,
                      output_elements<Complex> &dst, const std::array<index_t, R> &shape, const fft_axis_list &along,
                      fft_norm norm, bool inverse) {
    std::vector<fft_step> steps;
    steps.reserve(along.size()); // a step is a kilobyte: grown, the vector copies them
    for (std::size_t i = 0; i < along.size(); ++i) {
      const int axis = along[i];
      const index_t n = shape[static_cast<std::size_t>(axis)];
      // The first pass reads the input; the others transform the output where it is.
      fft_step s = fft_step_along(inverse ? fft_transform::c2c_inverse : fft_transform::c2c_forward,
                                  std::is_same_v<Complex, std::complex<double>>, shape, shape, axis, n,
                                  fft_scale(norm, inverse, n), i == 0 ? static_cast<const void *>(src.data) : dst.data,
                                  dst.data);
      s.real_input = i == 0 && !std::is_same_v<T, Complex>;
      steps.push_back(s);
    }
    if (elements_of(shape) > 0) run_fft_steps<real_of_t<Complex>>(name, site, std::move(steps), src.keep);
    dst.deliver();
  }
};

} // namespace detail

namespace detail {

/// fft and ifft: along one axis (the last by default), as NumPy's fft(a, n, axis, norm): the
/// input cropped or padded with zeros to `n` points when given (`{}`: its length). Every
/// transform also writes into a given array, NumPy's `out`, as its second argument:
/// `fft(x, out, n, axis, norm)` (`out` may be `x` itself for the complex transforms).
template <bool Inverse> class fft_1d_fn : public fft_calls<fft_1d_fn<Inverse>> {
public:
  constexpr fft_1d_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return Inverse ? "ifft" : "fft"; }
  template <class A, integer_argument Axis = int>
  auto operator()(const A &x, fft_points n = {}, Axis axis = -1, fft_norm norm = fft_norm::backward) const {
    const fft_lengths lengths = n.lengths(name(), 2);
    return this->transform(name(), fft_new_array{}, x, this->one_axis(axis, 3), 3, n.given() ? &lengths : nullptr, 2,
                           norm, 4, Inverse);
  }
  template <class A, fft_output_array Out, integer_argument Axis = int>
  void operator()(const A &x, Out &&out, fft_points n = {}, Axis axis = -1, fft_norm norm = fft_norm::backward) const {
    const fft_lengths lengths = n.lengths(name(), 3);
    if constexpr (fft_output_fits<Out, A, true>())
      this->transform(name(), fft_into<Out>{out}, x, this->one_axis(axis, 4), 4, n.given() ? &lengths : nullptr, 3,
                      norm, 5, Inverse);
  }
};

/// fft2 and ifft2 (along the last two axes by default), fftn and ifftn (every axis by
/// default): along the given axes, with lengths when given.
template <bool Inverse, bool AllAxes> class fft_nd_fn : public fft_calls<fft_nd_fn<Inverse, AllAxes>> {
public:
  constexpr fft_nd_fn() noexcept = default;
  static constexpr std::string_view name() noexcept {
    return AllAxes ? (Inverse ? "ifftn" : "fftn") : (Inverse ? "ifft2" : "fft2");
  }
  template <class A> auto operator()(const A &x) const { return (*this)(x, fft_norm::backward); }
  // Deduced, so that `{}` (no axes) is not taken for a norm.
  template <class A, std::same_as<fft_norm> N> auto operator()(const A &x, N norm) const {
    return this->transform(name(), fft_new_array{}, x, fft_default_axes<AllAxes, A>(), 2, nullptr, 3, norm, 2, Inverse);
  }
  template <class A> auto operator()(const A &x, const fft_axes &axes, fft_norm norm = fft_norm::backward) const {
    return this->transform(name(), fft_new_array{}, x, axes, 2, nullptr, 3, norm, 3, Inverse);
  }
  template <class A>
  auto operator()(const A &x, const fft_axes &axes, const fft_lengths &lengths,
                  fft_norm norm = fft_norm::backward) const {
    return this->transform(name(), fft_new_array{}, x, axes, 2, &lengths, 3, norm, 4, Inverse);
  }
  template <class A, fft_output_array Out> void operator()(const A &x, Out &&out) const {
    (*this)(x, std::forward<Out>(out), fft_norm::backward);
  }
  template <class A, fft_output_array Out, std::same_as<fft_norm> N>
  void operator()(const A &x, Out &&out, N norm) const {
    if constexpr (fft_output_fits<Out, A, true>())
      this->transform(name(), fft_into<Out>{out}, x, fft_default_axes<AllAxes, A>(), 3, nullptr, 4, norm, 3, Inverse);
  }
  template <class A, fft_output_array Out>
  void operator()(const A &x, Out &&out, const fft_axes &axes, fft_norm norm = fft_norm::backward) const {
    if constexpr (fft_output_fits<Out, A, true>())
      this->transform(name(), fft_into<Out>{out}, x, axes, 3, nullptr, 4, norm, 4, Inverse);
  }
  template <class A, fft_output_array Out>
  void operator()(const A &x, Out &&out, const fft_axes &axes, const fft_lengths &lengths,
                  fft_norm norm = fft_norm::backward) const {
    if constexpr (fft_output_fits<Out, A, true>())
      this->transform(name(), fft_into<Out>{out}, x, axes, 3, &lengths, 4, norm, 5, Inverse);
  }
};

/// fft_inplace and ifft_inplace: a complex array transformed where it is, along the given axes
/// (every axis by default), the cuFFT lesson's spelling. Device arrays stay on their device.
template <bool Inverse> class fft_inplace_fn : public fft_calls<fft_inplace_fn<Inverse>> {
public:
  constexpr fft_inplace_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return Inverse ? "ifft_inplace" : "fft_inplace"; }
  template <class A> void operator()(A &&x) const { (*this)(std::forward<A>(x), fft_norm::backward); }
  template <class A, std::same_as<fft_norm> N> void operator()(A &&x, N norm) const {
    require_lasting_output<A>(name(), 1, this->placed_on());
    if constexpr (require_array<std::remove_cvref_t<A>>())
      this->in_place(name(), std::forward<A>(x), fft_axes::all(arg_of<std::remove_cvref_t<A>>::rank), norm, 2, Inverse);
  }
  template <class A> void operator()(A &&x, const fft_axes &axes, fft_norm norm = fft_norm::backward) const {
    require_lasting_output<A>(name(), 1, this->placed_on());
    this->in_place(name(), std::forward<A>(x), axes, norm, 3, Inverse);
  }
};

/// The real transforms along one axis, as NumPy's (a, n, axis, norm): rfft (the n/2+1 first
/// coefficients of n real values, the input cropped or padded with zeros to `n` when given)
/// and irfft (`n` real values, by default 2 (m - 1) for m coefficients, from the first n/2+1,
/// the coefficients cropped or padded with zeros to that many). Into a given array (never the
/// input): `rfft(x, out, n, axis, norm)`.
template <bool Inverse> class real_1d_fn : public fft_calls<real_1d_fn<Inverse>> {
public:
  constexpr real_1d_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return Inverse ? "irfft" : "rfft"; }
  template <class A, integer_argument Axis = int>
  auto operator()(const A &x, fft_points n = {}, Axis axis = -1, fft_norm norm = fft_norm::backward) const {
    return run(fft_new_array{}, x, n, axis, norm);
  }
  template <class A, fft_output_array Out, integer_argument Axis = int>
  void operator()(const A &x, Out &&out, fft_points n = {}, Axis axis = -1, fft_norm norm = fft_norm::backward) const {
    run(fft_into<Out>{out}, x, n, axis, norm);
  }

private:
  template <class Sink, class A, class Axis>
  auto run(const Sink &sink, const A &x, fft_points n, Axis axis, fft_norm norm) const {
    if constexpr (fft_sink_fits<Sink, A, !Inverse>()) {
      const int n_argument = Sink::new_array ? 2 : 3; // then the axis and the norm
      const fft_lengths lengths = n.lengths(name(), n_argument);
      const fft_axes along = this->one_axis(axis, n_argument + 1);
      const auto &array = evaluated(this->placed_on(), x);
      if constexpr (Inverse)
        return this->real_inverse(name(), sink, array, along, n_argument + 1, n.given() ? &lengths : nullptr,
                                  n_argument, norm, n_argument + 2);
      else
        return this->real_forward(name(), sink, array, along, n_argument + 1, n.given() ? &lengths : nullptr,
                                  n_argument, norm, n_argument + 2);
    }
  }
};
using rfft_fn = real_1d_fn<false>;
using irfft_fn = real_1d_fn<true>;

/// The norm of the other direction (NumPy's _swap_direction): backward and forward swap.
constexpr fft_norm swapped_direction(fft_norm norm) noexcept {
  return norm == fft_norm::backward ? fft_norm::forward : norm == fft_norm::forward ? fft_norm::backward : norm;
}

/// `n` complex values from `in` to `out` (which may be `in`) conjugated, where the call runs.
template <class Real>
void conjugate_elements(const algorithm_site &site, const std::complex<Real> *in, std::complex<Real> *out, index_t n) {
  if (n == 0) return;
  if (site.on_device()) {
    launch_over<fft_convert_entry<Real>>(
        *site.call, n,
        {reinterpret_cast<const Real *>(in), reinterpret_cast<Real *>(out), n, fft_conversion::conjugate});
  } else {
    maybe_parallel(site.parallel(), n, index_t{1} << 15, [&](index_t b, index_t e) {
      for (index_t i = b; i < e; ++i) out[i] = std::conj(in[i]);
    });
  }
}

/// hfft and ihfft, NumPy's transforms of a signal whose spectrum is real (a Hermitian
/// signal): hfft(a, n, axis, norm) is irfft(conj(a), n, axis) and ihfft(a, n, axis, norm) is
/// conj(rfft(a, n, axis)), each normalised as the other direction is (so hfft is unscaled by
/// default, and ihfft scaled by 1/n), as NumPy defines them. New arrays, on every target.
template <bool Inverse> class hermitian_1d_fn : public fft_calls<hermitian_1d_fn<Inverse>> {
public:
  constexpr hermitian_1d_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return Inverse ? "ihfft" : "hfft"; }
  template <class A, integer_argument Axis = int>
  auto operator()(const A &x, fft_points n = {}, Axis axis = -1, fft_norm norm = fft_norm::backward) const {
    require_norm(name(), norm, 4);
    const fft_lengths lengths = n.lengths(name(), 2);
    const fft_axes along = this->one_axis(axis, 3);
    const auto &array = evaluated(this->placed_on(), x);
    using AA = std::remove_cvref_t<decltype(array)>;
    constexpr fft_input kind = Inverse ? fft_input::hermitian_spectrum : fft_input::hermitian_signal;
    if constexpr (!require_fft_input<kind, AA>()) {
      return failed_call_result{};
    } else if constexpr (Inverse) {
      using T = element_of<AA>;
      auto result = this->real_forward(name(), fft_new_array{}, array, along, 3, n.given() ? &lengths : nullptr, 2,
                                       swapped_direction(norm), 4);
      // The new array is contiguous: conjugated where it is (a host array on the host, once
      // the values a stream is delivering into it are there, even when the transform ran on
      // a device; a device array in order after the transform).
      if constexpr (!is_device_arg<decltype(result)>) detail::await_host_writes(result.view());
      const placement where = is_device_arg<decltype(result)> ? this->placed_on() : placement{};
      conjugate_elements<T>(site_of(name(), where, result), result.data(), result.data(), result.size());
      return result;
    } else {
      using T = element_of<AA>;
      constexpr std::size_t R = arg_of<AA>::rank;
      // The transform checks the axis and the length: a bad call has written only this
      // call's own copy.
      const algorithm_site site = site_of(name(), this->placed_on(), array);
      input_elements<T> src = input_on<T>(site, name(), 1, array);
      auto conjugated = make_result<T, R, is_device_arg<AA>>(site, shape_of(array));
      output_elements<T> dst = output_elements<T>::make(site, name(), 0, conjugated);
      conjugate_elements<real_of_t<T>>(site, src.data, dst.data, src.size);
      if (site.on_device() && src.keep) keep_until_done(*site.call, {src.keep});
      dst.deliver();
      return this->real_inverse(name(), fft_new_array{}, conjugated, along, 3, n.given() ? &lengths : nullptr, 2,
                                swapped_direction(norm), 4);
    }
  }
};

/// rfft2 and irfft2, rfftn and irfftn: the real transforms along several axes (NumPy's), the
/// real one along the last of them. Two axes (the last two by default), or every axis. Into
/// a given array as the second argument, as the others.
template <bool Inverse, bool AllAxes> class real_nd_fn : public fft_calls<real_nd_fn<Inverse, AllAxes>> {
public:
  constexpr real_nd_fn() noexcept = default;
  static constexpr std::string_view name() noexcept {
    return AllAxes ? (Inverse ? "irfftn" : "rfftn") : (Inverse ? "irfft2" : "rfft2");
  }
  template <class A> auto operator()(const A &x) const { return (*this)(x, fft_norm::backward); }
  // Deduced, so that `{}` (no axes) is not taken for a norm.
  template <class A, std::same_as<fft_norm> N> auto operator()(const A &x, N norm) const {
    return run(fft_new_array{}, x, fft_default_axes<AllAxes, A>(), nullptr, norm, 2);
  }
  template <class A> auto operator()(const A &x, const fft_axes &axes, fft_norm norm = fft_norm::backward) const {
    return run(fft_new_array{}, x, axes, nullptr, norm, 3);
  }
  template <class A>
  auto operator()(const A &x, const fft_axes &axes, const fft_lengths &lengths,
                  fft_norm norm = fft_norm::backward) const {
    return run(fft_new_array{}, x, axes, &lengths, norm, 4);
  }
  template <class A, fft_output_array Out> void operator()(const A &x, Out &&out) const {
    (*this)(x, std::forward<Out>(out), fft_norm::backward);
  }
  template <class A, fft_output_array Out, std::same_as<fft_norm> N>
  void operator()(const A &x, Out &&out, N norm) const {
    run(fft_into<Out>{out}, x, fft_default_axes<AllAxes, A>(), nullptr, norm, 3);
  }
  template <class A, fft_output_array Out>
  void operator()(const A &x, Out &&out, const fft_axes &axes, fft_norm norm = fft_norm::backward) const {
    run(fft_into<Out>{out}, x, axes, nullptr, norm, 4);
  }
  template <class A, fft_output_array Out>
  void operator()(const A &x, Out &&out, const fft_axes &axes, const fft_lengths &lengths,
                  fft_norm norm = fft_norm::backward) const {
    run(fft_into<Out>{out}, x, axes, &lengths, norm, 5);
  }

private:
  /// The axes are argument 2 (3 after an output array), the lengths the next one.
  template <class Sink, class A>
  auto run(const Sink &sink, const A &x, const fft_axes &axes, const fft_lengths *lengths, fft_norm norm,
           int norm_argument) const {
    if constexpr (fft_sink_fits<Sink, A, !Inverse>()) {
      const auto &array = evaluated(this->placed_on(), x);
      const int axes_argument = Sink::new_array ? 2 : 3;
      if constexpr (Inverse)
        return this->real_inverse(name(), sink, array, axes, axes_argument, lengths, axes_argument + 1, norm,
                                  norm_argument);
      else
        return this->real_forward(name(), sink, array, axes, axes_argument, lengths, axes_argument + 1, norm,
                                  norm_argument);
    }
  }
};

/// fftshift and ifftshift: a new array, rolled by half its length along each of the axes
/// (every axis by default; as NumPy, an axis named twice is rolled twice), which moves the
/// zero frequency to the middle, and back. Any real or complex element type.
template <bool Inverse> class fft_shift_fn : public placed<fft_shift_fn<Inverse>> {
public:
  constexpr fft_shift_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return Inverse ? "ifftshift" : "fftshift"; }
  template <class A> auto operator()(const A &x) const {
    const auto &array = evaluated(this->placed_on(), x);
    if constexpr (require_array<evaluated_t<A>>())
      return shifted(array, fft_axes::all(static_cast<int>(arg_of<evaluated_t<A>>::rank)));
    else
      return failed_call_result{};
  }
  template <class A> auto operator()(const A &x, const fft_axes &axes) const {
    return shifted(evaluated(this->placed_on(), x), axes);
  }

private:
  template <class A> auto shifted(const A &x, const fft_axes &axes) const {
    if constexpr (require_fft_input<fft_input::numbers, A>()) {
      using T = element_of<A>;
      // Complex values are moved as their two parts.
      using Real = std::conditional_t<std::is_arithmetic_v<T>, T, real_of_t<T>>;
      constexpr std::size_t R = arg_of<A>::rank;
      const algorithm_site site = site_of(name(), this->placed_on(), x);
      const auto shape = shape_of(x);
      // Where each output element's value comes from, per dimension: an offset below its
      // extent. fftshift moves element k to k + n/2; ifftshift moves it back. As NumPy's roll,
      // an axis named twice is rolled twice, and naming none makes a copy.
      std::array<index_t, R> reals = shape, from{};
      if (axes.count() > axes.capacity)
        throw argument_error(std::string(name()), 2,
                             "names " + std::to_string(axes.count()) + " axes; at most " +
                                 std::to_string(axes.capacity) +
                                 " are kept (an axis may be named again to roll it "
                                 "again, up to that many)");
      axes.require_in_range(name(), 2);
      for (int i = 0; i < axes.count(); ++i) {
        const auto u = static_cast<std::size_t>(normalize_axis(name(), 2, axes[i], static_cast<int>(R)));
        const index_t n = shape[u];
        if (n != 0) from[u] = (from[u] + (Inverse ? n / 2 : n - n / 2)) % n;
      }
      constexpr index_t width = sizeof(T) / sizeof(Real);
      reals[R - 1] *= width;
      from[R - 1] *= width;
      auto result = make_result<T, R, is_device_arg<A>>(site, shape);
      input_elements<T> src = input_on<T>(site, name(), 1, x);
      output_elements<T> dst = output_elements<T>::make(site, name(), 0, result);
      const index_t count = elements_of(reals);
      const Real *in = reinterpret_cast<const Real *>(src.data);
      Real *out = reinterpret_cast<Real *>(dst.data);
      if (count > 0 && site.on_device()) {
        fft_shift_params<Real, R> p{in, out, count, {}, {}};
        for (std::size_t d = 0; d < R; ++d) {
          p.shape[d] = reals[d];
          p.from[d] = from[d];
        }
        launch_over<fft_shift_entry<Real, R>>(*site.call, count, p);
        keep_until_done(*site.call, {src.keep});
      } else if (count > 0) {
        // Row by row: each output row is the input row it comes from, rotated.
        const index_t row = reals[R - 1], rows = count / row, split = row - from[R - 1];
        maybe_parallel(site.parallel(), rows, std::max<index_t>(1, (index_t{1} << 15) / row),
                       [&](index_t begin, index_t end) {
                         for (index_t r = begin; r < end; ++r) {
                           index_t rest = r, at = 0, stride = row;
                           for (std::size_t d = R - 1; d-- > 0;) {
                             index_t k = rest % reals[d] + from[d];
                             rest /= reals[d];
                             if (k >= reals[d]) k -= reals[d];
                             at += k * stride;
                             stride *= reals[d];
                           }
                           const Real *i = in + at;
                           Real *o = out + r * row;
                           std::copy(i + from[R - 1], i + row, o);
                           std::copy(i, i + from[R - 1], o + split);
                         }
                       });
      }
      dst.deliver();
      return result;
    } else {
      return failed_call_result{};
    }
  }
};

} // namespace detail

/// The sample frequencies of an n-point transform with samples `spacing` apart, in cycles
/// per unit of the spacing, in the order fft gives its coefficients (NumPy's fftfreq):
/// 0, 1, ..., then the negative ones, over n * spacing.
template <detail::integer_argument N> ndarray<double, 1> fftfreq(N points, double spacing = 1.0) {
  index_t n = detail::integer_value("fftfreq", 1, points, "n =");
  if (n < 1) throw argument_error("fftfreq", 1, "n = " + std::to_string(n) + ": a transform has at least one point");
  if (!(spacing != 0) || !std::isfinite(spacing))
    throw argument_error("fftfreq", 2, "the sample spacing must be finite and not 0");
  detail::checked_size("fftfreq", 1, &n, 1, sizeof(double));
  ndarray<double, 1> f(ndarray<double, 1>::uninitialized, {n}, "fftfreq", 0);
  const double scale = 1 / (static_cast<double>(n) * spacing);
  for (index_t k = 0; k < n; ++k) f(k) = static_cast<double>(k < (n + 1) / 2 ? k : k - n) * scale;
  return f;
}

/// The n/2+1 frequencies of rfft's coefficients (NumPy's rfftfreq).
template <detail::integer_argument N> ndarray<double, 1> rfftfreq(N points, double spacing = 1.0) {
  index_t n = detail::integer_value("rfftfreq", 1, points, "n =");
  if (n < 1) throw argument_error("rfftfreq", 1, "n = " + std::to_string(n) + ": a transform has at least one point");
  if (!(spacing != 0) || !std::isfinite(spacing))
    throw argument_error("rfftfreq", 2, "the sample spacing must be finite and not 0");
  detail::checked_size("rfftfreq", 1, &n, 1, sizeof(double));
  ndarray<double, 1> f(ndarray<double, 1>::uninitialized, {n / 2 + 1}, "rfftfreq", 0);
  const double scale = 1 / (static_cast<double>(n) * spacing);
  for (index_t k = 0; k <= n / 2; ++k) f(k) = static_cast<double>(k) * scale;
  return f;
}

/// hfft (real values from the first half of a Hermitian signal) and ihfft (back), as NumPy's.
inline constexpr detail::hermitian_1d_fn<false> hfft{};
inline constexpr detail::hermitian_1d_fn<true> ihfft{};

/// The zero frequency moved to the middle of each axis (every axis by default), and back.
inline constexpr detail::fft_shift_fn<false> fftshift{};
inline constexpr detail::fft_shift_fn<true> ifftshift{};

/// The discrete Fourier transform along one axis (the last by default), and its inverse.
inline constexpr detail::fft_1d_fn<false> fft{};
inline constexpr detail::fft_1d_fn<true> ifft{};
/// The transform along two axes (the last two by default), and its inverse; with lengths,
/// of the input cropped or padded with zeros to them.
inline constexpr detail::fft_nd_fn<false, false> fft2{};
inline constexpr detail::fft_nd_fn<true, false> ifft2{};
/// The transform along the given axes (every axis by default), and its inverse.
inline constexpr detail::fft_nd_fn<false, true> fftn{};
inline constexpr detail::fft_nd_fn<true, true> ifftn{};
/// The transforms of a complex array in its own memory.
inline constexpr detail::fft_inplace_fn<false> fft_inplace{};
inline constexpr detail::fft_inplace_fn<true> ifft_inplace{};
/// The transform of real values along one axis: its n/2+1 first coefficients (the others are
/// their conjugates); and its inverse, to `n` real values.
inline constexpr detail::rfft_fn rfft{};
inline constexpr detail::irfft_fn irfft{};
/// The real transforms along two axes (the last two by default) or along the given axes
/// (every axis by default): real along the last of them, complex along the others.
inline constexpr detail::real_nd_fn<false, false> rfft2{};
inline constexpr detail::real_nd_fn<true, false> irfft2{};
inline constexpr detail::real_nd_fn<false, true> rfftn{};
inline constexpr detail::real_nd_fn<true, true> irfftn{};

} // namespace kernel
