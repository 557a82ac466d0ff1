// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How the runtime orders work between streams and the host where a GPU runs it later than the
// call that queued it, shown on a device of this test whose streams hold their host work until
// the test runs it (the simulator's run everything before the call returns):
// - reads of host memory wait for the results streams are delivering into it;
// - device memory used on another stream than its own is freed after an event there.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "device/device_state.h"
#include "kernel/detail/device_api.h"
#include "kernel/device_array.h"
#include "kernel/fuse.h"
#include "kernel/launch.h"
#include "kernel/linalg.h"
#include "kernel/ufunc.h"

namespace {

using kernel::detail::device_state;
using kernel::detail::event_state;
using kernel::detail::stream_state;

class held_device;

// What happened, in order: "record s1", "wait s0", "release".
struct journal {
  std::mutex lock;
  std::vector<std::string> entries;
  void add(std::string e) {
    std::lock_guard guard(lock);
    entries.push_back(std::move(e));
  }
  std::vector<std::string> read() {
    std::lock_guard guard(lock);
    return entries;
  }
};

class held_stream final : public stream_state {
public:
  held_stream(device_state &d, int number, journal &j) : stream_state(d), number_(number), journal_(j) {}
  std::string name() const { return "s" + std::to_string(number_); }
  void synchronize() override { run_all(); }
  bool query() override {
    if (failed) throw std::runtime_error(name() + " failed");
    std::lock_guard guard(lock_);
    return held_.empty();
  }
  void wait(event_state &) override { journal_.add("wait " + name()); }
  void *native() noexcept override { return nullptr; }

  void hold(kernel::detail::host_task t) {
    std::lock_guard guard(lock_);
    held_.push_back(std::move(t));
  }
  // Runs the held host work, as the stream would reach it.
  void run_all() {
    std::deque<kernel::detail::host_task> work;
    {
      std::lock_guard guard(lock_);
      work.swap(held_);
    }
    for (auto &t : work) t();
  }
  // Drops the held host work unrun, as a failed context does.
  void drop_all() {
    std::lock_guard guard(lock_);
    held_.clear();
  }
  std::atomic<bool> failed{false};

private:
  int number_;
  journal &journal_;
  std::mutex lock_;
  std::deque<kernel::detail::host_task> held_;
};

class noted_event final : public event_state {
public:
  explicit noted_event(journal &j) : journal_(j) {}
  void record(stream_state &s) override { journal_.add("record " + static_cast<held_stream &>(s).name()); }
  void synchronize() override {}
  bool query() override { return true; }
  float elapsed_ms(event_state &) override { return 0; }

private:
  journal &journal_;
};

class held_device final : public device_state {
public:
  held_device() { default_stream_ = std::make_shared<held_stream>(*this, 0, journal_); }
  std::string name() const override { return "held"; }
  bool is_simulator() const noexcept override { return false; }
  int compute_capability() const noexcept override { return 90; }
  std::shared_ptr<stream_state> create_stream() override {
    return std::make_shared<held_stream>(*this, ++streams_, journal_);
  }
  std::shared_ptr<event_state> create_event() override { return std::make_shared<noted_event>(journal_); }
  void *allocate(std::size_t bytes, stream_state &) override { return ::operator new(bytes); }
  void release(void *p, stream_state &s) noexcept override {
    journal_.add("release on " + static_cast<held_stream &>(s).name());
    ::operator delete(p);
  }
  void copy(void *dst, const void *src, std::size_t bytes, kernel::detail::copy_direction, stream_state &) override {
    std::memcpy(dst, src, bytes);
  }
  void zero(void *dst, std::size_t bytes, stream_state &) override { std::memset(dst, 0, bytes); }
  void *allocate_pinned(std::size_t bytes) override { return ::operator new(bytes); }
  void release_pinned(void *p, std::size_t) noexcept override { ::operator delete(p); }
  void host_work(stream_state &s, kernel::detail::host_task work) override {
    static_cast<held_stream &>(s).hold(std::move(work));
  }
  kernel::detail::launch_config elementwise_config(const kernel::detail::kernel_ref &, kernel::index_t) override {
    throw std::logic_error("no kernels here");
  }
  kernel::detail::launch_config resident_config(const kernel::detail::kernel_ref &, kernel::index_t,
                                                unsigned) override {
    throw std::logic_error("no kernels here");
  }
  void launch(const kernel::detail::kernel_ref &, const kernel::detail::launch_config &, const void *, std::size_t,
              stream_state &) override {
    throw std::logic_error("no kernels here");
  }
  void synchronize() override {}

  journal journal_;

private:
  int streams_ = 0;
};

// A delivery of `values` into `into` queued on `s`, as a call on a stream queues its result.
void deliver(held_stream &s, const std::vector<float> &values, kernel::array_view<float> into) {
  auto staging = std::make_shared<std::vector<float>>(values);
  const auto [first, past] = kernel::detail::bytes_of(into);
  kernel::detail::deliver_to_host(s, first, past, [staging, into] { kernel::detail::scatter(staging->data(), into); });
}

std::vector<float> gathered(kernel::array_view<const float> v) {
  std::vector<float> out(static_cast<std::size_t>(v.size()));
  kernel::detail::gather(v, out.data());
  return out;
}

TEST(HostDeliveries, ReadsWaitForTheResultsBeingDeliveredIntoThem) {
  held_device d;
  const auto s = d.create_stream();
  auto &stream = static_cast<held_stream &>(*s);
  std::vector<float> host(8, 1.0f), other(8, 5.0f);
  deliver(stream, std::vector<float>(8, 2.0f), kernel::array_view<float>(host.data(), {8}));
  // Memory no delivery writes is read at once.
  EXPECT_EQ(gathered(kernel::array_view<const float>(other.data(), {8})), std::vector<float>(8, 5.0f));
  // The stream reaches the delivery a while after the read began: the read sees its result.
  std::thread gpu([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stream.run_all();
  });
  EXPECT_EQ(gathered(kernel::array_view<const float>(host.data() + 6, {2})), std::vector<float>(2, 2.0f));
  gpu.join();
  EXPECT_EQ(host, std::vector<float>(8, 2.0f));
}

float add_one(float x) { return x + 1; }
constexpr kernel::ufunc<add_one> vadd_one; // a host function: its loops run on the CPU targets

// Host calls (cpu, parallel) come after the calls on streams delivering into their arrays,
// as device calls do: they read the delivered values, and their own results are not written
// over by a delivery arriving late. Eager and fused.
TEST(HostDeliveries, HostCallsWaitForResultsDeliveredIntoTheirArrays) {
  held_device d;
  const auto s = d.create_stream();
  auto &stream = static_cast<held_stream &>(*s);
  std::vector<float> host(8, 1.0f), out(8, 0.0f);
  const auto later = [&] {
    return std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      stream.run_all();
    });
  };
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    deliver(stream, std::vector<float>(8, 2.0f), kernel::array_view<float>(host.data(), {8}));
    deliver(stream, std::vector<float>(8, 9.0f), kernel::array_view<float>(out.data(), {8}));
    std::thread gpu = later();
    vadd_one.on(t)(host, out);
    gpu.join();
    EXPECT_EQ(out, std::vector<float>(8, 3.0f));
    deliver(stream, std::vector<float>(8, 4.0f), kernel::array_view<float>(host.data(), {8}));
    gpu = later();
    kernel::eval(kernel::assign(out, vadd_one.on(t)(kernel::lazy(host))));
    gpu.join();
    EXPECT_EQ(out, std::vector<float>(8, 5.0f));
    host.assign(8, 1.0f);
  }
}

// Two calls on different streams writing one host array: the later call's result is the one
// left, as the program wrote them. Its delivery is queued after the earlier one's is written
// (on a GPU two streams run in any order: the earlier result arriving last overwrote the
// later). On one stream the order is the stream's, and nothing waits.
TEST(HostDeliveries, DeliveriesFromTwoStreamsLandInProgramOrder) {
  held_device d;
  const auto s1 = d.create_stream(), s2 = d.create_stream();
  auto &first = static_cast<held_stream &>(*s1), &second = static_cast<held_stream &>(*s2);
  std::vector<float> host(4, 1.0f);
  const kernel::array_view<float> view(host.data(), {4});
  deliver(first, std::vector<float>(4, 2.0f), view);
  deliver(first, std::vector<float>(4, 3.0f), view); // the same stream: queued at once
  std::thread gpu([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first.run_all();
  });
  deliver(second, std::vector<float>(4, 4.0f), view); // waits for the first stream's
  EXPECT_EQ(host, std::vector<float>(4, 3.0f));       // written before it was queued
  gpu.join();
  second.run_all();
  EXPECT_EQ(host, std::vector<float>(4, 4.0f));
}

// The linear algebra on the host reads its inputs and writes its outputs after the results
// streams are delivering into them, as the ufuncs do.
TEST(HostDeliveries, HostLinearAlgebraWaitsForResultsDeliveredIntoItsArrays) {
  held_device d;
  const auto s = d.create_stream();
  auto &stream = static_cast<held_stream &>(*s);
  const auto later = [&] {
    return std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      stream.run_all();
    });
  };
  namespace la = kernel::linalg;
  for (kernel::target t : {kernel::target::cpu, kernel::target::parallel}) {
    std::vector<float> x(4, 1.0f);
    deliver(stream, std::vector<float>(4, 2.0f), kernel::array_view<float>(x.data(), {4}));
    std::thread gpu = later();
    EXPECT_EQ(la::dot.on(t)(x, x), 16.0f);
    gpu.join();
    kernel::ndarray<float, 2> a({2, 2}), identity({2, 2}), c({2, 2});
    for (kernel::index_t i = 0; i < 2; ++i)
      for (kernel::index_t j = 0; j < 2; ++j) {
        a(i, j) = 1;
        identity(i, j) = i == j ? 1.0f : 0.0f;
        c(i, j) = 0;
      }
    deliver(stream, std::vector<float>(4, 3.0f), kernel::array_view<float>(a.data(), {4}));
    deliver(stream, std::vector<float>(4, 9.0f), kernel::array_view<float>(c.data(), {4}));
    gpu = later();
    la::matrix_product.on(t)(a, identity, c);
    gpu.join();
    for (kernel::index_t i = 0; i < 2; ++i)
      for (kernel::index_t j = 0; j < 2; ++j) EXPECT_EQ(c(i, j), 3.0f) << i << "," << j;
  }
}

TEST(HostDeliveries, AFailedStreamIsReportedOnceAndADroppedDeliveryIsNotWaitedFor) {
  held_device d;
  const auto s = d.create_stream();
  auto &stream = static_cast<held_stream &>(*s);
  std::vector<float> host(4, 1.0f);
  const kernel::array_view<float> view(host.data(), {4});
  deliver(stream, std::vector<float>(4, 2.0f), view);
  stream.failed = true;
  EXPECT_THROW(gathered(view), std::runtime_error);
  EXPECT_EQ(gathered(view), std::vector<float>(4, 1.0f)); // reported: no longer waited for
  stream.failed = false;
  stream.drop_all(); // the delivery itself, unrun: nothing was written
  deliver(stream, std::vector<float>(4, 3.0f), view);
  stream.drop_all();
  EXPECT_EQ(gathered(view), std::vector<float>(4, 1.0f));
}

TEST(DeviceMemory, UsedOnAnotherStreamIsFreedAfterAnEventThere) {
  held_device d;
  const auto own = d.create_stream(), other = d.create_stream();
  {
    std::shared_ptr<void> m = kernel::detail::device_allocate(d, 64, own);
    kernel::detail::keep_until_done(*other, {m}); // a call on `other` read it
    kernel::detail::keep_until_done(*other, {m}); // once is enough
    kernel::detail::keep_until_done(*own, {m});   // its own stream needs nothing
    EXPECT_TRUE(static_cast<held_stream &>(*other).query()) << "held by host work";
  }
  EXPECT_EQ(d.journal_.read(), (std::vector<std::string>{"record s2", "wait s1", "release on s1"}));
}

// A device array's transfers on a stream other than its own hold its memory as a launch
// does: freed in its own stream's order, after an event on the other (which its copies were
// queued on), not at once, where a new array could be given it while they still run.
TEST(DeviceMemory, TransfersOnAnotherStreamHoldTheArray) {
  held_device d;
  const auto own = d.create_stream(), other = d.create_stream();
  const kernel::stream on_other(other);
  std::vector<float> host(16, 1.0f);
  {
    kernel::device_array<float, 1> a({16}, own);
    a.copy_from_host(host, on_other);
    a.copy_to_host(host, on_other);
    const auto copied = a.copy(on_other);
    EXPECT_EQ(copied.size(), 16);
  }
  const std::vector<std::string> j = d.journal_.read();
  const auto at = [&](const std::string &e) { return std::find(j.begin(), j.end(), e) - j.begin(); };
  ASSERT_LT(at("record s2"), static_cast<std::ptrdiff_t>(j.size())) << "no event on s2";
  EXPECT_LT(at("record s2"), at("wait s1"));
  EXPECT_LT(at("wait s1"), at("release on s1"));
  static_cast<held_stream &>(*other).run_all();
}

// A stream of another device than the array's is named at its own position in the call.
TEST(DeviceMemory, AStreamOfAnotherDeviceIsNamedWhereItIsGiven) {
  held_device d;
  const kernel::stream elsewhere(kernel::device::simulator());
  const std::vector<float> x(4, 1.0f);
  std::vector<float> into(4);
  kernel::device_array<float, 1> a({4}, d.create_stream());
  const auto argument_of = [](auto &&call) {
    try {
      call();
    } catch (const kernel::argument_error &e) {
      EXPECT_NE(std::string(e.what()).find("is a stream of"), std::string::npos) << e.what();
      return e.argument();
    }
    return -1;
  };
  EXPECT_EQ(argument_of([&] { (void)a.copy_to_host(elsewhere); }), 1);
  EXPECT_EQ(argument_of([&] { (void)a.copy(elsewhere); }), 1);
  EXPECT_EQ(argument_of([&] { a.copy_to_host(into, elsewhere); }), 2);
  EXPECT_EQ(argument_of([&] { a.copy_from_host(x, elsewhere); }), 2);
}

void nothing(kernel::array_view<float>) {}

// A launch given a stream runs on its stream's device: placed on another device, it is
// refused (it ran on the stream's, ignoring the placement).
TEST(DeviceMemory, ALaunchGivenAStreamIsNotPlacedOnAnotherDevice) {
  held_device d;
  const kernel::stream held(d.create_stream());
  try {
    (void)kernel::launch<nothing>(1, 1, held).on(kernel::device::simulator());
    ADD_FAILURE() << "placed on the simulator with a stream of another device";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("was given a stream of held by kernel::launch and placed on"),
              std::string::npos)
        << e.what();
  }
  const kernel::stream simulated(kernel::device::simulator());
  EXPECT_NO_THROW((void)kernel::launch<nothing>(1, 1, simulated).on(kernel::device::simulator()));
}

TEST(Streams, LiveStreamsAreFoundByIdUntilTheLastHandleGoes) {
  held_device d;
  auto s = d.create_stream();
  const std::uint64_t id = kernel::detail::stream_id(*s);
  EXPECT_EQ(kernel::detail::live_stream(id), s);
  s.reset();
  EXPECT_EQ(kernel::detail::live_stream(id), nullptr);
  EXPECT_EQ(kernel::detail::live_stream(0), nullptr);
}

} // namespace
