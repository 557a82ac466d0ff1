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

#include "llvm/IR/PassManager.h"

#include <string>
#include <vector>

namespace kernel {
namespace passes {

class MapMathToLibdevicePass : public llvm::PassInfoMixin<MapMathToLibdevicePass> {
public:
  /// `Libdevice` may be null (not found): only native mappings are then made, and the
  /// other math calls are reported by unmapped().
  explicit MapMathToLibdevicePass(const llvm::Module *Libdevice) : Libdevice(Libdevice) {}

  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);

  /// Math intrinsics that were called but could not be mapped (libdevice missing or
  /// lacking them), and libm names whose type differs from libdevice's.
  const std::vector<std::string> &unmapped() const { return Unmapped; }

private:
  const llvm::Module *Libdevice;
  std::vector<std::string> Unmapped;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_MAPMATHTOLIBDEVICE_H
