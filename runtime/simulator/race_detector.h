// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Data races between the threads of a simulated launch: two threads touch the same bytes,
// at least one of them writing, with nothing that orders them: a syncthreads (threads of
// one block), a syncwarp naming both (lanes of one warp), or nothing at all (threads of
// different blocks, which cannot synchronise within a launch, but through memory: see
// below). Atomic operations (and volatile accesses, which a GPU makes as relaxed atomics) do
// not race with each other: they are the way threads share data safely. An atomic and a plain
// access of the same bytes, one of them writing, race as two plain ones do.
//
// Threads of different blocks (and threads of one block that no barrier orders, as a lock
// does) are ordered as CUDA's memory model orders them through a fence and an atomic: a thread that made a threadfence
// and then an atomic write (or read-modify-write) of an address releases what it did before the fence, and what its
// block did before the last barrier before it; a thread whose atomic reads that address
// afterwards acquires that, and so do the threads of its block after their next barrier. This is the
// "last block" of CUDA's threadfence reduction, and a flag raised after a fence and
// awaited with an atomic. C++'s orders count the same: a std::atomic_thread_fence that
// releases is a threadfence, and an atomic of a releasing order its own fence.
//
// Shared and global memory are shadowed byte by byte, with the last writer and the last
// reader(s) of each byte and where in their block's order of synchronisations they were.
// In global memory, whose shadow is large and touched in strides (a grid-stride loop), the
// four bytes of an aligned word share one shadow cell until an access covers only some of
// them: then the word is split into a cell per byte (and joined again when its bytes' cells
// agree), so the checks stay exact to the byte at a quarter of the shadow for word accesses.
// Nothing is allocated on the path of an access that does not race (the checks run on
// every load and store of a kernel); the report is composed when a race is found.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "kernel/intrinsics.h"

namespace kernel::runtime::sim {

/// The simulated device's allocations at the time of a launch, for telling global memory
/// from the rest of the host's.
struct allocation {
  std::uintptr_t begin;
  std::size_t bytes;
};

/// What a thread has synchronised with. Each barrier and each syncwarp of a block takes the
/// next number of the block's sequence; an access is stamped with the block's number at the
/// time, so a later access of another thread is ordered after it when a barrier, or a
/// syncwarp both threads took part in, has a larger number.
struct sync_state {
  /// The last syncwarp this thread took part in with each lane of its warp.
  std::array<std::uint64_t, 32> with_lane{};
  /// The last syncwarp this thread took part in (for the report).
  std::uint64_t last_syncwarp = 0;
  /// The number of the thread's last threadfence (0: none), and of its block's last barrier
  /// then: what its atomic operations release.
  std::uint64_t fence = 0, barrier_at_fence = 0;
  /// Whether the thread wrote memory since its last release by an atomic of a releasing
  /// order: only then has such an atomic anything new to release (so that a loop of seq_cst
  /// atomics with nothing written between, a histogram's, records no release each).
  bool wrote_since_release = false;
};

class race_detector {
public:
  race_detector(std::string kernel, dim3 grid, dim3 block, std::vector<allocation> global);
  ~race_detector();
  race_detector(const race_detector &) = delete;
  race_detector &operator=(const race_detector &) = delete;

  /// What a block acquired with an atomic operation of its thread `thread` on `address`: the
  /// first `count` releases there, visible to that thread at once and to the others after a
  /// barrier numbered above `seq`.
  struct acquisition {
    std::uintptr_t address;
    std::size_t count;
    std::uint32_t thread;
    std::uint64_t seq;
  };

  /// Who makes an access, and what it is ordered after.
  struct accessor {
    std::uint64_t block;                                // the block's linear index in the grid
    std::uint32_t thread;                               // the thread's linear index in its block
    std::uint64_t seq;                                  // the block's synchronisation number now
    std::uint64_t last_barrier;                         // the number of the block's last barrier
    const sync_state *sync;                             // the thread's syncwarps and fence
    const std::vector<acquisition> *acquired = nullptr; // by the thread's block
  };

  /// An access by `who` to [address, address + bytes) of global memory; accesses elsewhere
  /// (host memory, the thread's stack) are ignored.
  /// `atomic`: an atomic operation (or a volatile access), which races only with plain ones.
  void global_access(const accessor &who, std::uintptr_t address, std::size_t bytes, bool write, const char *where,
                     bool atomic = false);

  /// An atomic write of `who` to `address`, after a fence of its: releases what the fence
  /// covers. Called before the write is made.
  void release(const accessor &who, std::uintptr_t address);
  /// An atomic read of `who` from `address`, made: adds to `acquired` (its block's) what was
  /// released there before.
  void acquire(const accessor &who, std::uintptr_t address, std::vector<acquisition> &acquired);

  /// The shadow of one byte.
  struct cell {
    std::uint64_t writer_block = 0, writer_seq = 0;
    std::uint64_t reader_block = 0, reader_seq = 0; // reader_seq: the latest of several
    std::uint32_t writer : 30 = 0;                  // thread + 1; 0 when none
    std::uint32_t writer_atomic : 1 = 0;            // the write was atomic
    std::uint32_t plain_read : 1 = 0;               // the readers' reads were plain (else atomic)
    std::uint32_t reader = 0;                       // thread + 1; 0 when none; `several`
    std::uint32_t reader_warp = 0;                  // several readers: their warp, or `several` for more than one
    std::uint32_t reader_lanes = 0;                 // several readers of one warp: their lanes
    bool operator==(const cell &) const = default;
  };
  static_assert(sizeof(cell) == 48, "the shadow's budget counts 48 bytes a cell (12 a byte of a word)");

  /// The shadow of one block's shared memory: owned by the block, checked without locks.
  class shared_shadow {
  public:
    shared_shadow() = default;
    ~shared_shadow();
    shared_shadow(const shared_shadow &) = delete;
    shared_shadow &operator=(const shared_shadow &) = delete;
    void add_region(std::uintptr_t begin, std::size_t bytes);
    /// True when the access is to this block's shared memory (and was checked).
    bool access(race_detector &d, const accessor &who, std::uintptr_t address, std::size_t bytes, bool write,
                const char *where, bool atomic = false);

  private:
    struct region {
      std::uintptr_t begin;
      std::size_t bytes;
      std::vector<cell> cells; // one per byte (recycled across the blocks a host thread runs)
    };
    std::vector<region> regions_;
  };

  /// The races found (at most a few, each reported once), or empty.
  std::string report() const;
  bool any() const;
  /// Whether the shadow of global memory reached its budget during the launch, after which
  /// global accesses went unchecked (KERNEL_SIMULATOR_RACE_MEMORY_MB; by default a quarter of
  /// the machine's memory: the shadow takes 12 bytes per byte of words the kernel touches,
  /// 48 per byte of words it touches in part).
  bool ran_out_of_shadow() const noexcept { return out_of_shadow_.load(std::memory_order_relaxed); }
  /// The budget, in bytes (a kernel::error for a setting that is not a number of MiB).
  static std::size_t shadow_budget();
  std::size_t budget() const noexcept { return budget_; }

private:
  // Where a racing access is, for the report: which memory and the offset in it.
  struct place {
    bool shared;
    std::size_t memory_bytes;
    std::size_t offset;
  };

  static constexpr std::uint32_t several = 0xffffffffu;
  // reader_block of a cell read by threads of more than one block since its last write (one
  // of them, at least, of another block than any later writer's).
  static constexpr std::uint64_t several_blocks = ~std::uint64_t{0};
  static constexpr std::size_t chunk_bytes = 4096, word_bytes = 4, chunk_words = chunk_bytes / word_bytes;

  // Global memory's shadow, made a chunk at a time as the kernel touches it.
  struct chunk {
    // A spin lock: held for a few cells' checks, and rarely contended (blocks touching the
    // same 4 KiB at the same moment).
    std::atomic_flag busy;
    void lock() noexcept {
      while (busy.test_and_set(std::memory_order_acquire))
        while (busy.test(std::memory_order_relaxed)) std::this_thread::yield();
    }
    void unlock() noexcept { busy.clear(std::memory_order_release); }
    bool is_split(std::size_t word) const noexcept { return split[word / 64] >> word % 64 & 1; }
    void reset() noexcept;
    cell words[chunk_words];               // a word's bytes while they are alike
    std::uint64_t split[chunk_words / 64]; // words whose bytes have cells of their own...
    std::unique_ptr<cell[]> bytes;         // ...here (chunk_bytes cells, made at the first)
  };
  // Checks and records the bytes [first, end) of one chunk (offsets in it) for an access.
  void check_bytes(chunk &c, std::size_t first, std::size_t end, const accessor &who, bool write, bool atomic,
                   const place &at, std::size_t bytes, const char *where, bool &reported);
  struct global_region {
    allocation memory;
    std::unique_ptr<std::atomic<chunk *>[]> chunks;
  };
  // The chunk's shadow, or null where making it would pass the budget (the launch's global
  // accesses are unchecked from then on).
  chunk *chunk_at(global_region &r, std::size_t index);
  // Counts `bytes` more of shadow against the budget; false (and out of shadow) past it.
  bool reserve_shadow(std::size_t bytes);
  // Chunks are recycled across launches: fresh memory costs a page fault per page.
  static chunk *new_chunk();
  static void recycle(chunk *c) noexcept;
  // The spare chunks, owned: freed at exit.
  struct spare_chunks;
  static spare_chunks &spares();

  // Checks one byte's shadow and records the access in it. An access races once, however
  // many of its bytes do: `reported` says whether it has.
  void check(cell &c, const accessor &who, bool write, bool atomic, const place &at, std::size_t bytes,
             const char *where, bool &reported);
  // `atomic`, `other_atomic`: which of the two accesses were atomic (the other's, for readers:
  // all of them).
  [[gnu::cold]] void report_race(const accessor &who, bool write, bool atomic, const place &at, std::size_t bytes,
                                 const char *where, bool other_wrote, bool other_atomic, std::uint64_t other_block,
                                 std::uint32_t other_thread, std::uint64_t other_seq);
  std::string thread_name(std::uint64_t block, std::uint32_t thread) const;
  // Whether an access of thread `other` (+ 1, or `several`) of another block `block`, stamped
  // `seq` there, is ordered before `who` by what who's block acquired.
  // `atomic_write`: the access is an atomic write, which the release of its own fence covers.
  bool acquired_before(const accessor &who, std::uint64_t block, std::uint32_t other, std::uint64_t seq,
                       bool atomic_write = false);

  // The releases made on each address, in order; by_block: each releasing block's, with
  // their place in that order.
  struct release_at {
    std::size_t index;
    std::uint32_t thread;
    std::uint64_t fence, barrier;
  };
  struct address_releases {
    std::size_t count = 0;
    std::unordered_map<std::uint64_t, std::vector<release_at>> by_block;
  };
  std::mutex releases_mutex_;
  std::unordered_map<std::uintptr_t, address_releases> releases_;
  std::atomic<bool> any_release_{false}; // until then atomics cost no lock

  std::string kernel_;
  dim3 grid_, block_;
  std::uint32_t block_threads_;
  std::vector<global_region> global_;
  std::uintptr_t global_begin_ = 0, global_end_ = 0; // around all of global_

  std::size_t budget_; // shadow_budget() when the launch began
  std::atomic<bool> out_of_shadow_{false};
  std::atomic<std::size_t> total_races_{0};
  mutable std::mutex races_mutex_;
  std::vector<std::string> races_;
  std::vector<std::string> seen_;
};

} // namespace kernel::runtime::sim
