// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "simulator/simulator.h"

#include <signal.h>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <new>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "kernel/errors.h"
#include "settings/environment.h"

extern "C" {
// Nonzero on a thread while it runs a simulated block: array_view element access then calls
// the bounds check (kernel/array.h). Per thread, so CPU code running beside a simulated
// launch is neither checked nor racing with the simulator's writes.
thread_local constinit int __kernel_simulating = 0;
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KERNEL_SIM_TSAN 1
extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
// The block loop's task objects (of oneTBB's inline templates) are written and read on both
// sides of TBB's hand-over, which TSan cannot see: races whose top frame is in TBB are its own.
extern "C" const char *__tsan_default_suppressions() { return "race_top:tbb::detail::\n"; }
#endif
#endif

namespace kernel::runtime::sim {

struct launch_state {
  const detail::kernel_ref &kernel;
  const void *params;
  detail::launch_config config;
  void (*entry)(const void *);
  race_detector *races;
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::string error;

  // Blocks are claimed in order by whoever runs them: the host threads the launch starts with
  // and those started for blocks that stall (see block_stalled).
  std::uint64_t blocks = 0;
  std::atomic<std::uint64_t> next_block{0};
  std::function<void()> run_blocks; // claims and runs blocks until none are left (or one fails)
  std::exception_ptr exception;     // the first a block threw, rethrown by run()
  std::vector<std::thread> extra_threads;
  bool told_of_limit = false; // block_stalled's note, once per launch
  std::uint64_t workers = 1;  // the host threads the launch started with

  void fail(const std::string &message) {
    std::lock_guard lock(mutex);
    if (error.empty()) error = message;
    failed.store(true, std::memory_order_relaxed);
  }
  void fail(std::exception_ptr e) {
    std::lock_guard lock(mutex);
    if (!exception && error.empty()) exception = std::move(e);
    failed.store(true, std::memory_order_relaxed);
  }

  // On a GPU every block of a modest grid is resident at once, so a block may spin until a
  // later one sets a flag (a grid-wide barrier through atomics). The simulator runs as many
  // blocks as it has host threads; a block that stalls gets one more thread, so that the
  // blocks it waits for start. Each host thread keeps a stack (two mappings) per thread of a
  // block, so the extra ones are bounded by the stacks the process may map: a quarter of
  // vm.max_map_count in stacks (16382 by default), less those of the threads the launch
  // started with (on 2 cores: 254 extra host threads for blocks of 32 threads, 61 for blocks
  // of 256, 13 for blocks of 1024), and at least 2.
  std::size_t max_extra_threads() const {
    const std::uint64_t per_block = std::max<std::uint64_t>(1, config.block.count());
    const std::uint64_t budget = stack_budget(), started = workers * per_block;
    return static_cast<std::size_t>(
        std::clamp<std::uint64_t>((budget - std::min(budget, started)) / per_block, 2, 256));
  }
  static std::uint64_t stack_budget() {
    static const std::uint64_t budget = [] {
      std::uint64_t mappings = 65530; // Linux's default
      if (std::FILE *f = std::fopen("/proc/sys/vm/max_map_count", "r")) {
        unsigned long long n = 0;
        if (std::fscanf(f, "%llu", &n) == 1 && n > 0) mappings = n;
        std::fclose(f);
      }
      return std::max<std::uint64_t>(mappings / 4, 8192);
    }();
    return budget;
  }

  /// A block whose threads have only given way for a while (no thread finished, no barrier
  /// or warp operation completed): if blocks are left to start, another host thread runs them.
  /// Past the limit, a launch whose blocks keep waiting while blocks are left is told once on
  /// standard error: if they wait for those (a grid-wide barrier), it cannot finish. Not an
  /// error: blocks computing in long loops look the same.
  void block_stalled(std::chrono::steady_clock::duration waited) {
    if (next_block.load(std::memory_order_relaxed) >= blocks || failed.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(mutex);
    if (extra_threads.size() >= max_extra_threads()) {
      if (waited > std::chrono::seconds(5) && !told_of_limit) {
        told_of_limit = true;
        std::fprintf(stderr,
                     "kernel '%.*s' on the simulator: a block has only waited for %lld s while %llu of %llu blocks "
                     "are not started, and no more blocks of %llu threads can run at once (%zu); if its blocks "
                     "wait for later ones (a grid-wide barrier), the launch cannot finish: launch fewer blocks\n",
                     static_cast<int>(std::string_view(kernel.name).size()), std::string_view(kernel.name).data(),
                     static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(waited).count()),
                     static_cast<unsigned long long>(blocks - std::min(blocks, next_block.load())),
                     static_cast<unsigned long long>(blocks), static_cast<unsigned long long>(config.block.count()),
                     static_cast<std::size_t>(extra_threads.size() + workers));
      }
      return;
    }
    try {
      extra_threads.emplace_back([this] { run_blocks(); });
    } catch (...) {
      // No thread to be had (a limit of the system): the launch goes on with those it has.
    }
  }

  /// Waits for the threads block_stalled started (and any they started).
  void join_extra_threads() {
    while (true) {
      std::thread t;
      {
        std::lock_guard lock(mutex);
        if (extra_threads.empty()) return;
        t = std::move(extra_threads.back());
        extra_threads.pop_back();
      }
      t.join();
    }
  }
};

std::string hex_mask(std::uint32_t mask) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

namespace {

std::string dims_string(dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

bool serial() {
  static const bool s = [] {
    return switch_setting("KERNEL_SIMULATOR_SERIAL", "run the simulator's blocks one at a time").value_or(false);
  }();
  return s;
}

constexpr std::size_t default_stack_kb = 64, min_stack_kb = 16, max_stack_kb = 1024 * 1024;

// A fault of a simulated thread: its stack guard (an overflow), or a wild access or an integer
// division its own code made. The thread is abandoned, and the block's scheduler reports it
// (run_threads). Runs in the signal handler, so it only sets flags.
fiber *on_thread_fault(const fault &f) {
  sim_thread *t = current_sim_thread();
  if (!t || !t->body) return nullptr;
  if (f.signal == SIGSEGV && t->body->overflowed(f.address, f.sp)) {
    t->overflowed = true;
  } else if (t->body->runs_on(f.sp)) {
    t->fault_signal = f.signal;
    t->fault_code = f.code;
    t->fault_address = f.address;
  } else {
    return nullptr;
  }
  t->status = thread_status::done;
  return t->body.get();
}

} // namespace

std::size_t stack_bytes() {
  const auto kb =
      whole_number_setting("KERNEL_SIMULATOR_STACK_KB", min_stack_kb, max_stack_kb,
                           "each simulated thread's stack in KiB (default " + std::to_string(default_stack_kb) + ")");
  return static_cast<std::size_t>(kb.value_or(default_stack_kb)) * 1024;
}

std::string sim_thread::where() const {
  std::string thread = "thread " + dims_string(ctx.thread_idx) + " of block " + dims_string(ctx.block_idx);
  if (element < 0) return thread;
  std::string at = "element " + std::to_string(element) + " of " + std::to_string(elements) +
                   " (in C order over the call's loop dimensions)";
  return block->launch.config.grid.count() * block->launch.config.block.count() == 1 ? at : at + ", " + thread;
}

void sim_thread::wait() { body->suspend(); }

void sim_thread::fail_overflow() {
  block->launch.fail("kernel '" + std::string(block->launch.kernel.name) + "': " + where() +
                     ": the thread overflowed its stack of " + std::to_string(block->stack_size() / 1024) +
                     " KiB (a large local_array, or deep recursion); KERNEL_SIMULATOR_STACK_KB sets the size of "
                     "each simulated thread's stack");
}

void sim_thread::fail_fault() {
  std::ostringstream what;
  if (fault_signal == SIGILL) {
    what << "a trap (__builtin_trap, or an instruction the CPU does not have); on a GPU the launch fails "
            "(an illegal instruction) and the context is unusable";
  } else if (fault_signal == SIGFPE) {
    // (x86 reports both as FPE_INTDIV.)
    what << (fault_code == FPE_INTOVF ? "an integer division overflowed (the most negative value divided by -1)"
                                      : "an integer division by zero (or of the most negative value by -1)")
         << "; a GPU does not trap on it but gives an undefined result";
  } else {
    what << "an access to address 0x" << std::hex << fault_address << std::dec
         << ", which is no memory of the program's: on a GPU an illegal memory access, after which the context is "
            "unusable (index arrays through array_view, whose checks name the index)";
  }
  record_failure(what.str());
}

void sim_thread::record_failure(const std::string &message) {
  block->launch.fail("kernel '" + std::string(block->launch.kernel.name) + "': " + where() + ": " + message);
}

void sim_thread::fail_with(std::exception_ptr &&thrown) {
  block->launch.fail(std::exchange(thrown, nullptr));
  stop();
}

void sim_thread::stop() {
  status = thread_status::done;
  while (true) body->suspend(); // the scheduler sees the failure and never resumes us
}

void block_run::aligned_free::operator()(char *p) const noexcept { ::operator delete(p, std::align_val_t{256}); }

block_run::block_run(launch_state &l, dim3 idx, stack_pool &stacks)
    : launch(l), block_idx(idx), stacks_(stacks), outer_(current_thread_if_any()), races_(l.races),
      linear_(idx.x + std::uint64_t{idx.y} * l.config.grid.x +
              std::uint64_t{idx.z} * l.config.grid.x * l.config.grid.y) {
  const dim3 b = launch.config.block;
  threads_.resize(b.count());
  activemask_waits_.resize((threads_.size() + 31) / 32);
  for (std::uint32_t z = 0, i = 0; z < b.z; ++z)
    for (std::uint32_t y = 0; y < b.y; ++y)
      for (std::uint32_t x = 0; x < b.x; ++x, ++i) {
        sim_thread &t = threads_[i];
        t.ctx.thread_idx = dim3(x, y, z);
        t.ctx.block_dim = b;
        t.ctx.block_idx = block_idx;
        t.ctx.grid_dim = launch.config.grid;
        t.ctx.owner = &t;
        t.block = this;
        t.linear = i;
      }
  if (launch.config.shared_bytes > 0) {
    dynamic_shared_.reset(static_cast<char *>(::operator new(launch.config.shared_bytes, std::align_val_t{256})));
    std::memset(dynamic_shared_.get(), 0, launch.config.shared_bytes);
    if (launch.races)
      shadow_.add_region(reinterpret_cast<std::uintptr_t>(dynamic_shared_.get()), launch.config.shared_bytes);
  }
}

block_run::~block_run() { set_current_thread(outer_); }

std::size_t block_run::shared_dynamic_bytes() const noexcept { return launch.config.shared_bytes; }

void *block_run::shared_static(const void *site, std::size_t bytes, std::size_t align) {
  auto it = shared_.find(site);
  if (it != shared_.end()) return it->second.first.get();
  shared_used_ += bytes;
  if (shared_used_ + launch.config.shared_bytes > gpu_limits.shared_per_block) {
    sim_thread *t = current_sim_thread();
    t->fail([&] {
      return "the block's shared arrays (" + std::to_string(shared_used_) + " bytes) and dynamic shared memory (" +
             std::to_string(launch.config.shared_bytes) + " bytes) are more than a block can have (" +
             std::to_string(gpu_limits.shared_per_block) + ")";
    });
  }
  std::unique_ptr<char, aligned_free> memory(
      static_cast<char *>(::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{256})));
  std::memset(memory.get(), 0, bytes);
  (void)align;
  char *p = memory.get();
  shared_.emplace(site, std::make_pair(std::move(memory), bytes));
  if (launch.races) shadow_.add_region(reinterpret_cast<std::uintptr_t>(p), bytes);
  return p;
}

std::uint32_t block_run::active_lanes(std::uint32_t warp) const noexcept {
  std::uint32_t mask = 0;
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    const std::size_t i = std::size_t{warp} * 32 + lane;
    if (i < threads_.size() && threads_[i].status != thread_status::done) mask |= 1u << lane;
  }
  return mask;
}

std::string block_run::describe(const std::vector<std::uint32_t> &linear) const {
  std::string s;
  std::size_t ranges = 0;
  for (std::size_t i = 0; i < linear.size();) {
    std::size_t j = i;
    while (j + 1 < linear.size() && linear[j + 1] == linear[j] + 1) ++j;
    if (++ranges > 3) {
      s += " and " + std::to_string(linear.size() - i) + " more";
      break;
    }
    if (!s.empty()) s += ", ";
    s += dims_string(threads_[linear[i]].ctx.thread_idx);
    if (j > i) s += " to " + dims_string(threads_[linear[j]].ctx.thread_idx);
    i = j + 1;
  }
  return (linear.size() == 1 ? "thread " : "threads ") + s;
}

void block_run::fail_block(const std::string &message) {
  launch.fail("kernel '" + std::string(launch.kernel.name) + "': block " + dims_string(block_idx) + ": " + message);
}

const char *warp_operation_name(warp_kind op) noexcept {
  switch (op) {
  case warp_kind::shfl_idx: return "shfl_sync";
  case warp_kind::shfl_up: return "shfl_up_sync";
  case warp_kind::shfl_down: return "shfl_down_sync";
  case warp_kind::shfl_xor: return "shfl_xor_sync";
  case warp_kind::vote_all: return "all_sync";
  case warp_kind::vote_any: return "any_sync";
  case warp_kind::vote_uni: return "eq_sync";
  case warp_kind::vote_ballot: return "ballot_sync";
  case warp_kind::syncwarp: return "syncwarp";
  case warp_kind::activemask: return "activemask";
  }
  return "a warp operation";
}

bool block_run::complete_warp_operations() {
  bool progress = false;
  const std::uint32_t warps = static_cast<std::uint32_t>((threads_.size() + 31) / 32);
  for (std::uint32_t w = 0; w < warps; ++w) {
    const std::size_t first = std::size_t{w} * 32, last = std::min(first + 32, threads_.size());
    std::uint32_t waiting = 0;
    bool activemask = false;
    for (std::size_t i = first; i < last; ++i)
      if (threads_[i].status == thread_status::warp) {
        activemask = activemask || threads_[i].op == warp_kind::activemask;
        waiting |= 1u << threads_[i].lane();
      }
    if (!waiting) continue;
    if (activemask) {
      // Lanes a step behind at a volatile access reach it with the others, as in lockstep;
      // for a while only, as one may be spinning for a lane that waits here.
      constexpr std::uint8_t lockstep_rounds = 64;
      const bool behind = std::any_of(
          threads_.begin() + static_cast<std::ptrdiff_t>(first), threads_.begin() + static_cast<std::ptrdiff_t>(last),
          [](const sim_thread &t) { return t.status == thread_status::runnable && t.at_volatile; });
      if (behind && activemask_waits_[w] < lockstep_rounds) {
        ++activemask_waits_[w];
        continue;
      }
      activemask_waits_[w] = 0;
      complete_activemask(first, last);
      progress = true;
      continue;
    }
    // Lanes complete in groups, as PTX's .sync operations do on sm_70 and later: a lane waits
    // until every lane its mask names (itself included) that has not exited (CUDA: lanes a
    // partial warp does not have, or that have exited, do not take part) waits at an
    // operation of the same kind with the same mask, at this call or another. A named lane at
    // another operation, or with another mask, is not there yet (it skipped a branch and waits
    // at a later one, which the others reach after this one); lanes of other branches, with
    // masks of their own, complete apart (a ballot of lanes 0-15 beside a shuffle of lanes
    // 16-31). Lanes that never meet are reported when nothing else can run.
    std::uint32_t pending = waiting;
    while (pending) {
      const sim_thread &lead = threads_[first + static_cast<std::size_t>(std::countr_zero(pending))];
      const std::uint32_t group = (lead.mask | (1u << lead.lane())) & active_lanes(w);
      bool met = (group & waiting) == group;
      for (std::uint32_t lanes = group; met && lanes; lanes &= lanes - 1) {
        const sim_thread &t = threads_[first + static_cast<std::size_t>(std::countr_zero(lanes))];
        met = t.op == lead.op && ((t.mask | (1u << t.lane())) & active_lanes(w)) == group;
      }
      if (!met) {
        pending &= ~(1u << lead.lane());
        continue;
      }
      complete_warp_group(first, last, group);
      pending &= ~group;
      progress = true;
    }
  }
  return progress;
}

// The lanes `group` of the warp at threads_[first, last), all waiting at one warp operation,
// get its results and run on.
void block_run::complete_warp_group(std::size_t first, std::size_t last, std::uint32_t group) {
  const auto in_group = [&](std::size_t j) {
    return j < last && ((group >> static_cast<std::uint32_t>(j - first)) & 1u) != 0;
  };
  std::uint32_t ballot = 0;
  for (std::size_t i = first; i < last; ++i)
    if (in_group(i) && threads_[i].value) ballot |= 1u << threads_[i].lane();
  for (std::size_t i = first; i < last; ++i) {
    if (!in_group(i)) continue;
    sim_thread &t = threads_[i];
    const std::uint32_t lane = t.lane();
    const std::int32_t width = t.width > 0 && t.width <= 32 ? t.width : 32;
    const std::uint32_t segment = lane / static_cast<std::uint32_t>(width) * static_cast<std::uint32_t>(width);
    auto value_of = [&](std::int64_t src) -> std::uint32_t {
      const std::size_t j = first + static_cast<std::size_t>(src);
      return j < last && threads_[j].status == thread_status::warp ? threads_[j].value : t.value;
    };
    const std::uint32_t mine = t.mask & group;
    // PTX's shfl.sync reads the lane operand's low 5 bits only (bval = b[4:0]): an offset of
    // 33 moves by 1, where taken whole it would leave the warp and keep the lane's own value.
    const auto offset = static_cast<std::int64_t>(static_cast<std::uint32_t>(t.arg) & 31u);
    switch (t.op) {
    case warp_kind::shfl_idx:
      t.result = value_of(segment + static_cast<std::uint32_t>(t.arg) % static_cast<std::uint32_t>(width));
      break;
    case warp_kind::shfl_up: {
      const std::int64_t src = static_cast<std::int64_t>(lane) - offset;
      t.result = src >= static_cast<std::int64_t>(segment) ? value_of(src) : t.value;
      break;
    }
    case warp_kind::shfl_down: {
      const std::int64_t src = static_cast<std::int64_t>(lane) + offset;
      t.result = src < static_cast<std::int64_t>(segment) + width ? value_of(src) : t.value;
      break;
    }
    case warp_kind::shfl_xor: {
      const std::int64_t src = static_cast<std::int64_t>(lane ^ static_cast<std::uint32_t>(offset));
      t.result = src < static_cast<std::int64_t>(segment) + width ? value_of(src) : t.value;
      break;
    }
    case warp_kind::vote_all: t.result = (ballot & mine) == mine; break;
    case warp_kind::vote_any: t.result = (ballot & mine) != 0; break;
    case warp_kind::vote_uni: t.result = (ballot & mine) == 0 || (ballot & mine) == mine; break;
    case warp_kind::vote_ballot: t.result = ballot & mine; break;
    case warp_kind::syncwarp:
      t.result = 0;
      // Orders this lane's accesses with those of the lanes its mask names.
      ++seq_;
      t.sync.last_syncwarp = seq_;
      for (std::uint32_t lanes = mine; lanes; lanes &= lanes - 1)
        t.sync.with_lane[static_cast<std::size_t>(std::countr_zero(lanes))] = seq_;
      break;
    case warp_kind::activemask: break; // completed by complete_activemask
    }
  }
  // Results are all taken before any lane runs on (a shuffle reads the others' values).
  for (std::size_t i = first; i < last; ++i)
    if (in_group(i)) threads_[i].status = thread_status::runnable;
}

// The lanes of a warp waiting at activemask get those of them at the same call: the lanes
// that reached it together, without those of another branch.
void block_run::complete_activemask(std::size_t first, std::size_t last) {
  for (std::size_t i = first; i < last; ++i) {
    sim_thread &t = threads_[i];
    if (t.status != thread_status::warp || t.op != warp_kind::activemask) continue;
    std::uint32_t converged = 0;
    for (std::size_t j = first; j < last; ++j)
      if (threads_[j].status == thread_status::warp && threads_[j].op == warp_kind::activemask &&
          threads_[j].site == t.site)
        converged |= 1u << threads_[j].lane();
    t.result = converged;
  }
  for (std::size_t i = first; i < last; ++i)
    if (threads_[i].status == thread_status::warp && threads_[i].op == warp_kind::activemask)
      threads_[i].status = thread_status::runnable;
}

bool block_run::complete_barrier() {
  std::vector<std::uint32_t> waiting, exited, elsewhere;
  for (const sim_thread &t : threads_) {
    if (t.status == thread_status::runnable) return false; // a thread that gave way runs on
    if (t.status == thread_status::barrier)
      waiting.push_back(t.linear);
    else if (t.status == thread_status::done)
      exited.push_back(t.linear);
    else
      elsewhere.push_back(t.linear);
  }
  if (waiting.empty()) return false;
  auto site = [&](std::uint32_t i) {
    const sim_thread &t = threads_[i];
    return std::string(t.barrier_file ? t.barrier_file : "?") + ":" + std::to_string(t.barrier_line);
  };
  // Two barriers of one line are told apart by their columns.
  auto same_site = [&](std::uint32_t i, std::uint32_t j) {
    const sim_thread &a = threads_[i], &b = threads_[j];
    return a.barrier_file == b.barrier_file && a.barrier_line == b.barrier_line && a.barrier_column == b.barrier_column;
  };
  auto column_site = [&](std::uint32_t i) { return site(i) + ":" + std::to_string(threads_[i].barrier_column); };
  // "thread (0,0,0) waits", "threads (0,0,0), (2,0,0) wait".
  auto waiting_threads = [&](const std::vector<std::uint32_t> &threads) {
    return describe(threads) + (threads.size() == 1 ? " waits" : " wait");
  };
  if (!exited.empty()) {
    fail_block("divergent syncthreads: " + waiting_threads(waiting) + " at the barrier at " + site(waiting.front()) +
               " but " + describe(exited) + " exited without reaching it");
    return false;
  }
  if (!elsewhere.empty()) {
    fail_block("divergent syncthreads: " + waiting_threads(waiting) + " at the barrier at " + site(waiting.front()) +
               " while " + waiting_threads(elsewhere) + " at a warp operation");
    return false;
  }
  for (std::uint32_t i : waiting)
    if (!same_site(i, waiting.front())) {
      std::vector<std::uint32_t> here, there;
      for (std::uint32_t j : waiting) (same_site(j, waiting.front()) ? here : there).push_back(j);
      const bool one_line = site(here.front()) == site(there.front());
      const auto where = [&](std::uint32_t j) { return one_line ? column_site(j) : site(j); };
      fail_block("divergent syncthreads: " + waiting_threads(here) + " at the barrier at " + where(here.front()) +
                 " but " + describe(there) + " at the one at " + where(there.front()));
      return false;
    }
  int count = 0;
  for (std::uint32_t i : waiting) count += threads_[i].predicate != 0;
  const int n = static_cast<int>(waiting.size());
  for (std::uint32_t i : waiting) {
    sim_thread &t = threads_[i];
    switch (t.barrier) {
    case barrier_kind::plain: t.barrier_result = 0; break;
    case barrier_kind::count: t.barrier_result = count; break;
    case barrier_kind::all: t.barrier_result = count == n; break;
    case barrier_kind::any: t.barrier_result = count > 0; break;
    }
    t.status = thread_status::runnable;
  }
  last_barrier_ = ++seq_;
  return true;
}

namespace {
void thread_entry(void *arg) {
  auto *t = static_cast<sim_thread *>(arg);
  // Host code a kernel calls (a host implementation of a CUDA-C function, say) may throw:
  // the exception must not leave the fiber, and the thread must not suspend while it is
  // being handled (the C++ runtime keeps the handled exceptions per OS thread). It reaches
  // the launch's caller as thrown, whatever its type or message, as on the CPU targets.
  std::exception_ptr thrown;
  try {
    t->block->launch.entry(t->block->launch.params);
  } catch (...) {
    thrown = std::current_exception();
  }
  // Moved out: the emptied pointer holds nothing in the frame the fiber is abandoned in.
  if (thrown) t->fail_with(std::move(thrown));
  t->status = thread_status::done;
}
} // namespace

void block_run::run() {
  for (sim_thread &t : threads_) {
    t.body = std::make_unique<fiber>(stacks_, &thread_entry, &t);
    t.races = races_;
    t.stack_low = t.body->stack_low();
    t.stack_size = stacks_.size();
  }
  // Rounds in which the threads only gave way (spinning, or computing in long loops), and
  // since when: after a while the launch is told, in case they wait for a block not started.
  std::uint64_t idle_rounds = 0;
  auto idle_since = std::chrono::steady_clock::now();
  bool stall_told = false;
  std::size_t done_before = 0;
  const auto progressed = [&] {
    idle_rounds = 0;
    stall_told = false;
  };
  while (!launch.failed.load(std::memory_order_relaxed)) {
    bool gave_way = false;
    std::size_t done = 0;
    for (sim_thread &t : threads_) {
      if (t.status == thread_status::runnable) {
        set_current_thread(&t.ctx);
        t.body->resume();
        set_current_thread(outer_);
        if (t.overflowed) {
          t.fail_overflow();
          return;
        }
        if (t.fault_signal) {
          t.fail_fault();
          return;
        }
        if (launch.failed.load(std::memory_order_relaxed)) return;
        gave_way = gave_way || t.status == thread_status::runnable;
      }
      done += t.status == thread_status::done;
    }
    if (done == threads_.size()) return;
    if (done != done_before) {
      done_before = done;
      progressed();
    }
    if (complete_warp_operations()) {
      progressed();
      continue;
    }
    if (launch.failed.load(std::memory_order_relaxed)) return;
    if (complete_barrier()) {
      progressed();
      continue;
    }
    if (launch.failed.load(std::memory_order_relaxed)) return;
    if (gave_way) {
      if (idle_rounds++ == 0) idle_since = std::chrono::steady_clock::now();
      if (idle_rounds % 64 == 0) {
        const auto waited = std::chrono::steady_clock::now() - idle_since;
        // Told once when it stalls, and again after a while (past the threads' limit).
        if (waited > std::chrono::milliseconds(20) && (!stall_told || waited > std::chrono::seconds(5))) {
          stall_told = true;
          launch.block_stalled(waited);
        }
      }
      continue;
    }
    // Who waits where, by operation and mask, in the order the threads come.
    std::vector<std::pair<std::string, std::vector<std::uint32_t>>> stuck;
    for (const sim_thread &t : threads_) {
      if (t.status != thread_status::warp) continue;
      const std::string at = std::string(warp_operation_name(t.op)) + " with mask " + hex_mask(t.mask);
      auto it = std::find_if(stuck.begin(), stuck.end(), [&](const auto &s) { return s.first == at; });
      if (it == stuck.end()) it = stuck.insert(stuck.end(), {at, {}});
      it->second.push_back(t.linear);
    }
    std::string where;
    for (const auto &[at, linear] : stuck) where += (where.empty() ? "" : "; ") + describe(linear) + " at " + at;
    fail_block("threads wait for each other forever: " + where +
               " (a warp operation's lanes never all arrive: each waits for every lane its mask names, not exited, "
               "at an operation of the same kind with the same mask)");
    return;
  }
}

// Read at each launch, as the stack setting is: a program (or a test) may change it between
// launches.
bool races_enabled() {
  return switch_setting("KERNEL_SIMULATOR_RACES", "run the simulator's race checks").value_or(true);
}

void run(const detail::kernel_ref &k, const void *params, const detail::launch_config &config,
         const kernel_entry *registered, std::vector<allocation> global) {
  // The kernel's shared arrays count against the block's shared memory before they are
  // reached, as on a GPU: a launch with too much dynamic memory is refused before it writes.
  launch_limits limits = gpu_limits;
  if (registered) limits.static_shared = registered->static_shared;
  check_launch(k.name, config, limits, "the simulator");
  const std::size_t stack = stack_pool::rounded(stack_bytes()); // what each thread gets
  // A GPU thread has at most 512 KiB of local memory (CUDA's limit on every architecture):
  // a kernel whose local arrays need more fails to launch there, so it does here too,
  // whatever stack the simulator could give.
  constexpr std::uint32_t gpu_local_bytes = 512 * 1024;
  if (registered && registered->simulator_min_stack > gpu_local_bytes)
    throw simulator_error("kernel '" + std::string(k.name) + "': its threads need more than " +
                          std::to_string(registered->simulator_min_stack / 1024) +
                          " KiB of local memory each (their local arrays), more than the 512 KiB a GPU thread may "
                          "have: the launch would fail on a GPU (use global memory, or shared memory for the block)");
  // Refused before any thread runs (and writes): a thread could only overflow.
  if (registered && registered->simulator_min_stack > stack) {
    const std::uint32_t need = registered->simulator_min_stack;
    throw simulator_error("kernel '" + std::string(k.name) + "': its threads need " +
                          (need % 1024 ? "more than " : "at least ") + std::to_string(need / 1024) +
                          " KiB of stack (their local arrays), more than each simulated thread's stack of " +
                          std::to_string(stack / 1024) + " KiB; KERNEL_SIMULATOR_STACK_KB sets its size");
  }
  // Kernels compiled with the plugin come with a copy instrumented for the race checks.
  const void *instrumented = registered ? registered->simulator_entry : nullptr;
  // A launch of one thread cannot race; nor is there anything to see without the
  // instrumented copy of the kernel.
  const bool many_threads = config.grid.count() * config.block.count() > 1;
  // Every setting is read at every launch, whatever its shape, so that a malformed one is an
  // error at the first launch, not only at the first of a shape that needs it.
  const bool races_on = races_enabled();
  (void)serial();
  if (races_on) (void)race_detector::shadow_budget();
  std::unique_ptr<race_detector> races;
  if (instrumented && many_threads && races_on)
    races = std::make_unique<race_detector>(std::string(k.name), config.grid, config.block, std::move(global));
  // The instrumented copy also with the checks off, and for a launch of one thread: it gives
  // way at loop back-edges, without which threads spinning on each other's flags never finish
  // (its access hooks check only the alignment without a detector), and converts floats to
  // integers as a GPU does. The copy has the entry's C++ signature, void(const Params &): a
  // pointer at the ABI level, as `invoke` takes.
  auto *entry = instrumented ? reinterpret_cast<void (*)(const void *)>(const_cast<void *>(instrumented)) : k.invoke;
  launch_state launch{k, params, config, entry, races.get()};

  const dim3 grid = config.grid;
  const std::uint64_t blocks = grid.count();
  launch.blocks = blocks;
  auto run_block = [&](std::uint64_t b) {
    if (launch.failed.load(std::memory_order_relaxed)) return;
    install_fault_handler(&on_thread_fault);
    thread_local std::unique_ptr<stack_pool> stacks;
    if (!stacks || stacks->size() != stack_pool::rounded(stack)) stacks = std::make_unique<stack_pool>(stack);
    const dim3 idx(static_cast<std::uint32_t>(b % grid.x), static_cast<std::uint32_t>(b / grid.x % grid.y),
                   static_cast<std::uint32_t>(b / (std::uint64_t{grid.x} * grid.y)));
    // The block's simulated threads are fibers of this thread: they see the flag.
    struct simulating {
      int saved = __kernel_simulating;
      simulating() { __kernel_simulating = 1; }
      ~simulating() { __kernel_simulating = saved; }
    } scope;
    block_run block(launch, idx, *stacks);
    block.run();
  };
  launch.run_blocks = [&] {
    for (std::uint64_t b; !launch.failed.load(std::memory_order_relaxed) &&
                          (b = launch.next_block.fetch_add(1, std::memory_order_relaxed)) < blocks;) {
      try {
        try {
          run_block(b);
        } catch (const std::bad_alloc &) {
          // The stacks of the block's threads (mmap), or the block's own memory: the kernel and
          // the block named, not a bare std::bad_alloc from deep inside the simulator.
          throw simulator_error("kernel '" + std::string(k.name) + "': the simulator could not get memory for block " +
                                std::to_string(b) + " (" + std::to_string(config.block.count()) +
                                " threads with a stack of " + std::to_string(stack / 1024) +
                                " KiB each; the process may have reached its memory or its number of mappings, "
                                "vm.max_map_count): run fewer launches at once, or smaller blocks");
        }
      } catch (...) {
        // Failing the launch stops the other blocks (the ones waiting for this one too).
        launch.fail(std::current_exception());
      }
    }
  };
  // Extra threads (block_stalled) are joined however the launch ends.
  struct joined {
    launch_state &l;
    ~joined() { l.join_extra_threads(); }
  } join_extras{launch};
  if (blocks == 1 || serial()) {
    launch.run_blocks();
  } else {
    const std::uint64_t workers =
        std::min<std::uint64_t>(blocks, static_cast<std::uint64_t>(oneapi::tbb::this_task_arena::max_concurrency()));
    launch.workers = workers;
#ifdef KERNEL_SIM_TSAN
    // oneTBB is not instrumented: its hand-over and join are told to TSan as release and
    // acquire on one token.
    int handover = 0;
    __tsan_release(&handover);
    oneapi::tbb::parallel_for(std::uint64_t{0}, workers, [&](std::uint64_t) {
      __tsan_acquire(&handover);
      launch.run_blocks();
      __tsan_release(&handover);
    });
    __tsan_acquire(&handover);
#else
    oneapi::tbb::parallel_for(std::uint64_t{0}, workers, [&](std::uint64_t) { launch.run_blocks(); });
#endif
  }
  launch.join_extra_threads();
  if (launch.exception) std::rethrow_exception(launch.exception);
  if (launch.failed.load()) throw simulator_error(launch.error);
  if (races && races->any()) throw simulator_error(races->report());
  if (races && races->ran_out_of_shadow())
    std::fprintf(stderr,
                 "kernel '%.*s' on the simulator: its race checks stopped part way, their shadow of global memory "
                 "having reached %zu MiB (KERNEL_SIMULATOR_RACE_MEMORY_MB; 12 bytes a byte the kernel touches): "
                 "no race was found before; run it on less data to check it all, or KERNEL_SIMULATOR_RACES=0\n",
                 static_cast<int>(std::string_view(k.name).size()), std::string_view(k.name).data(),
                 races->budget() >> 20);
}

} // namespace kernel::runtime::sim
