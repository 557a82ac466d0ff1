#include "cuda/module_builder.h"

#include <cstdint>
#include <cstring>
#include <string_view>

#include "cuda/nvjitlink.h"
#include "kernel/errors.h"

namespace kernel::runtime::cuda {

namespace {
int arch_number(const char *arch) {
  std::string_view a(arch);
  if (!a.starts_with("sm_")) return -1;
  int n = 0;
  for (char c : a.substr(3)) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::string image_list(const kernel_module &m) {
  std::string s;
  for (uint32_t i = 0; i < m.num_images; ++i) s += (i ? ", " : "") + std::string(m.images[i].arch);
  return s;
}
} // namespace

const kernel_image *select_image(const kernel_module &m, int arch) {
  const kernel_image *best = nullptr;
  int best_arch = -1;
  for (uint32_t i = 0; i < m.num_images; ++i) {
    const int a = arch_number(m.images[i].arch);
    if (a >= 0 && a <= arch && a > best_arch) {
      best = &m.images[i];
      best_arch = a;
    }
  }
  return best;
}

built_module build_cubin(const kernel_module &m, int arch, const cubin_cache &cache, int driver_version,
                         const std::string &what) {
  const kernel_image *image = select_image(m, arch);
  if (!image)
    throw target_unavailable_error(what + ": its GPU code was generated for " + image_list(m) +
                                   ", all newer than this GPU (sm_" + std::to_string(arch) +
                                   "); rebuild with -fplugin-arg-kernel-arch=sm_" + std::to_string(arch));
  const nvjitlink &linker = nvjitlink::get();
  cubin_key key;
  key.module_hash = m.hash;
  key.ptx_arch = image->arch;
  key.target_arch = arch;
  key.nvjitlink_version = linker.version();
  key.driver_version = driver_version;

  built_module result;
  result.ptx_arch = image->arch;
  if (auto cached = cache.load(key)) {
    result.cubin = std::move(*cached);
    result.from_cache = true;
    return result;
  }
  const link_input input{link_input_kind::ptx, "kernel-module-" + std::string(m.hash),
                         std::string_view(image->ptx, image->size)};
  result.cubin = linker.link(arch, std::span<const link_input>(&input, 1), what);
  cache.store(key, result.cubin);
  return result;
}

std::vector<std::string> cubin_symbols(const std::vector<char> &cubin) {
  // ELF64: section headers, the symbol table and its string table.
  std::vector<std::string> names;
  auto read = [&](std::size_t offset, auto &value) {
    if (offset + sizeof(value) > cubin.size()) return false;
    std::memcpy(&value, cubin.data() + offset, sizeof(value));
    return true;
  };
  if (cubin.size() < 64 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0) return names;
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0;
  if (!read(0x28, shoff) || !read(0x3A, shentsize) || !read(0x3C, shnum)) return names;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::size_t sh = shoff + std::size_t{i} * shentsize;
    std::uint32_t type = 0, link = 0;
    std::uint64_t offset = 0, size = 0, entsize = 0;
    if (!read(sh + 4, type) || type != 2 /* SHT_SYMTAB */) continue;
    read(sh + 0x18, offset);
    read(sh + 0x20, size);
    read(sh + 0x28, link);
    read(sh + 0x38, entsize);
    const std::size_t strtab = shoff + std::size_t{link} * shentsize;
    std::uint64_t str_offset = 0;
    read(strtab + 0x18, str_offset);
    for (std::uint64_t s = 0; entsize && s + entsize <= size; s += entsize) {
      std::uint32_t name = 0;
      read(offset + s, name);
      const std::size_t at = str_offset + name;
      if (name == 0 || at >= cubin.size()) continue;
      names.emplace_back(cubin.data() + at, strnlen(cubin.data() + at, cubin.size() - at));
    }
  }
  return names;
}

} // namespace kernel::runtime::cuda
