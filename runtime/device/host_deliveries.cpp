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
#include <memory>
#include <mutex>
#include <vector>

#include "device/device_state.h"
#include "device/immortal.h"
#include "kernel/detail/device_api.h"

namespace kernel::detail {

namespace {

struct delivery {
  std::uintptr_t begin, end;
  std::uint64_t id;
  std::weak_ptr<stream_state> stream; ///< to ask, while waiting, whether it failed
};

/// The deliveries queued and not yet written. `pending` lets readers skip the lock while
/// there are none: the common case, where no call on a stream writes host memory.
struct delivery_registry {
  std::mutex lock;
  std::condition_variable written;
  std::vector<delivery> queued;
  std::uint64_t next_id = 0;
  std::atomic<std::size_t> pending{0};
};

// Immortal: a delivery may run, and a host array be read, while the program exits.
delivery_registry &registry() {
  static runtime::immortal<delivery_registry> r;
  return r.get();
}

void forget(std::uint64_t id) noexcept {
  delivery_registry &r = registry();
  {
    std::lock_guard guard(r.lock);
    std::erase_if(r.queued, [id](const delivery &d) { return d.id == id; });
    r.pending.store(r.queued.size(), std::memory_order_release);
  }
  r.written.notify_all();
}

bool overlaps(const delivery &d, std::uintptr_t begin, std::uintptr_t end) noexcept {
  return d.begin < end && begin < d.end;
}

} // namespace

void deliver_to_host(stream_state &s, const void *begin, const void *end, host_task deliver) {
  delivery_registry &r = registry();
  std::uint64_t id = 0;
  {
    std::lock_guard guard(r.lock);
    id = r.next_id++;
    r.queued.push_back(
        {reinterpret_cast<std::uintptr_t>(begin), reinterpret_cast<std::uintptr_t>(end), id, shared_stream(s)});
    r.pending.store(r.queued.size(), std::memory_order_release);
  }
  // Forgotten once written, or if the delivery never runs (the work could not be queued, or
  // the stream dropped it): the task's destruction is the one thing that always happens.
  struct forget_when_done {
    std::uint64_t id;
    explicit forget_when_done(std::uint64_t delivery) noexcept : id(delivery) {}
    forget_when_done(const forget_when_done &) = delete;
    forget_when_done &operator=(const forget_when_done &) = delete;
    ~forget_when_done() { forget(id); }
  };
  auto done = std::make_shared<forget_when_done>(id);
  host_work(s, [deliver = std::move(deliver), done = std::move(done)] { deliver(); });
}

void await_host_writes(const void *begin, const void *end) {
  delivery_registry &r = registry();
  if (r.pending.load(std::memory_order_acquire) == 0 || begin == end) return;
  const auto b = reinterpret_cast<std::uintptr_t>(begin), e = reinterpret_cast<std::uintptr_t>(end);
  std::unique_lock guard(r.lock);
  for (;;) {
    std::vector<std::weak_ptr<stream_state>> streams;
    for (const delivery &d : r.queued)
      if (overlaps(d, b, e)) streams.push_back(d.stream);
    if (streams.empty()) return;
    if (r.written.wait_for(guard, std::chrono::milliseconds(20)) == std::cv_status::no_timeout) continue;
    // A stream that failed (a kernel's illegal address ends the context) never runs the
    // delivery: its query throws the failure, which this read then reports instead of hanging.
    guard.unlock();
    for (const std::weak_ptr<stream_state> &w : streams)
      if (const std::shared_ptr<stream_state> s = w.lock()) (void)s->query();
    guard.lock();
  }
}

} // namespace kernel::detail
