// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- MapMathToLibdevice.h - C and C++ math on the GPU ----------*- C++ -*-===//
//
// Host IR calls the C math library (`expf`, `hypot`: what std::exp and std::hypot become)
// or LLVM's math intrinsics (`llvm.exp.f32`, which -fno-math-errno produces and the NVPTX
// backend cannot lower). On the GPU each becomes libdevice's implementation (`__nv_expf`),
// or a native instruction where PTX has one with the same IEEE semantics: sqrt (sqrt.rn,
// as nvcc; libdevice's __nv_sqrtf is approximate under LLVM's NVVMReflect), fabs, fma,
// floor, ceil, trunc, rint, copysign, fmin and fmax.
//
// Every libm function libdevice provides is covered: a declaration with C linkage is mapped
// when libdevice defines `__nv_<name>` with the same type.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_MAPMATHTOLIBDEVICE_H
#define KERNEL_PASSES_MAPMATHTOLIBDEVICE_H

#include "DeviceDiagnostics.h"
#include "LinkDeviceLibraries.h"

#include "llvm/IR/PassManager.h"

#include <memory>

namespace kernel {
namespace passes {

class MapMathToLibdevicePass : public llvm::PassInfoMixin<MapMathToLibdevicePass> {
public:
  /// Without libdevice only the native mappings are made, and math intrinsics left
  /// unmapped are reported. Errors go to `Diags` when given (the offload pass), else to the
  /// module's context.
  explicit MapMathToLibdevicePass(std::shared_ptr<LibdeviceSource> Libdevice,
                                  DeviceDiagnostics *Diags = nullptr)
      : Libdevice(std::move(Libdevice)), Diags(Diags) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }

private:
  std::shared_ptr<LibdeviceSource> Libdevice;
  DeviceDiagnostics *Diags;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_MAPMATHTOLIBDEVICE_H
