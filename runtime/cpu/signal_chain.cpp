// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cpu/signal_chain.h"

#include <pthread.h>
#include <ucontext.h>

namespace kernel::runtime {

interrupted_at registers_of(const void *context) noexcept {
  const auto *uc = static_cast<const ucontext_t *>(context);
#if defined(__x86_64__)
  return {static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]),
          static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP])};
#elif defined(__aarch64__)
  return {static_cast<std::uintptr_t>(uc->uc_mcontext.sp), static_cast<std::uintptr_t>(uc->uc_mcontext.pc)};
#else
  (void)uc;
  return {};
#endif
}

void restore_interrupted_mask(const void *context) noexcept {
  ::pthread_sigmask(SIG_SETMASK, &static_cast<const ucontext_t *>(context)->uc_sigmask, nullptr);
}

void pass_to(const struct sigaction &previous, int signal, siginfo_t *info, void *context) noexcept {
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_IGN && previous.sa_handler != SIG_DFL) {
    previous.sa_handler(signal);
  } else {
    ::sigaction(signal, &previous, nullptr);
    if (info->si_code <= 0) ::raise(signal);
  }
}

} // namespace kernel::runtime
