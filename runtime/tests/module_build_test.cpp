// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The modules this test's own kernels generate link with nvJitLink into cubins for sm_75 and
// sm_90, with every kernel in the cubin; and the disk cache keeps them correctly. No GPU is
// needed: nvJitLink runs on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cache/cubin_cache.h"
#include "cuda/module_builder.h"
#include "cuda/nvjitlink.h"
#include "kernel/kernel.h"
#include "registry/registry.h"

[[kernel::vectorize]] float scale(float x, float s) { return x * s; }
[[kernel::vectorize]] std::complex<double> rotate(std::complex<double> z, double angle) {
  return z * std::polar(1.0, angle);
}
[[kernel::jit]] void fill(kernel::array_view<float, 1> out, float value) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < out.size()) out[i] = value;
}

namespace {

namespace fs = std::filesystem;
using kernel::runtime::cubin_cache;
using kernel::runtime::cubin_key;
namespace cuda = kernel::runtime::cuda;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("kernel-cache-test-" + std::to_string(::getpid()));
  TempDir() { fs::remove_all(path); }
  ~TempDir() { fs::remove_all(path); }
};

const kernel_module &this_module() {
  auto k =
      kernel::runtime::registry::instance().find(reinterpret_cast<const void *>(&kernel::detail::ufunc_kernel<scale>));
  if (!k) throw std::runtime_error("this test was compiled without the plugin");
  return *k->module;
}

bool has(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(ModuleBuild, LinksForEveryArchitecture) {
  ASSERT_TRUE(cuda::nvjitlink::get().available()) << cuda::nvjitlink::get().unavailable_reason();
  const kernel_module &m = this_module();
  ASSERT_EQ(m.num_entries, 3u);
  cubin_cache off{fs::path()};
  for (int arch : {75, 80, 90}) {
    cuda::built_module b = cuda::build_cubin(m, arch, off, 0, "this test's module");
    EXPECT_FALSE(b.from_cache);
    EXPECT_EQ(b.ptx_arch, arch >= 90 ? "sm_90" : "sm_75");
    const std::vector<std::string> symbols = cuda::cubin_symbols(b.cubin);
    for (uint32_t i = 0; i < m.num_entries; ++i)
      EXPECT_TRUE(has(symbols, m.entries[i].symbol)) << m.entries[i].name << " missing for sm_" << arch;
  }
}

TEST(ModuleBuild, OlderGpuIsExplained) {
  try {
    cuda::build_cubin(this_module(), 70, cubin_cache{fs::path()}, 0, "'scale'");
    FAIL();
  } catch (const kernel::target_unavailable_error &e) {
    EXPECT_EQ(std::string(e.what()), "'scale': its GPU code was generated for sm_75, sm_90, all newer than this "
                                     "GPU (sm_70); rebuild with -fplugin-arg-kernel-arch=sm_70");
  }
}

TEST(CubinCache, RoundTripCorruptionAndKeys) {
  TempDir dir;
  const cubin_cache cache(dir.path);
  const kernel_module &m = this_module();

  auto first = cuda::build_cubin(m, 90, cache, 13000, "m");
  EXPECT_FALSE(first.from_cache);
  auto second = cuda::build_cubin(m, 90, cache, 13000, "m");
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(first.cubin, second.cubin);

  // A damaged entry is detected, dropped and rebuilt.
  cubin_key key;
  key.module_hash = m.hash;
  key.ptx_arch = "sm_90";
  key.target_arch = 90;
  key.nvjitlink_version = cuda::nvjitlink::identity();
  key.driver_version = 13000;
  const fs::path entry = cache.path_for(key);
  ASSERT_TRUE(fs::exists(entry));
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-10, std::ios::end);
    f.put('\x5a');
  }
  EXPECT_FALSE(cache.load(key).has_value());
  EXPECT_FALSE(fs::exists(entry));
  auto rebuilt = cuda::build_cubin(m, 90, cache, 13000, "m");
  EXPECT_FALSE(rebuilt.from_cache);
  EXPECT_EQ(rebuilt.cubin, first.cubin);
  EXPECT_TRUE(cuda::build_cubin(m, 90, cache, 13000, "m").from_cache);

  // Any change of key is a miss: another driver, another architecture.
  EXPECT_FALSE(cuda::build_cubin(m, 90, cache, 13010, "m").from_cache);
  EXPECT_FALSE(cuda::build_cubin(m, 80, cache, 13000, "m").from_cache);

  // A truncated file and a file of another key under this name are misses too.
  {
    std::ofstream f(entry, std::ios::binary | std::ios::trunc);
    f << "KERNEL-CUBIN 1\n5\n";
  }
  EXPECT_FALSE(cache.load(key).has_value());
  cubin_key other = key;
  other.module_hash = "another";
  ASSERT_TRUE(cache.store(other, std::vector<char>{'x'}));
  fs::copy_file(cache.path_for(other), entry, fs::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.load(key).has_value());
}

TEST(CubinCache, ConcurrentWritersLeaveAValidEntry) {
  TempDir dir;
  const cubin_cache cache(dir.path);
  cubin_key key;
  key.module_hash = "concurrent";
  std::vector<char> payload(1 << 20, 'k');
  std::vector<std::thread> writers;
  for (int i = 0; i < 8; ++i) writers.emplace_back([&] { cache.store(key, payload); });
  for (auto &t : writers) t.join();
  auto loaded = cache.load(key);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(*loaded, payload);
  // No temporary files are left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(CubinCache, LocationFromTheEnvironment) {
  EXPECT_TRUE(cubin_cache(fs::path()).enabled() == false);
  EXPECT_FALSE(cubin_cache(fs::path()).store(cubin_key{}, std::vector<char>{'x'}));
  const cubin_cache &process = cubin_cache::process();
  EXPECT_EQ(process.directory(), cubin_cache::directory_from(std::getenv("KERNEL_CACHE_DIR"),
                                                             std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")));
}

TEST(CubinCache, DirectoryFromTheEnvironment) {
  // Every spelling of "off" disables the cache rather than naming a directory "OFF".
  for (const char *off : {"off", "OFF", "Off", "0", "false", "No"})
    EXPECT_TRUE(cubin_cache::directory_from(off, "/xdg", "/home/u").empty()) << off;
  EXPECT_EQ(cubin_cache::directory_from("/tmp/c", "/xdg", "/home/u"), fs::path("/tmp/c"));
  EXPECT_EQ(cubin_cache::directory_from("rel", nullptr, nullptr), fs::current_path() / "rel");
  EXPECT_EQ(cubin_cache::directory_from("", "/xdg", "/home/u"), fs::path("/xdg/kernel"));
  // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
  EXPECT_EQ(cubin_cache::directory_from(nullptr, "xdg", "/home/u"), fs::path("/home/u/.cache/kernel"));
  EXPECT_TRUE(cubin_cache::directory_from(nullptr, nullptr, nullptr).empty());
}

TEST(CubinCache, UnwritableDirectoryIsSkipped) {
  const cubin_cache cache("/proc/kernel-cache-cannot-be-here");
  EXPECT_FALSE(cache.store(cubin_key{}, std::vector<char>{'x'}));
  EXPECT_FALSE(cache.load(cubin_key{}).has_value());
}

} // namespace
