// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "registry/registry.h"

#include <algorithm>
#include <new>

namespace kernel::runtime {

// Constructed on first use: registration runs from static constructors of other
// translation units, in an order nobody controls. Never destroyed: modules unregister from
// destructors that may run after this file's static objects are gone (.fini_array runs after
// the atexit handlers).
registry &registry::instance() {
  alignas(registry) static unsigned char storage[sizeof(registry)];
  static registry *r = ::new (storage) registry();
  return *r;
}

void registry::add(const kernel_module *module) {
  std::lock_guard lock(mutex_);
  if (module->abi_version != KERNEL_MODULE_ABI_VERSION) {
    rejected_.emplace_back(module, "module " + std::string(module->hash ? module->hash : "?") +
                                       " was compiled for runtime ABI " + std::to_string(module->abi_version) +
                                       " but this runtime reads ABI " + std::to_string(KERNEL_MODULE_ABI_VERSION) +
                                       "; rebuild it with the plugin that matches this runtime");
    return;
  }
  modules_.push_back(module);
  index(module);
}

void registry::index(const kernel_module *module) {
  const kernel_module *images = module;
  if (auto [it, inserted] = by_hash_.emplace(module->hash, module); !inserted) images = it->second;
  for (uint32_t i = 0; i < module->num_entries; ++i) {
    const kernel_entry *e = &module->entries[i];
    // An inline or template kernel defined in several translation units has one host
    // address after linking; its first registration wins, the others are the same code.
    if (by_key_.emplace(e->host_key, kernels_.size()).second) kernels_.push_back({e, images});
  }
}

void registry::remove(const kernel_module *module) {
  std::lock_guard lock(mutex_);
  // A rejected module unloaded (its library closed) is no longer the program's.
  std::erase_if(rejected_, [&](const auto &r) { return r.first == module; });
  auto it = std::find(modules_.begin(), modules_.end(), module);
  if (it == modules_.end()) return;
  modules_.erase(it);
  // Rare (a library unloaded): index the modules that remain again, in registration order, so
  // that a key or hash the removed module held goes to the next module that has it.
  kernels_.clear();
  by_key_.clear();
  by_hash_.clear();
  for (const kernel_module *m : modules_) index(m);
  generation_.fetch_add(1, std::memory_order_release);
}

std::optional<registered_kernel> registry::find(const void *host_key) const {
  std::lock_guard lock(mutex_);
  auto it = by_key_.find(host_key);
  if (it == by_key_.end()) return std::nullopt;
  return kernels_[it->second];
}

std::vector<registered_kernel> registry::all() const {
  std::lock_guard lock(mutex_);
  return kernels_;
}

std::vector<std::string> registry::rejected() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> why;
  for (const auto &r : rejected_) why.push_back(r.second);
  return why;
}

kernel_info describe(const registered_kernel &k) {
  kernel_info info;
  info.name = k.entry->name;
  info.signature = k.entry->signature;
  const char *kind = kernel_entry_kind_name(k.entry->kind);
  info.kind = kind ? kind : "unknown";
  info.symbol = k.entry->symbol;
  info.location = k.entry->location;
  info.module_hash = k.module->hash;
  for (uint32_t i = 0; i < k.module->num_images; ++i) {
    const kernel_image &img = k.module->images[i];
    info.ptx.push_back({img.arch, std::string_view(img.ptx, img.size)});
  }
  return info;
}

} // namespace kernel::runtime

extern "C" void __kernel_register_module(const kernel_module *module) {
  kernel::runtime::registry::instance().add(module);
}

extern "C" void __kernel_unregister_module(const kernel_module *module) {
  kernel::runtime::registry::instance().remove(module);
}

namespace kernel {

std::vector<kernel_info> compiled_kernels() {
  std::vector<kernel_info> out;
  for (const runtime::registered_kernel &k : runtime::registry::instance().all()) out.push_back(runtime::describe(k));
  return out;
}

std::vector<std::string> detail::rejected_modules() { return runtime::registry::instance().rejected(); }

std::optional<kernel_info> detail::find_kernel(const void *host_key) {
  if (auto k = runtime::registry::instance().find(host_key)) return runtime::describe(*k);
  return std::nullopt;
}

std::string detail::declared_array_orders(const void *host_key) {
  const auto k = runtime::registry::instance().find(host_key);
  if (!k || !k->entry->array_orders) return {};
  return k->entry->array_orders;
}

} // namespace kernel
