// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Atomics on every type Numba's cuda.atomic takes: max and min of float and double, inc and
// dec of 32- and 64-bit unsigned integers, contended by the threads of many blocks (on the
// simulator, or the GPU under KERNEL_TEST_DEVICE=cuda) and by host threads (the CPU targets
// run the same header functions); blocks waiting for blocks, backing off with nanosleep.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "kernel/kernel.h"
#include "test_device.h"

using kernel::array_view;
using kernel::index_t;

// Thread i offers (i * 37) % n - n / 2: the extremes are known, and reached in no order.
template <class T> KERNEL_ALWAYS_INLINE T offer(index_t i, index_t n) { return T((i * 37) % n) - T(n / 2) + T(0.25); }

[[kernel::jit]] void float_extremes(array_view<float> out, index_t n) {
  const index_t i = kernel::grid<1>();
  if (i >= n) return;
  kernel::atomic_max(out[0], offer<float>(i, n));
  kernel::atomic_min(out[1], offer<float>(i, n));
}
[[kernel::jit]] void double_extremes(array_view<double> out, index_t n) {
  const index_t i = kernel::grid<1>();
  if (i >= n) return;
  kernel::atomic_max(out[0], offer<double>(i, n));
  kernel::atomic_min(out[1], offer<double>(i, n));
}

// Each thread increments and decrements once with wrap-around at `limit`.
[[kernel::jit]] void counters32(array_view<std::uint32_t> c, std::uint32_t limit) {
  kernel::atomic_inc(c[0], limit);
  kernel::atomic_dec(c[1], limit);
}
[[kernel::jit]] void counters64(array_view<std::uint64_t> c, std::uint64_t limit) {
  kernel::atomic_inc(c[0], limit);
  kernel::atomic_dec(c[1], limit);
}

// C++'s own atomics in a kernel (std::atomic_ref, every memory order) and fences: a ticket per
// thread, a message passed from each block's first thread to its last through a release
// store and an acquire load.
[[kernel::jit]] void standard_atomics(array_view<int> counts, array_view<int> tickets) {
  const index_t i = kernel::grid<1>();
  std::atomic_ref<int> total(counts[0]);
  tickets[i] = total.fetch_add(1); // seq_cst
  std::atomic_ref<int>(counts[1]).fetch_add(2, std::memory_order_acq_rel);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  int expected = 0;
  std::atomic_ref<int>(counts[2]).compare_exchange_strong(expected, static_cast<int>(i) + 1);
}

// Each block's first thread waits, backing off with nanosleep, until every block before it
// has passed, then passes: blocks wait only for blocks of lower index. With more blocks than
// a device holds at once, every wait ends only if blocks start in the order of their index
// (what a single-pass compaction's look-back relies on): otherwise the launch hangs, and the
// test's timeout fails it.
[[kernel::jit]] void relay(array_view<std::uint32_t> baton, array_view<std::uint32_t> order) {
  if (kernel::threadIdx.x != 0) return;
  const std::uint32_t block = kernel::blockIdx.x;
  std::atomic_ref<std::uint32_t> passed(baton[0]);
  std::uint32_t sleep = 32;
  while (passed.load(std::memory_order_acquire) != block) {
    kernel::nanosleep(sleep);
    sleep = sleep < 4096 ? 2 * sleep : sleep;
  }
  order[block] = std::atomic_ref<std::uint32_t>(baton[1]).fetch_add(1);
  passed.store(block + 1, std::memory_order_release);
}

// The value converts to the target's type, as CUDA's and Numba's atomics convert it: an int
// added to a float, a special register as a 64-bit limit.
[[kernel::jit]] void converted_values(array_view<float> sum, array_view<std::uint64_t> count) {
  kernel::atomic_add(sum[0], 1);
  kernel::atomic_inc(count[0], kernel::gridDim.x);
  kernel::atomic_max(sum[1], 2.5);
}

// Plain data passed between blocks by C++'s orders alone: block 0 writes, then raises a flag
// after a releasing fence; block 1 waits for the flag, fences to acquire, then reads. No
// threadfence: the race checker takes the C++ fences as CUDA's.
[[kernel::jit]] void fenced_handoff(array_view<int> data, array_view<int> flag, array_view<int> seen) {
  if (kernel::threadIdx.x != 0) return;
  std::atomic_ref<int> raised(flag[0]);
  if (kernel::blockIdx.x == 0) {
    for (index_t i = 0; i < data.size(); ++i) data[i] = static_cast<int>(i) * 3;
    std::atomic_thread_fence(std::memory_order_release);
    raised.store(1, std::memory_order_relaxed);
  } else {
    while (raised.load(std::memory_order_relaxed) == 0) kernel::nanosleep(64);
    std::atomic_thread_fence(std::memory_order_acquire);
    int sum = 0;
    for (index_t i = 0; i < data.size(); ++i) sum += data[i];
    seen[0] = sum;
  }
}

// A spin lock of one block's threads (acquire to take, release to give back) guarding a plain
// counter: ordered by the lock, not a race.
[[kernel::jit]] void locked_count(array_view<int> lock, array_view<int> count) {
  std::atomic_ref<int> held(lock[0]);
  int expected = 0;
  while (!held.compare_exchange_weak(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) {
    expected = 0;
    kernel::nanosleep(32);
  }
  count[0] = count[0] + 1;
  held.store(0, std::memory_order_release);
}

namespace {

const auto on_dev = kernel_test::target();

TEST(Atomics, ValuesConvertToTheTargetsType) {
  std::vector<float> sum{0, 0};
  std::vector<std::uint64_t> count{0};
  kernel::launch<converted_values>(4, 32).on(on_dev)(sum, count);
  EXPECT_EQ(sum[0], 128.0f);
  EXPECT_EQ(sum[1], 2.5f);
  EXPECT_EQ(count[0], 128u % 5);
}

// On the simulator, whatever device the suite runs on: its race checker is what is tested.
TEST(Atomics, CxxOrdersOrderPlainData) {
  const kernel::device sim = kernel::device::simulator();
  std::vector<int> data(100, -1), flag(1, 0), seen(1, 0);
  kernel::launch<fenced_handoff>(2, 32).on(sim)(data, flag, seen);
  EXPECT_EQ(seen[0], 3 * 99 * 100 / 2);
  std::vector<int> lock(1, 0), count(1, 0);
  kernel::launch<locked_count>(1, 64).on(sim)(lock, count);
  EXPECT_EQ(count[0], 64);
  EXPECT_EQ(lock[0], 0);
}
constexpr index_t threads = 64 * 128;

TEST(Atomics, StandardAtomicRefsAndFences) {
  std::vector<int> counts(3, 0), tickets(threads, -1);
  kernel::launch<standard_atomics>(64, 128).on(on_dev)(counts, tickets);
  EXPECT_EQ(counts[0], threads);
  EXPECT_EQ(counts[1], 2 * threads);
  EXPECT_GE(counts[2], 1); // the first thread to get there
  std::vector<int> sorted = tickets;
  std::sort(sorted.begin(), sorted.end());
  for (index_t i = 0; i < threads; ++i) ASSERT_EQ(sorted[static_cast<std::size_t>(i)], i); // one ticket each
}

TEST(Atomics, BlocksWaitForEarlierBlocksWithNanosleep) {
  // More than an H200 holds at once (132 multiprocessors of at most 32 blocks).
  const index_t blocks = 5000;
  std::vector<std::uint32_t> baton(2, 0), order(blocks, 0);
  kernel::launch<relay>(blocks, 32).on(on_dev)(baton, order);
  EXPECT_EQ(baton[0], static_cast<std::uint32_t>(blocks));
  for (index_t b = 0; b < blocks; ++b) EXPECT_EQ(order[static_cast<std::size_t>(b)], static_cast<std::uint32_t>(b));
}

TEST(Atomics, FloatMaxAndMin) {
  std::vector<float> out{-1e30f, 1e30f};
  kernel::launch<float_extremes>(64, 128).on(on_dev)(out, threads);
  EXPECT_EQ(out[0], float(threads - 1 - threads / 2) + 0.25f);
  EXPECT_EQ(out[1], float(-threads / 2) + 0.25f);
}

TEST(Atomics, DoubleMaxAndMin) {
  std::vector<double> out{-1e300, 1e300};
  kernel::launch<double_extremes>(64, 128).on(on_dev)(out, threads);
  EXPECT_EQ(out[0], double(threads - 1 - threads / 2) + 0.25);
  EXPECT_EQ(out[1], double(-threads / 2) + 0.25);
}

// n increments from 0 with limit L: the counter wraps to 0 after reaching L, so it ends at
// n % (L + 1); n decrements from 0 wrap to L first, ending at L - (n - 1) % (L + 1).
TEST(Atomics, IncAndDec32) {
  std::vector<std::uint32_t> c{0, 0};
  kernel::launch<counters32>(64, 128).on(on_dev)(c, 1000u);
  EXPECT_EQ(c[0], std::uint32_t(threads % 1001));
  EXPECT_EQ(c[1], std::uint32_t(1000 - (threads - 1) % 1001));
}

TEST(Atomics, IncAndDec64) {
  // A limit above 2^32: the 64-bit operation, not a truncated 32-bit one.
  const std::uint64_t limit = (std::uint64_t{1} << 40) + 5;
  std::vector<std::uint64_t> c{limit - 100, 0};
  kernel::launch<counters64>(64, 128).on(on_dev)(c, limit);
  EXPECT_EQ(c[0], std::uint64_t(threads - 101));
  EXPECT_EQ(c[1], limit - std::uint64_t(threads - 1));
}

// The CPU targets call the same functions from host threads.
TEST(Atomics, HostThreads) {
  double best = -1e300, least = 1e300;
  std::uint64_t up = 0, down = 0;
  const std::uint64_t limit = std::uint64_t{1} << 33;
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t)
    pool.emplace_back([&, t] {
      for (index_t i = t; i < threads; i += 8) {
        kernel::atomic_max(best, offer<double>(i, threads));
        kernel::atomic_min(least, offer<double>(i, threads));
        kernel::atomic_inc(up, limit);
        kernel::atomic_dec(down, limit);
      }
    });
  for (std::thread &t : pool) t.join();
  EXPECT_EQ(best, double(threads - 1 - threads / 2) + 0.25);
  EXPECT_EQ(least, double(-threads / 2) + 0.25);
  EXPECT_EQ(up, std::uint64_t(threads));
  EXPECT_EQ(down, limit - std::uint64_t(threads - 1));
}

} // namespace
