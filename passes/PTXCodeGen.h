// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- PTXCodeGen.h - Optimising and emitting PTX ----------------*- C++ -*-===//
//
// Compiles a prepared GPU module for one architecture: O3 with the NVPTX target machine's
// own pipeline additions (NVVMReflect resolves libdevice's __nvvm_reflect queries), then
// the NVPTX backend's assembly printer.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_PTXCODEGEN_H
#define KERNEL_PASSES_PTXCODEGEN_H

#include "DeviceDiagnostics.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"

#include <optional>
#include <string>

namespace kernel {
namespace passes {

/// The NVPTX data layout (the same for every architecture), or std::nullopt with an error
/// when the NVPTX backend is not available in this LLVM.
std::optional<llvm::DataLayout> nvptxDataLayout(DeviceDiagnostics &Diags);

struct CompiledModule {
  std::string PTX;
  std::string OptimizedIR; ///< the module after optimisation, for inspection
  /// Each kernel's static shared memory in bytes, by symbol, once optimisation has dropped
  /// the shared arrays nothing uses: what a launch of it takes before its dynamic memory.
  llvm::StringMap<uint64_t> StaticSharedBytes;
};

/// PTX for `Arch` ("sm_90") from a copy of `Prepared`; std::nullopt after reporting an error.
/// The optimised IR is kept only when `KeepIR` is set.
std::optional<CompiledModule> emitPTX(const llvm::Module &Prepared, llvm::StringRef Arch,
                                      llvm::StringRef Features, bool KeepIR,
                                      DeviceDiagnostics &Diags);

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_PTXCODEGEN_H
