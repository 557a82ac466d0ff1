// Host implementations of the thread-index hooks (kernel/intrinsics.h). Outside a simulated
// launch they describe a grid of one thread, so a kernel called directly on the host runs
// its whole grid-stride loop serially.
#include <cstdint>

#include "kernel/intrinsics.h"

namespace kernel::detail {

extern "C" {
std::uint32_t __kernel_tid_x() noexcept { return 0; }
std::uint32_t __kernel_tid_y() noexcept { return 0; }
std::uint32_t __kernel_tid_z() noexcept { return 0; }
std::uint32_t __kernel_ntid_x() noexcept { return 1; }
std::uint32_t __kernel_ntid_y() noexcept { return 1; }
std::uint32_t __kernel_ntid_z() noexcept { return 1; }
std::uint32_t __kernel_ctaid_x() noexcept { return 0; }
std::uint32_t __kernel_ctaid_y() noexcept { return 0; }
std::uint32_t __kernel_ctaid_z() noexcept { return 0; }
std::uint32_t __kernel_nctaid_x() noexcept { return 1; }
std::uint32_t __kernel_nctaid_y() noexcept { return 1; }
std::uint32_t __kernel_nctaid_z() noexcept { return 1; }
}

} // namespace kernel::detail
