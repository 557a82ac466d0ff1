#include "simulator/race_detector.h"

#include <algorithm>

namespace kernel::runtime::sim {

namespace {
std::string dims_string(dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}
constexpr std::size_t max_reported = 4;
} // namespace

race_detector::race_detector(std::string kernel, dim3 grid, dim3 block, std::vector<allocation> global)
    : kernel_(std::move(kernel)), grid_(grid), block_(block), block_threads_(static_cast<std::uint32_t>(block.count())),
      global_(std::move(global)), stripes_(stripes) {
  std::sort(global_.begin(), global_.end(), [](const allocation &a, const allocation &b) { return a.begin < b.begin; });
}

std::string race_detector::thread_name(std::uint32_t thread) const {
  const std::uint32_t b = thread / block_threads_, t = thread % block_threads_;
  const dim3 bi(b % grid_.x, b / grid_.x % grid_.y, b / (grid_.x * grid_.y));
  const dim3 ti(t % block_.x, t / block_.x % block_.y, t / (block_.x * block_.y));
  return "thread " + dims_string(ti) + " of block " + dims_string(bi);
}

void race_detector::check(cell &c, const accessor &who, bool write, const std::string &memory, std::size_t offset,
                          std::size_t bytes, const char *where) {
  const std::uint32_t me = who.thread + 1;
  // Ordered: the same block, and a barrier since (an earlier generation).
  auto ordered = [&](std::uint32_t other_block, std::uint32_t epoch) {
    return other_block == who.block && epoch < who.epoch;
  };
  std::string conflict;
  std::uint32_t other = 0;
  if (c.writer && c.writer != me && !ordered((c.writer - 1) / block_threads_, c.writer_epoch)) {
    conflict = "wrote";
    other = c.writer - 1;
  } else if (write && c.reader && c.reader != me && !ordered(c.reader_block, c.reader_epoch)) {
    conflict = c.reader == several ? "several threads read" : "read";
    other = c.reader == several ? several : c.reader - 1;
  }
  if (!conflict.empty()) {
    const std::string key = std::string(where ? where : "") + (write ? "w" : "r") + conflict + memory;
    std::lock_guard lock(races_mutex_);
    ++total_races_;
    if (races_.size() < max_reported && std::find(seen_.begin(), seen_.end(), key) == seen_.end()) {
      seen_.push_back(key);
      std::string what = thread_name(who.thread) + (write ? " writes " : " reads ") + std::to_string(bytes) +
                         " bytes at offset " + std::to_string(offset) + " of " + memory + " that ";
      what += other == several ? "other threads read" : thread_name(other) + " " + conflict;
      what += who.block == (other == several ? who.block : other / block_threads_)
                  ? ", with no syncthreads between them"
                  : " (threads of different blocks cannot synchronise within a launch; use atomics)";
      if (where) what += " (at " + std::string(where) + ")";
      races_.push_back(what);
    }
  }
  if (write) {
    c.writer = me;
    c.writer_epoch = who.epoch;
    c.reader = 0;
  } else if (!c.reader || c.reader_epoch != who.epoch || c.reader_block != who.block) {
    c.reader = me;
    c.reader_epoch = who.epoch;
    c.reader_block = who.block;
  } else if (c.reader != me) {
    c.reader = several;
  }
}

void race_detector::global_access(const accessor &who, std::uintptr_t address, std::size_t bytes, bool write,
                                  const char *where) {
  auto it = std::upper_bound(global_.begin(), global_.end(), address,
                             [](std::uintptr_t a, const allocation &al) { return a < al.begin; });
  if (it == global_.begin()) return;
  const allocation &al = *std::prev(it);
  if (address >= al.begin + al.bytes) return;
  const std::string memory = "a " + std::to_string(al.bytes) + "-byte device allocation";
  for (std::uintptr_t word = address & ~std::uintptr_t{3}; word < address + bytes; word += 4) {
    stripe &s = stripes_[(word >> 6) % stripes];
    std::lock_guard lock(s.mutex);
    check(s.words[word], who, write, memory, static_cast<std::size_t>(word - al.begin), bytes, where);
  }
}

void race_detector::shared_shadow::add_region(std::uintptr_t begin, std::size_t bytes) {
  regions_.push_back(region{begin, bytes, std::vector<cell>(bytes)});
}

bool race_detector::shared_shadow::access(race_detector &d, const accessor &who, std::uintptr_t address,
                                          std::size_t bytes, bool write, const char *where) {
  for (region &r : regions_) {
    if (address < r.begin || address >= r.begin + r.bytes) continue;
    const std::string memory = "a " + std::to_string(r.bytes) + "-byte shared array";
    const std::size_t first = address - r.begin, end = std::min(r.bytes, first + bytes);
    for (std::size_t i = first; i < end; ++i) d.check(r.cells[i], who, write, memory, first, bytes, where);
    return true;
  }
  return false;
}

bool race_detector::any() const {
  std::lock_guard lock(races_mutex_);
  return total_races_ > 0;
}

std::string race_detector::report() const {
  std::lock_guard lock(races_mutex_);
  if (races_.empty()) return std::string();
  std::string s = "kernel '" + kernel_ + "': data race: " + races_.front();
  for (std::size_t i = 1; i < races_.size(); ++i) s += "; and " + races_[i];
  if (total_races_ > races_.size()) s += " (" + std::to_string(total_races_) + " racing accesses in all)";
  return s;
}

} // namespace kernel::runtime::sim
