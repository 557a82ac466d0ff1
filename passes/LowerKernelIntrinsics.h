//===- LowerKernelIntrinsics.h - Kernel hooks to NVVM intrinsics -*- C++ -*-===//
//
// The kernel headers read the thread's position through extern "C" hooks
// (__kernel_tid_x ...; kernel/intrinsics.h) that the runtime implements for the
// simulator. On the GPU each becomes the PTX special register it stands for.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_LOWERKERNELINTRINSICS_H
#define KERNEL_PASSES_LOWERKERNELINTRINSICS_H

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class LowerKernelIntrinsicsPass : public llvm::PassInfoMixin<LowerKernelIntrinsicsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LOWERKERNELINTRINSICS_H
