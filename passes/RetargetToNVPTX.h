// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- RetargetToNVPTX.h - Host IR to NVPTX IR -------------------*- C++ -*-===//
//
// Makes the extracted module an NVPTX module: triple and data layout, no host function
// attributes (target CPU and features, frame pointers, stack protectors, unwind tables;
// optnone and the noinline that -O0 adds), no exception handling (invokes become calls:
// the plugin has rejected throw and try, so only cleanups remain), no comdats, no debug
// info and no host module flags.
//
// The x86-64 calling convention clang applied stays as it is: every caller and callee in
// the module agree on it, and kernel entries take one parameter block, not C++ arguments.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_RETARGETTONVPTX_H
#define KERNEL_PASSES_RETARGETTONVPTX_H

#include "DeviceDiagnostics.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/PassManager.h"

#include <optional>

namespace kernel {
namespace passes {

class RetargetToNVPTXPass : public llvm::PassInfoMixin<RetargetToNVPTXPass> {
public:
  /// Alone, the pass asks the NVPTX backend for the data layout (and reports to the
  /// module's context if it cannot).
  RetargetToNVPTXPass() = default;
  /// The offload pass asks once, before it extracts anything.
  explicit RetargetToNVPTXPass(llvm::DataLayout Layout) : Layout(std::move(Layout)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  std::optional<llvm::DataLayout> Layout;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_RETARGETTONVPTX_H
