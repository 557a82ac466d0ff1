// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which simulated thread each host thread is running.
#include "simulator/thread_context.h"

#include <cstdint>
#include <utility>

namespace kernel::runtime::sim {

namespace {
thread_context outside_launch;
} // namespace

// The default TLS model, not initial-exec: libkernel_runtime.so must stay loadable with
// dlopen (a Python extension), where static TLS may be used up. Programs linking the runtime
// into the executable still get one fs-relative load per hook: the linker relaxes the access.
constinit thread_local thread_context *current_context = nullptr;

thread_context &current_thread() noexcept { return current_context ? *current_context : outside_launch; }

thread_context *current_thread_if_any() noexcept { return current_context; }

thread_context *set_current_thread(thread_context *ctx) noexcept { return std::exchange(current_context, ctx); }

thread_scope::thread_scope(thread_context &ctx) noexcept : previous_(current_context) { current_context = &ctx; }
thread_scope::~thread_scope() { current_context = previous_; }

} // namespace kernel::runtime::sim
