// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "simulator/simulator_device.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>

#include "device/immortal.h"
#include "kernel/errors.h"
#include "registry/registry.h"
#include "settings/environment.h"
#include "simulator/simulator.h"

namespace kernel::runtime::sim {

namespace {

// Work runs when it is queued, so a stream is always idle.
class simulator_stream final : public detail::stream_state {
public:
  using stream_state::stream_state;
  void synchronize() override {}
  bool query() override { return true; }
  void wait(detail::event_state &) override {}
  void *native() noexcept override { return nullptr; }
};

class simulator_event final : public detail::event_state {
public:
  void record(detail::stream_state &) override { time_ = std::chrono::steady_clock::now(); }
  void synchronize() override {}
  bool query() override { return true; }
  float elapsed_ms(detail::event_state &start) override {
    auto &s = static_cast<simulator_event &>(start);
    return std::chrono::duration<float, std::milli>(time_ - s.time_).count();
  }

private:
  std::chrono::steady_clock::time_point time_ = std::chrono::steady_clock::now();
};

// As cudaMalloc: aligned to 256 bytes.
constexpr std::align_val_t device_alignment{256};

} // namespace

simulator_device &simulator_device::get() {
  static immortal<simulator_device> d; // device arrays in static objects free into it at exit
  return d.get();
}

simulator_device::simulator_device() { default_stream_ = std::make_shared<simulator_stream>(*this); }

std::shared_ptr<detail::stream_state> simulator_device::create_stream() {
  return std::make_shared<simulator_stream>(*this);
}

std::shared_ptr<detail::event_state> simulator_device::create_event() { return std::make_shared<simulator_event>(); }

namespace {
// KERNEL_SIMULATOR_MEMORY_MB: the simulated device's memory, so that a program's handling of a
// full GPU can be tried without one; unset, the host's.
std::optional<std::size_t> memory_limit() {
  // No more MiB than a size_t counts in bytes.
  constexpr std::uint64_t max_mb = std::numeric_limits<std::size_t>::max() >> 20;
  const auto mb = whole_number_setting("KERNEL_SIMULATOR_MEMORY_MB", 0, max_mb, "the simulated device's memory in MiB");
  if (!mb) return std::nullopt;
  return static_cast<std::size_t>(*mb) << 20;
}

kernel::cuda_error out_of_memory(std::size_t bytes, const std::string &why) {
  // As CUDA says it (CUDA_ERROR_OUT_OF_MEMORY), so that callers handle both alike.
  return kernel::cuda_error("allocating " + std::to_string(bytes) + " bytes on the simulator: out of memory (" + why +
                                ")",
                            kernel::cuda_error::out_of_memory_code);
}
} // namespace

void *simulator_device::allocate(std::size_t bytes, detail::stream_state &) {
  const std::optional<std::size_t> limit = memory_limit();
  std::lock_guard lock(allocations_mutex_);
  if (limit && bytes > *limit - std::min(*limit, allocated_bytes_))
    throw out_of_memory(bytes, std::to_string(allocated_bytes_) +
                                   " bytes in use of KERNEL_SIMULATOR_MEMORY_MB=" + std::to_string(*limit >> 20));
  void *p = nullptr;
  try {
    p = ::operator new(bytes, device_alignment);
  } catch (const std::bad_alloc &) {
    // The simulated device's memory is the host's: when that is full the program sees what a
    // full GPU gives it, not a std::bad_alloc it would never get from one.
    throw out_of_memory(bytes, std::to_string(allocated_bytes_) +
                                   " bytes in use; the simulated device's memory is the host's, which is full");
  }
  allocations_.emplace(p, bytes);
  allocated_bytes_ += bytes;
  return p;
}

void simulator_device::release(void *p, detail::stream_state &) noexcept {
  {
    std::lock_guard lock(allocations_mutex_);
    if (auto it = allocations_.find(p); it != allocations_.end()) {
      allocated_bytes_ -= it->second;
      allocations_.erase(it);
    }
  }
  ::operator delete(p, device_alignment);
}

void simulator_device::copy(void *dst, const void *src, std::size_t bytes, detail::copy_direction,
                            detail::stream_state &) {
  std::memmove(dst, src, bytes);
}

void simulator_device::zero(void *dst, std::size_t bytes, detail::stream_state &) { std::memset(dst, 0, bytes); }

void *simulator_device::allocate_pinned(std::size_t bytes) {
  try {
    return ::operator new(bytes, device_alignment);
  } catch (const std::bad_alloc &) {
    throw out_of_memory(bytes, "pinned host memory: the host's memory is full");
  }
}

void simulator_device::release_pinned(void *p, std::size_t) noexcept { ::operator delete(p, device_alignment); }

void simulator_device::host_work(detail::stream_state &, kernel::detail::host_task work) { work(); }

detail::launch_config simulator_device::elementwise_config(const detail::kernel_ref &, index_t) {
  // One simulated thread walks the whole grid-stride loop: the same kernel code and
  // parameter block as on a GPU, without thousands of host calls per element.
  return detail::launch_config{dim3(1), dim3(1), 0};
}

void simulator_device::launch(const detail::kernel_ref &k, const detail::launch_config &config, const void *params,
                              std::size_t, detail::stream_state &) {
  const kernel_entry *registered = nullptr;
  if (auto found = registry::instance().find(k.host_key)) registered = found->entry;
  std::vector<allocation> global;
  {
    std::lock_guard lock(allocations_mutex_);
    for (const auto &[p, bytes] : allocations_) global.push_back({reinterpret_cast<std::uintptr_t>(p), bytes});
  }
  run(k, params, config, registered, std::move(global));
}

} // namespace kernel::runtime::sim
