// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Integer division traps in the user's functions on the CPU targets. x86 raises SIGFPE for
// an integer division by zero and for INT_MIN / -1; NumPy gives 0 and Numba raises
// ZeroDivisionError, but a C++ program simply ended. While run_trapping runs a body, a trap
// of this thread's (at a stack address inside the body's frames) jumps back to it, which
// throws arithmetic_error. Any other SIGFPE, and any on another thread or stack (a simulated
// thread's fiber, whose faults the simulator reports), goes to the handler installed before.
// The frames between are left without running their destructors, as the simulator leaves a
// faulting thread's.
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>

#include <cerrno>
#include <cstdint>
#include <mutex>
#include <string>
#include <system_error>

#include "cpu/signal_chain.h"
#include "kernel/detail/runtime_api.h"
#include "kernel/errors.h"

namespace kernel::detail {

namespace {

struct trap_guard {
  sigjmp_buf return_to;
  // The thread's own stack, on which the body runs: a trap with the stack pointer elsewhere
  // is a simulated thread's, on its fiber's stack (a body may launch a simulated kernel).
  std::uintptr_t stack_lo, stack_hi;
};
// The guard of the body this thread runs now, if any (a body may run another: nested).
constinit thread_local trap_guard *current_guard = nullptr;
struct sigaction previous_action;

// This thread's stack, found once per thread.
struct thread_stack {
  std::uintptr_t lo = 0, hi = 0;
  thread_stack() {
    pthread_attr_t attr;
    if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return;
    void *base = nullptr;
    std::size_t size = 0;
    if (::pthread_attr_getstack(&attr, &base, &size) == 0) {
      lo = reinterpret_cast<std::uintptr_t>(base);
      hi = lo + size;
    }
    ::pthread_attr_destroy(&attr);
  }
};

void on_arithmetic_trap(int signal, siginfo_t *info, void *context) {
  trap_guard *guard = current_guard;
  const std::uintptr_t sp = runtime::registers_of(context).sp;
  if (guard && info->si_code > 0 && (info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF) &&
      sp >= guard->stack_lo && sp < guard->stack_hi) {
    // The handler does not return: the mask the signal came with is put back first.
    runtime::restore_interrupted_mask(context);
    siglongjmp(guard->return_to, 1);
  }
  runtime::pass_to(previous_action, signal, info, context);
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action{};
    action.sa_sigaction = &on_arithmetic_trap;
    // SA_NODEFER: the handler leaves by siglongjmp, so SIGFPE must not stay blocked.
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    if (::sigaction(SIGFPE, &action, &previous_action) != 0)
      throw std::system_error(errno, std::generic_category(), "the arithmetic trap handler of the CPU targets");
  });
}

} // namespace

void run_trapping(std::string_view callee, void (*body)(void *, index_t, index_t), void *context, index_t begin,
                  index_t end) {
  install_handler();
  trap_guard guard;
  thread_local const thread_stack stack;
  const auto here = reinterpret_cast<std::uintptr_t>(&guard);
  if (here < stack.lo || here >= stack.hi) {
    // On a simulated thread's fiber (a host implementation called by a kernel): its traps are
    // the simulator's to report, and a guard left here by a fiber it abandons would dangle.
    body(context, begin, end);
    return;
  }
  trap_guard *const outer = current_guard;
  guard.stack_lo = stack.lo;
  guard.stack_hi = stack.hi;
  if (sigsetjmp(guard.return_to, 0) != 0) {
    current_guard = outer;
    throw arithmetic_error("'" + std::string(callee) +
                           "': an integer division by zero (or of the most negative value by -1); NumPy gives 0 "
                           "there and a GPU an undefined value: test the divisor first");
  }
  current_guard = &guard;
  try {
    body(context, begin, end);
  } catch (...) {
    current_guard = outer;
    throw;
  }
  current_guard = outer;
}

void loop_trapping(std::string_view callee, bool parallel, index_t n, index_t grain,
                   void (*body)(void *, index_t, index_t), void *context) {
  if (!parallel) {
    run_trapping(callee, body, context, 0, n);
    return;
  }
  struct job {
    std::string_view callee;
    void (*body)(void *, index_t, index_t);
    void *context;
  } j{callee, body, context};
  parallel_for(
      n, grain,
      [](void *ctx, index_t b, index_t e) {
        const job &jb = *static_cast<const job *>(ctx);
        run_trapping(jb.callee, jb.body, jb.context, b, e);
      },
      &j);
}

} // namespace kernel::detail
