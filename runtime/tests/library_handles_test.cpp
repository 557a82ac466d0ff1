// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cache of the math libraries' handles and plans (runtime/cuda/library_handles.h), with
// handles of its own on the simulator's device: one per key, lent to one caller at a time,
// released when their stream is destroyed or when they are the least recently used beyond
// the capacity, never while lent.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#include "cuda/library_handles.h"
#include "kernel/kernel.h"

namespace {

using kernel::runtime::cuda::device_handle;
using kernel::runtime::cuda::handle_cache;
using kernel::runtime::cuda::handle_lease;
using kernel::runtime::cuda::stream_key;

struct handles {
  kernel::device device = kernel::device::simulator();
  handle_cache<stream_key, int> cache;
  int made = 0;
  std::shared_ptr<std::atomic<int>> released = std::make_shared<std::atomic<int>>(0);

  stream_key key(std::uint64_t stream) const { return {this, &device.state(), stream}; }

  handle_lease<int> lend(std::uint64_t stream, std::weak_ptr<const void> alive) {
    return cache.lend(key(stream), device.state(), std::move(alive), [&] {
      const int h = ++made;
      return std::make_unique<device_handle<int>>(h, device.state(), [r = released](int) { ++*r; });
    });
  }
};

// A token that never expires, as a device's default stream.
const std::shared_ptr<const void> forever = std::make_shared<char>();

TEST(LibraryHandles, OneHandlePerKey) {
  handles h;
  const int first = h.lend(1, forever).get();
  EXPECT_EQ(h.lend(1, forever).get(), first);
  EXPECT_NE(h.lend(2, forever).get(), first);
  EXPECT_EQ(h.made, 2);
  EXPECT_EQ(h.cache.size(), 2u);
  EXPECT_EQ(*h.released, 0);
}

TEST(LibraryHandles, HandlesOfADestroyedStreamAreReleased) {
  handles h;
  {
    kernel::stream s(h.device);
    const auto &state = *s.state();
    (void)h.lend(state.id(), state.liveness());
    (void)h.lend(state.id(), state.liveness());
    EXPECT_EQ(h.made, 1);
  }
  EXPECT_EQ(*h.released, 0); // at the next lend, not in the stream's destructor
  (void)h.lend(1, forever);
  EXPECT_EQ(*h.released, 1);
  EXPECT_EQ(h.cache.size(), 1u);
}

TEST(LibraryHandles, TheLeastRecentlyUsedGoBeyondTheCapacity) {
  handles h;
  const auto capacity = handle_cache<stream_key, int>::capacity;
  for (std::uint64_t k = 0; k < capacity; ++k) (void)h.lend(k, forever);
  (void)h.lend(0, forever); // 1 is now the least recently used
  EXPECT_EQ(*h.released, 0);
  (void)h.lend(capacity, forever);
  EXPECT_EQ(*h.released, 1);
  EXPECT_EQ(h.cache.size(), capacity);
  const int made = h.made;
  (void)h.lend(0, forever);
  EXPECT_EQ(h.made, made);
  (void)h.lend(1, forever); // made again
  EXPECT_EQ(h.made, made + 1);
}

TEST(LibraryHandles, ALentHandleIsReleasedOnlyWhenItsLeaseEnds) {
  handles h;
  std::shared_ptr<const void> alive = std::make_shared<char>();
  {
    const handle_lease<int> lease = h.lend(7, alive);
    alive.reset(); // its stream is destroyed while the handle is in use
    (void)h.lend(8, forever);
    EXPECT_EQ(h.cache.size(), 1u);
    EXPECT_EQ(*h.released, 0);
    EXPECT_EQ(lease.get(), 1);
  }
  EXPECT_EQ(*h.released, 1);
}

TEST(LibraryHandles, OneCallerAtATimePerHandle) {
  handles h;
  std::atomic<bool> got_same{false};
  std::future<void> same, other;
  {
    const handle_lease<int> lease = h.lend(1, forever);
    // A second caller of the same key waits until this lease ends...
    same = std::async(std::launch::async, [&] {
      const handle_lease<int> second = h.lend(1, forever);
      got_same = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(got_same);
    // ...and, while it waits, other keys are lent at once.
    other = std::async(std::launch::async, [&] { (void)h.lend(2, forever); });
    EXPECT_EQ(other.wait_for(std::chrono::seconds(30)), std::future_status::ready);
    EXPECT_FALSE(got_same);
  }
  ASSERT_EQ(same.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(got_same);
  EXPECT_EQ(h.made, 2);
}

TEST(LibraryHandles, AFailedMakeKeepsTheOthers) {
  handles h;
  (void)h.lend(1, forever);
  EXPECT_THROW((void)h.cache.lend(h.key(2), h.device.state(), forever,
                                  []() -> std::unique_ptr<device_handle<int>> { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_EQ(h.cache.size(), 1u);
  (void)h.lend(1, forever);
  EXPECT_EQ(h.made, 1);
}

} // namespace
