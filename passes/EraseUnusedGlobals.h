// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- EraseUnusedGlobals.h - What the device module no longer uses -*- C++ -*-===//
//
// Several passes leave globals of the host's IR that nothing in the device module uses any
// more (declarations of host functions, host exception handling, instrumentation's data), and
// those may be the last users of others. One loop erases them until nothing more goes; each
// pass says which globals it may erase.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_ERASEUNUSEDGLOBALS_H
#define KERNEL_PASSES_ERASEUNUSEDGLOBALS_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace llvm {
class GlobalValue;
class Module;
} // namespace llvm

namespace kernel {
namespace passes {

/// Erases the aliases, functions and global variables of \p M that \p Erasable accepts and
/// nothing uses (dead constant users, such as an erased array's initializer, do not count),
/// again until none is left. Returns whether anything was erased.
bool eraseUnusedGlobals(llvm::Module &M,
                        llvm::function_ref<bool(const llvm::GlobalValue &)> Erasable);

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_ERASEUNUSEDGLOBALS_H
