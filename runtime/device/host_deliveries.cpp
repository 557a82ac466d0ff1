// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Results on their way to host memory (kernel/detail/device_api.h's deliver_to_host), and
// reads of host memory that wait for them (await_host_writes).
//
// A call on a stream that writes a host array leaves its result in a staging buffer until
// the stream reaches the host work that copies it out, while the call's host side returns at
// once; a later call staging the same array as its input copies it on the host, at once. On
// the simulator every call is done before it returns, but a GPU still runs the first call:
// the second read the array as it was before (two launches incrementing one host array on a
// stream added one). Readers of host memory wait for the deliveries into it instead, which
// puts them in the order the program wrote.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "device/device_state.h"
#include "device/immortal.h"
#include "kernel/detail/device_api.h"

namespace kernel::detail {

namespace {

struct delivery {
  std::uintptr_t begin, end;
  std::uint64_t id;
  std::shared_ptr<stream_state> stream; ///< to ask, while waiting, whether it failed
};

/// The deliveries queued and not yet written. `pending` lets readers skip the lock while
/// there are none: the common case, where no call on a stream writes host memory.
struct delivery_registry {
  std::mutex lock;
  std::condition_variable written;
  std::vector<delivery> queued;
  std::atomic<std::uint64_t> next_id{0};
  std::atomic<std::size_t> pending{0};
};

// Immortal: a delivery may run, and a host array be read, while the program exits.
delivery_registry &registry() {
  static runtime::immortal<delivery_registry> r;
  return r.get();
}

/// Drops the delivery `id` (written, or never to be) and wakes the readers waiting.
void forget(std::uint64_t id) noexcept {
  delivery_registry &r = registry();
  std::shared_ptr<stream_state> stream; // let go after the lock: it may be the stream's last handle
  {
    std::lock_guard guard(r.lock);
    if (const auto found = std::ranges::find(r.queued, id, &delivery::id); found != r.queued.end()) {
      stream = std::move(found->stream);
      r.queued.erase(found);
    }
    r.pending.store(r.queued.size(), std::memory_order_release);
  }
  r.written.notify_all();
}

bool overlaps(const delivery &d, std::uintptr_t begin, std::uintptr_t end) noexcept {
  return d.begin < end && begin < d.end;
}

/// Forgets its delivery when destroyed: once written, or if the delivery never runs (the work
/// could not be queued, or the stream dropped it), the task's destruction always happens.
struct forget_when_done {
  std::uint64_t id;
  explicit forget_when_done(std::uint64_t delivery) noexcept : id(delivery) {}
  forget_when_done(const forget_when_done &) = delete;
  forget_when_done &operator=(const forget_when_done &) = delete;
  ~forget_when_done() { forget(id); }
};

/// Waits for the deliveries into memory overlapping [begin, end), except those queued on
/// `except` (whose order its stream keeps).
void await_deliveries(const void *begin, const void *end, const stream_state *except) {
  delivery_registry &r = registry();
  if (r.pending.load(std::memory_order_acquire) == 0 || begin == end) return;
  const auto b = reinterpret_cast<std::uintptr_t>(begin), e = reinterpret_cast<std::uintptr_t>(end);
  constexpr auto check_every = std::chrono::milliseconds(20);
  auto next_check = std::chrono::steady_clock::now() + check_every;
  std::unique_lock guard(r.lock);
  for (;;) {
    std::vector<std::pair<std::uint64_t, std::shared_ptr<stream_state>>> waited;
    for (const delivery &d : r.queued)
      if (overlaps(d, b, e) && d.stream.get() != except) waited.emplace_back(d.id, d.stream);
    if (waited.empty()) return;
    if (r.written.wait_until(guard, next_check) == std::cv_status::no_timeout) continue;
    next_check = std::chrono::steady_clock::now() + check_every;
    // A stream that failed (a kernel's illegal address ends the context) never runs its
    // deliveries: the read reports the failure (once: the delivery is dropped) instead of
    // waiting for ever. A stream with nothing left to run that still has one listed dropped
    // it unrun: nothing is coming.
    guard.unlock();
    for (auto &[id, stream] : waited) {
      bool idle = false;
      try {
        idle = stream->query();
      } catch (...) {
        forget(id);
        throw;
      }
      if (idle) forget(id);
    }
    guard.lock();
  }
}

} // namespace

void deliver_to_host(stream_state &s, const void *begin, const void *end, host_task deliver) {
  delivery_registry &r = registry();
  // After the deliveries other streams have queued into the same memory: else one from an
  // earlier call could land after this one (a call on another stream writes it last). The
  // copy into this delivery's staging is already queued: a failure of the other stream is
  // reported after this delivery is queued, which keeps its staging alive until the copy is
  // done.
  std::exception_ptr other_stream_failed;
  try {
    await_deliveries(begin, end, &s);
  } catch (...) {
    other_stream_failed = std::current_exception();
  }
  std::shared_ptr<stream_state> stream = shared_stream(s);
  const std::uint64_t id = r.next_id.fetch_add(1, std::memory_order_relaxed);
  // Made before the delivery is listed, so that whatever fails after the listing forgets it.
  auto done = std::make_shared<forget_when_done>(id);
  {
    std::lock_guard guard(r.lock);
    r.queued.push_back(
        {reinterpret_cast<std::uintptr_t>(begin), reinterpret_cast<std::uintptr_t>(end), id, std::move(stream)});
    r.pending.store(r.queued.size(), std::memory_order_release);
  }
  host_work(s, [deliver = std::move(deliver), done = std::move(done)] { deliver(); });
  if (other_stream_failed) std::rethrow_exception(other_stream_failed);
}

bool host_deliveries_pending() noexcept { return registry().pending.load(std::memory_order_acquire) != 0; }

void await_host_writes(const void *begin, const void *end) { await_deliveries(begin, end, nullptr); }

void await_other_streams_writes(const stream_state &s, const void *begin, const void *end) {
  await_deliveries(begin, end, &s);
}

} // namespace kernel::detail
