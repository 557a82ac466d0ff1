// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one place where shapes are checked as they enter the library (array constructors,
// views handed to ufuncs, gufuncs and reductions, broadcast results, device allocations):
// extents are never negative, and element counts, byte sizes and the memory a view's strides
// reach all fit the address space. Past these checks, size arithmetic cannot overflow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>

#include "kernel/errors.h"
#include "kernel/types.h"

namespace kernel::detail {

/// "(3, 4)": a shape as NumPy prints it, for error messages.
inline std::string shape_string(const index_t *shape, int rank) {
  std::string s = "(";
  for (int d = 0; d < rank; ++d) {
    if (d) s += ", ";
    s += std::to_string(shape[d]);
  }
  if (rank == 1) s += ",";
  return s + ")";
}

/// An array the results are written to (`shape`, `strides`, rank `rank`): no element of it
/// twice, as far as the strides say (a zero stride along an extent above 1, or rows that
/// overlap, would write results more than once to one element, the last one winning). An
/// empty array has no elements to write twice, whatever its strides (C-contiguous strides of
/// a (4, 0) array are (0, 1)). The strides are taken as distinct when, ordered by size, each
/// steps over everything the smaller ones reach: every layout of views (transposed, reversed,
/// sliced, with a step) is; a few exotic interleavings that happen to be distinct are refused
/// too.
inline void require_distinct_elements(std::string_view callee, int argument, const index_t *shape,
                                      const index_t *strides, int rank) {
  for (int d = 0; d < rank; ++d)
    if (shape[d] == 0) return;
  for (int d = 0; d < rank; ++d)
    if (shape[d] > 1 && strides[d] == 0)
      throw argument_error(std::string(callee), argument,
                           "has a zero stride: the results would be written more than once to one element");
  // In unsigned arithmetic, saturating: strides a user gave may be as large as index_t holds.
  constexpr int max_rank = 64;
  std::uint64_t step[max_rank], extent[max_rank];
  int n = 0;
  for (int d = 0; d < rank && n < max_rank; ++d)
    if (shape[d] > 1) {
      step[n] = strides[d] < 0 ? 0 - static_cast<std::uint64_t>(strides[d]) : static_cast<std::uint64_t>(strides[d]);
      extent[n++] = static_cast<std::uint64_t>(shape[d]);
    }
  for (int i = 1; i < n; ++i) // insertion sort by step: ranks are small
    for (int j = i; j > 0 && step[j] < step[j - 1]; --j) {
      std::swap(step[j], step[j - 1]);
      std::swap(extent[j], extent[j - 1]);
    }
  constexpr std::uint64_t saturated = ~std::uint64_t{0};
  std::uint64_t reach = 0; // the farthest offset the smaller steps reach
  for (int i = 0; i < n; ++i) {
    if (step[i] <= reach)
      throw argument_error(std::string(callee), argument,
                           "has strides under which some elements are reached more than once (a step of " +
                               std::to_string(step[i]) + " elements within the " +
                               (reach == saturated ? std::string("many") : std::to_string(reach + 1)) +
                               " the smaller strides span): the results would be written over each other");
    const std::uint64_t span = step[i] > saturated / (extent[i] - 1) ? saturated : step[i] * (extent[i] - 1);
    reach = span > saturated - reach ? saturated : reach + span;
  }
}

/// Largest byte size of one object (what operator new and the device allocators accept).
inline constexpr std::uint64_t max_object_bytes = static_cast<std::uint64_t>(PTRDIFF_MAX);

/// checked_size where a shape has an extent of 0 or less, or its count overflows: it
/// throws, or returns 0 for an empty shape. Out of line: checked_size's common case inlines.
[[gnu::noinline]] inline index_t checked_size_of_unusual(std::string_view callee, int argument, const index_t *shape,
                                                         int rank, std::size_t elem_size) {
  for (int d = 0; d < rank; ++d)
    if (shape[d] < 0)
      throw argument_error(std::string(callee), argument,
                           "shape " + shape_string(shape, rank) + ": dimension " + std::to_string(d) +
                               " has a negative extent (" + std::to_string(shape[d]) + ")");
  // An empty shape has no elements, however large its other extents.
  for (int d = 0; d < rank; ++d)
    if (shape[d] == 0) return 0;
  const std::uint64_t limit = max_object_bytes / (elem_size ? elem_size : 1);
  std::uint64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    if (__builtin_mul_overflow(n, static_cast<std::uint64_t>(shape[d]), &n) || n > limit)
      throw argument_error(std::string(callee), argument,
                           "shape " + shape_string(shape, rank) + " is too large" +
                               (elem_size > 1 ? " for " + std::to_string(elem_size) + "-byte elements" : "") +
                               ": its size overflows at dimension " + std::to_string(d) + " (at most " +
                               std::to_string(max_object_bytes) + " bytes)");
  }
  return static_cast<index_t>(n);
}

/// The number of elements of `shape` (rank `rank`, elements of `elem_size` bytes), after
/// checking that no extent is negative and that the count and its bytes fit one object.
/// Errors are `argument_error`s of `callee` naming `argument` (0: the call) and the dimension.
/// Every call checks its arrays' shapes, often more than once: the common case, positive
/// extents whose count fits, is a loop the compiler can inline.
inline index_t checked_size(std::string_view callee, int argument, const index_t *shape, int rank,
                            std::size_t elem_size) {
  std::uint64_t n = 1;
  bool overflow = false;
  for (int d = 0; d < rank; ++d) {
    if (shape[d] <= 0) return checked_size_of_unusual(callee, argument, shape, rank, elem_size);
    overflow |= __builtin_mul_overflow(n, static_cast<std::uint64_t>(shape[d]), &n);
  }
  if (overflow || n > max_object_bytes / (elem_size ? elem_size : 1))
    return checked_size_of_unusual(callee, argument, shape, rank, elem_size);
  return static_cast<index_t>(n);
}

/// What an allocation that failed was for, as its error begins: "'add': the result, of shape
/// (3, 4)" (`argument` 0) or "'ndarray': shape (3, 4)".
inline std::string allocation_subject(std::string_view callee, int argument, const index_t *shape, int rank) {
  return "'" + std::string(callee) + "': " + (argument == 0 ? "the result, of shape " : "shape ") +
         shape_string(shape, rank);
}

/// `n` elements of `elem_size` bytes, aligned to 64, for an array of `shape` that `callee`
/// makes (its result when `argument` is 0): a host_memory_error naming them when the host
/// has no room.
[[gnu::noinline]] inline void *allocate_host_array(std::string_view callee, int argument, const index_t *shape,
                                                   int rank, index_t n, std::size_t elem_size) {
  const std::size_t bytes = static_cast<std::size_t>(n) * elem_size;
  try {
    return ::operator new(bytes, std::align_val_t{64});
  } catch (const std::bad_alloc &) {
    throw host_memory_error(allocation_subject(callee, argument, shape, rank) + ": allocating " +
                            std::to_string(bytes) + " bytes on the host: out of memory");
  }
}

/// The memory a layout's elements lie in (`rank` extents and strides in elements of
/// `element` bytes from `data`): from its lowest element's first byte to just past its
/// highest element's; {data, data} when it has no element.
inline std::pair<const char *, const char *> element_bytes(const void *data, const index_t *shape,
                                                           const index_t *strides, std::size_t rank,
                                                           std::size_t element) noexcept {
  const char *base = static_cast<const char *>(data);
  index_t low = 0, high = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    if (shape[d] == 0) return {base, base};
    (strides[d] < 0 ? low : high) += (shape[d] - 1) * strides[d];
  }
  const auto size = static_cast<index_t>(element);
  return {base + low * size, base + (high + 1) * size};
}

/// A layout as elements_apart reads it: `rank` extents and strides in elements of
/// `element` bytes from `data`.
struct strided_bytes {
  const void *data;
  std::size_t element;
  const index_t *shape;
  const index_t *strides;
  std::size_t rank;
};

/// Whether two layouts whose memory ranges meet still share no byte, as interleaved views
/// do (x[::2] and x[1::2]; a matrix's even and odd columns). Every element of either starts a
/// multiple of g, the greatest common divisor of every step either takes in bytes, from its
/// layout's first element; so when the first elements' distance modulo g leaves room for an
/// element of each in between, no two elements meet. Exact for the layouts of one array;
/// where it says false the layouts may still be apart.
inline bool elements_apart(const strided_bytes &a, const strided_bytes &b) noexcept {
  std::uint64_t g = 0;
  for (const strided_bytes *l : {&a, &b})
    for (std::size_t d = 0; d < l->rank; ++d) {
      if (l->shape[d] == 0) return true;
      if (l->shape[d] == 1) continue;
      const std::uint64_t step =
          l->strides[d] < 0 ? 0 - static_cast<std::uint64_t>(l->strides[d]) : static_cast<std::uint64_t>(l->strides[d]);
      g = std::gcd(g, step * l->element);
    }
  if (g == 0 || g > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
  const auto gap =
      static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(b.data) - reinterpret_cast<std::uintptr_t>(a.data));
  std::int64_t distance = gap % static_cast<std::int64_t>(g);
  if (distance < 0) distance += static_cast<std::int64_t>(g);
  const auto d = static_cast<std::uint64_t>(distance);
  return d >= a.element && g - d >= b.element;
}

/// Checks a view: its shape as for `checked_size`, and that the memory its strides walk
/// (from the lowest to the highest element it reaches) fits one object, so that offsets
/// computed from it cannot overflow. A view of repeated elements (stride 0) may have more
/// elements than memory holds; its size must still fit an `index_t`.
inline void check_view(std::string_view callee, int argument, const index_t *shape, const index_t *strides, int rank,
                       std::size_t elem_size) {
  checked_size(callee, argument, shape, rank, 1);
  for (int d = 0; d < rank; ++d)
    if (shape[d] == 0) return;
  std::uint64_t span = 0; // elements between the lowest and the highest reached
  for (int d = 0; d < rank; ++d) {
    const std::uint64_t stride = strides[d] < 0 ? 0 - static_cast<std::uint64_t>(strides[d]) : strides[d];
    std::uint64_t reach = 0;
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(shape[d] - 1), stride, &reach) ||
        __builtin_add_overflow(span, reach, &span) || span >= max_object_bytes / (elem_size ? elem_size : 1))
      throw argument_error(std::string(callee), argument,
                           "a view of shape " + shape_string(shape, rank) + " with strides " +
                               shape_string(strides, rank) + " reaches past the address space at dimension " +
                               std::to_string(d));
  }
}

/// The same, for any view type (array_view, device_view).
template <class View> void check_view(std::string_view callee, int argument, const View &v) {
  check_view(callee, argument, v.shape().data(), v.strides().data(), static_cast<int>(View::rank),
             sizeof(typename View::element_type));
}

} // namespace kernel::detail
