//===- VerifyDeviceModule.h - Last checks before code generation -*- C++ -*-===//
//
// After the libraries are linked, every function the GPU module calls must be defined in
// it, be an intrinsic the NVPTX backend lowers, or be one of the system functions the CUDA
// driver provides (vprintf, __assertfail, malloc, free); and no call may be indirect.
// The plugin rejects such code at the source line first; this names what remains.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_VERIFYDEVICEMODULE_H
#define KERNEL_PASSES_VERIFYDEVICEMODULE_H

#include "DeviceDiagnostics.h"

#include "llvm/IR/PassManager.h"

#include <string>
#include <vector>

namespace kernel {
namespace passes {

class VerifyDeviceModulePass : public llvm::PassInfoMixin<VerifyDeviceModulePass> {
public:
  /// `Hint` is appended to each unresolved-call error (why math may be missing).
  /// `External` lists the functions linked at run time from the user's CUDA-C code.
  VerifyDeviceModulePass(DeviceDiagnostics &Diags, std::string Hint = "",
                         std::vector<std::string> External = {})
      : Diags(Diags), Hint(std::move(Hint)), External(std::move(External)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);

private:
  DeviceDiagnostics &Diags;
  std::string Hint;
  std::vector<std::string> External;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_VERIFYDEVICEMODULE_H
