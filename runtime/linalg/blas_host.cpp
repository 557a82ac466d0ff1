// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host BLAS of kernel/linalg.h: OpenBLAS (BSD-3), loaded on first use so that programs
// that never multiply a matrix never load it, and so that a machine without it still runs
// everything else. OpenBLAS is never unloaded: its thread pool does not survive dlclose.
//
// OpenBLAS keeps one process-wide thread count, while a call on target cpu must use one core
// and a call on target parallel all of them. Calls therefore pass a gate that lets calls
// wanting the same count run together and makes a call wanting another count wait until the
// running ones are done.
#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kernel/detail/linalg_api.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/errors.h"

namespace kernel::detail {
namespace {

using blas_int = int; // the LP64 interface of Debian's libopenblas0

enum : int { row_major = 101 };
enum : int { no_trans = 111, trans = 112, conj_trans = 113 };

/// Lets calls that want the same OpenBLAS thread count run together.
class thread_gate {
public:
  /// Held for the length of one call.
  class pass {
  public:
    pass(thread_gate &g, void (*set_threads)(int), int threads) : gate_(g) { gate_.enter(set_threads, threads); }
    pass(const pass &) = delete;
    pass &operator=(const pass &) = delete;
    ~pass() { gate_.leave(); }

  private:
    thread_gate &gate_;
  };

private:
  void enter(void (*set_threads)(int), int threads) {
    std::unique_lock guard(lock_);
    changed_.wait(guard, [&] { return active_ == 0 || threads_ == threads; });
    if (threads_ != threads) {
      set_threads(threads);
      threads_ = threads;
    }
    ++active_;
  }
  void leave() {
    std::lock_guard guard(lock_);
    if (--active_ == 0) changed_.notify_all();
  }

  std::mutex lock_;
  std::condition_variable changed_;
  int threads_ = -1, active_ = 0;
};

struct openblas {
  template <class T>
  using gemm_fn = void(int, int, int, blas_int, blas_int, blas_int, T, const T *, blas_int, const T *, blas_int, T, T *,
                       blas_int);
  using cgemm_fn = void(int, int, int, blas_int, blas_int, blas_int, const void *, const void *, blas_int, const void *,
                        blas_int, const void *, void *, blas_int);
  template <class T>
  using gemv_fn = void(int, int, blas_int, blas_int, T, const T *, blas_int, const T *, blas_int, T, T *, blas_int);
  using cgemv_fn = void(int, int, blas_int, blas_int, const void *, const void *, blas_int, const void *, blas_int,
                        const void *, void *, blas_int);
  template <class T> using dot_fn = T(blas_int, const T *, blas_int, const T *, blas_int);
  using cdot_fn = void(blas_int, const void *, blas_int, const void *, blas_int, void *);
  template <class R> using nrm2_fn = R(blas_int, const void *, blas_int);

  gemm_fn<float> *sgemm = nullptr;
  gemm_fn<double> *dgemm = nullptr;
  cgemm_fn *cgemm = nullptr, *zgemm = nullptr;
  gemv_fn<float> *sgemv = nullptr;
  gemv_fn<double> *dgemv = nullptr;
  cgemv_fn *cgemv = nullptr, *zgemv = nullptr;
  dot_fn<float> *sdot = nullptr;
  dot_fn<double> *ddot = nullptr;
  cdot_fn *cdotu = nullptr, *cdotc = nullptr, *zdotu = nullptr, *zdotc = nullptr;
  nrm2_fn<float> *snrm2 = nullptr, *scnrm2 = nullptr;
  nrm2_fn<double> *dnrm2 = nullptr, *dznrm2 = nullptr;
  void (*set_num_threads)(int) = nullptr;
  std::string failure; // empty when loaded
  mutable thread_gate gate;
};

template <class Fn> bool bind(void *handle, Fn *&fn, const char *name) {
  fn = reinterpret_cast<Fn *>(::dlsym(handle, name));
  return fn != nullptr;
}

void load_openblas(openblas &lib, const std::string &where) {
  void *handle = ::dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    lib.failure = why ? why : where;
    return;
  }
  const bool ok = bind(handle, lib.sgemm, "cblas_sgemm") && bind(handle, lib.dgemm, "cblas_dgemm") &&
                  bind(handle, lib.cgemm, "cblas_cgemm") && bind(handle, lib.zgemm, "cblas_zgemm") &&
                  bind(handle, lib.sgemv, "cblas_sgemv") && bind(handle, lib.dgemv, "cblas_dgemv") &&
                  bind(handle, lib.cgemv, "cblas_cgemv") && bind(handle, lib.zgemv, "cblas_zgemv") &&
                  bind(handle, lib.sdot, "cblas_sdot") && bind(handle, lib.ddot, "cblas_ddot") &&
                  bind(handle, lib.cdotu, "cblas_cdotu_sub") && bind(handle, lib.cdotc, "cblas_cdotc_sub") &&
                  bind(handle, lib.zdotu, "cblas_zdotu_sub") && bind(handle, lib.zdotc, "cblas_zdotc_sub") &&
                  bind(handle, lib.snrm2, "cblas_snrm2") && bind(handle, lib.dnrm2, "cblas_dnrm2") &&
                  bind(handle, lib.scnrm2, "cblas_scnrm2") && bind(handle, lib.dznrm2, "cblas_dznrm2") &&
                  bind(handle, lib.set_num_threads, "openblas_set_num_threads");
  if (!ok) lib.failure = where + " lacks the CBLAS functions and openblas_set_num_threads this runtime calls";
}

/// OpenBLAS, from $KERNEL_BLAS_LIBRARY when set, else libopenblas.so.0 on the loader's path;
/// each path is tried once per process.
const openblas &blas(const char *name) {
  static std::mutex lock;
  static std::map<std::string, std::unique_ptr<openblas>> loaded;
  const char *chosen = std::getenv("KERNEL_BLAS_LIBRARY");
  const std::string where = chosen && *chosen ? chosen : "libopenblas.so.0";
  std::lock_guard guard(lock);
  auto &lib = loaded[where];
  if (!lib) {
    lib = std::make_unique<openblas>();
    load_openblas(*lib, where);
  }
  if (!lib->failure.empty())
    throw target_unavailable_error(std::string(name) + " on the CPU needs OpenBLAS, which could not be loaded from " +
                                   where + " (" + lib->failure +
                                   "); install libopenblas0 (tools/install-deps does) or set KERNEL_BLAS_LIBRARY to "
                                   "its path");
  return *lib;
}

int all_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

std::size_t element_size(blas_type t) {
  switch (t) {
  case blas_type::float32: return 4;
  case blas_type::float64:
  case blas_type::complex64: return 8;
  case blas_type::complex128: return 16;
  }
  return 0;
}

blas_int checked(const char *name, index_t v, const char *what) {
  if (v > INT_MAX)
    throw argument_error(name, 0,
                         std::string(what) + " " + std::to_string(v) + " exceeds the 32-bit sizes OpenBLAS takes");
  return static_cast<blas_int>(v);
}

/// How OpenBLAS can read a matrix in row-major calls: as it is (no_trans, leading dimension
/// its row stride), as the transpose of a row-major matrix (trans, its column stride), or not
/// at all (0: it is copied), which includes a leading dimension past OpenBLAS's 32 bits.
struct blas_layout {
  int op = 0;
  index_t ld = 0;
};

blas_layout layout_for_blas(const blas_matrix &m) {
  const index_t rows = m.rows, cols = m.cols;
  blas_layout l;
  if ((cols <= 1 || m.col_stride == 1) && (rows <= 1 || m.row_stride >= std::max<index_t>(cols, 1)))
    l = {no_trans, rows <= 1 ? std::max<index_t>(cols, 1) : m.row_stride};
  else if ((rows <= 1 || m.row_stride == 1) && (cols <= 1 || m.col_stride >= std::max<index_t>(rows, 1)))
    l = {trans, cols <= 1 ? std::max<index_t>(rows, 1) : m.col_stride};
  return l.ld <= INT_MAX ? l : blas_layout{};
}

blas_matrix transpose(const blas_matrix &m) {
  blas_matrix t = m;
  std::swap(t.rows, t.cols);
  std::swap(t.row_stride, t.col_stride);
  return t;
}

const char *at(const blas_matrix &m, index_t batch, std::size_t size) {
  return static_cast<const char *>(m.data) + batch * m.batch_stride * static_cast<index_t>(size);
}

/// Copies matrix `from` (item `fb` of its batch) to `to` (item `tb`), element by element.
void copy_matrix(const blas_matrix &from, index_t fb, const blas_matrix &to, index_t tb, std::size_t size) {
  const char *src = at(from, fb, size);
  char *dst = const_cast<char *>(at(to, tb, size));
  const auto s = static_cast<index_t>(size);
  for (index_t i = 0; i < from.rows; ++i)
    for (index_t j = 0; j < from.cols; ++j)
      std::memcpy(dst + (i * to.row_stride + j * to.col_stride) * s,
                  src + (i * from.row_stride + j * from.col_stride) * s, size);
}

/// Conjugates matrix `m` (item `b` of its batch) in place: the imaginary part of each element
/// negated (complex types only).
void conjugate_matrix(const blas_matrix &m, index_t b, blas_type type) {
  const std::size_t size = element_size(type);
  char *base = const_cast<char *>(at(m, b, size));
  const auto s = static_cast<index_t>(size);
  for (index_t i = 0; i < m.rows; ++i)
    for (index_t j = 0; j < m.cols; ++j) {
      char *e = base + (i * m.row_stride + j * m.col_stride) * s;
      if (type == blas_type::complex64)
        reinterpret_cast<float *>(e)[1] = -reinterpret_cast<float *>(e)[1];
      else if (type == blas_type::complex128)
        reinterpret_cast<double *>(e)[1] = -reinterpret_cast<double *>(e)[1];
    }
}

/// A row-major contiguous matrix of m's shape.
blas_matrix packed_like(const blas_matrix &m, void *data) {
  blas_matrix p;
  p.data = data;
  p.rows = m.rows;
  p.cols = m.cols;
  p.row_stride = std::max<index_t>(m.cols, 1);
  p.col_stride = 1;
  return p;
}

bool same_layout(const blas_matrix &x, const blas_matrix &y) {
  return x.data == y.data && x.row_stride == y.row_stride && x.col_stride == y.col_stride &&
         x.batch_stride == y.batch_stride;
}

/// One product C = alpha A B + beta C in row-major terms; every operand readable by OpenBLAS,
/// A and B conjugated where `conj_a`, `conj_b` (then laid out transposed: BLAS's conjugate
/// transpose).
void gemm_one(const char *name, const openblas &lib, blas_type type, const blas_matrix &a, const char *pa,
              const blas_matrix &b, const char *pb, const blas_matrix &c, char *pc, const std::array<double, 2> &alpha,
              const std::array<double, 2> &beta, bool conj_a, bool conj_b) {
  blas_layout la = layout_for_blas(a), lb = layout_for_blas(b);
  const blas_layout lc = layout_for_blas(c);
  if (conj_a) la.op = conj_trans;
  if (conj_b) lb.op = conj_trans;
  const blas_int m = checked(name, c.rows, "a row count of"), n = checked(name, c.cols, "a column count of"),
                 k = checked(name, a.cols, "an inner dimension of");
  const blas_int lda = checked(name, la.ld, "a leading dimension of"),
                 ldb = checked(name, lb.ld, "a leading dimension of"),
                 ldc = checked(name, lc.ld, "a leading dimension of");
  // A matrix-vector product where B and C are columns: gemv, which OpenBLAS does not choose
  // by itself for gemm with one column.
  const bool column =
      n == 1 && b.row_stride > 0 && c.row_stride > 0 && b.row_stride <= INT_MAX && c.row_stride <= INT_MAX;
  const blas_int incb = column ? checked(name, b.row_stride, "a stride of") : 0,
                 incc = column ? checked(name, c.row_stride, "a stride of") : 0;
  const std::complex<float> alpha_c(static_cast<float>(alpha[0]), static_cast<float>(alpha[1])),
      beta_c(static_cast<float>(beta[0]), static_cast<float>(beta[1]));
  const std::complex<double> alpha_z(alpha[0], alpha[1]), beta_z(beta[0], beta[1]);
  switch (type) {
  case blas_type::float32: {
    const auto *A = reinterpret_cast<const float *>(pa), *B = reinterpret_cast<const float *>(pb);
    auto *C = reinterpret_cast<float *>(pc);
    const float al = static_cast<float>(alpha[0]), be = static_cast<float>(beta[0]);
    if (column)
      la.op == no_trans ? lib.sgemv(row_major, no_trans, m, k, al, A, lda, B, incb, be, C, incc)
                        : lib.sgemv(row_major, trans, k, m, al, A, lda, B, incb, be, C, incc);
    else
      lib.sgemm(row_major, la.op, lb.op, m, n, k, al, A, lda, B, ldb, be, C, ldc);
    return;
  }
  case blas_type::float64: {
    const auto *A = reinterpret_cast<const double *>(pa), *B = reinterpret_cast<const double *>(pb);
    auto *C = reinterpret_cast<double *>(pc);
    if (column)
      la.op == no_trans ? lib.dgemv(row_major, no_trans, m, k, alpha[0], A, lda, B, incb, beta[0], C, incc)
                        : lib.dgemv(row_major, trans, k, m, alpha[0], A, lda, B, incb, beta[0], C, incc);
    else
      lib.dgemm(row_major, la.op, lb.op, m, n, k, alpha[0], A, lda, B, ldb, beta[0], C, ldc);
    return;
  }
  case blas_type::complex64:
  case blas_type::complex128: {
    const bool single = type == blas_type::complex64;
    const void *al = single ? static_cast<const void *>(&alpha_c) : &alpha_z;
    const void *be = single ? static_cast<const void *>(&beta_c) : &beta_z;
    auto gemv = single ? lib.cgemv : lib.zgemv;
    if (column)
      la.op == no_trans ? gemv(row_major, no_trans, m, k, al, pa, lda, pb, incb, be, pc, incc)
                        : gemv(row_major, la.op, k, m, al, pa, lda, pb, incb, be, pc, incc);
    else
      (single ? lib.cgemm : lib.zgemm)(row_major, la.op, lb.op, m, n, k, al, pa, lda, pb, ldb, be, pc, ldc);
    return;
  }
  }
}

bool is_zero(const std::array<double, 2> &v) { return v[0] == 0 && v[1] == 0; }

} // namespace

void gemm_host(const char *name, const gemm_problem &problem) {
  gemm_problem p = problem;
  if (p.batch <= 0 || p.c.rows == 0 || p.c.cols == 0) return;
  const std::size_t size = element_size(p.type);
  // Everything that can fail before C is written: the sizes (strides past 32 bits are copied
  // instead) and the library.
  checked(name, p.c.rows, "a row count of");
  checked(name, p.c.cols, "a column count of");
  checked(name, p.a.cols, "an inner dimension of");
  const openblas &lib = blas(name);
  // E into C first, unless it is C; conjugated there when E is read conjugated.
  if (p.e.data && !same_layout(p.e, p.c)) {
    for (index_t b = 0; b < p.batch; ++b) copy_matrix(p.e, b, p.c, b, size);
  }
  if (p.e.data && p.conj_e) {
    // A batch stride of 0 shares one C: conjugated once.
    for (index_t b = 0; b < (p.c.batch_stride == 0 ? 1 : p.batch); ++b) conjugate_matrix(p.c, b, p.type);
  }
  // OpenBLAS writes row-major matrices; a column-major C is written as the transpose of
  // C^T = B^T A^T.
  if (layout_for_blas(p.c).op == trans && layout_for_blas(transpose(p.c)).op == no_trans) {
    const blas_matrix a = p.a;
    p.a = transpose(p.b);
    p.b = transpose(a);
    p.c = transpose(p.c);
    std::swap(p.conj_a, p.conj_b);
  }
  // k = 0: C = beta C (OpenBLAS returns early for some such calls without scaling C).
  // Through a product with a zero inner dimension made explicit: one column of zeros. So is
  // alpha = 0, which BLAS takes as no product at all, but OpenBLAS's small-matrix kernels
  // multiply out (NaNs in A or B reaching C): A B is not read, on every target alike.
  std::vector<char> zeros;
  if (p.a.cols == 0 || is_zero(p.alpha)) {
    zeros.assign(size * static_cast<std::size_t>(std::max(p.c.rows, p.c.cols)), 0);
    blas_matrix za, zb;
    za.data = zb.data = zeros.data();
    za.rows = p.c.rows;
    za.cols = zb.rows = 1;
    zb.cols = p.c.cols;
    za.row_stride = 1;
    za.col_stride = 1;
    zb.row_stride = std::max<index_t>(p.c.cols, 1);
    zb.col_stride = 1;
    p.a = za;
    p.b = zb;
    p.conj_a = p.conj_b = false;
  }
  // A conjugated operand OpenBLAS cannot read transposed (its conjugate transpose) is copied
  // conjugated.
  const auto must_pack = [](const blas_matrix &m, bool conj) {
    const int op = layout_for_blas(m).op;
    return op == 0 || (conj && op == no_trans);
  };
  const bool pack_a = must_pack(p.a, p.conj_a), pack_b = must_pack(p.b, p.conj_b);
  const bool pack_c = layout_for_blas(p.c).op != no_trans;
  const bool parallel = p.parallel;
  const int threads = parallel ? all_cores() : 1;
  // Many small products: one core each, the batch spread over the cores.
  const bool across_batch =
      parallel && p.batch >= 2 * threads && p.c.rows * p.c.cols * p.a.cols <= index_t{128} * 128 * 128;
  thread_gate::pass pass(lib.gate, lib.set_num_threads, across_batch ? 1 : threads);
  auto one = [&](index_t b) {
    std::vector<char> ta, tb, tc;
    blas_matrix a = p.a, bm = p.b, c = p.c;
    const char *pa = at(p.a, b, size), *pb = at(p.b, b, size);
    char *pc = const_cast<char *>(at(p.c, b, size));
    if (pack_a) {
      ta.resize(size * static_cast<std::size_t>(a.rows * a.cols));
      a = packed_like(p.a, ta.data());
      copy_matrix(p.a, b, a, 0, size);
      if (p.conj_a) conjugate_matrix(a, 0, p.type);
      pa = ta.data();
    }
    if (pack_b) {
      tb.resize(size * static_cast<std::size_t>(bm.rows * bm.cols));
      bm = packed_like(p.b, tb.data());
      copy_matrix(p.b, b, bm, 0, size);
      if (p.conj_b) conjugate_matrix(bm, 0, p.type);
      pb = tb.data();
    }
    if (pack_c) {
      tc.resize(size * static_cast<std::size_t>(c.rows * c.cols));
      c = packed_like(p.c, tc.data());
      if (!is_zero(p.beta)) copy_matrix(p.c, b, c, 0, size);
      pc = tc.data();
    }
    gemm_one(name, lib, p.type, a, pa, bm, pb, c, pc, p.alpha, p.beta, p.conj_a && !pack_a, p.conj_b && !pack_b);
    if (pack_c) copy_matrix(c, 0, p.c, b, size);
  };
  maybe_parallel(across_batch, p.batch, 1, [&](index_t begin, index_t end) {
    for (index_t b = begin; b < end; ++b) one(b);
  });
}

namespace {

/// x as OpenBLAS takes it: a positive or negative increment from the lowest address (BLAS's
/// convention for negative increments), or a contiguous copy for a zero stride or one past
/// OpenBLAS's 32 bits.
struct blas_strided {
  const void *base = nullptr;
  blas_int inc = 1;
  std::vector<char> copy;
};

blas_strided for_blas(const char *name, const blas_vector &x, std::size_t size) {
  blas_strided s;
  const auto bytes = static_cast<index_t>(size);
  if ((x.stride == 0 || x.stride > INT_MAX || x.stride < -INT_MAX) && x.size > 1) {
    s.copy.resize(size * static_cast<std::size_t>(x.size));
    for (index_t i = 0; i < x.size; ++i)
      std::memcpy(s.copy.data() + i * bytes, static_cast<const char *>(x.data) + i * x.stride * bytes, size);
    s.base = s.copy.data();
    return s;
  }
  const index_t stride = x.stride == 0 ? 1 : x.stride;
  s.inc = stride > 0 ? checked(name, stride, "a stride of") : -checked(name, -stride, "a stride of");
  s.base = stride > 0 ? x.data : static_cast<const char *>(x.data) + (x.size - 1) * stride * bytes;
  return s;
}

} // namespace

std::array<double, 2> dot_host(const char *name, blas_type type, const blas_vector &x, const blas_vector &y,
                               bool conjugate, bool parallel) {
  if (x.size == 0) return {0, 0};
  const openblas &lib = blas(name);
  const std::size_t size = element_size(type);
  const blas_int n = checked(name, x.size, "a length of");
  const blas_strided sx = for_blas(name, x, size), sy = for_blas(name, y, size);
  thread_gate::pass pass(lib.gate, lib.set_num_threads, parallel ? all_cores() : 1);
  switch (type) {
  case blas_type::float32:
    return {lib.sdot(n, static_cast<const float *>(sx.base), sx.inc, static_cast<const float *>(sy.base), sy.inc), 0};
  case blas_type::float64:
    return {lib.ddot(n, static_cast<const double *>(sx.base), sx.inc, static_cast<const double *>(sy.base), sy.inc), 0};
  case blas_type::complex64: {
    std::complex<float> r;
    (conjugate ? lib.cdotc : lib.cdotu)(n, sx.base, sx.inc, sy.base, sy.inc, &r);
    return {r.real(), r.imag()};
  }
  case blas_type::complex128: {
    std::complex<double> r;
    (conjugate ? lib.zdotc : lib.zdotu)(n, sx.base, sx.inc, sy.base, sy.inc, &r);
    return {r.real(), r.imag()};
  }
  }
  return {0, 0};
}

double two_norm_host(const char *name, blas_type type, const blas_vector &x, bool parallel) {
  if (x.size == 0) return 0;
  const openblas &lib = blas(name);
  const blas_int n = checked(name, x.size, "a length of");
  const blas_strided sx = for_blas(name, x, element_size(type));
  // nrm2 takes no negative increments; the norm does not depend on the order.
  const blas_int inc = sx.inc < 0 ? -sx.inc : sx.inc;
  thread_gate::pass pass(lib.gate, lib.set_num_threads, parallel ? all_cores() : 1);
  switch (type) {
  case blas_type::float32: return lib.snrm2(n, sx.base, inc);
  case blas_type::float64: return lib.dnrm2(n, sx.base, inc);
  case blas_type::complex64: return lib.scnrm2(n, sx.base, inc);
  case blas_type::complex128: return lib.dznrm2(n, sx.base, inc);
  }
  return 0;
}

} // namespace kernel::detail
