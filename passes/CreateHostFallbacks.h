// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- CreateHostFallbacks.h - Declared device functions on the host -*- C++ -*-===//
//
// A kernel that calls a CUDA-C device function also runs on the CPU targets and the
// simulator, where no CUDA-C code exists. Each declared function gets a weak definition in
// the host object that reports the fact (naming the function, its declaration and what to
// do); a host implementation the user defines in another source file is a strong
// definition and replaces it at link time. CreateHostFallbacksPass does it for the
// functions the module's annotations declare.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_CREATEHOSTFALLBACKS_H
#define KERNEL_PASSES_CREATEHOSTFALLBACKS_H

#include "ExternalDeviceCode.h"

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

void createHostFallbacks(llvm::Module &Host, llvm::ArrayRef<ExternalFunction> Functions);

class CreateHostFallbacksPass : public llvm::PassInfoMixin<CreateHostFallbacksPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_CREATEHOSTFALLBACKS_H
