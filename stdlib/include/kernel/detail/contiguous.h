// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Contiguous sized ranges (std::vector, std::array, std::span, C arrays) as the public headers
// accept them, from the range-access functions alone: <ranges> costs every user's compile a
// tenth of a second, for two concepts.
#pragma once

#include <concepts>
#include <iterator>
#include <type_traits>
#include <utility>

namespace kernel::detail {

/// What std::ranges::contiguous_range && std::ranges::sized_range accept: contiguous iterators,
/// ranges::data giving a pointer and ranges::size a count. (begin/end matter: the library's own
/// views and device arrays have data() and size() but are not ranges, and must not be taken
/// for contiguous host memory.)
template <class R>
concept contiguous_sized_range = requires(R &r) {
  { std::ranges::begin(r) } -> std::contiguous_iterator;
  std::ranges::end(r);
  {
    std::ranges::data(r)
  } -> std::same_as<std::add_pointer_t<std::remove_reference_t<decltype(*std::ranges::data(r))>>>;
  std::ranges::size(r);
};

/// The element type of such a range, const when the range gives const access.
template <class R>
using contiguous_element_t = std::remove_reference_t<decltype(*std::ranges::data(std::declval<R &>()))>;

} // namespace kernel::detail
