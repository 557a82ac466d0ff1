// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The part of a first GPU call that needs no GPU: linking a generated module with nvJitLink
// into a cubin for the device's architecture, against getting the same cubin back from the
// disk cache (what a second process does). Runs on any machine with the CUDA toolkit.
//
//   bazel run -c opt //bench:module_build_bench
//
// Prints the best of several runs for sm_75 and sm_90, and the cache hit's time as a
// fraction of the link's.
#include <kernel/kernel.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "bench/timing.h"
#include "cache/cubin_cache.h"
#include "cuda/module_builder.h"
#include "cuda/nvjitlink.h"
#include "registry/registry.h"

[[kernel::vectorize("float32(float32, float32, float32)")]]
float saxpy(float a, float x, float y) { return a * x + y; }

[[kernel::vectorize("float32(float32, float32, float32)")]]
float gaussian_pdf(float x, float mean, float sigma) {
  const float z = (x - mean) / sigma;
  return std::exp(-0.5f * z * z) / (sigma * 2.5066282746310002f);
}

namespace {

namespace fs = std::filesystem;
namespace cuda = kernel::runtime::cuda;

using bench::best_ms;

} // namespace

int main() {
  const auto &nvjitlink = cuda::nvjitlink::get();
  if (!nvjitlink.available()) {
    std::printf("nvJitLink is not available, nothing measured: %s\n", nvjitlink.unavailable_reason().c_str());
    return 0;
  }
  const fs::path dir = fs::temp_directory_path() / ("kernel-module-build-bench-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const kernel::runtime::cubin_cache cache(dir), off{fs::path()};
  std::printf("nvJitLink %s; one module per kernel below, best of 5 runs\n", nvjitlink.version().c_str());
  std::printf("%-14s %-6s %12s %14s %12s\n", "kernel", "arch", "link ms", "cache hit ms", "hit/link");
  int failures = 0;
  for (const void *key : {reinterpret_cast<const void *>(&kernel::detail::ufunc_kernel<saxpy>),
                          reinterpret_cast<const void *>(&kernel::detail::ufunc_kernel<gaussian_pdf>)}) {
    const auto k = kernel::runtime::registry::instance().find(key);
    if (!k) {
      std::printf("this program was compiled without the plugin\n");
      return 1;
    }
    for (int arch : {75, 90}) {
      const double link = best_ms(5, [&] { cuda::build_cubin(*k->module, arch, off, 0, "bench"); });
      cuda::build_cubin(*k->module, arch, cache, 0, "bench"); // fills the cache
      bool hit = true;
      const double cached = best_ms(5, [&] { hit &= cuda::build_cubin(*k->module, arch, cache, 0, "bench").from_cache; });
      failures += !hit;
      std::printf("%-14s sm_%-3d %12.2f %14.3f %12.4f%s\n", k->entry->name, arch, link, cached, cached / link,
                  hit ? "" : "  (cache MISSED)");
    }
  }
  fs::remove_all(dir);
  return failures ? 1 : 0;
}
