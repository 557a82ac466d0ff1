#include "simulator/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

namespace kernel::runtime::sim {

namespace ctx = boost::context::detail;

stack_pool::stack_pool(std::size_t size) : page_(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))) {
  size_ = (size + page_ - 1) / page_ * page_;
}

stack_pool::~stack_pool() {
  for (void *m : mappings_) ::munmap(m, size_ + page_);
}

void *stack_pool::acquire() {
  if (!free_.empty()) {
    void *top = free_.back();
    free_.pop_back();
    return top;
  }
  void *m = ::mmap(nullptr, size_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  ::mprotect(m, page_, PROT_NONE); // the guard page, below the stack
  mappings_.push_back(m);
  return static_cast<char *>(m) + page_ + size_;
}

void stack_pool::release(void *top) noexcept { free_.push_back(top); }

fiber::fiber(stack_pool &pool, void (*entry)(void *), void *arg)
    : pool_(pool), stack_(pool.acquire()), entry_(entry), arg_(arg) {
  self_ = ctx::make_fcontext(stack_, pool.size(), &fiber::trampoline);
}

fiber::~fiber() { pool_.release(stack_); }

void fiber::trampoline(ctx::transfer_t t) {
  auto *f = static_cast<fiber *>(t.data);
  f->scheduler_ = t.fctx;
  f->entry_(f->arg_);
  f->finished_ = true;
  ctx::jump_fcontext(f->scheduler_, nullptr); // never resumed again
}

void fiber::resume() {
  ctx::transfer_t t = ctx::jump_fcontext(self_, this);
  self_ = t.fctx;
}

void fiber::suspend() {
  ctx::transfer_t t = ctx::jump_fcontext(scheduler_, nullptr);
  scheduler_ = t.fctx;
}

} // namespace kernel::runtime::sim
