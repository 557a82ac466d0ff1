// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the math libraries make on a device and the runtime keeps between calls: cuFFT plans,
// cuBLAS and cuSPARSE handles. Each holds device memory (a work area) that its calls use
// and a stream setting, so one is never shared by two streams: they are cached per key
// (library, device, stream id and whatever else shapes them), and the caller holds the
// cache's lock from getting one to queuing its last call on it.
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

/// The handles made so far, per Key, the least recently used released beyond `capacity`.
template <class Key, class Handle> class handle_cache {
public:
  static constexpr std::size_t capacity = 64;

  /// The handle for `key`, made by `make()` (which returns a device_handle<Handle>) when there
  /// is none; the caller holds `lock`, and `device` is current. A failing `make` throws and
  /// keeps the handles made before.
  template <class Make> Handle get(const Key &key, const detail::device_state &device, Make &&make) {
    const std::uint64_t now = ++clock_;
    auto found = handles_.find(key);
    if (found != handles_.end()) {
      found->second.used = now;
      return found->second.handle->get();
    }
    std::unique_ptr<device_handle<Handle>> made = make();
    const Handle h = made->get();
    if (handles_.size() >= capacity) {
      // Releasing frees a work area (cudaFree waits for the work using it) with its device
      // current, which may be another.
      handles_.erase(std::min_element(handles_.begin(), handles_.end(),
                                      [](const auto &a, const auto &b) { return a.second.used < b.second.used; }));
      device.make_current();
    }
    handles_.emplace(key, entry{std::move(made), now});
    return h;
  }

  std::mutex lock;

private:
  struct entry {
    std::unique_ptr<device_handle<Handle>> handle;
    std::uint64_t used;
  };
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
