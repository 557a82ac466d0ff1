// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the math libraries make on a device and the runtime keeps between calls: cuFFT plans,
// cuBLAS and cuSPARSE handles. Each holds device memory (a work area) that its calls use
// and a stream setting, so one is never shared by two streams: they are cached per key
// (library, device, stream id and whatever else shapes them) and lent to one caller at a
// time, from setting its stream to queuing its last call. Lending takes the cache's lock
// only to find the handle, so a call that waits for its result (a cuBLAS dot in host
// pointer mode) holds up only later calls on its own stream.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "device/device_state.h"

namespace kernel::runtime::cuda {

/// The key of a handle per library, device and stream (cuBLAS's and cuSPARSE's handles).
struct stream_key {
  const void *library;
  const detail::device_state *device;
  std::uint64_t stream;
  bool operator<(const stream_key &o) const noexcept {
    return std::tie(library, device, stream) < std::tie(o.library, o.device, o.stream);
  }
};

/// One plan or handle: `release` frees it, with its device current, when its owner goes.
template <class Handle> class device_handle {
public:
  device_handle(Handle h, const detail::device_state &device, std::function<void(Handle)> release)
      : handle_(h), device_(device), release_(std::move(release)) {}
  device_handle(const device_handle &) = delete;
  device_handle &operator=(const device_handle &) = delete;
  ~device_handle() {
    try {
      device_.make_current();
    } catch (...) {
      return; // the driver is gone, and the handle with it
    }
    release_(handle_);
  }
  Handle get() const noexcept { return handle_; }

private:
  Handle handle_;
  const detail::device_state &device_;
  std::function<void(Handle)> release_;
};

namespace handles_detail {

template <class Handle> struct slot {
  explicit slot(std::unique_ptr<device_handle<Handle>> h) : handle(std::move(h)) {}
  std::unique_ptr<device_handle<Handle>> handle;
  std::mutex in_use;
};

} // namespace handles_detail

/// A handle lent to one caller: no other caller gets it until the lease ends. A handle the
/// cache drops meanwhile (least recently used, or its stream destroyed) is released when
/// the lease ends, with its device current.
template <class Handle> class handle_lease {
public:
  explicit handle_lease(std::shared_ptr<handles_detail::slot<Handle>> s)
      : slot_(std::move(s)), in_use_(slot_->in_use) {}
  handle_lease(handle_lease &&) noexcept = default;
  // Assigning would drop the slot before unlocking its mutex.
  handle_lease &operator=(handle_lease &&) = delete;
  Handle get() const noexcept { return slot_->handle->get(); }

private:
  std::shared_ptr<handles_detail::slot<Handle>> slot_; // declared first: outlives the lock
  std::unique_lock<std::mutex> in_use_;
};

/// The handles made so far, per Key: those of destroyed streams are released at the next
/// lease, and the least recently used beyond `capacity`.
template <class Key, class Handle> class handle_cache {
public:
  static constexpr std::size_t capacity = 64;

  /// The handle for `key`, made by `make()` (which returns a device_handle<Handle>) when there
  /// is none, lent until the lease ends; `device` is current and is current again on return.
  /// `stream` expires with the stream the handle is for. A failing `make` throws and keeps
  /// the handles made before.
  template <class Make>
  handle_lease<Handle> lend(const Key &key, const detail::device_state &device, std::weak_ptr<const void> stream,
                            Make &&make) {
    // Dropped handles are released here, after the lock, unless a caller still holds one.
    std::vector<std::shared_ptr<handles_detail::slot<Handle>>> dropped;
    std::shared_ptr<handles_detail::slot<Handle>> found;
    {
      std::lock_guard guard(lock_);
      const std::uint64_t now = ++clock_;
      for (auto i = handles_.begin(); i != handles_.end();) {
        if (i->second.stream.expired()) {
          dropped.push_back(std::move(i->second.slot));
          i = handles_.erase(i);
        } else {
          ++i;
        }
      }
      if (auto i = handles_.find(key); i != handles_.end()) {
        i->second.used = now;
        found = i->second.slot;
      } else {
        found = std::make_shared<handles_detail::slot<Handle>>(make());
        if (handles_.size() >= capacity) {
          const auto oldest = std::min_element(handles_.begin(), handles_.end(), [](const auto &a, const auto &b) {
            return a.second.used < b.second.used;
          });
          dropped.push_back(std::move(oldest->second.slot));
          handles_.erase(oldest);
        }
        handles_.emplace(key, entry{found, std::move(stream), now});
      }
    }
    if (!dropped.empty()) {
      // Releasing frees a work area (cudaFree waits for the work using it) with the handle's
      // device current, which may be another.
      dropped.clear();
      device.make_current();
    }
    return handle_lease<Handle>(std::move(found));
  }

  /// How many handles are kept.
  std::size_t size() {
    std::lock_guard guard(lock_);
    return handles_.size();
  }

private:
  struct entry {
    std::shared_ptr<handles_detail::slot<Handle>> slot;
    std::weak_ptr<const void> stream;
    std::uint64_t used;
  };
  std::mutex lock_;
  std::map<Key, entry> handles_;
  std::uint64_t clock_ = 0;
};

/// The process's cache for one kind of handle. Never destroyed: at exit, the CUDA runtime
/// inside a math library may be torn down before a static cache would be, and the driver
/// frees what the handles hold with the process.
template <class Key, class Handle> handle_cache<Key, Handle> &process_handle_cache() {
  static handle_cache<Key, Handle> &cache = *std::make_unique<handle_cache<Key, Handle>>().release();
  return cache;
}

} // namespace kernel::runtime::cuda
