// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Dense linear algebra on arrays, shaped like C++26's std::linalg, on every target:
//
//   namespace la = kernel::linalg;
//   la::matrix_product(A, B, C);                      // C = A B
//   la::matrix_product(la::transposed(A), B, C);      // C = A^T B, no copy
//   la::matrix_product(la::scaled(2.0f, A), B, C, C); // C = 2 A B + C
//   la::matrix_product(la::conjugate_transposed(A), B, C); // C = A^H B (conjugated(A): no transpose)
//   auto D = la::matrix_product(A, B);                // a new array (a device array for device inputs)
//   la::matrix_product(As, Bs, Cs);                   // batched: rank-3 operands, a rank-2 one is shared
//   la::matrix_vector_product(A, x, y);               // y = A x
//   auto s = la::dot(x, y);  auto t = la::dotc(x, y); // x . y, conj(x) . y
//   auto r = la::vector_two_norm(x);
//   la::add(x, la::scaled(-1.0, y), z);               // z = x - y
//   la::scale(0.5f, x);                               // x *= 0.5
//
// Elements are float32, float64, complex64 or complex128, the same type for every operand of a
// call. Operands are any arrays (std::vector, ndarray, array_view, device arrays) of any
// strides: C-ordered, Fortran-ordered (a transposed view), sliced; inputs may also be lazy
// expressions (kernel/fuse.h), evaluated into arrays first where the call runs. On cpu and
// parallel the work goes to OpenBLAS (loaded on first use; $KERNEL_BLAS_LIBRARY names another
// build), which reads any operand whose rows or columns are contiguous as it is; others
// (negative or zero strides, both strides non-unit) are copied first. On CUDA devices the
// products, dot, dotc and vector_two_norm go to cuBLAS (loaded on first use;
// $KERNEL_CUBLAS_LIBRARY names another build) where it can read the operands as they are
// (matrices: a row or column stride of 1; vectors: a positive stride); other layouts, add and
// scale (elementwise over any shape, at memory speed either way), and everything on the
// simulator run the runtime's own kernels (detail/linalg_kernel.h), which read every layout in
// place. The target follows the arrays and `.on(...)`, as for ufuncs.
//
// As in std::linalg, C may be E but must not otherwise overlap an input: an overlap is an
// argument_error. conjugated() operands are read conjugated where they are (BLAS's and
// cuBLAS's conjugate transpose for a transposed layout; the runtime's kernels on a device, and
// a conjugated copy for OpenBLAS, otherwise); real ones are their own conjugates.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/detail/algorithm_run.h"
#include "kernel/detail/linalg_api.h"
#include "kernel/detail/linalg_kernel.h"
#include "kernel/errors.h"

namespace kernel::linalg {

template <class S, class A> struct scaled_operand;
template <class A> struct conjugated_operand;

namespace detail_linalg {
/// What an operand wrapper holds by value: views, and the wrappers themselves (each as small
/// as a view), so that scaled(s, transposed(A)) or conjugated(scaled(s, A)) may be named and
/// outlive the statement that made them. Arrays are held by address: they must outlive the
/// call they are passed to.
template <class A> inline constexpr bool is_view = false;
template <class T, std::size_t R> inline constexpr bool is_view<array_view<T, R>> = true;
template <class T, std::size_t R> inline constexpr bool is_view<device_view<T, R>> = true;
template <class S, class A> inline constexpr bool is_view<scaled_operand<S, A>> = true;
template <class A> inline constexpr bool is_view<conjugated_operand<A>> = true;

template <class A> class held_operand {
public:
  constexpr explicit held_operand(const A &a) noexcept : held_(&a) {}
  constexpr const A &get() const noexcept { return *held_; }

private:
  const A *held_;
};
template <class A>
  requires is_view<A>
class held_operand<A> {
public:
  constexpr explicit held_operand(const A &a) noexcept : held_(a) {}
  constexpr const A &get() const noexcept { return held_; }

private:
  A held_;
};
} // namespace detail_linalg

/// An operand multiplied by `factor` (std::linalg::scaled): no copy is made, the factor goes
/// to the library call. A view or another wrapper is kept by value; an array must outlive the
/// call it is passed to.
template <class S, class A> struct scaled_operand {
  S factor;
  detail_linalg::held_operand<A> held;
  const A &operand() const noexcept { return held.get(); }
};

template <class S, class A> constexpr scaled_operand<S, A> scaled(S factor, const A &array) noexcept {
  return {factor, detail_linalg::held_operand<A>(array)};
}

/// An operand whose elements are read conjugated (std::linalg::conjugated): no copy is made
/// where the library can read it so. Views and other wrappers (transposed's, scaled's) are
/// kept by value, so that conjugated(transposed(A)) may be named; an array must outlive the
/// call.
template <class A> struct conjugated_operand {
  detail_linalg::held_operand<A> held;
  const A &operand() const noexcept { return held.get(); }
};

template <class A> constexpr auto conjugated(const A &a) noexcept {
  return conjugated_operand<A>{detail_linalg::held_operand<A>(a)};
}

/// A view of `a` with its last two axes swapped (std::linalg::transposed): a host array_view
/// or, for device arrays, a device_view of the same memory.
template <class A> auto transposed(A &&a) {
  using arg = detail::ufunc_arg<std::remove_reference_t<A> &>;
  static_assert(arg::supported && !arg::is_scalar && arg::rank >= 2, "transposed takes an array of rank 2 or more");
  static_assert(std::is_lvalue_reference_v<A> || detail_linalg::is_view<std::remove_cvref_t<A>>,
                "transposed of a temporary array would outlive it: name the array first");
  const auto v = arg::view(a);
  auto shape = v.shape();
  auto strides = v.strides();
  constexpr std::size_t R = arg::rank;
  std::swap(shape[R - 2], shape[R - 1]);
  std::swap(strides[R - 2], strides[R - 1]);
  using E = std::remove_reference_t<decltype(*v.data())>;
  if constexpr (arg::is_device)
    return device_view<E, R>(a.device(), v.data(), shape, strides);
  else
    return array_view<E, R>(v.data(), shape, strides);
}

/// conjugated(transposed(a)) (std::linalg::conjugate_transposed): A^H.
template <class A> auto conjugate_transposed(A &&a) { return conjugated(transposed(std::forward<A>(a))); }

} // namespace kernel::linalg

namespace kernel::detail {

/// An operand of the linear algebra calls taken apart: the array it reads, the factor it is
/// scaled by and whether its elements are conjugated, through any nesting of scaled() and
/// conjugated() (conjugated(scaled(s, A)) is conj(s) conj(A)).
template <class X> struct linalg_unscaled {
  using type = X;
  static const X &array(const X &x) noexcept { return x; }
  template <class T> static T factor(const X &) { return T(1); }
  static constexpr bool conjugated = false;
  /// Whether the factors are real numbers or of the array's element type T.
  template <class T> static constexpr bool factors_fit = true;
};
template <class S, class A> struct linalg_unscaled<linalg::scaled_operand<S, A>> {
  using inner = linalg_unscaled<A>;
  using type = typename inner::type;
  static const type &array(const linalg::scaled_operand<S, A> &x) noexcept { return inner::array(x.operand()); }
  template <class T> static T factor(const linalg::scaled_operand<S, A> &x) {
    static_assert(std::is_arithmetic_v<S> || std::is_same_v<S, T>,
                  "a scaling factor is a real number or the matrix's own complex type");
    return static_cast<T>(x.factor) * inner::template factor<T>(x.operand());
  }
  static constexpr bool conjugated = inner::conjugated;
  template <class T>
  static constexpr bool factors_fit =
      (std::is_arithmetic_v<S> || std::is_same_v<S, T>) && inner::template factors_fit<T>;
};
template <class A> struct linalg_unscaled<linalg::conjugated_operand<A>> {
  using inner = linalg_unscaled<A>;
  using type = typename inner::type;
  static const type &array(const linalg::conjugated_operand<A> &x) noexcept { return inner::array(x.operand()); }
  template <class T> static T factor(const linalg::conjugated_operand<A> &x) {
    const T f = inner::template factor<T>(x.operand());
    if constexpr (std::is_floating_point_v<T>)
      return f;
    else
      return std::conj(f);
  }
  static constexpr bool conjugated = !inner::conjugated;
  template <class T> static constexpr bool factors_fit = inner::template factors_fit<T>;
};
template <class X> using linalg_array_t = typename linalg_unscaled<std::remove_cvref_t<X>>::type;

template <class T, class X> T factor_of(const X &x) { return linalg_unscaled<X>::template factor<T>(x); }

/// Whether operand X's elements are read conjugated (never for real elements).
template <class T, class X>
inline constexpr bool conjugated_of =
    linalg_unscaled<std::remove_cvref_t<X>>::conjugated && !std::is_floating_point_v<T>;

template <class T>
inline constexpr bool blas_element = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                     std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

template <class T> constexpr blas_type blas_type_of() {
  if constexpr (std::is_same_v<T, float>)
    return blas_type::float32;
  else if constexpr (std::is_same_v<T, double>)
    return blas_type::float64;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return blas_type::complex64;
  else
    return blas_type::complex128;
}

template <class T> std::array<double, 2> blas_pair(const T &v) {
  if constexpr (std::is_floating_point_v<T>)
    return {static_cast<double>(v), 0};
  else
    return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
}
template <class T> blas_value_t<T> blas_value_of(const T &v) {
  if constexpr (std::is_floating_point_v<T>)
    return v;
  else
    return {v.real(), v.imag()};
}

/// A batch of matrices where a call runs (host memory on cpu/parallel, device memory on a
/// device), with what keeps a staged copy alive.
template <class T> struct linalg_matrix {
  T *data = nullptr;
  index_t batch = 1, rows = 0, cols = 0;
  blas_strides strides;
  std::shared_ptr<void> keep;

  blas_matrix for_blas() const noexcept { return {data, rows, cols, strides.row, strides.col, strides.batch}; }
};

/// The matrix (or batch of matrices, or a vector as one column) of an array of rank R, from
/// its layout.
template <class T, std::size_t R>
linalg_matrix<T> matrix_from(T *data, const index_t *shape, const index_t *strides, bool column) {
  linalg_matrix<T> m;
  m.data = data;
  if constexpr (R == 1) {
    m.rows = column ? shape[0] : 1;
    m.cols = column ? 1 : shape[0];
    (column ? m.strides.row : m.strides.col) = strides[0];
  } else {
    if constexpr (R == 3) {
      m.batch = shape[0];
      m.strides.batch = strides[0];
    }
    m.rows = shape[R - 2];
    m.cols = shape[R - 1];
    m.strides.row = strides[R - 2];
    m.strides.col = strides[R - 1];
  }
  return m;
}

/// Input `a` where the call runs: its own memory on the host or on its device, a staged copy
/// of a host array on a device.
template <class T, class A>
linalg_matrix<const T> linalg_input(const algorithm_site &site, std::string_view name, int argument, const A &a,
                                    bool column = false) {
  using arg = arg_of<A>;
  constexpr std::size_t R = arg::rank;
  // An operand of another element type is the caller's compile error (require_same_element):
  // nothing more from reading it as T.
  if constexpr (!std::is_same_v<element_of<A>, T>) {
    return linalg_matrix<const T>{};
  } else if (!site.on_device()) {
    const auto v = arg::view(a);
    check_view(name, argument, v);
    await_host_writes(v); // after the results calls on streams are delivering into it
    return matrix_from<const T, R>(v.data(), v.shape().data(), v.strides().data(), column);
  }
  std::vector<std::shared_ptr<void>> keep;
  const staged_operand op = stage_input<T>(name, argument, *site.call, a, keep);
  if (!keep.empty()) keep_until_done(*site.call, std::move(keep));
  linalg_matrix<const T> m =
      matrix_from<const T, R>(static_cast<const T *>(op.layout.data), op.layout.shape, op.layout.strides, column);
  m.keep = op.device_memory ? op.device_memory : op.array_memory;
  return m;
}

/// Output `a` where the call runs, and how its values reach `a` (`deliver`): its own memory,
/// or for a host array written on a device, device memory copied back.
template <class T> struct linalg_output {
  linalg_matrix<T> matrix;
  output_elements<T> staged; // delivers only when the call runs on a device and `a` is a host array
  void deliver() { staged.deliver(); }
};

template <class T, class A>
linalg_output<T> linalg_result(const algorithm_site &site, std::string_view name, int argument, A &a,
                               bool column = false) {
  using arg = ufunc_arg<A &>;
  static_assert(arg::writable, "the results go to a writable array");
  constexpr std::size_t R = arg::rank;
  linalg_output<T> out;
  const auto v = arg::view(a);
  // After the error (a const array, or another element type: the caller's), nothing of the
  // array is used: no more errors from writing into it.
  if constexpr (!arg::writable || !std::is_same_v<typename arg::element_type, T>) {
    return out;
  } else if constexpr (arg::is_device) {
    if (!site.on_device() || &a.device().state() != site.call->device)
      throw argument_error(std::string(name), argument,
                           "is a device array on " + a.device().name() + " but the call runs elsewhere");
    const operand_layout l = layout_of(name, v, argument, true);
    out.matrix = matrix_from<T, R>(static_cast<T *>(const_cast<void *>(l.data)), l.shape, l.strides, column);
  } else {
    check_view(name, argument, v);
    if (site.on_device()) {
      out.staged = output_elements<T>::make(site, name, argument, a);
      const auto strides = array_view<const T, R>::contiguous_strides(v.shape());
      out.matrix = matrix_from<T, R>(out.staged.data, v.shape().data(), strides.data(), column);
    } else {
      await_host_writes(v); // written after the results calls on streams are delivering into it
      out.matrix = matrix_from<T, R>(v.data(), v.shape().data(), v.strides().data(), column);
    }
  }
  return out;
}

/// Where out = a b (+ e) runs, after the checks every target makes on the user's arrays: the
/// results are written once per element, over no input (but over e exactly, if at all).
template <class A, class B, class E, class C>
algorithm_site product_site(std::string_view name, const placement &p, const A &a, const B &b, const E *xe,
                            const C &out, int out_argument) {
  require_distinct_elements(name, out_argument, out);
  require_apart(name, out_argument, out, 1, a);
  require_apart(name, out_argument, out, 2, b);
  if constexpr (std::is_same_v<E, std::nullptr_t>) {
    return site_of(name, p, a, b, out);
  } else {
    const auto &e = linalg_unscaled<E>::array(*xe);
    require_apart(name, out_argument, out, 3, e, true);
    return site_of(name, p, a, b, e, out);
  }
}

inline std::string dims(index_t a, index_t b) { return std::to_string(a) + "x" + std::to_string(b); }

/// Which operands of a product are read conjugated.
struct conjugations {
  bool a = false, b = false, e = false;
};
/// Those of operands XA, XB and E (std::nullptr_t: none) of elements T.
template <class T, class XA, class XB, class E> constexpr conjugations conjugations_of() {
  conjugations c{conjugated_of<T, XA>, conjugated_of<T, XB>};
  if constexpr (!std::is_same_v<E, std::nullptr_t>) c.e = conjugated_of<T, E>;
  return c;
}

/// C = alpha A B + beta E, on the call's site, for laid-out operands (each conjugated as `conj`
/// says).
template <class T>
void run_gemm(std::string_view name, const algorithm_site &site, const linalg_matrix<const T> &a,
              const linalg_matrix<const T> &b, const linalg_matrix<const T> *e, linalg_matrix<T> &c, T alpha, T beta,
              conjugations conj = {}) {
  const index_t batch = c.batch;
  if (batch == 0 || c.rows == 0 || c.cols == 0) return;
  if (!e) beta = T(0);
  gemm_problem problem;
  problem.type = blas_type_of<T>();
  problem.batch = batch;
  problem.a = a.for_blas();
  problem.b = b.for_blas();
  problem.c = c.for_blas();
  if (e && beta != T(0)) problem.e = e->for_blas();
  problem.alpha = blas_pair(alpha);
  problem.beta = blas_pair(beta);
  problem.parallel = site.parallel();
  problem.conj_a = conj.a;
  problem.conj_b = conj.b;
  problem.conj_e = conj.e && e && beta != T(0);
  const std::string n(name);
  if (!site.on_device()) {
    gemm_host(n.c_str(), problem);
    return;
  }
  std::vector<std::shared_ptr<void>> keep{a.keep, b.keep};
  if (e) keep.push_back(e->keep);
  // On a CUDA device cuBLAS, where it can take the layouts; else (and on the simulator) the
  // kernel of this library. alpha 0 takes nothing of A B (NaNs there included) on every
  // target: the kernel says so itself, where cuBLAS's documentation does not promise it.
  if (!device_is_simulator(*site.call->device) && alpha != T(0) &&
      gemm_cuda(n.c_str(), problem, *site.call->device, *site.call->stream)) {
    keep_until_done(*site.call, std::move(keep));
    return;
  }
  using V = blas_value_t<T>;
  gemm_params<V> p{};
  p.a = reinterpret_cast<const V *>(a.data);
  p.b = reinterpret_cast<const V *>(b.data);
  p.c = reinterpret_cast<V *>(c.data);
  p.e = e && beta != T(0) ? reinterpret_cast<const V *>(e->data) : nullptr;
  p.m = c.rows;
  p.n = c.cols;
  p.k = alpha == T(0) ? 0 : a.cols; // alpha 0: no product to take, no O(mnk) work for nothing
  p.batch = batch;
  p.tiles_m = (c.rows + gemm_tile - 1) / gemm_tile;
  p.tiles_n = (c.cols + gemm_tile - 1) / gemm_tile;
  p.as = a.strides;
  p.bs = b.strides;
  p.cs = c.strides;
  if (p.e) p.es = e->strides;
  p.alpha = blas_value_of(alpha);
  p.beta = blas_value_of(beta);
  p.conj_a = conj.a;
  p.conj_b = conj.b;
  p.conj_e = problem.conj_e;
  const index_t tiles = batch * p.tiles_m * p.tiles_n;
  launch_tiles<gemm_entry<T>>(*site.call, std::min<index_t>(tiles, index_t{1} << 16), p);
  keep_until_done(*site.call, std::move(keep));
}

/// Whether operand X (an array, or one scaled() or conjugated()) is one linear algebra takes,
/// with an error saying why where it is not. Calls guard the rest of their body with these
/// checks (`if constexpr`): a call of wrong operands is those errors alone.
template <class X> constexpr bool require_blas_operand() {
  using A = linalg_array_t<X>;
  if constexpr (!require_array<A>()) {
    return false;
  } else {
    using T = element_of<A>;
    static_assert(blas_element<T>, "linear algebra takes float32, float64, complex64 or complex128 arrays");
    if constexpr (!blas_element<T>) {
      return false;
    } else {
      constexpr bool factors = linalg_unscaled<std::remove_cvref_t<X>>::template factors_fit<T>;
      static_assert(factors, "a scaling factor is a real number or the matrix's own complex type");
      return factors;
    }
  }
}

/// An operand a call's form does not take: its output in a returning form (void), the
/// added operand of a product without one (std::nullptr_t).
template <class X> inline constexpr bool absent_operand = std::is_void_v<X> || std::is_same_v<X, std::nullptr_t>;

/// require_blas_operand for an operand that may be absent.
template <class X> constexpr bool require_blas_operand_if_given() {
  if constexpr (absent_operand<X>)
    return true;
  else
    return require_blas_operand<X>();
}

/// The rank of operand X, or `absent` where it is not given.
template <class X> constexpr std::size_t rank_or(std::size_t absent) {
  if constexpr (absent_operand<X>)
    return absent;
  else
    return arg_of<linalg_array_t<X>>::rank;
}

template <class X, class Y> constexpr bool require_same_element() {
  constexpr bool same = std::is_same_v<element_of<linalg_array_t<X>>, element_of<linalg_array_t<Y>>>;
  static_assert(same, "the operands of a linear algebra call have one element type (convert one first)");
  return same;
}

/// Whether an output, where given, is an array of T, with the errors where it is not.
template <class C, class T> constexpr bool require_output_of() {
  if constexpr (absent_operand<C>) {
    return true;
  } else if constexpr (!require_array<C>()) {
    return false;
  } else {
    constexpr bool same = std::is_same_v<element_of<C>, T>;
    static_assert(same, "the operands of a linear algebra call have one element type (convert one first)");
    return same;
  }
}

/// The operands of a dense call as each is checked alone: two operands linear algebra takes,
/// of one element type, and the output and the added operand where given; an error for each
/// that is not. The call checks their ranks after.
template <class XA, class XB, class Out = void, class Added = std::nullptr_t> constexpr bool require_operands() {
  if constexpr (!(require_blas_operand<XA>() & require_blas_operand<XB>() & require_blas_operand_if_given<Added>()))
    return false;
  else if constexpr (!require_same_element<XA, XB>())
    return false;
  else
    return require_output_of<Out, element_of<linalg_array_t<XA>>>();
}

/// The three forms of a product (into C, into C plus E, and the returning one) taking lazy
/// expressions (kernel/fuse.h) among the operands: they are evaluated into arrays first,
/// where the call is placed, and the product's own forms (Derived's) run on those. The first
/// operand may be one only with `FirstToo` (not a sparse matrix). Derived brings these in with
/// a using-declaration; being constrained, they are chosen over its own forms for expressions.
template <class Derived, bool FirstToo> class product_of_expressions : public placed<Derived> {
  template <class A> static constexpr bool first_expression = FirstToo && is_expression_arg<A>;

public:
  template <class XA, class XB, class C>
    requires(first_expression<XA> || is_expression_arg<XB>)
  void operator()(const XA &a, const XB &b, C &&c) const {
    self()(evaluated(this->placed_on(), a), evaluated(this->placed_on(), b), std::forward<C>(c));
  }
  template <class XA, class XB, class E, class C>
    requires(first_expression<XA> || any_expression_arg<XB, E>)
  void operator()(const XA &a, const XB &b, const E &e, C &&c) const {
    self()(evaluated(this->placed_on(), a), evaluated(this->placed_on(), b), evaluated(this->placed_on(), e),
           std::forward<C>(c));
  }
  template <class XA, class XB>
    requires(first_expression<XA> || is_expression_arg<XB>)
  auto operator()(const XA &a, const XB &b) const {
    return self()(evaluated(this->placed_on(), a), evaluated(this->placed_on(), b));
  }

private:
  const Derived &self() const noexcept { return static_cast<const Derived &>(*this); }
};

} // namespace kernel::detail

namespace kernel::linalg {

/// C = A B, or C = A B + E (E may be C), for matrices or batches of them (rank 3; a rank-2
/// operand, or a batch of one, E too, is used for every item, as NumPy broadcasts); A and B
/// may be scaled(). The returning form makes C.
class matrix_product_fn : public detail::product_of_expressions<matrix_product_fn, true> {
public:
  using detail::product_of_expressions<matrix_product_fn, true>::operator();
  constexpr matrix_product_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "matrix_product"; }

  template <class XA, class XB, class C> void operator()(const XA &a, const XB &b, C &&c) const {
    detail::require_lasting_output<C>(name(), 3, this->placed_on());
    run(a, b, static_cast<const std::nullptr_t *>(nullptr), c, 3);
  }
  template <class XA, class XB, class E, class C> void operator()(const XA &a, const XB &b, const E &e, C &&c) const {
    detail::require_lasting_output<C>(name(), 4, this->placed_on());
    run(a, b, &e, c, 4);
  }
  template <class XA, class XB> auto operator()(const XA &a, const XB &b) const {
    if constexpr (operands_fit<XA, XB>())
      return product(a, b);
    else
      return detail::failed_call_result{};
  }

private:
  /// Whether A and B, and C and E where given (void and std::nullptr_t where not), fit a
  /// product, with an error for each way they do not; after one, nothing more is compiled.
  template <class XA, class XB, class CC = void, class E = std::nullptr_t> static constexpr bool operands_fit() {
    if constexpr (!detail::require_operands<XA, XB, CC, E>()) {
      return false;
    } else {
      constexpr std::size_t RA = detail::rank_or<XA>(0), RB = detail::rank_or<XB>(0);
      // The returning form makes C of the rank the product has.
      constexpr std::size_t RC = detail::rank_or<CC>(RA > RB ? RA : RB);
      constexpr bool ranks = RA >= 2 && RA <= 3 && RB >= 2 && RB <= 3 && RC >= 2 && RC <= 3;
      static_assert(ranks, "matrix_product takes matrices (rank 2) or batches (rank 3)");
      constexpr bool batch = RC >= RA && RC >= RB;
      static_assert(batch, "the product of a batch is a batch: C needs rank 3");
      if constexpr (std::is_same_v<E, std::nullptr_t>) {
        return ranks && batch;
      } else {
        using EA = detail::linalg_array_t<E>;
        constexpr bool e_element =
            std::is_same_v<detail::element_of<EA>, detail::element_of<detail::linalg_array_t<XA>>>;
        static_assert(e_element, "the operands of a linear algebra call have one element type (convert one first)");
        constexpr bool e_rank = detail::rank_or<E>(0) == RC || detail::rank_or<E>(0) == 2;
        static_assert(e_rank, "E has C's shape (or is one matrix, added to each of a batch)");
        return ranks && batch && e_element && e_rank;
      }
    }
  }

  template <class XA, class XB> auto product(const XA &a, const XB &b) const {
    using A = detail::linalg_array_t<XA>;
    using B = detail::linalg_array_t<XB>;
    using T = detail::element_of<A>;
    constexpr std::size_t RA = detail::arg_of<A>::rank, RB = detail::arg_of<B>::rank;
    constexpr std::size_t R = RA > RB ? RA : RB;
    const auto sa = detail::shape_of(detail::linalg_unscaled<XA>::array(a));
    const auto sb = detail::shape_of(detail::linalg_unscaled<XB>::array(b));
    std::array<index_t, R> shape{};
    if constexpr (R == 3) {
      // A batch of one is broadcast against the other's (NumPy's matmul).
      if constexpr (RA == 3 && RB == 3) {
        // Named here, where the call has no C to compare a batch with.
        if (sa[0] != sb[0] && sa[0] != 1 && sb[0] != 1)
          throw argument_error(std::string(name()), 2,
                               "is a batch of " + std::to_string(sb[0]) + " matrices but A is a batch of " +
                                   std::to_string(sa[0]) + ": batches are of one size, or one of them is of one");
        shape[0] = sa[0] == 1 ? sb[0] : sa[0];
      } else {
        shape[0] = RA == 3 ? sa[0] : sb[0];
      }
    }
    shape[R - 2] = sa[RA - 2];
    shape[R - 1] = sb[RB - 1];
    const detail::algorithm_site site = detail::site_of(
        name(), this->placed_on(), detail::linalg_unscaled<XA>::array(a), detail::linalg_unscaled<XB>::array(b));
    auto result = detail::make_result < T, R, detail::is_device_arg<A> || detail::is_device_arg < B >> (site, shape);
    // The new array's site: device arrays pin it there even when the inputs were host arrays
    // placed with .on(device).
    run(a, b, static_cast<const std::nullptr_t *>(nullptr), result, 0);
    return result;
  }

  template <class XA, class XB, class E, class C>
  auto run(const XA &xa, const XB &xb, const E *xe, C &c, int c_argument) const {
    if constexpr (operands_fit<XA, XB, std::remove_cvref_t<C>, E>()) run_fitting(xa, xb, xe, c, c_argument);
  }
  template <class XA, class XB, class E, class C>
  auto run_fitting(const XA &xa, const XB &xb, const E *xe, C &c, int c_argument) const {
    using A = detail::linalg_array_t<XA>;
    using B = detail::linalg_array_t<XB>;
    using T = detail::element_of<A>;
    constexpr std::size_t RA = detail::arg_of<A>::rank, RB = detail::arg_of<B>::rank;
    const A &a = detail::linalg_unscaled<XA>::array(xa);
    const B &b = detail::linalg_unscaled<XB>::array(xb);
    const detail::algorithm_site site = detail::product_site(name(), this->placed_on(), a, b, xe, c, c_argument);
    detail::linalg_matrix<const T> ma = detail::linalg_input<T>(site, name(), 1, a);
    detail::linalg_matrix<const T> mb = detail::linalg_input<T>(site, name(), 2, b);
    detail::linalg_output<T> out = detail::linalg_result<T>(site, name(), c_argument, c);
    detail::linalg_matrix<T> &mc = out.matrix;
    if (ma.cols != mb.rows)
      throw argument_error(std::string(name()), 2,
                           "is " + detail::dims(mb.rows, mb.cols) + " but A is " + detail::dims(ma.rows, ma.cols) +
                               ": B needs as many rows as A has columns");
    if (mc.rows != ma.rows || mc.cols != mb.cols)
      throw argument_error(std::string(name()), c_argument,
                           "is " + detail::dims(mc.rows, mc.cols) + " but the product of " +
                               detail::dims(ma.rows, ma.cols) + " and " + detail::dims(mb.rows, mb.cols) + " is " +
                               detail::dims(ma.rows, mb.cols));
    // A batch of one is used for every item, as NumPy's matmul broadcasts it.
    for (auto [m, arg, rank] : {std::tuple{&ma, 1, RA}, std::tuple{&mb, 2, RB}})
      if (rank == 3 && m->batch != mc.batch && m->batch != 1)
        throw argument_error(std::string(name()), arg,
                             "is a batch of " + std::to_string(m->batch) + " matrices but C is a batch of " +
                                 std::to_string(mc.batch));
    T beta(0);
    detail::linalg_matrix<const T> me;
    if constexpr (!std::is_same_v<E, std::nullptr_t>) {
      me = detail::linalg_input<T>(site, name(), 3, detail::linalg_unscaled<E>::array(*xe));
      if (me.rows != mc.rows || me.cols != mc.cols)
        throw argument_error(std::string(name()), 3,
                             "is " + detail::dims(me.rows, me.cols) + " but C is " + detail::dims(mc.rows, mc.cols) +
                                 ": E is added to the product and has its shape");
      // One matrix, or a batch of one, is added to every item, as NumPy broadcasts A @ B + E.
      if (me.batch == 1 && mc.batch != 1) {
        me.batch = mc.batch;
        me.strides.batch = 0;
      } else if (me.batch != mc.batch) {
        throw argument_error(std::string(name()), 3,
                             "is a batch of " + std::to_string(me.batch) + " matrices but C is a batch of " +
                                 std::to_string(mc.batch) + ": E is added to the product and has its shape");
      }
      beta = detail::factor_of<T>(*xe);
    }
    // A rank-2 operand, or a batch of one, is shared by the whole batch.
    for (detail::linalg_matrix<const T> *m : {&ma, &mb})
      if (m->batch != mc.batch) {
        m->batch = mc.batch;
        m->strides.batch = 0;
      }
    const T alpha = detail::factor_of<T>(xa) * detail::factor_of<T>(xb);
    detail::run_gemm<T>(name(), site, ma, mb, std::is_same_v<E, std::nullptr_t> ? nullptr : &me, mc, alpha, beta,
                        detail::conjugations_of<T, XA, XB, E>());
    out.deliver();
  }
};
inline constexpr matrix_product_fn matrix_product{};

/// y = A x, or y = A x + z (z may be y); A may be scaled(). The returning form makes y.
class matrix_vector_product_fn : public detail::product_of_expressions<matrix_vector_product_fn, true> {
public:
  using detail::product_of_expressions<matrix_vector_product_fn, true>::operator();
  constexpr matrix_vector_product_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "matrix_vector_product"; }

  template <class XA, class XX, class Y> void operator()(const XA &a, const XX &x, Y &&y) const {
    detail::require_lasting_output<Y>(name(), 3, this->placed_on());
    run(a, x, static_cast<const std::nullptr_t *>(nullptr), y, 3);
  }
  template <class XA, class XX, class Z, class Y> void operator()(const XA &a, const XX &x, const Z &z, Y &&y) const {
    detail::require_lasting_output<Y>(name(), 4, this->placed_on());
    run(a, x, &z, y, 4);
  }
  template <class XA, class XX> auto operator()(const XA &a, const XX &x) const {
    if constexpr (operands_fit<XA, XX>())
      return product(a, x);
    else
      return detail::failed_call_result{};
  }

private:
  /// Whether A and x, and y and z where given (void and std::nullptr_t where not), fit the
  /// product, with an error for each way they do not; after one, nothing more is compiled.
  template <class XA, class XX, class YY = void, class Z = std::nullptr_t> static constexpr bool operands_fit() {
    if constexpr (!detail::require_operands<XA, XX, YY, Z>()) {
      return false;
    } else {
      constexpr bool matrix = detail::rank_or<XA>(0) == 2;
      static_assert(matrix, "matrix_vector_product takes a matrix");
      constexpr bool vectors = detail::rank_or<XX>(0) == 1 && detail::rank_or<YY>(1) == 1;
      static_assert(vectors, "matrix_vector_product takes vectors (rank 1); batches go to matrix_product");
      if constexpr (std::is_same_v<Z, std::nullptr_t>) {
        return matrix && vectors;
      } else {
        using ZA = detail::linalg_array_t<Z>;
        constexpr bool z_vector =
            std::is_same_v<detail::element_of<ZA>, detail::element_of<detail::linalg_array_t<XA>>> &&
            detail::arg_of<ZA>::rank == 1;
        static_assert(z_vector, "z is a vector of A's element type");
        return matrix && vectors && z_vector;
      }
    }
  }
  template <class XA, class XX> auto product(const XA &a, const XX &x) const {
    using A = detail::linalg_array_t<XA>;
    using X = detail::linalg_array_t<XX>;
    using T = detail::element_of<A>;
    const A &ua = detail::linalg_unscaled<XA>::array(a);
    const detail::algorithm_site site =
        detail::site_of(name(), this->placed_on(), ua, detail::linalg_unscaled<XX>::array(x));
    auto result = detail::make_result < T, 1,
         detail::is_device_arg<A> ||
             detail::is_device_arg < X >> (site, std::array<index_t, 1>{detail::shape_of(ua)[0]});
    run(a, x, static_cast<const std::nullptr_t *>(nullptr), result, 0);
    return result;
  }

  template <class XA, class XX, class Z, class Y>
  auto run(const XA &xa, const XX &xx, const Z *xz, Y &y, int y_argument) const {
    if constexpr (operands_fit<XA, XX, std::remove_cvref_t<Y>, Z>()) run_fitting(xa, xx, xz, y, y_argument);
  }
  template <class XA, class XX, class Z, class Y>
  auto run_fitting(const XA &xa, const XX &xx, const Z *xz, Y &y, int y_argument) const {
    using A = detail::linalg_array_t<XA>;
    using X = detail::linalg_array_t<XX>;
    using T = detail::element_of<A>;
    const A &a = detail::linalg_unscaled<XA>::array(xa);
    const X &x = detail::linalg_unscaled<XX>::array(xx);
    const detail::algorithm_site site = detail::product_site(name(), this->placed_on(), a, x, xz, y, y_argument);
    detail::linalg_matrix<const T> ma = detail::linalg_input<T>(site, name(), 1, a);
    detail::linalg_matrix<const T> mx = detail::linalg_input<T>(site, name(), 2, x, /*column=*/true);
    detail::linalg_output<T> out = detail::linalg_result<T>(site, name(), y_argument, y, /*column=*/true);
    if (mx.rows != ma.cols)
      throw argument_error(std::string(name()), 2,
                           "has " + std::to_string(mx.rows) + " elements but A is " + detail::dims(ma.rows, ma.cols) +
                               ": x needs one per column of A");
    if (out.matrix.rows != ma.rows)
      throw argument_error(std::string(name()), y_argument,
                           "has " + std::to_string(out.matrix.rows) + " elements but A is " +
                               detail::dims(ma.rows, ma.cols) + ": y needs one per row of A");
    T beta(0);
    detail::linalg_matrix<const T> mz;
    if constexpr (!std::is_same_v<Z, std::nullptr_t>) {
      mz = detail::linalg_input<T>(site, name(), 3, detail::linalg_unscaled<Z>::array(*xz), true);
      if (mz.rows != out.matrix.rows)
        throw argument_error(std::string(name()), 3,
                             "has " + std::to_string(mz.rows) + " elements but y has " +
                                 std::to_string(out.matrix.rows));
      beta = detail::factor_of<T>(*xz);
    }
    const T alpha = detail::factor_of<T>(xa) * detail::factor_of<T>(xx);
    detail::run_gemm<T>(name(), site, ma, mx, std::is_same_v<Z, std::nullptr_t> ? nullptr : &mz, out.matrix, alpha,
                        beta, detail::conjugations_of<T, XA, XX, Z>());
    out.deliver();
  }
};
inline constexpr matrix_vector_product_fn matrix_vector_product{};

namespace detail_linalg {

/// The two passes of entry E over vector x (and y) on the call's stream; the result read back.
template <class E, class R, class P>
R two_pass_sum(const kernel::detail::device_call &c, P p, index_t n, std::vector<std::shared_ptr<void>> keep) {
  using namespace kernel::detail;
  const index_t blocks = std::min<index_t>((n + algorithm_block - 1) / algorithm_block, 1024);
  auto partial = device_temp<R>(c, blocks + 1);
  p.n = n;
  p.partial = data_of<R>(partial);
  p.out = data_of<R>(partial) + blocks;
  p.mode = dot_mode::partial;
  launch_tiles<E>(c, blocks, p);
  p.mode = dot_mode::total;
  p.n = blocks;
  launch_tiles<E>(c, 1, p);
  const std::vector<R> r = read_back<R>(c, data_of<R>(partial) + blocks, 1);
  keep.push_back(std::move(partial));
  keep_until_done(c, std::move(keep));
  return r[0];
}

} // namespace detail_linalg

namespace detail_linalg {

/// x . y (or conj(x) . y) through cuBLAS on a CUDA device, or nothing on the simulator and
/// where cuBLAS cannot read the strides.
template <class T>
std::optional<T> dot_on_cuda(std::string_view name, const kernel::detail::algorithm_site &site,
                             const kernel::detail::linalg_matrix<const T> &x,
                             const kernel::detail::linalg_matrix<const T> &y, bool conjugate) {
  using namespace kernel::detail;
  if (device_is_simulator(*site.call->device)) return std::nullopt;
  const std::string n(name);
  const auto v = dot_cuda(n.c_str(), blas_type_of<T>(), {x.data, x.rows, x.strides.row},
                          {y.data, y.rows, y.strides.row}, conjugate, *site.call->device, *site.call->stream);
  if (!v) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>((*v)[0]);
  else
    return T(static_cast<typename T::value_type>((*v)[0]), static_cast<typename T::value_type>((*v)[1]));
}

} // namespace detail_linalg

/// Dot products of two vectors of equal length: x . y (dot, as std::linalg::dot: no
/// conjugation) or conj(x) . y (dotc). A device call waits for its result.
template <bool Conjugate> class dot_fn : public detail::placed<dot_fn<Conjugate>> {
public:
  constexpr dot_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return Conjugate ? "dotc" : "dot"; }

  template <class XX, class XY>
    requires(detail::any_expression_arg<XX, XY>)
  auto operator()(const XX &xx, const XY &xy) const {
    return (*this)(detail::evaluated(this->placed_on(), xx), detail::evaluated(this->placed_on(), xy));
  }
  template <class XX, class XY> auto operator()(const XX &xx, const XY &xy) const {
    if constexpr (operands_fit<XX, XY>())
      return product(xx, xy);
    else
      return detail::failed_call_result{};
  }

private:
  /// Whether x and y fit, with an error for each way they do not.
  template <class XX, class XY> static constexpr bool operands_fit() {
    if constexpr (!detail::require_operands<XX, XY>()) {
      return false;
    } else {
      constexpr bool vectors = detail::rank_or<XX>(0) == 1 && detail::rank_or<XY>(0) == 1;
      static_assert(vectors, "dot takes vectors (rank 1)");
      return vectors;
    }
  }

  template <class XX, class XY> auto product(const XX &xx, const XY &xy) const {
    using X = detail::linalg_array_t<XX>;
    using Y = detail::linalg_array_t<XY>;
    using T = detail::element_of<X>;
    const X &x = detail::linalg_unscaled<XX>::array(xx);
    const Y &y = detail::linalg_unscaled<XY>::array(xy);
    const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x, y);
    const detail::linalg_matrix<const T> mx = detail::linalg_input<T>(site, name(), 1, x, true);
    const detail::linalg_matrix<const T> my = detail::linalg_input<T>(site, name(), 2, y, true);
    if (mx.rows != my.rows)
      throw argument_error(std::string(name()), 2,
                           "has " + std::to_string(my.rows) + " elements but x has " + std::to_string(mx.rows));
    // conj(x) . y with x or y conjugated(): dotc's conjugation of x toggles, and a conjugated y
    // is conj(conj(y) . conj-toggled x), the conjugate of a dot of y's own values.
    constexpr bool conj_x = Conjugate != detail::conjugated_of<T, XX>, conj_y = detail::conjugated_of<T, XY>;
    constexpr bool conjugate = conj_x != conj_y;
    T fx = detail::factor_of<T>(xx), fy = detail::factor_of<T>(xy);
    if constexpr (Conjugate && !std::is_floating_point_v<T>) fx = std::conj(fx);
    T r;
    if (!site.on_device()) {
      const std::string n(name());
      const auto v = detail::dot_host(n.c_str(), detail::blas_type_of<T>(), {mx.data, mx.rows, mx.strides.row},
                                      {my.data, my.rows, my.strides.row}, conjugate, site.parallel());
      if constexpr (std::is_floating_point_v<T>)
        r = static_cast<T>(v[0]);
      else
        r = T(static_cast<typename T::value_type>(v[0]), static_cast<typename T::value_type>(v[1]));
    } else if (mx.rows == 0) {
      r = T(0);
    } else if (const auto library = detail_linalg::dot_on_cuda<T>(name(), site, mx, my, conjugate)) {
      r = *library;
    } else {
      using V = detail::blas_value_t<T>;
      detail::dot_params<V> p{};
      p.x = reinterpret_cast<const V *>(mx.data);
      p.x_stride = mx.strides.row;
      p.y = reinterpret_cast<const V *>(my.data);
      p.y_stride = my.strides.row;
      p.conjugate = conjugate;
      const V v = detail_linalg::two_pass_sum<detail::dot_entry<T>, V>(*site.call, p, mx.rows, {mx.keep, my.keep});
      if constexpr (std::is_floating_point_v<T>)
        r = v;
      else
        r = T(v.re, v.im);
    }
    if constexpr (conj_y) r = std::conj(r);
    return fx * fy * r;
  }
};
inline constexpr dot_fn<false> dot{};
inline constexpr dot_fn<true> dotc{};

/// The Euclidean norm of a vector (float for float32 and complex64, double otherwise), without
/// overflow or underflow in between. A device call waits for its result.
class vector_two_norm_fn : public detail::placed<vector_two_norm_fn> {
public:
  constexpr vector_two_norm_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "vector_two_norm"; }

  template <class XX>
    requires(detail::is_expression_arg<XX>)
  auto operator()(const XX &xx) const {
    return (*this)(detail::evaluated(this->placed_on(), xx));
  }
  template <class XX> auto operator()(const XX &xx) const {
    if constexpr (operand_fits<XX>())
      return norm_of(xx);
    else
      return detail::failed_call_result{};
  }

private:
  template <class XX> static constexpr bool operand_fits() {
    if constexpr (!detail::require_blas_operand<XX>()) {
      return false;
    } else {
      constexpr bool vector = detail::arg_of<detail::linalg_array_t<XX>>::rank == 1;
      static_assert(vector, "vector_two_norm takes a vector (rank 1)");
      return vector;
    }
  }

  template <class XX> auto norm_of(const XX &xx) const {
    using X = detail::linalg_array_t<XX>;
    using T = detail::element_of<X>;
    using Real = detail::real_of_t<T>;
    const X &x = detail::linalg_unscaled<XX>::array(xx);
    const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x);
    const detail::linalg_matrix<const T> mx = detail::linalg_input<T>(site, name(), 1, x, true);
    const double factor = std::abs(detail::factor_of<T>(xx));
    // The library's norm is of the unscaled vector, in its element type: where that
    // overflows, a factor below 1 may still bring the result into range, so the sum is made
    // again scaled as it goes (as the simulator's always is).
    const auto overflowed = [&](double norm) { return std::isinf(norm) && factor < 1; };
    if (!site.on_device()) {
      const std::string n(name());
      const double norm = detail::two_norm_host(n.c_str(), detail::blas_type_of<T>(),
                                                {mx.data, mx.rows, mx.strides.row}, site.parallel());
      if (!overflowed(norm)) return static_cast<Real>(factor * norm);
      detail::scaled_squares s{0, 0};
      const auto *values = reinterpret_cast<const detail::blas_value_t<T> *>(mx.data);
      for (index_t i = 0; i < mx.rows; ++i) s = detail::add_squares_of(s, values[i * mx.strides.row]);
      return static_cast<Real>(factor * s.scale * std::sqrt(s.sum));
    }
    if (mx.rows == 0) return Real(0);
    if (!detail::device_is_simulator(*site.call->device)) {
      const std::string n(name());
      const auto norm = detail::two_norm_cuda(n.c_str(), detail::blas_type_of<T>(), {mx.data, mx.rows, mx.strides.row},
                                              *site.call->device, *site.call->stream);
      if (norm && !overflowed(*norm)) return static_cast<Real>(factor * *norm);
    }
    detail::norm_params<detail::blas_value_t<T>> p{};
    p.x = reinterpret_cast<const detail::blas_value_t<T> *>(mx.data);
    p.x_stride = mx.strides.row;
    const detail::scaled_squares s =
        detail_linalg::two_pass_sum<detail::norm_entry<T>, detail::scaled_squares>(*site.call, p, mx.rows, {mx.keep});
    return static_cast<Real>(factor * s.scale * std::sqrt(s.sum));
  }
};
inline constexpr vector_two_norm_fn vector_two_norm{};

namespace detail_linalg {

/// z = alpha x + beta y (y absent: z = alpha x) over arrays of one shape, where the call runs;
/// x and y read conjugated when `conj_x`, `conj_y`.
template <class T, class X, class Y, class Z>
void run_axpby(std::string_view name, const kernel::detail::algorithm_site &site, T alpha, const X &x, T beta,
               const Y *y, Z &z, int z_argument, bool conj_x = false, bool conj_y = false) {
  using namespace kernel::detail;
  using V = blas_value_t<T>;
  input_elements<T> sx = input_on<T>(site, name, 1, x);
  input_elements<T> sy;
  if (y) sy = input_on<T>(site, name, 2, *y);
  output_elements<T> dz = output_elements<T>::make(site, name, z_argument, z);
  const axpby_params<V> p{reinterpret_cast<const V *>(sx.data),
                          y ? reinterpret_cast<const V *>(sy.data) : nullptr,
                          reinterpret_cast<V *>(dz.data),
                          dz.size,
                          blas_value_of(alpha),
                          blas_value_of(beta),
                          conj_x,
                          conj_y};
  if (site.on_device()) {
    launch_over<axpby_entry<T>>(*site.call, p.n, p);
    keep_until_done(*site.call, {sx.keep, sy.keep});
  } else {
    maybe_parallel(site.parallel(), p.n, index_t{1} << 15, [&](index_t begin, index_t end) {
      for (index_t i = begin; i < end; ++i) axpby_at(p, i);
    });
  }
  dz.deliver();
}

template <class A, class B> void require_same_shape(std::string_view name, int argument, const A &a, const B &b) {
  const auto sa = kernel::detail::shape_of(a);
  const auto sb = kernel::detail::shape_of(b);
  if constexpr (sa.size() != sb.size()) {
    throw argument_error(std::string(name), argument, "has another rank than argument 1");
  } else if (sa != sb) {
    throw argument_error(std::string(name), argument,
                         "has shape " + kernel::detail::shape_string(sb.data(), static_cast<int>(sb.size())) +
                             " but argument 1 has " +
                             kernel::detail::shape_string(sa.data(), static_cast<int>(sa.size())));
  }
}

} // namespace detail_linalg

/// z = x + y for arrays of one shape (x and y may be scaled(): z = a x + b y); z may be x or y.
class add_fn : public detail::placed<add_fn> {
public:
  constexpr add_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "add"; }

  template <class XX, class XY, class Z>
    requires(detail::any_expression_arg<XX, XY>)
  void operator()(const XX &xx, const XY &xy, Z &&z) const {
    (*this)(detail::evaluated(this->placed_on(), xx), detail::evaluated(this->placed_on(), xy), std::forward<Z>(z));
  }
  template <class XX, class XY, class Z> void operator()(const XX &xx, const XY &xy, Z &&z) const {
    detail::require_lasting_output<Z>(name(), 3, this->placed_on());
    if constexpr (detail::require_operands<XX, XY, std::remove_cvref_t<Z>>()) sum(xx, xy, z);
  }

private:
  template <class XX, class XY, class Z> auto sum(const XX &xx, const XY &xy, Z &z) const {
    using T = detail::element_of<detail::linalg_array_t<XX>>;
    const auto &x = detail::linalg_unscaled<XX>::array(xx);
    const auto &y = detail::linalg_unscaled<XY>::array(xy);
    detail_linalg::require_same_shape(name(), 2, x, y);
    detail_linalg::require_same_shape(name(), 3, x, z);
    detail::require_distinct_elements(name(), 3, z);
    detail::require_apart(name(), 3, z, 1, x, true);
    detail::require_apart(name(), 3, z, 2, y, true);
    const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x, y, z);
    detail_linalg::run_axpby(name(), site, detail::factor_of<T>(xx), x, detail::factor_of<T>(xy), &y, z, 3,
                             detail::conjugated_of<T, XX>, detail::conjugated_of<T, XY>);
  }
};
inline constexpr add_fn add{};

/// x = alpha x, in place, for an array of any shape.
class scale_fn : public detail::placed<scale_fn> {
public:
  constexpr scale_fn() noexcept = default;
  static constexpr std::string_view name() noexcept { return "scale"; }
  template <class S, class X> void operator()(S alpha, X &&x) const {
    if constexpr (operands_fit<S, std::remove_cvref_t<X>>()) scale_fitting<X>(alpha, x);
  }

private:
  /// Whether the factor and the array fit, with an error for each way they do not.
  template <class S, class XX> static constexpr bool operands_fit() {
    constexpr bool plain = std::is_same_v<detail::linalg_array_t<XX>, XX>;
    static_assert(plain, "scale scales an array in place: not a scaled() or conjugated() operand");
    if constexpr (!plain || !detail::require_blas_operand<XX>()) {
      return false;
    } else {
      constexpr bool factor = std::is_arithmetic_v<S> || std::is_same_v<S, detail::element_of<XX>>;
      static_assert(factor, "a scaling factor is a real number or the array's own complex type");
      return factor;
    }
  }

  // X as the caller gave it: a temporary on a stream is refused.
  template <class X, class S> auto scale_fitting(S alpha, X &x) const {
    using XX = std::remove_cvref_t<X>;
    using T = detail::element_of<XX>;
    detail::require_lasting_output<X>(name(), 2, this->placed_on());
    detail::require_distinct_elements(name(), 2, x);
    const detail::algorithm_site site = detail::site_of(name(), this->placed_on(), x);
    detail_linalg::run_axpby(name(), site, static_cast<T>(alpha), x, T(0), static_cast<const XX *>(nullptr), x, 2);
  }
};
inline constexpr scale_fn scale{};

} // namespace kernel::linalg
