#include "cuda/shared_library.h"

#include <dlfcn.h>

namespace kernel::runtime {

bool shared_library::open(const char *name) {
  handle_ = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle_) {
    error_.clear();
    return true;
  }
  const char *why = ::dlerror();
  if (!error_.empty()) error_ += "; ";
  error_ += why ? why : name;
  return false;
}

shared_library::shared_library(std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (open(name)) return;
}

shared_library::shared_library(std::span<const std::string> names) {
  for (const std::string &name : names)
    if (open(name.c_str())) return;
}

shared_library &shared_library::operator=(shared_library &&other) noexcept {
  if (this != &other) {
    if (handle_) ::dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    error_ = std::move(other.error_);
  }
  return *this;
}

shared_library::~shared_library() {
  if (handle_) ::dlclose(handle_);
}

void *shared_library::symbol(const char *name) const noexcept { return handle_ ? ::dlsym(handle_, name) : nullptr; }

} // namespace kernel::runtime
