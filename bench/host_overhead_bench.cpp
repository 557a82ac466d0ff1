// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's own host time per call, without a GPU: run on the null driver of
// bench/null_driver (a libcuda and a libcufft that do nothing), every driver and cuFFT call
// costs nothing, so what a call takes is what the runtime adds to the direct call a CUDA
// programmer would write. Each figure is per call, beside the same null call made directly
// (the baseline): nanoseconds, and instructions retired (where perf events are allowed),
// which a busy machine does not blur. On a real GPU the same binary prints host time per
// call, the driver's included.
//
//   bazel build -c opt //bench:host_overhead_bench //bench/null_driver:all
//   bench/null_driver/run bazel-bin/bench/host_overhead_bench      (sets the library paths)
//
// Under `perf record` it shows where the time goes; that is what it is for.
#include <kernel/fft.h>
#include <kernel/kernel.h>

#include <cuda.h>
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

[[kernel::vectorize("float32(float32, float32, float32)")]]
float saxpy(float a, float x, float y) { return a * x + y; }

[[kernel::jit]] void axpb(float a, kernel::array_view<const float> x, float b, kernel::array_view<float> out) {
  const kernel::index_t i = kernel::grid<1>();
  out[i] = a * x[i] + b;
}

namespace {

/// This thread's instructions retired in user space, where the kernel lets a process count
/// them (perf_event_open): unlike time, the same on a busy machine as on an idle one.
class instruction_counter {
public:
  instruction_counter() {
    perf_event_attr a{};
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd_ = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
  }
  ~instruction_counter() {
    if (fd_ >= 0) close(fd_);
  }
  bool available() const noexcept { return fd_ >= 0; }
  std::uint64_t read_now() const noexcept {
    std::uint64_t n = 0;
    if (fd_ < 0 || ::read(fd_, &n, sizeof n) != static_cast<ssize_t>(sizeof n)) return 0;
    return n;
  }

private:
  int fd_ = -1;
};

struct per_call {
  double ns = 0, instructions = 0;
};

/// Time and instructions per call of `f`: the best of several batches, the stream drained
/// between them.
template <class F> per_call measure(kernel::stream &s, F &&f) {
  static const instruction_counter counter;
  const int batch = 2000;
  per_call best{1e300, 1e300};
  for (int trial = 0; trial < 20; ++trial) {
    s.synchronize();
    const std::uint64_t i0 = counter.read_now();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch; ++i) f();
    const std::chrono::duration<double, std::nano> dt = std::chrono::steady_clock::now() - t0;
    const std::uint64_t i1 = counter.read_now();
    best.ns = std::min(best.ns, dt.count() / batch);
    best.instructions = std::min(best.instructions, static_cast<double>(i1 - i0) / batch);
  }
  s.synchronize();
  if (!counter.available()) best.instructions = 0;
  return best;
}

void report(const char *what, per_call ours, per_call direct) {
  std::printf("%-40s %7.0f ns per call (direct %4.0f)", what, ours.ns, direct.ns);
  if (ours.instructions > 0)
    std::printf(", %7.0f instructions (direct %4.0f)", ours.instructions, direct.instructions);
  std::printf("\n");
}

} // namespace

int main(int argc, char **argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  kernel::device gpu = kernel::device::cuda();
  std::printf("%s\n", gpu.name().c_str());
  kernel::stream s(gpu);
  // The direct call: the driver's cuLaunchKernel, found as the runtime found it.
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto *launch = driver ? reinterpret_cast<decltype(&::cuLaunchKernel)>(dlsym(driver, "cuLaunchKernel")) : nullptr;
  if (!launch) {
    std::fprintf(stderr, "host_overhead_bench: the loaded libcuda.so.1 has no cuLaunchKernel\n");
    return 1;
  }
  if (gpu.name().find("null GPU") == std::string::npos)
    std::printf("(a real driver: the direct figure is a launch it refuses, of no function; for ratios against "
                "real direct calls see bench/gpu_*_bench)\n");
  auto *cs = static_cast<CUstream>(s.native_handle());
  const auto raw_launch = [&] {
    void *params[4] = {};
    launch(nullptr, 4, 1, 1, 256, 1, 1, 0, cs, params, nullptr);
  };
  const per_call direct = measure(s, raw_launch);
  const auto wanted = [&](const char *name) { return only.empty() || only == name; };

  const long long n = 1024;
  kernel::device_array<float> x(n, s), y(n, s), out(n, s);
  if (wanted("ufunc")) {
    constexpr kernel::ufunc<saxpy> vsaxpy;
    const auto on_s = vsaxpy.on(s);
    report("ufunc on three device arrays", measure(s, [&] { on_s(2.0f, x, y, out); }), direct);
  }
  if (wanted("launch")) {
    auto k = kernel::launch<axpb>(n / 256, 256, s);
    report("launch of a 4-argument kernel", measure(s, [&] { k(2.0f, x, 1.0f, out); }), direct);
  }
  using cf = std::complex<float>;
  kernel::device_array<cf, 2> image({64, 64}, s);
  kernel::device_array<float, 2> plane({64, 64}, s);
  if (wanted("fft")) {
    report("fft_inplace 64^2 complex64", measure(s, [&] { kernel::fft_inplace.on(s)(image); }), direct);
    report("fft_inplace 64^2 complex64, ortho",
           measure(s, [&] { kernel::fft_inplace.on(s)(image, kernel::fft_norm::ortho); }), direct);
  }
  if (wanted("rfft2")) {
    report("rfft2 64^2 float32 (a new array)", measure(s, [&] { (void)kernel::rfft2.on(s)(plane); }), direct);
    const auto spectrum = kernel::rfft2.on(s)(plane);
    report("irfft2 64^2 float32 (a new array)",
           measure(s, [&] { (void)kernel::irfft2.on(s)(spectrum, {-2, -1}, {64, 64}); }), direct);
    // Into arrays made once, as the direct calls write theirs.
    kernel::device_array<cf, 2> coefficients({64, 33}, s);
    report("rfft2 64^2 float32 (into an array)", measure(s, [&] { kernel::rfft2.on(s)(plane, coefficients); }),
           direct);
    report("irfft2 64^2 float32 (into an array)",
           measure(s, [&] { kernel::irfft2.on(s)(spectrum, plane, {-2, -1}, {64, 64}); }), direct);
  }
  return 0;
}
