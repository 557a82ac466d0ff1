// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cubin reader (cuda::cubin_symbols) takes offsets and sizes from the file: a damaged or
// hostile cubin gives no names, never an out-of-bounds read or an endless loop. Real cubins
// are read by module_build_test.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "cuda/module_builder.h"

namespace {

using kernel::runtime::cuda::cubin_symbols;

template <class T> void put(std::vector<char> &elf, std::size_t at, T value) {
  std::memcpy(elf.data() + at, &value, sizeof value);
}

// An ELF64 file with two section headers at 0x40: a symbol table (index 0) whose string table
// is section 1, holding the names "a" and "kernel".
std::vector<char> small_elf() {
  std::vector<char> elf(0x200, 0);
  std::memcpy(elf.data(),
              "\x7f"
              "ELF",
              4);
  put<std::uint64_t>(elf, 0x28, 0x40); // e_shoff
  put<std::uint16_t>(elf, 0x3A, 0x40); // e_shentsize
  put<std::uint16_t>(elf, 0x3C, 2);    // e_shnum
  // Section 0: SHT_SYMTAB at 0x100, two 24-byte symbols, strings in section 1.
  put<std::uint32_t>(elf, 0x40 + 4, 2);
  put<std::uint64_t>(elf, 0x40 + 0x18, 0x100);
  put<std::uint64_t>(elf, 0x40 + 0x20, 48);
  put<std::uint32_t>(elf, 0x40 + 0x28, 1);
  put<std::uint64_t>(elf, 0x40 + 0x38, 24);
  // Section 1: the string table at 0x180.
  put<std::uint32_t>(elf, 0x80 + 4, 3);
  put<std::uint64_t>(elf, 0x80 + 0x18, 0x180);
  put<std::uint64_t>(elf, 0x80 + 0x20, 16);
  std::memcpy(elf.data() + 0x180, "\0a\0kernel\0", 10);
  put<std::uint32_t>(elf, 0x100, 1);
  put<std::uint32_t>(elf, 0x118, 3);
  return elf;
}

TEST(CubinReader, ReadsTheSymbolNames) {
  EXPECT_EQ(cubin_symbols(small_elf()), (std::vector<std::string>{"a", "kernel"}));
}

TEST(CubinReader, SectionHeadersBeyondTheFile) {
  std::vector<char> elf = small_elf();
  put<std::uint64_t>(elf, 0x28, std::numeric_limits<std::uint64_t>::max() - 8); // wraps when added to
  EXPECT_TRUE(cubin_symbols(elf).empty());
  elf = small_elf();
  put<std::uint16_t>(elf, 0x3C, 0xffff); // more headers than the file holds
  EXPECT_TRUE(cubin_symbols(elf).empty());
}

TEST(CubinReader, SymbolTableBeyondTheFile) {
  std::vector<char> elf = small_elf();
  put<std::uint64_t>(elf, 0x40 + 0x20, std::uint64_t{1} << 62); // would take forever to walk
  EXPECT_TRUE(cubin_symbols(elf).empty());
  elf = small_elf();
  put<std::uint64_t>(elf, 0x40 + 0x18, std::numeric_limits<std::uint64_t>::max() - 4);
  EXPECT_TRUE(cubin_symbols(elf).empty());
  elf = small_elf();
  put<std::uint64_t>(elf, 0x40 + 0x38, 0); // no entry size
  EXPECT_TRUE(cubin_symbols(elf).empty());
}

TEST(CubinReader, StringTableBeyondTheFile) {
  std::vector<char> elf = small_elf();
  put<std::uint32_t>(elf, 0x40 + 0x28, 7); // no such section
  EXPECT_TRUE(cubin_symbols(elf).empty());
  elf = small_elf();
  put<std::uint64_t>(elf, 0x80 + 0x18, std::numeric_limits<std::uint64_t>::max() - 2);
  EXPECT_TRUE(cubin_symbols(elf).empty());
  elf = small_elf();
  put<std::uint32_t>(elf, 0x118, 1000); // a name past its string table
  EXPECT_EQ(cubin_symbols(elf), std::vector<std::string>{"a"});
}

TEST(CubinReader, NotAnElfFile) {
  EXPECT_TRUE(cubin_symbols({}).empty());
  EXPECT_TRUE(cubin_symbols(std::vector<char>(100, 'x')).empty());
}

} // namespace
