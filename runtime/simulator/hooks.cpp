// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host implementations of the kernel hooks (kernel/intrinsics.h, kernel/memory.h,
// kernel/array.h). Inside a simulated launch they act for the current simulated thread;
// outside one (a kernel's host copy called directly) they describe a launch of one thread.
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <unordered_map>

#include "kernel/detail/simulator_hooks.h"
#include "kernel/intrinsics.h"
#include "kernel/memory.h"
#include "kernel/types.h"
#include "simulator/simulator.h"

using kernel::runtime::sim::barrier_kind;
using kernel::runtime::sim::current_sim_thread;
using kernel::runtime::sim::current_thread;
using kernel::runtime::sim::sim_thread;
using kernel::runtime::sim::thread_status;
using kernel::runtime::sim::warp_kind;

namespace {

int barrier(barrier_kind kind, int predicate, const char *file, std::uint32_t line, std::uint32_t column) {
  sim_thread *t = current_sim_thread();
  if (!t) return kind == barrier_kind::count ? (predicate != 0) : (predicate != 0);
  t->barrier = kind;
  t->predicate = predicate;
  t->barrier_file = file;
  t->barrier_line = line;
  t->barrier_column = column;
  t->status = thread_status::barrier;
  t->wait();
  return t->barrier_result;
}

// An access a GPU would fault on ("misaligned address"): the simulator's memory is the host's,
// which reads it anyway.
[[noreturn]] void fail_misaligned(sim_thread &t, std::uintptr_t address, std::uint64_t bytes, std::int32_t needed,
                                  const char *what, const char *where) {
  t.fail([&] {
    char at[32];
    std::snprintf(at, sizeof at, "%#llx", static_cast<unsigned long long>(address));
    return "misaligned " + std::string(what) + " of " + std::to_string(bytes) + " bytes at " + at +
           (where ? " (" + std::string(where) + ")" : std::string()) + ": a GPU needs it aligned to " +
           std::to_string(needed) + " bytes, and faults (misaligned address)";
  });
}

// Who the thread is for the race checks, and what it and its block are ordered after.
kernel::runtime::sim::race_detector::accessor accessor_of(sim_thread &t) noexcept {
  kernel::runtime::sim::block_run &b = *t.block;
  return {b.linear_index(), t.linear, b.seq(), b.last_barrier(), &t.sync, &b.acquired()};
}

std::uint32_t warp_op(warp_kind op, std::uint32_t mask, std::uint32_t value, std::int32_t arg, std::int32_t width) {
  sim_thread *t = current_sim_thread();
  if (!t) {
    // One thread: a shuffle reads its own value, a vote sees its own predicate.
    switch (op) {
    case warp_kind::vote_all:
    case warp_kind::vote_any: return value != 0;
    case warp_kind::vote_uni: return 1;
    case warp_kind::vote_ballot: return value != 0 ? 1u : 0u;
    default: return value;
    }
  }
  if (!(mask & (1u << t->lane())))
    t->fail([&] {
      return "a warp operation's mask " + kernel::runtime::sim::hex_mask(mask) + " does not include the calling lane " +
             std::to_string(t->lane());
    });
  const bool shuffle =
      op == warp_kind::shfl_idx || op == warp_kind::shfl_up || op == warp_kind::shfl_down || op == warp_kind::shfl_xor;
  // CUDA leaves the result undefined for these: a GPU gives some value, a test on one passes.
  if (shuffle && (width < 1 || width > 32 || (width & (width - 1)) != 0))
    t->fail([&] {
      return std::string(kernel::runtime::sim::warp_operation_name(op)) + "'s width " + std::to_string(width) +
             " is not a power of two from 1 to 32";
    });
  t->op = op;
  t->mask = mask;
  t->value = value;
  t->arg = arg;
  t->width = width;
  t->status = thread_status::warp;
  t->wait();
  return t->result;
}

// Shared arrays used outside a launch (a kernel's host copy called directly): one buffer
// per site for the process.
std::mutex outside_mutex;
std::unordered_map<const void *, void *> &outside_shared() {
  static std::unordered_map<const void *, void *> buffers;
  return buffers;
}

std::string index_string(std::size_t rank, const kernel::index_t *values) {
  std::string s = rank == 1 ? "" : "(";
  for (std::size_t d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(values[d]);
  return rank == 1 ? s : s + ")";
}

std::string shape_string(std::size_t rank, const kernel::index_t *shape) {
  std::string s = "(";
  for (std::size_t d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (rank == 1 ? ",)" : ")");
}

} // namespace

extern "C" {
std::uint32_t __kernel_tid_x() noexcept { return current_thread().thread_idx.x; }
std::uint32_t __kernel_tid_y() noexcept { return current_thread().thread_idx.y; }
std::uint32_t __kernel_tid_z() noexcept { return current_thread().thread_idx.z; }
std::uint32_t __kernel_ntid_x() noexcept { return current_thread().block_dim.x; }
std::uint32_t __kernel_ntid_y() noexcept { return current_thread().block_dim.y; }
std::uint32_t __kernel_ntid_z() noexcept { return current_thread().block_dim.z; }
std::uint32_t __kernel_ctaid_x() noexcept { return current_thread().block_idx.x; }
std::uint32_t __kernel_ctaid_y() noexcept { return current_thread().block_idx.y; }
std::uint32_t __kernel_ctaid_z() noexcept { return current_thread().block_idx.z; }
std::uint32_t __kernel_nctaid_x() noexcept { return current_thread().grid_dim.x; }
std::uint32_t __kernel_nctaid_y() noexcept { return current_thread().grid_dim.y; }
std::uint32_t __kernel_nctaid_z() noexcept { return current_thread().grid_dim.z; }

void __kernel_syncthreads_at(const char *file, std::uint32_t line, std::uint32_t column) noexcept {
  barrier(barrier_kind::plain, 0, file, line, column);
}
int __kernel_syncthreads_count_at(int predicate, const char *file, std::uint32_t line, std::uint32_t column) noexcept {
  return barrier(barrier_kind::count, predicate, file, line, column);
}
int __kernel_syncthreads_and_at(int predicate, const char *file, std::uint32_t line, std::uint32_t column) noexcept {
  return barrier(barrier_kind::all, predicate, file, line, column);
}
int __kernel_syncthreads_or_at(int predicate, const char *file, std::uint32_t line, std::uint32_t column) noexcept {
  return barrier(barrier_kind::any, predicate, file, line, column);
}
void __kernel_syncwarp(std::uint32_t mask) noexcept { warp_op(warp_kind::syncwarp, mask, 0, 0, 32); }
// A device or system fence orders the thread's accesses before it for other blocks, through
// its later atomics (race_detector); a block's fence has no such effect there.
void __kernel_threadfence() noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (sim_thread *t = current_sim_thread(); t && t->races) {
    t->sync.fence = t->block->fence();
    t->sync.barrier_at_fence = t->block->last_barrier();
  }
}
void __kernel_threadfence_block() noexcept { std::atomic_thread_fence(std::memory_order_seq_cst); }
void __kernel_threadfence_system() noexcept { __kernel_threadfence(); }
// Another host thread may be the one a simulated spin loop waits for.
void __kernel_nanosleep(std::uint32_t) noexcept { std::this_thread::yield(); }

std::uint32_t __kernel_laneid() noexcept {
  sim_thread *t = current_sim_thread();
  return t ? t->lane() : 0;
}
std::uint32_t __kernel_activemask() noexcept {
  sim_thread *t = current_sim_thread();
  if (!t) return 1u;
  // The lanes executing this call together: those that reach the same call site (in a
  // divergent if/else, the lanes of this branch only). The scheduler finds them once every
  // lane has run as far as it can.
  t->op = warp_kind::activemask;
  t->mask = 1u << t->lane();
  t->site = __builtin_return_address(0);
  t->status = thread_status::warp;
  t->wait();
  return t->result;
}
std::uint32_t __kernel_shfl_idx(std::uint32_t mask, std::uint32_t value, std::int32_t lane,
                                std::int32_t width) noexcept {
  return warp_op(warp_kind::shfl_idx, mask, value, lane, width);
}
std::uint32_t __kernel_shfl_up(std::uint32_t mask, std::uint32_t value, std::int32_t delta,
                               std::int32_t width) noexcept {
  return warp_op(warp_kind::shfl_up, mask, value, delta, width);
}
std::uint32_t __kernel_shfl_down(std::uint32_t mask, std::uint32_t value, std::int32_t delta,
                                 std::int32_t width) noexcept {
  return warp_op(warp_kind::shfl_down, mask, value, delta, width);
}
std::uint32_t __kernel_shfl_xor(std::uint32_t mask, std::uint32_t value, std::int32_t lane_mask,
                                std::int32_t width) noexcept {
  return warp_op(warp_kind::shfl_xor, mask, value, lane_mask, width);
}
int __kernel_vote_all(std::uint32_t mask, int predicate) noexcept {
  return static_cast<int>(warp_op(warp_kind::vote_all, mask, predicate != 0, 0, 32));
}
int __kernel_vote_any(std::uint32_t mask, int predicate) noexcept {
  return static_cast<int>(warp_op(warp_kind::vote_any, mask, predicate != 0, 0, 32));
}
int __kernel_vote_uni(std::uint32_t mask, int predicate) noexcept {
  return static_cast<int>(warp_op(warp_kind::vote_uni, mask, predicate != 0, 0, 32));
}
std::uint32_t __kernel_vote_ballot(std::uint32_t mask, int predicate) noexcept {
  return warp_op(warp_kind::vote_ballot, mask, predicate != 0, 0, 32);
}

void *__kernel_shared_static(const void *site, std::size_t bytes, std::size_t align) noexcept {
  if (sim_thread *t = current_sim_thread()) return t->block->shared_static(site, bytes, align);
  std::lock_guard lock(outside_mutex);
  void *&p = outside_shared()[site];
  if (!p) {
    p = ::operator new(bytes, std::align_val_t{256});
    std::memset(p, 0, bytes);
  }
  return p;
}
void *__kernel_shared_dynamic() noexcept {
  sim_thread *t = current_sim_thread();
  return t ? t->block->shared_dynamic() : nullptr;
}
std::uint32_t __kernel_shared_dynamic_bytes() noexcept {
  sim_thread *t = current_sim_thread();
  return t ? static_cast<std::uint32_t>(t->block->shared_dynamic_bytes()) : 0;
}

void __kernel_sim_access(const void *address, std::uint64_t bytes, std::int32_t write, std::int32_t needed,
                         const char *where) noexcept {
  sim_thread *t = current_sim_thread();
  if (!t) return;
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  if (a % static_cast<std::uint32_t>(needed) != 0)
    fail_misaligned(*t, a, bytes, needed, write ? "write" : "read", where);
  kernel::runtime::sim::race_detector *races = t->races;
  // The thread's own stack, reached through a pointer the instrumentation could not follow
  // (an object a called function gets by address): private to the thread.
  if (!races || a - t->stack_low < t->stack_size) return;
  if (write) t->sync.wrote_since_release = true;
  const kernel::runtime::sim::race_detector::accessor who = accessor_of(*t);
  if (!t->block->shadow().access(*races, who, a, bytes, write != 0, where))
    races->global_access(who, a, bytes, write != 0, where);
}

void __kernel_sim_atomic_access(const void *address, std::int32_t bytes, std::int32_t kind,
                                const char *where) noexcept {
  sim_thread *t = current_sim_thread();
  if (!t) return;
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  if (a % static_cast<std::uint32_t>(bytes) != 0)
    fail_misaligned(*t, a, static_cast<std::uint64_t>(bytes), bytes, "atomic", where);
  // A volatile access (bit 8) waits for the block's other threads to reach theirs, as the
  // lanes of a warp make one together: warp-synchronous code without syncwarp, which reads
  // all its lanes' values before any writes, gives a GPU's results.
  if ((kind & 8) != 0) {
    t->at_volatile = true;
    t->wait();
    t->at_volatile = false;
  }
  if (!t->races) return;
  // Checked against the plain accesses of the same bytes, before any release below.
  {
    const kernel::runtime::sim::race_detector::accessor who = accessor_of(*t);
    const bool write = (kind & 2) != 0;
    if (!t->block->shadow().access(*t->races, who, a, static_cast<std::size_t>(bytes), write, where, true))
      t->races->global_access(who, a, static_cast<std::size_t>(bytes), write, where, true);
  }
  // An atomic of a releasing order (bit 4) releases what the thread did before it, as a
  // threadfence just before it would, for this access alone: a later relaxed atomic of the
  // thread releases only what a fence of its own covers.
  if ((kind & 4) != 0 && t->sync.wrote_since_release) {
    const kernel::runtime::sim::sync_state before = t->sync;
    t->sync.fence = t->block->fence();
    t->sync.barrier_at_fence = t->block->last_barrier();
    t->races->release(accessor_of(*t), a);
    t->sync.fence = before.fence;
    t->sync.barrier_at_fence = before.barrier_at_fence;
    t->sync.wrote_since_release = false;
    return;
  }
  // A write releases before it is made, so that an atomic reading it after sees the release.
  if ((kind & 2) != 0 && t->sync.fence != 0) t->races->release(accessor_of(*t), a);
}

// std::atomic_thread_fence of a releasing order, in a kernel: a threadfence for the race
// checker (the instruction itself stays, and is the host's fence).
void __kernel_sim_fence() noexcept {
  if (sim_thread *t = current_sim_thread(); t && t->races) {
    t->sync.fence = t->block->fence();
    t->sync.barrier_at_fence = t->block->last_barrier();
  }
}

void __kernel_sim_atomic_done(const void *address) noexcept {
  sim_thread *t = current_sim_thread();
  if (!t || !t->races) return;
  t->races->acquire(accessor_of(*t), reinterpret_cast<std::uintptr_t>(address), t->block->acquired());
}

// At each loop back-edge of the instrumented copy: every so often the thread gives way to
// the others of its block, so that a thread spinning until another sets a flag lets it run.
void __kernel_sim_yield() noexcept {
  constexpr std::uint32_t backedges_per_turn = 1024;
  sim_thread *t = current_sim_thread();
  if (!t || ++t->backedges < backedges_per_turn) return;
  t->backedges = 0;
  t->wait(); // still runnable: the scheduler resumes it in its next round
}

void __kernel_at_element(kernel::index_t i, kernel::index_t size) noexcept {
  if (sim_thread *t = current_sim_thread()) {
    t->element = i;
    t->elements = size;
  }
}

void __kernel_check_index(const void *, std::size_t rank, const kernel::index_t *shape,
                          const kernel::index_t *index) noexcept {
  sim_thread *t = current_sim_thread();
  if (!t) return;
  for (std::size_t d = 0; d < rank; ++d)
    if (index[d] < 0 || index[d] >= shape[d])
      t->fail([&] {
        return "index " + index_string(rank, index) + " is out of bounds for an array of shape " +
               shape_string(rank, shape);
      });
}
}

// assert() in kernel code run by the simulator. The C library's __assert_fail is interposed:
// a failed assertion on a simulated thread fails the launch with its text, as a GPU fails
// the launch (cudaErrorAssert), instead of aborting the whole program; anywhere else the C
// library's function runs as before.
extern "C" __attribute__((__noreturn__)) void __assert_fail(const char *assertion, const char *file, unsigned int line,
                                                            const char *function) noexcept {
  if (sim_thread *t = current_sim_thread())
    t->fail([&] {
      return "assertion '" + std::string(assertion ? assertion : "") + "' failed at " + (file ? file : "?") + ":" +
             std::to_string(line) + (function ? std::string(" in ") + function : std::string()) +
             "; on a GPU the launch fails (cudaErrorAssert) and the context is unusable";
    });
  using assert_fail = void (*)(const char *, const char *, unsigned int, const char *);
  static const auto next = reinterpret_cast<assert_fail>(::dlsym(RTLD_NEXT, "__assert_fail"));
  if (next) next(assertion, file, line, function);
  // No C library's function to hand on to (a static executable): its message, then its abort.
  std::fprintf(stderr, "%s: %s:%u: %s%sAssertion `%s' failed.\n", program_invocation_short_name, file ? file : "?",
               line, function ? function : "", function ? ": " : "", assertion ? assertion : "");
  std::fflush(stderr);
  std::abort();
}

// Warp matches, built from ballots (each lane in the mask takes part in every one, as in
// the match itself): a lane's peers are those that agree with it on every bit of the value.
namespace {
template <class T> std::uint32_t match_lanes(std::uint32_t mask, T value) noexcept {
  std::uint32_t peers = __kernel_vote_ballot(mask, 1); // the lanes of the mask that exist
  for (unsigned bit = 0; bit < 8 * sizeof(T); ++bit) {
    const bool set = (value >> bit) & 1u;
    const std::uint32_t with_bit = __kernel_vote_ballot(mask, set);
    peers &= set ? with_bit : ~with_bit;
  }
  return peers;
}
} // namespace

extern "C" {
std::uint32_t __kernel_lanemask_lt() noexcept { return (1u << __kernel_laneid()) - 1u; }
std::uint32_t __kernel_match_any_32(std::uint32_t mask, std::uint32_t value) noexcept {
  return match_lanes(mask, value);
}
std::uint32_t __kernel_match_any_64(std::uint32_t mask, std::uint64_t value) noexcept {
  return match_lanes(mask, value);
}
std::uint32_t __kernel_match_all_32(std::uint32_t mask, std::uint32_t value, int *all_equal) noexcept {
  const bool equal = match_lanes(mask, value) == __kernel_vote_ballot(mask, 1);
  *all_equal = equal;
  return equal ? mask : 0u;
}
std::uint32_t __kernel_match_all_64(std::uint32_t mask, std::uint64_t value, int *all_equal) noexcept {
  const bool equal = match_lanes(mask, value) == __kernel_vote_ballot(mask, 1);
  *all_equal = equal;
  return equal ? mask : 0u;
}
}
