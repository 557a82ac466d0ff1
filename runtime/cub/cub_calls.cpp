// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/detail/cub_api.h: CUB's calls through libkernel_cub.so, found on first use beside
// the runtime (an SDK's lib/), in the program's Bazel runfiles (it is data of
// //runtime/cub), or by the loader's own search; $KERNEL_CUB_LIBRARY replaces that search
// and KERNEL_CUB=0 turns CUB off. Declining is always safe (the caller has kernels of its
// own), so a library that cannot be found, or a CUDA runtime in it that cannot start on this
// driver, makes the calls decline rather than fail.
#include <dlfcn.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "cub/cub_abi.h"
#include "cuda/shared_library.h"
#include "device/device_state.h"
#include "kernel/detail/cub_api.h"
#include "kernel/errors.h"
#include "settings/environment.h"

namespace kernel::detail {

namespace {

constexpr const char *library_name = "libkernel_cub.so";

struct cub_library {
  runtime::shared_library lib;
  std::string failure; // why it cannot be used; empty when it can
  decltype(&::kernel_cub_abi_version) abi_version = nullptr;
  decltype(&::kernel_cub_lowest_architecture) lowest_architecture = nullptr;
  decltype(&::kernel_cub_error_name) error_name = nullptr;
  decltype(&::kernel_cub_radix_sort) radix_sort = nullptr;
  decltype(&::kernel_cub_sum_scan) sum_scan = nullptr;

  bool bind() {
    return lib.bind(abi_version, "kernel_cub_abi_version") &&
           lib.bind(lowest_architecture, "kernel_cub_lowest_architecture") &&
           lib.bind(error_name, "kernel_cub_error_name") && lib.bind(radix_sort, "kernel_cub_radix_sort") &&
           lib.bind(sum_scan, "kernel_cub_sum_scan");
  }
};

std::string directory_of_runtime() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void *>(&cub_unavailable), &info) || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

/// Where libkernel_cub.so is looked for, in order.
std::vector<std::string> candidates() {
  if (const char *chosen = std::getenv("KERNEL_CUB_LIBRARY"); chosen && *chosen) return {chosen};
  std::vector<std::string> where;
  std::error_code ec;
  const auto add_if_present = [&](const std::filesystem::path &p) {
    if (std::filesystem::is_regular_file(p, ec)) where.push_back(p.string());
  };
  if (const std::string dir = directory_of_runtime(); !dir.empty())
    add_if_present(std::filesystem::path(dir) / library_name);
  // A Bazel program's runfiles: <root>/<workspace>/runtime/cub/, whatever name the workspace
  // that holds this project has in the program's build.
  std::vector<std::filesystem::path> roots;
  for (const char *variable : {"RUNFILES_DIR", "TEST_SRCDIR"})
    if (const char *v = std::getenv(variable); v && *v) roots.emplace_back(v);
  if (const auto self = std::filesystem::read_symlink("/proc/self/exe", ec); !ec)
    roots.emplace_back(self.string() + ".runfiles");
  for (const std::filesystem::path &root : roots)
    for (auto it = std::filesystem::directory_iterator(root, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec))
      add_if_present(it->path() / "runtime" / "cub" / library_name);
  where.emplace_back(library_name);
  return where;
}

/// The library for the current $KERNEL_CUB_LIBRARY: looked for once per setting (a search of
/// the file system), and never unloaded, as it carries a CUDA runtime of its own.
const cub_library &load() {
  static std::mutex lock;
  static std::map<std::string, std::unique_ptr<cub_library>> loaded;
  const char *chosen = std::getenv("KERNEL_CUB_LIBRARY");
  std::lock_guard guard(lock);
  std::unique_ptr<cub_library> &lib = loaded[chosen ? chosen : ""];
  if (!lib) {
    lib = std::make_unique<cub_library>();
    const std::vector<std::string> where = candidates();
    lib->lib = runtime::shared_library(std::span<const std::string>(where));
    lib->lib.keep_loaded_until_exit();
    if (!lib->lib)
      lib->failure = std::string(library_name) + " could not be loaded (" + lib->lib.error() + ")";
    else if (!lib->bind())
      lib->failure = std::string(library_name) + " lacks the functions of this runtime";
    else if (lib->abi_version() != KERNEL_CUB_ABI_VERSION)
      lib->failure = std::string(library_name) + " was built for another version of the runtime";
  }
  return *lib;
}

bool turned_off() {
  return !runtime::switch_setting("KERNEL_CUB", "let CUB (libkernel_cub.so) sort, sum and scan").value_or(true);
}

/// Devices (by name) on which CUB's CUDA runtime could not start (a driver older than it,
/// say), with why: found once per device, as each later call would fail the same way.
std::mutex refused_lock;
std::map<std::string, std::string> refused;
std::atomic<bool> any_refused{false}; // so that a call finds none without the lock

std::string refusal(const device_state &device) {
  if (!any_refused.load(std::memory_order_acquire)) return {};
  std::lock_guard guard(refused_lock);
  const auto it = refused.find(device.name());
  return it == refused.end() ? std::string() : it->second;
}

/// The library when CUB may run on `device`, else null, with why in `*why` when given.
const cub_library *usable_on(device_state &device, std::string *why) {
  const auto decline = [&](auto &&reason) -> const cub_library * {
    if (why) *why = reason();
    return nullptr;
  };
  if (device.is_simulator())
    return decline([] { return std::string("the simulator runs kernels of this library only"); });
  if (turned_off()) return decline([] { return std::string("KERNEL_CUB=0 turns CUB off"); });
  const cub_library &lib = load();
  if (!lib.failure.empty()) return decline([&] { return lib.failure; });
  if (device.compute_capability() < lib.lowest_architecture())
    return decline([&] {
      return device.name() + " is older than the oldest architecture CUB was built for (sm_" +
             std::to_string(lib.lowest_architecture()) + ")";
    });
  if (std::string r = refusal(device); !r.empty()) return decline([&] { return r; });
  return &lib;
}

/// Runs CUB's two-phase `call(temp, &bytes)`: sizes the work area, allocates it on `stream`
/// (freed in order on it once the work is queued), queues the work. Returns false when the
/// sizing fails, which is CUB's runtime unable to start here.
template <class Call>
bool run_two_phase(const cub_library &lib, const char *name, const char *what, device_state &device,
                   stream_state &stream, Call &&call) {
  device.make_current();
  std::size_t bytes = 0;
  if (const int status = call(nullptr, &bytes); status != 0) {
    std::lock_guard guard(refused_lock);
    refused[device.name()] =
        std::string("CUB's CUDA runtime cannot start on ") + device.name() + ": " + lib.error_name(status);
    any_refused.store(true, std::memory_order_release);
    return false;
  }
  void *temp = device.allocate(bytes > 0 ? bytes : 1, stream);
  const int status = call(temp, &bytes);
  device.release(temp, stream);
  if (status != 0)
    throw cuda_error(std::string(name) + ": " + what + " on " + device.name() + " failed: " + lib.error_name(status),
                     status);
  return true;
}

int scan_type(dtype t) noexcept {
  switch (t) {
  case dtype::boolean: return kernel_cub_bool;
  case dtype::int8: return kernel_cub_int8;
  case dtype::int16: return kernel_cub_int16;
  case dtype::int32: return kernel_cub_int32;
  case dtype::int64: return kernel_cub_int64;
  case dtype::uint8: return kernel_cub_uint8;
  case dtype::uint16: return kernel_cub_uint16;
  case dtype::uint32: return kernel_cub_uint32;
  case dtype::uint64: return kernel_cub_uint64;
  case dtype::float32: return kernel_cub_float32;
  case dtype::float64: return kernel_cub_float64;
  default: return -1;
  }
}

/// The pairs of types libkernel_cub.so sums (cub_abi.h).
bool summable(dtype in, dtype out) noexcept {
  if (in == out)
    return in == dtype::int32 || in == dtype::int64 || in == dtype::uint32 || in == dtype::uint64 ||
           in == dtype::float32 || in == dtype::float64;
  if (out == dtype::int64) return in == dtype::boolean || in == dtype::int8 || in == dtype::int16 || in == dtype::int32;
  return out == dtype::uint64 && (in == dtype::uint8 || in == dtype::uint16 || in == dtype::uint32);
}

} // namespace

std::string cub_unavailable(device_state &device) {
  std::string why;
  usable_on(device, &why);
  return why;
}

bool cub_may_run(device_state &device) { return usable_on(device, nullptr) != nullptr; }

int radix_sort_cub(const char *name, unsigned key_bytes, unsigned value_bytes, cub_sort_buffers &b, index_t n,
                   int end_bit, device_state &device, stream_state &stream) {
  const bool widths = (key_bytes == 1 || key_bytes == 2 || key_bytes == 4 || key_bytes == 8) &&
                      (value_bytes == 0 || value_bytes == 4 || value_bytes == 8);
  if (!widths || n < 1 || n > UINT32_MAX || end_bit < 1 || end_bit > static_cast<int>(8 * key_bytes)) return -1;
  const cub_library *lib = usable_on(device, nullptr);
  if (!lib) return -1;
  int selector = 0;
  const bool ran =
      run_two_phase(*lib, name, value_bytes ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys",
                    device, stream, [&](void *temp, std::size_t *bytes) {
                      return lib->radix_sort(temp, bytes, key_bytes, value_bytes, b.keys, b.values,
                                             static_cast<std::uint32_t>(n), end_bit, stream.native(), &selector);
                    });
  return ran ? selector : -1;
}

bool sum_scan_cub(const char *name, dtype in_type, dtype out_type, bool exclusive, const void *in, void *out,
                  const void *init, index_t n, device_state &device, stream_state &stream) {
  if (!summable(in_type, out_type) || n < 1 || n > UINT32_MAX) return false;
  const cub_library *lib = usable_on(device, nullptr);
  if (!lib) return false;
  const char *what = exclusive             ? "cub::DeviceScan::ExclusiveScan"
                     : in_type == out_type ? "cub::DeviceScan::InclusiveSum"
                                           : "cub::DeviceScan::InclusiveScanInit";
  return run_two_phase(*lib, name, what, device, stream, [&](void *temp, std::size_t *bytes) {
    return lib->sum_scan(temp, bytes, scan_type(in_type), scan_type(out_type), exclusive, in, out, init,
                         static_cast<std::uint32_t>(n), stream.native());
  });
}

} // namespace kernel::detail
