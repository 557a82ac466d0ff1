// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceCodeAnalysis.h - What a module holds for the GPU ----*- C++ -*-===//
//
// The device passes need to know which functions are kernel entries (with their
// EntryAnnotation), which are [[kernel::device]] functions and which declared CUDA-C
// functions are linked at run time. A host module says so in llvm.global.annotations; the
// GPU module extracted from it cannot keep that array (it would keep host code alive), so
// ExtractDeviceModule records the same annotations in the named metadata
// `kernel.device_code`, as pairs of a symbol name and the annotation string
// (KernelAnnotations.h): a name keeps nothing alive, and metadata never reaches the PTX (the
// offload pass drops it before code generation all the same). This analysis reads whichever
// of the two the module has, so that each device pass can run alone on a module at any
// stage (opt -passes=kernel-create-entries) as well as inside the offload pass.
//
// Symbols, not Function pointers: the device passes rename entries (CreateKernelEntries),
// replace declarations (library linking) and erase them.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_DEVICECODEANALYSIS_H
#define KERNEL_PASSES_DEVICECODEANALYSIS_H

#include "KernelAnnotations.h"

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kernel {
namespace passes {

struct DeviceSymbols {
  struct Entry {
    std::string Symbol; ///< the entry's host function: kernel::detail::ufunc_kernel<&f> etc.
    EntryAnnotation Info;
  };
  struct External {
    std::string Symbol; ///< the C++ declaration's
    DeclareDeviceAnnotation Info;
  };

  std::vector<Entry> Entries;               ///< in collectDeviceCode's order
  std::vector<std::string> DeviceFunctions; ///< [[kernel::device]] functions
  /// [[kernel::declare_device]] functions, in collectExternalFunctions' order: a failing
  /// Numba-convention call records its position + 1 (ExternalDeviceCode.h).
  std::vector<External> Externals;

  bool empty() const { return Entries.empty() && DeviceFunctions.empty(); }
};

/// The name of the metadata in which a GPU module describes its device code.
inline constexpr llvm::StringLiteral DeviceSymbolsMetadataName = "kernel.device_code";

/// What DeviceCodeAnalysis computes: from `kernel.device_code` if `M` has it, else from its
/// llvm.global.annotations.
DeviceSymbols describeDeviceCode(llvm::Module &M);

/// Records `Symbols` in `M` (replacing any earlier record).
void recordDeviceSymbols(llvm::Module &M, const DeviceSymbols &Symbols);

/// Removes the record: code generation does not need it.
void eraseDeviceSymbols(llvm::Module &M);

class DeviceCodeAnalysis : public llvm::AnalysisInfoMixin<DeviceCodeAnalysis> {
public:
  using Result = DeviceSymbols;
  Result run(llvm::Module &M, llvm::ModuleAnalysisManager &) { return describeDeviceCode(M); }

private:
  friend llvm::AnalysisInfoMixin<DeviceCodeAnalysis>;
  static llvm::AnalysisKey Key;
};

/// Prints DeviceCodeAnalysis: one line per entry, device function and external function.
class DeviceCodePrinterPass : public llvm::PassInfoMixin<DeviceCodePrinterPass> {
public:
  explicit DeviceCodePrinterPass(llvm::raw_ostream &OS) : OS(OS) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  llvm::raw_ostream &OS;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_DEVICECODEANALYSIS_H
