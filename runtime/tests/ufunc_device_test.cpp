// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// GPU ufuncs through the device path: on the simulated device (the same staging, parameter
// block and kernel as on a GPU), or on the GPU under KERNEL_TEST_DEVICE=cuda.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <span>
#include <thread>
#include <vector>

#include "kernel/algorithm.h"
#include "kernel/fft.h"
#include "kernel/kernel.h"
#include "kernel/linalg.h"
#include "kernel/random_arrays.h"
#include "scoped_environment.h"
#include "test_device.h"

[[kernel::vectorize]] float saxpy(float a, float x, float y) { return a * x + y; }
[[kernel::vectorize]] double add(double a, double b) { return a + b; }
// An accumulator loop (a double sum of int32 elements), and one returning a narrower type.
[[kernel::vectorize("float64(float64, int32)")]] double add_to(double acc, std::int32_t x) { return acc + x; }
[[kernel::vectorize("float32(float64, float64)")]] float add_narrowing(double a, double b) {
  return static_cast<float>(a + b);
}
[[kernel::vectorize]] std::complex<float> cmul(std::complex<float> a, std::complex<float> b) { return a * b; }
// Every C99 complex function std::complex calls (the GPU's are the device runtime's: ctanf,
// casinh ... had none, and did not compile).
template <class T> [[kernel::vectorize("complex64(complex64)", "complex128(complex128)")]] T complex_functions(T z) {
  return std::tan(z) + std::tanh(z) + std::asin(z) + std::acos(z) + std::atan(z) + std::asinh(z) + std::acosh(z) +
         std::atanh(z) + std::proj(z) + std::exp(z) + std::log(z) + std::sqrt(z) + std::sin(z) + std::cos(z) +
         std::sinh(z) + std::cosh(z) + std::pow(z, T(0.5, 0.25));
}
template <class T>
[[kernel::vectorize("float32(float32, float32)", "float64(float64, float64)")]]
T maximum(T a, T b) {
  return a > b ? a : b;
}

namespace {

const kernel::device dev = kernel_test::device();
constexpr kernel::ufunc<saxpy> vsaxpy;
constexpr kernel::ufunc<add> vadd;

template <class S> constexpr bool placeable_on = requires(S &&s) { vsaxpy.on(std::forward<S>(s)); };
const auto on_dev = kernel_test::target();

std::vector<float> iota(std::size_t n, float start) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

// A call with scalars only, placed on the device, runs there as an array call does (it ran
// on the host, which a GPU's results and errors are not).
TEST(UfuncDevice, ScalarCallsRunOnTheDevice) {
  const kernel::device d = kernel_test::device();
  const auto before = d.counters().launches;
  EXPECT_EQ(vsaxpy.on(on_dev)(2.0f, 3.0f, 1.0f), 7.0f);
  EXPECT_EQ(d.counters().launches, before + 1);
}

TEST(UfuncDevice, HostArraysAreCopiedInAndOut) {
  auto x = iota(5000, 0.0f), y = iota(5000, 1.0f);
  std::vector<float> out(5000);
  vsaxpy.on(on_dev)(2.0f, x, y, out);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(out[i], 2.0f * x[i] + y[i]);
  auto r = vsaxpy.on(on_dev)(2.0f, x, y);
  static_assert(std::is_same_v<decltype(r), kernel::ndarray<float, 1>>);
  EXPECT_EQ(r.to_vector(), out);
}

TEST(UfuncDevice, DeviceArraysStayOnTheDevice) {
  auto x = iota(1000, 0.0f), y = iota(1000, 0.5f);
  auto dx = kernel::to_device(x, dev), dy = kernel::to_device(y, dev);
  kernel::device_array<float> dout(1000, dev);
  vsaxpy(3.0f, dx, dy, dout); // device arrays: runs on their device, whatever the target
  auto h = dout.copy_to_host();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(h[i], 3.0f * x[i] + y[i]);
  auto dr = vsaxpy(3.0f, dx, dy); // device inputs give a device result
  static_assert(std::is_same_v<decltype(dr), kernel::device_array<float, 1>>);
  EXPECT_EQ(dr.copy_to_host().to_vector(), h.to_vector());
}

TEST(UfuncDevice, MixedHostAndDeviceOperands) {
  auto x = iota(100, 0.0f), y = iota(100, 10.0f);
  auto dx = kernel::to_device(x, dev);
  std::vector<float> out(100);
  vsaxpy.on(on_dev)(1.0f, dx, y, out);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(out[i], x[i] + y[i]);
  kernel::device_array<float> dout(100, dev);
  vsaxpy.on(on_dev)(1.0f, x, y, dout);
  EXPECT_EQ(dout.copy_to_host().to_vector(), out);
}

TEST(UfuncDevice, BroadcastingAndStridedHostInputs) {
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) m(i, j) = 10 * i + j;
  kernel::array_view<const double, 2> t(m.data(), {4, 3}, {1, 4}); // transposed
  std::vector<double> row{100, 200, 300};
  auto r = vadd.on(on_dev)(t, row);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) ASSERT_EQ(r(i, j), 10 * j + i + 100 * (j + 1));
  auto dm = kernel::to_device(m, dev);
  kernel::ndarray<double, 2> col({3, 1}, 0.5);
  auto dr = vadd(dm, col); // (3,4) + (3,1) on the device
  auto h = dr.copy_to_host();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) ASSERT_EQ(h(i, j), 10 * i + j + 0.5);
}

TEST(UfuncDevice, HostInputsAreConvertedToTheLoopTypes) {
  std::vector<int> a{1, 2, 3};
  std::vector<float> b{0.5f, 0.25f, 0.125f};
  std::vector<double> out(3);
  vadd.on(on_dev)(a, b, out);
  EXPECT_EQ(out, (std::vector<double>{1.5, 2.25, 3.125}));
  std::vector<float> narrow(3); // float64 result into float32: same-kind cast on the way back
  vadd.on(on_dev)(a, b, narrow);
  EXPECT_EQ(narrow, (std::vector<float>{1.5f, 2.25f, 3.125f}));
}

TEST(UfuncDevice, SeveralLoops) {
  constexpr kernel::ufunc<maximum<float>, maximum<double>> vmax;
  auto dx = kernel::to_device(std::vector<double>{1, 5, 3}, dev);
  auto r = vmax(dx, 2.0).copy_to_host();
  EXPECT_EQ(r.to_vector(), (std::vector<double>{2, 5, 3}));
}

TEST(UfuncDevice, ComplexMultiply) {
  std::vector<std::complex<float>> a{{1, 2}, {3, 4}}, b{{0, 1}, {2, 0}};
  auto r = kernel::ufunc<cmul>{}.on(on_dev)(a, b);
  EXPECT_EQ(r[0], std::complex<float>(-2, 1));
  EXPECT_EQ(r[1], std::complex<float>(6, 8));
}

TEST(UfuncDevice, ComplexFunctionsAsOnTheHost) {
  std::vector<std::complex<double>> z;
  for (double re : {-2.5, -1.0, -0.3, 0.0, 1e-6, 0.5, 1.0, 3.0})
    for (double im : {-1.5, -0.2, 0.0, 0.7, 2.0}) z.emplace_back(re, im);
  const std::vector<std::complex<float>> zf(z.begin(), z.end());
  constexpr kernel::ufunc<complex_functions<std::complex<float>>, complex_functions<std::complex<double>>> f;
  const auto wide = f.on(on_dev)(z);
  const auto narrow = f.on(on_dev)(zf);
  for (std::size_t i = 0; i < z.size(); ++i) {
    const std::complex<double> want = complex_functions(z[i]);
    if (!std::isfinite(std::abs(want))) continue; // log(0), atanh(1): poles
    EXPECT_LE(std::abs(wide[i] - want), 1e-12 * std::abs(want)) << z[i];
    const std::complex<float> want_f = complex_functions(zf[i]);
    EXPECT_LE(std::abs(narrow[i] - want_f), 1e-5f * std::abs(want_f)) << zf[i];
  }
}

TEST(UfuncDevice, StreamsAreAsynchronous) {
  kernel::stream s(dev);
  auto x = iota(4096, 0.0f), y = iota(4096, 0.0f);
  auto dx = kernel::to_device(x, s), dy = kernel::to_device(y, s);
  kernel::device_array<float> dout(4096, s);
  vsaxpy.on(s)(2.0f, dx, dy, dout);
  std::vector<float> out(4096);
  vsaxpy.on(s)(2.0f, x, y, out); // host result: written when s is synchronized
  s.synchronize();
  EXPECT_EQ(dout.copy_to_host().to_vector(), out);
  EXPECT_EQ(out[10], 30.0f);
  // A placed copy refers to its stream: a temporary one, gone before a later call, is refused
  // at compile time (for every callable placed with on(); kernel::launch keeps the stream).
  static_assert(placeable_on<kernel::stream &> && placeable_on<const kernel::stream &>);
  static_assert(!placeable_on<kernel::stream> && !placeable_on<const kernel::stream>);
}

// ... to the stream, not to the handle it was placed with: the handle may move (a vector of
// streams growing) or go while a copy of it lives.
TEST(UfuncDevice, PlacedCopiesOutliveTheHandleTheyWerePlacedWith) {
  std::vector<kernel::stream> streams;
  streams.emplace_back(dev);
  const auto placed = vsaxpy.on(streams[0]);
  for (int i = 0; i < 64; ++i) streams.emplace_back(dev); // moves streams[0]'s handle
  const kernel::stream kept = streams[0];
  streams.clear();
  const auto x = iota(1000, 0.0f), y = iota(1000, 1.0f);
  std::vector<float> out(1000);
  placed(3.0f, x, y, out);
  kept.synchronize();
  EXPECT_EQ(out[10], 41.0f);
}

// Once every handle to the stream is gone (the one variable assigned another stream), a call of
// the callable placed on it is an error naming the callable, not a use of the freed stream;
// nothing is written.
TEST(UfuncDevice, PlacedOnAStreamThatIsGone) {
  kernel::stream s(dev);
  const auto placed = vsaxpy.on(s);
  const auto sorts = kernel::sort.on(s);
  s = kernel::stream(dev);
  const auto x = iota(100, 0.0f), y = iota(100, 1.0f);
  std::vector<float> out(100, -1.0f);
  for (const auto &call : std::vector<std::function<void()>>{[&] { placed(3.0f, x, y, out); }, [&] { sorts(out); }}) {
    try {
      call();
      ADD_FAILURE() << "a call on a stream that is gone";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 0);
      EXPECT_NE(std::string(e.what()).find("was placed on a stream (.on(stream)) that no longer exists"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(out, std::vector<float>(100, -1.0f));
  vsaxpy.on(s)(3.0f, x, y, out); // the stream `s` holds now
  s.synchronize();
  EXPECT_EQ(out[10], 41.0f);
}

// A device array used by calls on another stream than its own and dropped while they run:
// on a GPU its stream's next allocation would take its memory over while the calls still
// read it, unless the free waits for them. It waits (an event), and the calls do not wait
// for the host between them (held by host work, each call stalled its stream).
TEST(UfuncDevice, ArraysOfAnotherStreamOutliveTheCallsUsingThem) {
  constexpr std::size_t n = std::size_t{1} << 21;
  const kernel::stream own(dev), other(dev);
  for (int round = 0; round < 3; ++round) {
    auto acc = kernel::to_device(std::vector<float>(n, 0.0f), other);
    {
      const auto x = kernel::to_device(std::vector<float>(n, 1.0f), own);
      own.synchronize();
      for (int k = 0; k < 32; ++k) vsaxpy.on(other)(1.0f, x, acc, acc);
    } // x is freed on `own`
    const auto reuse = kernel::to_device(std::vector<float>(n, -1000.0f), own);
    own.synchronize();
    const auto host = acc.copy_to_host(other);
    other.synchronize();
    const std::vector<float> got = host.to_vector();
    EXPECT_EQ(std::count(got.begin(), got.end(), 32.0f), static_cast<std::ptrdiff_t>(n)) << "round " << round;
  }
}

TEST(UfuncDevice, InPlaceOnTheDevice) {
  auto dx = kernel::to_device(std::vector<float>{1, 2, 3}, dev);
  auto dy = kernel::to_device(std::vector<float>{1, 1, 1}, dev);
  vsaxpy(2.0f, dx, dy, dx);
  EXPECT_EQ(dx.copy_to_host().to_vector(), (std::vector<float>{3, 5, 7}));
}

// The module is built once, whichever thread calls first; calls from several host threads at
// once, each with its own stream or on the default one, all give their own results.
TEST(UfuncDevice, CallsFromSeveralHostThreads) {
  constexpr int threads = 8;
  std::vector<int> wrong(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&wrong, t] {
      kernel::stream s(dev);
      const auto x = iota(20000, float(t)), y = iota(20000, 1.0f);
      auto dx = kernel::to_device(x, s), dy = kernel::to_device(y, s);
      for (int rep = 0; rep < 10; ++rep) {
        auto dr = vsaxpy.on(s)(float(t), dx, dy);
        auto h = dr.copy_to_host(s);
        s.synchronize();
        std::vector<float> out(20000);
        vsaxpy.on(on_dev)(float(rep), x, y, out); // host arrays, default stream
        for (int i = 0; i < 20000; i += 97)
          if (h[i] != float(t) * x[i] + y[i] || out[i] != float(rep) * x[i] + y[i]) ++wrong[t];
      }
    });
  for (auto &th : pool) th.join();
  EXPECT_EQ(wrong, std::vector<int>(threads, 0));
}

// Errors name the ufunc and the argument, and leave the user's data alone.

TEST(UfuncDevice, ReduceAlongAnAxis) {
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) m(i, j) = 10 * i + j;
  auto dm = kernel::to_device(m, dev);
  auto columns = vadd.reduce(dm, 0);
  static_assert(std::is_same_v<decltype(columns), kernel::device_array<double, 1>>);
  EXPECT_EQ(columns.copy_to_host().to_vector(), (std::vector<double>{30, 33, 36, 39}));
  EXPECT_EQ(vadd.reduce(dm, 1).copy_to_host().to_vector(), (std::vector<double>{6, 46, 86}));
  auto d1 = kernel::to_device(std::vector<double>{1, 2, 3, 4}, dev);
  EXPECT_EQ(vadd.reduce(d1), 10.0);
  // Host arrays with a device target: reduced on the device, the result back on the host.
  auto rows = vadd.on(on_dev).reduce(m, 1);
  static_assert(std::is_same_v<decltype(rows), kernel::ndarray<double, 1>>);
  EXPECT_EQ(rows.to_vector(), (std::vector<double>{6, 46, 86}));
  EXPECT_EQ(m(2, 3), 23.0); // the input is untouched
  // Host arrays of another element type are converted as a host call converts them; an axis
  // of one element takes no step.
  const std::vector<int> ints = {1, 2, 3, 4};
  EXPECT_EQ(vadd.on(on_dev).reduce(ints), vadd.reduce(ints));
  kernel::ndarray<double, 2> one_row({1, 4});
  for (int j = 0; j < 4; ++j) one_row(0, j) = j + 0.5;
  EXPECT_EQ(vadd.on(on_dev).reduce(one_row, 0).to_vector(), (std::vector<double>{0.5, 1.5, 2.5, 3.5}));
  // Views and spans of writable elements; a loop whose parameters differ (the accumulator the
  // first, the elements the second), as on the host.
  std::vector<double> w = {5, 1, 2};
  EXPECT_EQ(vadd.on(on_dev).reduce(kernel::view(w.data(), 3)), 8.0);
  EXPECT_EQ(vadd.on(on_dev).reduce(std::span<double>(w)), 8.0);
  constexpr kernel::ufunc<add_to> vadd_to;
  kernel::ndarray<std::int32_t, 2> im({2, 3});
  for (int i = 0; i < 6; ++i) im.data()[i] = 1000000000 + i; // sums past int32
  const auto by_rows = vadd_to.on(on_dev).reduce(im, 1);
  EXPECT_EQ(by_rows.to_vector(), vadd_to.reduce(im, 1).to_vector());
  EXPECT_EQ(by_rows[1], 3000000012.0);
  // A result the accumulator's parameter does not take as it is: the host only, said so.
  constexpr kernel::ufunc<add_narrowing> vnarrow;
  EXPECT_EQ(vnarrow.reduce(w), 8.0f);
  try {
    (void)vnarrow.on(on_dev).reduce(w);
    ADD_FAILURE() << "a narrowing accumulator on a device";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("returns float32 and takes float64; reduce on the host"), std::string::npos)
        << e.what();
  }
}

// reduce over several axes where the arrays are: gathered first where the axes' strides do not
// line up; an empty axis is the identity; an axis of one element is its elements, converted.
[[kernel::vectorize]] double minus(double a, double b) { return a - b; }
TEST(UfuncDevice, ReduceOverSeveralAxes) {
  constexpr kernel::ufunc<add> vsum{kernel::identity::zero};
  kernel::ndarray<double, 3> a({2, 3, 4});
  for (int i = 0; i < 24; ++i) a.data()[i] = i * i % 17;
  const auto da = kernel::to_device(a, dev);
  const auto trailing = vsum.reduce(da, {1, 2}); // lined up: no copy
  static_assert(std::is_same_v<decltype(trailing), const kernel::device_array<double, 1>>);
  EXPECT_EQ(trailing.copy_to_host().to_vector(), vsum.reduce(a, {1, 2}).to_vector());
  EXPECT_EQ(vsum.reduce(da, {0, 2}).copy_to_host().to_vector(), vsum.reduce(a, {0, 2}).to_vector());
  EXPECT_EQ(vsum.reduce(da, {0, 1}).copy_to_host().to_vector(), vsum.reduce(a, {0, 1}).to_vector());
  EXPECT_EQ(vsum.reduce(da, kernel::all_axes), vsum.reduce(a, kernel::all_axes));
  EXPECT_EQ(vsum.reduce(da, {2, 0}, 0.5).copy_to_host().to_vector(), vsum.reduce(a, {0, 2}, 0.5).to_vector());
  // Host arrays given to a device target, strided; a stream of the user's.
  const kernel::array_view<const double, 3> reversed(a.data() + 8, {2, 3, 4}, {12, -4, 1});
  EXPECT_EQ(vsum.on(on_dev).reduce(reversed, {0, 2}).to_vector(), vsum.reduce(reversed, {0, 2}).to_vector());
  EXPECT_EQ(vsum.on(on_dev).reduce(reversed, kernel::all_axes), vsum.reduce(a, kernel::all_axes));
  kernel::stream s(dev);
  const auto queued = vsum.on(s).reduce(da, {0, 2});
  s.synchronize();
  EXPECT_EQ(queued.copy_to_host().to_vector(), vsum.reduce(a, {0, 2}).to_vector());
  // Empty axes: the identity.
  const auto none = kernel::to_device(kernel::ndarray<double, 2>({0, 3}), dev);
  EXPECT_EQ(vsum.reduce(none, 0).copy_to_host().to_vector(), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(vsum.reduce(none, kernel::all_axes), 0.0);
  // An axis of one element takes no step.
  kernel::ndarray<double, 2> one_row({1, 4});
  for (int j = 0; j < 4; ++j) one_row(0, j) = j + 0.5;
  EXPECT_EQ(vadd.reduce(kernel::to_device(one_row, dev), 0).copy_to_host().to_vector(),
            (std::vector<double>{0.5, 1.5, 2.5, 3.5}));
  EXPECT_EQ(vsum.reduce(kernel::to_device(one_row, dev), {0, 1}), 8.0);
  // With an identity, an axis reduces in a tree of calls: every length, along every axis, from
  // an initial value or not, of device arrays and of host arrays given to a device target.
  for (int n : {3, 4, 5, 7, 8, 33}) {
    SCOPED_TRACE(n);
    kernel::ndarray<double, 3> c({n, 3, n});
    for (int i = 0; i < 3 * n * n; ++i) c.data()[i] = (i * 7919) % 1013;
    const auto dc = kernel::to_device(c, dev);
    for (int axis : {0, 1, 2}) {
      const auto expected = vsum.reduce(c, axis).to_vector();
      EXPECT_EQ(vsum.reduce(dc, axis).copy_to_host().to_vector(), expected) << axis;
      EXPECT_EQ(vsum.on(on_dev).reduce(c, axis).to_vector(), expected) << axis;
      EXPECT_EQ(vsum.reduce(dc, axis, 2).copy_to_host().to_vector(), vsum.reduce(c, axis, 2).to_vector()) << axis;
    }
    EXPECT_EQ(vsum.reduce(dc, kernel::all_axes), vsum.reduce(c, kernel::all_axes));
    EXPECT_EQ(dc.copy_to_host().to_vector(), c.to_vector());
  }
  // A value for an identity starts the fold, on a device as on the host: (1 - 5) - 1. (Three
  // elements would be reduced in a tree, which an identity allows, and subtraction's result
  // would not be NumPy's: an identity promises an order-free function.)
  constexpr kernel::ufunc<minus> vsub_one{kernel::identity::one};
  const std::vector<double> two{5, 1};
  EXPECT_EQ(vsub_one.reduce(kernel::to_device(two, dev)), -5.0);
  EXPECT_EQ(vsub_one.on(on_dev).reduce(two), -5.0);
  // An identity the device's running value cannot start from is left out there (f(0, x) is x):
  // the reduction runs as without one.
  constexpr kernel::ufunc<add_narrowing> vnarrow_sum{kernel::identity::zero};
  EXPECT_EQ(vnarrow_sum.reduce(kernel::to_device(std::vector<double>{1, 2}, dev)), 3.0f);
  EXPECT_EQ(vnarrow_sum.on(on_dev).reduce(std::vector<double>{5}), 5.0f);
  // A device array's one element of another type than the loop's result: not converted, said so.
  constexpr kernel::ufunc<add_narrowing> vnarrow;
  try {
    (void)vnarrow.reduce(kernel::to_device(std::vector<double>{1.5}, dev));
    ADD_FAILURE() << "a float64 element as a float32 result on a device";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("axis 0 has one element, which would be the result"), std::string::npos)
        << e.what();
  }
  // Without an identity, one axis at a time; the array is left as it was.
  try {
    (void)vadd.reduce(da, {0, 1});
    ADD_FAILURE() << "two axes without an identity";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("needs a ufunc with an identity"), std::string::npos) << e.what();
  }
  EXPECT_EQ(da.copy_to_host().to_vector(), a.to_vector());
}

// reduceat where the arrays are: device arrays on their device (a tree per slice with an
// identity, else the steps in order), host arrays given to a device target back on the host;
// the same results as on the host, every slice length, along every axis.
TEST(UfuncDevice, ReduceatOverSlices) {
  constexpr kernel::ufunc<add> vsum{kernel::identity::zero};
  constexpr kernel::ufunc<minus> vsub;
  constexpr kernel::ufunc<add_to> vadd_to;
  kernel::ndarray<double, 3> a({11, 3, 7});
  for (int i = 0; i < 231; ++i) a.data()[i] = (i * 7919) % 1013 - 500;
  const auto da = kernel::to_device(a, dev);
  const std::vector<int> cuts{0, 1, 4, 4, 9, 2, 10, 0};
  for (int axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    std::vector<int> at;
    for (int k : cuts)
      if (k < a.shape(axis < 0 ? 2 : axis)) at.push_back(k);
    const auto on_host = vsub.reduceat(a, at, axis);
    const auto on_device = vsub.reduceat(da, at, axis);
    static_assert(std::is_same_v<decltype(on_device), const kernel::device_array<double, 3>>);
    EXPECT_EQ(on_device.copy_to_host().to_vector(), on_host.to_vector());
    EXPECT_EQ(vsub.on(on_dev).reduceat(a, at, axis).to_vector(), on_host.to_vector());
    EXPECT_EQ(vsum.reduceat(da, kernel::to_device(at, dev), axis).copy_to_host().to_vector(),
              vsum.reduceat(a, at, axis).to_vector());
    EXPECT_EQ(vsum.on(on_dev).reduceat(a, at, axis).to_vector(), vsum.reduceat(a, at, axis).to_vector());
  }
  // A 1-d device array gives a device array; int32 elements through a float64 accumulator, on
  // the device after conversion on the host; a stream of the user's.
  const std::vector<std::int32_t> ints{1000000000, 2000000000, 3, 4, 5};
  EXPECT_EQ(vadd_to.on(on_dev).reduceat(ints, std::vector<int>{0, 2, 4}).to_vector(),
            (std::vector<double>{3000000000.0, 7, 5}));
  kernel::stream s(dev);
  const auto queued =
      vsum.on(s).reduceat(kernel::to_device(std::vector<double>{1, 2, 3, 4}, dev), std::vector<int>{1, 0});
  s.synchronize();
  EXPECT_EQ(queued.copy_to_host().to_vector(), (std::vector<double>{2, 10}));
  // Errors before anything is queued: an index out of range, a slice of one element that would
  // be a device array's element converted.
  try {
    (void)vsub.reduceat(da, std::vector<int>{0, 11});
    ADD_FAILURE() << "an index out of range";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("index 11 at position 1 is out of range for axis 0, of 11 elements"),
              std::string::npos)
        << e.what();
  }
  constexpr kernel::ufunc<add_narrowing> vnarrow;
  const auto wide = kernel::to_device(std::vector<double>{1, 2, 3}, dev);
  EXPECT_EQ(vnarrow.reduceat(wide, std::vector<int>{1}).copy_to_host().to_vector(), (std::vector<float>{5}));
  // More than two elements: the float32 running value would feed the float64 parameter.
  for (const auto &call : std::vector<std::function<void()>>{[&] { (void)vnarrow.reduceat(wide, {0}); },
                                                             [&] { (void)vnarrow.reduce(wide); }}) {
    try {
      call();
      ADD_FAILURE() << "a float32 running value for a float64 parameter on a device";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 1);
      EXPECT_NE(std::string(e.what()).find("this loop returns float32 and takes float64 (a"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_TRUE(vsum.reduceat(da, {}).copy_to_host().to_vector().empty());
  EXPECT_EQ(vsub.reduceat(da, {0, 5}, std::size_t{2}).copy_to_host().to_vector(),
            vsub.reduceat(a, std::vector<int>{0, 5}, -1).to_vector());
  try {
    (void)vnarrow.reduceat(wide, std::vector<int>{0, 2});
    ADD_FAILURE() << "a float64 element as a float32 result on a device";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 1);
    EXPECT_NE(std::string(e.what()).find("the slice at position 1 of the indices (index 2) has one element"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(da.copy_to_host().to_vector(), a.to_vector());
}

// ufunc.at of a device array: on its device, in order (a repeated index applies again); the
// indices and the operand may be device arrays too; out-of-range indices write nothing.
TEST(UfuncDevice, AtAppliesInPlaceAtIndices) {
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 12; ++i) m.data()[i] = i;
  auto dm = kernel::to_device(m, dev);
  const std::vector<int> rows{2, 0, 2, -3};
  const std::vector<double> row{1, 2, 3, 4};
  vadd.at(dm, rows, row);
  vadd.at(m, rows, row);
  EXPECT_EQ(dm.copy_to_host().to_vector(), m.to_vector());
  vadd.at(dm, kernel::to_device(rows, dev), kernel::to_device(row, dev));
  vadd.at(m, rows, row);
  EXPECT_EQ(dm.copy_to_host().to_vector(), m.to_vector());
  vadd.at(dm, 1, 0.5);
  vadd.at(m, 1, 0.5);
  EXPECT_EQ(dm.copy_to_host().to_vector(), m.to_vector());
  // Indices as a strided device view: every other one of 0, 9, 2, 9.
  const auto spread = kernel::to_device(std::vector<int>{0, 9, 2, 9}, dev);
  vadd.at(dm, kernel::device_view<const int>(dev, spread.data(), {2}, {2}), 2.0);
  vadd.at(m, std::vector<int>{0, 2}, 2.0);
  EXPECT_EQ(dm.copy_to_host().to_vector(), m.to_vector());
  kernel::stream s(dev);
  vadd.on(s).at(dm, std::vector<int>{0, 0}, 1.0);
  s.synchronize();
  vadd.at(m, std::vector<int>{0, 0}, 1.0);
  EXPECT_EQ(dm.copy_to_host().to_vector(), m.to_vector());
  try {
    vadd.at(dm, std::vector<int>{0, 3}, 1.0);
    ADD_FAILURE() << "an index out of range";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("index 3 at position 1 is out of range"), std::string::npos) << e.what();
  }
  // What the calls would refuse is refused with at's own argument numbers, before any call.
  try {
    vadd.at(dm, std::vector<int>{0}, kernel::to_device(std::vector<float>(4, 1.0f), dev));
    ADD_FAILURE() << "a float32 operand for a float64 loop";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 3) << e.what();
  }
  try {
    vadd.at(dm, std::vector<int>{0, 1}, dm);
    ADD_FAILURE() << "the array as its own operand";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 3) << e.what();
  }
  EXPECT_EQ(dm.copy_to_host().to_vector(), m.to_vector());
}

// accumulate and outer on the device: device arrays stay there, host arrays given to a device
// target come back; the same results as on the host.
[[kernel::vectorize]] double subtract(double a, double b) { return a - b; }
TEST(UfuncDevice, AccumulateAndOuter) {
  constexpr kernel::ufunc<subtract> vsub;
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 12; ++i) m.data()[i] = i * i;
  const auto dm = kernel::to_device(m, dev);
  for (int axis : {0, 1, -1}) {
    const auto on_device = vsub.accumulate(dm, axis);
    static_assert(std::is_same_v<decltype(on_device), const kernel::device_array<double, 2>>);
    EXPECT_EQ(on_device.copy_to_host().to_vector(), vsub.accumulate(m, axis).to_vector()) << axis;
    const auto back = vsub.on(on_dev).accumulate(m, axis);
    static_assert(std::is_same_v<decltype(back), const kernel::ndarray<double, 2>>);
    EXPECT_EQ(back.to_vector(), vsub.accumulate(m, axis).to_vector()) << axis;
  }
  // Along the middle axis of three (a step's slice and the one before it interleave in the
  // result; the steps work apart).
  kernel::ndarray<double, 3> cube({2, 3, 4});
  for (int i = 0; i < 24; ++i) cube.data()[i] = (i * 7) % 11;
  const auto dcube = kernel::to_device(cube, dev);
  for (int axis : {0, 1, 2}) {
    EXPECT_EQ(vsub.accumulate(dcube, axis).copy_to_host().to_vector(), vsub.accumulate(cube, axis).to_vector()) << axis;
    EXPECT_EQ(vsub.on(on_dev).accumulate(cube, axis).to_vector(), vsub.accumulate(cube, axis).to_vector()) << axis;
  }
  // A default-constructed device view: said so, as a call says it.
  for (const auto &call : std::initializer_list<std::function<void()>>{
           [&] { (void)vsub.accumulate(kernel::device_view<const double>{}); },
           [&] { (void)vsub.reduce(kernel::device_view<const double>{}); },
           [&] { (void)vsub.outer(kernel::device_view<const double>{}, 1.0); }}) {
    try {
      call();
      ADD_FAILURE() << "a default-constructed device view";
    } catch (const kernel::argument_error &e) {
      EXPECT_NE(std::string(e.what()).find("argument 1: is a default-constructed device_view"), std::string::npos)
          << e.what();
    }
  }
  // A strided host view and integers converted on their way; a column of one row.
  kernel::array_view<const double, 2> odd(m.data() + 3, {3, 2}, {4, -2});
  EXPECT_EQ(vsub.on(on_dev).accumulate(odd, 0).to_vector(), vsub.accumulate(odd, 0).to_vector());
  const std::vector<int> ints{5, 1, 2, 3};
  EXPECT_EQ(vsub.on(on_dev).accumulate(ints).to_vector(), (std::vector<double>{5, 4, 2, -1}));
  EXPECT_EQ(vsub.accumulate(kernel::to_device(std::vector<double>{7}, dev)).copy_to_host().to_vector(),
            std::vector<double>{7});
  // On a stream of the user's: ordered there.
  kernel::stream s(dev);
  const auto queued = vsub.on(s).accumulate(dm, 1);
  s.synchronize();
  EXPECT_EQ(queued.copy_to_host().to_vector(), vsub.accumulate(m, 1).to_vector());
  // A device array of another element type than the loop's: said so, not converted.
  const auto dints = kernel::to_device(ints, dev);
  try {
    (void)vsub.accumulate(dints);
    ADD_FAILURE() << "an int32 device array accumulated by a float64 loop";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("returns float64 for int32 elements"), std::string::npos) << e.what();
  }

  const std::vector<double> v{1, 2, 3};
  const auto dv = kernel::to_device(v, dev);
  const auto pairs = vsub.outer(dm, dv);
  static_assert(std::is_same_v<decltype(pairs), const kernel::device_array<double, 3>>);
  EXPECT_EQ(pairs.copy_to_host().to_vector(), vsub.outer(m, v).to_vector());
  EXPECT_EQ(vsub.on(on_dev).outer(v, m).to_vector(), vsub.outer(v, m).to_vector());
  kernel::device_array<double, 2> into({3, 3}, dev);
  vsub.outer(dv, dv, into);
  EXPECT_EQ(into.copy_to_host().to_vector(), (std::vector<double>{0, -1, -2, 1, 0, -1, 2, 1, 0}));
  // reduce from an initial value: an axis of one element or none too.
  EXPECT_EQ(vsub.reduce(dm, 0, 100).copy_to_host().to_vector(), vsub.reduce(m, 0, 100).to_vector());
  EXPECT_EQ(vsub.on(on_dev).reduce(m, 1, 0.5).to_vector(), vsub.reduce(m, 1, 0.5).to_vector());
  EXPECT_EQ(vsub.reduce(kernel::to_device(std::vector<double>{1}, dev), 0, 10), 9.0);
  EXPECT_EQ(vsub.on(on_dev).reduce(std::vector<double>{1}, 0, 10), 9.0);
  const auto none = kernel::to_device(kernel::ndarray<double, 2>({0, 3}), dev);
  EXPECT_EQ(vsub.on(s).reduce(none, 0, 7).copy_to_host().to_vector(), (std::vector<double>{7, 7, 7}));
  // Device arrays of another stream outlive the queued call that reads them.
  std::vector<double> late;
  {
    kernel::device_array<double, 1> temporary = kernel::to_device(v, dev);
    const auto r = vsub.on(s).outer(temporary, 1.0);
    late.resize(3);
    r.copy_to_host(late, s);
  }
  s.synchronize();
  EXPECT_EQ(late, (std::vector<double>{0, 1, 2}));
}

// A default-constructed device array has no device: the call names itself and the argument.
TEST(UfuncDeviceErrors, DefaultConstructedDeviceArray) {
  const kernel::device_array<float, 1> none;
  EXPECT_FALSE(none.has_device());
  const auto dx = kernel::to_device(std::vector<float>(4, 1.0f), dev);
  try {
    (void)vsaxpy(2.0f, dx, none);
    FAIL() << "a default-constructed device array was taken";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.callee(), "saxpy");
    EXPECT_EQ(e.argument(), 3);
    EXPECT_NE(std::string(e.what()).find("default-constructed device_array"), std::string::npos) << e.what();
  }
  try {
    (void)kernel::cumsum(none);
    FAIL() << "a default-constructed device array was taken";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.callee(), "cumsum");
    EXPECT_EQ(e.argument(), 1);
  }
  // Made lazy, or assigned to (a view of nothing took an empty expression silently).
  const auto nothing = kernel::device_array<float, 1>(std::array<kernel::index_t, 1>{0}, dev);
  kernel::device_array<float, 1> out;
  kernel::device_view<float> nowhere;
  const auto refused = [](auto &&call, std::string_view callee) {
    try {
      call();
      ADD_FAILURE() << "a default-constructed device array was taken by " << callee;
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.callee(), callee);
      EXPECT_EQ(e.argument(), 1);
      EXPECT_NE(std::string(e.what()).find("is a default-constructed device_"), std::string::npos) << e.what();
    }
  };
  refused([&] { (void)kernel::lazy(none); }, "lazy");
  refused([&] { kernel::eval(kernel::assign(out, vsaxpy(2.0f, kernel::lazy(nothing), nothing))); }, "assign");
  refused([&] { kernel::eval(kernel::assign(nowhere, vsaxpy(2.0f, kernel::lazy(nothing), nothing))); }, "assign");
}

TEST(UfuncDeviceErrors, ShapesThatDoNotBroadcast) {
  auto dx = kernel::to_device(std::vector<float>(4), dev);
  auto dy = kernel::to_device(std::vector<float>(5), dev);
  try {
    vsaxpy(1.0f, dx, dy);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.callee(), "saxpy");
    EXPECT_EQ(e.argument(), 3);
    EXPECT_EQ(std::string(e.what()), "'saxpy': argument 3: shape (5,) cannot be broadcast with argument 2 (4,)");
  }
}

TEST(UfuncDeviceErrors, TooShortOutput) {
  auto dx = kernel::to_device(std::vector<float>(4, 1.0f), dev);
  kernel::device_array<float> dout(3, dev);
  std::vector<float> host_out(3, -1.0f);
  try {
    vsaxpy(1.0f, dx, dx, dout);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 4);
    EXPECT_NE(std::string(e.what()).find("output has shape (3,) but the inputs broadcast to (4,)"), std::string::npos);
  }
  EXPECT_THROW(vsaxpy.on(on_dev)(1.0f, std::vector<float>(4), std::vector<float>(4), host_out), kernel::argument_error);
  EXPECT_EQ(host_out, std::vector<float>(3, -1.0f));
}

TEST(UfuncDeviceErrors, DeviceArrayOfTheWrongElementType) {
  auto di = kernel::to_device(std::vector<int>{1, 2}, dev); // int32 casts safely to float64 ...
  try {
    vadd(di, 1.0); // ... but device arrays are never converted implicitly
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 1);
    EXPECT_EQ(std::string(e.what()), "'add': argument 1: is a device array of int32 but the selected loop reads "
                                     "float64; convert it on the device first (device arrays are never "
                                     "converted implicitly)");
  }
  kernel::device_array<float> wrong_out(2, dev);
  auto dd = kernel::to_device(std::vector<double>{1, 2}, dev);
  try {
    vadd(dd, dd, wrong_out);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 3);
    EXPECT_NE(std::string(e.what()).find("is a device array of float32 but the selected loop writes float64"),
              std::string::npos);
  }
}

TEST(UfuncDeviceErrors, PartiallyOverlappingDeviceOperands) {
  auto d = kernel::to_device(std::vector<float>{1, 2, 3, 4, 5}, dev);
  kernel::device_view<float> in(dev, d.data(), {4});
  kernel::device_view<float> out(dev, d.data() + 1, {4});
  try {
    vsaxpy(2.0f, in, in, out);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("shares memory with the output (argument 4)"), std::string::npos);
  }
  EXPECT_EQ(d.copy_to_host().to_vector(), (std::vector<float>{1, 2, 3, 4, 5}));
}

// The overlap rule is the CPU targets' on a device too, for host operands as for device ones:
// a host input that partially overlaps the host output is rejected, not silently staged.
TEST(UfuncDeviceErrors, PartiallyOverlappingHostOperands) {
  std::vector<float> buf{1, 2, 3, 4, 5};
  kernel::array_view<float> in(buf.data(), {4}), out(buf.data() + 1, {4});
  try {
    vsaxpy.on(on_dev)(2.0f, in, in, out);
    FAIL() << "a partial overlap was accepted";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 2);
    EXPECT_NE(std::string(e.what()).find("shares memory with the output (argument 4)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(buf, (std::vector<float>{1, 2, 3, 4, 5}));
  // Exactly in place is fine, as on the CPU.
  std::vector<float> x{1, 2, 3}, y{1, 1, 1};
  vsaxpy.on(on_dev)(2.0f, x, y, x);
  EXPECT_EQ(x, (std::vector<float>{3, 5, 7}));
}

// Interleaved views share no element (NumPy's np.add(x[::2], 1, out=x[1::2])): they are apart,
// on every target, though their memory ranges meet; views that do share one still are not.
TEST(UfuncDeviceErrors, InterleavedOperandsAreApart) {
  for (const kernel::target t : {on_dev, kernel::target::cpu, kernel::target::parallel}) {
    std::vector<float> x{0, 1, 2, 3, 4, 5, 6, 7};
    const kernel::array_view<float> even(x.data(), {4}, {2}), odd(x.data() + 1, {4}, {2});
    vsaxpy.on(t)(2.0f, even, std::vector<float>(4, 100.0f), odd);
    EXPECT_EQ(x, (std::vector<float>{0, 100, 2, 104, 4, 108, 6, 112}));
    const kernel::array_view<float> every_third(x.data(), {3}, {3});
    EXPECT_THROW(vsaxpy.on(t)(2.0f, every_third, every_third, odd), kernel::argument_error);
    EXPECT_EQ(x, (std::vector<float>{0, 100, 2, 104, 4, 108, 6, 112}));
  }
}

// An output that repeats its own elements (a zero stride) would be written more than once,
// racing on the parallel target and the GPU: refused on every target, host and device
// arrays alike, before anything is written.
TEST(UfuncDeviceErrors, OutputsRepeatingAnElement) {
  std::vector<float> x(100000, 1.0f), y = {7.0f};
  kernel::array_view<float> repeated(y.data(), {100000}, {0});
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel, on_dev}) {
    try {
      vsaxpy.on(t)(2.0f, x, x, repeated);
      FAIL() << kernel::target_name(t);
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 4);
      EXPECT_NE(std::string(e.what()).find("zero stride"), std::string::npos) << e.what();
    }
    EXPECT_THROW(kernel::eval(kernel::assign(repeated, vsaxpy.on(t)(2.0f, kernel::lazy(x), x))),
                 kernel::argument_error);
  }
  auto d = kernel::to_device(std::vector<float>{5}, dev);
  kernel::device_view<float> on_device(dev, d.data(), {8}, {0});
  EXPECT_THROW(vsaxpy(2.0f, std::vector<float>(8, 1.0f), std::vector<float>(8, 1.0f), on_device),
               kernel::argument_error);
  EXPECT_EQ(y[0], 7.0f);
  EXPECT_EQ(d.copy_to_host().to_vector(), std::vector<float>{5});
}

// A device that cannot hold a host argument's copy: the out-of-memory error names the ufunc,
// the argument and its size (the allocator alone named only the device).
TEST(UfuncDeviceErrors, OutOfDeviceMemoryNamesTheArgument) {
  if (kernel_test::on_gpu()) GTEST_SKIP() << "the simulator's memory limit";
  const auto x = iota(1 << 20, 0.0f), y = iota(1 << 20, 1.0f); // 4 MiB each
  std::vector<float> out(1 << 20, -1.0f);
  kernel_test::scoped_environment memory("KERNEL_SIMULATOR_MEMORY_MB", "6"); // x fits, y does not
  std::string message;
  bool out_of_memory = false;
  try {
    vsaxpy.on(kernel::device::simulator())(2.0f, x, y, out);
  } catch (const kernel::cuda_error &e) {
    message = e.what();
    out_of_memory = e.out_of_memory();
  }
  memory.set(nullptr);
  EXPECT_TRUE(out_of_memory) << message;
  EXPECT_NE(message.find("saxpy'"), std::string::npos) << message;
  EXPECT_NE(message.find("argument 3, 4194304 bytes copied to the device"), std::string::npos) << message;
  EXPECT_EQ(out, std::vector<float>(1 << 20, -1.0f));
}

// A result the device has no room for: the same out-of-memory error, naming the ufunc, the
// result and its shape; the inputs are untouched.
TEST(UfuncDeviceErrors, OutOfDeviceMemoryNamesTheResult) {
  if (kernel_test::on_gpu()) GTEST_SKIP() << "the simulator's memory limit";
  const kernel::device sim = kernel::device::simulator();
  const auto dx = kernel::to_device(iota(1 << 20, 0.0f), sim), dy = kernel::to_device(iota(1 << 20, 1.0f), sim);
  // The inputs' 8 MiB fit, a 4 MiB result does not.
  kernel_test::scoped_environment memory("KERNEL_SIMULATOR_MEMORY_MB", "10");
  std::string message;
  bool out_of_memory = false;
  try {
    const auto r = vsaxpy(2.0f, dx, dy);
    ADD_FAILURE() << "the result fitted";
  } catch (const kernel::cuda_error &e) {
    message = e.what();
    out_of_memory = e.out_of_memory();
  }
  memory.set(nullptr);
  EXPECT_TRUE(out_of_memory) << message;
  EXPECT_EQ(message.rfind("'saxpy': the result, of shape (1048576,): allocating 4194304 bytes", 0), 0u) << message;
  EXPECT_EQ(dy.copy_to_host().to_vector(), iota(1 << 20, 1.0f));
}

// A host result the machine cannot hold (2^60 bytes, within what one object may be): a
// std::bad_alloc, as operator new's, that names the ufunc and the shape. Sanitizers' allocators
// abort on such a size instead of failing it.
TEST(UfuncErrors, OutOfHostMemoryNamesTheResult) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  GTEST_SKIP() << "the sanitizer's allocator aborts on a 2^60-byte request";
#endif
#endif
  const float one = 1.0f; // every element of both, through zero strides
  const kernel::array_view<const float, 2> column(&one, {1 << 29, 1}, {0, 0}), row(&one, {1, 1 << 29}, {0, 0});
  try {
    const auto r = vsaxpy(2.0f, column, row);
    ADD_FAILURE() << "2^60 bytes were allocated";
  } catch (const kernel::host_memory_error &e) {
    EXPECT_STREQ(e.what(), "'saxpy': the result, of shape (536870912, 536870912): allocating 1152921504606846976 "
                           "bytes on the host: out of memory");
  }
  EXPECT_THROW((kernel::ndarray<float, 2>(kernel::index_list<2>{1 << 29, 1 << 29})), std::bad_alloc);
}

TEST(UfuncDeviceErrors, NoGpuHereIsExplained) {
  try {
    kernel::device::cuda();
    GTEST_SKIP() << "this machine has a GPU";
  } catch (const kernel::target_unavailable_error &) {
  }
  std::vector<float> x(4);
  try {
    vsaxpy.on(kernel::target::cuda)(1.0f, x, x);
    FAIL();
  } catch (const kernel::target_unavailable_error &e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("'saxpy' on target cuda: ", 0), 0u) << what;
    EXPECT_NE(what.find("Targets that work on this machine: cpu, parallel, simulator"), std::string::npos) << what;
    // Compiled with the plugin: the GPU code exists, only the GPU is missing.
    EXPECT_EQ(what.find("no GPU code was compiled"), std::string::npos) << what;
  }
}

// Every call that writes a host array it is given refuses a temporary container there when it
// runs on a stream: its results would be copied back after the container is gone (as a launch
// has always refused one). A named array, a view of one or a device array is fine, and so is
// any temporary off a stream, where the call is over when it returns.
TEST(TemporaryOutputs, RefusedOnAStreamByEveryCallThatWritesOne) {
  kernel::stream s(kernel_test::device());
  const std::vector<float> x(16, 1.0f);
  auto dx = kernel::to_device(x, kernel_test::device());
  const auto refused = [](int argument, const char *what, auto &&call) {
    try {
      call();
      ADD_FAILURE() << what << ": a temporary output on a stream was taken";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), argument) << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("temporary host array"), std::string::npos) << what << ": " << e.what();
    }
  };
  using cf = std::complex<float>;
  refused(4, "ufunc", [&] { vsaxpy.on(s)(2.0f, dx, dx, std::vector<float>(16)); });
  refused(1, "sort", [&] { kernel::sort.on(s)(std::vector<float>(x)); });
  refused(2, "cumsum", [&] { kernel::cumsum.on(s)(dx, std::vector<float>(16)); });
  refused(1, "fft_inplace", [&] { kernel::fft_inplace.on(s)(std::vector<cf>(16)); });
  refused(2, "rfft", [&] { kernel::rfft.on(s)(dx, std::vector<cf>(9)); });
  refused(3, "add", [&] { kernel::linalg::add.on(s)(dx, dx, std::vector<float>(16)); });
  refused(2, "scale", [&] { kernel::linalg::scale.on(s)(2.0f, std::vector<float>(x)); });
  kernel::random::philox generator(3);
  refused(1, "philox", [&] { generator.on(s).uniform(std::vector<float>(16)); });
  refused(1, "copy_to_host", [&] { dx.copy_to_host(std::vector<float>(16), s); });
  // Named arrays on the stream, and temporaries off it.
  std::vector<float> named(16);
  vsaxpy.on(s)(2.0f, dx, dx, named);
  kernel::cumsum.on(s)(dx, kernel::view(named.data(), 16));
  s.synchronize();
  EXPECT_EQ(named[15], 16.0f);
  EXPECT_NO_THROW(kernel::sort.on(kernel_test::target())(std::vector<float>(x)));
  EXPECT_NO_THROW(vsaxpy.on(kernel_test::target())(2.0f, x, x, std::vector<float>(16)));
  EXPECT_NO_THROW(dx.copy_to_host(std::vector<float>(16)));
}

} // namespace
