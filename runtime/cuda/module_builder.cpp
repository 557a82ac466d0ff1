// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cuda/module_builder.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/nvjitlink.h"
#include "cuda/nvrtc.h"
#include "device_code/runtime_inputs.h"
#include "kernel/detail/device_code_files.h"
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

namespace {

using kernel::detail::link_format;

// The format of an input by the name the module ABI stores. The pass and the runtime only
// store names from the table; anything else is a damaged module.
link_format format_named(const std::string &kind, const std::string &name) {
  if (const kernel::detail::link_format_info *f = kernel::detail::link_format_named(kind)) return f->format;
  throw link_error("device code '" + name + "' has the unknown kind '" + kind + "'");
}

// The architecture a cubin was built for, from its ELF header (e_flags; the field moved
// with the ELF ABI version 8 of CUDA 12), or -1.
int cubin_arch(std::string_view bytes) {
  if (bytes.size() < 0x34 || bytes.substr(0, 4) != "\x7f"
                                                   "ELF")
    return -1;
  std::uint32_t flags = 0;
  std::memcpy(&flags, bytes.data() + 0x30, sizeof flags);
  const auto abi_version = static_cast<unsigned char>(bytes[8]);
  return static_cast<int>(abi_version >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
}

// A cubin runs on GPUs of its major architecture with the same or a higher minor one.
bool cubin_runs_on(int cubin, int device) { return cubin / 10 == device / 10 && cubin <= device; }

// Whether a fat binary's entry can be linked for sm_<arch>: a cubin that runs on it, PTX or
// LTO-IR of arch or older (the link compiles it for arch); an entry of another kind is not
// known here, and is left to nvJitLink.
bool serves(const kernel::detail::device_code_files::fatbin_entry &e, int arch) {
  namespace files = kernel::detail::device_code_files;
  const int built_for = static_cast<int>(e.arch);
  if (e.kind == files::fatbin_cubin) return cubin_runs_on(built_for, arch);
  if (e.kind == files::fatbin_ptx || e.kind == files::fatbin_ltoir) return built_for <= arch;
  return true;
}

// "a cubin for sm_75, PTX for compute_90 and LTO-IR for compute_90".
std::string entries_text(const std::vector<kernel::detail::device_code_files::fatbin_entry> &entries) {
  namespace files = kernel::detail::device_code_files;
  std::string text;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto &e = entries[i];
    if (i) text += i + 1 == entries.size() ? " and " : ", ";
    const std::string n = std::to_string(e.arch);
    text += e.kind == files::fatbin_cubin ? "a cubin for sm_" + n
            : e.kind == files::fatbin_ptx ? "PTX for compute_" + n
                                          : "LTO-IR for compute_" + n;
  }
  return text;
}

struct user_code {
  std::string name, kind, hash;
  std::string_view bytes;
};

std::vector<user_code> user_code_of(const kernel_module &m,
                                    const std::vector<device_code::owned_input> &runtime_inputs) {
  std::vector<user_code> code;
  for (uint32_t i = 0; i < m.num_link_inputs; ++i) {
    const kernel_link_input &in = m.link_inputs[i];
    code.push_back({in.name, in.kind, in.hash, std::string_view(static_cast<const char *>(in.data), in.size)});
  }
  for (const device_code::owned_input &in : runtime_inputs) code.push_back({in.name, in.kind, in.hash, *in.bytes});
  return code;
}

std::string names_of(const std::vector<user_code> &code) {
  std::string s;
  for (const user_code &c : code) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

bool is_named(const std::vector<user_code> &code, const std::string &name) {
  for (const user_code &c : code)
    if (c.name == name) return true;
  return false;
}

// The quoted name after `marker` in nvJitLink's log, or "".
std::string quoted_after(const std::string &log, std::string_view marker) {
  const std::size_t at = log.find(marker);
  if (at == std::string::npos) return "";
  const std::size_t begin = at + marker.size(), end = log.find('\'', begin);
  return log.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

const kernel_external *external_named(const kernel_module &m, const std::string &symbol) {
  for (uint32_t i = 0; i < m.num_externals; ++i)
    if (symbol == m.externals[i].symbol) return &m.externals[i];
  return nullptr;
}

// A function the module calls, as the user declared it (`e`, where the module declares it).
std::string declared_function(const kernel_external *e, const std::string &symbol) {
  return e ? "'" + std::string(e->signature) + "' (declared at " + e->location + ")" : "'" + symbol + "'";
}

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The line of `text` around position `at`.
std::string_view line_around(std::string_view text, std::size_t at) {
  const std::size_t begin = text.rfind('\n', at), end = text.find('\n', at);
  const std::size_t from = begin == std::string_view::npos ? 0 : begin + 1;
  return text.substr(from, (end == std::string_view::npos ? text.size() : end) - from);
}

// Whether `text` has a line naming `name` (a whole word; or its start, for a mangled name's
// prefix) that holds `marker` and not `excluded` (where given).
bool names_on_a_line_with(std::string_view text, std::string_view name, bool prefix, std::string_view marker,
                          std::string_view excluded) {
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const std::size_t after = at + name.size();
    if ((at > 0 && identifier_char(text[at - 1])) || (!prefix && after < text.size() && identifier_char(text[after])))
      continue;
    const std::string_view line = line_around(text, at);
    if (line.find(marker) != std::string_view::npos &&
        (excluded.empty() || line.find(excluded) == std::string_view::npos))
      return true;
  }
  return false;
}

// The inputs that seem to define `symbol` with C++ linkage, its name mangled ("_Z3barii"):
// CUDA-C without extern "C" with a __device__ line naming it, PTX with a .func line naming the
// mangled name (not an .extern one), a binary holding the mangled name. The declaration is
// extern "C" (the plugin requires it), so the link looks for "bar" and finds nothing.
std::vector<std::string> mangled_definitions(const std::vector<user_code> &code, const std::string &symbol) {
  const std::string mangled = "_Z" + std::to_string(symbol.size()) + symbol;
  std::vector<std::string> found;
  for (const user_code &c : code) {
    bool named = false;
    switch (format_named(c.kind, c.name)) {
    case link_format::cuda:
      named = c.bytes.find("extern \"C\"") == std::string_view::npos &&
              names_on_a_line_with(c.bytes, symbol, false, "__device__", "");
      break;
    case link_format::ptx: named = names_on_a_line_with(c.bytes, mangled, true, ".func", ".extern"); break;
    default: named = c.bytes.find(mangled) != std::string_view::npos; break;
    }
    if (named) found.push_back(c.name);
  }
  return found;
}

// The message for a variable `symbol` (defined or declared) in the device code `name` that
// module `m` calls as the device function `external`.
std::string variable_message(const std::string &name, const kernel_external &external) {
  return "'" + name + "' names '" + external.symbol +
         "' as a variable (__device__ or __constant__ data), but the kernel calls it as the device function " +
         declared_function(&external, external.symbol) +
         "; define it there as an extern \"C\" __device__ function, or give the variable another name";
}

// The variables of LTO-IR `ltoir`, which only nvJitLink reads: linked alone into a cubin for
// sm_<arch>, they are its data symbols. Empty where it does not link alone (it calls code of
// other inputs): the link proper then reports what it finds.
std::vector<std::string> ltoir_variables(const nvjitlink &linker, int arch, std::string_view ltoir) {
  const link_input alone[] = {{link_format::ltoir, "ltoir", ltoir}};
  const std::string lto = "-lto";
  try {
    const std::vector<char> cubin = linker.link(arch, alone, "the LTO-IR's variables", std::span(&lto, 1));
    return kernel::detail::device_code_files::elf_symbols(std::string_view(cubin.data(), cubin.size()), true);
  } catch (const cuda_error &) {
    return {};
  }
}

// Why the device code `bytes` cannot be linked with module `m`: it names as a variable (defined
// or declared) a function the module calls, which nvJitLink crashes on in every format; ""
// when it does not. LTO-IR (alone, or the first in a fat binary, object or library) is linked
// alone to see its variables, where the module calls any device function: a cost the first
// link alone pays, since the disk cache keeps the result.
std::string variable_for_function(const kernel_module &m, const std::string &name, std::string_view bytes,
                                  link_format format, const nvjitlink &linker, int arch) {
  for (uint32_t i = 0; i < m.num_externals; ++i)
    if (kernel::detail::names_variable(format, bytes, m.externals[i].symbol))
      return variable_message(name, m.externals[i]);
  if (m.num_externals == 0) return {};
  // A copy: a compressed entry's payload lives only while the walk is at it.
  std::string ltoir;
  kernel::detail::for_each_device_code_payload(format, bytes, [&](std::string_view payload) {
    if (ltoir.empty() && payload.starts_with(std::string_view("\xed\x43\x4e\x7f", 4))) ltoir.assign(payload);
  });
  if (ltoir.empty()) return {};
  const std::vector<std::string> variables = ltoir_variables(linker, arch, ltoir);
  for (uint32_t i = 0; i < m.num_externals; ++i)
    if (std::find(variables.begin(), variables.end(), m.externals[i].symbol) != variables.end())
      return variable_message(name, m.externals[i]);
  return {};
}

// nvJitLink's "Undefined reference to 'bar' in ..." and "Prototype doesn't match for 'bar'"
// as messages about the user's code.
[[noreturn]] void explain_link_failure(const cuda_error &e, const kernel_module &m, const std::vector<user_code> &code,
                                       const std::string &what) {
  const std::string log = e.what();
  // Before a prototype that does not match: with two definitions, the one it names may be
  // the one that matches.
  if (const std::string symbol = quoted_after(log, multiple_definition_marker); !symbol.empty()) {
    const std::string rest = log.substr(log.find(multiple_definition_marker) + multiple_definition_marker.size());
    const std::string second = quoted_after(rest, " in '"), first = quoted_after(rest, prototype_definition_marker);
    const kernel_external *external = external_named(m, symbol);
    throw link_error(what + ": the device " + (external ? "function " : "symbol ") +
                     declared_function(external, symbol) + " is defined more than once in the device code linked" +
                     (is_named(code, first) && is_named(code, second) ? " (in '" + first + "' and in '" + second + "')"
                                                                      : " (" + names_of(code) + ")") +
                     "; link one definition of it");
  }
  // A variable of a called function's name in code no reader sees into (LTO-IR that needs
  // other inputs to link): where nvJitLink reports it rather than crashing.
  if (const std::string symbol = quoted_after(log, memory_space_marker); !symbol.empty())
    if (const kernel_external *external = external_named(m, symbol)) {
      const std::string specified = quoted_after(log, "first specified in '");
      throw link_error(what + ": " +
                       variable_message(is_named(code, specified) ? specified : names_of(code), *external));
    }
  if (const std::size_t end = log.find(kernel_definition_end); end != std::string::npos) {
    const std::size_t start = log.rfind(kernel_definition_start, end);
    if (start == std::string::npos) throw link_error(log); // worded otherwise: nvJitLink's own words
    const std::string symbol =
        log.substr(start + kernel_definition_start.size(), end - start - kernel_definition_start.size());
    const kernel_external *external = external_named(m, symbol);
    std::string defined_in;
    for (const user_code &c : code) {
      const link_format format = format_named(c.kind, c.name);
      if ((format == link_format::cuda && names_on_a_line_with(c.bytes, symbol, false, "__global__", "")) ||
          (format == link_format::ptx && names_on_a_line_with(c.bytes, symbol, false, ".entry", "")))
        defined_in += (defined_in.empty() ? " (in '" : "', '") + c.name;
    }
    throw link_error(what + ": the device function " + declared_function(external, symbol) +
                     " is defined as a kernel (__global__) in the device code linked" +
                     (defined_in.empty() ? " (" + names_of(code) + ")" : defined_in + "')") +
                     ", which device code cannot call; define it there as an extern \"C\" __device__ function");
  }
  if (const std::string symbol = quoted_after(log, prototype_mismatch_marker); !symbol.empty()) {
    const std::string defined_in = quoted_after(log, prototype_definition_marker);
    const kernel_external *external = external_named(m, symbol);
    const bool numba = external && std::string_view(external->abi) == "numba";
    throw link_error(what + ": the device function " + declared_function(external, symbol) +
                     " does not match its definition" + (is_named(code, defined_in) ? " in '" + defined_in + "'" : "") +
                     ": the number or the sizes of the parameters or of the result differ, so a call would pass "
                     "its arguments in the wrong places" +
                     (numba ? "; with the \"numba\" convention the definition returns an int status and takes a "
                              "pointer to the result first"
                            : ""));
  }
  const std::string symbol = quoted_after(log, undefined_reference_marker);
  if (symbol.empty()) throw link_error(log);
  const std::string function = declared_function(external_named(m, symbol), symbol);
  const std::vector<std::string> mangled = mangled_definitions(code, symbol);
  std::string mangled_names;
  for (const std::string &name : mangled) mangled_names += (mangled_names.empty() ? "'" : ", '") + name + "'";
  throw link_error(what + ": the device function " + function + " is not defined in the device code linked with it" +
                   (code.empty() ? std::string(" (no device code was linked: name the file with [[kernel::link(...)]], "
                                               "-fplugin-arg-kernel-link, a cuda_device_library in device_deps, or "
                                               "kernel::link_device_code)")
                                 : " (searched: " + names_of(code) + ")") +
                   (mangled.empty()
                        ? std::string()
                        : "; " + mangled_names + (mangled.size() == 1 ? " seems" : " seem") + " to define '" + symbol +
                              "' with C++ linkage, its name mangled: define it extern \"C\" there"));
}

} // namespace

built_module build_cubin(const kernel_module &m, int arch, const cubin_cache &cache, int driver_version,
                         const std::string &what) {
  const kernel_image *image = select_image(m, arch);
  if (!image)
    throw target_unavailable_error(what + ": its GPU code was generated for " + image_list(m) +
                                   ", all newer than this GPU (sm_" + std::to_string(arch) +
                                   "); rebuild with -fplugin-arg-kernel-arch=sm_" + std::to_string(arch));
  const std::vector<user_code> code = user_code_of(m, device_code::runtime_inputs());
  cubin_key key;
  key.module_hash = m.hash;
  key.ptx_arch = image->arch;
  key.target_arch = arch;
  key.nvjitlink_version = nvjitlink::identity();
  key.driver_version = driver_version;
  for (const user_code &c : code)
    key.link_inputs.push_back(
        c.kind + ":" + c.hash +
        (format_named(c.kind, c.name) == link_format::cuda ? " nvrtc " + nvrtc::get().version() : ""));

  built_module result;
  result.ptx_arch = image->arch;
  if (auto cached = cache.load(key)) {
    result.cubin = std::move(*cached);
    result.from_cache = true;
    return result;
  }
  const nvjitlink &linker = nvjitlink::get();
  std::deque<std::string> compiled; // NVRTC output, alive until the link is done
  std::vector<link_input> inputs{
      {link_format::ptx, "kernel-module-" + std::string(m.hash), std::string_view(image->ptx, image->size)}};
  std::vector<std::string> options;
  for (const user_code &c : code) {
    const link_format format = format_named(c.kind, c.name);
    if (format == link_format::cubin)
      if (const int built_for = cubin_arch(c.bytes); built_for >= 0 && !cubin_runs_on(built_for, arch))
        throw link_error(what + ": '" + c.name + "' is a cubin for sm_" + std::to_string(built_for) +
                         ", but the GPU is sm_" + std::to_string(arch) + "; link code for sm_" + std::to_string(arch) +
                         " instead (a cubin, an object or a fatbin built with -gencode arch=compute_" +
                         std::to_string(arch) + ",code=sm_" + std::to_string(arch) + ", or PTX)");
    // PTX for a newer GPU: ptxas says only that the .target is higher than the one assumed.
    if (format == link_format::ptx)
      if (const int written_for = kernel::detail::device_code_files::ptx_target_arch(c.bytes); written_for > arch)
        throw link_error(what + ": '" + c.name + "' is PTX for sm_" + std::to_string(written_for) +
                         ", newer than the GPU (sm_" + std::to_string(arch) +
                         "), which the link cannot compile it for; make the PTX for sm_" + std::to_string(arch) +
                         " or an older GPU (nvcc -arch=compute_" + std::to_string(arch) + " -ptx)");
    if (format == link_format::cuda) {
      compiled.push_back(nvrtc::get().compile(std::string(c.bytes), c.name, arch));
      if (const std::string why = variable_for_function(m, c.name, compiled.back(), link_format::ptx, linker, arch);
          !why.empty())
        throw link_error(what + ": " + why);
      inputs.push_back({link_format::ptx, c.name, compiled.back()});
      continue;
    }
    // Files embedded or added before: nvJitLink trusts the sizes in them (and crashes or
    // spins on a truncated one), so a damaged file is reported here instead.
    if (const std::string why = kernel::detail::device_code_damage(format, c.bytes); !why.empty())
      throw link_error(what + ": the device code '" + c.name + "' cannot be linked as " + c.kind + ": " + why);
    // An object, library or fat binary with code for other GPUs only: nvJitLink says just
    // "bad input".
    if (const auto entries = kernel::detail::device_code_entries(format, c.bytes);
        !entries.empty() &&
        std::none_of(entries.begin(), entries.end(), [&](const auto &e) { return serves(e, arch); }))
      throw link_error(what + ": '" + c.name + "' has no device code for sm_" + std::to_string(arch) + ": it holds " +
                       entries_text(entries) + "; build it for sm_" + std::to_string(arch) +
                       " too (-gencode arch=compute_" + std::to_string(arch) + ",code=sm_" + std::to_string(arch) +
                       "), or with PTX, which the link compiles for newer GPUs (code=compute_75)");
    if (const std::string why = variable_for_function(m, c.name, c.bytes, format, linker, arch); !why.empty())
      throw link_error(what + ": " + why);
    if (format == link_format::ltoir && options.empty()) options.push_back("-lto");
    inputs.push_back({format, c.name, c.bytes});
  }
  try {
    try {
      result.cubin = linker.link(arch, inputs, what, options);
    } catch (const cuda_error &e) {
      // LTO-IR inside objects, libraries and fatbins is only seen by nvJitLink itself.
      if (options.empty() && std::string_view(e.what()).find("without LTO enabled") != std::string_view::npos) {
        options.push_back("-lto");
        result.cubin = linker.link(arch, inputs, what, options);
      } else {
        throw;
      }
    }
  } catch (const cuda_error &e) {
    if (code.empty() && m.num_externals == 0) throw;
    explain_link_failure(e, m, code, what);
  }
  cache.store(key, result.cubin);
  return result;
}

std::vector<std::string> cubin_symbols(const std::vector<char> &cubin) {
  return kernel::detail::device_code_files::elf_symbols(std::string_view(cubin.data(), cubin.size()), false);
}

} // namespace kernel::runtime::cuda
