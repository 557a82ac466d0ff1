// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU side of kernel/linalg.h: a tiled matrix product over strided, batched operands, a
// two-pass dot product (and sum of squares for the norm), and alpha x + beta y. They run on
// the simulator and on CUDA devices alike, as every algorithm entry (algorithm_kernel.h).
//
// Complex values travel as {re, im} pairs of their real type: std::complex is neither
// trivially constructible (shared memory holds trivial types) nor multiplied without
// __mulsc3, which no device has.
#pragma once

#include <complex>
#include <type_traits>

#include "kernel/detail/algorithm_kernel.h"

namespace kernel::detail {

template <class R> struct blas_complex {
  R re, im;
};

/// The type a kernel computes with for elements of type T.
template <class T> struct blas_value {
  using type = T;
};
template <class R> struct blas_value<std::complex<R>> {
  using type = blas_complex<R>;
};
template <class T> using blas_value_t = typename blas_value<T>::type;

template <class V> KERNEL_ALWAYS_INLINE constexpr V blas_zero() noexcept { return V{}; }

template <class V> KERNEL_ALWAYS_INLINE constexpr V blas_mul(V a, V b) noexcept { return a * b; }
template <class R>
KERNEL_ALWAYS_INLINE constexpr blas_complex<R> blas_mul(blas_complex<R> a, blas_complex<R> b) noexcept {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class V> KERNEL_ALWAYS_INLINE constexpr V blas_add(V a, V b) noexcept { return a + b; }
template <class R>
KERNEL_ALWAYS_INLINE constexpr blas_complex<R> blas_add(blas_complex<R> a, blas_complex<R> b) noexcept {
  return {a.re + b.re, a.im + b.im};
}
template <class V> KERNEL_ALWAYS_INLINE constexpr V blas_conj(V a) noexcept { return a; }
template <class R> KERNEL_ALWAYS_INLINE constexpr blas_complex<R> blas_conj(blas_complex<R> a) noexcept {
  return {a.re, -a.im};
}
template <class V> KERNEL_ALWAYS_INLINE constexpr bool blas_is_zero(V a) noexcept { return a == V{}; }
template <class R> KERNEL_ALWAYS_INLINE constexpr bool blas_is_zero(blas_complex<R> a) noexcept {
  return a.re == 0 && a.im == 0;
}

// ---------------------------------------------------------------------------------------
// C = alpha A B + beta E, batched

/// Element (b, i, j) of a strided batch of matrices.
struct blas_strides {
  index_t row = 0, col = 0, batch = 0;
  KERNEL_ALWAYS_INLINE constexpr index_t at(index_t b, index_t i, index_t j) const noexcept {
    return b * batch + i * row + j * col;
  }
};

template <class V> struct gemm_params {
  const V *a, *b, *e; // e: null when beta is 0; may be c itself (same strides)
  V *c;
  index_t m, n, k, batch, tiles_m, tiles_n;
  blas_strides as, bs, cs, es;
  V alpha, beta;
  std::int32_t conj_a, conj_b, conj_e; // read a, b, e conjugated
};

inline constexpr index_t gemm_tile = 64;       // of C, square
inline constexpr index_t gemm_depth = 16;      // of the inner dimension per step
inline constexpr unsigned gemm_per_thread = 4; // rows and columns of C per thread, 16 x 16 threads

/// Each block computes 64 x 64 tiles of C (looping over tiles when there are more than
/// blocks), staging 64 x 16 of A and 16 x 64 of B in shared memory per step; each of its 256
/// threads accumulates 4 x 4 elements, 16 rows and 16 columns apart.
template <class T> struct gemm_entry {
  using V = blas_value_t<T>;
  using params = gemm_params<V>;
  static constexpr ctext make_name() { return entry_name<T>("matrix_product"); }
  static constexpr auto kernel_name = to_text<&gemm_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&gemm_entry::make_name>();

  static void run(const params &p) noexcept {
    auto As = shared_array<V, gemm_depth, gemm_tile + 1>();
    auto Bs = shared_array<V, gemm_depth, gemm_tile + 1>();
    const unsigned tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const index_t per_batch = p.tiles_m * p.tiles_n;
    for (index_t t = blockIdx.x; t < p.batch * per_batch; t += gridDim.x) {
      const index_t b = t / per_batch, r = t % per_batch;
      const index_t i0 = (r / p.tiles_n) * gemm_tile, j0 = (r % p.tiles_n) * gemm_tile;
      V acc[gemm_per_thread][gemm_per_thread];
      for (unsigned x = 0; x < gemm_per_thread; ++x)
        for (unsigned y = 0; y < gemm_per_thread; ++y) acc[x][y] = blas_zero<V>();
      for (index_t k0 = 0; k0 < p.k; k0 += gemm_depth) {
        for (index_t q = tid; q < gemm_tile * gemm_depth; q += algorithm_block) {
          const index_t ii = q % gemm_tile, kk = q / gemm_tile, i = i0 + ii, k = k0 + kk;
          V av = i < p.m && k < p.k ? p.a[p.as.at(b, i, k)] : blas_zero<V>();
          As(kk, ii) = p.conj_a ? blas_conj(av) : av;
          const index_t j = j0 + ii;
          V bv = j < p.n && k < p.k ? p.b[p.bs.at(b, k, j)] : blas_zero<V>();
          Bs(kk, ii) = p.conj_b ? blas_conj(bv) : bv;
        }
        syncthreads();
        for (index_t kk = 0; kk < gemm_depth; ++kk) {
          V av[gemm_per_thread], bv[gemm_per_thread];
          for (unsigned x = 0; x < gemm_per_thread; ++x) av[x] = As(kk, ty + 16 * x);
          for (unsigned y = 0; y < gemm_per_thread; ++y) bv[y] = Bs(kk, tx + 16 * y);
          for (unsigned x = 0; x < gemm_per_thread; ++x)
            for (unsigned y = 0; y < gemm_per_thread; ++y) acc[x][y] = blas_add(acc[x][y], blas_mul(av[x], bv[y]));
        }
        syncthreads(); // the tiles are read before the next step overwrites them
      }
      for (unsigned x = 0; x < gemm_per_thread; ++x)
        for (unsigned y = 0; y < gemm_per_thread; ++y) {
          const index_t i = i0 + ty + 16 * x, j = j0 + tx + 16 * y;
          if (i >= p.m || j >= p.n) continue;
          // alpha 0 takes nothing of A B, as BLAS (OpenBLAS and cuBLAS on the other targets):
          // their NaNs and infinities do not reach C.
          V v = blas_is_zero(p.alpha) ? blas_zero<V>() : blas_mul(p.alpha, acc[x][y]);
          // beta 0 reads nothing, as BLAS: E may hold NaNs or be uninitialised.
          if (p.e) {
            const V e = p.e[p.es.at(b, i, j)];
            v = blas_add(v, blas_mul(p.beta, p.conj_e ? blas_conj(e) : e));
          }
          p.c[p.cs.at(b, i, j)] = v;
        }
    }
  }
};

// ---------------------------------------------------------------------------------------
// Dot products and norms

enum class dot_mode : std::int32_t { partial, total };

template <class V> struct dot_params {
  const V *x, *y;
  index_t n, x_stride, y_stride;
  V *partial, *out;
  std::int32_t conjugate;
  dot_mode mode;
};

/// One pass of a sum in two passes, for parameters `p` with mode, n, partial and out: pass
/// `partial` folds element i into a thread's sum with `fold(acc, i)`, grid-stride; pass `total`
/// (one block) takes the n partial sums. `combine` joins sums, also down the block's tree;
/// thread 0 writes the block's sum to partial[block] or *out.
template <class A, class P, class Fold, class Combine>
KERNEL_ALWAYS_INLINE void two_pass_step(const P &p, A acc, Fold fold, Combine combine) noexcept {
  auto sums = shared_array<A, algorithm_block>();
  const unsigned tid = threadIdx.x;
  if (p.mode == dot_mode::partial) {
    for (index_t i = index_t{blockIdx.x} * algorithm_block + tid; i < p.n; i += index_t{gridDim.x} * algorithm_block)
      acc = fold(acc, i);
  } else {
    for (index_t i = tid; i < p.n; i += algorithm_block) acc = combine(acc, p.partial[i]);
  }
  sums[tid] = acc;
  syncthreads();
  for (unsigned half = algorithm_block / 2; half > 0; half /= 2) {
    if (tid < half) sums[tid] = combine(sums[tid], sums[tid + half]);
    syncthreads();
  }
  if (tid == 0) (p.mode == dot_mode::partial ? p.partial[blockIdx.x] : *p.out) = sums[0];
}

/// A sum of squares kept as scale^2 * sum, scale the largest magnitude so far: sums of any
/// finite values neither overflow nor underflow (LAPACK's nrm2 update).
struct scaled_squares {
  double scale, sum;
};

/// The squares of a (scale, sum) and b together. A NaN scale marks a NaN seen; equal scales
/// (infinite ones included) have ratio 1.
KERNEL_ALWAYS_INLINE constexpr scaled_squares combine_squares(scaled_squares a, scaled_squares b) noexcept {
  if (a.scale != a.scale) return a;
  if (b.scale != b.scale || a.scale == 0) return b;
  if (b.scale == 0) return a;
  if (a.scale < b.scale) {
    const double r = a.scale / b.scale;
    return {b.scale, b.sum + a.sum * r * r};
  }
  const double r = a.scale == b.scale ? 1 : b.scale / a.scale;
  return {a.scale, a.sum + b.sum * r * r};
}

KERNEL_ALWAYS_INLINE constexpr scaled_squares add_square(scaled_squares a, double v) noexcept {
  return combine_squares(a, {v < 0 ? -v : v, 1});
}

template <class V> KERNEL_ALWAYS_INLINE scaled_squares add_squares_of(scaled_squares a, V v) noexcept {
  if constexpr (std::is_floating_point_v<V>)
    return add_square(a, static_cast<double>(v));
  else
    return add_square(add_square(a, static_cast<double>(v.re)), static_cast<double>(v.im));
}

template <class V> struct norm_params {
  const V *x;
  index_t n, x_stride;
  scaled_squares *partial, *out;
  dot_mode mode;
};

/// The two passes of a dot product, for the scaled sums of squares of a norm.
template <class T> struct norm_entry {
  using V = blas_value_t<T>;
  using params = norm_params<V>;
  static constexpr ctext make_name() { return entry_name<T>("vector_two_norm"); }
  static constexpr auto kernel_name = to_text<&norm_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&norm_entry::make_name>();

  static void run(const params &p) noexcept {
    two_pass_step(
        p, scaled_squares{0, 0},
        [&](scaled_squares acc, index_t i) { return add_squares_of(acc, p.x[i * p.x_stride]); },
        [](scaled_squares a, scaled_squares b) { return combine_squares(a, b); });
  }
};

/// Pass `partial`: each block's share of the sum into partial[block]; pass `total`: one block
/// sums the n partials into *out.
template <class T> struct dot_entry {
  using V = blas_value_t<T>;
  using params = dot_params<V>;
  static constexpr ctext make_name() { return entry_name<T>("dot"); }
  static constexpr auto kernel_name = to_text<&dot_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&dot_entry::make_name>();

  static KERNEL_ALWAYS_INLINE V term(const params &p, index_t i) noexcept {
    const V x = p.x[i * p.x_stride];
    return blas_mul(p.conjugate ? blas_conj(x) : x, p.y[i * p.y_stride]);
  }

  static void run(const params &p) noexcept {
    two_pass_step(
        p, blas_zero<V>(), [&](V acc, index_t i) { return blas_add(acc, term(p, i)); },
        [](V a, V b) { return blas_add(a, b); });
  }
};

// ---------------------------------------------------------------------------------------
// z = alpha x + beta y

template <class V> struct axpby_params {
  const V *x, *y; // y null: z = alpha x
  V *z;
  index_t n;
  V alpha, beta;
  std::int32_t conj_x, conj_y; // read x, y conjugated
};

template <class V> KERNEL_ALWAYS_INLINE void axpby_at(const axpby_params<V> &p, index_t i) noexcept {
  const V x = p.x[i];
  V v = blas_mul(p.alpha, p.conj_x ? blas_conj(x) : x);
  if (p.y) {
    const V y = p.y[i];
    v = blas_add(v, blas_mul(p.beta, p.conj_y ? blas_conj(y) : y));
  }
  p.z[i] = v;
}

template <class T> struct axpby_entry {
  using V = blas_value_t<T>;
  using params = axpby_params<V>;
  static constexpr ctext make_name() { return entry_name<T>("add"); }
  static constexpr auto kernel_name = to_text<&axpby_entry::make_name>();
  static constexpr auto kernel_signature = to_text<&axpby_entry::make_name>();
  static void run(const params &p) noexcept {
    for (index_t i = grid<1>(); i < p.n; i += gridsize<1>()) axpby_at(p, i);
  }
};

} // namespace kernel::detail
