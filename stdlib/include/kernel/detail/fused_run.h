// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How a lazy expression (kernel/fuse.h) runs: its nodes' shapes checked as their eager
// calls would check them, its program's leaves collected from the expression objects, and
// the program run as one CPU loop (cpu_loop for one output) or one launch of its fused
// kernel (kernel/detail/fused_kernel.h) on a device, or as a map-reduce.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/array.h"
#include "kernel/detail/broadcast.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/fused_expr.h"
#include "kernel/detail/fused_kernel.h"
#include "kernel/detail/host_task.h"
#include "kernel/detail/pairwise.h"
#include "kernel/detail/placement.h"
#include "kernel/detail/reduce_device.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/detail/ufunc_args.h"
#include "kernel/detail/ufunc_cpu.h"
#include "kernel/detail/ufunc_device.h"
#include "kernel/device.h"
#include "kernel/device_array.h"
#include "kernel/errors.h"
#include "kernel/inspect.h"
#include "kernel/target.h"

namespace kernel {

template <class Node> class expr;

namespace detail {

template <class T> struct is_expr : std::false_type {};
template <class N> struct is_expr<expr<N>> : std::true_type {};
/// An argument that makes a ufunc call lazy.
template <class A>
concept lazy_operand = is_expr<std::remove_cvref_t<A>>::value;

/// The leaf for an array argument: referenced when an lvalue (or a view), owned when an rvalue.
template <class A> auto make_array_leaf(A &&a) {
  using D = std::remove_cvref_t<A>;
  using arg = ufunc_arg<std::remove_reference_t<A> &>;
  static_assert(arg::supported && !arg::is_scalar, "a lazy operand must be an array");
  using T = typename arg::element_type;
  constexpr std::size_t R = arg::rank;
  constexpr bool take = !std::is_lvalue_reference_v<A> && owns_elements<D>();
  static_assert(!(take && std::is_const_v<std::remove_reference_t<A>>),
                "a const rvalue array cannot be moved into an expression and would dangle if referenced");
  if constexpr (arg::is_device) {
    using V = device_view<const T, R>;
    if constexpr (take) {
      auto owned = std::make_shared<D>(std::move(a));
      return array_leaf<V>{V(owned->view()), owned};
    } else if constexpr (is_device_array<D>::value && requires { a.copy(); }) {
      // Its memory, held by the expression and then by the launch until its work is done
      // (owned_device_memory: the array may be freed in another stream's order).
      return array_leaf<V>{V(a.view()), a.memory()};
    } else {
      return array_leaf<V>{V(a), nullptr};
    }
  } else {
    using V = array_view<const T, R>;
    if constexpr (take) {
      auto owned = std::make_shared<D>(std::move(a));
      return array_leaf<V>{V(ufunc_arg<D &>::view(*owned)), owned};
    } else {
      return array_leaf<V>{V(arg::view(a)), nullptr};
    }
  }
}

/// A child node for a ufunc argument: an expression's node, a scalar, or an array leaf.
template <class A> auto make_child(A &&a) {
  using D = std::remove_cvref_t<A>;
  if constexpr (is_expr<D>::value)
    return a.node();
  else if constexpr (ufunc_arg<D &>::supported && ufunc_arg<D &>::is_scalar)
    return scalar_leaf<D>{a};
  else
    return make_array_leaf(std::forward<A>(a));
}
template <class A> using child_t = decltype(make_child(std::declval<A>()));

// ---------------------------------------------------------------------------------------
// Shapes: every node checked as its eager call would be, naming its ufunc and argument.

struct node_shape {
  int rank = 0;
  index_t shape[max_dims] = {};
};

inline std::string_view leaf_callee() { return "kernel::lazy"; }

template <class N> std::string_view node_name(const N &) {
  if constexpr (is_map_node<N>::value)
    return N::ufunc_type::name();
  else
    return leaf_callee();
}

/// The elements of a leaf's view as an array_view (of host or device memory).
template <class V> auto memory_view(const V &v) {
  if constexpr (is_device_array<V>::value)
    return v.view();
  else
    return v;
}

template <class V> node_shape shape_of(const array_leaf<V> &l, std::string_view callee, int argument) {
  const operand_layout layout = layout_of(callee, memory_view(l.view), argument);
  node_shape s;
  s.rank = layout.rank;
  std::copy_n(layout.shape, layout.rank, s.shape);
  return s;
}
template <class S> node_shape shape_of(const scalar_leaf<S> &, std::string_view, int) { return {}; }
template <class U, auto Fn, class... C> node_shape shape_of(const map_node<U, Fn, C...> &n, std::string_view, int) {
  std::array<operand_layout, sizeof...(C)> layouts{};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((layouts[I] =
          [&] {
            const node_shape s = shape_of(std::get<I>(n.children), U::name(), int(I) + 1);
            operand_layout l;
            l.rank = s.rank;
            std::copy_n(s.shape, s.rank, l.shape);
            l.argument = int(I) + 1;
            return l;
          }()),
     ...);
  }(std::index_sequence_for<C...>{});
  const iteration_space space = broadcast_shapes(U::name(), layouts);
  node_shape s;
  s.rank = space.rank;
  std::copy_n(space.shape, space.rank, s.shape);
  return s;
}

/// The argument number an output of node `N` has in its eager call.
template <class N> constexpr int output_argument() {
  if constexpr (is_map_node<N>::value)
    return int(function_traits<decltype(N::fn)>::arity) + 1;
  else
    return 2;
}

// ---------------------------------------------------------------------------------------
// Collecting a program's leaves from the expression objects.

struct leaf_origin {
  std::string_view callee;
  int argument = 0;
};

template <bool Share, class Program> struct collected {
  using traits = program_traits<Program>;
  // Array leaves: their views (host or device), with the memory each lives in.
  std::array<operand_layout, traits::nleaves> layouts{};
  std::array<const void *, traits::nleaves> device_of{};             // device_state of a device leaf
  std::array<std::shared_ptr<const void>, traits::nleaves> owners{}; // arrays the expression owns
  typename traits::values scalars{};                                 // scalar leaves, converted
  std::array<leaf_origin, traits::nleaves> origin{};
  std::array<const void *, traits::nsteps + 1> first{}; // the first occurrence of each step
  bool same = true;

  template <class S, class N, class Param> void visit_node(const N &n, std::string_view callee, int argument) {
    using v = visit<Share, N, Param, S>;
    if constexpr (is_map_node<N>::value) {
      if constexpr (v::seen) {
        constexpr std::size_t j = static_cast<std::size_t>(v::found);
        if (!same_node(n, *static_cast<const N *>(first[j]))) same = false;
      } else {
        visit_children<S, N, 0>(n);
        first[v::fresh::index] = &n;
      }
    } else {
      constexpr std::size_t k = v::index;
      origin[k] = {callee, argument};
      if constexpr (is_scalar_leaf<N>::value) {
        std::get<k>(scalars) = convert_scalar<Param>(callee, argument, n.value);
        layouts[k].argument = argument;
      } else {
        layouts[k] = layout_of(callee, memory_view(n.view), argument);
        owners[k] = n.owner;
        if constexpr (N::is_device) {
          layouts[k].memory = &n.view.device().state();
          device_of[k] = &n.view.device().state();
        }
      }
    }
  }

  template <class S, class N, std::size_t I> void visit_children(const N &n) {
    using children = std::remove_cvref_t<decltype(n.children)>;
    if constexpr (I < std::tuple_size_v<children>) {
      using C = std::tuple_element_t<I, children>;
      using P = typename function_traits<decltype(N::fn)>::template arg<I>;
      visit_node<S, C, P>(std::get<I>(n.children), N::ufunc_type::name(), int(I) + 1);
      visit_children<typename visit<Share, C, P, S>::state, N, I + 1>(n);
    }
  }
};

template <bool Share, class S, class Roots, std::size_t I = 0, class Collected>
void collect_roots(Collected &c, const Roots &roots) {
  if constexpr (I < std::tuple_size_v<Roots>) {
    using R = std::remove_cvref_t<std::tuple_element_t<I, Roots>>;
    const R &root = std::get<I>(roots);
    c.template visit_node<S, R, typename R::value_type>(root, leaf_callee(), 1);
    collect_roots<Share, typename visit<Share, R, typename R::value_type, S>::state, Roots, I + 1>(c, roots);
  }
}

template <bool Share, class Roots> struct program_of_roots;
template <bool Share, class... R> struct program_of_roots<Share, std::tuple<const R &...>> {
  using type = program_for<Share, R...>;
};

// ---------------------------------------------------------------------------------------
// The CPU loop of a program with several outputs (one output uses the ufunc's cpu_loop).

template <class Traits, std::size_t N> struct multi_output_loop {
  static constexpr std::size_t nleaves = Traits::nleaves;
  struct pointers {
    std::array<const void *, nleaves> in;
    std::array<void *, Traits::nout> out;
    const typename Traits::values *scalars;
  };

  static void run(const loop_plan<N> &plan, const pointers &ptrs, index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) {
      index_t rest = i;
      index_t offset[N] = {};
      for (int d = plan.ndim - 1; d >= 0; --d) {
        const index_t at = d == 0 ? rest : rest % plan.shape[d];
        rest = d == 0 ? 0 : rest / plan.shape[d];
        for (std::size_t k = 0; k < N; ++k) offset[k] += at * plan.strides[k][d];
      }
      const auto results = Traits::evaluate(row(ptrs, offset, std::make_index_sequence<nleaves>{}));
      [&]<std::size_t... O>(std::index_sequence<O...>) {
        ((static_cast<typename Traits::template result<O> *>(ptrs.out[O])[offset[nleaves + O]] = std::get<O>(results)),
         ...);
      }(std::make_index_sequence<Traits::nout>{});
    }
  }

  template <std::size_t... K>
  static typename Traits::values row(const pointers &ptrs, const index_t *offset, std::index_sequence<K...>) {
    return typename Traits::values([&] {
      using L = std::tuple_element_t<K, typename Traits::leaves>;
      if constexpr (L::is_scalar)
        return std::get<K>(*ptrs.scalars);
      else
        return static_cast<const typename L::type *>(ptrs.in[K])[offset[K]];
    }()...);
  }
};

/// The CPU loop (kernel/detail/ufunc_cpu.h) of a single-output program writing `Out`
/// elements, and its inputs: the leaves, arrays in memory or scalars in registers.
template <class Traits, class Out, class Seq = std::make_index_sequence<Traits::nleaves>> struct host_loop;
template <class Traits, class Out, std::size_t... K> struct host_loop<Traits, Out, std::index_sequence<K...>> {
  template <std::size_t I> using leaf = std::tuple_element_t<I, typename Traits::leaves>;
  template <std::size_t I>
  using input =
      std::conditional_t<leaf<I>::is_scalar, scalar_input<typename leaf<I>::type>, array_input<typename leaf<I>::type>>;
  using loop = cpu_loop<&Traits::apply, Out, input<K>...>;

  template <std::size_t I, class Collected> static auto source(const Collected &c) {
    if constexpr (leaf<I>::is_scalar)
      return typename scalar_input<typename leaf<I>::type>::source{std::get<I>(c.scalars)};
    else
      return static_cast<const typename leaf<I>::type *>(c.layouts[I].data);
  }
  template <class Collected> static typename loop::inputs inputs(const Collected &c) { return {source<K>(c)...}; }
};

// What the tasks of a parallel loop share. At namespace scope: GCC 12 cannot instantiate
// local classes of generic lambdas that name the enclosing function's constants.
template <class Plan, class Out, class Inputs> struct loop_job {
  const Plan *plan;
  Out *out;
  const Inputs *in;
};

/// Outputs of a materialisation: a writable array argument each.
template <class Out> struct output_of {
  using arg = ufunc_arg<Out &>;
  static_assert(arg::supported && !arg::is_scalar && arg::writable,
                "an expression is materialised into a writable array");
  using element_type = typename arg::element_type;
};

/// The leaves of collected program `c` on the device of `call`: device arrays checked and
/// used in place, host arrays staged, scalars into the parameter block.
template <class Traits, class Collected, class Pack>
void stage_leaves(const Collected &c, const device_call &call, Pack &pack,
                  std::vector<std::shared_ptr<void>> &keep_alive, operand_layout *layouts) {
  // Arrays the expression owns outlive the work queued on the stream (the expression may not).
  for (const std::shared_ptr<const void> &owner : c.owners)
    if (owner) keep_alive.push_back(std::const_pointer_cast<void>(owner));
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    auto stage = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      using L = std::tuple_element_t<I, typename Traits::leaves>;
      using T = typename L::type;
      if constexpr (L::is_scalar) {
        slot<I>(pack).value = std::get<I>(c.scalars);
        layouts[I].argument = c.origin[I].argument;
      } else {
        const operand_layout &l = c.layouts[I];
        std::array<index_t, L::rank> shape{}, strides{};
        std::copy_n(l.shape, L::rank, shape.begin());
        std::copy_n(l.strides, L::rank, strides.begin());
        if (c.device_of[I]) {
          if (c.device_of[I] != call.device)
            throw argument_error(std::string(c.origin[I].callee), c.origin[I].argument,
                                 "is a device array on " +
                                     device_name(*static_cast<const device_state *>(c.device_of[I])) +
                                     " but the expression runs on " + device_name(*call.device));
          layouts[I] = l;
        } else {
          const array_view<const T, L::rank> host(static_cast<const T *>(l.data), shape, strides);
          staged_operand op = stage_input<T>(c.origin[I].callee, c.origin[I].argument, call, host, keep_alive);
          keep_alive.push_back(std::move(op.device_memory));
          layouts[I] = op.layout;
        }
      }
    };
    (stage(std::integral_constant<std::size_t, K>{}), ...);
  }(std::make_index_sequence<Traits::nleaves>{});
}

/// The array leaves' device addresses (staged `layouts`) and their strides in `plan`, into
/// a launch's operand pack; scalars were set by stage_leaves.
template <class Traits, class Pack, std::size_t N>
void set_leaf_operands(Pack &pack, const operand_layout *layouts, const loop_plan<N> &plan) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    auto in = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      using L = std::tuple_element_t<I, typename Traits::leaves>;
      if constexpr (!L::is_scalar) {
        auto &operand = slot<I>(pack);
        operand.data = static_cast<const typename L::type *>(layouts[I].data);
        for (int d = 0; d < plan.ndim; ++d) operand.strides[d] = plan.strides[I][d];
      }
    };
    (in(std::integral_constant<std::size_t, K>{}), ...);
  }(std::make_index_sequence<Traits::nleaves>{});
}

/// Runs program P for `roots` into `outs` (already shape-checked against space `space`).
template <bool Share, class Roots, class Outs>
bool run_program(const placement &where, const Roots &roots, Outs &outs, const iteration_space &space) {
  using P = typename program_of_roots<Share, Roots>::type;
  using traits = program_traits<P>;
  using entry = fused<P>;
  constexpr std::size_t nleaves = traits::nleaves, nout = traits::nout, N = nleaves + nout;
  collected<Share, P> c;
  collect_roots<Share, builder<std::tuple<>, std::tuple<>, std::tuple<>>>(c, roots);
  if (!c.same) return false;

  // The outputs where they live, checked against every array leaf for overlap.
  std::array<operand_layout, nout> out_layouts{};
  std::array<std::string_view, nout> output_callees{}; // the root call each output belongs to
  bool any_device = false;
  const void *array_device = nullptr;
  for (std::size_t k = 0; k < nleaves; ++k)
    if (c.device_of[k]) {
      any_device = true;
      if (!array_device) array_device = c.device_of[k];
    }
  [&]<std::size_t... O>(std::index_sequence<O...>) {
    auto one = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      auto &o = std::get<I>(outs);
      using arg = ufunc_arg<std::remove_reference_t<decltype(o)> &>;
      const std::string_view callee = node_name(std::get<I>(roots));
      output_callees[I] = callee;
      out_layouts[I] =
          layout_of(callee, arg::view(o), output_argument<std::remove_cvref_t<decltype(std::get<I>(roots))>>(),
                    /*is_output=*/true);
      if constexpr (arg::is_device) {
        out_layouts[I].memory = &o.device().state();
        any_device = true;
        if (!array_device) array_device = &o.device().state();
      }
    };
    (one(std::integral_constant<std::size_t, O>{}), ...);
  }(std::make_index_sequence<nout>{});
  for (std::size_t o = 0; o < nout; ++o) {
    for (std::size_t k = 0; k < nleaves; ++k) {
      if (c.layouts[k].rank == 0) continue;
      const std::array<operand_layout, 2> pair{c.layouts[k], out_layouts[o]};
      check_overlap(c.origin[k].callee, pair, output_callees[o]);
    }
    for (std::size_t p = o + 1; p < nout; ++p) {
      std::array<operand_layout, 2> pair{out_layouts[o], out_layouts[p]};
      pair[0].argument = int(o) + 1;
      pair[1].argument = int(p) + 1;
      check_overlap("kernel::eval", pair);
    }
  }
  if (space.size() == 0) return true;

  if (where.runs_on_host() && !any_device) {
    std::array<operand_layout, N> layouts{};
    for (std::size_t k = 0; k < nleaves; ++k) layouts[k] = c.layouts[k];
    for (std::size_t o = 0; o < nout; ++o) layouts[nleaves + o] = out_layouts[o];
    const loop_plan<N> plan = plan_loop<N>(space, layouts);
    const index_t size = space.size();
    await_host_operands(layouts);
    if constexpr (nout == 1) {
      using out_elem = typename output_of<std::tuple_element_t<0, Outs>>::element_type;
      auto *out = static_cast<out_elem *>(const_cast<void *>(out_layouts[0].data));
      using loop = typename host_loop<traits, out_elem>::loop;
      const typename loop::inputs ptrs = host_loop<traits, out_elem>::inputs(c);
      // Through run_trapping: an integer division by zero in a function of the expression is
      // an error.
      using job = loop_job<loop_plan<N>, out_elem, typename loop::inputs>;
      job j{&plan, out, &ptrs};
      constexpr auto body = [](void *ctx, index_t b, index_t e) {
        const job &jb = *static_cast<const job *>(ctx);
        loop::run(*jb.plan, jb.out, *jb.in, b, e);
      };
      loop_trapping(entry::kernel_name.view(), where.where == target::parallel, size, index_t{1} << 15, body, &j);
    } else {
      using loop = multi_output_loop<traits, N>;
      typename loop::pointers ptrs{};
      for (std::size_t k = 0; k < nleaves; ++k) ptrs.in[k] = c.layouts[k].data;
      for (std::size_t o = 0; o < nout; ++o) ptrs.out[o] = const_cast<void *>(out_layouts[o].data);
      ptrs.scalars = &c.scalars;
      using job = loop_job<loop_plan<N>, void, typename loop::pointers>;
      job j{&plan, nullptr, &ptrs};
      auto body = [](void *ctx, index_t b, index_t e) {
        const job &jb = *static_cast<const job *>(ctx);
        loop::run(*jb.plan, *jb.in, b, e);
      };
      loop_trapping(entry::kernel_name.view(), where.where == target::parallel, size, index_t{1} << 15, body, &j);
    }
    return true;
  }

  // On a device: one launch of the program's fused kernel.
  const kernel_ref k{reinterpret_cast<const void *>(&fused_kernel<entry>), entry::kernel_name.view(),
                     [](const void *p) { fused_kernel<entry>(*static_cast<const typename entry::params *>(p)); }};
  const device_call call = where.call_on(
      entry::kernel_name.view(), const_cast<device_state *>(static_cast<const device_state *>(array_device)),
      [&](const std::string &why) {
        return no_device_message(entry::kernel_name.view(),
                                 (find_kernel(k.host_key) ? std::string()
                                                          : "no GPU code was compiled for this fused "
                                                            "expression (build its translation unit with "
                                                            "the kernel plugin); and ") +
                                     why);
      });
  typename entry::params params{};
  std::vector<std::shared_ptr<void>> keep_alive;
  std::array<operand_layout, N> layouts{};
  stage_leaves<traits>(c, call, params.in, keep_alive, layouts.data());

  // Outputs: device arrays in place, host arrays through device memory copied back.
  std::vector<host_task> copy_back;
  [&]<std::size_t... O>(std::index_sequence<O...>) {
    auto one = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      auto &o = std::get<I>(outs);
      using arg = ufunc_arg<std::remove_reference_t<decltype(o)> &>;
      using R = typename traits::template result<I>;
      auto view = arg::view(o);
      if constexpr (arg::is_device) {
        if (&o.device().state() != call.device)
          throw argument_error(std::string(node_name(std::get<I>(roots))),
                               output_argument<std::remove_cvref_t<decltype(std::get<I>(roots))>>(),
                               "is a device array on " + o.device().name() + " but the expression runs on " +
                                   device_name(*call.device));
        if constexpr (!std::is_same_v<typename arg::element_type, R>)
          throw argument_error(std::string(node_name(std::get<I>(roots))),
                               output_argument<std::remove_cvref_t<decltype(std::get<I>(roots))>>(),
                               "is a device array of " + std::string(dtype_name(dtype_of<typename arg::element_type>)) +
                                   " but the expression computes " + std::string(dtype_name(dtype_of<R>)));
        layouts[nleaves + I] = out_layouts[I];
      } else {
        const std::size_t bytes = static_cast<std::size_t>(view.size()) * sizeof(R);
        auto memory = device_allocate(*call.device, bytes, call.stream);
        keep_alive.push_back(memory);
        layouts[nleaves + I] =
            layout_of(node_name(std::get<I>(roots)),
                      array_view<R, decltype(view)::rank>(static_cast<R *>(memory.get()), view.shape()),
                      output_argument<std::remove_cvref_t<decltype(std::get<I>(roots))>>(), true);
        copy_back.push_back([&call, memory, bytes, view] {
          auto staging = pinned_allocate(*call.device, bytes);
          device_copy(*call.device, staging.get(), memory.get(), bytes, copy_direction::device_to_host, *call.stream);
          deliver_into<R>(*call.stream, std::move(staging), view);
        });
      }
    };
    (one(std::integral_constant<std::size_t, O>{}), ...);
  }(std::make_index_sequence<nout>{});

  const loop_plan<N> plan = plan_loop<N>(space, layouts);
  if (plan.ndim > max_device_dims)
    throw argument_error(std::string(entry::kernel_name.view()), 0,
                         "the operands broadcast to " + std::to_string(plan.ndim) +
                             " dimensions that cannot be merged; GPU kernels handle up to " +
                             std::to_string(max_device_dims));
  params.size = space.size();
  params.ndim = plan.ndim;
  for (int d = 0; d < plan.ndim; ++d) params.shape[d] = plan.shape[d];
  set_leaf_operands<traits>(params.in, layouts.data(), plan);
  [&]<std::size_t... O>(std::index_sequence<O...>) {
    auto out = [&]<std::size_t I>(std::integral_constant<std::size_t, I>) {
      auto &operand = slot<I>(params.out);
      operand.data = static_cast<typename traits::template result<I> *>(const_cast<void *>(layouts[nleaves + I].data));
      for (int d = 0; d < plan.ndim; ++d) operand.strides[d] = plan.strides[nleaves + I][d];
    };
    (out(std::integral_constant<std::size_t, O>{}), ...);
  }(std::make_index_sequence<nout>{});

  launch(*call.device, k, elementwise_config(*call.device, k, params.size), &params, sizeof params, *call.stream);
  for (auto &f : copy_back) f();
  keep_until_done(*call.stream, std::move(keep_alive));
  if (!copy_back.empty() && !call.asynchronous) stream_synchronize(*call.stream);
  return true;
}

template <class... R> constexpr bool has_repeated_nodes() {
  return program_traits<program_for<true, R...>>::nsteps != program_traits<program_for<false, R...>>::nsteps;
}

/// The shape an expression computes.
template <class N> node_shape expression_shape(const N &root) { return shape_of(root, leaf_callee(), 1); }

/// Materialises roots into outs: the shared program when repeated subexpressions are the
/// same objects' values, else the unshared one.
template <class... R, class... Out>
void materialize(const placement &where, const std::tuple<const R &...> &roots, std::tuple<Out &...> outs) {
  static_assert(sizeof...(R) == sizeof...(Out) && sizeof...(R) >= 1);
  // Every node checked as its eager call; then each output against its expression.
  std::array<node_shape, sizeof...(R)> shapes{};
  iteration_space space;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((shapes[I] = expression_shape(std::get<I>(roots))), ...);
    auto check = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      auto &o = std::get<K>(outs);
      using arg = ufunc_arg<std::remove_reference_t<decltype(o)> &>;
      using root = std::remove_cvref_t<std::tuple_element_t<K, std::tuple<R...>>>;
      std::array<operand_layout, 2> l{};
      l[0].rank = shapes[K].rank;
      std::copy_n(shapes[K].shape, shapes[K].rank, l[0].shape);
      l[0].argument = 1;
      l[1] = layout_of(node_name(std::get<K>(roots)), arg::view(o), output_argument<root>(), /*is_output=*/true);
      const iteration_space s = broadcast_shapes(node_name(std::get<K>(roots)), l);
      if (K == 0) {
        space = s;
      } else if (s.rank != space.rank || !std::equal(s.shape, s.shape + s.rank, space.shape)) {
        throw argument_error("kernel::eval", int(K) + 1,
                             "output has shape " + shape_string(s.shape, s.rank) + " but output 1 has shape " +
                                 shape_string(space.shape, space.rank) +
                                 "; the outputs of one evaluation have one shape");
      }
    };
    (check(std::integral_constant<std::size_t, I>{}), ...);
  }(std::index_sequence_for<R...>{});
  if constexpr (has_repeated_nodes<R...>())
    if (run_program<true>(where, roots, outs, space)) return;
  run_program<false>(where, roots, outs, space);
}

// ---------------------------------------------------------------------------------------
// Map-reduce

/// The fold of mapped elements [begin, end) in the order kernel::reduce folds the
/// materialised (contiguous) array of them: each leaf mapped into a buffer on the stack by
/// the program's CPU loop and folded as an array's leaf is, the leaves combined as the tree
/// (detail/pairwise.h) combines them. Reducing an expression so gives the bits that reducing
/// its materialised array gives.
template <auto F, class T, class R, class Loop, class Job>
std::optional<T> fold_mapped(const Job &jb, index_t begin, index_t end) {
  pairwise_combiner<F, T> tree;
  alignas(64) R buffer[reduce_leaf];
  for (index_t b = begin; b < end; b += reduce_leaf) {
    const index_t e = std::min(end, b + reduce_leaf);
    // The loop writes element i at out + i: aim it so that element b lands in buffer[0].
    R *base =
        reinterpret_cast<R *>(reinterpret_cast<std::uintptr_t>(buffer) - static_cast<std::uintptr_t>(b) * sizeof(R));
    Loop::run(*jb.plan, base, *jb.in, b, e);
    tree.push(fold_leaf<F, T>(buffer, e - b), 1);
  }
  return tree.result();
}

template <auto F, bool Share, class N>
bool reduce_program(const placement &where, const N &root, std::string_view name, const iteration_space &space,
                    std::optional<typename function_traits<decltype(F)>::result_type> &result) {
  using T = typename function_traits<decltype(F)>::result_type;
  using P = program_for<Share, N>;
  using traits = program_traits<P>;
  using E = fused_reduction<F, P>;
  using R = typename traits::template result<0>;
  constexpr std::size_t nleaves = traits::nleaves;
  collected<Share, P> c;
  collect_roots<Share, builder<std::tuple<>, std::tuple<>, std::tuple<>>>(c, std::tuple<const N &>(root));
  if (!c.same) return false;
  const void *array_device = nullptr;
  for (const void *d : c.device_of)
    if (d && !array_device) array_device = d;
  const index_t n = space.size();

  if (where.runs_on_host() && !array_device) {
    // Mapped a block at a time into a buffer on the stack, folded in the eager order.
    std::array<operand_layout, nleaves + 1> layouts{};
    for (std::size_t k = 0; k < nleaves; ++k) layouts[k] = c.layouts[k];
    operand_layout &out = layouts[nleaves];
    out.rank = space.rank;
    out.is_output = true;
    for (int d = 0; d < space.rank; ++d) out.shape[d] = space.shape[d];
    for (int d = space.rank - 1; d >= 0; --d)
      out.strides[d] = d == space.rank - 1 ? 1 : out.strides[d + 1] * space.shape[d + 1];
    const loop_plan<nleaves + 1> plan = plan_loop<nleaves + 1>(space, layouts);
    // The leaves only: `out` is a plan's shape, with no memory.
    await_host_operands(layouts);
    using loop = typename host_loop<traits, R>::loop;
    const typename loop::inputs ptrs = host_loop<traits, R>::inputs(c);
    using job = loop_job<loop_plan<nleaves + 1>, void, typename loop::inputs>;
    const job j{&plan, nullptr, &ptrs};
    // As kernel::reduce folds the materialised array, on either CPU target.
    result = fold_by_tree<F, T>(name, where.where == target::parallel, n,
                                [&](index_t b, index_t e) { return fold_mapped<F, T, R, loop>(j, b, e); });
    return true;
  }

  // On a device: blocks fold their share of the mapped elements, then one block folds theirs.
  const kernel_ref k{reinterpret_cast<const void *>(&fused_reduce_kernel<E>), E::kernel_name.view(),
                     [](const void *p) { fused_reduce_kernel<E>(*static_cast<const typename E::params *>(p)); }};
  const device_call call =
      where.call_on(name, const_cast<device_state *>(static_cast<const device_state *>(array_device)),
                    [&](const std::string &why) { return no_device_message(name, why); });
  typename E::params params{};
  std::vector<std::shared_ptr<void>> keep_alive;
  std::array<operand_layout, nleaves> layouts{};
  stage_leaves<traits>(c, call, params.in, keep_alive, layouts.data());
  const loop_plan<nleaves> plan = plan_loop<nleaves>(space, layouts);
  if (plan.ndim > max_device_dims)
    throw argument_error(std::string(name), 1,
                         "the expression broadcasts to more than " + std::to_string(max_device_dims) +
                             " dimensions that cannot be merged");
  params.size = n;
  params.ndim = plan.ndim;
  for (int d = 0; d < plan.ndim; ++d) params.shape[d] = plan.shape[d];
  set_leaf_operands<traits>(params.in, layouts.data(), plan);
  params.partials = nullptr;
  result = reduce_in_two_launches<T>(
      call, k, n, params, [](typename E::params &p, T *out) { p.out = out; },
      [](const T *values, index_t count, T *out) {
        typename E::params p{};
        p.size = count;
        p.ndim = 1;
        p.shape[0] = count;
        p.partials = values;
        p.out = out;
        return p;
      });
  return true;
}

/// The reduction with F of every value of expression `root`; nullopt when it has none.
template <auto F, class N>
std::optional<typename function_traits<decltype(F)>::result_type>
reduce_expression(const placement &where, const N &root, std::string_view name) {
  using T = typename function_traits<decltype(F)>::result_type;
  static_assert(can_cast_safely(dtype_of<typename N::value_type>, dtype_of<T>),
                "the expression's values do not cast safely to the reduction's type");
  const node_shape shape = expression_shape(root);
  iteration_space space;
  space.rank = shape.rank;
  std::copy_n(shape.shape, shape.rank, space.shape);
  if (space.size() == 0) return std::nullopt;
  std::optional<T> result;
  if constexpr (has_repeated_nodes<N>())
    if (reduce_program<F, true>(where, root, name, space, result)) return result;
  reduce_program<F, false>(where, root, name, space, result);
  return result;
}

/// Where an expression runs when not told: its outermost ufunc's placement.
template <class N> placement placement_of(const N &root) {
  if constexpr (is_map_node<N>::value)
    return root.ufunc.placement_for_fusion();
  else
    return placement{};
}

/// The device of the first device leaf of an expression, or null.
template <class N> device_state *first_device_of(const N &n) {
  if constexpr (is_map_node<N>::value) {
    device_state *found = nullptr;
    std::apply([&](const auto &...c) { ((found = found ? found : first_device_of(c)), ...); }, n.children);
    return found;
  } else if constexpr (N::is_device) {
    return &n.view.device().state();
  } else {
    return nullptr;
  }
}

/// A new array holding the expression's values: on a device when it has device leaves or
/// runs on a device target, else on the host.
template <class N> auto evaluate_new(const placement &where, const N &root) {
  using R = typename N::value_type;
  constexpr std::size_t rank = N::rank < 1 ? 1 : N::rank;
  const node_shape s = expression_shape(root);
  std::array<index_t, rank> shape{};
  shape.fill(1);
  std::copy_n(s.shape, s.rank, shape.begin() + (rank - static_cast<std::size_t>(s.rank)));
  checked_size(node_name(root), 0, shape.data(), static_cast<int>(rank), sizeof(R));
  if constexpr (N::is_device) {
    const device_call call = where.call_on(node_name(root), first_device_of(root), [&](const std::string &why) {
      return no_device_message(node_name(root), why);
    });
    device_array<R, rank> result(shape, call.stream, node_name(root), 0);
    materialize(where.chosen_device || where.chosen_stream ? where : placement::of(kernel::device(call.device)),
                std::tuple<const N &>(root), std::tuple<device_array<R, rank> &>(result));
    return result;
  } else {
    ndarray<R, rank> result(ndarray<R, rank>::uninitialized, shape, node_name(root), 0);
    materialize(where, std::tuple<const N &>(root), std::tuple<ndarray<R, rank> &>(result));
    return result;
  }
}

template <class Out, class N> struct assignment {
  Out &out;
  N node; // by value: an assignment made from a temporary expression does not dangle
};

} // namespace detail
} // namespace kernel
