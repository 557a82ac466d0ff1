// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reductions with a binary function (Numba's @reduce / cuda.reduce):
//
//   [[kernel::reduce]] float add(float a, float b) { return a + b; }
//
//   constexpr kernel::reduce<add> sum;
//   float total = sum(x);                      // all elements, on the CPU
//   float total = sum(x, 100.0f);              // folded into an initial value
//   float on_gpu = sum.on(kernel::target::cuda)(x);
//   float from_device = sum(dx);               // a device array: reduced on its device
//
// The function must be associative and commutative, as Thrust's and CUB's reductions ask:
// the CPU targets keep several partial results, and a device folds each thread's elements
// a grid apart and then combines in a tree, so elements are not combined in their order. An
// operator that is associative but not commutative belongs in kernel::scan (algorithm.h),
// which keeps the order: its last element is the ordered reduction. The GPU reduction is a
// tree of warp shuffles and shared memory, not atomics on one address.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernel/array.h"
#include "kernel/detail/broadcast.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/function_traits.h"
#include "kernel/detail/pairwise.h"
#include "kernel/detail/placement.h"
#include "kernel/detail/reduce_device.h"
#include "kernel/detail/reduce_kernel.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/detail/shape_check.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/device.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"
#include "kernel/fuse.h"
#include "kernel/inspect.h"
#include "kernel/target.h"

namespace kernel {

/// `on(...)` places a reduction on a target, device or stream (detail::placed); on a stream
/// the call still returns the value, so it waits for the stream.
template <detail::function_pointer auto F> class reduce : public detail::placed<reduce<F>> {
  using traits = detail::function_traits<decltype(F)>;
  static_assert(traits::arity == 2, "a reduction's function takes two values");
  using T = typename traits::result_type;
  static_assert(std::is_same_v<typename traits::template arg<0>, T> &&
                    std::is_same_v<typename traits::template arg<1>, T>,
                "a reduction's function combines two values of its result type: T f(T, T)");
  static_assert(scalar<T>, "reductions are over scalar element types");
  using params_type = detail::reduce_params_for<F>;

public:
  using value_type = T;

  constexpr reduce() noexcept = default;
  constexpr explicit reduce(target t) noexcept : detail::placed<reduce>(t) {}

  static constexpr std::string_view name() noexcept { return detail::function_name<F>(); }
  static std::optional<kernel_info> inspect() {
    return detail::find_kernel(reinterpret_cast<const void *>(&detail::reduce_kernel<F>));
  }

  /// The reduction of every element of `array` (any rank, any strides). An empty array has
  /// no reduction: that is an error without an initial value.
  template <class A> T operator()(const A &array) const {
    if constexpr (reducible<A>()) {
      std::optional<T> r = run(array);
      if (!r)
        throw argument_error(std::string(name()), 1,
                             "is empty, and a reduction of no elements needs an initial value: pass one");
      return *r;
    } else {
      return T{};
    }
  }

  /// The reduction of `initial` and every element of `array`.
  template <class A> T operator()(const A &array, T initial) const {
    if constexpr (reducible<A>()) {
      std::optional<T> r = run(array);
      return r ? F(initial, *r) : initial;
    } else {
      return initial;
    }
  }

  /// The reduction of the values of a lazy expression, in one pass (one loop, or one kernel
  /// and a second over its blocks' values): no array of the values is made. It runs where the
  /// reduction is placed, or, when it is not, where the expression's outermost ufunc is.
  template <class N> T operator()(const expr<N> &e) const {
    std::optional<T> r = detail::reduce_expression<F>(where(e), e.node(), name());
    if (!r)
      throw argument_error(std::string(name()), 1,
                           "is empty, and a reduction of no elements needs an initial value: pass one");
    return *r;
  }
  template <class N> T operator()(const expr<N> &e, T initial) const {
    std::optional<T> r = detail::reduce_expression<F>(where(e), e.node(), name());
    return r ? F(initial, *r) : initial;
  }

private:
  template <class N> detail::placement where(const expr<N> &e) const {
    return this->placed_on().chosen ? this->placed_on() : detail::placement_of(e.node());
  }

  /// Whether `A` is an array whose elements cast safely to T, with an error where it is not;
  /// the reduction compiles nothing more then.
  template <class A> static constexpr bool reducible() {
    using arg = detail::ufunc_arg<const A &>;
    constexpr bool array = arg::supported && !arg::is_scalar;
    static_assert(array, "a reduction takes an array");
    if constexpr (!array) {
      return false;
    } else {
      using E = typename arg::element_type;
      if constexpr (!scalar<E>) {
        static_assert(scalar<E>, "a reduction takes an array of numbers");
        return false;
      } else {
        constexpr bool casts = can_cast_safely(dtype_of<E>, dtype_of<T>);
        static_assert(casts, "the array's elements do not cast safely to the reduction's type");
        return casts;
      }
    }
  }

  template <class A> std::optional<T> run(const A &array) const {
    using arg = detail::ufunc_arg<const A &>;
    detail::check_view(name(), 1, arg::view(array));
    if constexpr (arg::is_device) {
      detail::require_device_of(name(), 1, array);
      return run_device(this->call_on(&array.device().state()), array);
    } else {
      if (this->placed_on().runs_on_host()) return run_host(arg::view(array));
      return run_device(this->call_on(nullptr), array);
    }
  }

  // One leaf of the tree the CPU targets combine (detail/pairwise.h), begin < end.
  template <class S> static T fold_leaf(const array_view<S, 1> &v, index_t begin, index_t end) {
    const S *p = v.data();
    if (v.stride(0) == 1) return detail::fold_leaf<F, T>(p + begin, end - begin);
    // Any other stride (negative, zero, past one): the range by index.
    const index_t stride = v.stride(0);
    T r = static_cast<T>(p[begin * stride]);
    for (index_t i = begin + 1; i < end; ++i) r = F(r, static_cast<T>(p[i * stride]));
    return r;
  }

  // Elements [begin, end) of a 1-d view: leaves combined pairwise.
  template <class S> static std::optional<T> fold(const array_view<S, 1> &v, index_t begin, index_t end) {
    detail::pairwise_combiner<F, T> tree;
    for (index_t b = begin; b < end; b += detail::reduce_leaf)
      tree.push(fold_leaf(v, b, std::min(end, b + detail::reduce_leaf)), 1);
    return tree.result();
  }

  template <class S, std::size_t R> std::optional<T> run_host(const array_view<S, R> &v) const {
    const index_t n = v.size();
    detail::await_host_writes(v); // after the calls on streams delivering into it
    if constexpr (R > 1) {
      // Not one run of memory: element by element, in row-major order.
      if (!v.is_c_contiguous()) {
        struct elements {
          const array_view<S, R> *v;
          std::optional<T> result;
        } e{&v, std::nullopt};
        detail::run_trapping(
            name(),
            [](void *ctx, index_t, index_t) {
              elements &el = *static_cast<elements *>(ctx);
              detail::for_each_element(*el.v, [&](const S &x) {
                el.result = el.result ? F(*el.result, static_cast<T>(x)) : static_cast<T>(x);
              });
            },
            &e, 0, n);
        return e.result;
      }
    }
    // One row: a contiguous array's memory, or a vector with its own stride.
    const array_view<S, 1> flat(v.data(), {n}, {R == 1 ? v.stride(0) : 1});
    return detail::fold_by_tree<F, T>(name(), this->placed_on().where == target::parallel, n,
                                      [&](index_t b, index_t e) { return fold(flat, b, e); });
  }

  template <class A> std::optional<T> run_device(const detail::device_call &c, const A &array) const {
    std::vector<std::shared_ptr<void>> keep;
    const detail::staged_operand in = detail::stage_input<T>(name(), 1, c, array, keep);
    const index_t n = layout_size(in.layout);
    if (n == 0) return std::nullopt;
    // The elements in their order, in as few dimensions as their strides allow (a contiguous
    // array in one, whatever its rank): the kernel walks at most max_device_dims.
    detail::iteration_space space;
    space.rank = in.layout.rank;
    std::copy_n(in.layout.shape, in.layout.rank, space.shape);
    const detail::loop_plan<1> plan = detail::plan_loop<1>(space, std::array<detail::operand_layout, 1>{in.layout});
    if (plan.ndim > detail::max_device_dims)
      throw argument_error(std::string(name()), 1,
                           "has " + std::to_string(plan.ndim) +
                               " dimensions that its strides do not merge; on a "
                               "device a reduction walks at most " +
                               std::to_string(detail::max_device_dims) + " (copy it to a contiguous array first)");

    const detail::kernel_ref k{reinterpret_cast<const void *>(&detail::reduce_kernel<F>), name(),
                               [](const void *p) { detail::reduce_kernel<F>(*static_cast<const params_type *>(p)); }};
    params_type p{};
    p.data = static_cast<const T *>(in.layout.data);
    p.size = n;
    p.ndim = plan.ndim;
    for (int d = 0; d < plan.ndim; ++d) {
      p.shape[d] = plan.shape[d];
      p.strides[d] = plan.strides[0][d];
    }
    return detail::reduce_in_two_launches<T>(
        c, k, n, p, [](params_type &q, T *out) { q.out = out; },
        [](const T *values, index_t count, T *out) {
          params_type q{};
          q.data = values;
          q.size = count;
          q.ndim = 1;
          q.shape[0] = count;
          q.strides[0] = 1;
          q.out = out;
          return q;
        });
  }

  static index_t layout_size(const detail::operand_layout &l) {
    index_t n = 1;
    for (int d = 0; d < l.rank; ++d) n *= l.shape[d];
    return n;
  }
};

} // namespace kernel
