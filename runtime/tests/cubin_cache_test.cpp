// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The disk cache survives what other processes and people leave in it: something that is not
// a regular file at an entry's path (a directory, a FIFO, a device) is a damaged entry, read
// without blocking and without end, and replaced; temporaries of writers that were killed
// are cleaned up; a store neither follows a link at its temporary's name nor writes past the
// process's file size limit, and a process that cannot open an entry leaves it to the others.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>

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

// Symbolic links at the temporaries' names a writer used to take (the pid and a counter),
// planted in a directory other users write, lead nowhere: the file they point to stays as it
// was, and the entry is written.
TEST(CubinCacheDamage, LinksAtTemporaryNamesAreNotFollowed) {
  TempDir dir;
  const cubin_cache cache(dir.path / "shared");
  fs::create_directories(cache.directory());
  const fs::path victim = dir.path / "victim.txt";
  std::ofstream(victim) << "theirs";
  const cubin_key key = key_named("planted");
  for (int n = 0; n < 64; ++n)
    fs::create_symlink(victim,
                       cache.path_for(key).string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(n));
  EXPECT_TRUE(cache.store(key, payload));
  std::ifstream in(victim);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "theirs");
  EXPECT_EQ(cache.load(key), payload);
}

// An entry larger than the process may write (ulimit -f) is not written, where the write
// would kill the process with SIGXFSZ; the limit is the child's alone.
TEST(CubinCacheDamage, FileSizeLimitSkipsTheStore) {
  TempDir dir;
  const cubin_cache cache(dir.path / "limited");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    struct rlimit limit{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    const std::vector<char> large(4096, 'x');
    const bool stored = cache.store(key_named("large"), large);
    const bool small = cache.store(key_named("small"), payload);
    std::_Exit(!stored && small ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the large entry was stored, or the small one was not";
  EXPECT_TRUE(cache.load(key_named("small")));
  EXPECT_FALSE(fs::exists(cache.path_for(key_named("large"))));
}

// A process that cannot open the entry (out of descriptors) misses; the entry, which other
// processes read, stays.
TEST(CubinCacheDamage, OutOfDescriptorsIsAMissNotDamage) {
  TempDir dir;
  const cubin_cache cache(dir.path / "descriptors");
  const cubin_key key = key_named("kept");
  ASSERT_TRUE(cache.store(key, payload));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    struct rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = 16;
    ::setrlimit(RLIMIT_NOFILE, &limit);
    while (::open("/dev/null", O_RDONLY) >= 0) {
    }
    std::_Exit(cache.load(key) ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the entry was read without a descriptor";
  EXPECT_EQ(cache.load(key), payload);
}

} // namespace
