// Data races between the threads of a simulated launch: two threads touch the same bytes,
// at least one of them writing, without a syncthreads between them (threads of one block)
// or at all (threads of different blocks, which cannot synchronise within a launch).
// Atomic operations are not seen (the instrumentation leaves them out): they are the way
// threads share data safely.
//
// Shared memory is shadowed byte by byte, global memory by 4-byte words, with the last
// writer and the last reader(s) of each and the barrier generation they were at.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
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

class race_detector {
  // The shadow of one byte (shared memory) or word (global memory).
  struct cell {
    std::uint32_t writer = 0; // thread + 1; 0 when none
    std::uint32_t writer_epoch = 0;
    std::uint32_t reader = 0; // thread + 1; `several` when more than one
    std::uint32_t reader_epoch = 0;
    std::uint32_t reader_block = 0;
  };
  static constexpr std::uint32_t several = 0xffffffffu;

public:
  race_detector(std::string kernel, dim3 grid, dim3 block, std::vector<allocation> global);

  /// Who made an access: a thread's global id (block * threads per block + thread) and
  /// its block's barrier generation.
  struct accessor {
    std::uint32_t thread;
    std::uint32_t block;
    std::uint32_t epoch;
  };

  /// An access by `who` to [address, address + bytes) of global memory; accesses elsewhere
  /// (host memory, the thread's stack) are ignored.
  void global_access(const accessor &who, std::uintptr_t address, std::size_t bytes, bool write, const char *where);

  /// The shadow of one block's shared memory: owned by the block, checked without locks.
  class shared_shadow {
  public:
    void add_region(std::uintptr_t begin, std::size_t bytes);
    /// True when the access is to this block's shared memory (and was checked).
    bool access(race_detector &d, const accessor &who, std::uintptr_t address, std::size_t bytes, bool write,
                const char *where);

  private:
    struct region {
      std::uintptr_t begin;
      std::size_t bytes;
      std::vector<cell> cells; // one per byte
    };
    std::vector<region> regions_;
  };

  /// The races found (at most a few, each reported once), or empty.
  std::string report() const;
  bool any() const;

private:
  friend class shared_shadow;
  void check(cell &c, const accessor &who, bool write, const std::string &memory, std::size_t offset, std::size_t bytes,
             const char *where);
  std::string thread_name(std::uint32_t thread) const;

  std::string kernel_;
  dim3 grid_, block_;
  std::uint32_t block_threads_;
  std::vector<allocation> global_;

  static constexpr std::size_t stripes = 64;
  struct stripe {
    std::mutex mutex;
    std::unordered_map<std::uintptr_t, cell> words;
  };
  std::vector<stripe> stripes_;

  mutable std::mutex races_mutex_;
  std::vector<std::string> races_;
  std::size_t total_races_ = 0;
  std::vector<std::string> seen_;
};

} // namespace kernel::runtime::sim
