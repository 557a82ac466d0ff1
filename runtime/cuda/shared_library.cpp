// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/shared_library.h"

#include <dlfcn.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KERNEL_RUNTIME_ASAN 1
#endif
#endif

#ifdef KERNEL_RUNTIME_ASAN
// Under ASan (the CI's asan run) the CUDA libraries stay loaded until exit, so that the
// leak check can name them, and what they keep for the process's life is not reported.
extern "C" const char *__lsan_default_suppressions() {
  return "leak:libnvJitLink.so\nleak:libnvrtc.so\nleak:libcuda.so\nleak:libnvptxcompiler\nleak:libcurand.so\nleak:"
         "libkernel_cub.so\n";
}
#endif

namespace kernel::runtime {

namespace {
void close(void *handle) noexcept {
#ifndef KERNEL_RUNTIME_ASAN
  ::dlclose(handle);
#else
  (void)handle;
#endif
}
} // namespace

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
    if (handle_ && !loaded_until_exit_) close(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    error_ = std::move(other.error_);
    loaded_until_exit_ = other.loaded_until_exit_;
  }
  return *this;
}

shared_library::~shared_library() {
  if (handle_ && !loaded_until_exit_) close(handle_);
}

void *shared_library::symbol(const char *name) const noexcept { return handle_ ? ::dlsym(handle_, name) : nullptr; }

} // namespace kernel::runtime
