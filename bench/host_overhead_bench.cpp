// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The runtime's own host time per call, without a GPU: run on the null driver of
// bench/null_driver (a libcuda, libcufft, libcublas and libcusparse that do nothing), every
// driver and library call costs nothing, so what a call takes is what the runtime adds to the
// direct call a CUDA programmer would write. Each figure is per call, beside the same null call
// made directly (the baseline): nanoseconds, and instructions retired (where perf events are
// allowed), which a busy machine does not blur; then the driver and library calls each makes,
// which the null libraries count: on a real GPU each of those costs host time of its own
// (a launch about 2-3 us), which no null figure shows. On a real GPU the same binary prints
// host time per call, the driver's included.
//
//   bazel build -c opt //bench:host_overhead_bench //bench/null_driver:all
//   bench/null_driver/run bazel-bin/bench/host_overhead_bench [ufunc|launch|fft|rfft2|linalg|sparse]
//                                            (sets the library paths)
//
// Under `perf record` it shows where the time goes; that is what it is for.
#include <kernel/fft.h>
#include <kernel/kernel.h>
#include <kernel/linalg.h>
#include <kernel/sparse.h>

#include <cublas_v2.h>
#include <cuda.h>
#include <cufft.h>
#include <cusparse.h>
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "direct_library_calls.h"
#include "gpu_timing.h"

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

/// Calls into the null libraries by function name (the driver's, cuFFT's, cuBLAS's and
/// cuSPARSE's counts: bench/null_driver/null_calls.h); empty on the real libraries.
using call_counts = std::map<std::string, double>;

call_counts library_calls_so_far() {
  static constexpr std::pair<const char *, const char *> libraries[] = {
      {"libcuda.so.1", "null_cuda_calls"},
      {"libcufft.so.12", "null_cufft_calls"},
      {"libcublas.so.13", "null_cublas_calls"},
      {"libcusparse.so.12", "null_cusparse_calls"}};
  using query = std::size_t (*)(const char **, unsigned long long *, std::size_t);
  call_counts counts;
  for (const auto &[soname, name] : libraries) {
    // Loaded by the runtime on first use, so looked for each time (not counted: no library call).
    void *lib = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    if (!lib) continue;
    if (auto *read = reinterpret_cast<query>(dlsym(lib, name))) {
      const char *names[256];
      unsigned long long n[256];
      const std::size_t found = std::min<std::size_t>(read(names, n, 256), 256);
      for (std::size_t i = 0; i < found; ++i) counts[names[i]] += static_cast<double>(n[i]);
    }
    dlclose(lib);
  }
  return counts;
}

/// The library calls one call of `f` makes, on average over 100 (the stream's synchronisation
/// outside them).
template <class F> call_counts calls_per_call(kernel::stream &s, F &&f) {
  const int calls = 100;
  s.synchronize();
  const call_counts before = library_calls_so_far();
  for (int i = 0; i < calls; ++i) f();
  call_counts after = library_calls_so_far();
  s.synchronize();
  for (auto it = after.begin(); it != after.end();) {
    it->second = (it->second - (before.contains(it->first) ? before.at(it->first) : 0)) / calls;
    it = it->second > 0 ? std::next(it) : after.erase(it);
  }
  return after;
}

std::string describe(const call_counts &c) {
  std::string out;
  double total = 0;
  for (const auto &[name, n] : c) {
    char figure[32];
    std::snprintf(figure, sizeof figure, " %g", n);
    out += (out.empty() ? "" : ", ") + name + figure;
    total += n;
  }
  char head[48];
  std::snprintf(head, sizeof head, "%g", total);
  return std::string(head) + (out.empty() ? "" : " (" + out + ")");
}

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

/// report(), then the library calls of each where the null libraries count them: on a real
/// GPU each costs host time the null one does not.
template <class Ours, class Direct>
void compare(const char *what, kernel::stream &s, Ours &&ours, Direct &&direct, const per_call *direct_figure = nullptr) {
  const per_call direct_time = direct_figure ? *direct_figure : measure(s, direct);
  report(what, measure(s, ours), direct_time);
  const call_counts mine = calls_per_call(s, ours), theirs = calls_per_call(s, direct);
  if (!mine.empty() || !theirs.empty())
    std::printf("    library calls per call: %s; direct %s\n", describe(mine).c_str(), describe(theirs).c_str());
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
    compare("ufunc on three device arrays", s, [&] { on_s(2.0f, x, y, out); }, raw_launch, &direct);
  }
  if (wanted("launch")) {
    auto k = kernel::launch<axpb>(n / 256, 256, s);
    compare("launch of a 4-argument kernel", s, [&] { k(2.0f, x, 1.0f, out); }, raw_launch, &direct);
  }
  using cf = std::complex<float>;
  kernel::device_array<cf, 2> image({64, 64}, s);
  kernel::device_array<float, 2> plane({64, 64}, s);
  kernel::device_array<cf, 2> coefficients({64, 33}, s);
  if (wanted("fft") || wanted("rfft2")) {
    // The direct calls: cuFFT's, as the runtime loaded it, on plans made once.
    kernel::fft_inplace.on(s)(image);
    const bench::loaded_library cufft("libcufft.so.12", "cuFFT");
    const auto plan2d = cufft.get<decltype(&::cufftPlan2d)>("cufftPlan2d");
    const auto set_stream = cufft.get<decltype(&::cufftSetStream)>("cufftSetStream");
    const auto destroy = cufft.get<decltype(&::cufftDestroy)>("cufftDestroy");
    const auto plan_of = [&](cufftType type) {
      cufftHandle plan = 0;
      if (plan2d(&plan, 64, 64, type) != CUFFT_SUCCESS || set_stream(plan, static_cast<cudaStream_t>(cs)))
        throw std::runtime_error("cufftPlan2d failed");
      return plan;
    };
    auto *complex_data = reinterpret_cast<cufftComplex *>(image.data());
    auto *spectrum_data = reinterpret_cast<cufftComplex *>(coefficients.data());
    if (wanted("fft")) {
      const cufftHandle c2c = plan_of(CUFFT_C2C);
      const auto exec = cufft.get<decltype(&::cufftExecC2C)>("cufftExecC2C");
      const auto direct_c2c = [&] { exec(c2c, complex_data, complex_data, CUFFT_FORWARD); };
      compare("fft_inplace 64^2 complex64", s, [&] { kernel::fft_inplace.on(s)(image); }, direct_c2c);
      compare("fft_inplace 64^2 complex64, ortho", s,
              [&] { kernel::fft_inplace.on(s)(image, kernel::fft_norm::ortho); }, direct_c2c);
      destroy(c2c);
    }
    if (wanted("rfft2")) {
      const cufftHandle r2c = plan_of(CUFFT_R2C), c2r = plan_of(CUFFT_C2R);
      const auto forward = cufft.get<decltype(&::cufftExecR2C)>("cufftExecR2C");
      const auto inverse = cufft.get<decltype(&::cufftExecC2R)>("cufftExecC2R");
      const auto direct_r2c = [&] { forward(r2c, plane.data(), spectrum_data); };
      const auto direct_c2r = [&] { inverse(c2r, spectrum_data, plane.data()); };
      compare("rfft2 64^2 float32 (a new array)", s, [&] { (void)kernel::rfft2.on(s)(plane); }, direct_r2c);
      const auto spectrum = kernel::rfft2.on(s)(plane);
      compare("irfft2 64^2 float32 (a new array)", s,
              [&] { (void)kernel::irfft2.on(s)(spectrum, {-2, -1}, {64, 64}); }, direct_c2r);
      // Into arrays made once, as the direct calls write theirs.
      compare("rfft2 64^2 float32 (into an array)", s, [&] { kernel::rfft2.on(s)(plane, coefficients); },
              direct_r2c);
      compare("irfft2 64^2 float32 (into an array)", s,
              [&] { kernel::irfft2.on(s)(spectrum, plane, {-2, -1}, {64, 64}); }, direct_c2r);
      destroy(r2c);
      destroy(c2r);
    }
  }
  if (wanted("linalg")) {
    // 8 products of 64^2 float32 (C = A B, row-major: C^T = B^T A^T to cuBLAS), and a dot.
    kernel::device_array<float, 3> a({8, 64, 64}, s), b({8, 64, 64}, s), c({8, 64, 64}, s);
    kernel::linalg::matrix_product.on(s)(a, b, c);
    bench::cublas_calls cublas;
    cublasHandle_t h = nullptr;
    bench::check(cublas.create(&h), "cublasCreate");
    bench::check(cublas.set_stream(h, static_cast<cudaStream_t>(cs)), "cublasSetStream");
    const float one = 1, zero = 0;
    compare("matrix_product 8 x 64^2 float32", s, [&] { kernel::linalg::matrix_product.on(s)(a, b, c); }, [&] {
      cublas.gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &one, b.data(), CUDA_R_32F, 64, 4096, a.data(), CUDA_R_32F,
                  64, 4096, &zero, c.data(), CUDA_R_32F, 64, 4096, 8, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    float ours_result = 0, direct_result = 0;
    compare("dot 2^10 float32", s, [&] { ours_result = kernel::linalg::dot.on(s)(x, y); }, [&] {
      cublas.dot(h, static_cast<int>(n), x.data(), CUDA_R_32F, 1, y.data(), CUDA_R_32F, 1, &direct_result, CUDA_R_32F,
                 CUDA_R_32F);
    });
    cublas.destroy(h);
  }
  if (wanted("sparse")) {
    // spmv of 256 rows, 8 entries per row; the direct call makes its descriptors and work
    // area per call, as the library does.
    namespace sp = kernel::sparse;
    const auto m = bench::scattered(256, 256, 8).to_device(s);
    kernel::device_array<float> sx(256, s), sy(256, s);
    sp::spmv.on(s)(m, sx, sy);
    bench::cusparse_calls cusparse;
    cusparseHandle_t h = nullptr;
    bench::check(cusparse.create(&h), "cusparseCreate");
    bench::check(cusparse.set_stream(h, static_cast<cudaStream_t>(cs)), "cusparseSetStream");
    compare("spmv 256 rows, 8 per row", s, [&] { sp::spmv.on(s)(m, sx, sy); },
            [&] { bench::direct_spmv(cusparse, h, m, sx.data(), sy.data(), s); });
    cusparse.destroy(h);
  }
  return 0;
}
