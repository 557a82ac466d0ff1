// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A list of at most N values held in place, for the runtime's per-call bookkeeping.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <iterator>

namespace kernel::detail {

/// Up to N values held in place, as a std::vector holds them: the lists of a call's bookkeeping
/// (an FFT's axes, a cuFFT layout's), made at every call, whose host time is a few
/// microseconds, of which heap allocations were a fifth. T is trivially copyable; only the
/// values held are ever set or copied.
template <class T, std::size_t N> class fixed_list {
public:
  fixed_list() = default;
  fixed_list(std::initializer_list<T> values) {
    for (const T &v : values) push_back(v);
  }
  // Only the values held are copied (nor are the others ever set).
  fixed_list(const fixed_list &o) noexcept : size_(o.size_) { std::copy(o.begin(), o.end(), begin()); }
  fixed_list &operator=(const fixed_list &o) noexcept {
    if (this != &o) {
      size_ = o.size_;
      std::copy(o.begin(), o.end(), begin());
    }
    return *this;
  }
  void push_back(const T &v) noexcept { values_[size_++] = v; }
  void pop_back() noexcept { --size_; }
  /// Removes the value at `at`, keeping the others' order.
  void erase(const T *at) noexcept {
    T *const from = begin() + (at - begin());
    std::copy(from + 1, end(), from);
    --size_;
  }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T &operator[](std::size_t i) noexcept { return values_[i]; }
  const T &operator[](std::size_t i) const noexcept { return values_[i]; }
  const T &front() const noexcept { return values_[0]; }
  T &back() noexcept { return values_[size_ - 1]; }
  const T &back() const noexcept { return values_[size_ - 1]; }
  T *begin() noexcept { return values_.data(); }
  T *end() noexcept { return values_.data() + size_; }
  const T *begin() const noexcept { return values_.data(); }
  const T *end() const noexcept { return values_.data() + size_; }
  auto rbegin() const noexcept { return std::reverse_iterator<const T *>(end()); }
  auto rend() const noexcept { return std::reverse_iterator<const T *>(begin()); }
  friend bool operator==(const fixed_list &a, const fixed_list &b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

private:
  std::array<T, N> values_;
  std::size_t size_ = 0;
};

} // namespace kernel::detail
