// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device arrays, transfers, streams and events, on the simulated device (the same API as
// on a GPU; these run everywhere).
#include <gtest/gtest.h>

#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "kernel/kernel.h"

// A device array in a static object, assigned in a test and freed as the program exits, after
// the function-local statics the runtime made later (the simulated device among them) would
// have been destroyed: the devices are never destroyed, so this ends cleanly.
kernel::device_array<float> kept_until_exit;

namespace {

const kernel::device sim = kernel::device::simulator();

TEST(Device, Simulator) {
  EXPECT_TRUE(sim.is_simulator());
  EXPECT_EQ(sim.name(), "simulator");
  EXPECT_EQ(sim.compute_capability(), 0);
  EXPECT_TRUE(kernel::device::simulator() == sim);
  sim.synchronize();
}

TEST(Device, NoDriverIsExplained) {
  try {
    kernel::device::cuda(0);
    SUCCEED() << "this machine has a GPU";
  } catch (const kernel::target_unavailable_error &e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("could not be loaded") != std::string::npos || what.find("cuInit") != std::string::npos ||
                what.find("no CUDA GPU") != std::string::npos)
        << what;
    // Made without a device: the default one, and what to use instead.
    for (const auto &make : {+[] { kernel::stream s; }, +[] { kernel::device_array<float> d(3); }}) {
      try {
        make();
        ADD_FAILURE() << "no error without a GPU";
      } catch (const kernel::target_unavailable_error &d) {
        const std::string why = d.what();
        EXPECT_EQ(
            why.rfind("the default device (of device arrays, streams and events given none) is CUDA device 0: ", 0), 0u)
            << why;
        EXPECT_NE(why.find("KERNEL_ENABLE_SIMULATOR=1"), std::string::npos) << why;
      }
    }
  }
}

TEST(DeviceArray, RoundTrip) {
  std::vector<float> host(1000);
  std::iota(host.begin(), host.end(), 0.0f);
  auto d = kernel::to_device(host, sim);
  static_assert(std::is_same_v<decltype(d), kernel::device_array<float, 1>>);
  EXPECT_EQ(d.size(), 1000);
  EXPECT_EQ(d.shape(0), 1000);
  EXPECT_EQ(d.bytes(), 4000u);
  EXPECT_TRUE(d.device() == sim);
  EXPECT_EQ(d.copy_to_host().to_vector(), host);

  std::vector<float> back(1000, -1.0f);
  d.copy_to_host(back);
  EXPECT_EQ(back, host);
}

TEST(DeviceArray, StridedHostViewsAreGatheredAndScattered) {
  kernel::ndarray<double, 2> m({3, 4});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) m(i, j) = 10 * i + j;
  // The transpose: a strided view.
  kernel::array_view<const double, 2> t(m.data(), {4, 3}, {1, 4});
  auto d = kernel::to_device(t, sim);
  auto h = d.copy_to_host();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(h(i, j), 10 * j + i);
  // Back into a strided destination.
  kernel::ndarray<double, 2> target({3, 4}, 0.0);
  kernel::array_view<double, 2> target_t(target.data(), {4, 3}, {1, 4});
  d.copy_to_host(target_t);
  EXPECT_EQ(target.to_vector(), m.to_vector());
}

TEST(DeviceArray, StaticArraysAreFreedAtExit) {
  kept_until_exit = kernel::device_array<float>(1000, sim);
  EXPECT_TRUE(kept_until_exit.has_device());
}

// A destination that reaches one element twice would keep the last of several values.
TEST(DeviceArray, CopyToHostWritesEachElementOnce) {
  std::vector<float> values(12);
  std::iota(values.begin(), values.end(), 0.0f);
  const auto d = kernel::to_device(kernel::array_view<const float, 2>(values.data(), {3, 4}), sim);
  std::vector<float> into(12, -1.0f);
  for (const auto &strides : {std::array<kernel::index_t, 2>{1, 1}, std::array<kernel::index_t, 2>{0, 1},
                              std::array<kernel::index_t, 2>{2, 1}}) {
    try {
      d.copy_to_host(kernel::array_view<float, 2>(into.data(), {3, 4}, strides));
      ADD_FAILURE() << "a destination reaching elements twice was taken";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(std::string(e.what()).rfind("'copy_to_host': argument 1:", 0), 0u) << e.what();
    }
    EXPECT_EQ(into, std::vector<float>(12, -1.0f));
  }
  d.copy_to_host(kernel::array_view<float, 2>(into.data(), {3, 4}, {1, 3})); // transposed: fine
  EXPECT_EQ(into[3], 1.0f);
}

TEST(DeviceArray, CopyFromHostCopyAndLike) {
  kernel::device_array<int, 2> d({2, 3}, sim);
  std::vector<int> values{1, 2, 3, 4, 5, 6};
  d.copy_from_host(kernel::view(values.data(), {2, 3}));
  auto e = d.copy();
  EXPECT_EQ(e.copy_to_host().to_vector(), values);
  auto like = kernel::device_array_like(e);
  EXPECT_EQ(like.shape(), e.shape());
  EXPECT_TRUE(like.device() == sim);
  auto from_host = kernel::device_array_like(values, sim);
  EXPECT_EQ(from_host.size(), 6);
}

// Code written once for host and device arrays: empty_like stays where its argument is,
// to_host copies a device array and hands a host array back as it is.
TEST(DeviceArray, EmptyLikeAndToHostFollowTheArray) {
  kernel::ndarray<float, 2> h({2, 3}, 1.5f);
  const auto d = kernel::to_device(h, sim);
  const kernel::ndarray<float, 2> h2 = kernel::empty_like(h, {4, 5});
  EXPECT_EQ(h2.shape(), (std::array<kernel::index_t, 2>{4, 5}));
  const kernel::device_array<float, 2> d2 = kernel::empty_like(d, {4, 5}), d3 = kernel::empty_like(d);
  EXPECT_EQ(d2.shape(), (std::array<kernel::index_t, 2>{4, 5}));
  EXPECT_EQ(d3.shape(), d.shape());
  EXPECT_TRUE(d2.device() == sim);
  EXPECT_EQ(kernel::empty_like(h).shape(), h.shape());
  EXPECT_EQ(&kernel::to_host(h), &h); // no copy
  EXPECT_EQ(kernel::to_host(d).to_vector(), h.to_vector());
  EXPECT_EQ(kernel::to_host(kernel::ndarray<int, 1>::of({1, 2})).to_vector(), (std::vector<int>{1, 2}));
}

TEST(Device, OfTarget) {
  EXPECT_TRUE(kernel::device::of(kernel::target::simulator) == sim);
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    try {
      kernel::device::of(t);
      ADD_FAILURE() << "a device for a host target";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(std::string(e.what()), "'device::of': argument 1: target " + std::string(kernel::target_name(t)) +
                                           " runs on the host, not on a device");
    }
  }
}

TEST(DeviceArray, ShapeMismatchIsAnError) {
  kernel::device_array<float> d(4, sim);
  std::vector<float> small(3), big(5);
  try {
    d.copy_to_host(small);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(std::string(e.what()),
              "'copy_to_host': argument 1: the host array has shape (3,) but the device array has shape (4,)");
  }
  EXPECT_THROW(d.copy_from_host(big), kernel::argument_error);
}

TEST(DeviceArray, EmptyAndMoved) {
  kernel::device_array<float> empty(0, sim);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.copy_to_host().size(), 0);
  auto d = kernel::to_device(std::vector<float>{1, 2}, sim);
  kernel::device_array<float> moved = std::move(d);
  EXPECT_EQ(moved.copy_to_host()[1], 2.0f);
  // The moved-from array is empty, on its device; transfers of nothing do nothing.
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.copy_to_host().size(), 0);
  EXPECT_TRUE(d.device() == sim);
  EXPECT_EQ(d.copy().size(), 0);
  d.copy_from_host(std::vector<float>{});
  EXPECT_THROW(d.copy_from_host(std::vector<float>{1, 2}), kernel::argument_error);
  kernel::device_array<float> reassigned(3, sim);
  reassigned = std::move(moved);
  EXPECT_EQ(reassigned.size(), 2);
  EXPECT_EQ(moved.size(), 0);
  // A default-constructed array is empty and has no device: transfers of nothing work, and
  // what needs the device is an argument error, not a crash.
  kernel::device_array<float> none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.copy_to_host().size(), 0);
  EXPECT_EQ(none.copy().size(), 0);
  std::vector<float> nothing;
  none.copy_to_host(nothing);
  none.copy_from_host(nothing);
  EXPECT_THROW((void)none.device(), kernel::argument_error);
  EXPECT_THROW((void)none.view(), kernel::argument_error);
}

// Streams and events are handles: a copy or a move shares the stream, and the moved-from one
// still works. Events are checked as CUDA checks them, on the simulator too.
TEST(Stream, HandlesAndEventChecks) {
  kernel::stream s(sim);
  kernel::stream t = std::move(s);
  s.synchronize();
  EXPECT_TRUE(s.query());
  EXPECT_TRUE(t.state() == s.state());
  kernel::event a(sim), b(sim);
  try {
    (void)b.elapsed_ms(a);
    FAIL() << "elapsed time between events never recorded";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("never recorded"), std::string::npos) << e.what();
  }
  a.record(s);
  EXPECT_THROW((void)b.elapsed_ms(a), kernel::argument_error);
  b.record(t);
  EXPECT_GE(b.elapsed_ms(a), 0.0f);
  kernel::event c = std::move(a);
  a.synchronize();
  EXPECT_GE(b.elapsed_ms(c), 0.0f);
}

TEST(Stream, OrderedWorkAndEvents) {
  kernel::stream s(sim);
  EXPECT_TRUE(s.device() == sim);
  EXPECT_EQ(s.native_handle(), nullptr);
  std::vector<double> host(1 << 16, 1.5);
  kernel::event start(sim), stop(sim);
  start.record(s);
  auto d = kernel::to_device(host, s);         // allocated and copied in order on s
  kernel::device_array<double> e(d.size(), s); // stream-ordered allocation
  std::vector<double> back(host.size());
  d.copy_to_host(back, s);
  stop.record(s);
  s.synchronize();
  stop.synchronize();
  EXPECT_TRUE(s.query());
  EXPECT_TRUE(stop.query());
  EXPECT_GE(stop.elapsed_ms(start), 0.0f);
  EXPECT_EQ(back, host);
  stop.wait(s);
}

} // namespace
