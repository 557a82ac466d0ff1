// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- CreateKernelEntries.h - PTX entry points ------------------*- C++ -*-===//
//
// For each entry the plugin instantiated (kernel::detail::ufunc_kernel<&f>, which takes
// its parameter block by reference), adds the PTX kernel the runtime launches: a function
// with the ptx_kernel calling convention, named as the entry, taking the block as one
// byval parameter and calling the entry, which is inlined into it. Then internalises
// everything but the kernels and the [[kernel::device]] functions, so that the optimiser
// may inline and drop the rest. The entries and device functions come from
// DeviceCodeAnalysis.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_CREATEKERNELENTRIES_H
#define KERNEL_PASSES_CREATEKERNELENTRIES_H

#include "DeviceDiagnostics.h"

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class CreateKernelEntriesPass : public llvm::PassInfoMixin<CreateKernelEntriesPass> {
public:
  /// Errors go to `Diags` when given (the offload pass), else to the module's context.
  explicit CreateKernelEntriesPass(DeviceDiagnostics *Diags = nullptr) : Diags(Diags) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  DeviceDiagnostics *Diags;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_CREATEKERNELENTRIES_H
