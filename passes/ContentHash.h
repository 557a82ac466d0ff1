// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ContentHash.h - Stable identity of generated code ---------*- C++ -*-===//
//
// A module is identified by a hash of what it contains (the PTX of each architecture and
// its entries), never by a random or path-dependent id: the same source compiled twice, in
// two directories or two translation units, gets the same key, so the runtime
// deduplicates modules and its disk cache hits.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_CONTENTHASH_H
#define KERNEL_PASSES_CONTENTHASH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace kernel {
namespace passes {

/// Hex SHA-256 prefix (128 bits) of `Parts`, each length-prefixed so that boundaries count.
std::string contentHash(llvm::ArrayRef<llvm::StringRef> Parts);

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_CONTENTHASH_H
