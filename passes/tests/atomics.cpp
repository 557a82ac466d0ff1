// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every atomic on every type it takes, compiled for the GPU: the offload test assembles the
// PTX (floats' max and min and 64-bit inc and dec are compare-and-swap loops).
#include <atomic>
#include <cstdint>
#include <kernel/kernel.h>

using kernel::array_view;

template <class T> void arithmetic(array_view<T> a) {
  const T v = T(kernel::grid<1>());
  kernel::atomic_add(a[0], v);
  kernel::atomic_sub(a[1], v);
  kernel::atomic_max(a[2], v);
  kernel::atomic_min(a[3], v);
  kernel::atomic_exch(a[4], v);
  kernel::atomic_cas(a[5], T(0), v);
}

template <class T> void bitwise(array_view<T> a) {
  const T v = T(kernel::grid<1>());
  kernel::atomic_and(a[6], v);
  kernel::atomic_or(a[7], v);
  kernel::atomic_xor(a[8], v);
}

[[kernel::jit]] void floats(array_view<float> f, array_view<double> d) {
  arithmetic(f);
  arithmetic(d);
}

[[kernel::jit]] void integers(array_view<std::int32_t> i, array_view<std::uint32_t> u,
                              array_view<std::int64_t> l, array_view<std::uint64_t> ul) {
  arithmetic(i);
  arithmetic(u);
  arithmetic(l);
  arithmetic(ul);
  bitwise(i);
  bitwise(u);
  bitwise(l);
  bitwise(ul);
  kernel::atomic_inc(u[9], 7u);
  kernel::atomic_dec(u[10], 7u);
  kernel::atomic_inc(ul[9], std::uint64_t{7});
  kernel::atomic_dec(ul[10], std::uint64_t{7});
}

// In shared memory too.
[[kernel::jit]] void shared(array_view<float> out) {
  auto s = kernel::shared_array<float, 2>();
  if (kernel::threadIdx.x == 0) {
    s[0] = 0;
    s[1] = 0;
  }
  kernel::syncthreads();
  kernel::atomic_max(s[0], float(kernel::threadIdx.x));
  kernel::atomic_min(s[1], -float(kernel::threadIdx.x));
  kernel::syncthreads();
  if (kernel::threadIdx.x == 0) {
    out[0] = s[0];
    out[1] = s[1];
  }
}

// C++'s own atomics, with every memory order, and fences (LLVM 19's NVPTX backend selects
// neither ordered loads and stores nor fences: LowerAtomicOrderings makes them membars
// around relaxed accesses).
[[kernel::jit]] void standard_atomics(array_view<int> a, array_view<unsigned long long> b) {
  std::atomic_ref<int> x(a[0]);
  x.store(1);
  x.store(2, std::memory_order_release);
  const int seen = x.load() + x.load(std::memory_order_acquire) + x.load(std::memory_order_relaxed);
  x.fetch_add(seen);
  x.fetch_sub(1, std::memory_order_acq_rel);
  int expected = 0;
  x.compare_exchange_strong(expected, 3);
  std::atomic_ref<unsigned long long>(b[0]).fetch_or(1ull << kernel::laneid(),
                                                     std::memory_order_release);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  __sync_synchronize();
  a[1] = static_cast<int>(std::atomic_ref<unsigned long long>(b[0]).exchange(0));
}
