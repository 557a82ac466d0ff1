//===- ExtractDeviceModule.h - The code a GPU module needs -------*- C++ -*-===//
//
// Copies into a new module what the GPU roots (kernel entries, device functions) reach in
// the host module: functions they call or take the address of and globals they read,
// transitively. Everything else is left out, so host-only code never meets the NVPTX
// backend.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_EXTRACTDEVICEMODULE_H
#define KERNEL_PASSES_EXTRACTDEVICEMODULE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Module.h"

#include <memory>

namespace kernel {
namespace passes {

std::unique_ptr<llvm::Module> extractDeviceModule(const llvm::Module &Host,
                                                  llvm::ArrayRef<const llvm::GlobalValue *> Roots);

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_EXTRACTDEVICEMODULE_H
