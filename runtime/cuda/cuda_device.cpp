// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/cuda_device.h"
#include "device/immortal.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>

#include "cache/cubin_cache.h"
#include "cuda/module_builder.h"
#include "kernel/errors.h"
#include "registry/registry.h"

namespace kernel::runtime::cuda {

namespace {

// True on the driver's thread while it runs a host function queued by host_work.
thread_local bool in_host_function = false;

class cuda_stream final : public detail::stream_state {
public:
  // `owned` is false for the legacy default stream (handle 0), which is never destroyed.
  cuda_stream(cuda_device &device, CUstream handle, bool owned)
      : stream_state(device), device_(device), handle_(handle), owned_(owned) {}
  ~cuda_stream() override {
    if (owned_) device_.destroy_stream(handle_);
  }
  void synchronize() override {
    device_.make_current();
    device_.api().check(device_.api().cuStreamSynchronize(handle_), "cuStreamSynchronize", device_.name());
  }
  bool query() override {
    device_.make_current();
    const CUresult r = device_.api().cuStreamQuery(handle_);
    if (r == CUDA_ERROR_NOT_READY) return false;
    device_.api().check(r, "cuStreamQuery", device_.name());
    return true;
  }
  void wait(detail::event_state &e) override;
  void *native() noexcept override { return handle_; }
  CUstream handle() const noexcept { return handle_; }

private:
  cuda_device &device_;
  CUstream handle_;
  bool owned_;
};

class cuda_event final : public detail::event_state {
public:
  explicit cuda_event(cuda_device &device) : device_(device) {
    device_.make_current();
    device_.api().check(device_.api().cuEventCreate(&handle_, CU_EVENT_DEFAULT), "cuEventCreate", device_.name());
  }
  ~cuda_event() override {
    // A destructor must not throw: when the context cannot be made current (a driver failing
    // at exit), the event goes with the context.
    try {
      device_.make_current();
    } catch (...) {
      return;
    }
    device_.api().cuEventDestroy(handle_);
  }
  void record(detail::stream_state &s) override {
    device_.make_current();
    device_.api().check(device_.api().cuEventRecord(handle_, static_cast<cuda_stream &>(s).handle()), "cuEventRecord",
                        device_.name());
  }
  void synchronize() override {
    device_.make_current();
    device_.api().check(device_.api().cuEventSynchronize(handle_), "cuEventSynchronize", device_.name());
  }
  bool query() override {
    device_.make_current();
    const CUresult r = device_.api().cuEventQuery(handle_);
    if (r == CUDA_ERROR_NOT_READY) return false;
    device_.api().check(r, "cuEventQuery", device_.name());
    return true;
  }
  float elapsed_ms(detail::event_state &start) override {
    float ms = 0;
    device_.make_current();
    device_.api().check(device_.api().cuEventElapsedTime(&ms, static_cast<cuda_event &>(start).handle_, handle_),
                        "cuEventElapsedTime", device_.name());
    return ms;
  }
  CUevent handle() const noexcept { return handle_; }

private:
  cuda_device &device_;
  CUevent handle_ = nullptr;
};

void cuda_stream::wait(detail::event_state &e) {
  device_.make_current();
  device_.api().check(device_.api().cuStreamWaitEvent(handle_, static_cast<cuda_event &>(e).handle(), 0),
                      "cuStreamWaitEvent", device_.name());
}

CUstream handle_of(detail::stream_state &s) { return static_cast<cuda_stream &>(s).handle(); }

// Staging buffers come in powers of two from 64 KiB, so that they are reused across calls
// of similar sizes.
std::size_t size_class(std::size_t bytes) { return std::bit_ceil(std::max<std::size_t>(bytes, std::size_t{1} << 16)); }

std::string human_bytes(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 30)) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (std::size_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

} // namespace

cuda_device &cuda_device::get(int ordinal) {
  const driver &drv = driver::get();
  if (!drv.available()) throw target_unavailable_error(drv.unavailable_reason());
  if (ordinal < 0 || ordinal >= drv.device_count())
    throw target_unavailable_error("there is no CUDA device " + std::to_string(ordinal) + ": this machine has " +
                                   std::to_string(drv.device_count()));
  // Devices are created once and never destroyed: kernels and memory refer to them, also
  // device arrays in static objects, which free their memory while the program exits.
  static std::mutex mutex;
  static immortal<std::map<int, immortal<cuda_device>>> devices;
  std::lock_guard lock(mutex);
  auto [at, made] = devices.get().try_emplace(ordinal, ordinal);
  return at->second.get();
}

cuda_device::cuda_device(int ordinal) : drv_(driver::get()), ordinal_(ordinal) {
  drv_.check(drv_.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  char name[256] = {};
  drv_.check(drv_.cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName");
  auto attribute = [&](CUdevice_attribute a) {
    int v = 0;
    drv_.check(drv_.cuDeviceGetAttribute(&v, a, device_), "cuDeviceGetAttribute");
    return v;
  };
  compute_capability_ = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) * 10 +
                        attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  multiprocessors_ = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  // What launches of any kernel may have; each kernel adds its own limits as it loads.
  limits_.threads_limited_by = "this kernel";
  limits_.dimensions_limited_by = "the device";
  limits_.block[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  limits_.block[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  limits_.block[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  limits_.grid[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  limits_.grid[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  limits_.grid[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  limits_.shared_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  name_ = "cuda:" + std::to_string(ordinal) + " (" + name + ", sm_" + std::to_string(compute_capability_) + ")";

  drv_.check(drv_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain", name_);
  make_current();
  // Keep freed device memory in the pool instead of returning it to the driver, so that
  // stream-ordered allocations in a loop cost no system calls.
  CUmemoryPool pool = nullptr;
  if (drv_.cuDeviceGetDefaultMemPool(&pool, device_) == CUDA_SUCCESS) {
    cuuint64_t threshold = std::numeric_limits<cuuint64_t>::max();
    drv_.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
  }
  default_stream_ = std::make_shared<cuda_stream>(*this, CU_STREAM_LEGACY, /*owned=*/false);
}

void cuda_device::make_current() const {
  // The context each host thread last made current; switching is rare (one per device).
  thread_local CUcontext current = nullptr;
  if (current != context_) {
    drv_.check(drv_.cuCtxSetCurrent(context_), "cuCtxSetCurrent", name_);
    current = context_;
  }
}

std::shared_ptr<detail::stream_state> cuda_device::create_stream() {
  make_current();
  release_deferred();
  CUstream s = nullptr;
  drv_.check(drv_.cuStreamCreate(&s, CU_STREAM_DEFAULT), "cuStreamCreate", name_);
  return std::make_shared<cuda_stream>(*this, s, /*owned=*/true);
}

std::shared_ptr<detail::event_state> cuda_device::create_event() { return std::make_shared<cuda_event>(*this); }

void *cuda_device::allocate(std::size_t bytes, detail::stream_state &s) {
  make_current();
  release_deferred();
  CUdeviceptr p = 0;
  drv_.check(drv_.cuMemAllocAsync(&p, bytes, handle_of(s)), "cuMemAllocAsync",
             "allocating " + human_bytes(bytes) + " on " + name_);
  return reinterpret_cast<void *>(p);
}

template <class T> bool cuda_device::defer_in_host_function(std::vector<T> &pending, T item) noexcept {
  if (!in_host_function) return false;
  std::lock_guard lock(deferred_mutex_);
  pending.push_back(item);
  has_deferred_.store(true, std::memory_order_release);
  return true;
}

void cuda_device::release(void *p, detail::stream_state &s) noexcept {
  if (defer_in_host_function(deferred_frees_, reinterpret_cast<CUdeviceptr>(p))) return;
  // At exit the driver may already be shut down; nothing is left to free then.
  try {
    make_current();
  } catch (...) {
    return;
  }
  drv_.cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(p), handle_of(s));
}

void cuda_device::destroy_stream(CUstream s) noexcept {
  if (defer_in_host_function(deferred_streams_, s)) return;
  try {
    make_current();
  } catch (...) {
    return;
  }
  drv_.cuStreamDestroy(s);
}

void cuda_device::release_deferred() noexcept {
  if (!has_deferred_.load(std::memory_order_acquire)) return;
  std::vector<CUdeviceptr> frees;
  std::vector<CUstream> streams;
  {
    std::lock_guard lock(deferred_mutex_);
    frees.swap(deferred_frees_);
    streams.swap(deferred_streams_);
    has_deferred_.store(false, std::memory_order_relaxed);
  }
  // The host function ran after all earlier work of its stream, so that work no longer uses
  // the memory; the legacy stream orders the free after work queued since on any stream.
  for (CUdeviceptr p : frees) drv_.cuMemFreeAsync(p, CU_STREAM_LEGACY);
  for (CUstream st : streams) drv_.cuStreamDestroy(st);
}

void cuda_device::copy(void *dst, const void *src, std::size_t bytes, detail::copy_direction kind,
                       detail::stream_state &s) {
  make_current();
  CUstream h = handle_of(s);
  switch (kind) {
  case detail::copy_direction::host_to_device:
    drv_.check(drv_.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src, bytes, h), "cuMemcpyHtoDAsync",
               "copying " + human_bytes(bytes) + " to " + name_);
    return;
  case detail::copy_direction::device_to_host:
    drv_.check(drv_.cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src), bytes, h), "cuMemcpyDtoHAsync",
               "copying " + human_bytes(bytes) + " from " + name_);
    return;
  case detail::copy_direction::device_to_device:
    drv_.check(drv_.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), bytes, h),
               "cuMemcpyDtoDAsync", "copying " + human_bytes(bytes) + " on " + name_);
    return;
  }
}

void cuda_device::zero(void *dst, std::size_t bytes, detail::stream_state &s) {
  make_current();
  drv_.check(drv_.cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(dst), 0, bytes, handle_of(s)), "cuMemsetD8Async",
             "zeroing " + human_bytes(bytes) + " on " + name_);
}

void *cuda_device::allocate_pinned(std::size_t bytes) {
  const std::size_t cls = size_class(bytes);
  {
    std::lock_guard lock(pinned_mutex_);
    if (auto it = pinned_free_.find(cls); it != pinned_free_.end()) {
      void *p = it->second;
      pinned_free_.erase(it);
      return p;
    }
  }
  make_current();
  void *p = nullptr;
  drv_.check(drv_.cuMemHostAlloc(&p, cls, 0), "cuMemHostAlloc", "page-locking " + human_bytes(cls) + " for transfers");
  return p;
}

void cuda_device::release_pinned(void *p, std::size_t bytes) noexcept {
  std::lock_guard lock(pinned_mutex_);
  pinned_free_.emplace(size_class(bytes), p);
}

void cuda_device::host_work(detail::stream_state &s, kernel::detail::host_task work) {
  make_current();
  auto task = std::make_unique<kernel::detail::host_task>(std::move(work));
  const CUresult r = drv_.cuLaunchHostFunc(
      handle_of(s),
      [](void *data) {
        std::unique_ptr<kernel::detail::host_task> t(static_cast<kernel::detail::host_task *>(data));
        in_host_function = true;
        (*t)();
        t.reset(); // what the work captured is released here, still flagged
        in_host_function = false;
      },
      task.get());
  drv_.check(r, "cuLaunchHostFunc", name_); // on failure the task is freed here
  (void)task.release();                     // else the host function owns it
}

bool cuda_device::in_host_work() const noexcept { return in_host_function; }

void cuda_device::synchronize() {
  make_current();
  drv_.check(drv_.cuCtxSynchronize(), "cuCtxSynchronize", name_);
  release_deferred();
}

cuda_device::loaded_module &cuda_device::load_module(const ::kernel_module &m, const std::string &what) {
  if (auto it = modules_.find(m.hash); it != modules_.end()) return it->second;
  built_module built = build_cubin(m, compute_capability_, cubin_cache::process(), drv_.version(), what);
  make_current();
  loaded_module loaded;
  drv_.check(drv_.cuModuleLoadData(&loaded.module, built.cubin.data()), "cuModuleLoadData",
             what + " on " + name_ + " (PTX for " + built.ptx_arch + ")");
  for (uint32_t i = 0; i < m.num_externals; ++i)
    if (std::string_view(m.externals[i].abi) == "numba") {
      size_t bytes = 0;
      drv_.check(drv_.cuModuleGetGlobal(&loaded.status, &bytes, loaded.module, "__kernel_device_status"),
                 "cuModuleGetGlobal", what + " on " + name_);
      break;
    }
  return modules_.emplace(m.hash, loaded).first->second;
}

// One kernel of a loaded module. Looked up per entry, not per module: an internal-linkage
// kernel in a header used by two translation units has two host entries (two keys) whose
// modules are the same code, registered once.
const cuda_device::loaded_kernel &cuda_device::load_kernel(const ::kernel_entry &e, const ::kernel_module &m,
                                                           const loaded_module &module) {
  loaded_kernel k;
  k.status = module.status;
  k.status_mutex = module.status_mutex.get();
  k.module = &m;
  drv_.check(drv_.cuModuleGetFunction(&k.function, module.module, e.symbol), "cuModuleGetFunction",
             std::string(e.name) + " on " + name_);
  int min_grid = 0;
  drv_.check(drv_.cuOccupancyMaxPotentialBlockSize(&min_grid, &k.block_size, k.function, nullptr, 0, 0),
             "cuOccupancyMaxPotentialBlockSize", e.name);
  k.full_grid = std::max(min_grid, 1);
  int max_threads = 0, static_shared = 0;
  drv_.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k.function);
  drv_.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k.function);
  int max_dynamic_shared = 0;
  drv_.cuFuncGetAttribute(&max_dynamic_shared, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k.function);
  k.max_dynamic_shared->store(max_dynamic_shared);
  k.limits = limits_;
  k.limits.threads_per_block = static_cast<std::uint64_t>(max_threads);
  k.limits.static_shared = static_cast<std::uint64_t>(static_shared);
  return kernels_.emplace(e.host_key, k).first->second;
}

const cuda_device::loaded_kernel &cuda_device::kernel_for(const detail::kernel_ref &k) {
  // A launch asks twice (configuration, launch), and a loop launches the same kernel again:
  // the thread's last answer saves the lock. Entries are never removed, and references into
  // an unordered_map survive its growth.
  // The registry's generation changes when a library is unloaded: its host keys may then be
  // reused by other code.
  struct last_lookup {
    const cuda_device *device = nullptr;
    const void *key = nullptr;
    std::uint64_t generation = 0;
    const loaded_kernel *kernel = nullptr;
  };
  thread_local last_lookup last;
  const std::uint64_t generation = registry::instance().generation();
  if (last.device == this && last.key == k.host_key && last.generation == generation) return *last.kernel;
  const loaded_kernel &found = kernel_for_locked(k);
  last = {this, k.host_key, generation, &found};
  return found;
}

const cuda_device::loaded_kernel &cuda_device::kernel_for_locked(const detail::kernel_ref &k) {
  std::lock_guard lock(kernels_mutex_);
  if (const std::uint64_t generation = registry::instance().generation(); generation != kernels_generation_) {
    // Forget the kernels of unloaded modules (their entries and descriptors are gone); the
    // others stay where they are, so references to them remain valid.
    std::erase_if(kernels_, [](const auto &item) {
      const auto found = registry::instance().find(item.first);
      return !found || found->module != item.second.module;
    });
    kernels_generation_ = generation;
  }
  if (auto it = kernels_.find(k.host_key); it != kernels_.end()) return it->second;
  auto found = registry::instance().find(k.host_key);
  if (!found) {
    std::string msg = "'" + std::string(k.name) + "' on " + name_ +
                      ": no GPU code was compiled for it; build the translation unit that defines it with "
                      "the kernel plugin (tools/kernel-clang++ or a kernel_cc_* Bazel rule), with the "
                      "attribute on that definition (an attribute only on a declaration elsewhere compiles "
                      "nothing)";
    for (const std::string &r : registry::instance().rejected()) msg += "; " + r;
    throw target_unavailable_error(msg);
  }
  const loaded_module &module = load_module(*found->module, "'" + std::string(k.name) + "'");
  return load_kernel(*found->entry, *found->module, module);
}

// Blocks of `block` threads, one thread per item of `work`, at most `most` of them.
static detail::launch_config grid_up_to(index_t work, index_t block, index_t most) {
  const index_t needed = std::max<index_t>((work + block - 1) / block, 1);
  const index_t grid = std::min<index_t>(needed, most);
  return detail::launch_config{dim3(static_cast<std::uint32_t>(grid)), dim3(static_cast<std::uint32_t>(block)), 0};
}

detail::launch_config cuda_device::elementwise_config(const detail::kernel_ref &k, index_t work) {
  // The occupancy calculator's block size and four waves of its grid: enough threads to keep
  // the memory busy, each taking several elements per trip of the grid-stride loop, so that
  // what a thread reads from its parameter block once is shared by many elements.
  const loaded_kernel &lk = kernel_for(k);
  return grid_up_to(work, std::max(lk.block_size, 32), index_t{lk.full_grid} * 4);
}

detail::launch_config cuda_device::resident_config(const detail::kernel_ref &k, index_t work, unsigned block) {
  const loaded_kernel &lk = kernel_for(k);
  const std::uint64_t last = lk.resident->load(std::memory_order_relaxed);
  std::uint64_t per_sm = last & 0xffffffffu;
  if (last >> 32 != block) {
    make_current();
    int blocks = 0;
    drv_.check(drv_.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, lk.function, static_cast<int>(block), 0),
               "cuOccupancyMaxActiveBlocksPerMultiprocessor", "'" + std::string(k.name) + "' on " + name_);
    per_sm = static_cast<std::uint64_t>(std::max(blocks, 1));
    lk.resident->store(std::uint64_t{block} << 32 | per_sm, std::memory_order_relaxed);
  }
  return grid_up_to(work, block, static_cast<index_t>(per_sm) * multiprocessors_);
}

void cuda_device::launch(const detail::kernel_ref &k, const detail::launch_config &c, const void *params, std::size_t,
                         detail::stream_state &s) {
  const loaded_kernel &lk = kernel_for(k);
  check_launch(k.name, c, lk.limits, name_);
  make_current();
  // Past what the function allows by default (48 KiB less its static shared memory, read when
  // it was loaded) a kernel must opt in to its dynamic shared memory: static and dynamic
  // together above 48 KiB, even where the dynamic part alone is below.
  if (const int wanted = static_cast<int>(c.shared_bytes); wanted > *lk.max_dynamic_shared) {
    drv_.check(drv_.cuFuncSetAttribute(lk.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, wanted),
               "cuFuncSetAttribute", "'" + std::string(k.name) + "' on " + name_);
    int allowed = *lk.max_dynamic_shared;
    while (allowed < wanted && !lk.max_dynamic_shared->compare_exchange_weak(allowed, wanted)) {
    }
  }
  // The module's status global is read after this launch: no other launch of the module may
  // write it in between.
  std::unique_lock<std::mutex> status_lock;
  if (lk.status) status_lock = std::unique_lock(*lk.status_mutex);
  void *args[] = {const_cast<void *>(params)};
  const CUresult r = drv_.cuLaunchKernel(lk.function, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z,
                                         c.shared_bytes, handle_of(s), args, nullptr);
  if (r != CUDA_SUCCESS) drv_.check(r, "cuLaunchKernel", "'" + std::string(k.name) + "' on " + name_);
  if (lk.status) check_device_status(lk, k, s);
}

// A status is only known once the kernel has run: kernels that call Numba-convention
// functions are synchronous, as a host result would make them.
void cuda_device::check_device_status(const loaded_kernel &k, const detail::kernel_ref &ref, detail::stream_state &s) {
  const std::string what = "'" + std::string(ref.name) + "' on " + name_;
  std::uint64_t record = 0;
  drv_.check(drv_.cuMemcpyDtoHAsync(&record, k.status, sizeof record, handle_of(s)), "cuMemcpyDtoHAsync", what);
  drv_.check(drv_.cuStreamSynchronize(handle_of(s)), "cuStreamSynchronize", what);
  if (record == 0) return;
  drv_.check(drv_.cuMemsetD8Async(k.status, 0, sizeof record, handle_of(s)), "cuMemsetD8Async", what);
  drv_.check(drv_.cuStreamSynchronize(handle_of(s)), "cuStreamSynchronize", what);
  const std::uint32_t index = static_cast<std::uint32_t>(record >> 32) - 1;
  const std::int32_t status = static_cast<std::int32_t>(record & 0xffffffffu);
  const kernel_external *f = index < k.module->num_externals ? &k.module->externals[index] : nullptr;
  const std::string function = f ? f->signature : "a Numba-convention function";
  throw device_function_error(what + ": the CUDA-C device function '" + function + "'" +
                                  (f ? " (Numba convention, declared at " + std::string(f->location) + ")" : "") +
                                  " returned status " + std::to_string(status),
                              function, status);
}

} // namespace kernel::runtime::cuda
