// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerKernelIntrinsics.h - Kernel hooks to NVVM intrinsics -*- C++ -*-===//
//
// The kernel headers reach the GPU through extern "C" hooks (__kernel_tid_x,
// __kernel_syncthreads_at, __kernel_shfl_down, __kernel_shared_static ...; kernel/intrinsics.h
// and kernel/memory.h) that the runtime implements for the simulator. On the GPU each
// becomes the PTX special register, instruction or shared variable it stands for, and the
// simulator's bounds checks disappear.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_LOWERKERNELINTRINSICS_H
#define KERNEL_PASSES_LOWERKERNELINTRINSICS_H

#include "DeviceDiagnostics.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

/// PTX's limit on the static shared memory of one kernel (more must be dynamic, opted into at
/// launch).
inline constexpr uint64_t MaxStaticSharedBytes = 48 * 1024;

/// The static shared memory (bytes, as PTX lays out its shared variables) of each kernel of a
/// GPU module whose shared arrays are lowered: each function nothing in the module calls, by
/// name.
llvm::StringMap<uint64_t> staticSharedBytesOfKernels(const llvm::Module &M);

class LowerKernelIntrinsicsPass : public llvm::PassInfoMixin<LowerKernelIntrinsicsPass> {
public:
  /// Errors (a shared array whose size is not a constant, kernels over
  /// MaxStaticSharedBytes) go to `Diags` when given (the offload pass), else to the module's
  /// context.
  explicit LowerKernelIntrinsicsPass(DeviceDiagnostics *Diags = nullptr) : Diags(Diags) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  DeviceDiagnostics *Diags;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LOWERKERNELINTRINSICS_H
