// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ContentHash.cpp - Stable identity of generated code ----------------===//

#include "ContentHash.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/SHA256.h"

using namespace llvm;

namespace kernel {
namespace passes {

std::string contentHash(ArrayRef<StringRef> Parts) {
  SHA256 Hasher;
  for (StringRef Part : Parts) {
    uint8_t Length[8];
    support::endian::write64le(Length, Part.size());
    Hasher.update(ArrayRef<uint8_t>(Length, 8));
    Hasher.update(Part);
  }
  std::array<uint8_t, 32> Digest = Hasher.final();
  return toHex(ArrayRef<uint8_t>(Digest.data(), 16), /*LowerCase=*/true);
}

} // namespace passes
} // namespace kernel
