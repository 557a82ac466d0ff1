// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerPrintf.h - printf in GPU code ------------------------*- C++ -*-===//
//
// printf in a kernel becomes the CUDA driver's vprintf(format, arguments): the variadic
// arguments of each call (already promoted by C's rules: float to double, small integers to
// int) are stored, each at its natural alignment, into a buffer on the thread's stack whose
// address vprintf takes.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_LOWERPRINTF_H
#define KERNEL_PASSES_LOWERPRINTF_H

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class LowerPrintfPass : public llvm::PassInfoMixin<LowerPrintfPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LOWERPRINTF_H
