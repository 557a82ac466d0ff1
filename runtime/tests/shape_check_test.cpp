// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shapes are checked where they enter (kernel/detail/shape_check.h): negative extents and
// element counts or byte sizes that overflow are argument_errors naming the call and the
// dimension, on every target, before anything is allocated or written.
#include <algorithm>
#include <gtest/gtest.h>

#include <array>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel/algorithm.h"
#include "kernel/kernel.h"
#include "test_device.h"

[[kernel::vectorize]] float add1(float x, float y) { return x + y; }

[[kernel::guvectorize("(n)->()")]]
void total(kernel::array_view<const float> x, float &out) {
  out = 0;
  for (kernel::index_t i = 0; i < x.size(); ++i) out += x[i];
}

[[kernel::reduce]] float plus(float a, float b) { return a + b; }

namespace {

using kernel::index_t;
constexpr kernel::ufunc<add1> vadd;
constexpr kernel::gufunc<"(n)->()", total> vtotal;
constexpr kernel::reduce<plus> sum;
const kernel::target targets[] = {kernel::target::cpu, kernel::target::parallel, kernel_test::target()};

constexpr index_t huge = index_t{1} << 62;
constexpr index_t wraps = 6148914691236517206; // 3 * this is 2 modulo 2^64

// Runs `f`, expecting an argument_error of `callee` whose message contains `part`.
template <class F> void expect_error(F &&f, const std::string &callee, const std::string &part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << part << "'";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.callee(), callee) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// checked_size itself, whose common case is a separate, inlined loop: each branch of the
// unusual one reached from it, at the edges of the limits.
TEST(ShapeCheck, CheckedSizeOnEveryPath) {
  using kernel::detail::checked_size;
  const auto size = [](std::initializer_list<index_t> shape, std::size_t bytes) {
    return checked_size("f", 2, shape.begin(), static_cast<int>(shape.size()), bytes);
  };
  EXPECT_EQ(checked_size("f", 1, nullptr, 0, 4), 1); // a scalar's shape
  EXPECT_EQ(size({3, 5, 7}, 8), 105);
  // Empty: 0 elements, whatever the other extents, even ones whose product overflows.
  EXPECT_EQ(size({huge, 0, huge}, 4), 0);
  EXPECT_EQ(size({0}, 1), 0);
  // A negative extent is an error even beside a zero, before it or after it.
  expect_error([&] { size({0, -1}, 1); }, "f", "argument 2: shape (0, -1): dimension 1 has a negative extent (-1)");
  expect_error([&] { size({-2, 0}, 1); }, "f", "dimension 0 has a negative extent (-2)");
  // The largest count that fits, in elements and in bytes, and one past it.
  constexpr index_t most = PTRDIFF_MAX;
  EXPECT_EQ(size({most}, 1), most);
  EXPECT_EQ(size({most / 4}, 4), most / 4);
  expect_error([&] { size({most / 4 + 1}, 4); }, "f", "too large for 4-byte elements");
  // Overflowing 64 bits at the second dimension, and wrapping to a small product.
  expect_error([&] { size({huge, 8}, 1); }, "f", "overflows at dimension 1");
  expect_error([&] { size({wraps, 3}, 1); }, "f", "overflows at dimension 1");
}

TEST(ShapeCheck, NdarrayRejectsNegativeAndOverflowingShapes) {
  expect_error([] { kernel::ndarray<float> a(index_t{-1}); }, "ndarray", "dimension 0 has a negative extent (-1)");
  expect_error([] { kernel::ndarray<float, 2> a({2, -3}); }, "ndarray", "dimension 1 has a negative extent (-3)");
  // 2^62 floats are 2^64 bytes: the byte count wraps to 0.
  expect_error([] { kernel::ndarray<float> a(huge); }, "ndarray", "overflows at dimension 0");
  // The element count wraps to 2.
  expect_error([] { kernel::ndarray<char, 2> a({3, wraps}); }, "ndarray", "overflows at dimension 1");
  expect_error([] { kernel::ndarray<char, 2> a({index_t{1} << 32, index_t{1} << 32}); }, "ndarray",
               "overflows at dimension 1");
  // An empty array is fine, however large its other extents.
  EXPECT_EQ((kernel::ndarray<float, 2>({0, huge}).size()), 0);
}

// A braced size is a size, never a one-element array holding it (std::vector's `{n}` trap):
// every spelling of "n elements" gives n zeros, whatever the element type, and the elements
// themselves are given only through `of`.
TEST(ShapeCheck, NdarrayBracedSizeIsASize) {
  const index_t n = 5;
  EXPECT_EQ(kernel::ndarray<float>({1000}).size(), 1000);
  EXPECT_EQ(kernel::ndarray<float>{1000}.size(), 1000);
  EXPECT_EQ(kernel::ndarray<index_t>({n}).size(), n);
  EXPECT_EQ(kernel::ndarray<int>({7}).size(), 7);
  EXPECT_EQ(kernel::ndarray<std::complex<float>>({n}).size(), n);
  EXPECT_EQ(kernel::ndarray<unsigned char>(std::size_t{3}).size(), 3);
  const kernel::ndarray<int> zeros({4});
  EXPECT_EQ(zeros.to_vector(), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(kernel::ndarray<int>::of({4}).to_vector(), (std::vector<int>{4}));
  EXPECT_EQ(kernel::ndarray<float>::of({1, 2.5}).to_vector(), (std::vector<float>{1.0f, 2.5f}));
  EXPECT_TRUE(kernel::ndarray<double>::of({}).empty());
  static_assert(!std::is_constructible_v<kernel::ndarray<float>, bool>, "a bool is not a size");
  static_assert(!std::is_convertible_v<std::initializer_list<float>, kernel::ndarray<float>>,
                "elements are given through of(), not a brace list");
}

// A braced shape or strides list has exactly the array's rank: a std::array parameter would
// pad a short list with zeros (an empty array, a view repeating its rows).
template <std::size_t R> constexpr bool from_two_extents = requires { kernel::ndarray<float, R>({index_t{3}, 4}); };
template <std::size_t R>
constexpr bool view_from_two_extents = requires(float *p) { kernel::array_view<float, R>(p, {3, std::size_t{4}}); };
template <std::size_t R>
constexpr bool device_array_from_two_extents = requires { kernel::device_array<float, R>({3, 4}); };
static_assert(from_two_extents<2> && !from_two_extents<3>);
// Nor, for rank 1, a shape and a fill value: `({3, 4})` is no array (of three fours, or of 3
// and 4); those are `(3, 4)` and `of({3, 4})`.
static_assert(!from_two_extents<1>);
template <class T> constexpr bool braced_pair = requires { kernel::ndarray<T>{3, 4}; };
static_assert(!braced_pair<int> && !braced_pair<float>, "{3, 4} is neither three fours nor 3 and 4");
static_assert(view_from_two_extents<2> && !view_from_two_extents<3>);
static_assert(device_array_from_two_extents<2> && !device_array_from_two_extents<3>);

// As std::span: no view of mutable elements of a temporary container (it would dangle at the
// end of the statement); views of const elements of one are what function arguments need.
static_assert(!std::is_constructible_v<kernel::array_view<float>, std::vector<float> &&>);
static_assert(!std::is_convertible_v<kernel::ndarray<float> &&, kernel::array_view<float>>);
static_assert(std::is_constructible_v<kernel::array_view<float>, std::vector<float> &>);
static_assert(std::is_constructible_v<kernel::array_view<const float>, std::vector<float> &&>);
static_assert(std::is_convertible_v<kernel::ndarray<float> &, kernel::array_view<float>>);
static_assert(std::is_convertible_v<kernel::ndarray<float> &&, kernel::array_view<const float>>);

TEST(ShapeCheck, IndexListsOfAnyIntegerTypes) {
  const std::size_t rows = 3;
  const unsigned cols = 4;
  EXPECT_EQ((kernel::ndarray<float, 2>({rows, cols}).shape()), (std::array<index_t, 2>{3, 4}));
  EXPECT_EQ((kernel::ndarray<float>({rows}).size()), 3);
  EXPECT_EQ((kernel::ndarray<int>({rows}, 7).to_vector()), (std::vector<int>{7, 7, 7}));
  float data[12] = {};
  const kernel::array_view<float, 2> t(data, {cols, rows}, {1, cols});
  EXPECT_EQ(&t(2, 1), &data[2 + 1 * 4]);
}

// Shapes as std::arrays of any integer type and as unscoped enumerators; ranks deduced from a
// shape(); braced sizes of unsigned types for device arrays (they narrowed to index_t).
TEST(ShapeCheck, IndexListsOfStdArraysEnumeratorsAndDeducedRanks) {
  enum { rows = 2, cols = 3 };
  EXPECT_EQ((kernel::ndarray<float, 2>({rows, cols}).shape()), (std::array<index_t, 2>{2, 3}));
  EXPECT_EQ(kernel::ndarray<float>(rows).size(), 2);
  const std::array<std::size_t, 2> shape{2, 3};
  const kernel::ndarray<float, 2> a(shape);
  EXPECT_EQ(a.shape(), (std::array<index_t, 2>{2, 3}));
  float data[6] = {};
  const kernel::array_view v(data, a.shape());
  static_assert(std::is_same_v<decltype(v), const kernel::array_view<float, 2>>);
  const kernel::array_view w(data, shape, std::array<int, 2>{1, 2});
  static_assert(std::is_same_v<decltype(w), const kernel::array_view<float, 2>>);
  EXPECT_EQ(&w(1, 2), &data[5]);
  const kernel::device d = kernel_test::device();
  const std::size_t n = 5;
  const kernel::device_array<float> braced({n}, d), counted(n, d);
  EXPECT_EQ(braced.shape(), (std::array<index_t, 1>{5}));
  EXPECT_EQ(counted.shape(), (std::array<index_t, 1>{5}));
  const kernel::device_view dv(d, braced.data(), braced.shape());
  static_assert(std::is_same_v<decltype(dv), const kernel::device_view<float, 1>>);
  enum class scoped { four = 4 };
  static_assert(!std::is_constructible_v<kernel::index_list<1>, scoped>);
  static_assert(!std::is_constructible_v<kernel::index_list<1>, bool>);
  static_assert(!std::is_constructible_v<kernel::index_list<2>, std::array<std::size_t, 3>>);
}

// A moved-from array is empty, not a shape over no elements (which a later call would read).
TEST(ShapeCheck, MovedFromNdarrayIsEmpty) {
  kernel::ndarray<float, 2> a({2, 3}, 1.0f);
  kernel::ndarray<float, 2> b = std::move(a);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.shape(), (std::array<index_t, 2>{0, 0}));
  EXPECT_EQ(b.size(), 6);
  kernel::ndarray<float, 2> c({1, 1});
  c = std::move(b);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(c.size(), 6);
  const kernel::ndarray<float, 2> copy(b); // a copy of an empty array
  EXPECT_TRUE(copy.empty());
}

TEST(ShapeCheck, DeviceArrayRejectsNegativeAndOverflowingShapes) {
  const kernel::device d = kernel_test::device();
  expect_error([&] { kernel::device_array<float> a(huge, d); }, "device_array", "overflows at dimension 0");
  expect_error([&] { kernel::device_array<float, 2> a({-1, 4}, d); }, "device_array",
               "dimension 0 has a negative extent (-1)");
  expect_error([&] { kernel::device_array<double, 2> a({3, wraps}, d); }, "device_array", "overflows at dimension 1");
  kernel::device_array<float> ok(4, d);
  expect_error([&] { kernel::device_view<float, 2> a(d, ok.data(), {2, -2}); }, "device_view",
               "dimension 1 has a negative extent (-2)");
}

TEST(ShapeCheck, TransfersCheckTheHostView) {
  const kernel::device d = kernel_test::device();
  std::vector<float> x(8, 1.0f);
  kernel::array_view<float> negative(x.data(), {-4}, {1});
  kernel::array_view<float, 2> far(x.data(), {2, 2}, {huge, 1});
  expect_error([&] { kernel::to_device(negative, d); }, "to_device", "dimension 0 has a negative extent (-4)");
  expect_error([&] { kernel::to_device(far, d); }, "to_device", "reaches past the address space");
  kernel::device_array<float, 2> dd({2, 2}, d);
  expect_error([&] { dd.copy_to_host(far); }, "copy_to_host", "reaches past the address space");
  expect_error([&] { dd.copy_from_host(far); }, "copy_from_host", "reaches past the address space");
}

TEST(ShapeCheck, BroadcastOfRepeatedElementsIntoANewResult) {
  float one = 1.0f;
  // 2^62 elements, all the same float: a valid view, but its broadcast result cannot exist.
  kernel::array_view<float> repeated(&one, {huge}, {0});
  for (kernel::target t : targets)
    expect_error([&] { vadd.on(t)(repeated, 1.0f); }, "add1", "too large for 4-byte elements");
  // Two views whose broadcast shape has 2^64 elements.
  kernel::array_view<float, 2> column(&one, {index_t{1} << 32, 1}, {0, 0});
  kernel::array_view<float, 2> row(&one, {1, index_t{1} << 32}, {0, 0});
  for (kernel::target t : targets) expect_error([&] { vadd.on(t)(column, row); }, "add1", "overflows at dimension 1");
}

TEST(ShapeCheck, ViewsGivenToCallsAreChecked) {
  std::vector<float> x(8, 1.0f), out(8, 5.0f);
  kernel::array_view<float> negative(x.data(), {-4}, {1});
  kernel::array_view<float, 2> wrapping(x.data(), {3, wraps}, {0, 0});
  kernel::array_view<float, 2> far(x.data(), {2, 2}, {huge, 1});
  kernel::array_view<float, 2> negative_rows(x.data(), {-2, 4}, {4, 1});
  kernel::array_view<float, 3> wrapping_rows(x.data(), {3, wraps, 1}, {0, 0, 0});
  for (kernel::target t : targets) {
    expect_error([&] { vadd.on(t)(negative, 1.0f, out); }, "add1", "argument 1: shape (-4,)");
    expect_error([&] { vadd.on(t)(x, wrapping); }, "add1", "argument 2: shape (3, 6148914691236517206)");
    expect_error([&] { vadd.on(t)(far, 1.0f); }, "add1", "reaches past the address space at dimension 0");
    expect_error([&] { vtotal.on(t)(negative_rows); }, "total", "dimension 0 has a negative extent (-2)");
    expect_error([&] { vtotal.on(t)(wrapping_rows); }, "total", "overflows at dimension 1");
    expect_error([&] { sum.on(t)(negative); }, "plus", "dimension 0 has a negative extent (-4)");
    expect_error([&] { sum.on(t)(wrapping); }, "plus", "overflows at dimension 1");
  }
  // Nothing was written.
  EXPECT_EQ(out, std::vector<float>(8, 5.0f));
}

TEST(ShapeCheck, GufuncResultTooLarge) {
  float one = 1.0f;
  // 3 * 2^61 elements fit a view; the (2^61,) float result does not fit memory.
  kernel::array_view<float, 2> repeated(&one, {index_t{1} << 61, 3}, {0, 0});
  for (kernel::target t : targets)
    expect_error([&] { vtotal.on(t)(repeated); }, "total", "too large for 4-byte elements");
}

} // namespace

// Copies and conversions of views keep their strides: a view is not a contiguous range (it has
// data() and size() but no iterators), so the range constructor must not take it, nor a device
// array (device memory is not a host range).
TEST(ShapeCheck, ViewCopiesKeepTheirStrides) {
  static_assert(kernel::detail::contiguous_sized_range<std::vector<float> &>);
  static_assert(kernel::detail::contiguous_sized_range<const std::array<int, 3> &>);
  static_assert(kernel::detail::contiguous_sized_range<float(&)[4]>);
  static_assert(!kernel::detail::contiguous_sized_range<std::vector<bool> &>);
  static_assert(!kernel::detail::contiguous_sized_range<kernel::array_view<float, 1> &>);
  static_assert(!kernel::detail::contiguous_sized_range<kernel::device_array<float, 1> &>);
  static_assert(!kernel::detail::contiguous_sized_range<kernel::device_view<float, 1> &>);
  float data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  kernel::array_view<float, 1> every_other(data, {4}, {2});
  kernel::array_view<float, 1> copy(every_other);
  kernel::array_view<const float, 1> as_const = every_other;
  const auto captured = [every_other] { return every_other[3]; };
  EXPECT_EQ(copy.stride(0), 2);
  EXPECT_EQ(as_const.stride(0), 2);
  EXPECT_EQ(copy[3], 6.0f);
  EXPECT_EQ(as_const[3], 6.0f);
  EXPECT_EQ(captured(), 6.0f);
  // A ufunc writing through a strided 1-D view leaves the elements between alone.
  std::vector<float> out(8, -1.0f);
  kernel::array_view<float, 1> out_view(out.data(), {4}, {2});
  const std::vector<float> in = {10, 11, 12, 13};
  kernel::cumsum(in, out_view);
  EXPECT_EQ(out, (std::vector<float>{10, -1, 21, -1, 33, -1, 46, -1}));
}

// Outputs whose strides reach an element twice are refused wherever results are written (a
// ufunc's output here), not only those with a zero stride; every view layout is taken.
[[kernel::vectorize("float32(float32)")]] float twice_of(float x) { return 2 * x; }

TEST(ShapeCheck, OutputsReachingAnElementTwice) {
  constexpr kernel::ufunc<twice_of> twice;
  std::vector<float> in(12, 1.0f), out(24, 0.0f);
  const kernel::array_view<const float, 2> x(in.data(), {3, 4});
  for (const auto &strides : {std::array<kernel::index_t, 2>{1, 1}, std::array<kernel::index_t, 2>{3, 1},
                              std::array<kernel::index_t, 2>{1, 2}, std::array<kernel::index_t, 2>{-2, 1}}) {
    EXPECT_THROW(twice(x, kernel::array_view<float, 2>(out.data() + 12, {3, 4}, strides)), kernel::argument_error);
    EXPECT_EQ(out, std::vector<float>(24, 0.0f));
  }
  for (const auto &strides : {std::array<kernel::index_t, 2>{4, 1}, std::array<kernel::index_t, 2>{1, 3},
                              std::array<kernel::index_t, 2>{-4, -1}, std::array<kernel::index_t, 2>{8, 2}}) {
    std::fill(out.begin(), out.end(), 0.0f);
    twice(x, kernel::array_view<float, 2>(out.data() + (strides[0] < 0 ? 11 : 0), {3, 4}, strides));
    EXPECT_EQ(std::count(out.begin(), out.end(), 2.0f), 12);
  }
}
