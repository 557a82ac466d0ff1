// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The simulated thread a host thread is running: what the kernel hooks (threadIdx ...)
// read on the host.
#pragma once

#include "kernel/intrinsics.h"

namespace kernel::runtime::sim {

class sim_thread;

struct thread_context {
  dim3 thread_idx{0, 0, 0};
  dim3 block_dim{1, 1, 1};
  dim3 block_idx{0, 0, 0};
  dim3 grid_dim{1, 1, 1};
  sim_thread *owner = nullptr; // the simulated thread, inside a simulated launch
};

// The context of the simulated thread this host thread runs, or null (thread_context.cpp
// says why its TLS model is the default one).
extern constinit thread_local thread_context *current_context;

/// The context of the simulated thread running on this host thread; outside a launch, a
/// grid of one thread.
thread_context &current_thread() noexcept;

/// The current simulated thread of this host thread, or null outside a launch.
thread_context *current_thread_if_any() noexcept;

/// Makes `ctx` the current simulated thread of this host thread (null: none); returns the
/// one it replaces, which a launch made from inside a simulated thread (a host implementation
/// launching a kernel) puts back when it is done.
thread_context *set_current_thread(thread_context *ctx) noexcept;

/// Makes `ctx` the current simulated thread for this host thread for its lifetime.
class thread_scope {
public:
  explicit thread_scope(thread_context &ctx) noexcept;
  ~thread_scope();
  thread_scope(const thread_scope &) = delete;
  thread_scope &operator=(const thread_scope &) = delete;

private:
  thread_context *previous_;
};

} // namespace kernel::runtime::sim
