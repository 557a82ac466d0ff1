// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/random_generators.h on the CPU against the same cuRAND host generator called
// directly in this process (the overhead of the library's call: loading, checks, the
// offset bookkeeping), and kernel::random::philox, the library's own generator, against the
// same cuRAND Philox numbers made by cuRAND's host generator. 2^24 float32 uniforms and
// normals from XORWOW and Philox. Prints times and ratios (baseline / ours: above 1 is
// faster).
//
//   bazel run --config=ci -c opt //bench:random_cpu_bench -- [runs]
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <curand.h>

#include "kernel/random_arrays.h"
#include "kernel/random_generators.h"
#include "timing.h"

namespace {

struct direct {
  decltype(&::curandCreateGeneratorHost) create = nullptr;
  decltype(&::curandDestroyGenerator) destroy = nullptr;
  decltype(&::curandSetPseudoRandomGeneratorSeed) seed = nullptr;
  decltype(&::curandGenerateUniform) uniform = nullptr;
  decltype(&::curandGenerateNormal) normal = nullptr;
};

bool load(direct &d) {
  void *lib = dlopen("libcurand.so.10", RTLD_NOW);
  if (!lib) lib = dlopen("/usr/local/cuda/lib64/libcurand.so.10", RTLD_NOW);
  if (!lib) return false;
  d.create = reinterpret_cast<decltype(d.create)>(dlsym(lib, "curandCreateGeneratorHost"));
  d.destroy = reinterpret_cast<decltype(d.destroy)>(dlsym(lib, "curandDestroyGenerator"));
  d.seed = reinterpret_cast<decltype(d.seed)>(dlsym(lib, "curandSetPseudoRandomGeneratorSeed"));
  d.uniform = reinterpret_cast<decltype(d.uniform)>(dlsym(lib, "curandGenerateUniform"));
  d.normal = reinterpret_cast<decltype(d.normal)>(dlsym(lib, "curandGenerateNormal"));
  return d.create && d.destroy && d.seed && d.uniform && d.normal;
}

} // namespace

int main(int argc, char **argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  direct c;
  if (!load(c)) {
    std::printf("no libcurand on this machine: nothing to compare with\n");
    return 0;
  }
  const std::size_t n = std::size_t{1} << 24;
  std::vector<float> x(n);
  namespace rnd = kernel::random;
  for (auto [e, type, label] : {std::tuple{rnd::engine::xorwow, CURAND_RNG_PSEUDO_XORWOW, "xorwow"},
                                std::tuple{rnd::engine::philox4_32_10, CURAND_RNG_PSEUDO_PHILOX4_32_10, "philox"}}) {
    curandGenerator_t g = nullptr;
    if (c.create(&g, type) != CURAND_STATUS_SUCCESS || c.seed(g, 7) != CURAND_STATUS_SUCCESS) return 1;
    const rnd::generator ours(e, 7);
    ours.uniform(x); // the generator's first fill makes cuRAND's generator
    for (bool normal : {false, true}) {
      const double base = bench::best_ms(runs, [&] {
        if ((normal ? c.normal(g, x.data(), n, 0, 1) : c.uniform(g, x.data(), n)) != CURAND_STATUS_SUCCESS)
          std::abort();
      });
      const double lib = bench::best_ms(runs, [&] { normal ? ours.normal(x) : ours.uniform(x); });
      std::printf("%-8s %-8s 2^24 float32: cuRAND host direct %8.2f ms  generator %8.2f ms  ratio %.3fx\n", label,
                  normal ? "normal" : "uniform", base, lib, base / lib);
      if (e == rnd::engine::philox4_32_10) {
        const rnd::philox own(7);
        const double cpu = bench::best_ms(runs, [&] { normal ? own.normal(x) : own.uniform(x); });
        const double par = bench::best_ms(runs, [&] {
          normal ? own.on(kernel::target::parallel).normal(x) : own.on(kernel::target::parallel).uniform(x);
        });
        std::printf("%-8s %-8s 2^24 float32: cuRAND host direct %8.2f ms  random::philox cpu %8.2f ms (%.2fx)  "
                    "parallel %8.2f ms (%.2fx)\n",
                    label, normal ? "normal" : "uniform", base, cpu, base / cpu, par, base / par);
      }
    }
    c.destroy(g);
  }
}
