// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host FFT: mixed-radix decimation in time (radices 4, 2, 3 and 5 written out, other
// small primes by a direct DFT of the radix), Bluestein's chirp-z for lengths with a prime
// factor above 31, real transforms of even length through complex ones of half the length, of
// odd length through complex ones of the same length. Plans (factors, twiddles, Bluestein's
// chirp and its transform) are built once per length and precision and shared. Where a pass
// has many lines, several are transformed side by side (`lanes`); a long line is split into
// short ones that are (Bailey's four steps).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel/detail/fft_api.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/errors.h"

namespace kernel::detail {
namespace {

// Prime factors above this go to Bluestein: a radix-p butterfly costs p^2 per p points.
constexpr index_t largest_direct_radix = 31;
// Lines at least this long are transformed by four steps (fft_plan::split_line). Measured on
// one line (bench/fft_cpu_bench's machine, SSE2): complex64 from 2^12 points on (2^16: 0.76
// against 1.2 ms); complex128, two values to a vector register, only from 2^18 (2^17: 5.0
// against 3.9 ms, 2^18: 7.5 against 8.5).
template <class T> constexpr index_t split_line_at = index_t{1} << (sizeof(T) == 4 ? 12 : 18);

/// Point j of B lines transformed side by side, real and imaginary parts apart: a butterfly's
/// operations on it are loops over the lines, which vectorize, so that a pass over many lines
/// runs B transforms for little more than the price of one. B complex values fill a cache
/// line, so that gathering B neighbouring columns reads whole cache lines, where a column at a
/// time used one value of each line it read, and columns a power of two apart evicted one
/// another from the caches' sets (fft2 of 1024² took three times as long as now). B = 1 is
/// one line. Products avoid std::complex's operator*, which calls a library function
/// (__mulsc3) for C99's rules on infinities: an FFT's twiddles are finite.
template <class T, int B> struct lanes {
  T re[B], im[B];

  friend lanes operator+(const lanes &a, const lanes &b) noexcept {
    lanes r;
    for (int l = 0; l < B; ++l) r.re[l] = a.re[l] + b.re[l], r.im[l] = a.im[l] + b.im[l];
    return r;
  }
  friend lanes operator-(const lanes &a, const lanes &b) noexcept {
    lanes r;
    for (int l = 0; l < B; ++l) r.re[l] = a.re[l] - b.re[l], r.im[l] = a.im[l] - b.im[l];
    return r;
  }
  friend lanes operator*(const lanes &a, T s) noexcept {
    lanes r;
    for (int l = 0; l < B; ++l) r.re[l] = a.re[l] * s, r.im[l] = a.im[l] * s;
    return r;
  }
  lanes &operator+=(const lanes &b) noexcept { return *this = *this + b; }
  /// a w, w the same for every line (a twiddle).
  friend lanes mul(const lanes &a, std::complex<T> w) noexcept {
    lanes r;
    const T wr = w.real(), wi = w.imag();
    for (int l = 0; l < B; ++l) r.re[l] = a.re[l] * wr - a.im[l] * wi, r.im[l] = a.re[l] * wi + a.im[l] * wr;
    return r;
  }
  /// a b, line by line.
  friend lanes mul(const lanes &a, const lanes &b) noexcept {
    lanes r;
    for (int l = 0; l < B; ++l)
      r.re[l] = a.re[l] * b.re[l] - a.im[l] * b.im[l], r.im[l] = a.re[l] * b.im[l] + a.im[l] * b.re[l];
    return r;
  }
  /// -i a: the rotation that radix-4, -3 and -5 butterflies share.
  friend lanes minus_i(const lanes &a) noexcept {
    lanes r;
    for (int l = 0; l < B; ++l) r.re[l] = a.im[l], r.im[l] = -a.re[l];
    return r;
  }
  friend lanes conj(const lanes &a) noexcept {
    lanes r;
    for (int l = 0; l < B; ++l) r.re[l] = a.re[l], r.im[l] = -a.im[l];
    return r;
  }
  static lanes zero() noexcept {
    lanes r;
    for (int l = 0; l < B; ++l) r.re[l] = T(0), r.im[l] = T(0);
    return r;
  }
};

/// Lines transformed side by side: a cache line of complex values.
template <class T> constexpr int lane_count = 64 / static_cast<int>(sizeof(std::complex<T>));

/// A work buffer of `n` values, left unset: every value is written before it is read, and
/// setting a long line's buffers first cost as much as a pass over them.
template <class V> std::unique_ptr<V[]> buffer(index_t n) {
  return std::make_unique_for_overwrite<V[]>(static_cast<std::size_t>(n));
}

template <class T> class fft_plan {
public:
  using C = std::complex<T>;

  explicit fft_plan(index_t n);

  /// out = DFT(in), forward, of B lines of n points (point j of each in in[j], out[j]);
  /// `scratch` holds scratch_size(B) values. `parallel`: a long line may use every core.
  template <int B>
  void forward(const lanes<T, B> *in, lanes<T, B> *out, lanes<T, B> *scratch, bool parallel = false) const;
  /// forward of one line of std::complex values (for making plans).
  void forward(const C *in, C *out) const;
  /// The scratch values forward<B> needs.
  index_t scratch_size(int B) const noexcept {
    if (bluestein_) return 2 * bluestein_->m + bluestein_->of->scratch_size(B);
    return B == 1 && four_step_ ? four_step_->n1 * four_step_->pitch : 0;
  }
  index_t size() const noexcept { return n_; }

private:
  struct radix {
    index_t p, m;         // this level transforms p * m points as p transforms of m
    std::size_t twiddles; // where its twiddles start in level_twiddles_: (p - 1) per column k
  };
  struct bluestein {
    index_t m;                          // a power of two at least 2n - 1
    std::vector<C> chirp;               // w_k = e^{-pi i k^2 / n}, k < n
    std::vector<C> kernel_spectrum;     // the DFT of conj(w) laid out circularly in m points
    std::shared_ptr<const fft_plan> of; // the power-of-two plan of m points
  };
  /// One long line of n = n1 n2 points, seen as n1 rows of n2: n2 transforms of n1 points down
  /// its columns, twiddled, then n1 of n2 points along the rows, each step transforming
  /// lane_count<T> columns or rows side by side. The line alone ran its butterflies a point at
  /// a time, the vector registers one value wide.
  struct split_line {
    using group = lanes<T, lane_count<T>>;
    index_t n1, n2;
    // Between rows in the scratch matrix: a cache line more than a row, so that the rows read
    // together are not all in one set of the caches (rows of 8 KB were, and evicted each other).
    index_t pitch;
    std::shared_ptr<const fft_plan> columns, rows; // of n1 and n2 points
    std::vector<group> twiddles;                   // [g n1 + k1], lane l: W_n^{(g B + l) k1}
  };

  void plan_split_line();
  template <class V> void work(V *out, const V *in, index_t in_stride, std::size_t level) const;
  template <class V> void butterfly(V *out, const C *tw, index_t fstride, index_t p, index_t m) const;
  template <int B>
  void forward_bluestein(const lanes<T, B> *in, lanes<T, B> *out, lanes<T, B> *scratch, bool parallel) const;
  void forward_split(const lanes<T, 1> *in, lanes<T, 1> *out, lanes<T, 1> *rows, bool parallel) const;

  index_t n_;
  std::vector<radix> radices_;
  std::vector<C> twiddles_;       // e^{-2 pi i t / n}, t < n
  std::vector<C> level_twiddles_; // per level, column k, q = 1..p-1: twiddles_[q k fstride], in order
  std::unique_ptr<bluestein> bluestein_;
  std::unique_ptr<split_line> four_step_;
};

template <class T> std::shared_ptr<const fft_plan<T>> plan_for(index_t n);

/// e^{-2 pi i t / n}: t reduced to the first half-turn's nearer end first, so that the angle
/// handed to cos and sin stays small and exact to the last bits for long transforms.
template <class T> std::complex<T> unit_root(index_t t, index_t n) {
  const bool lower = 2 * t > n; // angles past pi: the conjugate of n - t's
  const index_t u = lower ? n - t : t;
  const double angle = -2.0 * std::numbers::pi * static_cast<double>(u) / static_cast<double>(n);
  const std::complex<T> w{static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle))};
  return lower ? std::conj(w) : w;
}

template <class T> fft_plan<T>::fft_plan(index_t n) : n_(n) {
  if (n <= 1) return;
  std::vector<index_t> factors;
  index_t rest = n;
  while (rest % 4 == 0) {
    factors.push_back(4);
    rest /= 4;
  }
  for (index_t p = 2; p * p <= rest; p += p == 2 ? 1 : 2)
    while (rest % p == 0) {
      factors.push_back(p);
      rest /= p;
    }
  if (rest > 1) factors.push_back(rest);
  if (factors.back() > largest_direct_radix &&
      *std::max_element(factors.begin(), factors.end()) > largest_direct_radix) {
    auto b = std::make_unique<bluestein>();
    b->m = 1;
    while (b->m < 2 * n - 1) b->m *= 2;
    b->of = plan_for<T>(b->m);
    b->chirp.resize(static_cast<std::size_t>(n));
    const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
    for (index_t k = 0; k < n; ++k) {
      // k^2 mod 2n exactly: e^{-pi i k^2/n} has period 2n in k^2.
      const auto k2 =
          static_cast<std::uint64_t>((static_cast<unsigned __int128>(k) * static_cast<unsigned __int128>(k)) % two_n);
      b->chirp[static_cast<std::size_t>(k)] = unit_root<T>(static_cast<index_t>(k2), static_cast<index_t>(two_n));
    }
    std::vector<C> kernel(static_cast<std::size_t>(b->m), C{});
    kernel[0] = std::conj(b->chirp[0]);
    for (index_t k = 1; k < n; ++k)
      kernel[static_cast<std::size_t>(k)] = kernel[static_cast<std::size_t>(b->m - k)] =
          std::conj(b->chirp[static_cast<std::size_t>(k)]);
    b->kernel_spectrum.resize(static_cast<std::size_t>(b->m));
    b->of->forward(kernel.data(), b->kernel_spectrum.data());
    bluestein_ = std::move(b);
    return;
  }
  twiddles_.resize(static_cast<std::size_t>(n));
  for (index_t t = 0; t < n; ++t) twiddles_[static_cast<std::size_t>(t)] = unit_root<T>(t, n);
  // Each level reads its twiddles in order from a table of its own (reading the whole table
  // at a stride would miss the caches at every access for long transforms).
  index_t m = n, fstride = 1;
  for (index_t p : factors) {
    m /= p;
    radices_.push_back({p, m, level_twiddles_.size()});
    for (index_t k = 0; k < m; ++k)
      for (index_t q = 1; q < p; ++q) level_twiddles_.push_back(twiddles_[static_cast<std::size_t>(q * k * fstride)]);
    fstride *= p;
  }
  plan_split_line();
}

// Long lines are split when both sides of the split are whole groups of lanes: n1 the
// divisor of n nearest below sqrt(n) that is.
template <class T> void fft_plan<T>::plan_split_line() {
  constexpr index_t B = lane_count<T>;
  if (n_ < split_line_at<T>) return;
  index_t n1 = 1;
  while ((n1 + 1) * (n1 + 1) <= n_) ++n1;
  for (; n1 >= 2 * B; --n1)
    if (n_ % n1 == 0 && n1 % B == 0 && (n_ / n1) % B == 0) break;
  if (n1 < 2 * B) return;
  auto s = std::make_unique<split_line>();
  s->n1 = n1;
  s->n2 = n_ / n1;
  s->pitch = s->n2 + B;
  s->columns = plan_for<T>(s->n1);
  s->rows = plan_for<T>(s->n2);
  s->twiddles.resize(static_cast<std::size_t>(n_ / B));
  for (index_t g = 0; g < s->n2 / B; ++g)
    for (index_t k1 = 0; k1 < n1; ++k1)
      for (index_t l = 0; l < B; ++l) {
        const C w = twiddles_[static_cast<std::size_t>((g * B + l) * k1)]; // (n2 - 1)(n1 - 1) < n
        s->twiddles[static_cast<std::size_t>(g * n1 + k1)].re[l] = w.real();
        s->twiddles[static_cast<std::size_t>(g * n1 + k1)].im[l] = w.imag();
      }
  four_step_ = std::move(s);
}

template <class T>
template <int B>
void fft_plan<T>::forward(const lanes<T, B> *in, lanes<T, B> *out, lanes<T, B> *scratch, bool parallel) const {
  if (n_ <= 1) {
    if (n_ == 1) out[0] = in[0];
    return;
  }
  if (bluestein_) {
    forward_bluestein(in, out, scratch, parallel);
    return;
  }
  if constexpr (B == 1)
    if (four_step_) {
      forward_split(in, out, scratch, parallel);
      return;
    }
  work(out, in, 1, 0);
}

template <class T> void fft_plan<T>::forward(const C *in, C *out) const {
  using one = lanes<T, 1>;
  std::vector<one> a(static_cast<std::size_t>(n_)), b(a.size()), scratch(static_cast<std::size_t>(scratch_size(1)));
  for (index_t j = 0; j < n_; ++j) a[static_cast<std::size_t>(j)] = {{in[j].real()}, {in[j].imag()}};
  forward(a.data(), b.data(), scratch.data());
  for (index_t j = 0; j < n_; ++j)
    out[j] = C(b[static_cast<std::size_t>(j)].re[0], b[static_cast<std::size_t>(j)].im[0]);
}

// Level `level` transforms the points in[0], in[s], in[2s], ... (s = in_stride) into out, as
// p transforms of the points congruent to q mod p, then one butterfly per output column.
template <class T>
template <class V>
void fft_plan<T>::work(V *out, const V *in, index_t in_stride, std::size_t level) const {
  const radix &r = radices_[level];
  const index_t p = r.p, m = r.m;
  if (m == 1) {
    for (index_t q = 0; q < p; ++q) out[q] = in[q * in_stride];
  } else {
    for (index_t q = 0; q < p; ++q) work(out + q * m, in + q * in_stride, in_stride * p, level + 1);
  }
  butterfly(out, level_twiddles_.data() + r.twiddles, in_stride, p, m);
}

// out[q m + k] holds output k of sub-transform q; afterwards out[u m + k] holds output k + u m
// of this level's transform of p m points. tw: this level's twiddles, (p - 1) per column.
template <class T>
template <class V>
void fft_plan<T>::butterfly(V *out, const C *tw, index_t fstride, index_t p, index_t m) const {
  switch (p) {
  case 2:
    for (index_t k = 0; k < m; ++k) {
      const V t0 = out[k], t1 = mul(out[k + m], tw[k]);
      out[k] = t0 + t1;
      out[k + m] = t0 - t1;
    }
    return;
  case 4:
    for (index_t k = 0; k < m; ++k) {
      const C *w = tw + 3 * k;
      const V t0 = out[k], t1 = mul(out[k + m], w[0]), t2 = mul(out[k + 2 * m], w[1]), t3 = mul(out[k + 3 * m], w[2]);
      const V a0 = t0 + t2, a1 = t0 - t2, a2 = t1 + t3, a3 = minus_i(t1 - t3);
      out[k] = a0 + a2;
      out[k + m] = a1 + a3;
      out[k + 2 * m] = a0 - a2;
      out[k + 3 * m] = a1 - a3;
    }
    return;
  case 3: {
    // X_1,2 = t0 - (t1 + t2)/2 -+ i sin(2 pi/3) (t1 - t2)
    const T half = T(0.5), sin60 = static_cast<T>(0.86602540378443864676);
    for (index_t k = 0; k < m; ++k) {
      const C *w = tw + 2 * k;
      const V t0 = out[k], t1 = mul(out[k + m], w[0]), t2 = mul(out[k + 2 * m], w[1]);
      const V sum = t1 + t2, mid = t0 - sum * half, rot = minus_i((t1 - t2) * sin60);
      out[k] = t0 + sum;
      out[k + m] = mid + rot;
      out[k + 2 * m] = mid - rot;
    }
    return;
  }
  case 5: {
    // Pairs q and 5 - q share cosines and have opposite sines.
    const T c1 = static_cast<T>(0.30901699437494742410), c2 = static_cast<T>(-0.80901699437494742410),
            s1 = static_cast<T>(0.95105651629515357212), s2 = static_cast<T>(0.58778525229247312917);
    for (index_t k = 0; k < m; ++k) {
      const C *w = tw + 4 * k;
      const V t0 = out[k], t1 = mul(out[k + m], w[0]), t2 = mul(out[k + 2 * m], w[1]), t3 = mul(out[k + 3 * m], w[2]),
              t4 = mul(out[k + 4 * m], w[3]);
      const V a1 = t1 + t4, b1 = t1 - t4, a2 = t2 + t3, b2 = t2 - t3;
      const V r1 = t0 + a1 * c1 + a2 * c2, r2 = t0 + a1 * c2 + a2 * c1;
      const V rot1 = minus_i(b1 * s1 + b2 * s2), rot2 = minus_i(b1 * s2 - b2 * s1);
      out[k] = t0 + a1 + a2;
      out[k + m] = r1 + rot1;
      out[k + 4 * m] = r1 - rot1;
      out[k + 2 * m] = r2 + rot2;
      out[k + 3 * m] = r2 - rot2;
    }
    return;
  }
  default: {
    V t[largest_direct_radix];
    C roots[largest_direct_radix];
    const index_t root = m * fstride; // twiddles_[root] = e^{-2 pi i / p}
    for (index_t j = 0; j < p; ++j) roots[j] = twiddles_[static_cast<std::size_t>(j * root)];
    for (index_t k = 0; k < m; ++k) {
      const C *w = tw + (p - 1) * k;
      t[0] = out[k];
      for (index_t q = 1; q < p; ++q) t[q] = mul(out[k + q * m], w[q - 1]);
      for (index_t u = 0; u < p; ++u) {
        V sum = t[0];
        // roots[(q u) mod p], the exponent stepped by u instead of a division per term.
        for (index_t q = 1, e = u; q < p; ++q, e = e + u >= p ? e + u - p : e + u) sum += mul(t[q], roots[e]);
        out[k + u * m] = sum;
      }
    }
  }
  }
}

// X[k1 + n1 k2] = sum_j2 W_n2^{j2 k2} W_n^{j2 k1} sum_j1 W_n1^{j1 k1} x[j1 n2 + j2]: the inner
// sums down the columns, twiddled, into `rows` as n1 rows of n2; the outer along those rows.
template <class T>
void fft_plan<T>::forward_split(const lanes<T, 1> *in, lanes<T, 1> *out, lanes<T, 1> *rows, bool parallel) const {
  constexpr index_t B = lane_count<T>;
  using group = typename split_line::group;
  const split_line &s = *four_step_;
  const index_t n1 = s.n1, n2 = s.n2, pitch = s.pitch;
  // Four groups at a time: the steps read (and write) across the matrix's rows, 8 KB apart for
  // 2^20 points, and four neighbouring cache lines of a row at once kept more reads in flight
  // than one.
  constexpr index_t together = 4;
  auto down_columns = [&](index_t begin, index_t end) {
    const auto a = buffer<group>(together * n1), b = buffer<group>(together * n1),
               scratch = buffer<group>(s.columns->scratch_size(B));
    for (index_t g0 = begin; g0 < end; g0 += together) {
      const index_t count = std::min(together, end - g0), j2 = g0 * B;
      for (index_t j1 = 0; j1 < n1; ++j1)
        for (index_t c = 0; c < count; ++c)
          for (index_t l = 0; l < B; ++l) {
            const lanes<T, 1> &v = in[j1 * n2 + j2 + c * B + l];
            a[c * n1 + j1].re[l] = v.re[0], a[c * n1 + j1].im[l] = v.im[0];
          }
      for (index_t c = 0; c < count; ++c) s.columns->forward(a.get() + c * n1, b.get() + c * n1, scratch.get());
      for (index_t k1 = 0; k1 < n1; ++k1)
        for (index_t c = 0; c < count; ++c) {
          const group v = mul(b[c * n1 + k1], s.twiddles[static_cast<std::size_t>((g0 + c) * n1 + k1)]);
          for (index_t l = 0; l < B; ++l) rows[k1 * pitch + j2 + c * B + l] = {{v.re[l]}, {v.im[l]}};
        }
    }
  };
  auto along_rows = [&](index_t begin, index_t end) {
    const auto a = buffer<group>(together * n2), b = buffer<group>(together * n2),
               scratch = buffer<group>(s.rows->scratch_size(B));
    for (index_t g0 = begin; g0 < end; g0 += together) {
      const index_t count = std::min(together, end - g0), k1 = g0 * B;
      for (index_t c = 0; c < count; ++c)
        for (index_t j2 = 0; j2 < n2; ++j2)
          for (index_t l = 0; l < B; ++l) {
            const lanes<T, 1> &v = rows[(k1 + c * B + l) * pitch + j2];
            a[c * n2 + j2].re[l] = v.re[0], a[c * n2 + j2].im[l] = v.im[0];
          }
      for (index_t c = 0; c < count; ++c) s.rows->forward(a.get() + c * n2, b.get() + c * n2, scratch.get());
      for (index_t k2 = 0; k2 < n2; ++k2)
        for (index_t c = 0; c < count; ++c)
          for (index_t l = 0; l < B; ++l)
            out[k1 + c * B + l + n1 * k2] = {{b[c * n2 + k2].re[l]}, {b[c * n2 + k2].im[l]}};
    }
  };
  maybe_parallel(parallel, n2 / B, 1, down_columns);
  maybe_parallel(parallel, n1 / B, 1, along_rows);
}

// X_k = w_k sum_j (x_j w_j) conj(w_{k-j}): a circular convolution of m points by the power-of-two
// plan, whose inverse is the forward transform of the conjugate.
template <class T>
template <int B>
void fft_plan<T>::forward_bluestein(const lanes<T, B> *in, lanes<T, B> *out, lanes<T, B> *scratch,
                                    bool parallel) const {
  const bluestein &b = *bluestein_;
  lanes<T, B> *a = scratch, *spectrum = scratch + b.m, *inner = scratch + 2 * b.m;
  for (index_t k = 0; k < n_; ++k) a[k] = mul(in[k], b.chirp[static_cast<std::size_t>(k)]);
  std::fill(a + n_, a + b.m, lanes<T, B>::zero());
  b.of->forward(a, spectrum, inner, parallel);
  for (index_t k = 0; k < b.m; ++k)
    spectrum[k] = conj(mul(spectrum[k], b.kernel_spectrum[static_cast<std::size_t>(k)]));
  b.of->forward(spectrum, a, inner, parallel);
  const T inverse_m = T(1) / static_cast<T>(b.m);
  for (index_t k = 0; k < n_; ++k) out[k] = mul(conj(a[k]) * inverse_m, b.chirp[static_cast<std::size_t>(k)]);
}

/// The plan of type Plan for `n` points, made once: plans in use are shared, and the last few
/// are kept too, as a program usually transforms the same lengths again (a plan of 2^20
/// points takes longer to make than to run).
template <class Plan> std::shared_ptr<const Plan> shared_plan(index_t n) {
  constexpr std::size_t kept = 16;
  static std::mutex lock;
  static std::map<index_t, std::weak_ptr<const Plan>> plans;
  static std::vector<std::shared_ptr<const Plan>> recent;
  const auto remember = [](std::shared_ptr<const Plan> p) {
    if (std::find(recent.begin(), recent.end(), p) != recent.end()) return p;
    if (recent.size() == kept) recent.erase(recent.begin());
    recent.push_back(p);
    return p;
  };
  {
    const std::lock_guard<std::mutex> hold(lock);
    if (auto p = plans[n].lock()) return remember(std::move(p));
  }
  // Built outside the lock: a plan may ask for another (Bluestein's for its power of two).
  auto made = std::make_shared<const Plan>(n);
  const std::lock_guard<std::mutex> hold(lock);
  if (auto p = plans[n].lock()) return remember(std::move(p));
  plans[n] = made;
  return remember(std::move(made));
}

template <class T> std::shared_ptr<const fft_plan<T>> plan_for(index_t n) { return shared_plan<fft_plan<T>>(n); }

/// A real transform of even length n = 2m as a complex one of m points, half the work of
/// widening the values to complex: the even and odd values are packed as the real and
/// imaginary parts of m complex ones, and the coefficients of the two halves separated (or,
/// for the inverse, combined) with the twiddles w^k = e^{-2 pi i k / n}, k <= m.
template <class T> class real_fft_plan {
public:
  using C = std::complex<T>;

  explicit real_fft_plan(index_t n) : m_(n / 2), half_(plan_for<T>(n / 2)) {
    w_.resize(static_cast<std::size_t>(m_ + 1));
    for (index_t k = 0; k <= m_; ++k) w_[static_cast<std::size_t>(k)] = unit_root<T>(k, n);
    // Exactly -1 (sin(-pi) is not 0 in floating point), so that X_{n/2} of real values comes
    // out real, as NumPy's does.
    w_[static_cast<std::size_t>(m_)] = C(-1, 0);
  }
  index_t half_size() const noexcept { return m_; }
  index_t scratch_size(int B) const noexcept { return half_->scratch_size(B); }

  /// X_k, k <= m, into spectrum[0..m], of the values packed in line[0..m) as x_2j + i x_2j+1;
  /// `line` and `spectrum` may be the same; `work` holds m values.
  template <int B>
  void forward(const lanes<T, B> *line, lanes<T, B> *spectrum, lanes<T, B> *work, lanes<T, B> *scratch,
               bool parallel) const {
    half_->forward(line, work, scratch, parallel);
    for (index_t k = 0; k <= m_; ++k) {
      const lanes<T, B> z = work[k == m_ ? 0 : k], zc = conj(work[k == 0 ? 0 : m_ - k]);
      // E_k = (z + zc) / 2 transforms the even values, O_k = (z - zc) / 2i the odd ones.
      spectrum[k] = (z + zc + mul(minus_i(z - zc), w_[static_cast<std::size_t>(k)])) * T(0.5);
    }
  }

  /// The unnormalised inverse of the Hermitian spectrum whose first m + 1 coefficients are
  /// spectrum[0..m] (the imaginary parts of X_0 and X_m, which a real spectrum lacks,
  /// ignored), packed into line[0..m) as x_2j - i x_2j+1; `line` and `spectrum` may be the
  /// same; `work` holds m values.
  template <int B>
  void inverse(const lanes<T, B> *spectrum, lanes<T, B> *line, lanes<T, B> *work, lanes<T, B> *scratch,
               bool parallel) const {
    for (index_t k = 0; k < m_; ++k) {
      lanes<T, B> x = spectrum[k], xc = conj(spectrum[m_ - k]);
      if (k == 0)
        for (int l = 0; l < B; ++l) x.im[l] = xc.im[l] = T(0);
      // 2 E_k and 2 O_k, then Z_k = E_k + i O_k, conjugated for the inverse.
      const lanes<T, B> e = x + xc, o = mul(x - xc, std::conj(w_[static_cast<std::size_t>(k)]));
      work[k] = conj(e - minus_i(o));
    }
    half_->forward(work, line, scratch, parallel);
  }

private:
  index_t m_;
  std::shared_ptr<const fft_plan<T>> half_;
  std::vector<C> w_;
};

/// The offsets of line `line` (every index but the axis's, row-major) in the input and output.
std::pair<index_t, index_t> line_offsets(const fft_pass &p, index_t line) {
  index_t in = 0, out = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    if (d == p.axis) continue;
    const index_t extent = p.out_shape[d], i = line % extent;
    line /= extent;
    in += i * p.in_strides[d];
    out += i * p.out_strides[d];
  }
  return {in, out};
}

/// The transforms of B lines of a pass at a time: gathered from the pass's input into
/// lanes, transformed, scattered to its output, scaled. The plan is the real one for r2c and
/// c2r of even length, else the complex one.
template <class T> class pass_lines {
public:
  using C = std::complex<T>;

  explicit pass_lines(const fft_pass &p)
      : p_(p), n_(p.n), in_step_(p.in_strides[p.axis]), out_step_(p.out_strides[p.axis]),
        scale_(static_cast<T>(p.scale)) {
    if ((p.transform == fft_transform::r2c || p.transform == fft_transform::c2r) && p.n % 2 == 0)
      real_ = shared_plan<real_fft_plan<T>>(n_);
    else
      complex_ = plan_for<T>(n_);
  }

  /// Values of B lines each of the buffers needs: two of the line's length (and one more, for
  /// a spectrum of n/2 + 1 of a real transform of length 2) and the plan's scratch.
  index_t buffer_size() const noexcept { return n_ + 1; }
  index_t scratch_size(int B) const noexcept { return real_ ? real_->scratch_size(B) : complex_->scratch_size(B); }

  /// Lines [first, first + B); `a`, `b` hold buffer_size() values, `scratch` scratch_size(B).
  template <int B> void transform(index_t first, lanes<T, B> *a, lanes<T, B> *b, lanes<T, B> *scratch) const {
    index_t in_at[B], out_at[B];
    for (int l = 0; l < B; ++l) std::tie(in_at[l], out_at[l]) = line_offsets(p_, first + l);
    const T *in_real = static_cast<const T *>(p_.in);
    const C *in_complex = static_cast<const C *>(p_.in);
    T *out_real = static_cast<T *>(p_.out);
    C *out_complex = static_cast<C *>(p_.out);
    const auto load = [&](index_t j, int l) { return in_complex[in_at[l] + j * in_step_]; };
    switch (p_.transform) {
    case fft_transform::c2c_forward:
    case fft_transform::c2c_inverse: {
      // The inverse transforms the conjugates, and conjugates the results.
      const T sign = p_.transform == fft_transform::c2c_inverse ? T(-1) : T(1);
      for (index_t j = 0; j < n_; ++j)
        for (int l = 0; l < B; ++l) {
          if (p_.real_input) {
            a[j].re[l] = in_real[in_at[l] + j * in_step_], a[j].im[l] = T(0);
          } else {
            const C v = load(j, l);
            a[j].re[l] = v.real(), a[j].im[l] = sign * v.imag();
          }
        }
      complex_->forward(a, b, scratch, p_.parallel);
      for (index_t j = 0; j < n_; ++j)
        for (int l = 0; l < B; ++l)
          out_complex[out_at[l] + j * out_step_] = C(b[j].re[l] * scale_, sign * b[j].im[l] * scale_);
      return;
    }
    case fft_transform::r2c: {
      const index_t half = n_ / 2;
      if (real_) {
        for (index_t j = 0; j < half; ++j)
          for (int l = 0; l < B; ++l)
            a[j].re[l] = in_real[in_at[l] + 2 * j * in_step_], a[j].im[l] = in_real[in_at[l] + (2 * j + 1) * in_step_];
        real_->forward(a, a, b, scratch, p_.parallel);
      } else {
        for (index_t j = 0; j < n_; ++j)
          for (int l = 0; l < B; ++l) b[j].re[l] = in_real[in_at[l] + j * in_step_], b[j].im[l] = T(0);
        complex_->forward(b, a, scratch, p_.parallel);
      }
      for (index_t k = 0; k <= half; ++k)
        for (int l = 0; l < B; ++l)
          out_complex[out_at[l] + k * out_step_] = C(a[k].re[l] * scale_, a[k].im[l] * scale_);
      return;
    }
    case fft_transform::c2r: {
      const index_t half = n_ / 2;
      if (real_) {
        for (index_t k = 0; k <= half; ++k)
          for (int l = 0; l < B; ++l) {
            const C v = load(k, l);
            a[k].re[l] = v.real(), a[k].im[l] = v.imag();
          }
        real_->inverse(a, a, b, scratch, p_.parallel);
        for (index_t j = 0; j < half; ++j)
          for (int l = 0; l < B; ++l) {
            out_real[out_at[l] + 2 * j * out_step_] = a[j].re[l] * scale_;
            out_real[out_at[l] + (2 * j + 1) * out_step_] = -a[j].im[l] * scale_;
          }
        return;
      }
      // The whole Hermitian spectrum from its first n/2+1 coefficients, conjugated for the
      // inverse (the imaginary parts of X_0 and X_{n/2} only add imaginary outputs, dropped).
      for (index_t j = 0; j < n_; ++j)
        for (int l = 0; l < B; ++l) {
          const C v = j <= half ? std::conj(load(j, l)) : load(n_ - j, l);
          a[j].re[l] = v.real(), a[j].im[l] = v.imag();
        }
      complex_->forward(a, b, scratch, p_.parallel);
      for (index_t j = 0; j < n_; ++j)
        for (int l = 0; l < B; ++l) out_real[out_at[l] + j * out_step_] = b[j].re[l] * scale_;
      return;
    }
    }
  }

private:
  const fft_pass &p_;
  index_t n_, in_step_, out_step_;
  T scale_;
  std::shared_ptr<const real_fft_plan<T>> real_;
  std::shared_ptr<const fft_plan<T>> complex_;
};

/// `body(begin, end)` over the lines of `p`: on all cores when the pass says so, in tasks of
/// at least 2^15 points and a multiple of the lines transformed side by side, so that short
/// lines are shared out in batches.
template <class Body> void for_lines(const fft_pass &p, index_t lines, Body &body) {
  // Pieces of whole groups of eight lines (the most that go side by side): a grain of lines,
  // even a multiple of eight, still let the scheduler cut pieces of five to seven lines, which
  // went one by one.
  constexpr index_t group = lane_count<float>;
  const index_t groups = (lines + group - 1) / group;
  const index_t grain = (std::max<index_t>(1, (index_t{1} << 15) / std::max<index_t>(p.n, 1)) + group - 1) / group;
  maybe_parallel(p.parallel, groups, grain, [&](index_t b, index_t e) { body(b * group, std::min(e * group, lines)); });
}

template <class T> void run(const fft_pass &p) {
  index_t lines = 1;
  for (int d = 0; d < p.rank; ++d)
    if (d != p.axis) lines *= p.out_shape[d];
  if (lines == 0 || p.in_shape[p.axis] == 0 || p.out_shape[p.axis] == 0) return;
  const pass_lines<T> pass(p);
  // Side by side only while B lines' buffers stay small (4 MB for float): a long line is
  // transformed alone, within the caches as far as it can be.
  constexpr int B = lane_count<T>;
  const bool side_by_side = lines >= B && 2 * pass.buffer_size() + pass.scratch_size(B) <= (index_t{1} << 16);
  auto body = [&](index_t begin, index_t end) {
    index_t l = begin;
    if (side_by_side && end - begin >= B) {
      const auto a = buffer<lanes<T, B>>(pass.buffer_size()), b = buffer<lanes<T, B>>(pass.buffer_size()),
                 scratch = buffer<lanes<T, B>>(pass.scratch_size(B));
      for (; end - l >= B; l += B) pass.transform(l, a.get(), b.get(), scratch.get());
    }
    if (l == end) return;
    const auto a = buffer<lanes<T, 1>>(pass.buffer_size()), b = buffer<lanes<T, 1>>(pass.buffer_size()),
               scratch = buffer<lanes<T, 1>>(pass.scratch_size(1));
    for (; l < end; ++l) pass.transform(l, a.get(), b.get(), scratch.get());
  };
  for_lines(p, lines, body);
}

} // namespace

void fft_host(const fft_pass &p) {
  if (p.axis < 0 || p.axis >= p.rank) throw argument_error("fft", 0, "the axis is out of range");
  if (p.double_precision)
    run<double>(p);
  else
    run<float>(p);
}

} // namespace kernel::detail
