// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The streams alive in the process, by id (kernel/detail/device_api.h's live_stream).
//
// A callable placed on a stream (`f.on(s)`) is a small constant object that copies freely, so
// it holds the stream's id rather than a handle; when every handle to the stream is gone (`s`
// reassigned, or destroyed), its address would dangle, where its id is simply not found.
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "device/device_state.h"
#include "device/immortal.h"
#include "kernel/detail/device_api.h"

namespace kernel::detail {

namespace {
struct live_streams {
  std::mutex lock;
  std::unordered_map<std::uint64_t, stream_state *> by_id;
};

// Immortal: streams of static objects are destroyed while the program exits.
live_streams &streams() {
  static runtime::immortal<live_streams> s;
  return s.get();
}
} // namespace

void note_live_stream(stream_state &s) {
  live_streams &l = streams();
  std::lock_guard guard(l.lock);
  l.by_id.emplace(s.id(), &s);
}

void forget_live_stream(std::uint64_t id) noexcept {
  live_streams &l = streams();
  std::lock_guard guard(l.lock);
  l.by_id.erase(id);
}

std::uint64_t stream_id(const stream_state &s) noexcept { return s.id(); }

std::shared_ptr<stream_state> live_stream(std::uint64_t id) noexcept {
  live_streams &l = streams();
  std::lock_guard guard(l.lock);
  const auto found = l.by_id.find(id);
  // A stream whose last handle is going is still listed until its destructor forgets it, and
  // its weak reference is then expired: it counts as gone.
  return found == l.by_id.end() ? nullptr : found->second->weak_from_this().lock();
}

} // namespace kernel::detail
