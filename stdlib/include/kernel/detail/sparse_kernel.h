// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The work of kernel/sparse.h on CSR arrays, written once for the host and the device: each
// step is a function of one row (or one element) that the host loops call directly and the
// GPU entries call from their threads, so every target computes every element the same way
// (the same order of additions within a row). The entries run on the simulator and on CUDA
// devices alike, as every algorithm entry (algorithm_kernel.h).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernel/detail/algorithm_kernel.h"
#include "kernel/detail/linalg_kernel.h"

namespace kernel::detail {

/// "what_i32(type)": the name a sparse entry is listed under, its index type included.
template <class T, class I> constexpr ctext sparse_entry_name(std::string_view what) {
  ctext s;
  s += what;
  s += sizeof(I) == 4 ? "_i32(" : "_i64(";
  s += type_text<T>();
  s += ")";
  return s;
}

/// A CSR matrix where a kernel reads it: row r holds entries offsets[r] to offsets[r + 1] - 1.
template <class V, class I> struct csr_arrays {
  const I *offsets = nullptr; // rows + 1
  const I *columns = nullptr; // one per entry
  const V *values = nullptr;  // one per entry
  index_t rows = 0, cols = 0;
};

// ---------------------------------------------------------------------------------------
// y = alpha A x + beta z

template <class V, class I> struct spmv_params {
  csr_arrays<V, I> a;
  const V *x;
  const V *z; // null: y = alpha A x
  V *y;
  index_t x_stride, z_stride, y_stride;
  V alpha, beta;
  unsigned lanes; // threads per row on a device: a power of two up to a warp
};

/// The share of row r's sum that lane `sub` of `lanes` adds up (all of it for one lane).
template <class V, class I>
KERNEL_ALWAYS_INLINE V spmv_partial(const spmv_params<V, I> &p, index_t r, unsigned sub, unsigned lanes) noexcept {
  V sum = blas_zero<V>();
  const index_t end = p.a.offsets[r + 1];
  for (index_t k = p.a.offsets[r] + sub; k < end; k += lanes)
    sum = blas_add(sum, blas_mul(p.a.values[k], p.x[static_cast<index_t>(p.a.columns[k]) * p.x_stride]));
  return sum;
}

template <class V, class I>
KERNEL_ALWAYS_INLINE void spmv_store(const spmv_params<V, I> &p, index_t r, V sum) noexcept {
  // alpha 0 takes nothing of A x, as BLAS: NaNs there do not reach y.
  V v = blas_is_zero(p.alpha) ? blas_zero<V>() : blas_mul(p.alpha, sum);
  if (p.z) v = blas_add(v, blas_mul(p.beta, p.z[r * p.z_stride]));
  p.y[r * p.y_stride] = v;
}

/// Each row is summed by `lanes` neighbouring lanes of a warp, their shares combined by
/// shuffles: one lane for rows of a few entries, up to a warp for long rows, so that short
/// rows leave no lanes idle and long ones are read with coalesced loads.
template <class T, class I> struct spmv_entry {
  using V = blas_value_t<T>;
  using params = spmv_params<V, I>;
  static constexpr ctext make_name() { return sparse_entry_name<T, I>("spmv"); }
  static constexpr auto kernel_name = to_text<&spmv_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    const unsigned lane = threadIdx.x % warpsize;
    const unsigned sub = lane % p.lanes;
    const index_t rows_per_warp = warpsize / p.lanes;
    const index_t warp = grid<1>() / warpsize;
    const index_t warps = gridsize<1>() / warpsize;
    // The loop bound is the same for every lane of a warp: all of them reach the shuffles.
    for (index_t first = warp * rows_per_warp; first < p.a.rows; first += warps * rows_per_warp) {
      const index_t r = first + lane / p.lanes;
      V sum = r < p.a.rows ? spmv_partial(p, r, sub, p.lanes) : blas_zero<V>();
      for (unsigned d = p.lanes / 2; d > 0; d /= 2) {
        const V other = shfl_down_sync(full_mask, sum, d, static_cast<int>(p.lanes));
        sum = blas_add(sum, other);
      }
      if (r < p.a.rows && sub == 0) spmv_store(p, r, sum);
    }
  }
};

// ---------------------------------------------------------------------------------------
// C = alpha A B + beta E, B and C dense

template <class V, class I> struct spmm_params {
  csr_arrays<V, I> a;
  const V *b;
  const V *e; // null: C = alpha A B; may be C itself (same strides)
  V *c;
  blas_strides bs, es, cs;
  index_t n;
  V alpha, beta;
};

template <class V, class I>
KERNEL_ALWAYS_INLINE void spmm_at(const spmm_params<V, I> &p, index_t i, index_t j) noexcept {
  V sum = blas_zero<V>();
  const index_t end = p.a.offsets[i + 1];
  for (index_t k = p.a.offsets[i]; k < end; ++k)
    sum = blas_add(sum, blas_mul(p.a.values[k], p.b[p.bs.at(0, p.a.columns[k], j)]));
  V v = blas_is_zero(p.alpha) ? blas_zero<V>() : blas_mul(p.alpha, sum);
  if (p.e) v = blas_add(v, blas_mul(p.beta, p.e[p.es.at(0, i, j)]));
  p.c[p.cs.at(0, i, j)] = v;
}

/// One thread per element of C, neighbouring threads on neighbouring columns: a warp reads
/// one row of A (the same addresses for every lane) and consecutive elements of B's rows.
template <class T, class I> struct spmm_entry {
  using V = blas_value_t<T>;
  using params = spmm_params<V, I>;
  static constexpr ctext make_name() { return sparse_entry_name<T, I>("spmm"); }
  static constexpr auto kernel_name = to_text<&spmm_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    const index_t total = p.a.rows * p.n;
    for (index_t t = grid<1>(); t < total; t += gridsize<1>()) spmm_at(p, t / p.n, t % p.n);
  }
};

// ---------------------------------------------------------------------------------------
// Dense results and dense sources

template <class V, class I> struct dense_params {
  csr_arrays<V, I> a;
  V *out;
  blas_strides os;
};

/// Row r of A added into a zeroed dense matrix: repeated coordinates are summed, in order.
template <class V, class I> KERNEL_ALWAYS_INLINE void scatter_row(const dense_params<V, I> &p, index_t r) noexcept {
  const index_t end = p.a.offsets[r + 1];
  for (index_t k = p.a.offsets[r]; k < end; ++k) {
    V &o = p.out[p.os.at(0, r, p.a.columns[k])];
    o = blas_add(o, p.a.values[k]);
  }
}

template <class T> struct zero_fill_entry {
  using V = blas_value_t<T>;
  struct params {
    V *out;
    blas_strides os;
    index_t rows, cols;
  };
  static constexpr ctext make_name() { return entry_name<T>("zero_fill"); }
  static constexpr auto kernel_name = to_text<&zero_fill_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    for (index_t t = grid<1>(); t < p.rows * p.cols; t += gridsize<1>())
      p.out[p.os.at(0, t / p.cols, t % p.cols)] = blas_zero<V>();
  }
};

template <class T, class I> struct to_dense_entry {
  using V = blas_value_t<T>;
  using params = dense_params<V, I>;
  static constexpr ctext make_name() { return sparse_entry_name<T, I>("to_dense"); }
  static constexpr auto kernel_name = to_text<&to_dense_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    for (index_t r = grid<1>(); r < p.a.rows; r += gridsize<1>()) scatter_row(p, r);
  }
};

/// The nonzero elements of a dense matrix, row by row: counted first (`counts`), then, once
/// the counts are offsets, written out (with their row, for COO, when `rows_out` is set).
template <class V, class I> struct from_dense_params {
  const V *in;
  blas_strides is;
  index_t rows, cols;
  I *counts;        // the count pass: rows + 1 of them, the last set to 0
  const I *offsets; // the fill pass
  I *rows_out, *columns_out;
  V *values_out;
};

template <class V, class I> KERNEL_ALWAYS_INLINE void count_row(const from_dense_params<V, I> &p, index_t r) noexcept {
  index_t n = 0;
  for (index_t j = 0; j < p.cols; ++j) n += blas_is_zero(p.in[p.is.at(0, r, j)]) ? 0 : 1;
  p.counts[r] = static_cast<I>(n);
  if (r == 0) p.counts[p.rows] = 0;
}

template <class V, class I> KERNEL_ALWAYS_INLINE void fill_row(const from_dense_params<V, I> &p, index_t r) noexcept {
  index_t k = p.offsets[r];
  for (index_t j = 0; j < p.cols; ++j) {
    const V v = p.in[p.is.at(0, r, j)];
    if (blas_is_zero(v)) continue;
    if (p.rows_out) p.rows_out[k] = static_cast<I>(r);
    p.columns_out[k] = static_cast<I>(j);
    p.values_out[k] = v;
    ++k;
  }
}

template <class T, class I, bool Fill> struct from_dense_entry {
  using V = blas_value_t<T>;
  using params = from_dense_params<V, I>;
  static constexpr ctext make_name() { return sparse_entry_name<T, I>(Fill ? "from_dense_fill" : "from_dense_count"); }
  static constexpr auto kernel_name = to_text<&from_dense_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    for (index_t r = grid<1>(); r < p.rows; r += gridsize<1>()) {
      if constexpr (Fill)
        fill_row(p, r);
      else
        count_row(p, r);
    }
  }
};

// ---------------------------------------------------------------------------------------
// Between COO and CSR

/// Entry k of the row-sorted matrix is entry order[k] of the source.
template <class V, class I> struct gather_entries_params {
  const index_t *order;
  const I *rows_in, *columns_in;
  const V *values_in;
  I *rows_out, *columns_out;
  V *values_out;
  index_t n;
};

template <class V, class I>
KERNEL_ALWAYS_INLINE void gather_entry_at(const gather_entries_params<V, I> &p, index_t k) noexcept {
  const index_t from = p.order[k];
  p.rows_out[k] = p.rows_in[from];
  p.columns_out[k] = p.columns_in[from];
  p.values_out[k] = p.values_in[from];
}

template <class T, class I> struct gather_entries_entry {
  using V = blas_value_t<T>;
  using params = gather_entries_params<V, I>;
  static constexpr ctext make_name() { return sparse_entry_name<T, I>("sort_entries"); }
  static constexpr auto kernel_name = to_text<&gather_entries_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    for (index_t k = grid<1>(); k < p.n; k += gridsize<1>()) gather_entry_at(p, k);
  }
};

/// offsets[r] = the first position of a row >= r in the sorted row indices, for r in [0, rows].
template <class I> struct row_offsets_params {
  const I *sorted_rows;
  I *offsets;
  index_t rows, n;
};

template <class I> KERNEL_ALWAYS_INLINE void row_offset_at(const row_offsets_params<I> &p, index_t r) noexcept {
  index_t lo = 0, hi = p.n;
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (static_cast<index_t>(p.sorted_rows[mid]) < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  p.offsets[r] = static_cast<I>(lo);
}

template <class I> struct row_offsets_entry {
  using params = row_offsets_params<I>;
  static constexpr ctext make_name() { return entry_name<I>("row_offsets"); }
  static constexpr auto kernel_name = to_text<&row_offsets_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    for (index_t r = grid<1>(); r <= p.rows; r += gridsize<1>()) row_offset_at(p, r);
  }
};

/// The row of every entry of a CSR matrix.
template <class I> struct expand_rows_params {
  const I *offsets;
  I *rows_out;
  index_t rows;
};

template <class I> struct expand_rows_entry {
  using params = expand_rows_params<I>;
  static constexpr ctext make_name() { return entry_name<I>("expand_rows"); }
  static constexpr auto kernel_name = to_text<&expand_rows_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    for (index_t r = grid<1>(); r < p.rows; r += gridsize<1>())
      for (index_t k = p.offsets[r]; k < p.offsets[r + 1]; ++k) p.rows_out[k] = static_cast<I>(r);
  }
};

// ---------------------------------------------------------------------------------------
// Checks of matrices built from a user's arrays

/// The first faults of a matrix's index arrays (positions; no_fault where none): an offset
/// out of order or out of range, a row or column index outside the matrix. `unsorted` is no
/// fault: the first CSR entry whose column is not above the one before it in its row (a
/// matrix without one has cuSPARSE's canonical format: sorted, no coordinate twice).
inline constexpr index_t no_fault = std::numeric_limits<index_t>::max();
struct index_faults {
  index_t offset = no_fault, row = no_fault, column = no_fault, unsorted = no_fault;
};

template <class I> struct check_params {
  const I *offsets; // CSR; null for COO
  const I *rows_in; // COO
  const I *columns;
  index_t rows, cols, n; // n: entries
  index_t *faults;       // index_faults' four fields, on the device
};

/// CSR row r: its offsets (offset fault at r + 1 when it ends before it starts or past the
/// entries, at 0 when the first is not 0), then its columns.
template <class I, class Fault>
KERNEL_ALWAYS_INLINE void check_csr_row(const check_params<I> &p, index_t r, Fault fault) {
  const index_t begin = p.offsets[r], end = p.offsets[r + 1];
  if (r == 0 && begin != 0) fault(0, index_t{0});
  if (begin < 0 || begin > p.n) return; // the row before (or the check above) reports it
  if (end < begin || end > p.n || (r + 1 == p.rows && end != p.n)) {
    fault(0, r + 1);
    return;
  }
  for (index_t k = begin; k < end; ++k) {
    if (p.columns[k] < 0 || static_cast<index_t>(p.columns[k]) >= p.cols) fault(2, k);
    if (k > begin && p.columns[k] <= p.columns[k - 1]) fault(3, k);
  }
}

template <class I, class Fault>
KERNEL_ALWAYS_INLINE void check_coo_entry(const check_params<I> &p, index_t k, Fault fault) {
  if (p.rows_in[k] < 0 || static_cast<index_t>(p.rows_in[k]) >= p.rows) fault(1, k);
  if (p.columns[k] < 0 || static_cast<index_t>(p.columns[k]) >= p.cols) fault(2, k);
}

template <class I, bool Csr> struct check_indices_entry {
  using params = check_params<I>;
  static constexpr ctext make_name() { return entry_name<I>(Csr ? "check_csr" : "check_coo"); }
  static constexpr auto kernel_name = to_text<&check_indices_entry::make_name>();
  static constexpr auto kernel_signature = kernel_name;
  static void run(const params &p) noexcept {
    const auto fault = [&](int what, index_t at) { atomic_min(p.faults[what], at); };
    const index_t n = Csr ? p.rows : p.n;
    for (index_t t = grid<1>(); t < n; t += gridsize<1>()) {
      if constexpr (Csr)
        check_csr_row(p, t, fault);
      else
        check_coo_entry(p, t, fault);
    }
  }
};

} // namespace kernel::detail
