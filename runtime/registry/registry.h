// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The process-wide table of GPU modules registered by translation units compiled with the
// plugin, keyed by each kernel's host entry address.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernel/detail/module_abi.h"
#include "kernel/inspect.h"

namespace kernel::runtime {

/// A registered kernel: its entry and the module that holds its PTX.
struct registered_kernel {
  const kernel_entry *entry;
  const kernel_module *module;
};

class registry {
public:
  static registry &instance();

  /// Adds a module. Modules with a hash already seen (the same code compiled into two
  /// translation units) add their entries but share the first copy's images.
  void add(const kernel_module *module);

  /// Removes a module (its library is being unloaded): its entries are no longer found.
  void remove(const kernel_module *module);

  std::optional<registered_kernel> find(const void *host_key) const;
  /// Changes whenever a module is removed: caches of registered kernels compare it.
  std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }
  std::vector<registered_kernel> all() const;

  /// Modules that could not be registered, with the reason (an incompatible ABI version).
  std::vector<std::string> rejected() const;

private:
  registry() = default;

  void index(const kernel_module *module);

  mutable std::mutex mutex_;
  std::vector<const kernel_module *> modules_; // registration order
  std::atomic<std::uint64_t> generation_{0};
  std::vector<registered_kernel> kernels_; // registration order
  std::unordered_map<const void *, std::size_t> by_key_;
  std::unordered_map<std::string_view, const kernel_module *> by_hash_;
  std::vector<std::pair<const kernel_module *, std::string>> rejected_; // with why
};

/// The public description of a registered kernel.
kernel_info describe(const registered_kernel &k);

} // namespace kernel::runtime
