// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Loads a library with kernels, runs one on the simulator, unloads it, and checks that the
// runtime forgot its kernels; then loads and runs it again.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <kernel/kernel.h>

namespace {

long registered(const std::string &name) {
  const auto all = kernel::compiled_kernels();
  return std::count_if(all.begin(), all.end(), [&](const kernel::kernel_info &k) { return k.name == name; });
}

bool load_and_run(const char *path, float x) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
    return false;
  }
  if (registered("unload_twice") != 1) {
    std::fprintf(stderr, "FAIL: the library's kernel is not registered once\n");
    return false;
  }
  auto run = reinterpret_cast<float (*)(float)>(dlsym(lib, "unload_run"));
  if (!run || run(x) != 2 * x) {
    std::fprintf(stderr, "FAIL: the library's kernel did not run\n");
    return false;
  }
  dlclose(lib);
  if (registered("unload_twice") != 0) {
    std::fprintf(stderr, "FAIL: the unloaded library's kernel is still registered\n");
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  if (!load_and_run(argv[1], 1.5f) || !load_and_run(argv[1], 4.0f)) return 1;
  std::printf("PASS: loaded, ran, unloaded and forgotten twice\n");
  return 0;
}
