//===- LowerKernelIntrinsics.h - Kernel hooks to NVVM intrinsics -*- C++ -*-===//
//
// The kernel headers reach the GPU through extern "C" hooks (__kernel_tid_x,
// __kernel_syncthreads, __kernel_shfl_down, __kernel_shared_static ...; kernel/intrinsics.h
// and kernel/memory.h) that the runtime implements for the simulator. On the GPU each
// becomes the PTX special register, instruction or shared variable it stands for, and the
// simulator's bounds checks disappear.
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
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LOWERKERNELINTRINSICS_H
