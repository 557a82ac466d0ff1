// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fibers for simulated GPU threads: each thread of a block runs on its own small stack and
// switches back to the block's scheduler when it waits at a barrier or a warp operation.
// Built on boost.context's fcontext, whose contexts can be abandoned without unwinding:
// when a thread fails a check, its fiber is dropped where it stands (kernel code is
// noexcept, so it cannot be unwound).
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kernel::runtime::sim {

/// Stacks for fibers, recycled across blocks; each has a guard region below it, so that a
/// kernel overflowing its stack faults instead of corrupting the next one (the simulator
/// turns that fault into an error: install_fault_handler).
class stack_pool {
public:
  /// The guard below each stack: large, so that a big frame (a local array) that jumps over
  /// the stack's end still lands in it. Address space only.
  static constexpr std::size_t guard_bytes = std::size_t{1} << 20;

  explicit stack_pool(std::size_t size);
  /// The size of the stacks of a pool made for `size` bytes: whole pages.
  static std::size_t rounded(std::size_t size) noexcept;
  ~stack_pool();
  stack_pool(const stack_pool &) = delete;
  stack_pool &operator=(const stack_pool &) = delete;

  /// The top (highest address) of a stack of size() bytes.
  void *acquire();
  void release(void *top) noexcept;
  std::size_t size() const noexcept { return size_; }

private:
  std::size_t size_;
  std::vector<void *> free_;
  std::vector<void *> mappings_;
};

/// One fiber: runs `entry(arg)` on its own stack when first resumed.
class fiber {
public:
  using context = boost::context::detail::fcontext_t;

  fiber(stack_pool &pool, void (*entry)(void *), void *arg);
  ~fiber();
  fiber(const fiber &) = delete;
  fiber &operator=(const fiber &) = delete;

  /// Runs the fiber until it suspends or finishes. Called by the scheduler.
  void resume();
  /// Called from inside the fiber: returns to the scheduler.
  void suspend();
  /// Called from inside the fiber (from a signal handler on another stack): returns to the
  /// scheduler for good, abandoning the fiber's stack where it stands.
  [[noreturn]] void abandon() noexcept;
  bool finished() const noexcept { return finished_; }
  /// The lowest address of the fiber's stack.
  std::uintptr_t stack_low() const noexcept { return reinterpret_cast<std::uintptr_t>(stack_) - pool_.size(); }
  /// Whether a fault at `address`, with the stack pointer at `sp`, is this fiber running off
  /// the end of its stack.
  bool overflowed(std::uintptr_t address, std::uintptr_t sp) const noexcept;
  /// Whether the stack pointer `sp` is in this fiber's stack (or its guard): code of the
  /// fiber's was running.
  bool runs_on(std::uintptr_t sp) const noexcept;

private:
  static void trampoline(boost::context::detail::transfer_t t);
  // The jumps between the scheduler and the fiber, each told to the sanitizers first (they
  // track which stack is running: ASan to check stack accesses, TSan to order the fibers).
  boost::context::detail::transfer_t jump_to_fiber();
  boost::context::detail::transfer_t jump_to_scheduler(bool for_good);
  void arrived_on_fiber();
  void arrived_on_scheduler();

  stack_pool &pool_;
  void *stack_;
  void (*entry_)(void *);
  void *arg_;
  context self_ = nullptr;      // where the fiber continues
  context scheduler_ = nullptr; // where suspend() returns to
  bool finished_ = false;
  // What the sanitizers need to switch stacks; unused in builds without them.
  const void *scheduler_stack_low_ = nullptr; // ASan: the scheduler's stack
  std::size_t scheduler_stack_size_ = 0;
  void *scheduler_fake_stack_ = nullptr; // ASan: the scheduler's fake frames while away
  void *fiber_fake_stack_ = nullptr;     // ASan: the fiber's fake frames while suspended
  void *tsan_fiber_ = nullptr;           // TSan: the fiber's state
  void *tsan_scheduler_ = nullptr;       // TSan: the scheduler's state
};

/// A hardware fault: SIGSEGV, SIGBUS, SIGFPE or SIGILL (a trap), its si_code, the address it
/// names (the access's, or the faulting instruction's for SIGFPE and SIGILL) and the stack
/// pointer at the fault.
struct fault {
  int signal;
  int code;
  std::uintptr_t address;
  std::uintptr_t sp;
};

/// Makes a hardware fault on this host thread call `on_fault` (on a signal stack of its own,
/// so that a stack overflow can be handled) instead of killing the process: it returns the
/// fiber that faulted, which is then abandoned, or null for a fault that is not a fiber's,
/// which goes to the handler that was there before. Idempotent per host thread.
void install_fault_handler(fiber *(*on_fault)(const fault &));

} // namespace kernel::runtime::sim
