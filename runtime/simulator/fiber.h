// Fibers for simulated GPU threads: each thread of a block runs on its own small stack and
// switches back to the block's scheduler when it waits at a barrier or a warp operation.
// Built on boost.context's fcontext, whose contexts can be abandoned without unwinding:
// when a thread fails a check, its fiber is dropped where it stands (kernel code is
// noexcept, so it cannot be unwound).
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>
#include <vector>

namespace kernel::runtime::sim {

/// Stacks for fibers, recycled across blocks; each has a guard page below it, so that a
/// kernel overflowing its stack faults instead of corrupting the next one.
class stack_pool {
public:
  explicit stack_pool(std::size_t size);
  ~stack_pool();
  stack_pool(const stack_pool &) = delete;
  stack_pool &operator=(const stack_pool &) = delete;

  /// The top (highest address) of a stack of size() bytes.
  void *acquire();
  void release(void *top) noexcept;
  std::size_t size() const noexcept { return size_; }

private:
  std::size_t size_;
  std::size_t page_;
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
  bool finished() const noexcept { return finished_; }

private:
  static void trampoline(boost::context::detail::transfer_t t);

  stack_pool &pool_;
  void *stack_;
  void (*entry_)(void *);
  void *arg_;
  context self_ = nullptr;      // where the fiber continues
  context scheduler_ = nullptr; // where suspend() returns to
  bool finished_ = false;
};

} // namespace kernel::runtime::sim
