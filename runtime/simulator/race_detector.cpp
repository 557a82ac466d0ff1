// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "simulator/race_detector.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <optional>

#include "device/immortal.h"
#include "settings/environment.h"

namespace kernel::runtime::sim {

namespace {
std::string dims_string(std::uint64_t x, std::uint64_t y, std::uint64_t z) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}
constexpr std::size_t max_reported = 4;
} // namespace

race_detector::race_detector(std::string kernel, dim3 grid, dim3 block, std::vector<allocation> global)
    : kernel_(std::move(kernel)), grid_(grid), block_(block), block_threads_(static_cast<std::uint32_t>(block.count())),
      budget_(shadow_budget()) {
  std::sort(global.begin(), global.end(), [](const allocation &a, const allocation &b) { return a.begin < b.begin; });
  global_.reserve(global.size());
  if (!global.empty()) {
    global_begin_ = global.front().begin;
    for (const allocation &a : global) global_end_ = std::max(global_end_, a.begin + a.bytes);
  }
  for (const allocation &a : global)
    global_.push_back({a, std::make_unique<std::atomic<chunk *>[]>((a.bytes + chunk_bytes - 1) / chunk_bytes)});
}

namespace {
// Global memory's shadow held by the launches running now, against shadow_budget().
std::atomic<std::size_t> shadow_in_use{0};
} // namespace

// Read at each launch, as the other settings of the simulator are.
std::size_t race_detector::shadow_budget() {
  static const std::uint64_t quarter = [] {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 4
                                 : std::uint64_t{4} << 30;
  }();
  const std::optional<std::uint64_t> mb =
      whole_number_setting("KERNEL_SIMULATOR_RACE_MEMORY_MB", 1, std::uint64_t{1} << 30,
                           "the memory in MiB the simulator's race checks may use to shadow global memory");
  return static_cast<std::size_t>(mb ? *mb << 20 : quarter);
}

bool race_detector::reserve_shadow(std::size_t bytes) {
  if (out_of_shadow_.load(std::memory_order_relaxed)) return false;
  const std::size_t budget = budget_;
  std::size_t used = shadow_in_use.load(std::memory_order_relaxed);
  do {
    if (bytes > budget - std::min(budget, used)) {
      out_of_shadow_.store(true, std::memory_order_relaxed);
      return false;
    }
  } while (!shadow_in_use.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

race_detector::~race_detector() {
  std::size_t held = 0;
  for (global_region &r : global_)
    for (std::size_t i = 0, n = (r.memory.bytes + chunk_bytes - 1) / chunk_bytes; i < n; ++i)
      if (chunk *c = r.chunks[i].load(std::memory_order_relaxed)) {
        held += sizeof(chunk) + (c->bytes ? chunk_bytes * sizeof(cell) : 0);
        recycle(c);
      }
  shadow_in_use.fetch_sub(held, std::memory_order_relaxed);
}

namespace {
// Spare shadow memory: global chunks for any launch (up to about 63 MB kept: 48 of word
// cells, 12 of byte cells), shared-array cells for the blocks this host thread runs.
constexpr std::size_t max_spare_chunks = 1024, max_spare_regions = 16;
// Of which so many keep the cells of split words (four times a chunk's own).
constexpr std::size_t max_spare_byte_cells = 64;
thread_local std::vector<std::vector<race_detector::cell>> spare_regions;
} // namespace

struct race_detector::spare_chunks {
  std::mutex mutex;
  std::vector<std::unique_ptr<chunk>> chunks;
};

race_detector::spare_chunks &race_detector::spares() {
  // Never destroyed: a static object of the program may launch a kernel while it exits, after
  // this pool, made at the first launch, would be gone.
  static immortal<spare_chunks> pool;
  return pool.get();
}

race_detector::chunk *race_detector::new_chunk() {
  {
    spare_chunks &pool = spares();
    std::lock_guard lock(pool.mutex);
    if (!pool.chunks.empty()) {
      chunk *c = pool.chunks.back().release();
      pool.chunks.pop_back();
      c->reset();
      return c;
    }
  }
  return new chunk();
}

void race_detector::recycle(chunk *c) noexcept {
  std::unique_ptr<chunk> owned(c);
  spare_chunks &pool = spares();
  std::lock_guard lock(pool.mutex);
  if (pool.chunks.size() >= max_spare_chunks) return;
  if (pool.chunks.size() >= max_spare_byte_cells) owned->bytes.reset();
  pool.chunks.push_back(std::move(owned));
}

void race_detector::chunk::reset() noexcept {
  std::fill(std::begin(words), std::end(words), cell{});
  std::fill(std::begin(split), std::end(split), 0);
}

std::string race_detector::thread_name(std::uint64_t block, std::uint32_t thread) const {
  const std::uint64_t gx = grid_.x, gy = grid_.y;
  return "thread " + dims_string(thread % block_.x, thread / block_.x % block_.y, thread / (block_.x * block_.y)) +
         " of block " + dims_string(block % gx, block / gx % gy, block / (gx * gy));
}

void race_detector::check(cell &c, const accessor &who, bool write, bool atomic, const place &at, std::size_t bytes,
                          const char *where, bool &reported) {
  const std::uint32_t me = who.thread + 1;
  const std::uint32_t my_warp = who.thread / 32;
  // An earlier access of thread `other` (+ 1) of `block` at `seq` is ordered before this one
  // by a barrier since, or by a syncwarp since that both took part in.
  auto ordered = [&](std::uint64_t block, std::uint32_t other, std::uint64_t seq, bool atomic_write = false) {
    if (block != who.block) return acquired_before(who, block, other, seq, atomic_write);
    if (other == me || who.last_barrier > seq) return true;
    if ((other - 1) / 32 == my_warp && who.sync->with_lane[(other - 1) % 32] > seq) return true;
    // Threads of one block ordered as those of two are: a fence and an atomic (a lock).
    return acquired_before(who, block, other, seq, atomic_write);
  };
  auto readers_ordered = [&] {
    // Readers of several blocks: which they were is not kept, so only a writer that acquired
    // something (an atomic after another block's fence) may be ordered after them; one that
    // acquired nothing is ordered after no other block at all.
    if (c.reader_block == several_blocks) return who.acquired && !who.acquired->empty();
    if (c.reader != several) return ordered(c.reader_block, c.reader, c.reader_seq);
    if (c.reader_block != who.block) return acquired_before(who, c.reader_block, several, c.reader_seq);
    if (who.last_barrier > c.reader_seq) return true;
    bool warp_ordered = c.reader_warp == my_warp;
    for (std::uint32_t lanes = c.reader_lanes & ~(1u << who.thread % 32); warp_ordered && lanes; lanes &= lanes - 1)
      if (who.sync->with_lane[static_cast<std::size_t>(std::countr_zero(lanes))] <= c.reader_seq) warp_ordered = false;
    return warp_ordered || acquired_before(who, c.reader_block, several, c.reader_seq);
  };
  // Atomics do not race with atomics: an atomic access is checked against the plain ones.
  if (!reported) {
    if (c.writer && !(atomic && c.writer_atomic) && !ordered(c.writer_block, c.writer, c.writer_seq, c.writer_atomic)) {
      reported = true;
      report_race(who, write, atomic, at, bytes, where, true, c.writer_atomic, c.writer_block, c.writer - 1u,
                  c.writer_seq);
    } else if (write && c.reader && !(atomic && !c.plain_read) && !readers_ordered()) {
      reported = true;
      report_race(who, write, atomic, at, bytes, where, false, !c.plain_read, c.reader_block,
                  c.reader == several ? several : c.reader - 1, c.reader_seq);
    }
  }
  if (write) {
    c.writer = me;
    c.writer_atomic = atomic;
    c.plain_read = 0;
    c.writer_block = who.block;
    c.writer_seq = who.seq;
    c.reader = 0;
    c.reader_block = 0;
    return;
  }
  // A reader set is all plain or all atomic, so that an atomic write is checked against
  // plain readers only: an atomic read joins no plain readers (they are what a later write
  // must be ordered after), and a plain read starts a set of its own.
  if (c.reader && c.plain_read == atomic) {
    if (atomic) return;
    c.reader = 0;
    c.reader_block = 0;
  }
  if (c.reader && c.reader_block == several_blocks) {
    c.reader_seq = std::max(c.reader_seq, who.seq);
  } else if (c.reader && c.reader_block != who.block) {
    // A second block's read: both stay readers until the next write (replacing the first
    // hid its race with a later write of the second block).
    c.reader = several;
    c.reader_block = several_blocks;
    c.reader_warp = several;
    c.reader_seq = std::max(c.reader_seq, who.seq);
  } else if (!c.reader || who.last_barrier > c.reader_seq) {
    c.reader = me;
    c.plain_read = !atomic;
    c.reader_block = who.block;
    c.reader_seq = who.seq;
  } else if (c.reader == me) {
    c.reader_seq = who.seq;
  } else {
    if (c.reader != several) {
      c.reader_warp = (c.reader - 1) / 32;
      c.reader_lanes = 1u << (c.reader - 1) % 32;
      c.reader = several;
    }
    if (c.reader_warp == my_warp)
      c.reader_lanes |= 1u << who.thread % 32;
    else
      c.reader_warp = several;
    c.reader_seq = std::max(c.reader_seq, who.seq);
  }
}

bool race_detector::acquired_before(const accessor &who, std::uint64_t block, std::uint32_t other, std::uint64_t seq,
                                    bool atomic_write) {
  if (!who.acquired || who.acquired->empty()) return false;
  std::lock_guard lock(releases_mutex_);
  for (const acquisition &a : *who.acquired) {
    if (a.thread != who.thread && who.last_barrier <= a.seq) continue; // not seen by this thread yet
    const auto at = releases_.find(a.address);
    if (at == releases_.end()) continue;
    const auto from = at->second.by_block.find(block);
    if (from == at->second.by_block.end()) continue;
    for (const release_at &r : from->second)
      // The releasing atomic itself is stamped with its fence's number: an atomic write of
      // the releasing thread at that number is released (the flag a later plain access resets).
      if (r.index < a.count &&
          (seq < r.barrier || (other == r.thread + 1 && (seq < r.fence || (atomic_write && seq == r.fence)))))
        return true;
  }
  return false;
}

void race_detector::release(const accessor &who, std::uintptr_t address) {
  // Device memory only: shared arrays' atomics order nothing between blocks (and the memory
  // of one may be another block's later).
  if (address < global_begin_ || address >= global_end_) return;
  std::lock_guard lock(releases_mutex_);
  any_release_.store(true, std::memory_order_release);
  address_releases &here = releases_[address];
  std::vector<release_at> &mine = here.by_block[who.block];
  // A thread repeating its atomics after one fence releases the same once.
  if (mine.empty() || mine.back().thread != who.thread || mine.back().fence != who.sync->fence)
    mine.push_back({here.count++, who.thread, who.sync->fence, who.sync->barrier_at_fence});
}

void race_detector::acquire(const accessor &who, std::uintptr_t address, std::vector<acquisition> &acquired) {
  if (!any_release_.load(std::memory_order_acquire) || address < global_begin_ || address >= global_end_) return;
  std::size_t count;
  {
    std::lock_guard lock(releases_mutex_);
    const auto here = releases_.find(address);
    if (here == releases_.end() || here->second.count == 0) return;
    count = here->second.count;
  }
  // One entry per address and thread (a thread polling a flag acquires again and again), and
  // one for the whole block: an entry older than the block's last barrier is seen by all its
  // threads, and goes there.
  constexpr std::uint32_t whole_block = 0xffffffffu;
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t own = none, block = none;
  for (std::size_t i = 0; i < acquired.size(); ++i)
    if (acquired[i].address == address) {
      if (acquired[i].thread == who.thread) own = i;
      if (acquired[i].thread == whole_block) block = i;
    }
  if (own == none) {
    acquired.push_back({address, count, who.thread, who.seq});
    return;
  }
  if (acquired[own].seq < who.last_barrier) {
    if (block != none)
      acquired[block].count = std::max(acquired[block].count, acquired[own].count);
    else
      acquired.push_back({address, acquired[own].count, whole_block, 0});
  }
  acquired[own].count = count;
  acquired[own].seq = who.seq;
}

void race_detector::report_race(const accessor &who, bool write, bool atomic, const place &at, std::size_t bytes,
                                const char *where, bool other_wrote, bool other_atomic, std::uint64_t other_block,
                                std::uint32_t other_thread, std::uint64_t other_seq) {
  total_races_.fetch_add(1, std::memory_order_relaxed);
  const std::string memory =
      "a " + std::to_string(at.memory_bytes) + (at.shared ? "-byte shared array" : "-byte device allocation");
  const std::string key = std::string(where ? where : "") + (write ? "w" : "r") + (other_wrote ? "w" : "r") +
                          (atomic ? "a" : "") + (other_atomic ? "a" : "") + (other_thread == several ? "s" : "") +
                          memory;
  std::lock_guard lock(races_mutex_);
  if (races_.size() >= max_reported || std::find(seen_.begin(), seen_.end(), key) != seen_.end()) return;
  seen_.push_back(key);
  std::string what = thread_name(who.block, who.thread) + (atomic ? " atomically" : "") +
                     (write ? " writes " : " reads ") + std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes") +
                     " at offset " + std::to_string(at.offset) + " of " + memory + " that ";
  what += other_block == several_blocks ? "threads of several blocks read"
          : other_thread == several     ? "other threads read"
                                        : thread_name(other_block, other_thread) + (other_wrote ? " wrote" : " read");
  if (other_atomic) what += " atomically";
  if (atomic != other_atomic) what += " (an atomic and a plain access of the same bytes race as two plain ones do)";
  if (other_block != who.block) {
    what += " (threads of different blocks cannot synchronise within a launch; use atomics)";
  } else {
    what += ", with no syncthreads between them";
    // Say why a syncwarp in between did not order them.
    if (who.sync->last_syncwarp > other_seq)
      what += other_thread != several && other_thread / 32 == who.thread / 32
                  ? ", and the syncwarp between them does not name both"
                  : " (a syncwarp orders only the lanes of one warp)";
  }
  if (where) what += " (at " + std::string(where) + ")";
  races_.push_back(std::move(what));
}

race_detector::chunk *race_detector::chunk_at(global_region &r, std::size_t index) {
  std::atomic<chunk *> &slot = r.chunks[index];
  chunk *c = slot.load(std::memory_order_acquire);
  if (c) return c;
  if (!reserve_shadow(sizeof(chunk))) return nullptr;
  chunk *fresh = nullptr;
  try {
    fresh = new_chunk();
  } catch (...) { // the reservation is given back: later launches keep the whole budget
    shadow_in_use.fetch_sub(sizeof(chunk), std::memory_order_relaxed);
    throw;
  }
  // A spare may come with the cells of split words, made before: counted, not refused.
  const std::size_t byte_cells = fresh->bytes ? chunk_bytes * sizeof(cell) : 0;
  shadow_in_use.fetch_add(byte_cells, std::memory_order_relaxed);
  if (slot.compare_exchange_strong(c, fresh, std::memory_order_acq_rel)) return fresh;
  recycle(fresh); // another thread made it first
  shadow_in_use.fetch_sub(sizeof(chunk) + byte_cells, std::memory_order_relaxed);
  return c;
}

void race_detector::global_access(const accessor &who, std::uintptr_t address, std::size_t bytes, bool write,
                                  const char *where, bool atomic) {
  if (address - global_begin_ >= global_end_ - global_begin_) return; // not device memory
  if (out_of_shadow_.load(std::memory_order_relaxed)) return;
  auto it = std::upper_bound(global_.begin(), global_.end(), address,
                             [](std::uintptr_t a, const global_region &r) { return a < r.memory.begin; });
  if (it == global_.begin()) return;
  global_region &r = *std::prev(it);
  const std::size_t offset = address - r.memory.begin;
  if (offset >= r.memory.bytes) return;
  const std::size_t end = std::min(r.memory.bytes, offset + bytes);
  const place at{false, r.memory.bytes, offset};
  bool reported = false;
  for (std::size_t i = offset; i < end;) {
    const std::size_t index = i / chunk_bytes, base = index * chunk_bytes, stop = std::min(end, base + chunk_bytes);
    chunk *c = chunk_at(r, index);
    if (!c) return;
    std::lock_guard lock(*c);
    check_bytes(*c, i - base, stop - base, who, write, atomic, at, bytes, where, reported);
    i = stop;
  }
}

void race_detector::check_bytes(chunk &c, std::size_t first, std::size_t end, const accessor &who, bool write,
                                bool atomic, const place &at, std::size_t bytes, const char *where, bool &reported) {
  // The bytes of an access usually share their history (the same accesses made them): the
  // first cell is checked, and the others given the same outcome when they were alike.
  cell *lead = nullptr;
  cell before;
  auto visit = [&](cell &x) {
    if (lead && x == before) {
      x = *lead;
      return;
    }
    if (!lead) {
      before = x;
      lead = &x;
    }
    check(x, who, write, atomic, at, bytes, where, reported);
  };
  for (std::size_t w = first / word_bytes; w * word_bytes < end; ++w) {
    const std::size_t lo = std::max(first, w * word_bytes), hi = std::min(end, (w + 1) * word_bytes);
    if (!c.is_split(w)) {
      if (hi - lo == word_bytes) {
        visit(c.words[w]);
        continue;
      }
      // Only some of the word's bytes: from now on each has its history.
      if (!c.bytes) {
        if (!reserve_shadow(chunk_bytes * sizeof(cell))) return;
        try {
          c.bytes = std::make_unique<cell[]>(chunk_bytes);
        } catch (...) {
          shadow_in_use.fetch_sub(chunk_bytes * sizeof(cell), std::memory_order_relaxed);
          throw;
        }
      }
      std::fill_n(&c.bytes[w * word_bytes], word_bytes, c.words[w]);
      c.split[w / 64] |= std::uint64_t{1} << w % 64;
    }
    for (std::size_t b = lo; b < hi; ++b) visit(c.bytes[b]);
    // Bytes whose histories agree again share the word's cell.
    cell *own = &c.bytes[w * word_bytes];
    if (std::all_of(own + 1, own + word_bytes, [&](const cell &x) { return x == *own; })) {
      c.words[w] = *own;
      c.split[w / 64] &= ~(std::uint64_t{1} << w % 64);
    }
  }
}

void race_detector::shared_shadow::add_region(std::uintptr_t begin, std::size_t bytes) {
  std::vector<cell> cells;
  if (!spare_regions.empty()) {
    cells = std::move(spare_regions.back());
    spare_regions.pop_back();
  }
  cells.assign(bytes, cell{});
  regions_.push_back(region{begin, bytes, std::move(cells)});
}

race_detector::shared_shadow::~shared_shadow() {
  for (region &r : regions_)
    if (spare_regions.size() < max_spare_regions) spare_regions.push_back(std::move(r.cells));
}

bool race_detector::shared_shadow::access(race_detector &d, const accessor &who, std::uintptr_t address,
                                          std::size_t bytes, bool write, const char *where, bool atomic) {
  for (region &r : regions_) {
    const std::size_t first = address - r.begin; // wraps to a large number below the region
    if (first >= r.bytes) continue;
    const std::size_t end = std::min(r.bytes, first + bytes);
    const place at{true, r.bytes, first};
    bool reported = false;
    // The bytes of an access usually share their history (the same accesses made them):
    // check the first, and give the others the same outcome when they were alike.
    const cell before = r.cells[first];
    d.check(r.cells[first], who, write, atomic, at, bytes, where, reported);
    for (std::size_t i = first + 1; i < end; ++i) {
      if (r.cells[i] == before)
        r.cells[i] = r.cells[first];
      else
        d.check(r.cells[i], who, write, atomic, at, bytes, where, reported);
    }
    return true;
  }
  return false;
}

bool race_detector::any() const { return total_races_.load() > 0; }

std::string race_detector::report() const {
  std::lock_guard lock(races_mutex_);
  if (races_.empty()) return std::string();
  std::string s = "kernel '" + kernel_ + "': data race: " + races_.front();
  const std::size_t total = total_races_.load();
  for (std::size_t i = 1; i < races_.size(); ++i) s += "; and " + races_[i];
  if (total > races_.size()) s += " (" + std::to_string(total) + " racing accesses in all)";
  return s;
}

} // namespace kernel::runtime::sim
