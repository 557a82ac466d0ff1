// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The disk cache survives what other processes and people leave in it: something that is not
// a regular file at an entry's path (a directory, a FIFO, a device) is a damaged entry, read
// without blocking and without end, and replaced; temporaries of writers that were killed
// are cleaned up.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "cache/cubin_cache.h"

namespace {

namespace fs = std::filesystem;
using kernel::runtime::cubin_cache;
using kernel::runtime::cubin_key;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("kernel-cache-damage-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

cubin_key key_named(const std::string &name) {
  cubin_key key;
  key.module_hash = name;
  key.ptx_arch = "sm_90";
  key.target_arch = 90;
  return key;
}

const std::vector<char> payload{'c', 'u', 'b', 'i', 'n'};

// load() on `key` must answer (a miss) within a few seconds, whatever is at its path.
std::optional<std::vector<char>> load_within_seconds(const cubin_cache &cache, const cubin_key &key) {
  auto pending = std::async(std::launch::async, [&] { return cache.load(key); });
  if (pending.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "cubin_cache::load blocked";
    std::_Exit(1); // the load thread cannot be joined
  }
  return pending.get();
}

TEST(CubinCacheDamage, DirectoryAtAnEntryIsReplaced) {
  TempDir dir;
  const cubin_cache cache(dir.path);
  const cubin_key key = key_named("directory");
  fs::create_directories(cache.path_for(key) / "inside");
  EXPECT_FALSE(load_within_seconds(cache, key).has_value());
  ASSERT_TRUE(cache.store(key, payload));
  EXPECT_EQ(cache.load(key), payload);
}

TEST(CubinCacheDamage, DirectoryInTheWayOfAStoreIsReplaced) {
  TempDir dir;
  const cubin_cache cache(dir.path);
  const cubin_key key = key_named("store-over-directory");
  fs::create_directories(cache.path_for(key) / "inside");
  ASSERT_TRUE(cache.store(key, payload));
  EXPECT_EQ(cache.load(key), payload);
}

TEST(CubinCacheDamage, FifoAtAnEntryDoesNotBlock) {
  TempDir dir;
  const cubin_cache cache(dir.path);
  const cubin_key key = key_named("fifo");
  ASSERT_EQ(::mkfifo(cache.path_for(key).c_str(), 0600), 0);
  EXPECT_FALSE(load_within_seconds(cache, key).has_value());
  EXPECT_FALSE(fs::exists(fs::symlink_status(cache.path_for(key))));
  ASSERT_TRUE(cache.store(key, payload));
  EXPECT_EQ(cache.load(key), payload);
}

TEST(CubinCacheDamage, EndlessDeviceIsNotRead) {
  TempDir dir;
  const cubin_cache cache(dir.path);
  const cubin_key key = key_named("device");
  fs::create_symlink("/dev/zero", cache.path_for(key));
  EXPECT_FALSE(load_within_seconds(cache, key).has_value());
  EXPECT_TRUE(fs::exists("/dev/zero")); // the link went, not what it pointed to
  ASSERT_TRUE(cache.store(key, payload));
  EXPECT_EQ(cache.load(key), payload);
}

TEST(CubinCacheDamage, TemporariesOfDeadWritersAreRemoved) {
  TempDir dir;
  // A directory this process has not stored into yet: the clean-up runs once per directory.
  const cubin_cache cache(dir.path / "fresh");
  fs::create_directories(cache.directory());
  const cubin_key key = key_named("temporaries");
  // A writer that no longer exists (pids are below 2^22 on Linux) and one that is running.
  const fs::path dead = cache.path_for(key_named("other")).string() + ".tmp.2147483646.0";
  const fs::path alive = cache.path_for(key_named("other")).string() + ".tmp." + std::to_string(::getpid()) + ".99";
  std::ofstream(dead) << "partial";
  std::ofstream(alive) << "being written";
  ASSERT_TRUE(cache.store(key, payload));
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
}

} // namespace
