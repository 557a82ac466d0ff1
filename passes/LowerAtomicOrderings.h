// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LowerAtomicOrderings.h - C++ memory orders on the GPU -----*- C++ -*-===//
//
// LLVM 19's NVPTX backend selects atomic loads and stores only when relaxed (monotonic),
// and no fence at all: `std::atomic_ref<int>(x).store(v)` (seq_cst), an acquire load or
// `std::atomic_thread_fence` made it stop with "Cannot select". This pass gives them the
// PTX memory model's fences-around-relaxed mapping: a fence becomes membar (membar.sys for
// fences of the whole system, as C++'s are; membar.cta for a block's scope; none for one
// thread's), an acquire load is a relaxed load followed by one, a release store a relaxed
// store after one, and read-modify-write atomics stronger than relaxed (which the backend
// emits without any) get them on the sides their order needs.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_LOWERATOMICORDERINGS_H
#define KERNEL_PASSES_LOWERATOMICORDERINGS_H

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class LowerAtomicOrderingsPass : public llvm::PassInfoMixin<LowerAtomicOrderingsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LOWERATOMICORDERINGS_H
