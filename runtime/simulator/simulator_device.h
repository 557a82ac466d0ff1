// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The simulated device: device memory is host memory, streams run their work as it is
// queued, and kernels run on the CPU through the simulator. Everything a program does with
// devices works on it, without a GPU (Numba's CUDA simulator, done in C++).
#pragma once

#include <map>
#include <mutex>

#include "device/device_state.h"
#include "device/immortal.h"

namespace kernel::runtime::sim {

class simulator_device final : public detail::device_state {
public:
  static simulator_device &get();

  std::string name() const override { return "simulator"; }
  bool is_simulator() const noexcept override { return true; }
  int compute_capability() const noexcept override { return 0; }

  std::shared_ptr<detail::stream_state> create_stream() override;
  std::shared_ptr<detail::event_state> create_event() override;

  void *allocate(std::size_t bytes, detail::stream_state &s) override;
  void release(void *p, detail::stream_state &s) noexcept override;
  void copy(void *dst, const void *src, std::size_t bytes, detail::copy_direction kind,
            detail::stream_state &s) override;
  void zero(void *dst, std::size_t bytes, detail::stream_state &s) override;
  void *allocate_pinned(std::size_t bytes) override;
  void release_pinned(void *p, std::size_t bytes) noexcept override;
  void host_work(detail::stream_state &s, kernel::detail::host_task work) override;

  detail::launch_config elementwise_config(const detail::kernel_ref &k, index_t work) override;
  detail::launch_config resident_config(const detail::kernel_ref &, index_t, unsigned block) override {
    return detail::launch_config{dim3(1), dim3(block), 0};
  }
  void launch(const detail::kernel_ref &k, const detail::launch_config &config, const void *params,
              std::size_t param_size, detail::stream_state &s) override;
  void synchronize() override {}

private:
  friend class immortal<simulator_device>;
  simulator_device();
  // Device memory, for telling it from other host memory in the race checks.
  std::mutex allocations_mutex_;
  std::map<const void *, std::size_t> allocations_;
  std::size_t allocated_bytes_ = 0; // the sum of allocations_
};

} // namespace kernel::runtime::sim
