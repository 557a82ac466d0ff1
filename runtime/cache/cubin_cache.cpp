#include "cache/cubin_cache.h"
#include "cache/checksum.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace kernel::runtime {

namespace {

constexpr std::string_view magic = "KERNEL-CUBIN 1\n";

} // namespace

std::string cubin_key::text() const {
  std::ostringstream s;
  s << "module=" << module_hash << "\nptx=" << ptx_arch << "\narch=sm_" << target_arch;
  for (const std::string &input : link_inputs) s << "\nlink=" << input;
  s << "\nnvjitlink=" << nvjitlink_version << "\ndriver=" << driver_version << "\n";
  return s.str();
}

cubin_cache::cubin_cache(std::filesystem::path directory) : directory_(std::move(directory)) {}

const cubin_cache &cubin_cache::process() {
  static const cubin_cache cache = [] {
    if (const char *dir = std::getenv("KERNEL_CACHE_DIR"))
      return cubin_cache(std::string_view(dir) == "off" ? std::filesystem::path() : std::filesystem::path(dir));
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
      return cubin_cache(std::filesystem::path(xdg) / "kernel");
    if (const char *home = std::getenv("HOME"); home && *home)
      return cubin_cache(std::filesystem::path(home) / ".cache" / "kernel");
    return cubin_cache(std::filesystem::path());
  }();
  return cache;
}

std::filesystem::path cubin_cache::path_for(const cubin_key &key) const {
  return directory_ / (hex64(fnv1a(key.text())) + ".cubin");
}

std::optional<std::vector<char>> cubin_cache::load(const cubin_key &key) const {
  if (!enabled()) return std::nullopt;
  const std::filesystem::path path = path_for(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();

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
  std::error_code ignored;
  std::filesystem::remove(path, ignored); // damaged or another key's: rebuild it
  return std::nullopt;
}

bool cubin_cache::store(const cubin_key &key, std::span<const char> cubin) const {
  if (!enabled()) return false;
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) return false;
  const std::string key_text = key.text();
  const std::string_view payload(cubin.data(), cubin.size());
  std::string header(magic);
  header += std::to_string(key_text.size()) + "\n" + key_text + std::to_string(payload.size()) + "\n" +
            hex64(fnv1a(payload)) + "\n";

  static std::atomic<unsigned> counter{0};
  const std::filesystem::path path = path_for(key);
  std::filesystem::path temporary = path;
  temporary += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    if (!out.flush()) {
      out.close();
      std::filesystem::remove(temporary, ec);
      return false;
    }
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    return false;
  }
  return true;
}

} // namespace kernel::runtime
