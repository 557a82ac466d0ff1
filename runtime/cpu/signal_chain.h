// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the runtime's handlers of a thread's own faults share (the simulator's SIGSEGV, SIGBUS
// and SIGFPE handler, the CPU targets' division-trap handler): where the signal interrupted
// the thread, and handing the signal on to the handler installed before when it is not theirs.
#pragma once

#include <signal.h>

#include <cstdint>

namespace kernel::runtime {

/// The stack pointer and the program counter where a signal interrupted the thread, from the
/// handler's context (0 on architectures not read here).
struct interrupted_at {
  std::uintptr_t sp = 0, pc = 0;
};
interrupted_at registers_of(const void *context) noexcept;

/// Puts back the signal mask the thread had when the signal came, for a handler that leaves
/// by jumping instead of returning: a handler in front of ours (TSan's) may have blocked every
/// signal while it called it.
void restore_interrupted_mask(const void *context) noexcept;

/// Hands `signal` to `previous`, the action installed before ours. Under the default action a
/// fault happens again when our handler returns; a signal someone sent (si_code <= 0: kill,
/// raise) is sent again, or it would be lost.
void pass_to(const struct sigaction &previous, int signal, siginfo_t *info, void *context) noexcept;

} // namespace kernel::runtime
