// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Lazy expressions built without the plugin (a plain C++20 compile): they run on cpu and
// parallel. Functions here count their calls, which GPU code could not, to show that a
// subexpression shared by several outputs is computed once per element, and the global
// allocator counts allocations, to show that a fused evaluation makes no temporaries.
#include <gtest/gtest.h>

#include <atomic>
#include <complex>
#include <cstdlib>
#include <new>
#include <string>

#include "kernel/kernel.h"

namespace {
std::atomic<long> heap_allocations{0};
std::atomic<long> square_calls{0};
} // namespace

void *operator new(std::size_t n) {
  heap_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void *operator new(std::size_t n, std::align_val_t a) {
  heap_allocations.fetch_add(1, std::memory_order_relaxed);
  const std::size_t align = static_cast<std::size_t>(a);
  if (void *p = std::aligned_alloc(align, (n + align - 1) / align * align + align)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }

float square(float x) {
  square_calls.fetch_add(1, std::memory_order_relaxed);
  return x * x;
}
float add(float a, float b) { return a + b; }
float twice(float a) { return 2.0f * a; }
// A const class result, as some code bases write them: its step's slot holds the value.
const std::complex<float> rotated(std::complex<float> z) { return z * std::complex<float>(0, 1); }
std::complex<float> conjugated(std::complex<float> z) { return std::conj(z); }

namespace {

constexpr kernel::ufunc<square> vsquare;
constexpr kernel::ufunc<add> vadd;
constexpr kernel::ufunc<twice> vtwice;
constexpr kernel::reduce<add> sum;
constexpr kernel::ufunc<rotated> vrotated;
constexpr kernel::ufunc<conjugated> vconjugated;

kernel::ndarray<float> ramp(kernel::index_t n) {
  kernel::ndarray<float> a(n);
  for (kernel::index_t i = 0; i < n; ++i) a[i] = static_cast<float>(i) * 0.5f;
  return a;
}

TEST(FusionWithoutPlugin, SharedSubexpressionsAreComputedOncePerElement) {
  const auto x = ramp(1000);
  const auto s = vsquare(kernel::lazy(x));
  kernel::ndarray<float> a(1000), b(1000);
  square_calls = 0;
  kernel::eval(kernel::assign(a, vtwice(s)), kernel::assign(b, vadd(s, s)));
  EXPECT_EQ(square_calls.load(), 1000);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(a[i], 2.0f * x[i] * x[i]);
    ASSERT_EQ(b[i], x[i] * x[i] + x[i] * x[i]);
  }
  // Two different arrays under the same kind of node: each is computed.
  const auto y = ramp(1000);
  square_calls = 0;
  kernel::eval(kernel::assign(a, vtwice(vsquare(kernel::lazy(x)))),
               kernel::assign(b, vtwice(vsquare(kernel::lazy(y)))));
  EXPECT_EQ(square_calls.load(), 2000);
}

TEST(FusionWithoutPlugin, NoTemporariesOnTheCpu) {
  const auto x = ramp(1 << 16);
  kernel::ndarray<float> out(1 << 16);
  const auto e = vtwice(vadd(vsquare(kernel::lazy(x)), 1.0f));
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    kernel::eval(t, kernel::assign(out, e)); // warm: the parallel executor starts
    const long before = heap_allocations.load();
    kernel::eval(t, kernel::assign(out, e));
    if (t == kernel::target::cpu) EXPECT_EQ(heap_allocations.load() - before, 0) << kernel::target_name(t);
    // The eager chain allocates its temporaries.
    const long eager_before = heap_allocations.load();
    const auto eager = vtwice.on(t)(vadd.on(t)(vsquare.on(t)(x), 1.0f));
    EXPECT_GE(heap_allocations.load() - eager_before, 3); // two temporaries and the result
    for (int i = 0; i < (1 << 16); ++i) ASSERT_EQ(out[i], eager[i]);
  }
}

TEST(FusionWithoutPlugin, DeviceTargetsSayNoGpuCodeWasCompiled) {
  const auto x = ramp(10);
  try {
    (void)vtwice(kernel::lazy(x)).eval(kernel::target::cuda);
    FAIL();
  } catch (const kernel::target_unavailable_error &e) {
    EXPECT_NE(std::string(e.what()).find("no GPU code was compiled for this fused expression"), std::string::npos)
        << e.what();
  }
}

TEST(FusionWithoutPlugin, MapReduceOfAnNdExpressionFoldsAsTheEagerReduction) {
  // kernel::reduce folds a 2-d array element by element (a 1-d one in lanes): the fused
  // reduction of a 2-d expression does too, on cpu and on parallel below its chunked size.
  kernel::ndarray<float, 2> x({37, 1});
  for (int i = 0; i < 37; ++i) x.data()[i] = static_cast<float>(i) * 1.37f;
  auto y = ramp(131);
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    const float fused = sum.on(t)(vsquare(vadd(kernel::lazy(x), y)));
    const float eager = sum.on(t)(vsquare(vadd(x, y)));
    EXPECT_EQ(fused, eager) << kernel::target_name(t);
  }
}

TEST(FusionWithoutPlugin, ConstQualifiedResults) {
  const auto z = kernel::ndarray<std::complex<float>>::of({{1, 2}, {3, -4}});
  const auto fused = vconjugated(vrotated(kernel::lazy(z))).eval();
  const auto eager = vconjugated(vrotated(z));
  EXPECT_EQ(fused.to_vector(), eager.to_vector());
  EXPECT_EQ(fused[0], std::complex<float>(-2, -1));
}

TEST(FusionWithoutPlugin, MapReduce) {
  const auto x = ramp(200000);
  EXPECT_EQ(sum.on(kernel::target::parallel)(vsquare(kernel::lazy(x))), sum.on(kernel::target::parallel)(vsquare(x)));
  EXPECT_EQ(sum(vsquare(kernel::lazy(x))), sum(vsquare(x)));
}

} // namespace

namespace {
// Kernel names are built at compile time in a buffer of 4 KiB: a longer name ends in a hash of
// the whole, so that two expressions differing past the buffer keep two names (they shared one).
TEST(FusionNames, NamesLongerThanTheBufferStayDistinct) {
  constexpr auto make = [](std::string_view last) {
    kernel::detail::ctext t;
    for (int i = 0; i < 5000; ++i) t += "x";
    t += last;
    return t;
  };
  constexpr kernel::detail::ctext a = make("float32"), b = make("float64"), again = make("float32");
  static_assert(a.view() != b.view() && a.view() == again.view());
  static_assert(a.size == sizeof a.data - 1 && a.view().substr(a.size - 20, 4) == "...#");
  constexpr kernel::detail::ctext short_name = [] {
    kernel::detail::ctext t;
    t += "twice(float32[:])";
    return t;
  }();
  static_assert(short_name.view() == "twice(float32[:])");
}
} // namespace
