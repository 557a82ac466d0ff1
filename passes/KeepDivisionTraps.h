// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KeepDivisionTraps.h - Integer divisions that trap on the CPU -*- C++ -*-===//
//
// On the CPU targets and the simulator an integer division by zero (or of the most negative
// value by -1) in a kernel's code is an error naming the call: x86 traps on it and the
// runtime turns the trap into arithmetic_error (runtime/cpu/trapping.cpp) or a simulator
// report. C++ makes the division undefined, so the optimiser may rewrite it into code that
// cannot trap: 1 / b becomes a compare and select, a / -1 a negation, (a * b) / b just a;
// the call then returns a value where it promised an error. In the host copies of the code
// the GPU entries reach, each such division's operands pass through an empty inline asm,
// which the optimiser cannot see through, so the division stays a division. A divisor that
// is a constant other than 0 (and -1 for a signed division) cannot trap and is left alone,
// as are integers wider than 64 bits, which a library call divides. The GPU module is copied
// before this pass runs: a GPU does not trap, and its code is optimised as C++ allows.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_KEEPDIVISIONTRAPS_H
#define KERNEL_PASSES_KEEPDIVISIONTRAPS_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

/// Keeps the divisions of the functions among `Reached` that may trap; true if it changed any.
bool keepDivisionTraps(llvm::Module &M,
                       const llvm::SmallPtrSetImpl<const llvm::GlobalValue *> &Reached);

/// keepDivisionTraps on what the module's annotated device code reaches, for opt.
class KeepDivisionTrapsPass : public llvm::PassInfoMixin<KeepDivisionTrapsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_KEEPDIVISIONTRAPS_H
