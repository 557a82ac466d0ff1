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
  const std::optional<kernel_info> k = find_kernel(host_key);
  if (!k) return {};
  // A signature string is written canonically by the plugin: "void(float32[:, ::1], int32)",
  // '::1' on the last dimension for C order, on the first (of two or more) for Fortran order.
  // A kernel without one has its C++ types ("void(kernel::array_view<float, 2>)"), which
  // declare no order; a gufunc's layout may follow the parameters (" (n),(n)->()").
  const std::string &sig = k->signature;
  const std::size_t open = sig.find('(');
  if (open == std::string::npos) return {};
  std::string orders;
  std::size_t begin = open + 1;
  int depth = 0; // of (), [] and <> within the parameter list
  for (std::size_t i = begin; i < sig.size(); ++i) {
    const char c = sig[i];
    if (c == '(' || c == '[' || c == '<') ++depth;
    if ((c == ']' || c == '>') && depth > 0) --depth;
    const bool closes = c == ')' && depth == 0;
    if (c == ')' && depth > 0) --depth;
    if (!closes && (c != ',' || depth != 0)) continue;
    const std::string_view param = std::string_view(sig).substr(begin, i - begin);
    if (closes && orders.empty() && param.find_first_not_of(' ') == std::string_view::npos) break; // "void()"
    char order = 'A';
    if (const std::size_t dims = param.find('['); dims != std::string_view::npos) {
      const std::string_view inside = param.substr(dims + 1, param.rfind(']') - dims - 1);
      const std::size_t first_comma = inside.find(','), last_comma = inside.rfind(',');
      const auto unit = [](std::string_view dim) { return dim.find("::1") != std::string_view::npos; };
      if (unit(inside.substr(last_comma == std::string_view::npos ? 0 : last_comma + 1)))
        order = 'C';
      else if (first_comma != std::string_view::npos && unit(inside.substr(0, first_comma)))
        order = 'F';
    }
    orders += order;
    begin = i + 1;
    if (closes) break;
  }
  return orders;
}

} // namespace kernel
