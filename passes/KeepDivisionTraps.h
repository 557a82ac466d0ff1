// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KeepDivisionTraps.h - Integer divisions that trap on the CPU -*- C++ -*-===//
//
// On the CPU targets and the simulator an integer division by zero (or of the most negative
// value by -1) in a kernel's code is an error naming the call: x86 traps on it and the
// runtime turns the trap into arithmetic_error (runtime/cpu/trapping.cpp) or a simulator
// report. C++ makes the division undefined, so the optimiser may rewrite it into code that
// cannot trap (1 / b a compare and select, a / -1 a negation, (a * b) / b just a), drop it
// when its result is unused, or move it past a test of its divisor; the call then returned a
// value where it promised an error. In the host copies of the code the GPU entries reach,
// each division that may trap is preceded by a test of its operands that, where the division
// would trap, makes one the optimiser cannot see through (its operands pass through an empty
// inline asm, its result into one with side effects), which traps. Past the test the division
// is one C++ defines, optimised as it allows. So for integers of every width and vectors of
// them (a lane that would trap makes the vector's division trap); where x86 divides the type
// otherwise than in one instruction (a _BitInt of 37 bits, a vector), the trap is a 32-bit
// division by zero. A divisor that is a constant other than 0 (and -1 for a signed division),
// in every lane, cannot trap and is left alone. The GPU module is copied before this pass
// runs: a GPU does not trap, and its code is optimised as C++ allows.
// A reached function another translation unit may also define (an inline function, a
// template's instantiation) reaches the divisions through a copy of this unit's own: the
// linker may take the other unit's copy, compiled without the test. Calls in this module go
// to an internal copy that keeps the tests (also calls through an alias of it); the original
// keeps them too, and is what taking the function's address gives, so that it stays one
// function in every unit.
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
