// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A CUDA GPU through the driver API: its primary context, stream-ordered memory from the
// device's default pool, a pool of page-locked staging buffers, and the kernels of the
// registered modules, linked for its architecture on first use and launched with their
// parameter block as the only kernel parameter.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/driver.h"
#include "device/device_state.h"
#include "device/immortal.h"
#include "device/launch_limits.h"
#include "kernel/detail/module_abi.h"

namespace kernel::runtime::cuda {

class cuda_device final : public detail::device_state {
public:
  /// Device `ordinal`; throws target_unavailable_error when there is none.
  static cuda_device &get(int ordinal);

  std::string name() const override { return name_; }
  bool is_simulator() const noexcept override { return false; }
  int compute_capability() const noexcept override { return compute_capability_; }

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
  bool in_host_work() const noexcept override;

  detail::launch_config elementwise_config(const detail::kernel_ref &k, index_t work) override;
  detail::launch_config resident_config(const detail::kernel_ref &k, index_t work, unsigned block) override;
  void launch(const detail::kernel_ref &k, const detail::launch_config &config, const void *params,
              std::size_t param_size, detail::stream_state &s) override;
  void synchronize() override;

  /// Makes this device's context current on the calling thread (cheap when it already is).
  void make_current() const override;
  /// Destroys a stream now, or later when called from a host function.
  void destroy_stream(CUstream s) noexcept;
  const driver &api() const noexcept { return drv_; }

private:
  friend class immortal<cuda_device>;
  explicit cuda_device(int ordinal);

  struct loaded_kernel {
    CUfunction function = nullptr;
    int block_size = 0; // what the occupancy calculator suggests
    int full_grid = 0;  // blocks that fill every SM at that block size
    // resident_config's last answer: the block size (high 32 bits) and the blocks of it that
    // every SM holds at once. Shared by the copies of this record.
    std::shared_ptr<std::atomic<std::uint64_t>> resident = std::make_shared<std::atomic<std::uint64_t>>(0);
    // Dynamic shared memory the kernel may use so far: raised with cuFuncSetAttribute once per
    // new maximum, not at every launch. Shared by the copies of this record.
    std::shared_ptr<std::atomic<int>> max_dynamic_shared = std::make_shared<std::atomic<int>>(0);
    // The device's, with this kernel's threads per block and static shared memory.
    launch_limits limits;
    // Where Numba-convention CUDA-C calls record a failure; 0 when the kernel's module has none.
    CUdeviceptr status = 0;
    std::mutex *status_mutex = nullptr; // the module's; see loaded_module
    const ::kernel_module *module = nullptr;
  };
  // Host functions queued on a stream (host_work) must not call the driver, but what they
  // hold may be the last reference to device memory or a stream: those are released later,
  // by the next call into this device from an ordinary thread.
  void release_deferred() noexcept;
  /// Queues `item` on `pending` when called from a host function; false otherwise.
  template <class T> bool defer_in_host_function(std::vector<T> &pending, T item) noexcept;

  void check_device_status(const loaded_kernel &k, const detail::kernel_ref &ref, detail::stream_state &s);
  const loaded_kernel &kernel_for(const detail::kernel_ref &k);
  const loaded_kernel &kernel_for_locked(const detail::kernel_ref &k);
  struct loaded_module {
    CUmodule module = nullptr;
    CUdeviceptr status = 0; // __kernel_device_status, when the module calls Numba-convention code
    // Held from a launch of one of the module's kernels until its status is read: the status
    // is one device global, so launches on other streams must not interleave with it.
    std::shared_ptr<std::mutex> status_mutex = std::make_shared<std::mutex>();
  };
  loaded_module &load_module(const ::kernel_module &m, const std::string &what);
  const loaded_kernel &load_kernel(const ::kernel_entry &e, const ::kernel_module &m, const loaded_module &module);

  const driver &drv_;
  int ordinal_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  int compute_capability_ = 0;
  int multiprocessors_ = 0;
  launch_limits limits_;
  std::string name_;

  std::mutex kernels_mutex_;
  std::unordered_map<const void *, loaded_kernel> kernels_;
  std::uint64_t kernels_generation_ = 0; // the registry's, when kernels_ was last checked
  std::unordered_map<std::string, loaded_module> modules_;

  std::mutex deferred_mutex_;
  std::atomic<bool> has_deferred_{false};
  std::vector<CUdeviceptr> deferred_frees_;
  std::vector<CUstream> deferred_streams_;

  // Page-locked staging buffers, by size class. Released buffers return here from host
  // callbacks, which must not call the driver; they are freed only at exit.
  std::mutex pinned_mutex_;
  std::multimap<std::size_t, void *> pinned_free_;
};

} // namespace kernel::runtime::cuda
