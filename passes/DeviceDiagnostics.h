// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceDiagnostics.h - Errors of the GPU compilation -------*- C++ -*-===//
//
// The passes report errors through the LLVMContext, so that clang prints them as compiler
// errors and fails the compile, and record that they did, so that the offload pass stops
// before generating code from a module known to be wrong. The plugin rejects almost
// everything at the source level first; these are the backstops.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_DEVICEDIAGNOSTICS_H
#define KERNEL_PASSES_DEVICEDIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"

namespace kernel {
namespace passes {

class DeviceDiagnostics {
public:
  explicit DeviceDiagnostics(llvm::LLVMContext &Ctx) : Ctx(Ctx) {}

  void error(const llvm::Twine &Message) {
    Failed = true;
    Ctx.emitError("kernel: " + Message);
  }
  /// What compiles but will fail later, where it can still be fixed. (LLVM 19 has no
  /// generic diagnostic class: emitError too reports through the inline-asm one.)
  void warning(const llvm::Twine &Message) {
    Ctx.diagnose(llvm::DiagnosticInfoInlineAsm("kernel: " + Message, llvm::DS_Warning));
  }
  bool failed() const { return Failed; }

private:
  llvm::LLVMContext &Ctx;
  bool Failed = false;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_DEVICEDIAGNOSTICS_H
