// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cache/cubin_cache.h"
#include "cache/checksum.h"
#include "settings/environment.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>

namespace kernel::runtime {

namespace {

constexpr std::string_view magic = "KERNEL-CUBIN 1\n";

// No cubin comes near this; anything larger at an entry's path is not one of ours.
constexpr std::uint64_t max_entry_bytes = std::uint64_t{1} << 30;

// Temporaries of writers that died (killed between write and rename) are removed after this.
constexpr auto stale_after = std::chrono::minutes(10);

// Whatever is at an entry's path that is not a valid entry: a damaged file, a directory, a
// FIFO or a device someone left there. Removed so that the next store can write the entry.
void remove_entry(const std::filesystem::path &path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(std::filesystem::symlink_status(path, ignored)))
    std::filesystem::remove_all(path, ignored);
  else
    std::filesystem::remove(path, ignored);
}

// The entry's bytes when `path` is a regular file of a plausible size; std::nullopt when
// there is nothing (a miss) or something else (damaged, and removed). Never blocks on a FIFO
// or reads a device without end.
std::optional<std::string> read_entry(const std::filesystem::path &path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    // A loop of symbolic links is in the way of the entry. Anything else is a miss,
    // not damage: another user's entry in a shared directory stays theirs, and a process out
    // of descriptors or memory must not delete an entry other processes read.
    if (errno == ELOOP) remove_entry(path);
    return std::nullopt;
  }
  struct stat st{};
  std::optional<std::string> contents;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= max_entry_bytes) {
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == bytes.size()) contents = std::move(bytes);
  }
  ::close(fd);
  if (!contents) remove_entry(path);
  return contents;
}

// "<entry>.tmp.<pid>.<n>": the temporary a writer renames into place.
std::optional<pid_t> temporary_owner(const std::filesystem::path &file) {
  const std::string name = file.filename().string();
  const std::size_t at = name.find(".cubin.tmp.");
  if (at == std::string::npos) return std::nullopt;
  pid_t pid = 0;
  for (std::size_t i = at + std::string_view(".cubin.tmp.").size(); i < name.size() && name[i] != '.'; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    pid = pid * 10 + (name[i] - '0');
  }
  return pid;
}

// Removes the temporaries of writers that no longer run, or that are older than any write
// takes. Once per process and directory: it lists the directory.
void remove_stale_temporaries(const std::filesystem::path &directory) {
  static std::mutex mutex;
  static std::set<std::filesystem::path> done;
  {
    std::lock_guard lock(mutex);
    if (!done.insert(directory).second) return;
  }
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::optional<pid_t> owner = temporary_owner(it->path());
    if (!owner) continue;
    std::error_code ignored;
    const bool writer_gone = *owner <= 0 || (::kill(*owner, 0) != 0 && errno == ESRCH);
    const auto written = std::filesystem::last_write_time(it->path(), ignored);
    if (writer_gone || (!ignored && now - written > stale_after)) std::filesystem::remove(it->path(), ignored);
  }
}

// 64 bits from the kernel's random source (a clock's and a counter's where there is none).
std::uint64_t unguessable() {
  std::uint64_t value = 0;
  if (::getrandom(&value, sizeof value, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof value)) return value;
  static std::atomic<std::uint64_t> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return static_cast<std::uint64_t>(now) * 0x9E3779B97F4A7C15u + counter++;
}

} // namespace

std::string cubin_key::text() const {
  std::ostringstream s;
  s << "module=" << module_hash << "\nptx=" << ptx_arch << "\narch=sm_" << target_arch;
  for (const std::string &input : link_inputs) s << "\nlink=" << input;
  s << "\nnvjitlink=" << nvjitlink_version << "\ndriver=" << driver_version << "\n";
  return s.str();
}

cubin_cache::cubin_cache(std::filesystem::path directory) : directory_(std::move(directory)) {}

std::filesystem::path cubin_cache::directory_from(const char *kernel_cache_dir, const char *xdg_cache_home,
                                                  const char *home) {
  const auto absolute = [](std::filesystem::path dir) {
    std::error_code ec;
    std::filesystem::path made = std::filesystem::absolute(dir, ec);
    return ec ? std::filesystem::path() : made;
  };
  // Every spelling of off the switch settings take: a cache directory named "OFF" or "0" in
  // the working directory is never what was meant.
  if (kernel_cache_dir && *kernel_cache_dir)
    return means_off(kernel_cache_dir) ? std::filesystem::path() : absolute(kernel_cache_dir);
  // The XDG base directory specification: a relative path there is to be ignored.
  if (xdg_cache_home && *xdg_cache_home == '/') return std::filesystem::path(xdg_cache_home) / "kernel";
  if (home && *home) return absolute(std::filesystem::path(home) / ".cache" / "kernel");
  return {};
}

const cubin_cache &cubin_cache::process() {
  // Decided once: a process that changes directory keeps writing where it began.
  static const cubin_cache cache(
      directory_from(std::getenv("KERNEL_CACHE_DIR"), std::getenv("XDG_CACHE_HOME"), std::getenv("HOME")));
  return cache;
}

std::filesystem::path cubin_cache::path_for(const cubin_key &key) const {
  return directory_ / (hex64(fnv1a(key.text())) + ".cubin");
}

std::optional<std::vector<char>> cubin_cache::load(const cubin_key &key) const {
  if (!enabled()) return std::nullopt;
  const std::filesystem::path path = path_for(key);
  std::optional<std::string> contents = read_entry(path);
  if (!contents) return std::nullopt;
  const std::string &file = *contents;

  // magic, key length, key text, payload length, payload checksum, payload
  auto parse = [&]() -> std::optional<std::vector<char>> {
    std::string_view rest(file);
    if (!rest.starts_with(magic)) return std::nullopt;
    rest.remove_prefix(magic.size());
    auto number = [&](std::uint64_t &value) {
      const std::size_t eol = rest.find('\n');
      if (eol == std::string_view::npos || eol == 0 || eol > 20) return false;
      value = 0;
      for (char c : rest.substr(0, eol)) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<std::uint64_t>(c - '0');
      }
      rest.remove_prefix(eol + 1);
      return true;
    };
    std::uint64_t key_size = 0, payload_size = 0;
    if (!number(key_size) || key_size > rest.size()) return std::nullopt;
    if (rest.substr(0, key_size) != key.text()) return std::nullopt;
    rest.remove_prefix(key_size);
    if (!number(payload_size)) return std::nullopt;
    if (rest.size() < 17 || rest[16] != '\n') return std::nullopt;
    const std::string_view checksum = rest.substr(0, 16);
    rest.remove_prefix(17);
    if (rest.size() != payload_size || hex64(fnv1a(rest)) != checksum) return std::nullopt;
    return std::vector<char>(rest.begin(), rest.end());
  };
  if (auto cubin = parse()) return cubin;
  remove_entry(path); // damaged or another key's: rebuild it
  return std::nullopt;
}

bool cubin_cache::store(const cubin_key &key, std::span<const char> cubin) const {
  if (!enabled()) return false;
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) return false;
  remove_stale_temporaries(directory_);
  const std::string key_text = key.text();
  const std::string_view payload(cubin.data(), cubin.size());
  std::string header(magic);
  header += std::to_string(key_text.size()) + "\n" + key_text + std::to_string(payload.size()) + "\n" +
            hex64(fnv1a(payload)) + "\n";

  // A file larger than the process may write (ulimit -f) would kill it with SIGXFSZ part way:
  // the cache is an optimisation, so the entry is not written.
  if (struct rlimit limit{}; ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
                             header.size() + payload.size() > limit.rlim_cur)
    return false;

  const std::filesystem::path path = path_for(key);
  std::filesystem::path temporary;
  int fd = -1;
  // A new file, never one already there, at a name no one can guess: in a directory other
  // users write, a symbolic link planted at the temporary's name must not lead the write to
  // a file of theirs, nor keep the entry from being written.
  for (int attempt = 0; fd < 0 && attempt < 8; ++attempt) {
    temporary = path;
    temporary += ".tmp." + std::to_string(::getpid()) + "." + hex64(unguessable());
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) return false;
  }
  if (fd < 0) return false;
  const auto write_all = [fd](std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  };
  const bool written = write_all(header) && write_all(payload);
  if (::close(fd) != 0 || !written) {
    std::filesystem::remove(temporary, ec);
    return false;
  }
  std::filesystem::rename(temporary, path, ec);
  std::error_code ignored;
  if (ec && std::filesystem::is_directory(std::filesystem::symlink_status(path, ignored))) {
    remove_entry(path); // a directory in the way: the entry replaces it
    std::filesystem::rename(temporary, path, ec);
  }
  if (ec) {
    std::filesystem::remove(temporary, ec);
    return false;
  }
  return true;
}

} // namespace kernel::runtime
