// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's CUB calls (runtime/cub/) without a GPU: libkernel_cub.so is found in the
// program's runfiles and carries its interface, and every call declines, queuing nothing,
// where CUB cannot run: on the simulator, on devices older than its kernels, when turned off
// or not found, for widths and sizes it was not built for, and where its CUDA runtime cannot
// start (here: no driver). What CUB computes is checked on a GPU by algorithm_test
// (Cub.SameResultsAsTheLibrarysKernels) in the GPU suite.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "device/device_state.h"
#include "kernel/detail/cub_api.h"
#include "kernel/kernel.h"
#include "scoped_environment.h"

namespace {

using kernel::detail::cub_sort_buffers;
using kernel::detail::cub_unavailable;
using kernel::detail::radix_sort_cub;
using kernel::detail::sum_scan_cub;

// A CUDA device of a given architecture that is never given work: each call here must
// decline before CUB would allocate or launch.
class unused_cuda_device final : public kernel::detail::device_state {
public:
  explicit unused_cuda_device(int capability) : capability_(capability), number_(++made) {}
  // A name of its own: what CUB's runtime refused is remembered by device name.
  std::string name() const override {
    return "cuda:9 (test " + std::to_string(number_) + ", sm_" + std::to_string(capability_) + ")";
  }
  bool is_simulator() const noexcept override { return false; }
  int compute_capability() const noexcept override { return capability_; }
  std::shared_ptr<kernel::detail::stream_state> create_stream() override { throw unused(); }
  std::shared_ptr<kernel::detail::event_state> create_event() override { throw unused(); }
  void *allocate(std::size_t, kernel::detail::stream_state &) override { throw unused(); }
  void release(void *, kernel::detail::stream_state &) noexcept override { std::abort(); }
  void copy(void *, const void *, std::size_t, kernel::detail::copy_direction,
            kernel::detail::stream_state &) override {
    throw unused();
  }
  void zero(void *, std::size_t, kernel::detail::stream_state &) override { throw unused(); }
  void *allocate_pinned(std::size_t) override { throw unused(); }
  void release_pinned(void *, std::size_t) noexcept override { std::abort(); }
  void host_work(kernel::detail::stream_state &, kernel::detail::host_task) override { throw unused(); }
  kernel::detail::launch_config elementwise_config(const kernel::detail::kernel_ref &, kernel::index_t) override {
    throw unused();
  }
  kernel::detail::launch_config resident_config(const kernel::detail::kernel_ref &, kernel::index_t,
                                                unsigned) override {
    throw unused();
  }
  void launch(const kernel::detail::kernel_ref &, const kernel::detail::launch_config &, const void *, std::size_t,
              kernel::detail::stream_state &) override {
    throw unused();
  }
  void synchronize() override { throw unused(); }

private:
  static std::logic_error unused() { return std::logic_error("a declined CUB call used the device"); }
  static inline int made = 0;
  int capability_, number_;
};

// A stream to name in the calls (the simulator's: never reached).
kernel::detail::stream_state &some_stream() {
  static const kernel::stream s(kernel::device::simulator());
  return *s.state();
}

int sort_on(kernel::detail::device_state &d, unsigned key_bytes = 4, unsigned value_bytes = 0, kernel::index_t n = 10,
            int end_bit = 32) {
  cub_sort_buffers b;
  return radix_sort_cub("sort", key_bytes, value_bytes, b, n, end_bit, d, some_stream());
}

bool has_driver() {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!driver) driver = dlopen("libcuda.so.1", RTLD_NOW);
  return driver != nullptr;
}

TEST(Cub, TheSimulatorAndOlderDevicesUseTheLibrarysKernels) {
  const kernel::device sim = kernel::device::simulator();
  EXPECT_NE(cub_unavailable(sim.state()).find("simulator"), std::string::npos);
  EXPECT_EQ(sort_on(sim.state()), -1);
  unused_cuda_device volta(70);
  EXPECT_NE(cub_unavailable(volta).find("older than the oldest architecture CUB was built for (sm_75)"),
            std::string::npos)
      << cub_unavailable(volta);
  EXPECT_EQ(sort_on(volta), -1);
  const float zero = 0;
  EXPECT_FALSE(sum_scan_cub("cumsum", kernel::dtype::float32, kernel::dtype::float32, true, nullptr, nullptr, &zero, 10,
                            volta, some_stream()));
}

TEST(Cub, TurnedOffOrNotFound) {
  unused_cuda_device hopper(90);
  {
    const kernel_test::scoped_environment off("KERNEL_CUB", "0");
    EXPECT_NE(cub_unavailable(hopper).find("KERNEL_CUB=0"), std::string::npos);
    EXPECT_EQ(sort_on(hopper), -1);
  }
  const kernel_test::scoped_environment elsewhere("KERNEL_CUB_LIBRARY", "/nonexistent/libkernel_cub.so");
  const std::string why = cub_unavailable(hopper);
  EXPECT_NE(why.find("libkernel_cub.so could not be loaded"), std::string::npos) << why;
  EXPECT_NE(why.find("/nonexistent/libkernel_cub.so"), std::string::npos) << why;
  EXPECT_EQ(sort_on(hopper), -1);
}

TEST(Cub, WidthsAndSizesItWasNotBuiltForDecline) {
  unused_cuda_device hopper(90);
  EXPECT_EQ(sort_on(hopper, 3), -1);
  EXPECT_EQ(sort_on(hopper, 4, 2), -1);
  EXPECT_EQ(sort_on(hopper, 4, 16), -1);
  EXPECT_EQ(sort_on(hopper, 4, 0, 0), -1);
  EXPECT_EQ(sort_on(hopper, 4, 0, kernel::index_t{1} << 32), -1);
  EXPECT_EQ(sort_on(hopper, 4, 0, 10, 0), -1);
  EXPECT_EQ(sort_on(hopper, 4, 0, 10, 33), -1);
  const std::int64_t zero = 0;
  // Narrow sums, sums narrowed or widened otherwise than cumsum widens, complex sums.
  using kernel::dtype;
  for (const auto &[from, to] : {std::pair{dtype::int8, dtype::int8},
                                 {dtype::uint16, dtype::uint16},
                                 {dtype::boolean, dtype::boolean},
                                 {dtype::complex64, dtype::complex64},
                                 {dtype::int64, dtype::int32},
                                 {dtype::uint8, dtype::int64},
                                 {dtype::int32, dtype::uint64},
                                 {dtype::float32, dtype::float64}})
    EXPECT_FALSE(sum_scan_cub("cumsum", from, to, false, nullptr, nullptr, &zero, 10, hopper, some_stream()));
}

// The library as the build packs it, loaded from the runfiles: with no driver its CUDA runtime
// cannot start, which the first call finds out while sizing its work area, and declines.
TEST(Cub, WithoutADriverTheFirstCallDeclines) {
  if (has_driver()) GTEST_SKIP() << "this machine has a CUDA driver";
  unused_cuda_device hopper(90);
  EXPECT_EQ(cub_unavailable(hopper), "");
  EXPECT_EQ(sort_on(hopper, 8, 8), -1);
  const std::string why = cub_unavailable(hopper);
  EXPECT_NE(why.find("CUB's CUDA runtime cannot start on " + hopper.name() + ": cuda"), std::string::npos) << why;
  const std::int64_t zero = 0;
  EXPECT_FALSE(sum_scan_cub("cumsum", kernel::dtype::int32, kernel::dtype::int64, true, nullptr, nullptr, &zero, 10,
                            hopper, some_stream()));
}

} // namespace
