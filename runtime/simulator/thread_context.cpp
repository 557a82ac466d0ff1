// Host implementations of the thread-index hooks (kernel/intrinsics.h).
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

thread_scope::thread_scope(thread_context &ctx) noexcept : previous_(current) { current = &ctx; }
thread_scope::~thread_scope() { current = previous_; }

} // namespace kernel::runtime::sim

using kernel::runtime::sim::current_thread;

extern "C" {
std::uint32_t __kernel_tid_x() noexcept { return current_thread().thread_idx.x; }
std::uint32_t __kernel_tid_y() noexcept { return current_thread().thread_idx.y; }
std::uint32_t __kernel_tid_z() noexcept { return current_thread().thread_idx.z; }
std::uint32_t __kernel_ntid_x() noexcept { return current_thread().block_dim.x; }
std::uint32_t __kernel_ntid_y() noexcept { return current_thread().block_dim.y; }
std::uint32_t __kernel_ntid_z() noexcept { return current_thread().block_dim.z; }
std::uint32_t __kernel_ctaid_x() noexcept { return current_thread().block_idx.x; }
std::uint32_t __kernel_ctaid_y() noexcept { return current_thread().block_idx.y; }
std::uint32_t __kernel_ctaid_z() noexcept { return current_thread().block_idx.z; }
std::uint32_t __kernel_nctaid_x() noexcept { return current_thread().grid_dim.x; }
std::uint32_t __kernel_nctaid_y() noexcept { return current_thread().grid_dim.y; }
std::uint32_t __kernel_nctaid_z() noexcept { return current_thread().grid_dim.z; }
}
