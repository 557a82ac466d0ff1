// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Counts of the calls made into one null library (the driver, cuFFT, cuBLAS, cuSPARSE), by
// function: on a real GPU each library call costs host time that the null one does not, so a
// benchmark prints how many of them a call of ours makes beside the direct call's.
//
// Each null library defines NULL_LIBRARY_COUNTS to the name of its exported query, e.g.
// null_cuda_calls, and starts each exported function with NULL_COUNTED(). The query is
//   std::size_t null_cuda_calls(const char **names, unsigned long long *counts, std::size_t capacity)
// which fills up to `capacity` (name, count) pairs of the functions called so far and returns
// how many there are.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>

#ifndef NULL_LIBRARY_COUNTS
#error "define NULL_LIBRARY_COUNTS to the name of the library's count query"
#endif

namespace null_library {

/// The functions called so far and their counts. Registration takes a lock (once per
/// function, as its static counter is first made); counting is one relaxed increment.
class call_table {
public:
  static constexpr std::size_t capacity = 128;

  std::atomic<unsigned long long> *add(const char *name) noexcept {
    std::lock_guard guard(lock_);
    if (size_ == capacity) return &overflow_;
    names_[size_] = name;
    return &counts_[size_++];
  }

  std::size_t read(const char **names, unsigned long long *counts, std::size_t room) const noexcept {
    std::lock_guard guard(lock_);
    for (std::size_t i = 0; i < size_ && i < room; ++i) {
      names[i] = names_[i];
      counts[i] = counts_[i].load(std::memory_order_relaxed);
    }
    return size_;
  }

private:
  mutable std::mutex lock_;
  std::size_t size_ = 0;
  const char *names_[capacity] = {};
  std::atomic<unsigned long long> counts_[capacity] = {};
  std::atomic<unsigned long long> overflow_{0};
};

inline call_table &calls() {
  static call_table table;
  return table;
}

} // namespace null_library

/// Counts a call of the enclosing function.
#define NULL_COUNTED()                                                                                                 \
  do {                                                                                                                 \
    static std::atomic<unsigned long long> *const null_count_ = null_library::calls().add(__func__);                   \
    null_count_->fetch_add(1, std::memory_order_relaxed);                                                              \
  } while (false)

extern "C" __attribute__((visibility("default"))) std::size_t
NULL_LIBRARY_COUNTS(const char **names, unsigned long long *counts, std::size_t capacity) {
  return null_library::calls().read(names, counts, capacity);
}
