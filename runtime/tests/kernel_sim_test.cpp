// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// CUDA-style kernels: threads, blocks, barriers, shared memory, warp operations and atomics
// behave as on a GPU (the KernelSim tests run on the simulator, or on the GPU under
// KERNEL_TEST_DEVICE=cuda); and the simulator reports what a GPU would not (KernelSimChecks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "kernel/kernel.h"
#include "kernel/random_arrays.h"
#include "test_device.h"

using kernel::array_view;
using kernel::index_t;

[[kernel::jit]] void increment(array_view<float> a) {
  const index_t i = kernel::grid<1>();
  if (i < a.size()) a[i] += 1;
}

// Reverses each block's slice through shared memory: needs the barrier.
[[kernel::jit]] void block_reverse(array_view<const int> in, array_view<int> out) {
  auto tile = kernel::shared_array<int, 64>();
  const unsigned t = kernel::threadIdx.x;
  const index_t base = index_t{kernel::blockIdx.x} * kernel::blockDim.x;
  tile[t] = in[base + t];
  kernel::syncthreads();
  out[base + t] = tile[kernel::blockDim.x - 1 - t];
}

// A warp sum with shuffles, one result per warp.
[[kernel::jit]] void warp_sum(array_view<const float> in, array_view<float> out) {
  const index_t i = kernel::grid<1>();
  float v = in[i];
  for (unsigned offset = 16; offset > 0; offset /= 2) v += kernel::shfl_down_sync(kernel::full_mask, v, offset);
  if (kernel::laneid() == 0) out[i / 32] = v;
}

// Shuffles by offsets past the warp: PTX reads the low 5 bits of the offset (33 moves by 1).
[[kernel::jit]] void wide_offsets(array_view<unsigned> out) {
  const unsigned lane = kernel::laneid();
  out[lane] = kernel::shfl_up_sync(kernel::full_mask, lane, 33u);
  out[32 + lane] = kernel::shfl_down_sync(kernel::full_mask, lane, 33u);
  out[64 + lane] = kernel::shfl_xor_sync(kernel::full_mask, lane, 33);
  out[96 + lane] = kernel::shfl_up_sync(kernel::full_mask, lane, 32u);
}

// Two branches of a warp at different warp operations, each with a mask of its own lanes:
// valid on a GPU, each half completing apart.
[[kernel::jit]] void split_warp(array_view<unsigned> out) {
  const unsigned lane = kernel::laneid();
  if (lane < 16)
    out[lane] = kernel::ballot_sync(0x0000ffffu, lane % 2 == 0);
  else
    out[lane] = static_cast<unsigned>(kernel::shfl_sync(0xffff0000u, static_cast<int>(lane), 16));
}

// Each float converted to every integer type, where C++ leaves the result undefined for NaN
// and values out of range.
struct Conversions {
  std::int64_t i64;
  std::uint64_t u64;
  std::int32_t i32;
  std::uint32_t u32;
  std::int16_t i16;
  std::uint16_t u16;
  std::int8_t i8;
  std::uint8_t u8;
  bool operator==(const Conversions &) const = default;
};
template <class F> Conversions conversions_of(F f) {
  return {static_cast<std::int64_t>(f),  static_cast<std::uint64_t>(f), static_cast<std::int32_t>(f),
          static_cast<std::uint32_t>(f), static_cast<std::int16_t>(f),  static_cast<std::uint16_t>(f),
          static_cast<std::int8_t>(f),   static_cast<std::uint8_t>(f)};
}
[[kernel::jit]] void convert_floats(array_view<const float> in, array_view<Conversions> out) {
  const index_t i = kernel::grid<1>();
  if (i < in.size()) out[i] = conversions_of(in[i]);
}
[[kernel::jit]] void convert_doubles(array_view<const double> in, array_view<Conversions> out) {
  const index_t i = kernel::grid<1>();
  if (i < in.size()) out[i] = conversions_of(in[i]);
}

// A kernel template reading a view of const elements and writing another: each signature
// instantiates it with the arrays as declared (the input's elements const).
template <class T>
[[kernel::jit("void(float32[:], float32[:, :], float32)", "void(float64[:], float64[:, :], float64)")]]
void scaled_rows(array_view<const T> in, array_view<T, 2> out, T factor) {
  const index_t i = kernel::grid<1>();
  if (i < out.shape(0))
    for (index_t j = 0; j < out.shape(1); ++j) out(i, j) = factor * in[j] + static_cast<T>(i);
}

// Shifts by amounts known only at run time, of 32 and 64 bits, each way.
struct Shifts {
  std::uint32_t left32, right32;
  std::int32_t arithmetic32;
  std::uint64_t left64, right64;
  std::int64_t arithmetic64;
  bool operator==(const Shifts &) const = default;
};
[[kernel::jit]] void shift_by(array_view<const std::uint64_t> amounts, array_view<Shifts> out) {
  const index_t i = kernel::grid<1>();
  if (i >= amounts.size()) return;
  const std::uint64_t n = amounts[i];
  const auto n32 = static_cast<std::uint32_t>(n);
  out[i] = {0x80000001u << n32,         0x80000001u >> n32,         std::int32_t{-0x7fffffff} >> n32,
            0x8000000000000001ull << n, 0x8000000000000001ull >> n, std::int64_t{-0x7fffffffffffffff} >> n};
}

// Records each element with its offset from the first, in the strides the kernel was given
// (what a C- or Fortran-ordered parameter receives), and adds 1 to it.
void record_offsets(array_view<int, 2> a, array_view<index_t> offsets) {
  if (kernel::grid<1>() != 0) return;
  for (index_t i = 0; i < a.shape(0); ++i)
    for (index_t j = 0; j < a.shape(1); ++j) {
      offsets[i * a.shape(1) + j] = &a(i, j) - a.data();
      a(i, j) += 1;
    }
}
[[kernel::jit("void(int32[:, ::1], int64[:])")]] void c_ordered(array_view<int, 2> a, array_view<index_t> offsets) {
  record_offsets(a, offsets);
}
[[kernel::jit("void(int32[::1, :], int64[:])")]] void f_ordered(array_view<int, 2> a, array_view<index_t> offsets) {
  record_offsets(a, offsets);
}
[[kernel::jit("void(int32[::1, :], int32[:, ::1])")]] void f_and_c(array_view<int, 2> a, array_view<int, 2> b) {
  if (kernel::grid<1>() == 0) a(0, 0) = b(0, 0);
}
// Any order for the first, Fortran order for the second: one host array given as both is one
// copy, in Fortran order.
[[kernel::jit("void(int32[:, :], int32[::1, :], int64[:])")]] void
any_and_f(array_view<int, 2> a, array_view<const int, 2> b, array_view<index_t> offsets) {
  if (kernel::grid<1>() != 0) return;
  for (index_t i = 0; i < a.shape(0); ++i)
    for (index_t j = 0; j < a.shape(1); ++j) {
      offsets[i * a.shape(1) + j] = &a(i, j) - b.data();
      a(i, j) = b(i, j) * 10;
    }
}

[[kernel::jit]] void twice_into(array_view<int> out, array_view<int> in) {
  const index_t i = kernel::grid<1>();
  if (i < out.size()) out[i] = in[i] * 2;
}

[[kernel::jit]] void twice_into_rows(array_view<int, 2> out, array_view<const int, 2> in) {
  const index_t i = kernel::grid<1>();
  for (index_t r = 0; r < out.shape(0); ++r)
    if (i < out.shape(1)) out(r, i) = in(r, i) * 2;
}

[[kernel::jit]] void twice_from_const(array_view<const int> in, array_view<int> out) {
  const index_t i = kernel::grid<1>();
  if (i < out.size()) out[i] = in[i] * 2;
}

// Shuffles of values other than 32 and 64 bits, and shared memory of std::complex: a warp's
// values rotated by one lane, and a block's reversed through shared memory.
struct three_shorts {
  std::int16_t a, b, c;
};
[[kernel::jit]] void rotate_odd_sizes(array_view<std::int8_t> bytes, array_view<std::complex<double>> pairs,
                                      array_view<three_shorts> triples) {
  const unsigned lane = kernel::laneid();
  const int from = static_cast<int>((lane + 1) % 32);
  bytes[lane] = kernel::shfl_sync(kernel::full_mask, bytes[lane], from);
  const std::complex<double> p = kernel::shfl_sync(kernel::full_mask, pairs[lane], from);
  const three_shorts t = kernel::shfl_down_sync(kernel::full_mask, triples[lane], 1);
  auto reversed = kernel::shared_array<std::complex<double>, 32>();
  reversed[31 - lane] = p;
  kernel::syncthreads();
  pairs[lane] = reversed[lane];
  triples[lane] = t;
}

// Identifiers in UTF-8 (C++ allows them): their mangled names are not PTX identifiers, and the
// backend stopped at them. The PTX names escape the bytes outside ASCII.
[[kernel::device]] float µscale(float x) { return 2 * x; }
[[kernel::jit]] void удвоить(array_view<float> a) {
  const index_t i = kernel::grid<1>();
  if (i < a.size()) a[i] = µscale(a[i]);
}

// One draw per thread from its own xoroshiro128+ generator (Numba's cuda.random).
[[kernel::jit]] void draw_once(array_view<kernel::random::xoroshiro128p_state> states, array_view<float> out) {
  const index_t i = kernel::grid<1>();
  if (i < out.size()) out[i] = kernel::random::uniform_float32(states, i);
}

// Per-thread Philox generators (curand_init with the thread as the subsequence): four words,
// a double and two normals each.
[[kernel::jit]] void philox_draws(std::uint64_t seed, array_view<std::uint32_t> words, array_view<double> doubles,
                                  array_view<float> normals) {
  const index_t t = kernel::grid<1>();
  if (t >= doubles.size()) return;
  auto rng = kernel::random::philox_init(seed, static_cast<std::uint64_t>(t));
  for (index_t q = 0; q < 4; ++q) words[4 * t + q] = kernel::random::next_uint32(rng);
  doubles[t] = kernel::random::uniform_float64(rng);
  normals[2 * t] = kernel::random::normal_float32(rng);
  normals[2 * t + 1] = kernel::random::normal_float32(rng);
}

// Parameters of any trivially copyable type, as CUDA takes them: a const member (no
// assignment) and no default constructor.
struct fixed_scale {
  const float scale;
  int offset;
};
struct made_scale {
  explicit made_scale(float s) : scale(s) {}
  float scale;
};
[[kernel::jit]] void scale_by(fixed_scale f, made_scale m, array_view<float> a) {
  const index_t i = kernel::grid<1>();
  if (i < a.size()) a[i] = a[i] * f.scale * m.scale + static_cast<float>(f.offset);
}

// threadIdx.x and its kind given to printf as CUDA code gives them: numbers.
[[kernel::jit]] void say_where(array_view<int> unused) {
  (void)unused;
  using kernel::blockDim, kernel::blockIdx, kernel::gridDim, kernel::threadIdx;
  if (threadIdx.x == 2) printf("thread %u of block %u (of %u x %u)\n", threadIdx.x, blockIdx.x, blockDim.x, gridDim.x);
}

[[kernel::jit]] void votes(array_view<const int> in, array_view<unsigned> out) {
  const index_t i = kernel::grid<1>();
  const unsigned ballot = kernel::ballot_sync(kernel::full_mask, in[i] > 0);
  const bool all = kernel::all_sync(kernel::full_mask, in[i] > 0);
  const bool any = kernel::any_sync(kernel::full_mask, in[i] > 0);
  const int count = kernel::syncthreads_count(in[i] > 0);
  if (kernel::threadIdx.x == 0) {
    out[0] = ballot;
    out[1] = all;
    out[2] = any;
    out[3] = static_cast<unsigned>(count);
  }
}

[[kernel::jit]] void histogram(array_view<const int> values, array_view<unsigned> bins) {
  auto local = kernel::shared_array<unsigned, 16>();
  const unsigned t = kernel::threadIdx.x;
  if (t < 16) local[t] = 0;
  kernel::syncthreads();
  for (index_t i = kernel::grid<1>(); i < values.size(); i += kernel::gridsize<1>())
    kernel::atomic_add(local[values[i] % 16], 1u);
  kernel::syncthreads();
  if (t < 16) kernel::atomic_add(bins[t], local[t]);
}

[[kernel::jit]] void dynamic_shared(array_view<float> out) {
  auto buf = kernel::dynamic_shared_array<float>();
  buf[kernel::threadIdx.x] = float(kernel::threadIdx.x) * 2;
  kernel::syncthreads();
  out[kernel::threadIdx.x] = buf[buf.size() - 1 - kernel::threadIdx.x];
}

// 40 KiB of shared arrays, 32 of them in a function it calls on a path a launch may not take:
// a GPU sets aside all of them for each block, whichever path its threads take.
inline void reverse_through_tile(array_view<float> out) {
  auto tile = kernel::shared_array<float, 8192>();
  tile[kernel::threadIdx.x] = float(kernel::threadIdx.x);
  kernel::syncthreads();
  out[kernel::threadIdx.x] = tile[kernel::blockDim.x - 1 - kernel::threadIdx.x];
}
[[kernel::jit]] void static_and_dynamic_shared(array_view<float> out, int reverse) {
  auto small = kernel::shared_array<float, 2048>();
  if (reverse) return reverse_through_tile(out);
  small[kernel::threadIdx.x] = 2;
  kernel::syncthreads();
  out[kernel::threadIdx.x] = small[kernel::threadIdx.x] + float(kernel::dynamic_shared_array<float>().size());
}

struct Affine {
  float scale, offset;
};
[[kernel::jit]] void affine(Affine f, array_view<float, 2> m) {
  auto [x, y] = kernel::grid<2>();
  if (x < m.shape(1) && y < m.shape(0)) m(y, x) = m(y, x) * f.scale + f.offset;
}

// Planted bugs.
[[kernel::jit]] void out_of_bounds(array_view<float> a) { a[kernel::grid<1>()] = 1; }

[[kernel::jit]] void divergent_exit(array_view<float> a) {
  if (kernel::threadIdx.x >= 16) return;
  kernel::syncthreads();
  a[kernel::threadIdx.x] = 1;
}

[[kernel::jit]] void divergent_sites(array_view<float> a) {
  if (kernel::threadIdx.x % 2) {
    kernel::syncthreads();
  } else {
    kernel::syncthreads();
  }
  a[kernel::threadIdx.x] = 1;
}

// The same two barriers on one line: told apart by their columns.
// clang-format off
[[kernel::jit]] void divergent_sites_on_one_line(array_view<float> a) {
  if (kernel::threadIdx.x % 2) kernel::syncthreads(); else kernel::syncthreads();
  a[kernel::threadIdx.x] = 1;
}
// clang-format on

[[kernel::jit]] void count_unsafely(array_view<unsigned> counter) { counter[0] += 1; }
[[kernel::jit]] void count_atomically(array_view<unsigned> counter) { kernel::atomic_add(counter[0], 1u); }

// Reads a neighbour's shared slot without waiting for it to be written.
[[kernel::jit]] void shared_race(array_view<int> out) {
  auto tile = kernel::shared_array<int, 32>();
  const unsigned t = kernel::threadIdx.x;
  tile[t] = int(t);
  out[t] = tile[(t + 1) % 32];
}

// Indexes a thread's local array past its end for threads 4 and up.
[[kernel::jit]] void local_out_of_bounds(array_view<float> out) {
  kernel::local_array<float, 4> a{};
  const unsigned t = kernel::threadIdx.x;
  a[t] = 1.0f;
  out[t] = a[0];
}

namespace {

const kernel::device dev = kernel_test::device();
const auto on_dev = kernel_test::target();
const auto on_sim = kernel::target::simulator;

TEST(KernelSim, HostArraysAreCopiedInAndBack) {
  std::vector<float> a(1000, 1.0f);
  kernel::launch<increment>(4, 256).on(on_dev)(a);
  EXPECT_EQ(a, std::vector<float>(1000, 2.0f));
}

// Host arrays are copied one by one: the same array given twice shares one copy (the kernel
// sees one memory, as with a device array), in either order of const and writable parameters;
// host arrays that overlap otherwise are refused before anything is copied, since the copy back
// of one would undo the kernel's writes through the other.
TEST(KernelSim, HostArraysSharingMemory) {
  std::vector<int> v{1, 2, 3, 4};
  kernel::launch<twice_into>(1, 4).on(on_dev)(v, v);
  EXPECT_EQ(v, (std::vector<int>{2, 4, 6, 8}));
  kernel::launch<twice_from_const>(1, 4).on(on_dev)(v, v);
  EXPECT_EQ(v, (std::vector<int>{4, 8, 12, 16}));
  std::vector<int> w{1, 2, 3, 4, 5, 6};
  const auto reversed = kernel::array_view<int>(w.data() + 5, {4}, {-1});
  kernel::launch<twice_into>(1, 4).on(on_dev)(reversed, kernel::array_view<int>(w.data() + 5, {4}, {-1}));
  EXPECT_EQ(w, (std::vector<int>{1, 2, 6, 8, 10, 12}));
  for (const auto &[out, in] : {std::pair{kernel::view(w.data(), 4), kernel::view(w.data() + 2, 4)},
                                std::pair{kernel::view(w.data(), 4), kernel::view(w.data(), 3)},
                                std::pair{reversed, kernel::view(w.data() + 2, 4)}}) {
    const std::vector<int> before = w;
    try {
      kernel::launch<twice_into>(1, 4).on(on_dev)(out, in);
      ADD_FAILURE() << "overlapping host arrays were copied apart";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 2);
      EXPECT_NE(std::string(e.what()).find("'twice_into': argument 2: is a host array that overlaps argument 1"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(w, before);
  }
  // Neighbours that do not overlap are copied apart.
  std::vector<int> x{1, 2, 3, 4, 5, 6, 7, 8};
  kernel::launch<twice_from_const>(1, 4).on(on_dev)(kernel::view(std::as_const(x).data(), 4),
                                                    kernel::view(x.data() + 4, 4));
  EXPECT_EQ(x, (std::vector<int>{1, 2, 3, 4, 2, 4, 6, 8}));
  // Interleaved views share no element: each is copied in and back on its own.
  std::vector<int> y{1, 2, 3, 4, 5, 6, 7, 8};
  kernel::launch<twice_into>(1, 4).on(on_dev)(kernel::array_view<int>(y.data() + 1, {4}, {2}),
                                              kernel::array_view<int>(y.data(), {4}, {2}));
  EXPECT_EQ(y, (std::vector<int>{1, 2, 3, 6, 5, 10, 7, 14}));
  // A writable host array reaching an element twice would be copied back over it twice: refused,
  // as an output of the library is; read-only, it is copied as it reads.
  std::vector<int> z{1, 2, 3, 4};
  for (const auto &repeating :
       {kernel::array_view<int, 2>(z.data(), {2, 4}, {0, 1}), kernel::array_view<int, 2>(z.data(), {2, 3}, {1, 1})}) {
    try {
      kernel::launch<twice_into_rows>(1, 4).on(on_dev)(repeating, kernel::ndarray<int, 2>({2, 4}, 1));
      ADD_FAILURE() << "a writable host array repeating its elements was accepted";
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(e.argument(), 1) << e.what();
      EXPECT_NE(std::string(e.what()).find("'twice_into_rows': argument 1: has "), std::string::npos) << e.what();
    }
    EXPECT_EQ(z, (std::vector<int>{1, 2, 3, 4}));
  }
  std::vector<int> rows(8);
  kernel::launch<twice_into_rows>(1, 4).on(on_dev)(kernel::array_view<int, 2>(rows.data(), {2, 4}),
                                                   kernel::array_view<const int, 2>(z.data(), {2, 4}, {0, 1}));
  EXPECT_EQ(rows, (std::vector<int>{2, 4, 6, 8, 2, 4, 6, 8}));
}

TEST(KernelSim, ShufflesOfAnyTriviallyCopyableValue) {
  std::vector<std::int8_t> bytes(32);
  std::vector<std::complex<double>> pairs(32);
  std::vector<three_shorts> triples(32);
  for (int i = 0; i < 32; ++i) {
    bytes[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(-i);
    pairs[static_cast<std::size_t>(i)] = {double(i), -0.5 * i};
    triples[static_cast<std::size_t>(i)] = {static_cast<std::int16_t>(i), static_cast<std::int16_t>(-i),
                                            static_cast<std::int16_t>(1000 + i)};
  }
  kernel::launch<rotate_odd_sizes>(1, 32).on(on_dev)(bytes, pairs, triples);
  for (int i = 0; i < 32; ++i) {
    const auto k = static_cast<std::size_t>(i);
    EXPECT_EQ(bytes[k], static_cast<std::int8_t>(-((i + 1) % 32)));
    // lane i holds the value lane i + 1 had, reversed: lane i has that of lane 31 - i + 1
    const int from = (31 - i + 1) % 32;
    EXPECT_EQ(pairs[k], std::complex<double>(from, -0.5 * from)) << i;
    const int down = i < 31 ? i + 1 : 31; // the last lane keeps its own
    EXPECT_EQ(triples[k].a, down);
    EXPECT_EQ(triples[k].b, -down);
    EXPECT_EQ(triples[k].c, 1000 + down);
  }
}

TEST(KernelSim, KernelsNamedInUnicode) {
  std::vector<float> a = {1, 2, 3};
  kernel::launch<удвоить>(1, 32).on(on_dev)(a);
  EXPECT_EQ(a, (std::vector<float>{2, 4, 6}));
  const std::optional<kernel::kernel_info> info = kernel::inspect_kernel<удвоить>();
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->symbol.find_first_of("\x80\xff"), std::string::npos) << info->symbol;
  EXPECT_NE(info->symbol.find("$d1$83"), std::string::npos) << info->symbol; // у
  try {
    bool found = false;
    for (const kernel::linked_module &m : kernel::link_modules(90))
      if (m.module_hash == info->module_hash)
        found = std::find(m.symbols.begin(), m.symbols.end(), info->symbol) != m.symbols.end();
    EXPECT_TRUE(found) << "the entry " << info->symbol << " is not in the linked module";
  } catch (const kernel::target_unavailable_error &e) {
    std::printf("not linked: %s\n", e.what()); // no nvJitLink
  }
}

TEST(KernelSim, PerThreadGeneratorsDrawApart) {
  auto states = kernel::random::create_xoroshiro128p_states(256, /*seed=*/7);
  std::vector<float> out(256, -1.0f);
  kernel::launch<draw_once>(2, 128).on(on_dev)(states, out);
  std::vector<float> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()); // no two threads alike
  EXPECT_GE(sorted.front(), 0.0f);
  EXPECT_LT(sorted.back(), 1.0f);
  try {
    (void)kernel::random::create_xoroshiro128p_states(-1, 7);
    ADD_FAILURE() << "a negative number of states";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(std::string(e.what()).rfind("'create_xoroshiro128p_states': argument 1:", 0), 0u) << e.what();
  }
  // Counts, seeds and starts of any integer type, the same value the same states; a negative
  // seed or start is refused, where the conversion would make it 2^64 - 1.
  const auto same = kernel::random::create_xoroshiro128p_states(std::size_t{256}, std::int8_t{7}, short{0});
  for (index_t i = 0; i < 256; ++i) EXPECT_EQ(same[i].s0, kernel::random::create_xoroshiro128p_states(256, 7)[i].s0);
  // Braces name the default: a seed of `{}` is 0, as with a uint64 parameter.
  EXPECT_EQ(kernel::random::create_xoroshiro128p_states(1, {})[0].s0,
            kernel::random::create_xoroshiro128p_states(1, 0)[0].s0);
  const auto refused = [](auto &&call, const std::string &text) {
    try {
      call();
      ADD_FAILURE() << "no error: " << text;
    } catch (const kernel::argument_error &e) {
      EXPECT_EQ(std::string(e.what()), text);
    }
  };
  refused([] { (void)kernel::random::create_xoroshiro128p_states(4, -1); },
          "'create_xoroshiro128p_states': argument 2: seed -1 is negative: it is 0 to 2^64 - 1");
  refused([] { (void)kernel::random::create_xoroshiro128p_states(4, 1, -2); },
          "'create_xoroshiro128p_states': argument 3: subsequence_start -2 is negative: it is 0 to 2^64 - 1");
  refused([] { (void)kernel::random::create_xoroshiro128p_states(static_cast<std::size_t>(-1), 1); },
          "'create_xoroshiro128p_states': argument 1: the number of states 18446744073709551615 is out of range");
}

TEST(KernelSim, ParametersWithoutAssignmentOrDefaultConstructor) {
  std::vector<float> a{1, 2, 3};
  kernel::launch<scale_by>(1, 4).on(on_dev)(fixed_scale{2.0f, 1}, made_scale(3.0f), a);
  EXPECT_EQ(a, (std::vector<float>{7, 13, 19}));
}

TEST(KernelSim, PrintfOfSpecialRegisters) {
  std::vector<int> unused(1);
  std::fflush(stdout);
  testing::internal::CaptureStdout();
  kernel::launch<say_where>(1, 4).on(kernel::device::simulator())(unused);
  std::fflush(stdout);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "thread 2 of block 0 (of 4 x 1)\n");
}

// The per-thread generators are Numba's (numba.cuda.random) to the bit: its states for seed 1
// and the numbers they draw, computed by Numba's own definitions (splitmix64 once for both
// words, xoroshiro128+ 55/14/36, its jump polynomial, its float conversions).
TEST(KernelSim, PerThreadGeneratorsAreNumbas) {
  const auto states = kernel::random::create_xoroshiro128p_states(4, /*seed=*/1);
  const std::uint64_t want[4][2] = {{0x910a2dec89025cc1u, 0x910a2dec89025cc1u},
                                    {0x73c19a5348fc9098u, 0x6c96c932f21d71eeu},
                                    {0x0b3d0cd6ddfa7a4cu, 0xd3c2c33e9b8e707au},
                                    {0x3b80c389fcd31ee7u, 0xb43c70624d182bbbu}};
  for (index_t i = 0; i < 4; ++i) {
    EXPECT_EQ(states[i].s0, want[i][0]) << i;
    EXPECT_EQ(states[i].s1, want[i][1]) << i;
  }
  auto drawn = kernel::random::create_xoroshiro128p_states(4, 1);
  EXPECT_EQ(kernel::random::uniform_float64(drawn, 0), 0.1331231503445619);
  EXPECT_EQ(kernel::random::uniform_float32(drawn, 0), 0.378059685f);
  const float u32s[4] = {0.876348734f, 0.210280687f, 0.419081271f, 0.0806669295f};
  for (float u : u32s) EXPECT_EQ(kernel::random::uniform_float32(drawn, 1), u);
  EXPECT_NEAR(kernel::random::normal_float32(drawn, 2), -0.50369072f, 1e-6f);
  EXPECT_NEAR(kernel::random::normal_float64(drawn, 3), 0.32580657611945008, 1e-7);
  // Subsequences: the second state of seed 1 is the first of subsequence 1.
  const auto later = kernel::random::create_xoroshiro128p_states(1, 1, /*subsequence_start=*/1);
  EXPECT_EQ(later[0].s0, want[1][0]);
  EXPECT_EQ(later[0].s1, want[1][1]);
}

// philox_init(seed, t) inside a kernel is curand_init(seed, t, 0): subsequence t is the
// counter's upper half, so its first four words are block t of the arrays' layout (which is
// cuRAND's host generator's, tested against it in algorithm_test); curand_uniform_double takes
// one word; curand_normal two, returning both in turn.
TEST(KernelSim, PerThreadPhiloxIsCurandsDeviceApi) {
  const std::uint64_t seed = 0x1234'5678'9abc'def0u;
  const index_t threads = 300;
  std::vector<std::uint32_t> fill(4 * threads);
  kernel::random::philox(seed).bits(fill);
  std::vector<std::uint32_t> words(4 * threads);
  std::vector<double> doubles(threads);
  std::vector<float> normals(2 * threads);
  kernel::launch<philox_draws>(3, 128).on(on_dev)(seed, words, doubles, normals);
  EXPECT_EQ(words, fill);
  for (index_t t = 0; t < threads; ++t) {
    // The fifth word: the first of the thread's next block (counter + 1).
    const auto next = kernel::random::philox_block(seed, (std::uint64_t{1} << 16) | static_cast<std::uint64_t>(t));
    EXPECT_EQ(doubles[t], next[0] * 0x1.0p-32 + 0x1.0p-32) << t;
    // Its normals are Box-Muller of words 6 and 7, the first of the pair first.
    const auto z = kernel::random::normal2_float32(next[1], next[2]);
    EXPECT_NEAR(normals[2 * t], z[0], 1e-5f) << t;
    EXPECT_NEAR(normals[2 * t + 1], z[1], 1e-5f) << t;
  }
  // On the host the state draws as the kernel does; from an offset within a block it starts
  // at that word.
  auto rng = kernel::random::philox_init(seed, 7, /*offset=*/4 + 2);
  const auto block = kernel::random::philox_block(seed, (std::uint64_t{1} << 16) | 7);
  EXPECT_EQ(kernel::random::next_uint32(rng), block[2]);
  EXPECT_EQ(kernel::random::next_uint32(rng), block[3]);
}

// On a stream a launch returns before the results reach a host array: a temporary container
// would be gone by then, and is refused; a named one, or a temporary view of it, is fine.
TEST(KernelSim, TemporaryHostOutputsOnAStream) {
  kernel::stream s(dev);
  try {
    kernel::launch<increment>(1, 32, s)(std::vector<float>(32, 1.0f));
    FAIL() << "a temporary container on a stream";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 1);
    EXPECT_NE(std::string(e.what()).find("temporary host array"), std::string::npos) << e.what();
  }
  std::vector<float> named(32, 1.0f);
  kernel::launch<increment>(1, 32, s)(kernel::array_view<float>(named.data(), {32}));
  s.synchronize();
  EXPECT_EQ(named, std::vector<float>(32, 2.0f));
  kernel::launch<increment>(1, 32).on(on_dev)(std::vector<float>(32, 1.0f)); // synchronous: fine
  // A launch configuration made with a temporary stream keeps it, copies too.
  const auto later = kernel::launch<increment>(1, 32, kernel::stream(dev));
  const auto copy = later;
  copy(named);
  later(named);
  dev.synchronize();
  EXPECT_EQ(named, std::vector<float>(32, 4.0f));
}

// A signature's "[:, ::1]" and "[::1, :]" are Numba's C and Fortran layouts: a device array in
// another order is refused, naming the argument, before anything runs; a host array is copied
// to the device in the declared order, and back into the user's own strides.
TEST(KernelSim, DeclaredArrayOrders) {
  // Host arrays, C-ordered: the kernel sees row-major and column-major copies.
  std::vector<int> host{0, 1, 2, 3, 4, 5};
  const auto a = kernel::array_view<int, 2>(host.data(), {2, 3});
  std::vector<index_t> offsets(6);
  kernel::launch<c_ordered>(1, 1).on(on_dev)(a, offsets);
  EXPECT_EQ(offsets, (std::vector<index_t>{0, 1, 2, 3, 4, 5}));
  kernel::launch<f_ordered>(1, 1).on(on_dev)(a, offsets);
  EXPECT_EQ(offsets, (std::vector<index_t>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(host, (std::vector<int>{2, 3, 4, 5, 6, 7}));
  // A strided host view is gathered in either order, and written back through its strides.
  std::vector<int> wide(12);
  std::iota(wide.begin(), wide.end(), 100);
  const auto columns = kernel::array_view<int, 2>(wide.data(), {2, 3}, {6, 2});
  kernel::launch<f_ordered>(1, 1).on(on_dev)(columns, offsets);
  EXPECT_EQ(offsets, (std::vector<index_t>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(wide, (std::vector<int>{101, 101, 103, 103, 105, 105, 107, 107, 109, 109, 111, 111}));
  kernel::launch<c_ordered>(1, 1).on(on_dev)(columns, offsets);
  EXPECT_EQ(offsets, (std::vector<index_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(wide, (std::vector<int>{102, 101, 104, 103, 106, 105, 108, 107, 110, 109, 112, 111}));
  // One host array for a parameter of any order and one of Fortran order: one copy, in
  // Fortran order, read and written through both.
  std::vector<int> shared{1, 2, 3, 4, 5, 6};
  const auto shared_view = kernel::array_view<int, 2>(shared.data(), {2, 3});
  kernel::launch<any_and_f>(1, 1).on(on_dev)(shared_view, shared_view, offsets);
  EXPECT_EQ(offsets, (std::vector<index_t>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(shared, (std::vector<int>{10, 20, 30, 40, 50, 60}));

  // Device arrays must already be in the order declared.
  auto d = kernel::to_device(kernel::ndarray<int, 2>({4, 6}), dev);
  auto d_offsets = kernel::device_array<index_t>(24, dev);
  kernel::launch<c_ordered>(1, 1)(d, d_offsets);
  const auto every_other = kernel::device_view<int, 2>(dev, d.data(), {4, 3}, {6, 2});
  const auto transposed = kernel::device_view<int, 2>(dev, d.data(), {6, 4}, {1, 6});
  const auto refused = [](auto &&launch, const std::string &text) {
    try {
      launch();
      ADD_FAILURE() << "not refused: " << text;
    } catch (const kernel::argument_error &e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  refused([&] { kernel::launch<c_ordered>(1, 1)(every_other, d_offsets); },
          "'c_ordered': argument 1: is a device array of shape (4, 3) and strides (6, 2) (elements), not "
          "contiguous in C order ('::1' on its last dimension) as the kernel's signature declares it");
  refused([&] { kernel::launch<c_ordered>(1, 1)(transposed, d_offsets); }, "not contiguous in C order");
  refused([&] { kernel::launch<f_ordered>(1, 1)(d, d_offsets); }, "not contiguous in Fortran order");
  kernel::launch<f_ordered>(1, 1)(transposed, d_offsets);
  EXPECT_EQ(d.copy_to_host()(1, 0), 2) << "each launch that ran added 1";
  // Extents of 1 and empty arrays are in every order, as in NumPy.
  kernel::launch<c_ordered>(1, 1)(kernel::device_view<int, 2>(dev, d.data(), {1, 3}, {99, 1}), d_offsets);
  kernel::launch<f_ordered>(1, 1)(kernel::device_view<int, 2>(dev, d.data(), {0, 3}, {5, 7}), d_offsets);
  // One host array cannot be copied in both orders.
  std::vector<int> both(4, 0);
  const auto square = kernel::array_view<int, 2>(both.data(), {2, 2});
  refused([&] { kernel::launch<f_and_c>(1, 1).on(on_dev)(square, square); },
          "'f_and_c': argument 2: is the host array given as argument 1, which the kernel's signature declares in "
          "Fortran order and this one in C order: the one copy they share cannot be both; pass a device array");
  EXPECT_EQ(both, std::vector<int>(4, 0));
}

TEST(KernelSim, DeviceArraysStay) {
  auto d = kernel::to_device(std::vector<float>(100, 5.0f), dev);
  kernel::launch<increment>(1, 128)(d);
  kernel::launch<increment>(1, 128)(d);
  EXPECT_EQ(d.copy_to_host().to_vector(), std::vector<float>(100, 7.0f));
}

TEST(KernelSim, BarrierAndSharedMemory) {
  std::vector<int> in(256), out(256);
  std::iota(in.begin(), in.end(), 0);
  kernel::launch<block_reverse>(4, 64).on(on_dev)(in, out);
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 64; ++t) ASSERT_EQ(out[b * 64 + t], b * 64 + 63 - t);
}

TEST(KernelSim, WarpShuffles) {
  std::vector<float> in(256), out(8);
  std::iota(in.begin(), in.end(), 0.0f);
  kernel::launch<warp_sum>(2, 128).on(on_dev)(in, out);
  for (int w = 0; w < 8; ++w) {
    float expected = 0;
    for (int i = 0; i < 32; ++i) expected += float(w * 32 + i);
    EXPECT_EQ(out[w], expected);
  }
}

TEST(KernelSim, ShuffleOffsetsAreTakenAsPtxTakesThem) {
  std::vector<unsigned> out(128);
  kernel::launch<wide_offsets>(1, 32).on(on_dev)(out);
  for (unsigned lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(out[lane], lane >= 1 ? lane - 1 : lane) << lane;      // up by 33: by 1
    EXPECT_EQ(out[32 + lane], lane < 31 ? lane + 1 : lane) << lane; // down by 33: by 1
    EXPECT_EQ(out[64 + lane], lane ^ 1u) << lane;                   // xor 33: xor 1
    EXPECT_EQ(out[96 + lane], lane) << lane;                        // up by 32: by 0
  }
}

TEST(KernelSim, WarpBranchesWithMasksOfTheirOwn) {
  std::vector<unsigned> out(32);
  kernel::launch<split_warp>(1, 32).on(on_dev)(out);
  for (unsigned lane = 0; lane < 16; ++lane) EXPECT_EQ(out[lane], 0x5555u) << lane;
  for (unsigned lane = 16; lane < 32; ++lane) EXPECT_EQ(out[lane], 16u) << lane;
}

TEST(KernelSim, VotesAndCountingBarrier) {
  std::vector<int> in(32, 1);
  in[3] = 0;
  in[7] = 0;
  std::vector<unsigned> out(4);
  kernel::launch<votes>(1, 32).on(on_dev)(in, out);
  EXPECT_EQ(out[0], ~((1u << 3) | (1u << 7)));
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(out[2], 1u);
  EXPECT_EQ(out[3], 30u);
}

TEST(KernelSim, AtomicsAcrossBlocksOnAllCores) {
  std::vector<int> values(1 << 16);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(i * 7);
  std::vector<unsigned> bins(16, 0);
  kernel::launch<histogram>(64, 128).on(on_dev)(values, bins);
  std::vector<unsigned> expected(16, 0);
  for (int v : values) ++expected[static_cast<std::size_t>(v % 16)];
  EXPECT_EQ(bins, expected);
}

TEST(KernelSim, DynamicSharedMemory) {
  std::vector<float> out(32);
  kernel::launch<dynamic_shared>(1, 32, 32 * sizeof(float)).on(on_dev)(out);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], float(31 - t) * 2);
}

TEST(KernelSim, StructsAndTwoDimensionalGrids) {
  kernel::ndarray<float, 2> m({20, 30}, 1.0f);
  kernel::launch<affine>(kernel::dim3(4, 3), kernel::dim3(8, 8)).on(on_dev)(Affine{2.0f, 0.5f}, m);
  for (float v : m) ASSERT_EQ(v, 2.5f);
}

// What an sm_90 GPU's cvt.rzi gives (checked on an H200): the nearest value of the type's range; for
// NaN 0 from a float, but the sign bit alone for 64-bit integers and from a double (of the
// 16 bits converted to, for narrower integers: 0 again); integers narrower than 16 bits are
// converted to 16 bits of their signedness and truncated, as NVPTX does it. The host's
// conversion gives the sign bit alone for each of these. A launch of one thread runs the same code as
// a launch of many.
TEST(KernelSim, FloatToIntegerConversionsAsOnAGpu) {
  constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
  constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();
  constexpr std::uint64_t u64_nan = std::uint64_t{1} << 63;
  const std::vector<double> in = {
      std::nan(""), 1e10, -1e10, 300.75, -300.75, -1.5, 70000.0, 1e30, -std::numeric_limits<double>::infinity()};
  const std::vector<Conversions> expected = {
      {i64_min, u64_nan, 0, 0, 0, 0, 0, 0},
      {10000000000, 10000000000, INT32_MAX, UINT32_MAX, INT16_MAX, UINT16_MAX, -1, 255},
      {-10000000000, 0, INT32_MIN, 0, INT16_MIN, 0, 0, 0},
      {300, 300, 300, 300, 300, 300, 44, 44},
      {-300, 0, -300, 0, -300, 0, -44, 0},
      {-1, 0, -1, 0, -1, 0, -1, 0},
      {70000, 70000, 70000, 70000, INT16_MAX, UINT16_MAX, -1, 255},
      {i64_max, u64_max, INT32_MAX, UINT32_MAX, INT16_MAX, UINT16_MAX, -1, 255},
      {i64_min, 0, INT32_MIN, 0, INT16_MIN, 0, 0, 0},
  };
  const std::vector<float> floats(in.begin(), in.end());
  std::vector<Conversions> from_floats(in.size()), from_doubles(in.size());
  kernel::launch<convert_floats>(1, 32).on(on_dev)(floats, from_floats);
  kernel::launch<convert_doubles>(1, 32).on(on_dev)(in, from_doubles);
  const Conversions double_nan = {i64_min, u64_nan, INT32_MIN, 0x80000000u, INT16_MIN, 0x8000u, 0, 0};
  // NVPTX converts a negative value to uint8_t through 16 signed bits for GPUs before sm_90
  // (-1.5 gives 255 there), through 16 unsigned ones for sm_90: the simulator gives sm_90's.
  const bool before_sm90 = kernel_test::on_gpu() && dev.compute_capability() < 90;
  const auto same = [&](Conversions got, Conversions want, double value) {
    if (before_sm90 && value < 0 && value > -65536) got.u8 = want.u8;
    return got == want;
  };
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_TRUE(same(from_floats[i], expected[i], in[i])) << "converting the float " << in[i];
    EXPECT_TRUE(same(from_doubles[i], i == 0 ? double_nan : expected[i], in[i])) << "converting the double " << in[i];
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::vector<Conversions> one(1);
    kernel::launch<convert_floats>(1, 1).on(on_dev)(std::vector<float>{floats[i]}, one);
    EXPECT_TRUE(same(one[0], expected[i], in[i])) << "converting " << in[i] << " in a launch of one thread";
  }
}

template <class T> void expect_scaled_rows() {
  const std::vector<T> in = {1, 2, 3};
  kernel::ndarray<T, 2> out({4, 3});
  kernel::launch<scaled_rows<T>>(1, 32).on(on_dev)(in, out, T{2});
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j) EXPECT_EQ(out(i, j), T{2} * in[static_cast<std::size_t>(j)] + T(i));
}

TEST(KernelSim, TemplateWithConstInputs) {
  expect_scaled_rows<float>();
  expect_scaled_rows<double>();
}

// A shift by the width or more, undefined in C++, is clamped to the width by a GPU's shl and
// shr (0, or the sign alone), where x86 shifts by the amount's low bits (x << 32 is x); a
// 64-bit shift's amount is a 32-bit register there (2^32 + 1 shifts by 1).
TEST(KernelSim, ShiftsByTheWidthOrMoreAsOnAGpu) {
  const std::vector<std::uint64_t> amounts = {0, 1, 31, 32, 33, 63, 64, 65, 255, (std::uint64_t{1} << 32) + 1};
  std::vector<Shifts> got(amounts.size());
  kernel::launch<shift_by>(1, 32).on(on_dev)(amounts, got);
  for (std::size_t i = 0; i < amounts.size(); ++i) {
    const std::uint64_t n = amounts[i];
    const std::uint32_t n32 = static_cast<std::uint32_t>(n);
    const Shifts want = {
        n32 >= 32 ? 0u : 0x80000001u << n32,
        n32 >= 32 ? 0u : 0x80000001u >> n32,
        n32 >= 32 ? -1 : std::int32_t{-0x7fffffff} >> n32,
        n32 >= 64 ? 0ull : 0x8000000000000001ull << n32,
        n32 >= 64 ? 0ull : 0x8000000000000001ull >> n32,
        n32 >= 64 ? -1ll : std::int64_t{-0x7fffffffffffffff} >> n32,
    };
    EXPECT_TRUE(got[i] == want) << "shifting by " << n;
  }
}

TEST(KernelSimChecks, OutOfBounds) {
  std::vector<float> a(100);
  try {
    kernel::launch<out_of_bounds>(1, 128).on(on_sim)(a);
    FAIL();
  } catch (const kernel::simulator_error &e) {
    EXPECT_EQ(std::string(e.what()), "kernel 'out_of_bounds': thread (100,0,0) of block (0,0,0): index 100 is out of "
                                     "bounds for an array of shape (100,)");
  }
}

TEST(KernelSimChecks, LocalArrayOutOfBounds) {
  std::vector<float> a(32);
  try {
    kernel::launch<local_out_of_bounds>(1, 32).on(on_sim)(a);
    FAIL();
  } catch (const kernel::simulator_error &e) {
    EXPECT_NE(std::string(e.what()).find("index 4 is out of bounds for an array of shape (4,)"), std::string::npos)
        << e.what();
  }
}

TEST(KernelSimChecks, DivergentBarrierExit) {
  std::vector<float> a(32);
  try {
    kernel::launch<divergent_exit>(1, 32).on(on_sim)(a);
    FAIL();
  } catch (const kernel::simulator_error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("kernel 'divergent_exit': block (0,0,0): divergent syncthreads: threads (0,0,0) to (15,0,0) "
                        "wait at the barrier at "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("but threads (16,0,0) to (31,0,0) exited without reaching it"), std::string::npos) << what;
  }
}

TEST(KernelSimChecks, DivergentBarrierSites) {
  std::vector<float> a(4);
  try {
    kernel::launch<divergent_sites>(1, 4).on(on_sim)(a);
    FAIL();
  } catch (const kernel::simulator_error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("divergent syncthreads: threads (0,0,0), (2,0,0) wait at the barrier at "), std::string::npos)
        << what;
    EXPECT_NE(what.find("kernel_sim_test.cpp:"), std::string::npos) << what;
  }
}

TEST(KernelSimChecks, DivergentBarrierSitesOnOneLine) {
  std::vector<float> a(4);
  try {
    kernel::launch<divergent_sites_on_one_line>(1, 4).on(on_sim)(a);
    FAIL();
  } catch (const kernel::simulator_error &e) {
    const std::string what = e.what();
    const std::size_t at = what.find("divergent syncthreads: threads (0,0,0), (2,0,0) wait at the barrier at ");
    ASSERT_NE(at, std::string::npos) << what;
    // file:line:column of each, the lines alike and the columns not.
    const std::string::size_type first = what.find("kernel_sim_test.cpp:", at),
                                 second = what.find("at the one at ", first);
    ASSERT_NE(second, std::string::npos) << what;
    const std::string a_site = what.substr(first, what.find(' ', first) - first);
    const std::string b_site = what.substr(what.find("kernel_sim_test.cpp:", second));
    EXPECT_EQ(a_site.substr(0, a_site.rfind(':')), b_site.substr(0, b_site.rfind(':'))) << what;
    EXPECT_NE(a_site, b_site) << what;
  }
}

TEST(KernelSimChecks, GlobalRaceWithoutAtomics) {
  std::vector<unsigned> counter(1, 0);
  try {
    // One block: with two, which races are found first depends on how the blocks' host
    // threads interleave (under the sanitizers, another block may finish first).
    kernel::launch<count_unsafely>(1, 64).on(on_sim)(counter);
    FAIL() << "the race was not found";
  } catch (const kernel::simulator_error &e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("kernel 'count_unsafely': data race: thread (1,0,0) of block (0,0,0) reads 4 bytes at "
                         "offset 0 of a 4-byte device allocation that thread (0,0,0) of block (0,0,0) wrote, with no "
                         "syncthreads between them",
                         0),
              0u)
        << what;
  }
  std::vector<unsigned> safe(1, 0);
  kernel::launch<count_atomically>(2, 64).on(on_sim)(safe);
  EXPECT_EQ(safe[0], 128u);
}

TEST(KernelSimChecks, SharedRaceWithoutBarrier) {
  std::vector<int> out(32);
  try {
    kernel::launch<shared_race>(1, 32).on(on_sim)(out);
    FAIL() << "the race was not found";
  } catch (const kernel::simulator_error &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("data race: thread (1,0,0) of block (0,0,0) writes 4 bytes at offset 4 of a 128-byte shared "
                        "array that thread (0,0,0) of block (0,0,0) read, with no syncthreads between them"),
              std::string::npos)
        << what;
  }
}

TEST(KernelSimChecks, LaunchLimits) {
  std::vector<float> a(4);
  try {
    kernel::launch<increment>(1, 2048).on(on_sim)(a);
    FAIL();
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(std::string(e.what()),
              "'increment': a block of 2048 threads is more than a GPU can run (1024) on the simulator");
  }
  EXPECT_THROW(kernel::launch<increment>(1, kernel::dim3(1, 1, 65)).on(on_sim)(a), kernel::argument_error);
  // Counts as integers of any type: past 32 bits or negative, an error, not a wrapped count.
  try {
    kernel::launch<increment>((kernel::index_t{1} << 32) + 5, 32).on(on_sim)(a);
    FAIL() << "2^32 + 5 blocks ran as 5";
  } catch (const kernel::argument_error &e) {
    EXPECT_NE(std::string(e.what()).find("'increment': a launch of 4294967301 blocks"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kernel::launch<increment>(-1, 32), kernel::argument_error);
  EXPECT_THROW(kernel::launch<increment>(1, std::int64_t{-32}), kernel::argument_error);
  // Mixed with a dim3, and bytes of shared memory past 32 bits, the same: no wrapped counts.
  EXPECT_THROW(kernel::launch<increment>((kernel::index_t{1} << 32) + 3, kernel::dim3(32)), kernel::argument_error);
  EXPECT_THROW(kernel::launch<increment>(kernel::dim3(1), std::size_t{1} << 40), kernel::argument_error);
  EXPECT_THROW(kernel::launch<dynamic_shared>(1, 32, (std::size_t{1} << 32) | 16), kernel::argument_error);
  EXPECT_THROW(kernel::launch<dynamic_shared>(kernel::dim3(1), kernel::dim3(32), std::int64_t{-1}),
               kernel::argument_error);
  // A default-constructed device view has no device: refused, naming it (it crashed).
  try {
    kernel::launch<increment>(1, 4).on(on_sim)(kernel::device_view<float>{});
    FAIL() << "a view with no device was launched on";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(e.argument(), 1);
    EXPECT_NE(std::string(e.what()).find("default-constructed device_view"), std::string::npos) << e.what();
  }
  EXPECT_EQ(a, std::vector<float>(4, 0.0f));
  EXPECT_THROW(kernel::launch<dynamic_shared>(1, 32, 300 * 1024).on(on_sim)(a), kernel::argument_error);
  EXPECT_THROW(kernel::launch<increment>(0, 32).on(on_sim)(a), kernel::argument_error);
}

// Static shared memory counts before the kernel reaches its arrays: a launch whose dynamic
// memory does not fit beside them is refused before a thread runs, as on a GPU, not when the
// first thread to reach one fails after others have written.
TEST(KernelSim, StaticSharedMemoryCountsAtLaunch) {
  constexpr std::size_t block_limit = 227 * 1024, static_bytes = 40 * 1024;
  std::vector<float> out(32, -1.0f);
  try {
    kernel::launch<static_and_dynamic_shared>(1, 32, block_limit - static_bytes + 4).on(on_sim)(out, 0);
    FAIL() << "dynamic shared memory past what the static arrays leave was launched";
  } catch (const kernel::argument_error &e) {
    EXPECT_EQ(std::string(e.what()), "'static_and_dynamic_shared': 191492 bytes of dynamic shared memory (with 40960 "
                                     "static) is more than a block can have (232448) on the simulator");
  }
  EXPECT_EQ(out, std::vector<float>(32, -1.0f));
  // What the static arrays leave, to the byte, runs.
  kernel::launch<static_and_dynamic_shared>(1, 32, block_limit - static_bytes).on(on_sim)(out, 0);
  EXPECT_EQ(out, std::vector<float>(32, 2.0f + float((block_limit - static_bytes) / sizeof(float))));
  kernel::launch<static_and_dynamic_shared>(1, 32, block_limit - static_bytes).on(on_sim)(out, 1);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], float(31 - i));
}

TEST(KernelSim, LaunchLimitsOfTheDevice) {
  std::vector<float> a(4);
  auto fails = [&](auto &&launch, const std::string &what) {
    try {
      launch();
      ADD_FAILURE() << "no error for " << what;
    } catch (const kernel::argument_error &e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("'" + std::string(e.callee()) + "': ", 0), 0u) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
      EXPECT_NE(msg.find(dev.name()), std::string::npos) << msg;
    }
  };
  fails([&] { kernel::launch<increment>(1, 2048).on(on_dev)(a); }, "a block of 2048 threads is more than");
  fails([&] { kernel::launch<increment>(1, kernel::dim3(1, 1, 65)).on(on_dev)(a); }, "block dimension z of 65");
  fails([&] { kernel::launch<dynamic_shared>(1, 32, 300 * 1024).on(on_dev)(a); },
        "307200 bytes of dynamic shared memory");
  fails([&] { kernel::launch<increment>(0, 32).on(on_dev)(a); }, "at least one block");
  std::vector<float> out(32);
  fails([&] { kernel::launch<static_and_dynamic_shared>(1, 32, 200 * 1024).on(on_dev)(out, 0); },
        "204800 bytes of dynamic shared memory (with 40960 static)");
  EXPECT_EQ(out, std::vector<float>(32, 0.0f));
  EXPECT_EQ(a, std::vector<float>(4, 0.0f)); // nothing ran, nothing was copied back
}

TEST(KernelSim, Inspect) {
  auto k = kernel::inspect_kernel<block_reverse>();
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->kind, "jit");
  EXPECT_EQ(k->signature, "void(int32[:], int32[:])"); // derived from the C++ types
  EXPECT_NE(k->ptx[1].text.find("bar.sync"), std::string_view::npos);
  EXPECT_NE(k->ptx[1].text.find(".shared"), std::string_view::npos);
  auto w = kernel::inspect_kernel<warp_sum>();
  EXPECT_NE(w->ptx[1].text.find("shfl.sync.down"), std::string_view::npos);
}

} // namespace
