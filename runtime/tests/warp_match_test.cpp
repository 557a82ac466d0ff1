// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// match_any_sync, match_all_sync and lanemask_lt, as CUDA's __match_any_sync,
// __match_all_sync and %lanemask_lt (Numba's cuda.match_any_sync ...), on the simulator (or
// the GPU under KERNEL_TEST_DEVICE=cuda).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernel/kernel.h"
#include "test_device.h"

using kernel::array_view;
using kernel::index_t;

// Per thread: match_any of a 32-bit, a 64-bit and a float value, match_all (lanes and
// predicate) of a value that is uniform in even warps only, and lanemask_lt.
[[kernel::jit]] void matches(array_view<std::uint32_t, 2> out) {
  const index_t i = kernel::grid<1>();
  const std::uint32_t lane = kernel::laneid();
  const std::uint32_t warp = static_cast<std::uint32_t>(i / 32);
  out(i, 0) = kernel::match_any_sync(kernel::full_mask, lane % 3);
  // Differs from lane to lane only above bit 32.
  out(i, 1) = kernel::match_any_sync(kernel::full_mask, std::uint64_t{lane % 2} << 40);
  out(i, 2) = kernel::match_any_sync(kernel::full_mask, lane < 16 ? 1.5f : -0.0f);
  bool equal = false;
  out(i, 3) = kernel::match_all_sync(kernel::full_mask, warp % 2 == 0 ? 7u : lane, equal);
  out(i, 4) = equal;
  // A mask of the low half: the high lanes do not take part.
  if (lane < 16) {
    out(i, 5) = kernel::match_all_sync(0xffffu, std::int64_t{-3}, equal);
    out(i, 6) = equal;
  }
  out(i, 7) = kernel::lanemask_lt();
}

// The special registers given to the warp operations as CUDA's are: threadIdx.x is an object
// that reads a register, moved and compared as the unsigned it stands for (a shuffle of the
// object itself left each lane its own value).
[[kernel::jit]] void registers_across_lanes(array_view<std::uint32_t, 2> out) {
  const index_t i = kernel::grid<1>();
  out(i, 0) = kernel::shfl_sync(kernel::full_mask, kernel::threadIdx.x, 0);
  out(i, 1) = kernel::shfl_xor_sync(kernel::full_mask, kernel::threadIdx.x, 1);
  out(i, 2) = kernel::shfl_down_sync(kernel::full_mask, kernel::threadIdx.x, 1);
  out(i, 3) = kernel::shfl_up_sync(kernel::full_mask, kernel::blockIdx.x, 1);
  out(i, 4) = kernel::match_any_sync(kernel::full_mask, kernel::threadIdx.x);
  bool equal = false;
  out(i, 5) = kernel::match_all_sync(kernel::full_mask, kernel::blockDim.x, equal);
  out(i, 6) = equal;
}

namespace {

TEST(WarpMatch, SpecialRegistersAsTheirValues) {
  constexpr index_t threads = 64;
  kernel::ndarray<std::uint32_t, 2> out({threads, 7});
  kernel::launch<registers_across_lanes>(2, 32).on(kernel_test::target())(out);
  for (index_t i = 0; i < threads; ++i) {
    const std::uint32_t lane = static_cast<std::uint32_t>(i % 32);
    SCOPED_TRACE("thread " + std::to_string(i));
    EXPECT_EQ(out(i, 0), 0u);
    EXPECT_EQ(out(i, 1), lane ^ 1u);
    EXPECT_EQ(out(i, 2), lane == 31 ? 31u : lane + 1);
    EXPECT_EQ(out(i, 3), static_cast<std::uint32_t>(i / 32));
    EXPECT_EQ(out(i, 4), 1u << lane);
    EXPECT_EQ(out(i, 5), 0xffffffffu);
    EXPECT_EQ(out(i, 6), 1u);
  }
}

TEST(WarpMatch, MatchAnyMatchAllLanemask) {
  constexpr index_t threads = 128;
  kernel::ndarray<std::uint32_t, 2> out({threads, 8});
  kernel::launch<matches>(2, 64).on(kernel_test::target())(out);
  std::uint32_t by_residue[3] = {0, 0, 0};
  for (std::uint32_t lane = 0; lane < 32; ++lane) by_residue[lane % 3] |= 1u << lane;
  for (index_t i = 0; i < threads; ++i) {
    const std::uint32_t lane = static_cast<std::uint32_t>(i % 32);
    const bool even_warp = (i / 32) % 2 == 0;
    SCOPED_TRACE("thread " + std::to_string(i));
    EXPECT_EQ(out(i, 0), by_residue[lane % 3]);
    EXPECT_EQ(out(i, 1), lane % 2 ? 0xaaaaaaaau : 0x55555555u);
    EXPECT_EQ(out(i, 2), lane < 16 ? 0x0000ffffu : 0xffff0000u);
    EXPECT_EQ(out(i, 3), even_warp ? 0xffffffffu : 0u);
    EXPECT_EQ(out(i, 4), even_warp ? 1u : 0u);
    if (lane < 16) {
      EXPECT_EQ(out(i, 5), 0xffffu);
      EXPECT_EQ(out(i, 6), 1u);
    }
    EXPECT_EQ(out(i, 7), (1u << lane) - 1u);
  }
}

} // namespace
