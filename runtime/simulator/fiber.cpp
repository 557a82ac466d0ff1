// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "simulator/fiber.h"

#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <new>
#include <system_error>

#include "cpu/signal_chain.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KERNEL_SIM_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define KERNEL_SIM_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(KERNEL_SIM_ASAN)
#define KERNEL_SIM_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(KERNEL_SIM_TSAN)
#define KERNEL_SIM_TSAN 1
#endif

// The sanitizers' fiber interfaces, declared here: their headers (<sanitizer/...>) are in
// no module the layering check knows of.
#ifdef KERNEL_SIM_ASAN
extern "C" {
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, std::size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old, std::size_t *size_old);
void __asan_unpoison_memory_region(const volatile void *addr, std::size_t size);
}
#endif
#ifdef KERNEL_SIM_TSAN
extern "C" {
void *__tsan_get_current_fiber();
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
}
#endif

namespace kernel::runtime::sim {

namespace ctx = boost::context::detail;

std::size_t stack_pool::rounded(std::size_t size) noexcept {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (size + page - 1) / page * page;
}

stack_pool::stack_pool(std::size_t size) : size_(rounded(size)) {}

stack_pool::~stack_pool() {
  // A simulated thread's code that calls exit() runs the thread's destructors, this one among
  // them, on a stack of this pool: unmapping it would pull the stack from under the exit.
  // The process is ending; the mappings are left to it.
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  for (void *m : mappings_) {
    const auto lo = reinterpret_cast<std::uintptr_t>(m);
    if (here >= lo && here < lo + guard_bytes + size_) return;
  }
  for (void *m : mappings_) ::munmap(m, guard_bytes + size_);
}

void *stack_pool::acquire() {
  if (!free_.empty()) {
    void *top = free_.back();
    free_.pop_back();
    return top;
  }
  // The guard first, then the stack made accessible above it.
  void *m = ::mmap(nullptr, guard_bytes + size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  if (::mprotect(static_cast<char *>(m) + guard_bytes, size_, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(m, guard_bytes + size_);
    throw std::bad_alloc();
  }
  mappings_.push_back(m);
  return static_cast<char *>(m) + guard_bytes + size_;
}

void stack_pool::release(void *top) noexcept { free_.push_back(top); }

fiber::fiber(stack_pool &pool, void (*entry)(void *), void *arg)
    : pool_(pool), stack_(pool.acquire()), entry_(entry), arg_(arg) {
#ifdef KERNEL_SIM_ASAN
  // A recycled stack may hold the redzones of frames of a fiber that was abandoned or never
  // finished; they would make this fiber's accesses look like overflows.
  __asan_unpoison_memory_region(reinterpret_cast<void *>(stack_low()), pool.size());
#endif
#ifdef KERNEL_SIM_TSAN
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
  self_ = ctx::make_fcontext(stack_, pool.size(), &fiber::trampoline);
}

fiber::~fiber() {
#ifdef KERNEL_SIM_TSAN
  __tsan_destroy_fiber(tsan_fiber_);
#endif
  pool_.release(stack_);
}

ctx::transfer_t fiber::jump_to_fiber() {
#ifdef KERNEL_SIM_ASAN
  __sanitizer_start_switch_fiber(&scheduler_fake_stack_, reinterpret_cast<const void *>(stack_low()), pool_.size());
#endif
#ifdef KERNEL_SIM_TSAN
  tsan_scheduler_ = __tsan_get_current_fiber();
  // Flags 0: the switch orders everything before it before everything after it, as the
  // scheduler does (one fiber runs at a time); the simulator checks races of its own.
  __tsan_switch_to_fiber(tsan_fiber_, 0);
#endif
  return ctx::jump_fcontext(self_, this);
}

ctx::transfer_t fiber::jump_to_scheduler([[maybe_unused]] bool for_good) {
#ifdef KERNEL_SIM_ASAN
  // A fiber that leaves for good passes no place to save its fake frames: ASan frees them.
  __sanitizer_start_switch_fiber(for_good ? nullptr : &fiber_fake_stack_, scheduler_stack_low_, scheduler_stack_size_);
#endif
#ifdef KERNEL_SIM_TSAN
  __tsan_switch_to_fiber(tsan_scheduler_, 0);
#endif
  return ctx::jump_fcontext(scheduler_, nullptr);
}

void fiber::arrived_on_fiber() {
#ifdef KERNEL_SIM_ASAN
  __sanitizer_finish_switch_fiber(fiber_fake_stack_, &scheduler_stack_low_, &scheduler_stack_size_);
#endif
}

void fiber::arrived_on_scheduler() {
#ifdef KERNEL_SIM_ASAN
  __sanitizer_finish_switch_fiber(scheduler_fake_stack_, nullptr, nullptr);
#endif
}

void fiber::trampoline(ctx::transfer_t t) {
  auto *f = static_cast<fiber *>(t.data);
  f->arrived_on_fiber();
  f->scheduler_ = t.fctx;
  f->entry_(f->arg_);
  f->finished_ = true;
  f->jump_to_scheduler(true); // never resumed again
}

void fiber::resume() {
  ctx::transfer_t t = jump_to_fiber();
  arrived_on_scheduler();
  self_ = t.fctx;
}

void fiber::abandon() noexcept {
  jump_to_scheduler(true);
  __builtin_unreachable(); // the scheduler never resumes an abandoned fiber
}

bool fiber::overflowed(std::uintptr_t address, std::uintptr_t sp) const noexcept {
  const auto bottom = reinterpret_cast<std::uintptr_t>(stack_) - pool_.size();
  const std::uintptr_t guard = bottom - stack_pool::guard_bytes;
  // A fault in the guard, or anywhere with the stack pointer run past the stack's end (a
  // frame larger than the guard).
  return (address >= guard && address < bottom) || (sp < bottom && bottom - sp < (std::uintptr_t{1} << 32));
}

bool fiber::runs_on(std::uintptr_t sp) const noexcept {
  const auto top = reinterpret_cast<std::uintptr_t>(stack_);
  return sp < top && sp >= top - pool_.size() - stack_pool::guard_bytes;
}

void fiber::suspend() {
  ctx::transfer_t t = jump_to_scheduler(false);
  arrived_on_fiber();
  scheduler_ = t.fctx;
}

namespace {

// The signals a kernel's code can raise by itself, and the actions that were there before.
constexpr int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction previous_actions[std::size(fault_signals)];
fiber *(*fault_callback)(const fault &) = nullptr;

struct sigaction &previous_action(int signal) {
  std::size_t i = 0;
  while (fault_signals[i] != signal) ++i;
  return previous_actions[i];
}

// The C library's code. A fault there (printf given a bad pointer) may hold one of its
// locks (stdout's), which abandoning the fiber would never release: such faults are left
// to the handler before ours, as they were.
struct code_range {
  std::uintptr_t lo = 0, hi = 0;
  bool contains(std::uintptr_t pc) const noexcept { return pc >= lo && pc < hi; }
};
code_range c_library;

// The executable segment of the loaded object whose file name contains `name` (found by name:
// the sanitizers interpose the C library's functions, so their addresses are not its own).
code_range executable_segment_of(const char *name) {
  struct query {
    const char *name;
    code_range found;
  } q{name, {}};
  ::dl_iterate_phdr(
      [](dl_phdr_info *info, std::size_t, void *data) {
        auto &q = *static_cast<query *>(data);
        if (!info->dlpi_name || !std::strstr(info->dlpi_name, q.name)) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            const std::uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
            q.found = {lo, lo + ph.p_memsz};
            return 1;
          }
        }
        return 0;
      },
      &q);
  return q.found;
}

void on_fault(int signal, siginfo_t *info, void *context) {
  // Faults only (si_code > 0): not a signal someone sent with kill or raise.
  const interrupted_at at = registers_of(context);
  const bool recoverable = info->si_code > 0 && !c_library.contains(at.pc);
  if (fiber *f = recoverable
                     ? fault_callback({signal, info->si_code, reinterpret_cast<std::uintptr_t>(info->si_addr), at.sp})
                     : nullptr) {
    // The handler never returns, so nothing restores the signal mask the kernel set for it:
    // left blocked on this thread, the signal's next fault would kill the process.
    restore_interrupted_mask(context);
    f->abandon();
  }
  pass_to(previous_action(signal), signal, info, context);
}

// A stack for the handler: the fault it handles is the thread's stack running out.
struct signal_stack {
  static constexpr std::size_t bytes = 64 * 1024;
  void *memory = nullptr;
  signal_stack() {
    stack_t current{};
    if (::sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return; // the thread has one
    memory = std::malloc(bytes);
    if (!memory) throw std::bad_alloc();
    stack_t s{};
    s.ss_sp = memory;
    s.ss_size = bytes;
    if (::sigaltstack(&s, nullptr) != 0) {
      std::free(memory);
      memory = nullptr;
      throw std::system_error(errno, std::generic_category(), "sigaltstack for the simulator's threads");
    }
  }
  ~signal_stack() {
    if (!memory) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    std::free(memory);
  }
  signal_stack(const signal_stack &) = delete;
  signal_stack &operator=(const signal_stack &) = delete;
};

} // namespace

void install_fault_handler(fiber *(*on_fault_of_fiber)(const fault &)) {
  static std::once_flag once;
  std::call_once(once, [&] {
    fault_callback = on_fault_of_fiber;
    c_library = executable_segment_of("/libc.so");
    struct sigaction action{};
    action.sa_sigaction = &on_fault;
    // SA_NODEFER: the handler leaves by switching to the scheduler, never returning, so the
    // signal must not stay blocked.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(fault_signals); ++i)
      if (::sigaction(fault_signals[i], &action, &previous_actions[i]) != 0)
        throw std::system_error(errno, std::generic_category(), "fault handlers for the simulator");
  });
  thread_local signal_stack stack;
}

} // namespace kernel::runtime::sim
