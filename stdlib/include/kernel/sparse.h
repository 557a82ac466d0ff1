// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Sparse matrices in CSR and COO form, on the host and on devices, with products by dense
// vectors and matrices, on every target with one spelling:
//
//   namespace sp = kernel::sparse;
//   auto A = sp::csr_from_dense(dense);                  // the nonzero elements, row by row
//   sp::csr_matrix<float> B(rows, cols, offsets, columns, values);  // checked
//   sp::coo_matrix<double> C(rows, cols, row_idx, col_idx, values); // any order, repeats add up
//   auto dA = A.to_device(kernel::device::simulator());  // or a GPU; copy_to_host() back
//   sp::spmv(A, x, y);                                   // y = A x
//   sp::spmv(kernel::linalg::scaled(2.0f, A), x, kernel::linalg::scaled(0.5f, y), y); // y = 2 A x + y / 2
//   auto Y = sp::spmm(dA, dB);                           // dense Y = A B, a device array
//   auto D = sp::to_dense(A);  auto At = sp::transpose(A);  auto K = sp::to_csr(C);
//
// Values are float32, float64, complex64 or complex128; indices int32 (the default) or int64
// (`csr_from_dense(d, sp::index64)`, `csr_matrix<float, std::int64_t>`). A matrix keeps its
// arrays in host memory (csr_matrix, coo_matrix: ndarrays) or in one device's memory
// (device_csr_matrix, device_coo_matrix: device arrays); the structure is checked once, when
// it is built from a user's arrays, and cannot change afterwards (the values can).
//
// Products and to_dense run where their arrays are, or on the target, device or stream chosen
// with `.on(...)`, as ufuncs and kernel/linalg.h do (a host matrix used on a device is copied
// there for the call). Conversions (from dense, between formats, transpose) run where the
// matrix is: host matrices on the CPU (all cores with .on(kernel::target::parallel)),
// device matrices on their device (on a chosen stream with .on(stream)). Products of a COO
// matrix convert it to CSR for the call: convert once with to_csr when products repeat. The
// dense operands of products may be lazy expressions (kernel/fuse.h), evaluated into arrays
// first where the call runs.
//
// On CUDA devices spmv and spmm go to cuSPARSE's generic API (loaded on first use;
// $KERNEL_CUSPARSE_LIBRARY names another build) for a CSR matrix in its canonical format
// (has_canonical_format: each row's columns sorted, none twice) with contiguous vectors, or
// dense matrices of one order (row- or column-major) with z, E absent or the result itself.
// Everything else, and every product on cpu, parallel and the simulator, is the runtime's own
// work (detail/sparse_kernel.h): each row's products are added in entry order, so those
// targets agree to the last bit for real types up to the device's fused multiply-adds;
// cuSPARSE agrees with them to rounding.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/algorithm.h"
#include "kernel/detail/axis.h"
#include "kernel/detail/sparse_api.h"
#include "kernel/detail/sparse_kernel.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"
#include "kernel/linalg.h"

namespace kernel::sparse {

/// The index type of a matrix a conversion builds: `csr_from_dense(d, sparse::index64)`.
template <class I> struct index_type_t {
  using type = I;
};
inline constexpr index_type_t<std::int32_t> index32{};
inline constexpr index_type_t<std::int64_t> index64{};

template <class T, class I, bool Device> class basic_csr_matrix;
template <class T, class I, bool Device> class basic_coo_matrix;

/// Compressed sparse rows: row r holds entries row_offsets[r] to row_offsets[r + 1] - 1,
/// each a column index and a value.
template <class T, class I = std::int32_t> using csr_matrix = basic_csr_matrix<T, I, false>;
template <class T, class I = std::int32_t> using device_csr_matrix = basic_csr_matrix<T, I, true>;
/// Coordinates: entry k is value k at (row_indices[k], column_indices[k]), in any order;
/// entries at the same place add up.
template <class T, class I = std::int32_t> using coo_matrix = basic_coo_matrix<T, I, false>;
template <class T, class I = std::int32_t> using device_coo_matrix = basic_coo_matrix<T, I, true>;

} // namespace kernel::sparse

namespace kernel::detail {

template <class U, bool Device> using sparse_array = std::conditional_t<Device, device_array<U, 1>, ndarray<U, 1>>;

/// Builds matrices from arrays the library made itself, without checking them again.
struct sparse_trusted_t {};
inline constexpr sparse_trusted_t sparse_trusted{};

template <class T, class I> constexpr void require_sparse_types() {
  static_assert(blas_element<T>, "sparse matrices hold float32, float64, complex64 or complex128 values");
  static_assert(std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>,
                "the indices of a sparse matrix are int32 or int64");
}

template <class M> inline constexpr bool is_csr = false;
template <class T, class I, bool D> inline constexpr bool is_csr<sparse::basic_csr_matrix<T, I, D>> = true;
template <class M> inline constexpr bool is_coo = false;
template <class T, class I, bool D> inline constexpr bool is_coo<sparse::basic_coo_matrix<T, I, D>> = true;
template <class M> inline constexpr bool is_sparse = is_csr<M> || is_coo<M>;

template <class I> std::string index_name() { return sizeof(I) == 4 ? "int32" : "int64"; }

/// A count or extent that the matrix's index type must hold.
template <class I> void require_fits(std::string_view name, int argument, index_t v, std::string_view what) {
  if (v < 0)
    throw argument_error(std::string(name), argument,
                         "is " + std::to_string(v) + ": " + std::string(what) + " cannot be negative");
  if (v > std::numeric_limits<I>::max())
    throw argument_error(std::string(name), argument,
                         "is " + std::to_string(v) + ": more " + std::string(what) + " than " + index_name<I>() +
                             " indices can address (build the matrix with int64 indices: sparse::index64)");
}

/// What is wrong with row offset `value` at position `k` (`before` the one before it, where
/// k > 0) of a CSR matrix of `rows` rows and `n` values.
inline std::string offset_fault(index_t k, index_t value, index_t before, index_t rows, index_t n) {
  const std::string at = "has row offset " + std::to_string(value) + " at position " + std::to_string(k);
  if (k == 0 && value != 0) return at + ": the offsets start at 0";
  if (k > 0 && value < before)
    return at + ", below the one before it (" + std::to_string(before) + "): offsets never decrease";
  if (value < 0 || value > n) return at + ", outside 0 to " + std::to_string(n) + " (the number of values)";
  return "ends at row offset " + std::to_string(value) + " (position " + std::to_string(k) + ", after " +
         std::to_string(rows) + " rows) but there are " + std::to_string(n) +
         " values: the offsets end at the number of values";
}

/// An error for the first fault found in a matrix's index arrays, if any. Arguments are
/// numbered as the constructors take them: (rows, cols, row offsets or row indices, column
/// indices, values). `offset_why`: offset_fault for the offset fault, where there is one.
inline void throw_index_faults(std::string_view name, const index_faults &f, const std::string &offset_why = {}) {
  if (f.offset != no_fault)
    throw argument_error(std::string(name), 3,
                         offset_why.empty() ? "has row offset " + std::to_string(f.offset) +
                                                  " out of order: the offsets start at 0, never decrease and end at "
                                                  "the number of values"
                                            : offset_why);
  if (f.row != no_fault)
    throw argument_error(std::string(name), 3,
                         "has a row index outside the matrix at position " + std::to_string(f.row));
  if (f.column != no_fault)
    throw argument_error(std::string(name), 4,
                         "has a column index outside the matrix at position " + std::to_string(f.column));
}

/// The faults of CSR (`Csr`) or COO index arrays, found on the host or on the call's device;
/// the same first positions either way.
template <class I, bool Csr> index_faults find_index_faults(const std::optional<device_call> &call, check_params<I> p) {
  const index_t work = Csr ? p.rows : p.n;
  std::array<index_t, 4> found{no_fault, no_fault, no_fault, no_fault};
  if (call) {
    auto memory = device_temp<index_t>(*call, 4);
    copy_to_device(*call, data_of<index_t>(memory), found.data(), 4);
    p.faults = data_of<index_t>(memory);
    launch_over<check_indices_entry<I, Csr>>(*call, work, p);
    const std::vector<index_t> r = read_back<index_t>(*call, p.faults, 4);
    return {r[0], r[1], r[2], r[3]};
  }
  const auto fault = [&](int what, index_t at) { found[what] = std::min(found[what], at); };
  for (index_t t = 0; t < work; ++t) {
    if constexpr (Csr)
      check_csr_row(p, t, fault);
    else
      check_coo_entry(p, t, fault);
  }
  return {found[0], found[1], found[2], found[3]};
}

/// A host copy of any 1-D host array as an ndarray of U, each element checked to fit U.
template <class U, class A> ndarray<U, 1> host_copy_as(std::string_view name, int argument, const A &a) {
  using arg = arg_of<A>;
  static_assert(arg::supported && !arg::is_scalar && !arg::is_device && arg::rank == 1,
                "a sparse matrix is built from 1-D host arrays (or device arrays for a device matrix)");
  using E = typename arg::element_type;
  const auto v = arg::view(a);
  check_view(name, argument, v);
  await_host_writes(v); // read after the results calls on streams are delivering into it
  ndarray<U, 1> out(ndarray<U, 1>::uninitialized, {v.size()});
  for (index_t i = 0; i < v.size(); ++i) {
    const E e = v(i);
    if constexpr (std::is_integral_v<U>) {
      static_assert(std::is_integral_v<E>, "sparse indices are integers");
      if (!std::in_range<U>(e))
        throw argument_error(std::string(name), argument,
                             "holds " + std::to_string(e) + " at position " + std::to_string(i) + ", which " +
                                 index_name<U>() + " cannot hold");
    }
    out(i) = static_cast<U>(e);
  }
  return out;
}

/// Where a call that works on a matrix `m` (and on `others`) runs: its device for a device
/// matrix. A host matrix's values (the one array of it a call may write, through values())
/// are read after the results calls on streams are delivering into them.
template <class M, class... A>
algorithm_site matrix_site(std::string_view name, const placement &p, const M &m, const A &...others) {
  if constexpr (!M::on_device) await_host_writes(m.values().view());
  return site_of(name, p, m.values(), others...);
}

/// What CSR and COO matrices share: the shape, a first index array (row offsets or row
/// indices), the column indices and the values, and their moves between host and device.
/// `Matrix` is the format's class template.
template <template <class, class, bool> class Matrix, class T, class I, bool Device> class sparse_arrays {
  static_assert((require_sparse_types<T, I>(), true));

public:
  using value_type = T;
  using index_type = I;
  static constexpr bool on_device = Device;
  template <class U> using array_type = sparse_array<U, Device>;

  index_t rows() const noexcept { return rows_; }
  index_t cols() const noexcept { return cols_; }
  /// The number of stored entries (repeated coordinates count once each).
  index_t nnz() const noexcept { return values_.size(); }
  std::array<index_t, 2> shape() const noexcept { return {rows_, cols_}; }

  const array_type<I> &column_indices() const noexcept { return columns_; }
  const array_type<T> &values() const noexcept { return values_; }
  /// The values may be changed in place (by ufuncs, kernels, copies), through a view of
  /// them; the structure, and so their number, may not.
  std::conditional_t<Device, device_view<T, 1>, array_view<T, 1>> values() noexcept { return values_.view(); }

  kernel::device device() const noexcept
    requires Device
  {
    return values_.device();
  }

  /// A copy on device `d`, or made in order on stream `s`.
  Matrix<T, I, true> to_device(kernel::device d = kernel::device::current()) const
    requires(!Device)
  {
    return {sparse_trusted,
            rows_,
            cols_,
            kernel::to_device(first_, d),
            kernel::to_device(columns_, d),
            kernel::to_device(values_, d),
            canonical_};
  }
  Matrix<T, I, true> to_device(const stream &s) const
    requires(!Device)
  {
    return {sparse_trusted,
            rows_,
            cols_,
            kernel::to_device(first_, s),
            kernel::to_device(columns_, s),
            kernel::to_device(values_, s),
            canonical_};
  }
  /// A host copy; the host waits for it.
  Matrix<T, I, false> copy_to_host() const
    requires Device
  {
    return {sparse_trusted,         rows_,     cols_, first_.copy_to_host(), columns_.copy_to_host(),
            values_.copy_to_host(), canonical_};
  }

  /// The three arrays (row offsets or row indices, column indices, values), moved out; the
  /// matrix is left with none.
  std::tuple<array_type<I>, array_type<I>, array_type<T>> into_arrays() && {
    rows_ = cols_ = 0;
    canonical_ = false;
    return {std::move(first_), std::move(columns_), std::move(values_)};
  }

  sparse_arrays(const sparse_arrays &) = default;
  sparse_arrays &operator=(const sparse_arrays &) = default;
  /// A matrix moved from is left as into_arrays leaves one, with no shape or entries: its
  /// shape would otherwise describe arrays it no longer has.
  sparse_arrays(sparse_arrays &&other) noexcept
      : rows_(std::exchange(other.rows_, 0)), cols_(std::exchange(other.cols_, 0)), first_(std::move(other.first_)),
        columns_(std::move(other.columns_)), values_(std::move(other.values_)),
        canonical_(std::exchange(other.canonical_, false)) {}
  sparse_arrays &operator=(sparse_arrays &&other) noexcept {
    if (this != &other) {
      rows_ = std::exchange(other.rows_, 0);
      cols_ = std::exchange(other.cols_, 0);
      first_ = std::move(other.first_);
      columns_ = std::move(other.columns_);
      values_ = std::move(other.values_);
      canonical_ = std::exchange(other.canonical_, false);
    }
    return *this;
  }

protected:
  /// An extent as the caller gave it; one past index_t's range (a -1 that went through
  /// size_t) is refused here, a negative one by the checks with the index type's range.
  template <integer_argument E> static index_t extent(std::string_view name, int argument, E v, std::string_view what) {
    return static_cast<index_t>(integer_value(name, argument, v, what));
  }

  sparse_arrays(index_t rows, index_t cols, array_type<I> first, array_type<I> columns, array_type<T> values,
                bool canonical = false) noexcept
      : rows_(rows), cols_(cols), first_(std::move(first)), columns_(std::move(columns)), values_(std::move(values)),
        canonical_(canonical) {}

  /// The checks of every format: the extents fit the index type, one column index per value;
  /// then where the matrix's arrays are.
  /// `counted` is the number of entries the format's first array says there are (COO's row
  /// indices, CSR's last offset), or -1 where not known without reading device memory: where
  /// it agrees with the column indices, the values are the array that is wrong, and the error
  /// names the count between `before` and `after` (text made only then: this runs per matrix).
  algorithm_site check_common(std::string_view name, index_t counted, std::string_view before,
                              std::string_view after) const {
    require_fits<I>(name, 1, rows_, "rows");
    require_fits<I>(name, 2, cols_, "columns");
    if (columns_.size() != values_.size()) {
      if (counted == columns_.size())
        throw argument_error(std::string(name), 5,
                             "has " + std::to_string(values_.size()) + " values for " +
                                 std::to_string(columns_.size()) + " column indices (and " + std::string(before) +
                                 std::to_string(counted) + std::string(after) + ")");
      throw argument_error(std::string(name), 4,
                           "has " + std::to_string(columns_.size()) + " column indices for " +
                               std::to_string(values_.size()) + " values");
    }
    // COO's entries are counted by the index type when converted (CSR's offsets end at the
    // count, so theirs is checked with them).
    require_fits<I>(name, 5, values_.size(), "entries");
    if constexpr (Device) {
      // The matrix's kernels read all three arrays on the values' device.
      const auto placed = [&](int argument, const auto &a) {
        if (!a.has_device())
          throw argument_error(std::string(name), argument,
                               "is a device array without a device (default-constructed or moved from)");
      };
      placed(3, first_);
      placed(4, columns_);
      placed(5, values_);
      const auto elsewhere = [&](int argument, const kernel::device &d) {
        if (d != values_.device())
          throw argument_error(std::string(name), argument,
                               "is on " + d.name() + " but the values (argument 5) are on " + values_.device().name() +
                                   ": a matrix's arrays are on one device");
      };
      elsewhere(3, first_.device());
      elsewhere(4, columns_.device());
    } else {
      // Arrays moved in may still be receiving results from calls on streams: read after.
      await_host_writes(first_.view());
      await_host_writes(columns_.view());
      await_host_writes(values_.view());
    }
    return site_of(name, placement{}, values_);
  }

  index_t rows_ = 0, cols_ = 0;
  array_type<I> first_, columns_;
  array_type<T> values_;
  // CSR: each row's column indices are known to strictly increase (basic_csr_matrix).
  bool canonical_ = false;
};

} // namespace kernel::detail

namespace kernel::sparse {

template <class T, class I, bool Device>
class basic_csr_matrix : public detail::sparse_arrays<basic_csr_matrix, T, I, Device> {
  using base = detail::sparse_arrays<basic_csr_matrix, T, I, Device>;

public:
  template <class U> using array_type = typename base::template array_type<U>;

  /// A rows x cols matrix of the given arrays (moved in), checked: rows + 1 offsets that
  /// start at 0, never decrease and end at the number of values; one column index in
  /// [0, cols) per value. A device matrix is checked on its device.
  /// `rows` and `cols` are integers of any type (a floating one is a compile error).
  template <detail::integer_argument R = index_t, detail::integer_argument C = index_t>
  basic_csr_matrix(R rows, C cols, array_type<I> row_offsets, array_type<I> column_indices, array_type<T> values)
      : base(base::extent(name, 1, rows, "rows"), base::extent(name, 2, cols, "columns"), std::move(row_offsets),
             std::move(column_indices), std::move(values)) {
    this->canonical_ = check();
  }

  /// The same from any 1-D host arrays (std::vector, std::span, array_view, ...), copied;
  /// indices of another integer type are converted when they fit.
  template <detail::integer_argument R = index_t, detail::integer_argument C = index_t, class O, class J, class V>
    requires(!Device)
  basic_csr_matrix(R rows, C cols, const O &row_offsets, const J &column_indices, const V &values)
      : base(base::extent(name, 1, rows, "rows"), base::extent(name, 2, cols, "columns"),
             detail::host_copy_as<I>(name, 3, row_offsets), detail::host_copy_as<I>(name, 4, column_indices),
             detail::host_copy_as<T>(name, 5, values)) {
    this->canonical_ = check();
  }

  /// `canonical`: what the library knows of the arrays it made (has_canonical_format).
  basic_csr_matrix(detail::sparse_trusted_t, index_t rows, index_t cols, array_type<I> row_offsets,
                   array_type<I> column_indices, array_type<T> values, bool canonical = false) noexcept
      : base(rows, cols, std::move(row_offsets), std::move(column_indices), std::move(values), canonical) {}

  /// rows + 1 offsets: row r holds entries row_offsets()[r] to row_offsets()[r + 1] - 1.
  const array_type<I> &row_offsets() const noexcept { return this->first_; }

  /// Whether each row's column indices are known to strictly increase (sorted, no
  /// coordinate twice), as SciPy's has_canonical_format: true for matrices checked when built
  /// from a user's arrays that have it, from csr_from_dense, and transposes and copies of
  /// such; false for conversions from COO. Products of a CSR matrix with it run on cuSPARSE
  /// on CUDA devices, which requires it.
  bool has_canonical_format() const noexcept { return this->canonical_; }

private:
  static constexpr std::string_view name = "csr_matrix";

  /// Throws for a fault; returns whether the matrix has the canonical format.
  bool check() const {
    // The offsets' end, where the host reads it (a device matrix's is read by the checks below).
    index_t last = -1;
    if constexpr (!Device)
      if (this->rows_ >= 0 && this->first_.size() == this->rows_ + 1) last = this->first_(this->rows_);
    const detail::algorithm_site site = this->check_common(name, last, "row offsets ending at ", "");
    const index_t rows = this->rows_;
    if (this->first_.size() != rows + 1)
      throw argument_error(std::string(name), 3,
                           "has " + std::to_string(this->first_.size()) + " offsets but a matrix of " +
                               std::to_string(rows) + " rows needs " + std::to_string(rows + 1));
    if (rows == 0) {
      // No row to check the ends of the offsets: the one offset must be 0, with no values.
      I first{};
      if constexpr (Device)
        first = detail::read_back<I>(*site.call, this->first_.data(), 1)[0];
      else
        first = this->first_(0);
      if (first != 0 || this->nnz() != 0)
        detail::throw_index_faults(name, {0, detail::no_fault, detail::no_fault},
                                   detail::offset_fault(0, static_cast<index_t>(first), 0, 0, this->nnz()));
      return true;
    }
    const detail::check_params<I> p{this->first_.data(), nullptr, this->columns_.data(), rows, this->cols_,
                                    this->nnz(),         nullptr};
    const detail::index_faults faults = detail::find_index_faults<I, true>(site.call, p);
    std::string offset_why;
    if (const index_t k = faults.offset; k != detail::no_fault) {
      // The offset and the one before it, where they are.
      const index_t from = k > 0 ? k - 1 : 0;
      std::vector<I> two;
      if constexpr (Device)
        two = detail::read_back<I>(*site.call, this->first_.data() + from, k - from + 1);
      else
        two = {this->first_(from), this->first_(k)};
      offset_why = detail::offset_fault(k, static_cast<index_t>(two.back()), static_cast<index_t>(two.front()), rows,
                                        this->nnz());
    }
    detail::throw_index_faults(name, faults, offset_why);
    return faults.unsorted == detail::no_fault;
  }
};

template <class T, class I, bool Device>
class basic_coo_matrix : public detail::sparse_arrays<basic_coo_matrix, T, I, Device> {
  using base = detail::sparse_arrays<basic_coo_matrix, T, I, Device>;

public:
  template <class U> using array_type = typename base::template array_type<U>;

  /// A rows x cols matrix of the given entries (moved in), checked: one row index in
  /// [0, rows) and one column index in [0, cols) per value.
  /// `rows` and `cols` are integers of any type (a floating one is a compile error).
  template <detail::integer_argument R = index_t, detail::integer_argument C = index_t>
  basic_coo_matrix(R rows, C cols, array_type<I> row_indices, array_type<I> column_indices, array_type<T> values)
      : base(base::extent(name, 1, rows, "rows"), base::extent(name, 2, cols, "columns"), std::move(row_indices),
             std::move(column_indices), std::move(values)) {
    check();
  }

  /// The same from any 1-D host arrays, copied.
  template <detail::integer_argument R = index_t, detail::integer_argument C = index_t, class Q, class J, class V>
    requires(!Device)
  basic_coo_matrix(R rows, C cols, const Q &row_indices, const J &column_indices, const V &values)
      : base(base::extent(name, 1, rows, "rows"), base::extent(name, 2, cols, "columns"),
             detail::host_copy_as<I>(name, 3, row_indices), detail::host_copy_as<I>(name, 4, column_indices),
             detail::host_copy_as<T>(name, 5, values)) {
    check();
  }

  /// (`canonical` is CSR's: to_device and copy_to_host pass it to either format.)
  basic_coo_matrix(detail::sparse_trusted_t, index_t rows, index_t cols, array_type<I> row_indices,
                   array_type<I> column_indices, array_type<T> values, bool canonical = false) noexcept
      : base(rows, cols, std::move(row_indices), std::move(column_indices), std::move(values), canonical) {}

  /// The row of each entry.
  const array_type<I> &row_indices() const noexcept { return this->first_; }

private:
  static constexpr std::string_view name = "coo_matrix";

  void check() const {
    const detail::algorithm_site site = this->check_common(name, this->first_.size(), "", " row indices");
    if (this->first_.size() != this->nnz())
      throw argument_error(std::string(name), 3,
                           "has " + std::to_string(this->first_.size()) + " indices for " +
                               std::to_string(this->nnz()) + " values");
    const detail::check_params<I> p{
        nullptr, this->first_.data(), this->columns_.data(), this->rows_, this->cols_, this->nnz(), nullptr};
    detail::throw_index_faults(name, detail::find_index_faults<I, false>(site.call, p));
  }
};

} // namespace kernel::sparse

namespace kernel::detail {

/// The library's own arrays for the results of a conversion, where the matrix is.
template <class U, bool Device> sparse_array<U, Device> sparse_result(const algorithm_site &site, index_t n) {
  if constexpr (Device)
    return device_array<U, 1>(std::array<index_t, 1>{n}, site.call->stream, site.name, 0);
  else
    return ndarray<U, 1>(ndarray<U, 1>::uninitialized, {n}, site.name, 0);
}

template <class U> device_array<U, 1> device_copy_of(const device_call &c, const device_array<U, 1> &a) {
  device_array<U, 1> r(a.shape(), c.stream);
  copy_on_device(c, r.data(), a.data(), a.size());
  return r;
}

/// A CSR matrix's arrays where a call runs (copies on a device for a host matrix), and what
/// keeps those copies alive.
template <class T, class I> struct csr_operand {
  csr_arrays<blas_value_t<T>, I> a;
  std::vector<std::shared_ptr<void>> keep;
};

template <class T, class I, bool D>
csr_operand<T, I> csr_on(const algorithm_site &site, std::string_view name, int argument,
                         const sparse::basic_csr_matrix<T, I, D> &m) {
  const input_elements<I> o = input_on<I>(site, name, argument, m.row_offsets());
  const input_elements<I> c = input_on<I>(site, name, argument, m.column_indices());
  const input_elements<T> v = input_on<T>(site, name, argument, m.values());
  csr_operand<T, I> r;
  r.a = {o.data, c.data, reinterpret_cast<const blas_value_t<T> *>(v.data), m.rows(), m.cols()};
  r.keep = {o.keep, c.keep, v.keep};
  return r;
}

/// The threads a device gives each row of an spmv: about as many as the row has entries.
inline unsigned spmv_lanes(index_t rows, index_t nnz) {
  const index_t mean = rows > 0 ? nnz / rows : 0;
  unsigned lanes = 1;
  while (lanes < warpsize && lanes * 2 <= mean) lanes *= 2;
  return lanes;
}

/// How many rows one host task takes: about 2^15 entries' worth.
inline index_t rows_per_task(index_t rows, index_t nnz) {
  return std::max<index_t>(1, (index_t{1} << 15) * rows / std::max<index_t>(nnz, 1));
}

/// COO entries sorted stably by row, and the row offsets of that order: the CSR of a COO
/// matrix (repeated coordinates are kept, next to each other in their original order).
template <class T, class I, bool D>
sparse::basic_csr_matrix<T, I, D> coo_to_csr(std::string_view name, const algorithm_site &site,
                                             const sparse::basic_coo_matrix<T, I, D> &m, bool canonical = false) {
  using V = blas_value_t<T>;
  const index_t n = m.nnz(), rows = m.rows();
  auto offsets = sparse_result<I, D>(site, rows + 1);
  auto columns = sparse_result<I, D>(site, n);
  auto values = sparse_result<T, D>(site, n);
  if constexpr (D) {
    const device_call &c = *site.call;
    std::vector<std::shared_ptr<void>> keep;
    auto sorted_rows = device_temp<I>(c, n);
    if (n > 0) {
      const segment_layout l{1, n, 1};
      const index_t *order = sort_device<I>(name, c, m.row_indices().data(), l, key_order::ascending, false, true,
                                            sorted_outputs<I>{}, keep);
      launch_over<gather_entries_entry<T, I>>(c, n,
                                              {order, m.row_indices().data(), m.column_indices().data(),
                                               reinterpret_cast<const V *>(m.values().data()), data_of<I>(sorted_rows),
                                               columns.data(), reinterpret_cast<V *>(values.data()), n});
    }
    launch_over<row_offsets_entry<I>>(c, rows + 1, {data_of<I>(sorted_rows), offsets.data(), rows, n});
    keep.push_back(std::move(sorted_rows));
    keep_until_done(c, std::move(keep));
  } else {
    // A counting sort: stable, one pass to count and one to place.
    std::vector<index_t> next(static_cast<std::size_t>(rows) + 1, 0);
    const I *ri = m.row_indices().data();
    for (index_t k = 0; k < n; ++k) ++next[static_cast<std::size_t>(ri[k]) + 1];
    for (index_t r = 0; r < rows; ++r) next[static_cast<std::size_t>(r) + 1] += next[static_cast<std::size_t>(r)];
    for (index_t r = 0; r <= rows; ++r) offsets(r) = static_cast<I>(next[static_cast<std::size_t>(r)]);
    for (index_t k = 0; k < n; ++k) {
      const index_t at = next[static_cast<std::size_t>(ri[k])]++;
      columns(at) = m.column_indices()(k);
      values(at) = m.values()(k);
    }
  }
  return {sparse_trusted, rows, m.cols(), std::move(offsets), std::move(columns), std::move(values), canonical};
}

/// The row index of every entry of a CSR matrix: its COO form.
template <class T, class I, bool D>
sparse::basic_coo_matrix<T, I, D> csr_to_coo(const algorithm_site &site, const sparse::basic_csr_matrix<T, I, D> &m) {
  const index_t n = m.nnz(), rows = m.rows();
  auto row_indices = sparse_result<I, D>(site, n);
  if constexpr (D) {
    const device_call &c = *site.call;
    launch_over<expand_rows_entry<I>>(c, rows, {m.row_offsets().data(), row_indices.data(), rows});
    return {sparse_trusted,
            rows,
            m.cols(),
            std::move(row_indices),
            device_copy_of(c, m.column_indices()),
            device_copy_of(c, m.values())};
  } else {
    maybe_parallel(site.parallel(), rows, rows_per_task(rows, n), [&](index_t b, index_t e) {
      for (index_t r = b; r < e; ++r)
        for (index_t k = m.row_offsets()(r); k < m.row_offsets()(r + 1); ++k) row_indices(k) = static_cast<I>(r);
    });
    return {sparse_trusted, rows, m.cols(), std::move(row_indices), m.column_indices(), m.values()};
  }
}

/// A copy of a matrix, where it is.
template <class M> M sparse_copy(const algorithm_site &site, const M &m) {
  if constexpr (!M::on_device) {
    return m;
  } else {
    const device_call &c = *site.call;
    const auto &first = [&]() -> const auto & {
      if constexpr (is_csr<M>)
        return m.row_offsets();
      else
        return m.row_indices();
    }();
    bool canonical = false;
    if constexpr (is_csr<M>) canonical = m.has_canonical_format();
    return M(sparse_trusted, m.rows(), m.cols(), device_copy_of(c, first), device_copy_of(c, m.column_indices()),
             device_copy_of(c, m.values()), canonical);
  }
}

/// C = alpha A B + beta E through cuSPARSE on a CUDA device, where it can: A has the
/// canonical format, E is absent or C itself, and the layouts suit it (sparse_api.h).
/// Returns whether it queued the product; nothing is queued otherwise.
template <class T, class I, bool D>
bool sparse_product_on_cuda(std::string_view name, const algorithm_site &site,
                            const sparse::basic_csr_matrix<T, I, D> &m, const csr_operand<T, I> &a,
                            const linalg_matrix<const T> &b, const linalg_matrix<const T> *e, const linalg_matrix<T> &c,
                            T alpha, T beta, bool vector) {
  // alpha 0 takes nothing of A B (NaNs there included) on every target: the kernel of this
  // library says so itself, where cuSPARSE's documentation does not promise it.
  if (device_is_simulator(*site.call->device) || !m.has_canonical_format() || alpha == T(0)) return false;
  if (e && (e->data != c.data || e->strides.row != c.strides.row || (!vector && e->strides.col != c.strides.col)))
    return false;
  sparse_product_problem p;
  p.a = {blas_type_of<T>(), sizeof(I) == 8, m.rows(), m.cols(), m.nnz(), a.a.offsets, a.a.columns, a.a.values};
  p.b = b.for_blas();
  p.c = c.for_blas();
  p.vector = vector;
  p.alpha = blas_pair(alpha);
  p.beta = blas_pair(e ? beta : T(0));
  if (!cusparse_takes(p)) return false;
  // With beta 0 cuSPARSE does not promise to leave C unread: it must not meet a NaN there.
  auto zero_c = [&] {
    launch_over<zero_fill_entry<T>>(*site.call, c.rows * c.cols,
                                    {reinterpret_cast<blas_value_t<T> *>(c.data), c.strides, c.rows, c.cols});
  };
  using zero_fill = decltype(zero_c);
  const std::string n(name);
  return sparse_product_cuda(
      n.c_str(), p, *site.call->device, *site.call->stream,
      [](void *context) { (*static_cast<zero_fill *>(context))(); }, &zero_c);
}

/// Calls `f` with `m` as a CSR matrix: `m` itself, or its conversion for a COO matrix (made
/// where `m` is, as every conversion).
template <class M, class F> decltype(auto) with_csr(std::string_view name, const placement &p, const M &m, F &&f) {
  if constexpr (is_coo<M>)
    return f(coo_to_csr(name, matrix_site(name, p, m), m));
  else
    return f(m);
}

} // namespace kernel::detail

namespace kernel::sparse {

namespace detail_sparse {

using kernel::detail::linalg_array_t;
using kernel::detail::linalg_unscaled;
using kernel::detail::rank_or;

// Neither cuSPARSE's non-transposed products nor the loops here read an operand conjugated, so
// conjugated() of complex operands is refused rather than ignored (of real ones it changes
// nothing and is taken).
// Each check says whether its operand fits, with an error where it does not: calls guard the
// rest of their body with them (`if constexpr`), so that a wrong operand is its error alone.
template <class X> constexpr bool require_matrix_operand() {
  constexpr bool sparse = kernel::detail::is_sparse<linalg_array_t<X>>;
  static_assert(sparse,
                "this argument is a sparse matrix (csr_matrix, coo_matrix or their device forms), or scaled() one");
  if constexpr (!sparse) {
    return false;
  } else {
    constexpr bool plain = !kernel::detail::conjugated_of<typename linalg_array_t<X>::value_type, X>;
    static_assert(plain, "sparse products do not take conjugated() complex operands: conjugate the values first (a "
                         "ufunc of std::conj, on the matrix's values() or the dense array)");
    return plain;
  }
}

/// A sparse matrix as it is (the conversions take no scaled() one).
template <class M> constexpr bool require_matrix() {
  static_assert(kernel::detail::is_sparse<M>,
                "this argument is a sparse matrix (csr_matrix, coo_matrix or their device forms)");
  return kernel::detail::is_sparse<M>;
}

/// A dense operand of matrix M's products; one that is absent fits.
template <class M, class X> constexpr bool require_dense_operand() {
  if constexpr (kernel::detail::absent_operand<X>) {
    return true;
  } else if constexpr (!kernel::detail::require_blas_operand<X>()) {
    return false;
  } else {
    constexpr bool same = std::is_same_v<kernel::detail::element_of<linalg_array_t<X>>, typename M::value_type>;
    static_assert(same, "the dense operands have the matrix's value type (convert one first)");
    constexpr bool plain = !kernel::detail::conjugated_of<typename M::value_type, X>;
    static_assert(plain, "sparse products do not take conjugated() complex operands: conjugate the values first (a "
                         "ufunc of std::conj, on the matrix's values() or the dense array)");
    return same && plain;
  }
}

/// Whether the operands of a sparse product fit: matrix XA, dense XX, and the output and the
/// added operand where given (void and std::nullptr_t where not), of `Rank` (1 for spmv, 2
/// for spmm); an error for each way they do not.
template <std::size_t Rank, class XA, class XX, class Out, class Added> constexpr bool require_product_operands() {
  if constexpr (!require_matrix_operand<XA>()) {
    return false;
  } else {
    using M = linalg_array_t<XA>;
    if constexpr (!(require_dense_operand<M, XX>() & require_dense_operand<M, Out>() &
                    require_dense_operand<M, Added>())) {
      return false;
    } else {
      constexpr bool ranks = rank_or<XX>(Rank) == Rank && rank_or<Out>(Rank) == Rank;
      if constexpr (Rank == 1)
        static_assert(ranks, "spmv takes vectors (rank 1); spmm takes matrices");
      else
        static_assert(ranks, "spmm takes matrices (rank 2); spmv takes vectors");
      constexpr bool added = rank_or<Added>(Rank) == Rank;
      if constexpr (Rank == 1)
        static_assert(added, "z is a vector");
      else
        static_assert(added, "E is a matrix");
      return ranks && added;
    }
  }
}

/// A dense result written once per element and over none of the inputs (nor the matrix's
/// values), on every target alike.
template <class M, class X, class C>
void require_result_apart(std::string_view name, const M &m, const X &x, const C &out, int out_argument) {
  kernel::detail::require_distinct_elements(name, out_argument, out);
  kernel::detail::require_apart(name, out_argument, out, 1, m.values());
  kernel::detail::require_apart(name, out_argument, out, 2, x);
}

} // namespace detail_sparse

/// y = A x, or y = A x + z (z may be y); A may be scaled(), as may x and z
/// (kernel::linalg::scaled). The returning form makes y (a device array for a device matrix
/// or device x).
class spmv_fn : public detail::product_of_expressions<spmv_fn, false> {
public:
  using detail::product_of_expressions<spmv_fn, false>::operator();
  constexpr spmv_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "spmv"; }

  template <class XA, class XX, class Y> void operator()(const XA &a, const XX &x, Y &&y) const {
    detail::require_lasting_output<Y>(name(), 3, this->placed_on());
    run(a, x, static_cast<const std::nullptr_t *>(nullptr), y, 3);
  }
  template <class XA, class XX, class Z, class Y> void operator()(const XA &a, const XX &x, const Z &z, Y &&y) const {
    detail::require_lasting_output<Y>(name(), 4, this->placed_on());
    run(a, x, &z, y, 4);
  }
  template <class XA, class XX> auto operator()(const XA &a, const XX &x) const {
    if constexpr (detail_sparse::require_product_operands<1, XA, XX, void, std::nullptr_t>())
      return product(a, x);
    else
      return detail::failed_call_result{};
  }

private:
  template <class XA, class XX> auto product(const XA &a, const XX &x) const {
    using M = detail_sparse::linalg_array_t<XA>;
    using X = detail_sparse::linalg_array_t<XX>;
    const M &m = detail_sparse::linalg_unscaled<XA>::array(a);
    const detail::algorithm_site site =
        detail::matrix_site(name(), this->placed_on(), m, detail_sparse::linalg_unscaled<XX>::array(x));
    auto result = detail::make_result < typename M::value_type, 1,
         M::on_device || detail::is_device_arg < X >> (site, std::array<index_t, 1>{m.rows()});
    run(a, x, static_cast<const std::nullptr_t *>(nullptr), result, 0);
    return result;
  }

  template <class XA, class XX, class Z, class Y>
  auto run(const XA &xa, const XX &xx, const Z *xz, Y &y, int y_argument) const {
    if constexpr (detail_sparse::require_product_operands<1, XA, XX, std::remove_cvref_t<Y>, Z>())
      run_fitting(xa, xx, xz, y, y_argument);
  }
  template <class XA, class XX, class Z, class Y>
  auto run_fitting(const XA &xa, const XX &xx, const Z *xz, Y &y, int y_argument) const {
    using M = detail_sparse::linalg_array_t<XA>;
    using T = typename M::value_type;
    using I = typename M::index_type;
    using V = detail::blas_value_t<T>;
    using X = detail_sparse::linalg_array_t<XX>;
    const M &mat = detail_sparse::linalg_unscaled<XA>::array(xa);
    const X &x = detail_sparse::linalg_unscaled<XX>::array(xx);
    detail_sparse::require_result_apart(name(), mat, x, y, y_argument);
    T beta(0);
    if constexpr (!std::is_same_v<Z, std::nullptr_t>) {
      detail::require_apart(name(), y_argument, y, 3, detail_sparse::linalg_unscaled<Z>::array(*xz), true);
      beta = detail::factor_of<T>(*xz);
    }
    const T alpha = detail::factor_of<T>(xa) * detail::factor_of<T>(xx);
    detail::with_csr(name(), this->placed_on(), mat, [&](const auto &m) {
      const detail::algorithm_site site = detail::matrix_site(name(), this->placed_on(), m, x, y);
      detail::csr_operand<T, I> ma = detail::csr_on(site, name(), 1, m);
      const detail::linalg_matrix<const T> mx = detail::linalg_input<T>(site, name(), 2, x, true);
      detail::linalg_output<T> out = detail::linalg_result<T>(site, name(), y_argument, y, true);
      if (mx.rows != m.cols())
        throw argument_error(std::string(name()), 2,
                             "has " + std::to_string(mx.rows) + " elements but A is " +
                                 detail::dims(m.rows(), m.cols()) + ": x needs one per column of A");
      if (out.matrix.rows != m.rows())
        throw argument_error(std::string(name()), y_argument,
                             "has " + std::to_string(out.matrix.rows) + " elements but A is " +
                                 detail::dims(m.rows(), m.cols()) + ": y needs one per row of A");
      detail::linalg_matrix<const T> mz;
      if constexpr (!std::is_same_v<Z, std::nullptr_t>) {
        mz = detail::linalg_input<T>(site, name(), 3, detail_sparse::linalg_unscaled<Z>::array(*xz), true);
        if (mz.rows != out.matrix.rows)
          throw argument_error(std::string(name()), 3,
                               "has " + std::to_string(mz.rows) + " elements but y has " +
                                   std::to_string(out.matrix.rows));
      }
      // As BLAS, a z scaled by 0 is not read: a NaN or infinity in it does not reach y.
      const bool reads_z = !std::is_same_v<Z, std::nullptr_t> && beta != T(0);
      detail::spmv_params<V, I> p{ma.a,
                                  reinterpret_cast<const V *>(mx.data),
                                  reads_z ? reinterpret_cast<const V *>(mz.data) : nullptr,
                                  reinterpret_cast<V *>(out.matrix.data),
                                  mx.strides.row,
                                  mz.strides.row,
                                  out.matrix.strides.row,
                                  detail::blas_value_of(alpha),
                                  detail::blas_value_of(beta),
                                  1};
      if (site.on_device() && detail::sparse_product_on_cuda<T>(name(), site, m, ma, mx, reads_z ? &mz : nullptr,
                                                                out.matrix, alpha, beta, /*vector=*/true)) {
        ma.keep.insert(ma.keep.end(), {mx.keep, mz.keep});
        detail::keep_until_done(*site.call, std::move(ma.keep));
      } else if (site.on_device()) {
        p.lanes = detail::spmv_lanes(m.rows(), m.nnz());
        const index_t threads = m.rows() * p.lanes;
        detail::launch_tiles<detail::spmv_entry<T, I>>(
            *site.call, std::min<index_t>((threads + detail::algorithm_block - 1) / detail::algorithm_block, 1 << 16),
            p);
        ma.keep.insert(ma.keep.end(), {mx.keep, mz.keep});
        detail::keep_until_done(*site.call, std::move(ma.keep));
      } else {
        detail::maybe_parallel(site.parallel(), m.rows(), detail::rows_per_task(m.rows(), m.nnz()),
                               [&](index_t b, index_t e) {
                                 for (index_t r = b; r < e; ++r)
                                   detail::spmv_store(p, r, detail::spmv_partial(p, r, 0, 1));
                               });
      }
      out.deliver();
    });
  }
};
inline constexpr spmv_fn spmv{};

/// C = A B, or C = A B + E (E may be C), for a sparse A and dense matrices B, C and E of any
/// layout; A, B and E may be scaled(). The returning form makes C.
class spmm_fn : public detail::product_of_expressions<spmm_fn, false> {
public:
  using detail::product_of_expressions<spmm_fn, false>::operator();
  constexpr spmm_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "spmm"; }

  template <class XA, class XB, class C> void operator()(const XA &a, const XB &b, C &&c) const {
    detail::require_lasting_output<C>(name(), 3, this->placed_on());
    run(a, b, static_cast<const std::nullptr_t *>(nullptr), c, 3);
  }
  template <class XA, class XB, class E, class C> void operator()(const XA &a, const XB &b, const E &e, C &&c) const {
    detail::require_lasting_output<C>(name(), 4, this->placed_on());
    run(a, b, &e, c, 4);
  }
  template <class XA, class XB> auto operator()(const XA &a, const XB &b) const {
    if constexpr (detail_sparse::require_product_operands<2, XA, XB, void, std::nullptr_t>())
      return product(a, b);
    else
      return detail::failed_call_result{};
  }

private:
  template <class XA, class XB> auto product(const XA &a, const XB &b) const {
    using M = detail_sparse::linalg_array_t<XA>;
    using B = detail_sparse::linalg_array_t<XB>;
    const M &m = detail_sparse::linalg_unscaled<XA>::array(a);
    const B &ub = detail_sparse::linalg_unscaled<XB>::array(b);
    const detail::algorithm_site site = detail::matrix_site(name(), this->placed_on(), m, ub);
    auto result = detail::make_result < typename M::value_type, 2,
         M::on_device || detail::is_device_arg < B >> (site, std::array<index_t, 2>{m.rows(), detail::shape_of(ub)[1]});
    run(a, b, static_cast<const std::nullptr_t *>(nullptr), result, 0);
    return result;
  }

  template <class XA, class XB, class E, class C>
  auto run(const XA &xa, const XB &xb, const E *xe, C &c, int c_argument) const {
    if constexpr (detail_sparse::require_product_operands<2, XA, XB, std::remove_cvref_t<C>, E>())
      run_fitting(xa, xb, xe, c, c_argument);
  }
  template <class XA, class XB, class E, class C>
  auto run_fitting(const XA &xa, const XB &xb, const E *xe, C &c, int c_argument) const {
    using M = detail_sparse::linalg_array_t<XA>;
    using T = typename M::value_type;
    using I = typename M::index_type;
    using V = detail::blas_value_t<T>;
    using B = detail_sparse::linalg_array_t<XB>;
    const M &mat = detail_sparse::linalg_unscaled<XA>::array(xa);
    const B &b = detail_sparse::linalg_unscaled<XB>::array(xb);
    detail_sparse::require_result_apart(name(), mat, b, c, c_argument);
    T beta(0);
    if constexpr (!std::is_same_v<E, std::nullptr_t>) {
      detail::require_apart(name(), c_argument, c, 3, detail_sparse::linalg_unscaled<E>::array(*xe), true);
      beta = detail::factor_of<T>(*xe);
    }
    const T alpha = detail::factor_of<T>(xa) * detail::factor_of<T>(xb);
    detail::with_csr(name(), this->placed_on(), mat, [&](const auto &m) {
      const detail::algorithm_site site = detail::matrix_site(name(), this->placed_on(), m, b, c);
      detail::csr_operand<T, I> ma = detail::csr_on(site, name(), 1, m);
      const detail::linalg_matrix<const T> mb = detail::linalg_input<T>(site, name(), 2, b);
      detail::linalg_output<T> out = detail::linalg_result<T>(site, name(), c_argument, c);
      if (mb.rows != m.cols())
        throw argument_error(std::string(name()), 2,
                             "is " + detail::dims(mb.rows, mb.cols) + " but A is " + detail::dims(m.rows(), m.cols()) +
                                 ": B needs as many rows as A has columns");
      if (out.matrix.rows != m.rows() || out.matrix.cols != mb.cols)
        throw argument_error(std::string(name()), c_argument,
                             "is " + detail::dims(out.matrix.rows, out.matrix.cols) + " but the product of " +
                                 detail::dims(m.rows(), m.cols()) + " and " + detail::dims(mb.rows, mb.cols) + " is " +
                                 detail::dims(m.rows(), mb.cols));
      detail::linalg_matrix<const T> me;
      if constexpr (!std::is_same_v<E, std::nullptr_t>) {
        me = detail::linalg_input<T>(site, name(), 3, detail_sparse::linalg_unscaled<E>::array(*xe));
        if (me.rows != out.matrix.rows || me.cols != out.matrix.cols)
          throw argument_error(std::string(name()), 3,
                               "is " + detail::dims(me.rows, me.cols) + " but C is " +
                                   detail::dims(out.matrix.rows, out.matrix.cols) +
                                   ": E is added to the product and has its shape");
      }
      // As BLAS, an E scaled by 0 is not read: a NaN or infinity in it does not reach C.
      const bool reads_e = !std::is_same_v<E, std::nullptr_t> && beta != T(0);
      const detail::spmm_params<V, I> p{ma.a,
                                        reinterpret_cast<const V *>(mb.data),
                                        reads_e ? reinterpret_cast<const V *>(me.data) : nullptr,
                                        reinterpret_cast<V *>(out.matrix.data),
                                        mb.strides,
                                        me.strides,
                                        out.matrix.strides,
                                        mb.cols,
                                        detail::blas_value_of(alpha),
                                        detail::blas_value_of(beta)};
      if (site.on_device() && detail::sparse_product_on_cuda<T>(name(), site, m, ma, mb, reads_e ? &me : nullptr,
                                                                out.matrix, alpha, beta, /*vector=*/false)) {
        ma.keep.insert(ma.keep.end(), {mb.keep, me.keep});
        detail::keep_until_done(*site.call, std::move(ma.keep));
      } else if (site.on_device()) {
        detail::launch_over<detail::spmm_entry<T, I>>(*site.call, m.rows() * mb.cols, p);
        ma.keep.insert(ma.keep.end(), {mb.keep, me.keep});
        detail::keep_until_done(*site.call, std::move(ma.keep));
      } else {
        const index_t grain = detail::rows_per_task(m.rows(), m.nnz() * std::max<index_t>(mb.cols, 1));
        detail::maybe_parallel(site.parallel(), m.rows(), grain, [&](index_t lo, index_t hi) {
          // Each element's sum in a register (a row of A is read once per column of C, from
          // cache): faster here than accumulating whole rows of C through memory.
          for (index_t i = lo; i < hi; ++i)
            for (index_t j = 0; j < p.n; ++j) detail::spmm_at(p, i, j);
        });
      }
      out.deliver();
    });
  }
};
inline constexpr spmm_fn spmm{};

/// The dense form of a sparse matrix (repeated coordinates added up): into `out` (a 2-D
/// array of the matrix's shape and value type, any layout), or as a new array (a device
/// array for a device matrix).
class to_dense_fn : public detail::placed<to_dense_fn> {
public:
  constexpr to_dense_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "to_dense"; }

  template <class M> auto operator()(const M &mat) const {
    if constexpr (detail_sparse::require_matrix<M>()) {
      const detail::algorithm_site site = detail::matrix_site(name(), this->placed_on(), mat);
      auto result = detail::make_result<typename M::value_type, 2, M::on_device>(site, mat.shape());
      (*this)(mat, result);
      return result;
    } else {
      return detail::failed_call_result{};
    }
  }

  template <class M, class Out> void operator()(const M &mat, Out &&out) const {
    if constexpr (operands_fit<M, std::remove_cvref_t<Out>>()) write<Out>(mat, out);
  }

private:
  /// Whether the matrix and the output fit, with an error for each way they do not.
  template <class M, class O> static constexpr bool operands_fit() {
    if constexpr (!detail_sparse::require_matrix<M>()) {
      return false;
    } else if constexpr (!detail_sparse::require_dense_operand<M, O>()) {
      return false;
    } else {
      constexpr bool matrix = detail::arg_of<O>::rank == 2;
      static_assert(matrix, "to_dense writes a matrix (rank 2)");
      return matrix;
    }
  }

  // Out as the caller gave it: a temporary on a stream is refused.
  template <class Out, class M> auto write(const M &mat, Out &out) const {
    using T = typename M::value_type;
    using I = typename M::index_type;
    using V = detail::blas_value_t<T>;
    detail::require_distinct_elements(name(), 2, out);
    detail::require_apart(name(), 2, out, 1, mat.values());
    detail::require_lasting_output<Out>(name(), 2, this->placed_on());
    detail::with_csr(name(), this->placed_on(), mat, [&](const auto &m) {
      const detail::algorithm_site site = detail::matrix_site(name(), this->placed_on(), m, out);
      detail::csr_operand<T, I> ma = detail::csr_on(site, name(), 1, m);
      detail::linalg_output<T> o = detail::linalg_result<T>(site, name(), 2, out);
      if (o.matrix.rows != m.rows() || o.matrix.cols != m.cols())
        throw argument_error(std::string(name()), 2,
                             "is " + detail::dims(o.matrix.rows, o.matrix.cols) + " but the matrix is " +
                                 detail::dims(m.rows(), m.cols()));
      const detail::dense_params<V, I> p{ma.a, reinterpret_cast<V *>(o.matrix.data), o.matrix.strides};
      if (site.on_device()) {
        detail::launch_over<detail::zero_fill_entry<T>>(*site.call, m.rows() * m.cols(),
                                                        {p.out, p.os, m.rows(), m.cols()});
        detail::launch_over<detail::to_dense_entry<T, I>>(*site.call, m.rows(), p);
        detail::keep_until_done(*site.call, std::move(ma.keep));
      } else {
        detail::maybe_parallel(site.parallel(), m.rows(),
                               detail::rows_per_task(m.rows(), m.nnz() + m.rows() * m.cols()),
                               [&](index_t b, index_t e) {
                                 for (index_t r = b; r < e; ++r) {
                                   for (index_t j = 0; j < m.cols(); ++j) p.out[p.os.at(0, r, j)] = V{};
                                   detail::scatter_row(p, r);
                                 }
                               });
      }
      o.deliver();
    });
  }
};
inline constexpr to_dense_fn to_dense{};

/// The nonzero elements of a dense matrix (NaNs count as nonzero, -0.0 does not), row by
/// row and in column order within a row, as a CSR (`Csr`) or COO matrix: a host matrix for a
/// host array, a device matrix for a device array.
template <bool Csr> class from_dense_fn : public detail::placed<from_dense_fn<Csr>> {
public:
  constexpr from_dense_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return Csr ? "csr_from_dense" : "coo_from_dense"; }

  template <class A, class I = std::int32_t> auto operator()(const A &dense, index_type_t<I> = {}) const {
    if constexpr (operand_fits<A>())
      return convert<A, I>(dense);
    else
      return detail::failed_call_result{};
  }

private:
  /// Whether `A` is a matrix of the values sparse matrices hold, with an error where not.
  template <class A> static constexpr bool operand_fits() {
    // An array itself: require_array refuses scaled() and conjugated() operands.
    if constexpr (!detail::require_array<A>()) {
      return false;
    } else if constexpr (!detail::require_blas_operand<A>()) {
      return false;
    } else {
      constexpr bool matrix = detail::arg_of<A>::rank == 2;
      static_assert(matrix, "a sparse matrix is made from a matrix (rank 2)");
      return matrix;
    }
  }

  template <class A, class I> auto convert(const A &dense) const {
    using T = detail::element_of<A>;
    using V = detail::blas_value_t<T>;
    constexpr bool D = detail::is_device_arg<A>;
    detail::require_sparse_types<T, I>();
    using Result = std::conditional_t<Csr, basic_csr_matrix<T, I, D>, basic_coo_matrix<T, I, D>>;
    // The matrix is made where the dense array is, as every conversion: a host array's on the
    // host (all its cores where the call is placed on a device), whose loops read it there.
    const detail::placement where =
        D || this->placed_on().runs_on_host() ? this->placed_on() : detail::placement{target::parallel};
    const detail::algorithm_site site = detail::site_of(name(), where, dense);
    const detail::linalg_matrix<const T> in = detail::linalg_input<T>(site, name(), 1, dense);
    const index_t rows = in.rows, cols = in.cols;
    detail::require_fits<I>(name(), 1, rows, "rows");
    detail::require_fits<I>(name(), 1, cols, "columns");
    // The counts are summed in I: a matrix with more elements than I can count needs int64.
    detail::require_fits<I>(name(), 1, rows * cols, "elements");
    auto offsets = detail::sparse_result<I, D>(site, rows + 1);
    detail::from_dense_params<V, I> p{reinterpret_cast<const V *>(in.data),
                                      in.strides,
                                      rows,
                                      cols,
                                      offsets.data(),
                                      offsets.data(),
                                      nullptr,
                                      nullptr,
                                      nullptr};
    index_t n = 0;
    const index_t grain = detail::rows_per_task(rows, rows * cols); // rows of about 2^15 elements
    if constexpr (D) {
      const detail::device_call &c = *site.call;
      detail::launch_over<detail::from_dense_entry<T, I, false>>(c, std::max<index_t>(rows, 1), p);
      if (rows == 0) detail::copy_to_device(c, offsets.data(), std::array<I, 1>{0}.data(), 1);
      const detail::segment_layout l{1, rows + 1, 1};
      detail::scan_device<detail::plus_op, I, I>(c, offsets.data(), offsets.data(), l, l, I{0}, true);
      n = detail::read_back<I>(c, offsets.data() + rows, 1)[0];
    } else {
      detail::maybe_parallel(site.parallel(), rows, grain, [&](index_t b, index_t e) {
        for (index_t r = b; r < e; ++r) detail::count_row(p, r);
      });
      I sum = 0;
      for (index_t r = 0; r < rows; ++r) {
        const I count = offsets(r);
        offsets(r) = sum;
        sum += count;
      }
      offsets(rows) = sum;
      n = sum;
    }
    auto row_indices = detail::sparse_result<I, D>(site, Csr ? 0 : n);
    auto columns = detail::sparse_result<I, D>(site, n);
    auto values = detail::sparse_result<T, D>(site, n);
    p.rows_out = Csr ? nullptr : row_indices.data();
    p.columns_out = columns.data();
    p.values_out = reinterpret_cast<V *>(values.data());
    if constexpr (D) {
      detail::launch_over<detail::from_dense_entry<T, I, true>>(*site.call, rows, p);
      detail::keep_until_done(*site.call, {in.keep});
    } else {
      detail::maybe_parallel(site.parallel(), rows, grain, [&](index_t b, index_t e) {
        for (index_t r = b; r < e; ++r) detail::fill_row(p, r);
      });
    }
    if constexpr (Csr)
      return Result(detail::sparse_trusted, rows, cols, std::move(offsets), std::move(columns), std::move(values),
                    /*canonical=*/true);
    else
      return Result(detail::sparse_trusted, rows, cols, std::move(row_indices), std::move(columns), std::move(values));
  }
};
inline constexpr from_dense_fn<true> csr_from_dense{};
inline constexpr from_dense_fn<false> coo_from_dense{};

/// A COO matrix's CSR form, made where the matrix is: entries sorted by row, stably (repeated
/// coordinates stay, in their order). A CSR matrix is returned as a copy.
class to_csr_fn : public detail::placed<to_csr_fn> {
public:
  constexpr to_csr_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "to_csr"; }
  template <class M> auto operator()(const M &m) const {
    if constexpr (!detail_sparse::require_matrix<M>()) {
      return detail::failed_call_result{};
    } else {
      const detail::algorithm_site site = detail::matrix_site(name(), this->placed_on(), m);
      if constexpr (detail::is_coo<M>)
        return detail::coo_to_csr(name(), site, m);
      else
        return detail::sparse_copy(site, m);
    }
  }
};
inline constexpr to_csr_fn to_csr{};

/// A CSR matrix's COO form (its entries in row order), made where the matrix is; a COO
/// matrix is returned as a copy.
class to_coo_fn : public detail::placed<to_coo_fn> {
public:
  constexpr to_coo_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "to_coo"; }
  template <class M> auto operator()(const M &m) const {
    if constexpr (!detail_sparse::require_matrix<M>()) {
      return detail::failed_call_result{};
    } else {
      const detail::algorithm_site site = detail::matrix_site(name(), this->placed_on(), m);
      if constexpr (detail::is_csr<M>)
        return detail::csr_to_coo(site, m);
      else
        return detail::sparse_copy(site, m);
    }
  }
};
inline constexpr to_coo_fn to_coo{};

/// The transpose of a matrix, as a new matrix of the same format made where the matrix is
/// (a CSR transpose's rows come out in column order, so each has sorted column indices).
class transpose_fn : public detail::placed<transpose_fn> {
public:
  constexpr transpose_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "transpose"; }
  template <class M> auto operator()(const M &m) const {
    if constexpr (detail_sparse::require_matrix<M>()) {
      const detail::algorithm_site site = detail::matrix_site(name(), this->placed_on(), m);
      auto coo = [&] {
        if constexpr (detail::is_csr<M>)
          return detail::csr_to_coo(site, m);
        else
          return detail::sparse_copy(site, m);
      }();
      auto [rows, columns, values] = std::move(coo).into_arrays();
      using C = basic_coo_matrix<typename M::value_type, typename M::index_type, M::on_device>;
      C swapped(detail::sparse_trusted, m.cols(), m.rows(), std::move(columns), std::move(rows), std::move(values));
      // A canonical matrix's transpose is canonical: each of its rows comes out in row order.
      if constexpr (detail::is_csr<M>)
        return detail::coo_to_csr(name(), site, swapped, m.has_canonical_format());
      else
        return swapped;
    } else {
      return detail::failed_call_result{};
    }
  }
};
inline constexpr transpose_fn transpose{};

} // namespace kernel::sparse
