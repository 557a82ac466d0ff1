// Which simulated thread each host thread is running.
#include "simulator/thread_context.h"

#include <cstdint>

namespace kernel::runtime::sim {

namespace {
thread_context outside_launch;
// initial-exec: a hook is called for every index a kernel reads, so this must be one
// fs-relative load, not a call to __tls_get_addr.
__attribute__((tls_model("initial-exec"))) thread_local thread_context *current = nullptr;
} // namespace

thread_context &current_thread() noexcept { return current ? *current : outside_launch; }

void set_current_thread(thread_context *ctx) noexcept { current = ctx; }

thread_scope::thread_scope(thread_context &ctx) noexcept : previous_(current) { current = &ctx; }
thread_scope::~thread_scope() { current = previous_; }

} // namespace kernel::runtime::sim
