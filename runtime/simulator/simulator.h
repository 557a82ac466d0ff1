// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The kernel simulator: runs a kernel's host copy over its whole launch on the CPU, with the
// semantics of a GPU and checks a GPU does not make.
//
// Blocks run in parallel on all cores (one block per core at a time); the threads of a
// block run as fibers on that core, switching at barriers and warp operations, so that
// syncthreads, shared memory and shuffles behave as on the GPU. Atomics are host atomics.
//
// Checks: array indices out of bounds (array_view element access), threads of a block at
// different barriers or some exited while others wait (divergent syncthreads), warp
// operations whose lanes never all arrive, a thread overflowing its stack, and, with the
// plugin's instrumentation, data races on shared and global memory.
//
// The instrumented copy also gives way to the block's other threads at loop back-edges, so
// that threads spinning on each other's flags finish, as under a GPU's independent thread
// scheduling.
//
// Environment: KERNEL_SIMULATOR_SERIAL=1 runs blocks one at a time on the calling thread
// (deterministic, for a debugger; a block stalled for 20 ms still lets another host thread
// start the blocks after it, which it may be waiting for); KERNEL_SIMULATOR_STACK_KB sets each simulated thread's
// stack (default 64, at most 1048576).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "device/launch_limits.h"
#include "kernel/detail/device_api.h"
#include "kernel/detail/module_abi.h"
#include "simulator/fiber.h"
#include "simulator/race_detector.h"
#include "simulator/thread_context.h"

namespace kernel::runtime::sim {

/// The limits the simulator checks launches against: those of an sm_90 GPU.
inline constexpr launch_limits gpu_limits{
    .threads_per_block = 1024,
    .threads_limited_by = "a GPU",
    .block = {1024, 1024, 64},
    .grid = {2147483647u, 65535, 65535},
    .dimensions_limited_by = "a GPU",
    .shared_per_block = 227 * 1024,
};

/// Runs kernel `k` over `config`; throws argument_error for a launch no GPU would accept and
/// simulator_error when a check fails, or when the threads cannot fit in their stacks.
/// `registered` is the entry as the plugin registered it, null for a kernel it did not
/// compile: its copy instrumented for the race checks (kernel_entry::simulator_entry) and
/// the stack its threads need. `global` lists the simulated device's allocations.
void run(const detail::kernel_ref &k, const void *params, const detail::launch_config &config,
         const kernel_entry *registered, std::vector<allocation> global);

struct launch_state;
class block_run;

enum class thread_status { runnable, barrier, warp, done };
enum class barrier_kind { plain, count, all, any };
enum class warp_kind {
  shfl_idx,
  shfl_up,
  shfl_down,
  shfl_xor,
  vote_all,
  vote_any,
  vote_uni,
  vote_ballot,
  syncwarp,
  activemask
};

/// The name a kernel calls `op` by: "shfl_sync", "ballot_sync".
const char *warp_operation_name(warp_kind op) noexcept;

/// The stack each simulated thread gets (KERNEL_SIMULATOR_STACK_KB); simulator_error when
/// the setting is not a size the simulator can give.
std::size_t stack_bytes();

/// One simulated thread of a block.
// Cache-line aligned, and what the hooks read on every access first: they run for every
// load and store of a kernel.
class alignas(64) sim_thread {
public:
  thread_context ctx;
  block_run *block = nullptr;
  std::uint32_t linear = 0; // x + y*bx + z*bx*by
  thread_status status = thread_status::runnable;
  // For the access hook, without following pointers: the launch's race detector (null
  // when races are not checked) and the thread's stack.
  race_detector *races = nullptr;
  std::uintptr_t stack_low = 0;
  std::size_t stack_size = 0;
  // Loop back-edges passed since the thread last gave way.
  std::uint32_t backedges = 0;
  // The element of an elementwise loop the thread computes (__kernel_at_element), of
  // `elements`; -1 in a kernel that names none.
  index_t element = -1, elements = 0;
  // Whether it gave way before a volatile access (its warp's others make theirs): it is on
  // its way, as lanes that run in lockstep are, and an activemask waits for it.
  bool at_volatile = false;
  std::unique_ptr<fiber> body;

  // At a barrier.
  barrier_kind barrier = barrier_kind::plain;
  const char *barrier_file = nullptr;
  std::uint32_t barrier_line = 0, barrier_column = 0;
  int predicate = 0;
  int barrier_result = 0;

  // At a warp operation.
  warp_kind op = warp_kind::syncwarp;
  std::uint32_t mask = 0;
  std::uint32_t value = 0;
  std::int32_t arg = 0;
  std::int32_t width = 32;
  std::uint32_t result = 0;
  const void *site = nullptr; // of an activemask: lanes at the same one are converged

  // What the thread has synchronised with (for the race checks).
  sync_state sync;
  // Set when the thread ran off the end of its stack, or faulted otherwise (a wild access,
  // an integer division by zero): the signal, its si_code and the address.
  bool overflowed = false;
  int fault_signal = 0;
  int fault_code = 0;
  std::uintptr_t fault_address = 0;

  std::uint32_t lane() const noexcept { return linear % 32; }
  std::uint32_t warp() const noexcept { return linear / 32; }

  /// Fails the launch for the fault the thread was abandoned at (fault_signal).
  void fail_fault();
  /// Waits (suspends the fiber) until the scheduler completes what it waits for.
  void wait();
  /// Fails the launch with the message `describe()` returns (prefixed by the kernel, block
  /// and thread) and never returns: the fiber is abandoned where it stands. The message is
  /// built in a call that has returned by then, so that no string is left alive (and leaked)
  /// in the frames of the abandoned fiber; a caller keeps no heap object of its own alive.
  template <class Describe> [[noreturn]] void fail(Describe &&describe) {
    record_failure(describe());
    stop();
  }
  /// Fails the launch with an exception the thread's code threw, which the launch rethrows;
  /// leaves `thrown` empty and never returns.
  [[noreturn]] void fail_with(std::exception_ptr &&thrown);
  /// Fails the launch with `message` (prefixed by the kernel, block and thread); returns.
  void record_failure(const std::string &message);
  /// Marks the thread done and suspends it for good: the scheduler never resumes it.
  [[noreturn]] void stop();
  /// Fails the launch for the thread's stack overflow (after its fiber was abandoned).
  void fail_overflow();
  /// "thread (3,0,0) of block (1,0,0)"; "element 57 of 100 (...)" in an elementwise loop,
  /// which runs on one thread.
  std::string where() const;
};

/// A warp mask as the simulator's messages print it: "0x0000ffff".
std::string hex_mask(std::uint32_t mask);

/// The simulated thread running on this host thread, or null outside a simulated launch.
inline sim_thread *current_sim_thread() noexcept { return current_context ? current_context->owner : nullptr; }

/// A block being run: its threads, their scheduling, and its shared memory.
class block_run {
public:
  block_run(launch_state &launch, dim3 block_idx, stack_pool &stacks);
  ~block_run();
  block_run(const block_run &) = delete;
  block_run &operator=(const block_run &) = delete;

  void run();

  launch_state &launch;
  dim3 block_idx;

  void *shared_static(const void *site, std::size_t bytes, std::size_t align);
  void *shared_dynamic() noexcept { return dynamic_shared_.get(); }
  std::size_t shared_dynamic_bytes() const noexcept;
  std::uint32_t active_lanes(std::uint32_t warp) const noexcept;
  /// The block's synchronisation number now, and that of its last barrier (race_detector).
  std::uint64_t seq() const noexcept { return seq_; }
  std::uint64_t last_barrier() const noexcept { return last_barrier_; }
  std::uint64_t linear_index() const noexcept { return linear_; }
  race_detector::shared_shadow &shadow() noexcept { return shadow_; }
  /// A threadfence of one of the block's threads: takes the next number of the sequence.
  std::uint64_t fence() noexcept { return ++seq_; }
  /// What the block's atomics acquired (race_detector::acquire).
  std::vector<race_detector::acquisition> &acquired() noexcept { return acquired_; }
  std::size_t stack_size() const noexcept { return stacks_.size(); }
  /// The launch's race detector, or null when races are not checked.
  race_detector *launch_races() const noexcept { return races_; }

private:
  bool complete_warp_operations();
  void complete_activemask(std::size_t first, std::size_t last);
  void complete_warp_group(std::size_t first, std::size_t last, std::uint32_t group);
  bool complete_barrier();
  void fail_block(const std::string &message);
  std::string describe(const std::vector<std::uint32_t> &linear) const;

  stack_pool &stacks_;
  // The simulated thread this block's host thread was running when the block started: the
  // caller's, for a launch made from inside a kernel; else none.
  thread_context *outer_;
  std::vector<sim_thread> threads_;
  struct aligned_free {
    void operator()(char *p) const noexcept;
  };
  std::unordered_map<const void *, std::pair<std::unique_ptr<char, aligned_free>, std::size_t>> shared_;
  std::size_t shared_used_ = 0;
  std::unique_ptr<char, aligned_free> dynamic_shared_;
  race_detector *races_;
  std::uint64_t linear_;
  std::uint64_t seq_ = 0;
  std::uint64_t last_barrier_ = 0;
  race_detector::shared_shadow shadow_;
  std::vector<race_detector::acquisition> acquired_;
  // Per warp: rounds an activemask has waited for lanes at volatile accesses.
  std::vector<std::uint8_t> activemask_waits_;
};

} // namespace kernel::runtime::sim
