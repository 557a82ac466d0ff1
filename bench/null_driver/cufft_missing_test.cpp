// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kernel/fft.h's CUDA path without a GPU, on the null driver (memory is host memory, copies
// copy, kernels run no code): with cuFFT missing every transform of CUDA memory is a
// target_unavailable_error naming the call, the library and where it was looked for, and
// queues none of the call's kernels before it (the runtime's launch counter; the resizing and
// irfft's copy of the coefficients, which write the call's own memory only, excepted); the
// caller's arrays are compared too, which catches the copies the null driver does make. Once
// KERNEL_CUFFT_LIBRARY names a cuFFT (the null one, argv[1]) the same calls go through, and an
// output array of the wrong shape or precision is refused before anything is queued, the
// input's resizing included.
//   cufft_missing_test NULL_LIBCUFFT (with the null libcuda.so.1 on LD_LIBRARY_PATH)
#include <gtest/gtest.h>

#include <complex>
#include <cstdlib>
#include <string>
#include <vector>

#include <kernel/detail/device_api.h>
#include <kernel/fft.h>
#include <kernel/kernel.h>

namespace {

using cf = std::complex<float>;
std::string null_cufft; // argv[1]

std::uint64_t launches(const kernel::device &d) { return kernel::detail::device_counters_of(d.state()).launches; }

template <class T, std::size_t R> std::vector<T> contents(const kernel::device_array<T, R> &a) {
  const auto host = a.copy_to_host();
  return std::vector<T>(host.data(), host.data() + host.size());
}

template <class T, std::size_t R> kernel::device_array<T, R> filled(const kernel::stream &s, kernel::index_list<R> shape) {
  kernel::device_array<T, R> a(shape, s);
  std::vector<T> v(static_cast<std::size_t>(a.size()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = T(static_cast<float>(i % 7) - 3.0f);
  a.copy_from_host(kernel::array_view<const T, R>(v.data(), shape));
  return a;
}

// Runs `call`, expecting cuFFT's target_unavailable_error for `function`.
template <class F> void expect_missing(const std::string &function, F &&call) {
  try {
    call();
    ADD_FAILURE() << function << ": no error without cuFFT";
  } catch (const kernel::target_unavailable_error &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(function), std::string::npos) << m;
    EXPECT_NE(m.find("cuFFT"), std::string::npos) << m;
    EXPECT_NE(m.find("/nonexistent/libcufft.so.12"), std::string::npos) << m;
  }
}

// Runs `call`, expecting an argument_error about the output, argument 2, holding `part`.
template <class F> void expect_output_refused(const std::string &part, F &&call) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one about the output: " << part;
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(NullDriverFft, MissingCufftLeavesEverythingAsItWas) {
  ASSERT_EQ(setenv("KERNEL_CUFFT_LIBRARY", "/nonexistent/libcufft.so.12", 1), 0);
  const kernel::device gpu = kernel::device::cuda();
  ASSERT_NE(gpu.name().find("null GPU"), std::string::npos) << "not the null driver: " << gpu.name();
  kernel::stream s(gpu);
  auto image = filled<cf, 2>(s, {16, 8});
  auto ones = filled<cf, 2>(s, {1, 1}); // transforms of one point: no plan at all
  auto reals = filled<float, 2>(s, {16, 8});
  auto coefficients = filled<cf, 2>(s, {16, 5});
  auto out = filled<cf, 2>(s, {16, 8});
  auto half = filled<cf, 2>(s, {16, 5});
  const std::vector<cf> image0 = contents(image), ones0 = contents(ones), coefficients0 = contents(coefficients),
                        out0 = contents(out), half0 = contents(half);
  const std::vector<float> reals0 = contents(reals);
  // Calls that queue nothing of their own before their first plan: no launch at all.
  const auto none_queued = [&](const std::string &function, auto &&call) {
    const std::uint64_t before = launches(gpu);
    expect_missing(function, call);
    EXPECT_EQ(launches(gpu), before) << function << " queued a kernel before finding cuFFT missing";
  };
  none_queued("fft_inplace", [&] { kernel::fft_inplace.on(s)(image); });
  none_queued("ifft_inplace", [&] { kernel::ifft_inplace.on(s)(ones, kernel::fft_norm::ortho); });
  none_queued("fft2", [&] { (void)kernel::fft2.on(s)(reals); }); // real input: widened by a kernel
  none_queued("fft2", [&] { kernel::fft2.on(s)(image, out); });
  none_queued("rfft2", [&] { kernel::rfft2.on(s)(reals, half); });
  none_queued("rfftn", [&] { (void)kernel::rfftn.on(s)(reals); });
  expect_missing("ifft", [&] { (void)kernel::ifft.on(s)(image, 12, 0); }); // resized first
  expect_missing("irfft2", [&] { (void)kernel::irfft2.on(s)(coefficients); });
  expect_missing("irfft2", [&] { kernel::irfft2.on(s)(coefficients, reals); });
  s.synchronize();
  EXPECT_EQ(contents(image), image0);
  EXPECT_EQ(contents(ones), ones0);
  EXPECT_EQ(contents(reals), reals0);
  EXPECT_EQ(contents(coefficients), coefficients0);
  EXPECT_EQ(contents(out), out0);
  EXPECT_EQ(contents(half), half0);

  // With a cuFFT the same calls go through (the environment is read again), and outputs are
  // checked before anything is queued.
  ASSERT_EQ(setenv("KERNEL_CUFFT_LIBRARY", null_cufft.c_str(), 1), 0);
  kernel::fft_inplace.on(s)(image);
  kernel::ifft_inplace.on(s)(ones, kernel::fft_norm::ortho);
  kernel::rfft2.on(s)(reals, half);
  kernel::irfft2.on(s)(half, reals);
  kernel::fft2.on(s)(image, out);
  const std::uint64_t before = launches(gpu);
  // The input's shape, not the results'.
  expect_output_refused("has shape (16, 8) but the results have shape (16, 5)",
                        [&] { kernel::rfft2.on(s)(reals, out); });
  kernel::device_array<std::complex<double>, 2> wide({16, 8}, s);
  expect_output_refused("never converted", [&] { kernel::fft2.on(s)(image, wide); });
  // Refused before the input is resized (a kernel): outputs are checked first.
  kernel::device_array<std::complex<double>, 2> wide12({12, 8}, s);
  expect_output_refused("never converted", [&] { kernel::ifft.on(s)(image, wide12, 12, 0); });
  EXPECT_EQ(launches(gpu), before);
  s.synchronize();
}

} // namespace

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: cufft_missing_test NULL_LIBCUFFT\n");
    return 2;
  }
  null_cufft = argv[1];
  return RUN_ALL_TESTS();
}
