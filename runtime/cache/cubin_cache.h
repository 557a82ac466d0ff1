// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The on-disk cache of linked GPU code. A cubin is kept under a key made of everything
// that decides its contents: the generated module (content hash and the PTX image used),
// the user device code linked in, the target architecture, and the nvJitLink and driver
// versions. An entry whose key does not match, or whose bytes are damaged, is a miss and
// is rebuilt. Writes go through a temporary file and a rename, so processes sharing the
// directory never see a partial entry.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kernel::runtime {

struct cubin_key {
  std::string module_hash;
  std::string ptx_arch;                 ///< the PTX image that was linked ("sm_75")
  int target_arch = 0;                  ///< the device's architecture (90 for sm_90)
  std::vector<std::string> link_inputs; ///< content hashes of linked user device code
  std::string nvjitlink_version;
  int driver_version = 0;

  /// The key as text, one "name=value" line per field; stored in the entry and compared.
  std::string text() const;
};

class cubin_cache {
public:
  /// A cache in `directory`; an empty path gives a disabled cache.
  explicit cubin_cache(std::filesystem::path directory);

  /// The process's cache: $KERNEL_CACHE_DIR, else $XDG_CACHE_HOME/kernel, else
  /// ~/.cache/kernel. KERNEL_CACHE_DIR=off (or 0, false, no; any case) disables it.
  static const cubin_cache &process();

  /// The directory process() chooses from these environment values (null where unset);
  /// empty where the cache is off. A relative one is made absolute from the working directory.
  static std::filesystem::path directory_from(const char *kernel_cache_dir, const char *xdg_cache_home,
                                              const char *home);

  bool enabled() const noexcept { return !directory_.empty(); }
  const std::filesystem::path &directory() const noexcept { return directory_; }

  /// The cached cubin, or std::nullopt on a miss. A damaged or mismatched entry is deleted.
  std::optional<std::vector<char>> load(const cubin_key &key) const;

  /// Stores a cubin; false if the directory cannot be written (the cache is then skipped).
  bool store(const cubin_key &key, std::span<const char> cubin) const;

  /// Where `key` is stored.
  std::filesystem::path path_for(const cubin_key &key) const;

private:
  std::filesystem::path directory_;
};

} // namespace kernel::runtime
