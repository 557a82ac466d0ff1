// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Link time that each kind of user device code adds to a kernel's first call (nvJitLink,
// and NVRTC for .cu), cold and from the disk cache, against linking the kernel's module
// alone. No GPU needed.
//
//   bazel run -c opt //bench:device_link_bench
#include <kernel/kernel.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "bench/timing.h"
#include "cache/cubin_cache.h"
#include "cuda/module_builder.h"
#include "device_code/runtime_inputs.h"
#include "registry/registry.h"

extern "C" [[kernel::declare_device]] int twice(int a);

[[kernel::jit]] void double_all(kernel::array_view<int> values) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < values.size()) values[i] = twice(values[i]);
}

void plain(kernel::array_view<int> values); // device_link_bench_plain.cpp: the same kernel without twice

namespace {
namespace fs = std::filesystem;
namespace cuda = kernel::runtime::cuda;

using bench::best_ms;

const kernel_module &module_of(const void *key) { return *kernel::runtime::registry::instance().find(key)->module; }
} // namespace

int main() {
  const std::string data = "runtime/tests/testdata/";
  const fs::path dir = fs::temp_directory_path() / ("kernel-device-link-bench-" + std::to_string(::getpid()));
  const kernel::runtime::cubin_cache off{fs::path()}, cache(dir);
  const int arch = 90, runs = 5;
  // The baseline is timed again before each input, beside it: a machine's pace drifts over
  // the run (timed once, first, it left later inputs' "added" negative on a loaded machine).
  const auto alone_ms = [&] {
    kernel::runtime::device_code::clear_runtime_inputs();
    return best_ms(runs, [&] {
      cuda::build_cubin(module_of(reinterpret_cast<const void *>(&kernel::detail::jit_kernel<plain>)), arch, off, 0,
                        "b");
    });
  };
  std::printf("sm_%d, best of %d each; the kernel's module alone timed before each input\n", arch, runs);
  std::printf("%-18s %12s %12s %12s %14s %12s\n", "input", "alone ms", "cold ms", "added ms", "cold/alone",
              "cached ms");
  const kernel_module &m = module_of(reinterpret_cast<const void *>(&kernel::detail::jit_kernel<double_all>));
  for (const char *file : {"twice.o", "libtwice.a", "twice.ptx", "twice.fatbin", "twice.ltoir", "twice_lto.fatbin",
                           "twice.cu"}) {
    const double base = alone_ms();
    kernel::runtime::device_code::clear_runtime_inputs();
    kernel::link_device_code(data + file);
    const double cold = best_ms(runs, [&] { cuda::build_cubin(m, arch, off, 0, "b"); });
    fs::remove_all(dir);
    cuda::build_cubin(m, arch, cache, 0, "b");
    const double cached = best_ms(runs, [&] { cuda::build_cubin(m, arch, cache, 0, "b"); });
    std::printf("%-18s %12.1f %12.1f %12.1f %14.2f %12.3f\n", file, base, cold, cold - base, cold / base, cached);
  }
  fs::remove_all(dir);
  return 0;
}
