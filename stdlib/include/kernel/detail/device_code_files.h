// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device code files as the pass embeds them ([[kernel::link]]) and the runtime adds them
// (kernel/device_code.h), checked and made whole before anything links them:
//
// - The binary formats state the sizes of their parts, and nvJitLink (CUDA 13.0) trusts them:
//   a truncated cubin crashes it and a truncated fatbin makes it spin for ever. Their
//   structure is checked against the bytes first (device_code_damage).
// - A .cu file's quoted includes are written into its text (with_quoted_includes), so that
//   the code NVRTC compiles is the code that was read and hashed for the disk cache, whenever
//   and wherever the program runs: NVRTC would otherwise read them from the disk when a module
//   is built, and a header edited since would not change the cache key.
#ifndef KERNEL_DETAIL_DEVICE_CODE_FILES_H
#define KERNEL_DETAIL_DEVICE_CODE_FILES_H

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel/detail/link_inputs.h"

namespace kernel::detail {

namespace device_code_files {

inline bool fits(std::string_view bytes, std::uint64_t offset, std::uint64_t size) {
  return offset <= bytes.size() && size <= bytes.size() - offset;
}

// A little-endian field at `offset`; false where the bytes end first.
template <class T> bool read_at(std::string_view bytes, std::uint64_t offset, T &value) {
  if (!fits(bytes, offset, sizeof(T))) return false;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return true;
}

inline constexpr std::string_view truncated = " (the file is truncated or damaged)";
inline constexpr std::string_view damaged = " (the file is damaged)";

inline std::string fatbin_damage(std::string_view bytes, int depth = 0);

inline constexpr std::uint16_t cuda_machine = 190; // EM_CUDA

// The machine (e_machine) an ELF file is for.
inline std::uint16_t elf_machine(std::string_view bytes) {
  std::uint16_t machine = 0;
  read_at(bytes, 0x12, machine);
  return machine;
}

// The section types (sh_type) the checks tell apart. The processor-specific ones from 0x70000000
// are a cubin's alone (an x86-64 host object's 0x70000001 is its unwind tables).
namespace section_type {
inline constexpr std::uint32_t null = 0, symtab = 2, strtab = 3, rela = 4, note = 7, no_bits = 8, rel = 9, dynsym = 11,
                               symtab_indices = 18;
// .nv.info*, .nv.callgraph, .nv.prototype; .nv.global (uninitialised), .nv.shared.<kernel>.
inline constexpr std::uint32_t cuda_info = 0x70000000, cuda_callgraph = 0x70000001, cuda_prototype = 0x70000002,
                               cuda_global = 0x70000007, cuda_shared = 0x7000000a;
} // namespace section_type

// An ELF64 section header's fields that the checks read.
struct elf_section {
  std::uint32_t name = 0, type = 0, link = 0, info = 0;
  std::uint64_t flags = 0, offset = 0, size = 0, alignment = 0, entry_size = 0;
};
inline elf_section elf_section_at(std::string_view bytes, std::uint64_t header) {
  elf_section s;
  read_at(bytes, header, s.name);
  read_at(bytes, header + 4, s.type);
  read_at(bytes, header + 8, s.flags);
  read_at(bytes, header + 0x18, s.offset);
  read_at(bytes, header + 0x20, s.size);
  read_at(bytes, header + 0x28, s.link);
  read_at(bytes, header + 0x2C, s.info);
  read_at(bytes, header + 0x30, s.alignment);
  read_at(bytes, header + 0x38, s.entry_size);
  return s;
}

// Section `s`'s name in the section-name table `names` ("" where the table gives none).
inline std::string_view elf_section_name(std::string_view bytes, const elf_section &names, const elf_section &s) {
  if (!fits(bytes, names.offset, names.size) || s.name >= names.size) return {};
  const std::string_view table = bytes.substr(names.offset, names.size);
  return table.substr(s.name, table.find('\0', s.name) - s.name);
}

// Whether a section of that name is the fat binary nvcc puts in a host object (-dc:
// __nv_relfatbin; -c: .nv_fatbin).
inline bool is_fatbin_section(std::string_view name) { return name == "__nv_relfatbin" || name == ".nv_fatbin"; }

// The format (1 to 4: none, a byte, 16 bits, sized) of each .nv.info attribute nvcc 13 writes,
// which nvJitLink assumes (it crashed on a record of another); 0 for others, not checked.
inline std::uint8_t nv_info_format(std::uint8_t attribute) {
  constexpr std::pair<std::uint8_t, std::uint8_t> formats[] = {
      {0x04, 1}, {0x35, 1}, {0x53, 1}, {0x4a, 2}, {0x4c, 2}, {0x19, 3}, {0x1b, 3}, {0x50, 3},
      {0x5f, 3}, {0x0a, 4}, {0x0f, 4}, {0x11, 4}, {0x12, 4}, {0x17, 4}, {0x1c, 4}, {0x1e, 4},
      {0x23, 4}, {0x28, 4}, {0x29, 4}, {0x2f, 4}, {0x31, 4}, {0x36, 4}, {0x37, 4}, {0x46, 4}};
  for (const auto &[known, format] : formats)
    if (known == attribute) return format;
  return 0;
}

// What nvJitLink takes on trust in a cubin beyond its tables' indices (elf_table_damage), each
// of which crashed it when one byte was changed: the section-name table; sections' alignments
// (it divides by them, and pads to them); the kinds of the sections it finds by name; the
// notes, and the records of .nv.info sections; the symbols that code sections, prototypes and
// .nv.info records name, which must be functions; and relocation and symbol kinds. What a
// valid cubin holds was read from nvcc 13's, sm_75 to sm_120, with -rdc, -G and -lineinfo
// (device_code_test links them).
inline std::string cubin_layout_damage(std::string_view bytes, std::uint64_t shoff, std::uint16_t shentsize,
                                       std::uint16_t shnum) {
  using namespace section_type;
  constexpr std::uint32_t info = cuda_info, callgraph = cuda_callgraph, prototype = cuda_prototype;
  constexpr std::uint64_t executable = 4; // SHF_EXECINSTR
  const std::string bad(damaged);
  const auto section = [&](std::uint32_t i) { return elf_section_at(bytes, shoff + std::uint64_t{i} * shentsize); };
  std::uint16_t names = 0;
  read_at(bytes, 0x3E, names);
  // 65280 sections or more are counted in section 0 (e_shnum 0, e_shstrndx 0xffff), which
  // the checks do not read: a cubin of some 20,000 kernels.
  if (shnum == 0 && shoff != 0)
    return "it has 65280 sections or more, which these checks do not read (split its kernels over more than one "
           "file)";
  if (shnum == 0 || names == 0 || section(names).type != strtab) return "it has no section-name table" + bad;
  const elf_section name_table = section(names);
  // Its names, each ended by a zero byte, after the empty one.
  if (name_table.size == 0 || bytes[name_table.offset] != '\0' ||
      bytes[name_table.offset + name_table.size - 1] != '\0')
    return "its section-name table is not one" + bad;
  // The symbol table (elf_table_damage has checked its entries and string table).
  elf_section symbols;
  std::uint32_t symbol_table = 0;
  for (std::uint32_t i = 0; i < shnum; ++i)
    if (section(i).type == symtab) symbols = section(symbol_table = i);
  if (symbol_table == 0) return "it has no symbol table" + bad;
  const std::uint64_t symbol_count = symbols.size / 24;
  // Symbol `k`'s st_info and section.
  const auto symbol = [&](std::uint64_t k) {
    std::pair<std::uint8_t, std::uint16_t> kind_and_section{};
    read_at(bytes, symbols.offset + k * 24 + 4, kind_and_section.first);
    read_at(bytes, symbols.offset + k * 24 + 6, kind_and_section.second);
    return kind_and_section;
  };
  constexpr std::uint8_t function = 2; // STT_FUNC
  const auto is_function = [&](std::uint64_t k) {
    return k != 0 && k < symbol_count && (symbol(k).first & 15) == function;
  };
  for (std::uint64_t k = 0; k < symbol_count; ++k) {
    // Local, global, weak; no type, object, function, section, file, and CUDA's 10 to 13
    // (textures, surfaces, samplers, objects).
    const std::uint8_t binding = symbol(k).first >> 4, type = symbol(k).first & 15;
    if (binding > 2 || (type > 4 && (type < 10 || type > 13)))
      return "its symbol " + std::to_string(k) + " is of no kind a cubin has" + bad;
    // Where it is in its section: an offset, or in shared memory (and other sections laid out
    // at the link) an alignment, as a common symbol's, which nvJitLink lays out by (a huge one
    // made it spin).
    const std::uint16_t in = symbol(k).second;
    if (in == 0 || in >= shnum) continue;
    std::uint64_t value = 0, size = 0;
    read_at(bytes, symbols.offset + k * 24 + 8, value);
    read_at(bytes, symbols.offset + k * 24 + 16, size);
    const elf_section home = section(in);
    const bool placed = (value <= home.size && size <= home.size - value) ||
                        ((value & (value - 1)) == 0 && value <= home.alignment && size <= home.size);
    if (!placed) return "its symbol " + std::to_string(k) + " lies outside its section " + std::to_string(in) + bad;
  }
  // The kinds of the sections nvJitLink finds by name.
  constexpr std::pair<std::string_view, std::uint32_t> kinds[] = {{".symtab", symtab},
                                                                  {".strtab", strtab},
                                                                  {".shstrtab", strtab},
                                                                  {".rel", rel},
                                                                  {".rela", rela},
                                                                  {".note", note},
                                                                  {".nv.info", info},
                                                                  {".nv.callgraph", callgraph},
                                                                  {".nv.prototype", prototype}};
  std::uint64_t read_in_records = 0;
  for (std::uint32_t i = 1; i < shnum; ++i) {
    const elf_section s = section(i);
    const std::string which = "its section " + std::to_string(i);
    if (s.alignment == 0 || (s.alignment & (s.alignment - 1)) != 0)
      return which + "'s alignment (" + std::to_string(s.alignment) + ") is not a power of two" + bad;
    const std::string_view name = elf_section_name(bytes, name_table, s);
    const auto named = [&](std::string_view prefix) {
      return name == prefix || name.starts_with(std::string(prefix) + ".");
    };
    std::uint32_t expected = s.type;
    for (const auto &[prefix, kind] : kinds)
      if (named(prefix)) expected = kind;
    if (s.type != expected) return which + " (" + std::string(name) + ") is not of its kind" + bad;
    // Its info: a section's index, but in the symbol table the first global's and in a code
    // section a symbol's (checked below).
    if ((s.flags & executable) == 0 && (s.type == symtab ? s.info > symbol_count : s.info >= shnum))
      return which + " (" + std::string(name) + ") names section " + std::to_string(s.info) + " of " +
             std::to_string(shnum) + bad;
    if ((s.type == callgraph || s.type == prototype) && s.entry_size != 8)
      return which + " (" + std::string(name) + ") is not made of 8-byte entries" + bad;
    const std::uint64_t end = s.offset + s.size;
    // The sections read record by record lie apart in nvcc's cubins: sections laid over the same
    // bytes would be read again for each (thousands of them took minutes).
    if (s.type == note || s.type == info || s.type == prototype || s.type == rel || s.type == rela) {
      read_in_records += s.size;
      if (read_in_records > bytes.size()) return which + " (" + std::string(name) + ") overlaps others" + bad;
    }
    if (s.type == note) {
      // Each note: the sizes of its name and description, its type, and both, padded to 4.
      for (std::uint64_t at = s.offset; at < end;) {
        std::uint32_t name_size = 0, description_size = 0;
        read_at(bytes, at, name_size);
        read_at(bytes, at + 4, description_size);
        const std::uint64_t next =
            at + 12 + ((std::uint64_t{name_size} + 3) & ~3ull) + ((std::uint64_t{description_size} + 3) & ~3ull);
        if (next > end) return which + " (" + std::string(name) + ") holds a note past its end" + bad;
        at = next;
      }
    } else if (s.type == info) {
      if (s.link != symbol_table) return which + " (" + std::string(name) + ") is not linked to the symbol table" + bad;
      // Records: a format (1 to 3: four bytes in all; 4: a 16-bit size and that many bytes)
      // and an attribute. Those of a function's frame, stack and registers, its constant
      // bank, and the functions it calls from outside begin with symbols.
      for (std::uint64_t at = s.offset; at < end;) {
        std::uint8_t format = 0, attribute = 0;
        std::uint16_t size = 0;
        read_at(bytes, at, format);
        read_at(bytes, at + 1, attribute);
        read_at(bytes, at + 2, size);
        const std::uint64_t next = at + 4 + (format == 4 ? size : 0);
        const auto record = [&, at] {
          return which + " (" + std::string(name) + "): its record at byte " + std::to_string(at - s.offset);
        };
        if (format < 1 || format > 4 || next > end) return record() + " is not one" + bad;
        const std::uint8_t expected_format = nv_info_format(attribute);
        if (expected_format != 0 && expected_format != format)
          return record() + " is of attribute " + std::to_string(attribute) + " in format " + std::to_string(format) +
                 ", not " + std::to_string(expected_format) + bad;
        std::uint32_t first = 0;
        read_at(bytes, at + 4, first);
        // A kernel parameter's, whose first word (an index) nvcc leaves 0 and nvJitLink
        // crashed on a large one.
        if (attribute == 0x17 && format == 4 && size >= 4 && first != 0)
          return record() + " describes a kernel parameter of index " + std::to_string(first) + bad;
        const bool of_function = attribute == 0x11 || attribute == 0x12 || attribute == 0x23 || attribute == 0x2f;
        if (format == 4 && size >= 4 && of_function && !is_function(first))
          return record() + " names symbol " + std::to_string(first) + ", not a function" + bad;
        if (format == 4 && attribute == 0x0a && size >= 4 && first >= symbol_count)
          return record() + " names symbol " + std::to_string(first) + " of " + std::to_string(symbol_count) + bad;
        if (format == 4 && attribute == 0x0f)
          for (std::uint64_t word = at + 4; word + 4 <= next; word += 4) {
            std::uint32_t k = 0;
            read_at(bytes, word, k);
            if (k >= symbol_count)
              return record() + " names symbol " + std::to_string(k) + " of " + std::to_string(symbol_count) + bad;
          }
        at = next;
      }
    } else if (s.type == prototype) {
      // A function's symbol and its prototype's number, which nvJitLink counts up to (above
      // 2^21 it crashed; nvcc's are numbered from 0 by call site).
      for (std::uint64_t at = s.offset; at < end; at += 8) {
        std::uint32_t k = 0, number = 0;
        read_at(bytes, at, k);
        read_at(bytes, at + 4, number);
        if (!is_function(k))
          return which + " (" + std::string(name) + ") gives a prototype to symbol " + std::to_string(k) +
                 ", not a function" + bad;
        if (number > 0xffff)
          return which + " (" + std::string(name) + ") numbers a prototype " + std::to_string(number) + bad;
      }
    } else if (s.type == rel || s.type == rela) {
      for (std::uint64_t at = s.offset; at < end; at += s.entry_size) {
        std::uint32_t kind = 0;
        read_at(bytes, at + 8, kind);
        if (kind > 0xffff)
          return which + ": relocation " + std::to_string((at - s.offset) / s.entry_size) + " is of kind " +
                 std::to_string(kind) + ", which no cubin has" + bad;
      }
    } else if ((s.flags & executable) != 0) {
      // A code section's info: its function's symbol (the low 24 bits) and, above them, the
      // registers it uses.
      const std::uint32_t k = s.info & 0xffffffu;
      if (!is_function(k) || symbol(k).second != i)
        return which + " (" + std::string(name) + ") names symbol " + std::to_string(k) +
               ", not a function defined in it" + bad;
    }
  }
  return {};
}

// The symbol and relocation tables, which nvJitLink indexes without checking (a symbol's
// section, a relocation's symbol: one wrong byte crashes it): whole entries of their size,
// linked to tables of the right kind, every index within what it indexes. And the fat binary
// an object from nvcc carries, whose cubins are checked in turn.
inline std::string elf_table_damage(std::string_view bytes, std::uint64_t shoff, std::uint16_t shentsize,
                                    std::uint16_t shnum, int depth) {
  using namespace section_type;
  constexpr std::uint32_t callgraph = cuda_callgraph, prototype = cuda_prototype;
  const bool cuda = elf_machine(bytes) == cuda_machine;
  const auto section = [&](std::uint32_t i) { return elf_section_at(bytes, shoff + std::uint64_t{i} * shentsize); };
  std::uint16_t names = 0;
  read_at(bytes, 0x3E, names);
  if (shnum != 0 && names >= shnum)
    return "its section-name table is section " + std::to_string(names) + " of " + std::to_string(shnum) +
           std::string(damaged);
  const elf_section name_table = shnum != 0 ? section(names) : elf_section{};
  // A symbol's extended section index is in a table of them (SHT_SYMTAB_SHNDX), if any.
  bool extended_indices = false;
  for (std::uint32_t i = 0; i < shnum; ++i) extended_indices |= section(i).type == symtab_indices;
  for (std::uint32_t i = 0; i < shnum; ++i) {
    const elf_section s = section(i);
    const std::string which = "its section " + std::to_string(i);
    if (names != 0 && s.name != 0 && s.name >= name_table.size)
      return which + "'s name lies outside the section-name table" + std::string(damaged);
    if (s.type == symtab || s.type == dynsym) {
      if (s.entry_size != 24 || s.size % 24 != 0)
        return which + " (symbols) is not made of 24-byte entries" + std::string(damaged);
      if (s.link >= shnum || section(s.link).type != strtab)
        return which + " (symbols) names no string table" + std::string(damaged);
      const elf_section strings = section(s.link);
      for (std::uint64_t at = s.offset; at < s.offset + s.size; at += 24) {
        std::uint32_t name = 0;
        std::uint16_t index = 0;
        read_at(bytes, at, name);
        read_at(bytes, at + 6, index);
        // SHN_UNDEF and the reserved indices name no section: absolute, common and the
        // extended index, and in a host object the processor's (x86-64's large common). A
        // cubin uses no other, and nvJitLink takes any other as a section's.
        constexpr std::uint16_t absolute = 0xfff1, common = 0xfff2, extended = 0xffff;
        const bool reserved = index == absolute || index == common || (index == extended && extended_indices) ||
                              (!cuda && index >= 0xff00 && index < 0xff20);
        if ((index != 0 && index >= shnum && !reserved) || (name != 0 && name >= strings.size))
          return which + ": symbol " + std::to_string((at - s.offset) / 24) + " lies outside its tables" +
                 std::string(damaged);
      }
    } else if (s.type == rel || s.type == rela) {
      const std::uint64_t entry = s.type == rela ? 24 : 16;
      if (s.entry_size != entry || s.size % entry != 0)
        return which + " (relocations) is not made of " + std::to_string(entry) + "-byte entries" +
               std::string(damaged);
      if (s.link >= shnum || (section(s.link).type != symtab && section(s.link).type != dynsym) ||
          (s.info != 0 && s.info >= shnum))
        return which + " (relocations) names no symbol table or section" + std::string(damaged);
      const std::uint64_t symbols = section(s.link).size / 24;
      for (std::uint64_t at = s.offset; at < s.offset + s.size; at += entry) {
        std::uint64_t info = 0;
        read_at(bytes, at + 8, info);
        if ((info >> 32) >= symbols)
          return which + ": relocation " + std::to_string((at - s.offset) / entry) +
                 " names a symbol that is not there" + std::string(damaged);
      }
    } else if (cuda && (s.type == callgraph || s.type == prototype)) {
      // Pairs of 32-bit words naming symbols (a call graph's callers and callees, with marker
      // values at the top of the range; a prototype's function and its prototype's number).
      if (s.link >= shnum || section(s.link).type != symtab || s.size % 8 != 0)
        return which + " (" + (s.type == callgraph ? "call graph" : "prototypes") +
               ") is not made of pairs "
               "naming a symbol table's symbols" +
               std::string(damaged);
      const std::uint64_t symbols = section(s.link).size / 24;
      // A call graph's lists each start with a marker record, (0, marker), the markers
      // (0xffffffff, 0xfffffffe, ...) once each; its other records are a caller and a callee
      // (nvJitLink crashes on a marker with a caller).
      constexpr std::uint32_t marker = 0xfffffff0u;
      std::uint32_t markers_seen = 0;
      for (std::uint64_t at = s.offset; at < s.offset + s.size; at += 8) {
        std::uint32_t first = 0, second = 0;
        read_at(bytes, at, first);
        read_at(bytes, at + 4, second);
        const bool listed = s.type == callgraph && second >= marker;
        if (first >= symbols || (!listed && s.type == callgraph && second >= symbols))
          return which + " names symbol " + std::to_string(first >= symbols ? first : second) + " of " +
                 std::to_string(symbols) + std::string(damaged);
        if (listed) {
          const std::uint32_t bit = std::uint32_t{1} << (second - marker);
          if (first != 0 || (markers_seen & bit) != 0)
            return which + " (call graph): its record at byte " + std::to_string(at - s.offset) +
                   " is no list's start (a marker with a caller, or one seen before)" + std::string(damaged);
          markers_seen |= bit;
        }
      }
    } else if (const std::string_view name = elf_section_name(bytes, name_table, s);
               s.type != no_bits && is_fatbin_section(name)) {
      // (The fits check: a section of a type without contents was not checked above.)
      if (fits(bytes, s.offset, s.size))
        if (std::string why = fatbin_damage(bytes.substr(s.offset, s.size), depth + 1); !why.empty())
          return which + " (" + std::string(name) + "): " + why;
    }
  }
  return cuda ? cubin_layout_damage(bytes, shoff, shentsize, shnum) : std::string();
}

// An ELF64 file (a cubin, or a host object holding device code): its header tables and the
// contents of its sections and segments lie within it, and so do the indices of its symbol
// and relocation tables.
inline std::string elf_damage(std::string_view bytes, int depth = 0) {
  if (bytes.size() < 64 || bytes.substr(0, 4) != std::string_view("\x7f"
                                                                  "ELF",
                                                                  4))
    return "it is not an ELF file";
  if (bytes[4] != 2 || bytes[5] != 1) return "it is not a 64-bit little-endian ELF file";
  std::uint64_t phoff = 0, shoff = 0;
  std::uint16_t phentsize = 0, phnum = 0, shentsize = 0, shnum = 0;
  read_at(bytes, 0x20, phoff);
  read_at(bytes, 0x28, shoff);
  read_at(bytes, 0x36, phentsize);
  read_at(bytes, 0x38, phnum);
  read_at(bytes, 0x3A, shentsize);
  read_at(bytes, 0x3C, shnum);
  if (phnum != 0 && (phentsize < 56 || !fits(bytes, phoff, std::uint64_t{phnum} * phentsize)))
    return "its program headers lie past its end" + std::string(truncated);
  if (shnum != 0 && (shentsize < 64 || !fits(bytes, shoff, std::uint64_t{shnum} * shentsize)))
    return "its section headers lie past its end" + std::string(truncated);
  const bool cuda = elf_machine(bytes) == cuda_machine;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const elf_section s = elf_section_at(bytes, shoff + std::uint64_t{i} * shentsize);
    // SHT_NULL, SHT_NOBITS, and a relocatable cubin's shared memory (.nv.shared.*, of
    // kernels with __shared__ arrays) and uninitialised globals (.nv.global): sizes without
    // contents in the file.
    using namespace section_type;
    const bool contents =
        s.type != null && s.type != no_bits && !(cuda && (s.type == cuda_global || s.type == cuda_shared));
    if (contents && !fits(bytes, s.offset, s.size))
      return "its section " + std::to_string(i) + " lies past its end" + std::string(truncated);
  }
  for (std::uint16_t i = 0; i < phnum; ++i) {
    const std::uint64_t header = phoff + std::uint64_t{i} * phentsize;
    std::uint64_t offset = 0, size = 0;
    read_at(bytes, header + 8, offset);
    read_at(bytes, header + 0x20, size);
    if (!fits(bytes, offset, size))
      return "its segment " + std::to_string(i) + " lies past its end" + std::string(truncated);
  }
  return elf_table_damage(bytes, shoff, shentsize, shnum, depth);
}

// The same by name, where it is a common one.
inline std::string elf_machine_name(std::string_view bytes) {
  const std::uint16_t machine = elf_machine(bytes);
  switch (machine) {
  case 3: return "x86";
  case 62: return "x86-64";
  case 183: return "AArch64";
  case cuda_machine: return "NVIDIA CUDA";
  default: return "machine " + std::to_string(machine);
  }
}

// Whether an ELF file (whole: elf_damage found nothing) holds device code: a cubin, or a host
// object carrying nvcc's fat binary (-dc: __nv_relfatbin; -c: .nv_fatbin). A host compiler's
// object has none, and nvJitLink would find nothing in it only on a GPU, at the first launch.
// Calls `fn` with the contents of each fat binary section of an ELF host object (whole);
// returns whether it has one.
template <class Fn> bool for_each_fatbin_section(std::string_view bytes, Fn &&fn) {
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, names = 0;
  read_at(bytes, 0x28, shoff);
  read_at(bytes, 0x3A, shentsize);
  read_at(bytes, 0x3C, shnum);
  read_at(bytes, 0x3E, names);
  if (names >= shnum) return false;
  const auto section = [&](std::uint32_t i) { return elf_section_at(bytes, shoff + std::uint64_t{i} * shentsize); };
  const elf_section name_table = section(names);
  bool found = false;
  for (std::uint16_t i = 0; i < shnum; ++i)
    if (const elf_section s = section(i); is_fatbin_section(elf_section_name(bytes, name_table, s))) {
      found = true;
      if (s.type != section_type::no_bits && fits(bytes, s.offset, s.size)) fn(bytes.substr(s.offset, s.size));
    }
  return found;
}

inline bool elf_holds_device_code(std::string_view bytes) {
  return elf_machine(bytes) == cuda_machine || for_each_fatbin_section(bytes, [](std::string_view) {});
}

// zstd's decompressor, from the system's libzstd (which systemd and apt need, so every Debian
// and Ubuntu machine has it), loaded on first use and kept for the process's life; null where
// it is not there, and compressed payloads go unchecked.
struct zstd_decompressor {
  std::size_t (*decompress)(void *, std::size_t, const void *, std::size_t) = nullptr;
  unsigned (*is_error)(std::size_t) = nullptr;
  unsigned long long (*content_size)(const void *, std::size_t) = nullptr; // the frame's, as it states
  explicit operator bool() const { return decompress != nullptr && is_error != nullptr; }
};
inline const zstd_decompressor &system_zstd() {
  static const zstd_decompressor zstd = [] {
    zstd_decompressor found;
    if (void *library = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL)) {
      found.decompress = reinterpret_cast<decltype(found.decompress)>(dlsym(library, "ZSTD_decompress"));
      found.is_error = reinterpret_cast<decltype(found.is_error)>(dlsym(library, "ZSTD_isError"));
      found.content_size = reinterpret_cast<decltype(found.content_size)>(dlsym(library, "ZSTD_getFrameContentSize"));
    }
    return found;
  }();
  return zstd;
}

// An LZ4 block (nvcc -Xfatbin -compress-mode=speed): sequences of a token (the count of
// literals in its high 4 bits, of the match's bytes less 4 in its low ones; 15 continues in
// bytes of 255 and a last one below), the literals, and a match (2 bytes: how far back, from 1
// to what is written), the last sequence literals alone. Decoded into exactly `size` bytes at
// `out` from the whole of `in`; false where it reads or writes past either, or ends elsewhere.
inline bool lz4_block_decode(std::string_view in, char *out, std::size_t size) {
  std::size_t at = 0, made = 0;
  // A count of 15 goes on in the bytes after it.
  const auto count = [&](std::size_t first, std::size_t &n) {
    n = first;
    if (first != 15) return true;
    for (unsigned char more = 255; more == 255;) {
      if (at >= in.size()) return false;
      more = static_cast<unsigned char>(in[at++]);
      n += more;
      if (n > size) return false; // past what the block makes: damaged, and no wrap
    }
    return true;
  };
  while (at < in.size()) {
    const auto token = static_cast<unsigned char>(in[at++]);
    std::size_t literals = 0, match = 0;
    if (!count(token >> 4, literals) || literals > in.size() - at || literals > size - made) return false;
    std::memcpy(out + made, in.data() + at, literals);
    at += literals;
    made += literals;
    if (at == in.size()) break; // the last sequence: literals alone
    if (in.size() - at < 2) return false;
    const std::size_t back =
        static_cast<unsigned char>(in[at]) | static_cast<std::size_t>(static_cast<unsigned char>(in[at + 1])) << 8;
    at += 2;
    if (back == 0 || back > made || !count(token & 15, match) || match + 4 > size - made) return false;
    // Byte by byte: a match may overlap what it writes (a run repeats its first bytes).
    for (std::size_t i = 0; i < match + 4; ++i, ++made) out[made] = out[made - back];
  }
  return made == size;
}

// A fat binary entry's payload as nvJitLink reads it: compressed with zstd (nvcc's default)
// or LZ4 (-compress-mode=speed), decompressed ("" where that fails: `why` says so), or else as
// it is. The entry header (past its 16 bytes: kind, version, header size, payload size) holds
// the compressed size in the 32 bits at byte 16, flags at byte 40 (0x8000: zstd, 0x2000: LZ4)
// and the size decompressed at byte 56.
inline std::string_view fatbin_payload(std::string_view within, std::uint64_t entry, std::uint32_t entry_header,
                                       std::string_view payload, std::unique_ptr<char[]> &decompressed,
                                       std::string &why) {
  constexpr std::uint32_t zstd_magic = 0xFD2FB528, zstd_flag = 0x8000, lz4_flag = 0x2000;
  constexpr std::uint64_t largest = std::uint64_t{1} << 30;
  std::uint32_t magic = 0, flags = 0, compressed = 0;
  std::uint64_t size = 0;
  read_at(payload, 0, magic);
  if (entry_header < 64 || !read_at(within, entry + 40, flags)) return payload;
  const bool zstd_stream = (flags & zstd_flag) != 0 && magic == zstd_magic;
  const bool lz4_block = (flags & lz4_flag) != 0 && (flags & zstd_flag) == 0;
  if (!zstd_stream && !lz4_block) return payload;
  read_at(within, entry + 16, compressed);
  read_at(within, entry + 56, size);
  // An LZ4 byte makes at most 255 (a run's count): a larger size is no block's.
  const bool lz4_reach = !lz4_block || size / 255 <= compressed;
  if (compressed == 0 || compressed > payload.size() || size == 0 || size > largest || !lz4_reach) {
    why = "its compressed entry at byte " + std::to_string(entry) + " states sizes it does not have" +
          std::string(damaged);
    return {};
  }
  const auto make_room = [&] {
    try {
      decompressed = std::make_unique_for_overwrite<char[]>(size);
      return true;
    } catch (const std::bad_alloc &) {
      why = "its compressed entry at byte " + std::to_string(entry) + " states " + std::to_string(size) +
            " bytes decompressed, more than there is memory for to check it";
      return false;
    }
  };
  if (lz4_block) {
    if (!make_room()) return {};
    if (!lz4_block_decode(payload.substr(0, compressed), decompressed.get(), size)) {
      why = "its compressed entry at byte " + std::to_string(entry) + " does not decompress to the " +
            std::to_string(size) + " bytes it states" + std::string(damaged);
      return {};
    }
    return {decompressed.get(), size};
  }
  const zstd_decompressor &zstd = system_zstd();
  if (!zstd) return payload;
  // The frame states its size too (nvcc's always do): where the two differ, one is damaged,
  // and nothing of that size is allocated.
  if (zstd.content_size && zstd.content_size(payload.data(), compressed) != size) {
    why = "its compressed entry at byte " + std::to_string(entry) + " states " + std::to_string(size) +
          " bytes decompressed, and its stream another size" + std::string(damaged);
    return {};
  }
  // Where both state a size the stream does not make, only what it makes is written: the
  // buffer is not zero-filled, so the pages past that are never touched.
  if (!make_room()) return {};
  const std::size_t made = zstd.decompress(decompressed.get(), size, payload.data(), compressed);
  if (zstd.is_error(made) || made != size) {
    why = "its compressed entry at byte " + std::to_string(entry) + " does not decompress to the " +
          std::to_string(size) + " bytes it states" + std::string(damaged);
    return {};
  }
  return {decompressed.get(), size};
}

// One entry of a fat binary as a walk finds it: the fat binary that holds it (up to its end),
// where the entry's header lies in it and how long that is, and its payload as stored
// (perhaps compressed: fatbin_payload reads it as nvJitLink does).
struct fatbin_entry_at {
  std::string_view within;
  std::uint64_t entry = 0;
  std::uint32_t header = 0;
  std::string_view stored;
};

// A fat binary (nvcc -fatbin): one or more of them back to back, each a 16-byte header (magic
// 0xBA55ED50, version, header size, size of what follows) and entries of a header (kind,
// version, header size, payload size, ...) and a payload. Zero bytes may pad the end. Calls
// `fn(entry)` with each entry (a fatbin_entry_at) whose header and payload lie within; `fn`
// returns "" to go on or a message to stop the walk with. Returns that message, what in the
// layout is damaged where the walk stops on it, or "". The one walk serves the check, the list
// of entries and the payloads handed on, so that none of them reads the layout differently.
template <class Fn> std::string for_each_fatbin_entry(std::string_view bytes, Fn &&fn) {
  constexpr std::uint32_t magic = 0xBA55ED50;
  for (std::uint64_t at = 0; at < bytes.size();) {
    if (at != 0 && bytes.find_first_not_of('\0', at) == std::string_view::npos) break;
    std::uint32_t found = 0;
    std::uint16_t header = 0;
    std::uint64_t size = 0;
    if (!read_at(bytes, at, found) || found != magic)
      return at == 0 ? "it is not a fat binary (no 0xBA55ED50 header)"
                     : "the bytes after its fat binary, from byte " + std::to_string(at) + ", are not one";
    if (!read_at(bytes, at + 6, header) || !read_at(bytes, at + 8, size) || header < 16 || !fits(bytes, at, header) ||
        !fits(bytes, at + header, size))
      return "it states more bytes than it holds" + std::string(truncated);
    const std::uint64_t end = at + header + size;
    const std::string_view within = bytes.substr(0, end);
    for (std::uint64_t entry = at + header; entry < end;) {
      std::uint32_t entry_header = 0;
      std::uint64_t payload = 0;
      if (!read_at(within, entry + 4, entry_header) || !read_at(within, entry + 8, payload) || entry_header < 16 ||
          !fits(within, entry, entry_header) || !fits(within, entry + entry_header, payload))
        return "its entry at byte " + std::to_string(entry) + " lies past its end" + std::string(truncated);
      if (std::string stop =
              fn(fatbin_entry_at{within, entry, entry_header, within.substr(entry + entry_header, payload)});
          !stop.empty())
        return stop;
      entry += entry_header + payload;
    }
    at = end;
  }
  return {};
}

// The payloads that are cubins, once decompressed, are checked as cubins.
inline std::string fatbin_damage(std::string_view bytes, int depth) {
  // Fat binaries hold cubins, which hold none: deeper is not nvcc's.
  if (depth > 2) return "it nests fat binaries in cubins" + std::string(damaged);
  if (bytes.empty()) return "it is empty";
  return for_each_fatbin_entry(bytes, [&](const fatbin_entry_at &e) {
    std::unique_ptr<char[]> decompressed;
    std::string why;
    const std::string_view contents = fatbin_payload(e.within, e.entry, e.header, e.stored, decompressed, why);
    if (why.empty() && contents.starts_with("\x7f"
                                            "ELF"))
      if (why = elf_damage(contents, depth + 1); !why.empty())
        why = "its cubin at byte " + std::to_string(e.entry + e.header) + ": " + why;
    return why;
  });
}

// An ar archive (nvcc -lib): its members lie within it, those that are ELF objects are whole,
// and one of them at least holds device code (not a host compiler's library).
inline std::string archive_damage(std::string_view bytes) {
  if (bytes.starts_with("!<thin>\n"))
    return "it is a thin archive, which names its members' files instead of holding them; make it with "
           "nvcc -lib or ar rc";
  if (!bytes.starts_with("!<arch>\n")) return "it is not an ar archive (no !<arch> header)";
  std::uint64_t at = 8;
  std::string host_machine; // of an object without device code
  bool device_code = false;
  while (at < bytes.size()) {
    const std::string at_byte = " at byte " + std::to_string(at);
    if (bytes.size() - at < 60) return "the member header" + at_byte + " is cut short" + std::string(truncated);
    const std::string_view header = bytes.substr(at, 60);
    if (header.substr(58) != "`\n") return "the member header" + at_byte + " is damaged";
    std::uint64_t size = 0;
    const std::string_view digits = header.substr(48, 10);
    std::size_t i = 0;
    for (; i < digits.size() && digits[i] >= '0' && digits[i] <= '9'; ++i)
      size = size * 10 + static_cast<std::uint64_t>(digits[i] - '0');
    if (i == 0 || digits.find_first_not_of(' ', i) != std::string_view::npos)
      return "the member header" + at_byte + " is damaged";
    std::string_view name = header.substr(0, 16);
    name = name.substr(0, name.find_last_not_of(' ') + 1);
    if (!fits(bytes, at + 60, size))
      return "its member '" + std::string(name) + "' ends past its end" + std::string(truncated);
    const std::string_view member = bytes.substr(at + 60, size);
    if (member.starts_with("\x7f"
                           "ELF")) {
      if (std::string why = elf_damage(member); !why.empty()) return "its member '" + std::string(name) + "': " + why;
      if (elf_holds_device_code(member))
        device_code = true;
      else if (host_machine.empty())
        host_machine = elf_machine_name(member);
    }
    at += 60 + size + (size & 1);
  }
  if (!device_code && !host_machine.empty())
    return "none of its objects holds device code: it is a library of objects for " + host_machine +
           ", as a host compiler makes; make device code with nvcc -dc and archive it with nvcc -lib (a "
           "cuda_device_library)";
  return {};
}

// One entry of a fat binary: what it holds (fatbin_ptx, fatbin_cubin, fatbin_ltoir or
// another kind) and for which architecture (75 for sm_75 or compute_75).
struct fatbin_entry {
  std::uint16_t kind = 0;
  std::uint32_t arch = 0;
  friend bool operator==(const fatbin_entry &, const fatbin_entry &) = default;
};
inline constexpr std::uint16_t fatbin_ptx = 1, fatbin_cubin = 2, fatbin_ltoir = 8;

// The entries of the fat binaries `bytes` holds (whole: fatbin_damage found nothing), each
// kind and architecture once, appended to `out`. The entry header holds the kind at byte 0
// and the architecture at byte 28, also for a compressed payload.
inline void fatbin_entries(std::string_view bytes, std::vector<fatbin_entry> &out) {
  for_each_fatbin_entry(bytes, [&](const fatbin_entry_at &at) {
    fatbin_entry e;
    if (at.header >= 32 && read_at(at.within, at.entry, e.kind) && read_at(at.within, at.entry + 28, e.arch) &&
        std::find(out.begin(), out.end(), e) == out.end())
      out.push_back(e);
    return std::string();
  });
}

// Calls `fn(member)` with each ELF object of an ar archive (whole: archive_damage found nothing).
template <class Fn> void for_each_archive_object(std::string_view bytes, Fn &&fn) {
  for (std::uint64_t at = 8; bytes.starts_with("!<arch>\n") && at + 60 <= bytes.size();) {
    std::uint64_t size = 0;
    const std::string_view digits = bytes.substr(at + 48, 10);
    for (std::size_t i = 0; i < digits.size() && digits[i] >= '0' && digits[i] <= '9'; ++i)
      size = size * 10 + static_cast<std::uint64_t>(digits[i] - '0');
    if (!fits(bytes, at + 60, size)) break;
    const std::string_view member = bytes.substr(at + 60, size);
    if (member.starts_with("\x7f"
                           "ELF"))
      fn(member);
    at += 60 + size + (size & 1);
  }
}

// The same for the fat binaries of an ELF host object (nvcc -dc or -c).
inline void object_fatbin_entries(std::string_view bytes, std::vector<fatbin_entry> &out) {
  for_each_fatbin_section(bytes, [&](std::string_view fatbin) { fatbin_entries(fatbin, out); });
}

} // namespace device_code_files

/// What the fat binaries in `bytes` (whole: device_code_damage found nothing) hold: each kind
/// of entry and architecture once, for an object, a library (its members') or a fat binary;
/// nothing for the other formats, whose architecture is the file's own.
inline std::vector<device_code_files::fatbin_entry> device_code_entries(link_format format, std::string_view bytes) {
  using namespace device_code_files;
  std::vector<fatbin_entry> entries;
  if (format == link_format::fatbin) {
    fatbin_entries(bytes, entries);
  } else if (format == link_format::object) {
    object_fatbin_entries(bytes, entries);
  } else if (format == link_format::library) {
    for_each_archive_object(bytes, [&](std::string_view member) { object_fatbin_entries(member, entries); });
  }
  return entries;
}

/// Calls `fn(payload)` with each piece of device code `bytes` (whole: device_code_damage found
/// nothing) holds as nvJitLink reads it: the file itself for PTX, a cubin or LTO-IR; each
/// entry, decompressed, of a fat binary, of an object's fat binaries and of a library's
/// objects. An entry that does not decompress is skipped (device_code_damage reports it).
template <class Fn> void for_each_device_code_payload(link_format format, std::string_view bytes, Fn &&fn) {
  using namespace device_code_files;
  const auto fatbin = [&](std::string_view fat) {
    for_each_fatbin_entry(fat, [&](const fatbin_entry_at &e) {
      std::unique_ptr<char[]> decompressed;
      std::string why;
      const std::string_view contents = fatbin_payload(e.within, e.entry, e.header, e.stored, decompressed, why);
      if (why.empty()) fn(contents);
      return std::string();
    });
  };
  const auto object = [&](std::string_view elf) { for_each_fatbin_section(elf, fatbin); };
  switch (format) {
  case link_format::fatbin: fatbin(bytes); break;
  case link_format::object: object(bytes); break;
  case link_format::library: for_each_archive_object(bytes, object); break;
  default: fn(bytes); break;
  }
}

namespace device_code_files {

/// The names in an ELF file's symbol tables; with `data_only`, those of variables alone
/// (STT_OBJECT, or the type 13 a cubin gives __device__, __constant__ and __managed__ ones,
/// defined or referenced). Every offset and size comes from the file and is checked.
inline std::vector<std::string> elf_symbols(std::string_view elf, bool data_only) {
  std::vector<std::string> names;
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0;
  if (elf.size() < 64 ||
      !elf.starts_with("\x7f"
                       "ELF") ||
      !read_at(elf, 0x28, shoff) || !read_at(elf, 0x3A, shentsize) || !read_at(elf, 0x3C, shnum) || shentsize < 0x40 ||
      !fits(elf, shoff, std::uint64_t{shnum} * shentsize))
    return names;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t sh = shoff + std::uint64_t{i} * shentsize;
    std::uint32_t type = 0, link = 0;
    std::uint64_t offset = 0, size = 0, entsize = 0, str_offset = 0, str_size = 0;
    if (!read_at(elf, sh + 4, type) || type != 2 /* SHT_SYMTAB */) continue;
    if (!read_at(elf, sh + 0x18, offset) || !read_at(elf, sh + 0x20, size) || !read_at(elf, sh + 0x28, link) ||
        !read_at(elf, sh + 0x38, entsize) || entsize < 8 || !fits(elf, offset, size) || link >= shnum)
      continue;
    const std::uint64_t strtab = shoff + std::uint64_t{link} * shentsize;
    if (!read_at(elf, strtab + 0x18, str_offset) || !read_at(elf, strtab + 0x20, str_size) ||
        !fits(elf, str_offset, str_size))
      continue;
    for (std::uint64_t sym = 0; sym + entsize <= size; sym += entsize) {
      // Elf64_Sym: st_name, st_info (the type in its low 4 bits), ...
      std::uint32_t name = 0;
      std::uint8_t info = 0;
      read_at(elf, offset + sym, name);
      read_at(elf, offset + sym + 4, info);
      if (name == 0 || name >= str_size) continue;
      if (data_only && (info & 0xf) != 1 /* STT_OBJECT */ && (info & 0xf) != 13 /* CUDA's variables */) continue;
      const std::string_view names_from = elf.substr(str_offset + name, str_size - name);
      names.emplace_back(names_from.substr(0, names_from.find('\0')));
    }
  }
  return names;
}

/// Whether PTX `text` names `symbol` as a variable: a .global or .const directive (after
/// .visible, .extern or .weak) declaring it, as `.visible .global .align 4 .u32 twice = 3;`
/// (not its initialiser, `.u64 fp = twice;`, nor a comment).
inline bool ptx_names_variable(std::string_view text, std::string_view symbol) {
  const auto identifier = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
  };
  for (std::size_t at = text.find(symbol); !symbol.empty() && at != std::string_view::npos;
       at = text.find(symbol, at + 1)) {
    const std::size_t after = at + symbol.size();
    if ((at > 0 && identifier(text[at - 1])) || (after < text.size() && identifier(text[after]))) continue;
    const std::size_t begin = text.rfind('\n', at), from = begin == std::string_view::npos ? 0 : begin + 1;
    std::string_view line = text.substr(from);
    line = line.substr(0, line.find('\n'));
    // The declarator: before an initialiser or a comment.
    const std::size_t declarator = std::min(line.find('='), line.find("//"));
    if (declarator != std::string_view::npos && at - from >= declarator) continue;
    const auto next_word = [&line] {
      const std::size_t from = line.find_first_not_of(" \t\r");
      if (from == std::string_view::npos) return std::string_view();
      line.remove_prefix(from);
      const std::string_view word = line.substr(0, line.find_first_of(" \t\r"));
      line.remove_prefix(word.size());
      return word;
    };
    std::string_view word = next_word();
    while (word == ".visible" || word == ".extern" || word == ".weak" || word == ".common") word = next_word();
    if (word == ".global" || word == ".const") return true;
  }
  return false;
}

} // namespace device_code_files

/// Whether device code `bytes` of `format` (whole: device_code_damage found nothing) names
/// `symbol` as a variable, in PTX or a cubin, alone or within a fat binary, object or library.
/// nvJitLink crashes linking such a variable with a call of a function of its name. LTO-IR is
/// not read (only nvJitLink sees into it); CUDA-C is read as the PTX NVRTC makes of it.
inline bool names_variable(link_format format, std::string_view bytes, std::string_view symbol) {
  if (format == link_format::ltoir) return false;
  bool found = false;
  for_each_device_code_payload(format, bytes, [&](std::string_view payload) {
    if (found) return;
    if (payload.starts_with("\x7f"
                            "ELF")) {
      const std::vector<std::string> data = device_code_files::elf_symbols(payload, true);
      found = std::find(data.begin(), data.end(), symbol) != data.end();
    } else if (const std::string_view start = payload.substr(0, 4096);
               start.find(".version") != std::string_view::npos &&
               start.find('\0') >= std::max<std::size_t>(start.size(), 1) - 1) {
      // PTX: text (LTO-IR, bitcode full of zero bytes, is not read).
      found = device_code_files::ptx_names_variable(payload, symbol);
    }
  });
  return found;
}

namespace device_code_files {

// The first `count` tokens of PTX text: words between blank space, commas and comments (//
// and /* */), past a UTF-8 byte order mark. Enough to read a module's header: PTX starts with
// its .version directive, then its .target; what the module says is the PTX compiler's to judge.
inline std::vector<std::string_view> ptx_header_tokens(std::string_view text, std::size_t count) {
  std::vector<std::string_view> tokens;
  if (text.starts_with("\xef\xbb\xbf")) text.remove_prefix(3);
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; };
  std::size_t p = 0;
  while (p < text.size() && tokens.size() < count) {
    if (blank(text[p]) || text[p] == ',') {
      ++p;
    } else if (text.substr(p, 2) == "//") {
      p = text.find('\n', p);
    } else if (text.substr(p, 2) == "/*") {
      p = text.find("*/", p + 2);
      if (p != std::string_view::npos) p += 2;
    } else {
      const std::size_t begin = p;
      while (p < text.size() && !blank(text[p]) && text[p] != ',' && text.substr(p, 2) != "//" &&
             text.substr(p, 2) != "/*")
        ++p;
      tokens.push_back(text.substr(begin, p - begin));
    }
  }
  return tokens;
}

// Why `bytes` are not PTX text: a module starts with its .version and .target directives.
inline std::string ptx_damage(std::string_view bytes) {
  while (!bytes.empty() && bytes.back() == '\0') bytes.remove_suffix(1); // a C string's end
  if (const std::size_t nul = bytes.find('\0'); nul != std::string_view::npos)
    return "it is not PTX text: it holds a NUL byte at offset " + std::to_string(nul);
  const std::vector<std::string_view> header = ptx_header_tokens(bytes, 3);
  if (header.empty()) return "it is empty (of PTX: blank space and comments at most)";
  if (header[0] != ".version") return "it is not PTX: it does not start with a .version directive, as PTX does";
  if (header.size() < 3 || header[2] != ".target")
    return "it is not PTX: its .version directive is not followed by a .target directive";
  return {};
}

// The GPU a PTX module is written for: N of its ".target sm_N" (sm_90a is 90), or -1.
inline int ptx_target_arch(std::string_view bytes) {
  const std::vector<std::string_view> header = ptx_header_tokens(bytes, 4);
  if (header.size() < 4 || header[0] != ".version" || header[2] != ".target" || !header[3].starts_with("sm_"))
    return -1;
  int arch = 0, digits = 0;
  for (std::size_t p = 3; p < header[3].size() && header[3][p] >= '0' && header[3][p] <= '9' && digits < 4;
       ++p, ++digits)
    arch = arch * 10 + (header[3][p] - '0');
  return digits ? arch : -1;
}

// Why `bytes` are not LTO-IR, which NVVM's container starts with the magic number 0x7F4E43ED.
inline std::string ltoir_damage(std::string_view bytes) {
  if (bytes.empty()) return "it is empty";
  if (bytes.size() < 4 || bytes.substr(0, 4) != std::string_view("\xed\x43\x4e\x7f", 4))
    return "it is not LTO-IR: it does not start with NVVM's 0x7F4E43ED (make it with nvcc -dlto -ltoir)";
  return {};
}

} // namespace device_code_files

/// Why `bytes` cannot be device code of `format` ("" when nothing is found wrong). Checks the
/// structure of the binary formats (cubin, object, fatbin, library), and that PTX is text with
/// its directives and LTO-IR NVVM's container; what the text and the IR say is left to NVRTC
/// and nvJitLink, which report their faults.
inline std::string device_code_damage(link_format format, std::string_view bytes) {
  using namespace device_code_files;
  switch (format) {
  case link_format::cubin:
    if (std::string why = elf_damage(bytes); !why.empty()) return why;
    if (elf_machine(bytes) != cuda_machine)
      return "it is not a cubin: an ELF file for " + elf_machine_name(bytes) + ", not for a GPU";
    return {};
  case link_format::object:
    if (std::string why = elf_damage(bytes); !why.empty()) return why;
    if (!elf_holds_device_code(bytes))
      return "it holds no device code: it is an object for " + elf_machine_name(bytes) +
             " without nvcc's fat binary, as a host compiler makes; compile CUDA-C with nvcc -dc (a "
             "cuda_device_library)";
    return {};
  case link_format::fatbin: return fatbin_damage(bytes);
  case link_format::library: return archive_damage(bytes);
  case link_format::ptx: return ptx_damage(bytes);
  case link_format::ltoir: return ltoir_damage(bytes);
  case link_format::cuda: break;
  }
  return {};
}

namespace device_code_files {

// "dir/" of "dir/x.cu"; "" for "x.cu".
inline std::string directory_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash + 1));
}

// "a/./b/../c.h" as "a/c.h", so that one file named two ways is seen as one.
inline std::string lexically_normal(std::string_view path) {
  std::vector<std::string_view> parts;
  const bool absolute = path.starts_with('/');
  std::size_t leading_up = 0;
  for (std::size_t begin = 0; begin <= path.size();) {
    const std::size_t end = std::min(path.find('/', begin), path.size());
    const std::string_view part = path.substr(begin, end - begin);
    if (part == "..") {
      if (!parts.empty())
        parts.pop_back();
      else if (!absolute)
        ++leading_up;
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    begin = end + 1;
  }
  std::string out = absolute ? "/" : "";
  for (std::size_t i = 0; i < leading_up; ++i) out += "../";
  for (std::size_t i = 0; i < parts.size(); ++i) out += std::string(parts[i]) + (i + 1 < parts.size() ? "/" : "");
  return out;
}

// A file name as the string literal of a #line directive.
inline std::string line_directive_name(std::string_view name) {
  std::string q = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

// What follows `#directive` on a line (blanks skipped), or nullopt for another line.
inline std::optional<std::string_view> directive_argument(std::string_view line, std::string_view directive) {
  auto skip_blanks = [&](std::size_t i) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    return i;
  };
  std::size_t i = skip_blanks(0);
  if (i == line.size() || line[i] != '#') return std::nullopt;
  i = skip_blanks(i + 1);
  if (line.substr(i, directive.size()) != directive) return std::nullopt;
  return line.substr(skip_blanks(i + directive.size()));
}

// A `#include "name"` line: the name, and what follows its closing quote (a comment, which
// may go on over the next lines).
struct quoted_include_line {
  std::string_view name, after;
};
inline std::optional<quoted_include_line> quoted_include(std::string_view line) {
  const std::optional<std::string_view> rest = directive_argument(line, "include");
  if (!rest || !rest->starts_with('"')) return std::nullopt;
  const std::size_t close = rest->find('"', 1);
  if (close == std::string_view::npos || close == 1) return std::nullopt;
  return quoted_include_line{rest->substr(1, close - 1), rest->substr(close + 1)};
}

// Whether nothing but blanks and a comment follows on a line.
inline bool only_comment_after(std::string_view rest) {
  const std::size_t at = rest.find_first_not_of(" \t\r\n");
  return at == std::string_view::npos || rest.substr(at).starts_with("//") || rest.substr(at).starts_with("/*");
}

inline bool is_pragma_once(std::string_view line) {
  const std::optional<std::string_view> rest = directive_argument(line, "pragma");
  return rest && rest->starts_with("once") && only_comment_after(rest->substr(4));
}

inline bool is_identifier_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Whether a line ends inside a /* comment, given whether it began in one. String and
// character literals are skipped (raw strings are not recognised).
inline bool ends_in_comment(std::string_view line, bool in_comment) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (in_comment) {
      if (line.substr(i, 2) == "*/") {
        in_comment = false;
        ++i;
      }
    } else if (line.substr(i, 2) == "//") {
      return false;
    } else if (line.substr(i, 2) == "/*") {
      in_comment = true;
      ++i;
    } else if (line[i] == '"' || (line[i] == '\'' && !(i > 0 && is_identifier_char(line[i - 1])))) {
      // (A ' after a digit or letter is a digit separator, 1'000, or ends a prefix, u8'a'.)
      const char quote = line[i];
      for (++i; i < line.size() && line[i] != quote; ++i)
        if (line[i] == '\\') ++i;
    }
  }
  return in_comment;
}

// A name for the macro that stands for a file's `#pragma once`.
inline std::string once_macro(std::string_view file) {
  std::uint64_t h = 1469598103934665603ull; // FNV-1a
  for (char c : file) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  static constexpr char digits[] = "0123456789abcdef";
  std::string name = "__kernel_included_";
  for (int shift = 60; shift >= 0; shift -= 4) name += digits[(h >> shift) & 15];
  return name;
}

// The text of a line outside its comments, given whether it began inside one (updated).
inline std::string code_of(std::string_view line, bool &in_comment) {
  std::string code;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (in_comment) {
      if (line.substr(i, 2) == "*/") {
        in_comment = false;
        ++i;
        code += ' ';
      }
    } else if (line.substr(i, 2) == "//") {
      break;
    } else if (line.substr(i, 2) == "/*") {
      in_comment = true;
      ++i;
    } else {
      code += line[i];
    }
  }
  return code;
}

// The name a file's classic include guard defines (`#ifndef X` / `#define X` first, and the
// matching `#endif` last, with only comments around them), or "" for a file without one.
inline std::string include_guard(std::string_view text) {
  bool in_comment = false;
  std::string guard;
  int step = 0, depth = 0; // step 0: before #ifndef, 1: before #define, 2: inside, 3: after
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string code = code_of(text.substr(begin, end - begin), in_comment);
    begin = end;
    if (code.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    auto word = [](std::string_view rest) {
      std::size_t n = 0;
      while (n < rest.size() && is_identifier_char(rest[n])) ++n;
      return rest.find_first_not_of(" \t\r\n", n) == std::string_view::npos ? rest.substr(0, n) : std::string_view();
    };
    if (step == 0) {
      const auto rest = directive_argument(code, "ifndef");
      if (!rest || (guard = std::string(word(*rest))).empty()) return "";
      step = depth = 1;
    } else if (step == 1) {
      const auto rest = directive_argument(code, "define");
      if (!rest || word(*rest) != guard) return "";
      step = 2;
    } else if (step == 2) {
      if (directive_argument(code, "if"))
        ++depth;
      else if (directive_argument(code, "endif") && --depth == 0)
        step = 3;
      else if (depth == 1 && (directive_argument(code, "else") || directive_argument(code, "elif")))
        return ""; // a second branch, compiled when the macro is defined: not only a guard
    } else {
      return ""; // code after the guard's #endif
    }
  }
  return step == 3 ? guard : "";
}

template <class Read> class include_writer {
public:
  explicit include_writer(Read &read) : read_(read) {}

  // `source` (the file `path`) with each quoted include that `read` finds written in place.
  // `reached`: this copy is compiled wherever it is written (no #if around it but the guards
  // of the files around it, which pass on their first copy). `guarded`: the file has a
  // classic include guard (include_guard), read once by the caller, which needs it too.
  bool write(const std::string &path, std::string_view source, std::string &out, bool reached, bool guarded) {
    constexpr std::size_t deepest = 200; // GCC's default
    if (open_.size() > deepest) {
      error = "'" + path + "': quoted includes nest more than " + std::to_string(deepest) + " deep";
      return false;
    }
    open_.push_back(lexically_normal(path));
    bool in_comment = false;
    std::size_t number = 0;
    // The depth of #if nesting, and that of the file's own guard (whose #ifndef passes on the
    // file's first copy).
    int depth = 0;
    const int guard_depth = guarded ? 1 : 0;
    for (std::size_t begin = 0; begin < source.size();) {
      std::size_t end = source.find('\n', begin);
      end = end == std::string_view::npos ? source.size() : end + 1;
      const std::string_view line = source.substr(begin, end - begin);
      ++number;
      begin = end;
      const bool commented = in_comment;
      in_comment = ends_in_comment(line, in_comment);
      if (commented) {
        out += line;
        continue;
      }
      if (directive_argument(line, "if"))
        ++depth;
      else if (directive_argument(line, "endif"))
        --depth;
      // Written in, the file no longer stands alone: its `#pragma once` becomes a guard around
      // each copy (so that the preprocessor still decides, under #if, which one counts).
      if (is_pragma_once(line)) {
        out += "\n";
        continue;
      }
      const std::optional<quoted_include_line> include = quoted_include(line);
      if (!include) {
        out += line;
        continue;
      }
      const std::string file =
          lexically_normal(include->name.starts_with('/') ? std::string(include->name)
                                                          : directory_of(path) + std::string(include->name));
      // A file that includes one it is inside of: guarded, that include does nothing; written
      // in again, it would never end. Nor does an include of a guarded file compiled already
      // (written again, headers that include each other in a diamond grow as 2^depth).
      if (std::find(open_.begin(), open_.end(), file) != open_.end() || compiled_.contains(file)) {
        out += "\n";
        continue;
      }
      const std::optional<std::string> text = read_(file);
      if (!text) { // left to NVRTC, which reports it if the line is compiled
        out += line;
        continue;
      }
      const bool once = has_pragma_once(*text), classic = !include_guard(*text).empty();
      if (!out.empty() && out.back() != '\n') out += '\n';
      if (once) out += "#ifndef " + once_macro(file) + "\n#define " + once_macro(file) + "\n";
      out += "#line 1 " + line_directive_name(file) + "\n";
      const bool compiled_here = reached && depth == guard_depth;
      if (!write(file, *text, out, compiled_here, classic)) return false;
      if (out.size() > longest) {
        error = "'" + path + "': its quoted includes, written in, come to more than " + std::to_string(longest >> 20) +
                " MiB of text";
        return false;
      }
      // Later includes of it are skipped by its guard. (Assumed of a classic guard: that its
      // macro is not #undef'd.)
      if (compiled_here && (once || classic)) compiled_.insert(file);
      if (!out.empty() && out.back() != '\n') out += '\n';
      if (once) out += "#endif\n";
      // What followed the name (a comment that may go on) stays on its line.
      if (only_blanks(include->after)) {
        out += "#line " + std::to_string(number + 1) + " " + line_directive_name(path) + "\n";
      } else {
        out += "#line " + std::to_string(number) + " " + line_directive_name(path) + "\n";
        out += include->after;
      }
    }
    open_.pop_back();
    return true;
  }

  std::string error;

private:
  static bool only_blanks(std::string_view text) { return text.find_first_not_of(" \t\r\n") == std::string_view::npos; }

  static bool has_pragma_once(std::string_view text) {
    bool in_comment = false;
    for (std::size_t begin = 0; begin < text.size();) {
      std::size_t end = text.find('\n', begin);
      end = end == std::string_view::npos ? text.size() : end + 1;
      const std::string_view line = text.substr(begin, end - begin);
      begin = end;
      if (!in_comment && is_pragma_once(line)) return true;
      in_comment = ends_in_comment(line, in_comment);
    }
    return false;
  }

  static constexpr std::size_t longest = std::size_t{256} << 20;

  Read &read_;
  std::vector<std::string> open_;  // the files being written, outermost first
  std::set<std::string> compiled_; // guarded files written where they are compiled
};

} // namespace device_code_files

/// CUDA-C `source`, the file `path` (or the name NVRTC compiles it under), with the files its
/// `#include "..."` lines name written in place, recursively, and #line directives so that
/// NVRTC's messages name them. A name is looked up as NVRTC looks it up, relative to the
/// directory of the file that includes it; `read(path)` returns a file's text, or nullopt
/// where there is none (the line is then left for NVRTC to report). `#pragma once` is kept
/// (as a guard around each copy), and a file that includes one it is inside of gets nothing
/// there (as a guarded one would); nor does an include of a guarded file (`#pragma once` or a
/// classic guard) after a copy of it outside any #if. Returns false, with `error` set, for
/// includes nested past 200 deep or written out past 256 MiB.
template <class Read>
bool with_quoted_includes(const std::string &path, std::string_view source, Read &&read, std::string &out,
                          std::string &error) {
  device_code_files::include_writer<std::remove_reference_t<Read>> writer(read);
  out.clear();
  const bool ok = writer.write(path, source, out, true, !device_code_files::include_guard(source).empty());
  error = writer.error;
  return ok;
}

} // namespace kernel::detail

#endif
