// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The simulator on faulty and unusual kernels: a thread overflowing its stack and bad stack
// settings are errors, not a dead process; so are accesses a GPU would fault on for their
// alignment; threads spinning on each other's flags finish;
// the race checks are exact to the byte, know syncwarp, and say why an access races; warp
// operations follow CUDA in partial warps and divergent branches.
// assert() is what the test checks, whatever the build's NDEBUG.
#undef NDEBUG
#include <cassert>

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "kernel/kernel.h"
#include "scoped_environment.h"
#include "simulator/race_detector.h"

using kernel::array_view;
using kernel::index_t;

// A CUDA-C function whose host implementation (nested_launch_host.cpp) launches
// add_one_each on the simulator.
extern "C" [[kernel::declare_device]] int launches_inside(int x);
[[kernel::jit]] void add_one_each(kernel::array_view<int> a) { a[kernel::threadIdx.x] += 1; }
[[kernel::jit]] void calls_a_launch(kernel::array_view<int> out) {
  const int r = launches_inside(1);
  const kernel::index_t i = kernel::grid<1>(); // read after the inner launch returned
  kernel::syncthreads();
  if (i < out.size()) out[i] = r * 1000 + static_cast<int>(i);
}

extern "C" [[kernel::declare_device]] int throws_for_three(int x);
[[kernel::jit]] void calls_a_thrower(kernel::array_view<const int> in, kernel::array_view<int> out) {
  const kernel::index_t i = kernel::grid<1>();
  if (i < out.size()) out[i] = throws_for_three(in[i]);
}
[[kernel::jit]] void calls_a_thrower_then_waits(kernel::array_view<const int> in, kernel::array_view<int> out) {
  const kernel::index_t i = kernel::grid<1>();
  int r = 0;
  if (i < out.size()) r = throws_for_three(in[i]);
  kernel::syncthreads();
  if (i < out.size()) out[i] = r;
}
[[kernel::vectorize]] int thrower_elementwise(int x) { return throws_for_three(x); }

namespace {
const auto on_sim = kernel::target::simulator;

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KERNEL_TEST_UNDER_SANITIZER 1
#endif
#endif
#if defined(KERNEL_TEST_UNDER_SANITIZER) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool under_sanitizer = true;
#else
constexpr bool under_sanitizer = false;
#endif

std::string simulator_error_of(auto &&launch) {
  try {
    launch();
  } catch (const kernel::simulator_error &e) {
    return e.what();
  }
  return "no simulator_error";
}
} // namespace

// 256 KiB of local array: more than the default stack of 64 KiB.
[[kernel::jit]] void big_local(array_view<const int> in, array_view<int> out) {
  kernel::local_array<int, 64 * 1024> scratch;
  for (index_t i = 0; i < scratch.size(); ++i) scratch[i] = in[i % in.size()] + static_cast<int>(i);
  const unsigned t = kernel::threadIdx.x;
  out[t] = scratch[in[t] % scratch.size()];
}

// 1 MiB of local array: more than a GPU thread may have (512 KiB).
[[kernel::jit]] void beyond_gpu_local(array_view<const int> in, array_view<int> out) {
  kernel::local_array<double, 128 * 1024> scratch;
  for (index_t i = 0; i < scratch.size(); ++i) scratch[i] = in[i % in.size()];
  out[kernel::threadIdx.x] = static_cast<int>(scratch[in[0] % scratch.size()]);
}

template <index_t N> [[gnu::noinline]] int with_scratch(array_view<const int> in, unsigned t) {
  kernel::local_array<char, N> scratch;
  for (index_t i = 0; i < N; i += 4096) scratch[i] = static_cast<char>(in[(i / 4096) % in.size()] + t);
  return scratch[(static_cast<index_t>(in[t]) * 4096) % N];
}

// Only thread 1 calls the function with 256 KiB of local array: the launch cannot be refused
// up front, and that thread overflows its stack.
[[kernel::jit]] void big_local_in_one_thread(array_view<const int> in, array_view<int> out) {
  const unsigned t = kernel::threadIdx.x;
  out[t] = t == 1 ? with_scratch<256 * 1024>(in, t) : 0;
}

// Writes only the array's first element: the lowest address of its frame.
template <index_t N> [[gnu::noinline]] int with_far_scratch(array_view<const int> in, unsigned t) {
  kernel::local_array<char, N> scratch;
  scratch[0] = static_cast<char>(in[t] + t);
  return scratch[0];
}

// A local array a little larger than the guard below a thread's stack (1 MiB), in a function
// called on some paths: its frame must fault in the guard, not land in the stack below it.
[[kernel::jit]] void local_beyond_guard(array_view<const int> in, array_view<int> out) {
  const unsigned t = kernel::threadIdx.x;
  out[t] = in[t] >= 0 ? with_far_scratch<1100 * 1024>(in, t) : 0;
}

// A write through a pointer that points nowhere (the page at address 16), and integer
// divisions a CPU traps on: the thread's own faults.
[[kernel::jit]] void wild_write(array_view<int> a) {
  int *p = a.data();
  p -= reinterpret_cast<std::uintptr_t>(p) / sizeof(int);
  if (kernel::threadIdx.x == 1) p[4] = 3;
  a[kernel::threadIdx.x] = 1;
}
[[kernel::jit]] void divide(array_view<const int> num, array_view<const int> den, array_view<int> out) {
  const unsigned i = kernel::threadIdx.x;
  out[i] = num[i] / den[i];
}
// Elementwise functions that fault at some elements: an integer division, an assertion, a
// trap, an index out of a gufunc's core.
[[kernel::vectorize]] int hundred_over(int d) { return 100 / d; }
[[kernel::vectorize]] int divided(int n, int d) { return n / d; }
[[kernel::vectorize]] int checked_half(int x) {
  assert(x % 2 == 0 && "an even number");
  return x / 2;
}
[[kernel::vectorize]] float same(float x) { return x; }
[[kernel::vectorize]] float trap_at_negative(float x) {
  if (x < 0) __builtin_trap();
  return x;
}
void past_the_core(array_view<const int> row, int &out) { out = row[row.size() - 1 + (row[0] < 0 ? 1 : 0)]; }
// A trap and a failed assertion in thread 2: on a GPU each fails the launch.
[[kernel::jit]] void traps(array_view<int> a) {
  if (kernel::threadIdx.x == 2) __builtin_trap();
  a[kernel::threadIdx.x] = 1;
}
[[kernel::jit]] void asserts(array_view<const int> in, array_view<int> out) {
  const unsigned i = kernel::threadIdx.x;
  assert(in[i] < 2 && "no value above 1");
  out[i] = in[i];
}

[[kernel::jit]] void read_then_last_writes(array_view<int> g, array_view<int> out) {
  if (kernel::threadIdx.x == 0) {
    const int v = g[0];
    out[kernel::blockIdx.x] = v;
    if (kernel::blockIdx.x == kernel::gridDim.x - 1) g[0] = v + 1;
  }
}

// A grid-wide barrier through an atomic counter: each block's thread 0 arrives and spins until
// every block has; then the block writes what the counter says, and the neighbours' values it
// wrote before the barrier.
[[kernel::jit]] void grid_barrier(array_view<unsigned> count, array_view<unsigned> before, array_view<unsigned> out) {
  const unsigned b = kernel::blockIdx.x;
  if (kernel::threadIdx.x == 0) {
    before[b] = b + 1;
    kernel::threadfence();
    kernel::atomic_add(count[0], 1u);
    while (kernel::atomic_add(count[0], 0u) < kernel::gridDim.x) {
    }
  }
  kernel::syncthreads();
  if (kernel::threadIdx.x == 0) out[b] = kernel::atomic_add(count[0], 0u) * 1000 + before[(b + 1) % kernel::gridDim.x];
}

[[kernel::jit]] void increment(array_view<int> a) {
  const index_t i = kernel::grid<1>();
  if (i < a.size()) a[i] += 1;
}

// Each thread raises its flag, then waits for the other's: finishes on a GPU (independent
// thread scheduling), so it must in the simulator.
[[kernel::jit]] void handshake(array_view<int> flags, array_view<int> out) {
  const unsigned t = kernel::threadIdx.x, other = kernel::blockDim.x - 1 - t;
  kernel::atomic_exch(flags[t], 1);
  while (kernel::atomic_add(flags[other], 0) == 0) {
  }
  out[t] = static_cast<int>(other);
}

// An atomic and a plain access of the same bytes race as two plain ones do: a store among
// the other threads' atomic adds loses some of them on a GPU, and a plain read among them
// reads any count.
[[kernel::jit]] void store_among_atomics(array_view<int> counter) {
  if (kernel::threadIdx.x == kernel::blockDim.x - 1) counter[0] = 0;
  kernel::atomic_add(counter[0], 1);
}
[[kernel::jit]] void read_among_atomics(array_view<int> counter, array_view<int> out) {
  kernel::atomic_add(counter[0], 1);
  if (kernel::threadIdx.x == 0) out[0] = counter[0];
}
// Ordered by barriers, they do not.
[[kernel::jit]] void atomics_between_barriers(array_view<int> counter, array_view<int> out) {
  if (kernel::threadIdx.x == 0) counter[0] = 0;
  kernel::syncthreads();
  kernel::atomic_add(counter[0], 1);
  kernel::syncthreads();
  out[kernel::threadIdx.x] = counter[0];
}
// Volatile accesses are relaxed atomics on a GPU: a flag raised and awaited through them does
// not race.
[[kernel::jit]] void volatile_handshake(array_view<int> flags, array_view<int> out) {
  const unsigned t = kernel::threadIdx.x, other = kernel::blockDim.x - 1 - t;
  volatile int &mine = flags[t];
  volatile int &theirs = flags[other];
  mine = 1;
  while (theirs == 0) {
  }
  out[t] = static_cast<int>(other);
}

// CUDA's old warp-synchronous reduction: the last 64 partial sums through volatile shared
// memory, without syncwarp, counting on the warp's lanes reading before any writes.
inline void warp_reduce(volatile int *s, unsigned t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}
[[kernel::jit]] void volatile_warp_sum(array_view<const int> in, array_view<int> out) {
  auto s = kernel::shared_array<int, 128>();
  const unsigned t = kernel::threadIdx.x;
  s[t] = in[index_t{kernel::blockIdx.x} * 128 + t];
  kernel::syncthreads();
  if (t < 64) s[t] += s[t + 64];
  kernel::syncthreads();
  if (t < 32) warp_reduce(&s[0], t);
  if (t == 0) out[kernel::blockIdx.x] = s[0];
}

// A flag raised after a fence by a relaxed atomic (or a volatile store) and awaited by another
// block with atomic (or volatile) reads orders what was written before it; the waiting block
// may then reset the flag with a plain store.
[[kernel::jit]] void flag_then_reset(array_view<int> data, array_view<int> flag, array_view<int> out,
                                     int use_volatile) {
  if (kernel::threadIdx.x != 0) return;
  volatile int &vflag = flag[0];
  if (kernel::blockIdx.x == 0) {
    data[0] = 42;
    kernel::threadfence();
    if (use_volatile)
      vflag = 1;
    else
      kernel::atomic_exch(flag[0], 1);
  } else {
    if (use_volatile)
      while (vflag == 0) {
      }
    else
      while (kernel::atomic_add(flag[0], 0) == 0) {
      }
    out[0] = data[0];
    flag[0] = 0;
  }
}
// A plain read and atomic reads of other blocks, then an atomic write: no race.
[[kernel::jit]] void mixed_readers(array_view<int> flag, array_view<int> out) {
  if (kernel::threadIdx.x != 0) return;
  if (kernel::blockIdx.x == 0) {
    out[0] = flag[0];
    kernel::atomic_exch(flag[0], 1);
  } else {
    out[kernel::blockIdx.x] = std::atomic_ref<int>(flag[0]).load(std::memory_order_relaxed);
  }
}

// Neighbouring bytes and halves written by different threads do not race.
[[kernel::jit]] void write_bytes(array_view<std::uint8_t> a) {
  a[kernel::threadIdx.x] = static_cast<std::uint8_t>(kernel::threadIdx.x + 1);
}
[[kernel::jit]] void write_halves(array_view<std::uint16_t> a) {
  const index_t i = kernel::grid<1>();
  a[i] = static_cast<std::uint16_t>(i + 1);
}
// The same byte written by every thread does.
[[kernel::jit]] void byte_race(array_view<std::uint8_t> a) { a[5] = static_cast<std::uint8_t>(kernel::threadIdx.x); }

// Lanes exchange through shared memory, ordered by a syncwarp naming `mask`.
[[kernel::jit]] void warp_exchange(unsigned mask, unsigned partner_xor, array_view<int> out) {
  auto buf = kernel::shared_array<int, 64>();
  const unsigned t = kernel::threadIdx.x;
  buf[t] = static_cast<int>(t);
  kernel::syncwarp(mask);
  out[t] = buf[t ^ partner_xor];
}
[[kernel::jit]] void half_warps(array_view<int> out) {
  auto buf = kernel::shared_array<int, 32>();
  const unsigned t = kernel::threadIdx.x;
  buf[t] = static_cast<int>(t);
  kernel::syncwarp(t < 16 ? 0x0000ffffu : 0xffff0000u);
  out[t] = buf[t ^ 16];
}

// Accesses a GPU faults on for their address ("misaligned address"), which the host would
// make anyway: an int read one byte into a buffer, an atomic two bytes in, doubles of
// dynamic shared memory taken four bytes in. Bytes copied from anywhere are fine.
[[kernel::jit]] void misaligned_read(array_view<const std::uint8_t> bytes, array_view<int> out) {
  const unsigned t = kernel::threadIdx.x;
  out[t] = *reinterpret_cast<const int *>(bytes.data() + 1 + 4 * t);
}
[[kernel::jit]] void misaligned_atomic(array_view<std::uint8_t> bytes) {
  kernel::atomic_add(*reinterpret_cast<unsigned *>(bytes.data() + 2), 1u);
}
[[kernel::jit]] void misaligned_shared(array_view<double> out) {
  auto values = kernel::dynamic_shared_array<double>(4);
  const unsigned t = kernel::threadIdx.x;
  values[t] = t;
  kernel::syncthreads();
  out[t] = values[(t + 1) % kernel::blockDim.x];
}
[[kernel::jit]] void unaligned_copy(array_view<const std::uint8_t> bytes, array_view<int> out) {
  const unsigned t = kernel::threadIdx.x;
  int v;
  __builtin_memcpy(&v, bytes.data() + 1 + 4 * t, sizeof v);
  out[t] = v;
}

// CUDA's threadfence reduction: each block's thread 0 writes its block's sum, makes a fence
// and takes a ticket; the block that takes the last ticket reads every block's sum (each of
// its threads one, after a barrier). Without the fence the reads race with the writes.
[[kernel::jit]] void last_block_reads(array_view<const int> in, array_view<int> partial, array_view<unsigned> ticket,
                                      array_view<int> out, int fence) {
  auto is_last = kernel::shared_array<int, 1>();
  const unsigned t = kernel::threadIdx.x, b = kernel::blockIdx.x;
  if (t == 0) {
    int sum = 0;
    for (unsigned i = 0; i < kernel::blockDim.x; ++i) sum += in[b * kernel::blockDim.x + i];
    partial[b] = sum;
    if (fence) kernel::threadfence();
    is_last[0] = kernel::atomic_add(ticket[0], 1u) == kernel::gridDim.x - 1;
  }
  kernel::syncthreads();
  if (is_last[0] && t < kernel::gridDim.x) out[t] = partial[t];
}

// A fence followed by an atomic that only reads releases nothing: block 1's read of what
// block 0 wrote still races, whichever block runs first.
[[kernel::jit]] void fence_then_atomic_read(array_view<int> data, array_view<unsigned> flag) {
  if (kernel::blockIdx.x == 0) {
    data[0] = 1;
    kernel::threadfence();
    (void)__atomic_load_n(&flag[0], __ATOMIC_RELAXED);
  } else {
    kernel::atomic_add(flag[0], 1u);
    data[1] = data[0];
  }
}

// A block of 10 threads: warp operations on the full mask take the lanes there are.
[[kernel::jit]] void partial_warp(array_view<unsigned> out) {
  const unsigned t = kernel::threadIdx.x;
  kernel::syncwarp(kernel::full_mask);
  const unsigned ballot = kernel::ballot_sync(kernel::full_mask, t % 2 == 0);
  const int next = kernel::shfl_sync(kernel::full_mask, static_cast<int>(t), static_cast<int>((t + 1) % 10));
  out[t] = ballot + 1000u * static_cast<unsigned>(next);
}
// Lanes that exited are not waited for either.
[[kernel::jit]] void after_exit(array_view<unsigned> out) {
  const unsigned t = kernel::threadIdx.x;
  if (t >= 5) return;
  out[t] = kernel::ballot_sync(kernel::full_mask, true);
}

// activemask after a branch some lanes took to make a volatile access: the whole warp, which
// has reconverged (those lanes are a step behind, not elsewhere).
[[kernel::jit]] void masks_after_volatile(array_view<int> flags, array_view<unsigned> out) {
  const unsigned t = kernel::threadIdx.x;
  volatile int *v = &flags[0];
  if (t < 16) v[t] = 1;
  out[t] = kernel::activemask();
}

// activemask in a divergent if/else: the lanes of this branch.
[[kernel::jit]] void branch_masks(array_view<unsigned> out) {
  const unsigned t = kernel::threadIdx.x;
  if (t < 12) {
    out[t] = kernel::activemask();
  } else {
    const unsigned mask = kernel::activemask();
    out[t] = kernel::ballot_sync(mask, true) | 1u;
  }
}

// A shuffle within groups of `width` lanes, which must be a power of two up to 32.
[[kernel::jit]] void shuffle_in_groups(int width, array_view<int> out) {
  const unsigned t = kernel::threadIdx.x;
  out[t] = kernel::shfl_sync(kernel::full_mask, static_cast<int>(t), 1, width);
}
// Valid on sm_70 and later, each: lanes that skipped a branch wait at a later operation for
// the others, which reach it after theirs.
// CUDA's own pattern: the lanes a ballot picks shuffle, then the whole warp syncs.
[[kernel::jit]] void picked_then_whole_warp(int n, array_view<int> out) {
  const unsigned t = kernel::threadIdx.x;
  const unsigned mask = kernel::ballot_sync(kernel::full_mask, static_cast<int>(t) < n);
  int v = static_cast<int>(t);
  if (static_cast<int>(t) < n) v = kernel::shfl_sync(mask, v, 0);
  kernel::syncwarp();
  out[t] = v;
}
// Two shuffles one after the other, of lanes 0-1 and then 0-2; and the upper half's shuffle
// while the lower half waits at the syncwarp after it.
[[kernel::jit]] void shrinking_masks(array_view<int> out) {
  const unsigned t = kernel::threadIdx.x;
  int v = static_cast<int>(t);
  if (t < 3) {
    if (t < 2) v = kernel::shfl_sync(0x3u, v, 1);
    v = kernel::shfl_sync(0x7u, v, 0);
  }
  if (t >= 16) v += 100 * kernel::shfl_sync(0xffff0000u, static_cast<int>(t), 16);
  kernel::syncwarp();
  out[t] = v;
}
// Invalid: the lower half's ballot names the upper half, whose ballot (of its own lanes only)
// is done before it syncs the whole warp: neither operation ever has all its lanes.
[[kernel::jit]] void ballots_never_meet(array_view<unsigned> out) {
  const unsigned t = kernel::threadIdx.x;
  out[t] = kernel::ballot_sync(t < 16 ? kernel::full_mask : 0xffff0000u, true);
  kernel::syncwarp();
}

namespace {

// Also a launch of one thread, which runs the uninstrumented copy.
TEST(SimulatorFaults, LocalArraysLargerThanTheStackAreRefusedUpFront) {
  std::vector<int> in(64, 1), out(2, 0);
  for (unsigned threads : {2u, 1u}) {
    const std::string what = simulator_error_of([&] { kernel::launch<big_local>(1, threads).on(on_sim)(in, out); });
    EXPECT_NE(what.find("kernel 'big_local': its threads need "), std::string::npos) << what;
    EXPECT_NE(what.find(" 256 KiB of stack (their local arrays), more than each simulated thread's stack of 64 KiB; "
                        "KERNEL_SIMULATOR_STACK_KB sets its size"),
              std::string::npos)
        << what;
    EXPECT_EQ(out, std::vector<int>(2, 0)); // nothing copied back
  }
  // Each thread gets a whole number of pages, which the check and the message count.
  kernel_test::scoped_environment stack("KERNEL_SIMULATOR_STACK_KB", "255");
  EXPECT_NE(simulator_error_of([&] { kernel::launch<big_local>(1, 2).on(on_sim)(in, out); }).find("stack of 256 KiB"),
            std::string::npos);
  kernel_test::scoped_environment larger("KERNEL_SIMULATOR_STACK_KB", "1024");
  kernel::launch<big_local>(1, 2).on(on_sim)(in, out);
  EXPECT_EQ(out, std::vector<int>(2, 2));
  // Beyond a GPU's 512 KiB of local memory per thread: refused whatever the stack setting.
  kernel_test::scoped_environment largest("KERNEL_SIMULATOR_STACK_KB", "4096");
  const std::string what = simulator_error_of([&] { kernel::launch<beyond_gpu_local>(1, 2).on(on_sim)(in, out); });
  EXPECT_NE(what.find("kernel 'beyond_gpu_local': its threads need more than 1024 KiB of local memory each"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("more than the 512 KiB a GPU thread may have"), std::string::npos) << what;
}

TEST(SimulatorFaults, StackOverflowIsAnError) {
  std::vector<int> in(64, 1), out(2, 0);
  const std::string what =
      simulator_error_of([&] { kernel::launch<big_local_in_one_thread>(1, 2).on(on_sim)(in, out); });
  EXPECT_NE(what.find("kernel 'big_local_in_one_thread': thread (1,0,0) of block (0,0,0): the thread overflowed its "
                      "stack of 64 KiB"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("KERNEL_SIMULATOR_STACK_KB"), std::string::npos) << what;
  EXPECT_EQ(out, std::vector<int>(2, 0)); // nothing copied back
  // The process goes on, and a larger stack is enough.
  std::vector<int> a(100, 0);
  kernel::launch<increment>(1, 128).on(on_sim)(a);
  EXPECT_EQ(a, std::vector<int>(100, 1));
  kernel_test::scoped_environment stack("KERNEL_SIMULATOR_STACK_KB", "1024");
  kernel::launch<big_local_in_one_thread>(1, 2).on(on_sim)(in, out);
  EXPECT_EQ(out, (std::vector<int>{0, 2}));
}

struct sigaction simulator_segv;
void calls_the_simulator(int signal, siginfo_t *info, void *context) {
  simulator_segv.sa_sigaction(signal, info, context);
}

bool same_signals_blocked(const sigset_t &a, const sigset_t &b) {
  for (int s = 1; s < NSIG; ++s)
    if (sigismember(&a, s) != sigismember(&b, s)) return false;
  return true;
}

// A SIGSEGV handler in front of the simulator's that calls it, with every signal blocked
// while it runs (as TSan's is, or a crash reporter's): the thread that overflowed never
// returns from it, yet this thread's signal mask stays as it was, and the next overflow is
// an error too, not a dead process. (One block: it runs on this thread.)
TEST(SimulatorFaults, OverflowsUnderAnotherHandler) {
  std::vector<int> in(64, 1), out(2, 0), a(4, 0);
  kernel::launch<increment>(1, 4).on(on_sim)(a); // installs the simulator's handler
  ASSERT_EQ(::sigaction(SIGSEGV, nullptr, &simulator_segv), 0);
  ASSERT_TRUE(simulator_segv.sa_flags & SA_SIGINFO);
  struct sigaction in_front{};
  in_front.sa_sigaction = &calls_the_simulator;
  in_front.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigfillset(&in_front.sa_mask);
  ASSERT_EQ(::sigaction(SIGSEGV, &in_front, nullptr), 0);
  sigset_t before, after;
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &before), 0);
  for (int round = 0; round < 3; ++round) {
    const std::string what =
        simulator_error_of([&] { kernel::launch<big_local_in_one_thread>(1, 2).on(on_sim)(in, out); });
    EXPECT_NE(what.find("the thread overflowed its stack of 64 KiB"), std::string::npos) << what;
    ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &after), 0);
    EXPECT_TRUE(same_signals_blocked(before, after)) << "round " << round;
  }
  ::sigaction(SIGSEGV, &simulator_segv, nullptr);
  kernel::launch<increment>(1, 4).on(on_sim)(a);
  EXPECT_EQ(a, std::vector<int>(4, 2));
}

TEST(SimulatorFaults, FramesLargerThanTheGuardFaultInIt) {
  // Only thread 0 calls the function, and with a stack size no other test uses its stack is
  // new, right above thread 1's: without the guard's fault it would write in that one, and
  // nothing would stop it. More launches: the stacks are recycled in another order each time.
  std::vector<int> in(64, -1), out(64, 0);
  in[0] = 5;
  kernel_test::scoped_environment small("KERNEL_SIMULATOR_STACK_KB", "68");
  for (int round = 0; round < 3; ++round) {
    const std::string what = simulator_error_of([&] { kernel::launch<local_beyond_guard>(1, 64).on(on_sim)(in, out); });
    EXPECT_NE(what.find("the thread overflowed its stack of 68 KiB"), std::string::npos) << what;
    EXPECT_EQ(out, std::vector<int>(64, 0));
  }
  kernel_test::scoped_environment stack("KERNEL_SIMULATOR_STACK_KB", "4096");
  kernel::launch<local_beyond_guard>(1, 64).on(on_sim)(in, out);
  EXPECT_EQ(out[0], 5);
}

// A thread's own hardware faults fail the launch with the kernel, the block and the thread,
// as a GPU fails it (an illegal address), or as it does not trap (an integer division by
// zero: undefined there); the process goes on, and so does the simulator.
TEST(SimulatorFaults, WildAccessesAndDivisionsByZeroAreErrors) {
  for (unsigned threads : {1u, 2u, 64u}) {
    std::vector<int> a(threads, 0);
    const std::string wild = simulator_error_of([&] { kernel::launch<wild_write>(1, threads).on(on_sim)(a); });
    if (threads == 1) {
      EXPECT_EQ(wild, "no simulator_error"); // thread 0 does not write there
      continue;
    }
    EXPECT_EQ(wild.rfind("kernel 'wild_write': thread (1,0,0) of block (0,0,0): an access to address 0x10,", 0), 0u)
        << wild;
    EXPECT_NE(wild.find("illegal memory access"), std::string::npos) << wild;
  }
  const std::vector<int> num = {7, std::numeric_limits<int>::min(), 9}, ok = {1, 1, 3};
  std::vector<int> out(3, -1);
  for (const auto &[den, what] : {std::pair{std::vector<int>{1, 1, 0}, "an integer division by zero"},
                                  std::pair{std::vector<int>{1, -1, 1}, "the most negative value"}}) {
    const std::string e = simulator_error_of([&] { kernel::launch<divide>(1, 3).on(on_sim)(num, den, out); });
    EXPECT_EQ(e.rfind("kernel 'divide': thread (", 0), 0u) << e;
    EXPECT_NE(e.find(what), std::string::npos) << e;
    EXPECT_EQ(out, std::vector<int>(3, -1)); // nothing copied back from a failed launch
  }
  kernel::launch<divide>(1, 3).on(on_sim)(num, ok, out);
  EXPECT_EQ(out, (std::vector<int>{7, std::numeric_limits<int>::min(), 3}));
}

// A trap or a failed assert() fails the launch with a simulator_error, as a GPU fails it;
// neither ends the program, and the simulator runs the next launch as usual.
TEST(SimulatorFaults, TrapsAndFailedAssertionsAreErrors) {
  std::vector<int> a(4, 0);
  const std::string trap = simulator_error_of([&] { kernel::launch<traps>(1, 4).on(on_sim)(a); });
  EXPECT_EQ(trap.rfind("kernel 'traps': thread (2,0,0) of block (0,0,0): a trap", 0), 0u) << trap;
  EXPECT_EQ(a, std::vector<int>(4, 0)); // nothing copied back from a failed launch
  const std::vector<int> in = {0, 1, 5, 1};
  std::vector<int> out(4, -1);
  const std::string failed = simulator_error_of([&] { kernel::launch<asserts>(1, 4).on(on_sim)(in, out); });
  EXPECT_EQ(failed.rfind("kernel 'asserts': thread (2,0,0) of block (0,0,0): assertion 'in[i] < 2 && \"no value "
                         "above 1\"' failed at ",
                         0),
            0u)
      << failed;
  EXPECT_NE(failed.find("simulator_faults_test.cpp:"), std::string::npos) << failed;
  EXPECT_EQ(out, std::vector<int>(4, -1));
  kernel::launch<traps>(1, 2).on(on_sim)(a);
  EXPECT_EQ(a, (std::vector<int>{1, 1, 0, 0}));
  kernel::launch<asserts>(1, 2).on(on_sim)(in, out);
  EXPECT_EQ(out, (std::vector<int>{0, 1, -1, -1}));
}

// An elementwise call runs its whole loop on one simulated thread, so its faults name the
// element, in C order over the call's shape, not that thread: contiguous, strided, broadcast,
// a gufunc's loop and a fused expression alike, past the unrolled part of the loop and in it.
TEST(SimulatorFaults, ElementwiseFaultsNameTheElement) {
  constexpr kernel::ufunc<hundred_over> vhundred_over;
  constexpr kernel::ufunc<checked_half> vchecked_half;
  constexpr kernel::ufunc<trap_at_negative> vtrap_at_negative;
  constexpr kernel::ufunc<divided> vdivided;
  constexpr kernel::gufunc<"(n)->()", past_the_core> vpast_the_core;
  const auto element_error = [](const std::string &e, const std::string &kernel, const std::string &element,
                                const std::string &what) {
    EXPECT_EQ(e.find("kernel '" + kernel + "': element " + element + " (in C order over the call's loop dimensions): "),
              0u)
        << e;
    EXPECT_NE(e.find(what), std::string::npos) << e;
    EXPECT_EQ(e.find("thread ("), std::string::npos) << e;
  };
  // 101: the loop's unrolled trips, and the one element past them.
  for (index_t at : {0, 1, 57, 99, 100}) {
    std::vector<int> d(101, 4);
    d[static_cast<std::size_t>(at)] = 0;
    element_error(simulator_error_of([&] { (void)vhundred_over.on(on_sim)(d); }), "hundred_over",
                  std::to_string(at) + " of 101", "an integer division by zero");
  }
  // A 6 x 5 array read through its transpose (strided): grid(4, 1) is (1, 4) of the 5 x 6
  // transpose, element 1 * 6 + 4.
  kernel::ndarray<int, 2> grid({6, 5});
  for (index_t i = 0; i < grid.size(); ++i) grid.data()[i] = 2 * static_cast<int>(i);
  grid(4, 1) = 7;
  const array_view<const int, 2> transposed(grid.data(), {5, 6}, {1, 5});
  element_error(simulator_error_of([&] { (void)vchecked_half.on(on_sim)(transposed); }), "checked_half", "10 of 30",
                "assertion 'x % 2 == 0 && \"an even number\"' failed");
  // Broadcast: a 3 x 1 column and a row of 5; the zero divisor at (0, 3), then at (2, 0).
  kernel::ndarray<int, 2> column({3, 1}, 1);
  column(2, 0) = 0;
  const std::vector<int> row{1, 2, 3, 0, 5};
  element_error(simulator_error_of([&] { (void)vdivided.on(on_sim)(column, row); }), "divided", "3 of 15",
                "an integer division by zero");
  element_error(simulator_error_of([&] { (void)vdivided.on(on_sim)(row, column); }), "divided", "10 of 15",
                "an integer division by zero");
  // A gufunc's loop: row 2 of 4 reads past its core.
  kernel::ndarray<int, 2> rows({4, 3}, 1);
  rows(2, 0) = -1;
  const std::string g = simulator_error_of([&] { (void)vpast_the_core.on(on_sim)(rows); });
  element_error(g, "past_the_core", "2 of 4", "out of bounds");
  // A fused expression: the trap at element 5 of 9.
  std::vector<float> x(9, 1.0f);
  x[5] = -2.0f;
  const std::string f =
      simulator_error_of([&] { (void)vtrap_at_negative(vtrap_at_negative(kernel::lazy(x))).eval(on_sim); });
  EXPECT_NE(f.find("': element 5 of 9 (in C order over the call's loop dimensions): a trap"), std::string::npos) << f;
  // A view into memory that ends: elements from `first_bad` on are in a page no one may touch,
  // read or written, in the loop's unrolled trips and past them, alone and fused.
  constexpr kernel::ufunc<same> vsame;
  const long page = 4096;
  char *const pages =
      static_cast<char *>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(pages, MAP_FAILED);
  ASSERT_EQ(mprotect(pages + page, page, PROT_NONE), 0);
  const kernel::device device = kernel::device::simulator();
  kernel::device_array<float> fine(9, device);
  const auto fill = kernel::to_device(std::vector<float>(9, 1.0f), device);
  for (index_t first_bad : {1, 2, 6, 8}) {
    float *const edge = reinterpret_cast<float *>(pages + page) - first_bad;
    const kernel::device_view<const float> wild_in(device, edge, {9});
    kernel::device_view<float> wild_out(device, edge, {9});
    const std::string what = std::to_string(first_bad) + " of 9";
    element_error(simulator_error_of([&] { vsame.on(on_sim)(wild_in, fine); }), "same", what, "an access to address");
    element_error(simulator_error_of([&] { vsame.on(on_sim)(fill, wild_out); }), "same", what, "an access to address");
    const std::string fused_in =
        simulator_error_of([&] { kernel::eval(kernel::assign(fine, vsame(vsame(kernel::lazy(wild_in))))); });
    EXPECT_NE(fused_in.find("': element " + what + " (in C order"), std::string::npos) << fused_in;
    const std::string fused_out =
        simulator_error_of([&] { kernel::eval(kernel::assign(wild_out, vsame(vsame(kernel::lazy(fill))))); });
    EXPECT_NE(fused_out.find("': element " + what + " (in C order"), std::string::npos) << fused_out;
  }
  munmap(pages, 2 * page);
  // A kernel that names no element still names its thread.
  std::vector<int> a(4, 0);
  const std::string k = simulator_error_of([&] { kernel::launch<traps>(1, 4).on(on_sim)(a); });
  EXPECT_EQ(k.rfind("kernel 'traps': thread (2,0,0) of block (0,0,0): a trap", 0), 0u) << k;
}

// Blocks spinning until later blocks arrive finish, as on a GPU where all of a modest grid is
// resident at once: a block that stalls gets a host thread more, so the blocks it waits for
// start (the simulator runs as many blocks at once as it has host threads, fewer than these).
TEST(SimulatorFaults, BlocksWaitingForLaterBlocksFinish) {
  for (unsigned blocks : {4u, 24u}) {
    std::vector<unsigned> count{0}, before(blocks, 0), out(blocks, 0);
    kernel::launch<grid_barrier>(blocks, 32).on(on_sim)(count, before, out);
    for (unsigned b = 0; b < blocks; ++b) EXPECT_EQ(out[b], blocks * 1000 + (b + 1) % blocks + 1) << b;
  }
}

TEST(SimulatorFaults, StackSettingIsChecked) {
  std::vector<int> a(4, 0);
  for (const char *bad : {"18446744073709551617", "9223372036854775807", "0", "-64", "64k", "8", "2000000"}) {
    kernel_test::scoped_environment stack("KERNEL_SIMULATOR_STACK_KB", bad);
    const std::string what = simulator_error_of([&] { kernel::launch<increment>(1, 4).on(on_sim)(a); });
    EXPECT_EQ(what.rfind("KERNEL_SIMULATOR_STACK_KB is '" + std::string(bad) +
                             "': expected each simulated thread's stack in KiB",
                         0),
              0u)
        << what;
  }
  EXPECT_EQ(a, std::vector<int>(4, 0));
}

// A memory size that is not a plain number of MiB is refused, including one too large to count
// in bytes (it used to wrap around to a small limit). A full device, by the setting or by the
// host the simulator allocates from, is CUDA's out-of-memory error, not std::bad_alloc.
TEST(SimulatorFaults, MemorySettingIsChecked) {
  const kernel::device sim = kernel::device::simulator();
  for (const char *bad :
       {"12x", " 5", "+5", "-1", "0x10", "5.5", "17592186044416", "18446744073709551615", "99999999999999999999999"}) {
    kernel_test::scoped_environment memory("KERNEL_SIMULATOR_MEMORY_MB", bad);
    try {
      kernel::device_array<float, 1> a(4, sim);
      ADD_FAILURE() << "KERNEL_SIMULATOR_MEMORY_MB=" << bad << " was taken";
    } catch (const kernel::simulator_error &e) {
      EXPECT_EQ(std::string(e.what()).rfind("KERNEL_SIMULATOR_MEMORY_MB is '" + std::string(bad) + "'", 0), 0u)
          << e.what();
    }
  }
  {
    kernel_test::scoped_environment memory("KERNEL_SIMULATOR_MEMORY_MB",
                                           "17592186044415"); // the largest: 2^64 - 2^20 bytes
    kernel::device_array<float, 1> a(4, sim);
  }
  const auto out_of_memory = [&](index_t n) {
    try {
      kernel::device_array<std::uint8_t, 1> a(n, sim);
    } catch (const kernel::cuda_error &e) {
      EXPECT_TRUE(e.out_of_memory()) << e.what();
      return std::string(e.what());
    }
    return std::string("no error");
  };
  {
    kernel_test::scoped_environment memory("KERNEL_SIMULATOR_MEMORY_MB", "0");
    EXPECT_NE(out_of_memory(1).find("of KERNEL_SIMULATOR_MEMORY_MB=0"), std::string::npos);
  }
  // (The sanitizers' allocators stop the program instead of failing an allocation this large.)
  if (!under_sanitizer) EXPECT_NE(out_of_memory(index_t{1} << 50).find("the host's, which is full"), std::string::npos);
}

// The race checks' shadow of global memory (12 bytes a byte) has a budget: past it the launch
// runs on unchecked and says so, where it used to take all the machine's memory.
TEST(SimulatorFaults, RaceShadowHasABudget) {
  std::vector<int> a(std::size_t{1} << 16, 0); // 256 KiB: 3 MiB of shadow
  {
    kernel_test::scoped_environment budget("KERNEL_SIMULATOR_RACE_MEMORY_MB", "1");
    testing::internal::CaptureStderr();
    kernel::launch<increment>(64, 1024).on(on_sim)(a);
    const std::string told = testing::internal::GetCapturedStderr();
    EXPECT_NE(told.find("kernel 'increment' on the simulator: its race checks stopped part way, their shadow of "
                        "global memory having reached 1 MiB"),
              std::string::npos)
        << told;
  }
  EXPECT_EQ(a, std::vector<int>(a.size(), 1));
  // Within the budget, nothing is said, and races are still found.
  testing::internal::CaptureStderr();
  kernel::launch<increment>(64, 1024).on(on_sim)(a);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(a, std::vector<int>(a.size(), 2));
  std::vector<std::uint8_t> bytes(16);
  EXPECT_NE(simulator_error_of([&] { kernel::launch<byte_race>(1, 2).on(on_sim)(bytes); }).find("data race"),
            std::string::npos);
  // Reported at every launch, also one of a single thread (which has no race checks).
  for (const unsigned threads : {4u, 1u})
    for (const char *bad : {"0", "1.5", "lots"}) {
      kernel_test::scoped_environment budget("KERNEL_SIMULATOR_RACE_MEMORY_MB", bad);
      try {
        kernel::launch<increment>(1, threads).on(on_sim)(a);
        ADD_FAILURE() << bad;
      } catch (const kernel::error &e) {
        EXPECT_EQ(std::string(e.what()).rfind("KERNEL_SIMULATOR_RACE_MEMORY_MB is '" + std::string(bad) + "'", 0), 0u)
            << e.what();
      }
    }
  for (const unsigned threads : {4u, 1u}) {
    kernel_test::scoped_environment races("KERNEL_SIMULATOR_RACES", "abc");
    try {
      kernel::launch<increment>(1, threads).on(on_sim)(a);
      ADD_FAILURE() << threads;
    } catch (const kernel::error &e) {
      EXPECT_EQ(std::string(e.what()).rfind("KERNEL_SIMULATOR_RACES is 'abc'", 0), 0u) << e.what();
    }
  }
}

// Also with the race checks off: the simulator still runs the copy that gives way at loop
// back-edges (the plain copy would spin forever).
TEST(SimulatorFaults, SpinningThreadsFinish) {
  for (const char *races : {"1", "0"}) {
    kernel_test::scoped_environment setting("KERNEL_SIMULATOR_RACES", races);
    for (unsigned threads : {2u, 64u}) {
      std::vector<int> flags(threads, 0), out(threads, -1);
      kernel::launch<handshake>(1, threads).on(on_sim)(flags, out);
      for (unsigned t = 0; t < threads; ++t) EXPECT_EQ(out[t], static_cast<int>(threads - 1 - t)) << races;
    }
  }
}

// With the race checks on and off: the alignment is checked either way. (Built with debug
// information, the message also names the line, as race reports do.)
TEST(SimulatorFaults, MisalignedAccessesFailAsOnAGpu) {
  for (const char *races : {"1", "0"}) {
    kernel_test::scoped_environment setting("KERNEL_SIMULATOR_RACES", races);
    std::vector<std::uint8_t> bytes(64, 1);
    std::vector<int> out(8, -1);
    std::string what = simulator_error_of([&] { kernel::launch<misaligned_read>(1, 8).on(on_sim)(bytes, out); });
    EXPECT_NE(what.find("kernel 'misaligned_read': thread (0,0,0) of block (0,0,0): misaligned read of 4 bytes at 0x"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("a GPU needs it aligned to 4 bytes"), std::string::npos) << what;

    // A launch of one thread is checked as one of many.
    what = simulator_error_of([&] { kernel::launch<misaligned_read>(1, 1).on(on_sim)(bytes, out); });
    EXPECT_NE(what.find("misaligned read of 4 bytes"), std::string::npos) << what;
    EXPECT_EQ(out, std::vector<int>(8, -1)) << "nothing is read";

    what = simulator_error_of([&] { kernel::launch<misaligned_atomic>(1, 4).on(on_sim)(bytes); });
    EXPECT_NE(what.find("misaligned atomic of 4 bytes"), std::string::npos) << what;
    EXPECT_EQ(bytes, std::vector<std::uint8_t>(64, 1)) << "the atomic is not made";

    std::vector<double> doubles(4);
    what = simulator_error_of(
        [&] { kernel::launch<misaligned_shared>(1, 4, 4 + 4 * sizeof(double)).on(on_sim)(doubles); });
    EXPECT_NE(what.find("misaligned write of 8 bytes"), std::string::npos) << what;

    kernel::launch<unaligned_copy>(1, 8).on(on_sim)(bytes, out);
    EXPECT_EQ(out, std::vector<int>(8, 0x01010101));
  }
}

TEST(SimulatorRaces, AFenceAndAnAtomicOrderBlocks) {
  const unsigned blocks = 8, threads = 32;
  std::vector<int> in(blocks * threads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 7);
  std::vector<int> expected(blocks);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned i = 0; i < threads; ++i) expected[b] += in[b * threads + i];
  for (int run = 0; run < 3; ++run) {
    std::vector<int> partial(blocks), out(blocks, -1);
    std::vector<unsigned> ticket(1, 0);
    kernel::launch<last_block_reads>(blocks, threads).on(on_sim)(in, partial, ticket, out, 1);
    EXPECT_EQ(out, expected);
  }
  std::vector<int> partial(blocks), out(blocks, -1);
  std::vector<unsigned> ticket(1, 0);
  const std::string what = simulator_error_of(
      [&] { kernel::launch<last_block_reads>(blocks, threads).on(on_sim)(in, partial, ticket, out, 0); });
  EXPECT_NE(what.find("data race"), std::string::npos) << what;
  EXPECT_NE(what.find("(threads of different blocks"), std::string::npos) << what;

  std::vector<int> data(2);
  std::vector<unsigned> flag(1);
  const std::string read_only =
      simulator_error_of([&] { kernel::launch<fence_then_atomic_read>(2, 1).on(on_sim)(data, flag); });
  EXPECT_NE(read_only.find("data race"), std::string::npos) << read_only;
}

TEST(SimulatorRaces, AtomicsRaceWithPlainAccesses) {
  std::vector<int> counter(1, 5), out(64, -1);
  std::string what = simulator_error_of([&] { kernel::launch<store_among_atomics>(1, 64).on(on_sim)(counter); });
  EXPECT_NE(what.find("kernel 'store_among_atomics': data race: "), std::string::npos) << what;
  EXPECT_NE(what.find("an atomic and a plain access of the same bytes race"), std::string::npos) << what;
  EXPECT_EQ(counter[0], 5) << "nothing copied back from a failed launch";
  what = simulator_error_of([&] { kernel::launch<read_among_atomics>(1, 64).on(on_sim)(counter, out); });
  // Whichever comes first, the read or an add, the other is reported against it.
  EXPECT_NE(what.find("kernel 'read_among_atomics': data race: thread ("), std::string::npos) << what;
  EXPECT_TRUE(what.find(" wrote atomically") != std::string::npos ||
              what.find(" atomically writes 4 bytes") != std::string::npos)
      << what;
  EXPECT_NE(what.find("an atomic and a plain access of the same bytes race"), std::string::npos) << what;
  kernel::launch<atomics_between_barriers>(1, 64).on(on_sim)(counter, out);
  EXPECT_EQ(out, std::vector<int>(64, 64));
  std::vector<int> flags(32, 0);
  kernel::launch<volatile_handshake>(1, 32).on(on_sim)(flags, out);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[static_cast<std::size_t>(t)], 31 - t);
  for (int use_volatile : {0, 1})
    for (int run = 0; run < 5; ++run) {
      std::vector<int> data(1), flag(1), got(1, -1);
      kernel::launch<flag_then_reset>(2, 32).on(on_sim)(data, flag, got, use_volatile);
      EXPECT_EQ(got[0], 42);
      EXPECT_EQ(flag[0], 0);
    }
  for (int run = 0; run < 5; ++run) {
    std::vector<int> flag(1), got(4, -1);
    kernel::launch<mixed_readers>(4, 32).on(on_sim)(flag, got);
    EXPECT_EQ(flag[0], 1);
  }
}

// The lanes of a warp make a volatile access together, as on a GPU: the warp-synchronous
// reduction gives a GPU's sums, with the race checks on or off, and is no race.
TEST(SimulatorWarps, VolatileAccessesOfAWarpAreMadeTogether) {
  std::vector<int> in(3 * 128), out(3, -1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>((i * 7919) % 1000) - 300;
  std::vector<int> expected(3, 0);
  for (std::size_t i = 0; i < in.size(); ++i) expected[i / 128] += in[i];
  kernel::launch<volatile_warp_sum>(3, 128).on(on_sim)(in, out);
  EXPECT_EQ(out, expected);
  kernel_test::scoped_environment off("KERNEL_SIMULATOR_RACES", "0");
  out.assign(3, -1);
  kernel::launch<volatile_warp_sum>(3, 128).on(on_sim)(in, out);
  EXPECT_EQ(out, expected);
}

TEST(SimulatorRaces, NeighbouringBytesDoNotRace) {
  std::vector<std::uint8_t> bytes(64);
  kernel::launch<write_bytes>(1, 64).on(on_sim)(bytes);
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(bytes[i], i + 1);
  std::vector<std::uint16_t> halves(64);
  kernel::launch<write_halves>(2, 32).on(on_sim)(halves);
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(halves[i], i + 1);
}

TEST(SimulatorRaces, OffsetIsTheBytes) {
  std::vector<std::uint8_t> bytes(16);
  const std::string what = simulator_error_of([&] { kernel::launch<byte_race>(1, 2).on(on_sim)(bytes); });
  EXPECT_EQ(what.rfind("kernel 'byte_race': data race: thread (1,0,0) of block (0,0,0) writes 1 byte at offset 5 of a "
                       "16-byte device allocation that thread (0,0,0) of block (0,0,0) wrote, with no syncthreads "
                       "between them",
                       0),
            0u)
      << what;
}

// Threads are named by block and thread, not by one 32-bit id that wraps: thread 0 of block
// 2^22 (with 1024 threads a block) is not thread 0 of block 0.
TEST(SimulatorRaces, ThreadsOfFarApartBlocks) {
  using kernel::runtime::sim::race_detector;
  std::vector<int> memory(16);
  const auto begin = reinterpret_cast<std::uintptr_t>(memory.data());
  race_detector races("far", kernel::dim3(2147483647u, 65535), kernel::dim3(1024), {{begin, 64}});
  const kernel::runtime::sim::sync_state sync;
  races.global_access({0, 0, 0, 0, &sync}, begin, 4, true, nullptr);
  races.global_access({std::uint64_t{1} << 22, 0, 0, 0, &sync}, begin, 4, true, nullptr);
  EXPECT_TRUE(races.any());
  EXPECT_NE(races.report().find("thread (0,0,0) of block (4194304,0,0) writes 4 bytes at offset 0 of a 64-byte device "
                                "allocation that thread (0,0,0) of block (0,0,0) wrote (threads of different blocks"),
            std::string::npos)
      << races.report();
  // The last block of the largest grid.
  const std::uint64_t last = std::uint64_t{2147483647u} * 65535 - 1;
  races.global_access({last, 1023, 0, 0, &sync}, begin + 8, 1, true, nullptr);
  races.global_access({0, 0, 0, 0, &sync}, begin + 8, 1, false, nullptr);
  EXPECT_NE(races.report().find("that thread (1023,0,0) of block (2147483646,65534,0) wrote"), std::string::npos)
      << races.report();
}

// A word read by threads of two blocks and then written by one of them, with nothing ordering
// the blocks: the write races with the other block's read, whichever block writes (the
// detector kept only the last reader, so the writer's own earlier read hid the other's).
TEST(SimulatorRaces, ReadersOfSeveralBlocksThenAWrite) {
  using kernel::runtime::sim::race_detector;
  std::vector<int> memory(16);
  const auto begin = reinterpret_cast<std::uintptr_t>(memory.data());
  const kernel::runtime::sim::sync_state sync;
  for (std::uint64_t writer : {0u, 1u}) {
    race_detector races("readers", kernel::dim3(2), kernel::dim3(32), {{begin, 64}});
    races.global_access({0, 0, 1, 0, &sync}, begin, 4, false, nullptr);
    races.global_access({1, 0, 1, 0, &sync}, begin, 4, false, nullptr);
    races.global_access({1, 5, 1, 0, &sync}, begin, 4, false, nullptr); // more readers change nothing
    EXPECT_FALSE(races.any());
    races.global_access({writer, 0, 2, 0, &sync}, begin, 4, true, nullptr);
    EXPECT_NE(races.report().find("writes 4 bytes at offset 0 of a 64-byte device allocation that threads of several "
                                  "blocks read (threads of different blocks cannot synchronise"),
              std::string::npos)
        << writer << ": " << races.report();
  }
}

// After a write that ends the several blocks' reads (a writer that acquired something is taken
// as ordered after them), the word's reads are recorded again: a race of two threads of one
// block after it is still found.
TEST(SimulatorRaces, ReadsAreRecordedAgainAfterTheWrite) {
  using kernel::runtime::sim::race_detector;
  std::vector<int> memory(16);
  const auto begin = reinterpret_cast<std::uintptr_t>(memory.data());
  const kernel::runtime::sim::sync_state sync;
  const std::vector<race_detector::acquisition> acquired{{begin + 32, 1, 0, 0}};
  race_detector races("again", kernel::dim3(2), kernel::dim3(32), {{begin, 64}});
  races.global_access({0, 0, 1, 0, &sync}, begin, 4, false, nullptr);
  races.global_access({1, 0, 1, 0, &sync}, begin, 4, false, nullptr);
  races.global_access({1, 0, 2, 0, &sync, &acquired}, begin, 4, true, nullptr);
  EXPECT_FALSE(races.any()) << races.report();
  // After a barrier (number 3) that orders the write: thread 3 reads, thread 4 writes.
  races.global_access({1, 3, 4, 3, &sync}, begin, 4, false, nullptr);
  EXPECT_FALSE(races.any()) << races.report();
  races.global_access({1, 4, 4, 3, &sync}, begin, 4, true, nullptr);
  EXPECT_NE(races.report().find("thread (4,0,0) of block (1,0,0) writes 4 bytes at offset 0 of a 64-byte device "
                                "allocation that thread (3,0,0) of block (1,0,0) read"),
            std::string::npos)
      << races.report();
}

// The same in a kernel: each block's thread 0 reads a word, the last block then writes it.
TEST(SimulatorRaces, ALastBlockWritingWhatAllRead) {
  for (int run = 0; run < 5; ++run) {
    std::vector<int> g{5}, out(4);
    const std::string e = simulator_error_of([&] { kernel::launch<read_then_last_writes>(4, 32).on(on_sim)(g, out); });
    EXPECT_NE(e.find("race"), std::string::npos) << e;
  }
}

// Global memory's shadow keeps a word's bytes together until an access covers some of them,
// and joins them again when they agree: the outcome is the same as with a cell per byte.
TEST(SimulatorRaces, WordsSplitAndJoinExactly) {
  using kernel::runtime::sim::race_detector;
  const kernel::runtime::sim::sync_state sync;
  std::vector<std::uint8_t> memory(8192);
  const auto begin = reinterpret_cast<std::uintptr_t>(memory.data());
  // thread, synchronisation number and last barrier, in block 0
  auto as = [&](std::uint32_t thread, std::uint64_t seq) {
    return race_detector::accessor{0, thread, seq, seq, &sync};
  };
  {
    race_detector races("split", kernel::dim3(1), kernel::dim3(32), {{begin, memory.size()}});
    races.global_access(as(0, 0), begin, 4, true, nullptr);
    // After a barrier, byte 1 by one thread and byte 2 by another: no race.
    races.global_access(as(1, 1), begin + 1, 1, true, nullptr);
    races.global_access(as(2, 1), begin + 2, 1, true, nullptr);
    races.global_access(as(3, 1), begin + 3, 1, false, nullptr);
    EXPECT_FALSE(races.any()) << races.report();
    // The whole word, with no barrier since: byte 1 races (the first of its bytes that does).
    races.global_access(as(4, 1), begin, 4, false, nullptr);
    EXPECT_EQ(races.report(), "kernel 'split': data race: thread (4,0,0) of block (0,0,0) reads 4 bytes at offset 0 of "
                              "a 8192-byte device allocation that thread (1,0,0) of block (0,0,0) wrote, with no "
                              "syncthreads between them");
  }
  {
    race_detector races("join", kernel::dim3(1), kernel::dim3(32), {{begin, memory.size()}});
    races.global_access(as(0, 0), begin, 1, true, nullptr);
    races.global_access(as(1, 0), begin + 1, 1, true, nullptr);
    // One thread writes the whole word after a barrier: its bytes agree again.
    races.global_access(as(2, 1), begin, 4, true, nullptr);
    EXPECT_FALSE(races.any()) << races.report();
    races.global_access(as(3, 1), begin + 3, 1, false, nullptr);
    EXPECT_EQ(races.report(), "kernel 'join': data race: thread (3,0,0) of block (0,0,0) reads 1 byte at offset 3 of "
                              "a 8192-byte device allocation that thread (2,0,0) of block (0,0,0) wrote, with no "
                              "syncthreads between them");
  }
  {
    // Unaligned, and across the shadow's 4 KiB chunks: only the bytes touched race.
    race_detector races("across", kernel::dim3(1), kernel::dim3(32), {{begin, memory.size()}});
    races.global_access(as(0, 0), begin + 4094, 8, true, nullptr);
    races.global_access(as(1, 0), begin + 4093, 1, true, nullptr);
    races.global_access(as(1, 0), begin + 4102, 2, true, nullptr);
    EXPECT_FALSE(races.any()) << races.report();
    races.global_access(as(1, 0), begin + 4100, 4, false, nullptr);
    EXPECT_EQ(races.report(), "kernel 'across': data race: thread (1,0,0) of block (0,0,0) reads 4 bytes at offset "
                              "4100 of a 8192-byte device allocation that thread (0,0,0) of block (0,0,0) wrote, with "
                              "no syncthreads between them");
  }
}

TEST(SimulatorRaces, SyncwarpOrdersTheLanesItNames) {
  std::vector<int> out(32);
  kernel::launch<warp_exchange>(1, 32).on(on_sim)(kernel::full_mask, 31u, out);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], 31 - t);
}

TEST(SimulatorRaces, SyncwarpDoesNotOrderOtherWarps) {
  std::vector<int> out(64);
  const std::string what =
      simulator_error_of([&] { kernel::launch<warp_exchange>(1, 64).on(on_sim)(kernel::full_mask, 32u, out); });
  EXPECT_NE(what.find("with no syncthreads between them (a syncwarp orders only the lanes of one warp)"),
            std::string::npos)
      << what;
}

TEST(SimulatorRaces, SyncwarpNotNamingBoth) {
  std::vector<int> out(32);
  const std::string what = simulator_error_of([&] { kernel::launch<half_warps>(1, 32).on(on_sim)(out); });
  EXPECT_NE(what.find("with no syncthreads between them, and the syncwarp between them does not name both"),
            std::string::npos)
      << what;
}

TEST(SimulatorWarps, PartialWarpTakesTheLanesThereAre) {
  std::vector<unsigned> out(10);
  kernel::launch<partial_warp>(1, 10).on(on_sim)(out);
  for (unsigned t = 0; t < 10; ++t) EXPECT_EQ(out[t], 0x155u + 1000u * ((t + 1) % 10)) << t;
  std::vector<unsigned> first(32, 7);
  kernel::launch<after_exit>(1, 32).on(on_sim)(first);
  for (unsigned t = 0; t < 32; ++t) EXPECT_EQ(first[t], t < 5 ? 0x1fu : 7u) << t;
}

// A width that is not a power of two from 1 to 32 is reported (CUDA leaves the result
// undefined); widths that are give each group its own lanes.
TEST(SimulatorWarps, ShuffleWidths) {
  std::vector<int> out(32);
  for (int width : {1, 2, 8, 32}) {
    kernel::launch<shuffle_in_groups>(1, 32).on(on_sim)(width, out);
    for (int t = 0; t < 32; ++t) EXPECT_EQ(out[static_cast<std::size_t>(t)], t / width * width + 1 % width) << width;
  }
  for (int width : {0, 12, 64, -4}) {
    const std::string what =
        simulator_error_of([&] { kernel::launch<shuffle_in_groups>(1, 32).on(on_sim)(width, out); });
    EXPECT_NE(what.find("shfl_sync's width " + std::to_string(width) + " is not a power of two from 1 to 32"),
              std::string::npos)
        << what;
  }
}

// A lane waits for the lanes its mask names at an operation of the same kind with the same
// mask, wherever the call: lanes that skipped a branch wait at a later one.
TEST(SimulatorWarps, LanesMeetAtTheSameOperationAndMask) {
  std::vector<int> out(32);
  kernel::launch<picked_then_whole_warp>(1, 32).on(on_sim)(16, out);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[static_cast<std::size_t>(t)], t < 16 ? 0 : t) << t;
  kernel::launch<shrinking_masks>(1, 32).on(on_sim)(out);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[static_cast<std::size_t>(t)], t < 3 ? 1 : t < 16 ? t : t + 1600) << t;
}

// Lanes that never meet are reported with where each waits, by operation and mask.
TEST(SimulatorWarps, LanesThatNeverMeetAreReported) {
  std::vector<unsigned> out(32);
  const std::string what = simulator_error_of([&] { kernel::launch<ballots_never_meet>(1, 32).on(on_sim)(out); });
  EXPECT_NE(what.find("threads wait for each other forever: threads (0,0,0) to (15,0,0) at ballot_sync with mask "
                      "0xffffffff; threads (16,0,0) to (31,0,0) at syncwarp with mask 0xffffffff"),
            std::string::npos)
      << what;
}

TEST(SimulatorWarps, ActivemaskInADivergentBranch) {
  std::vector<unsigned> out(32);
  kernel::launch<branch_masks>(1, 32).on(on_sim)(out);
  for (unsigned t = 0; t < 32; ++t) EXPECT_EQ(out[t], t < 12 ? 0x00000fffu : 0xfffff001u) << t;
  std::vector<int> flags(32);
  kernel::launch<masks_after_volatile>(1, 32).on(on_sim)(flags, out);
  for (unsigned t = 0; t < 32; ++t) EXPECT_EQ(out[t], 0xffffffffu) << t;
}

} // namespace

namespace {
// A launch from host code inside a simulated thread: the outer threads keep their own indices
// afterwards (they all read thread 0's, and wrote element 0, without an error).
TEST(SimulatorNesting, ALaunchInsideAKernelLeavesTheOuterThreadsTheirIndices) {
  std::vector<int> out(64, -1);
  kernel::launch<calls_a_launch>(2, 32).on(on_sim)(out);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], 4000 + i) << i;
}

// An exception the kernel's host code throws reaches the caller as thrown, of its type and
// with its message, empty or not, as on the CPU targets; the other threads of the block do
// not report it as a thread that left a barrier; nothing is copied back.
TEST(SimulatorNesting, ExceptionsOfHostCodeReachTheCallerAsThrown) {
  std::vector<int> in(64);
  std::iota(in.begin(), in.end(), 0);
  std::vector<int> out(64, -1);
  EXPECT_THROW(kernel::launch<calls_a_thrower>(2, 32).on(on_sim)(in, out), std::domain_error);
  EXPECT_EQ(out, std::vector<int>(64, -1));
  EXPECT_THROW(kernel::launch<calls_a_thrower_then_waits>(2, 32).on(on_sim)(in, out), std::domain_error);
  EXPECT_EQ(out, std::vector<int>(64, -1));
  constexpr kernel::ufunc<thrower_elementwise> elementwise;
  EXPECT_THROW(elementwise.on(on_sim)(in, out), std::domain_error);
  EXPECT_EQ(out, std::vector<int>(64, -1));
  for (const kernel::target t : {kernel::target::cpu, kernel::target::parallel})
    EXPECT_THROW(elementwise.on(t)(in, out), std::domain_error);
  in[3] = 4;
  kernel::launch<calls_a_thrower_then_waits>(2, 32).on(on_sim)(in, out);
  EXPECT_EQ(out[3], 8);
  EXPECT_EQ(out[63], 126);
}
} // namespace
