// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- RecordSimulatorStack.h - The stack simulated threads need -*- C++ -*-===//
//
// The simulator runs each thread of a block on a small stack of its own. To refuse a launch
// whose threads cannot fit before any of them runs, each entry's descriptor holds the stack
// its threads need at least (kernel_entry::simulator_min_stack). This pass fills it in at
// the end of the host's optimisation pipeline, when inlining, the removal of unused locals
// and tail calls have shaped the frames: measured earlier, the number could exceed what the
// compiled code needs, and a kernel that fits would be refused.
//
// The measure of a function is its largest local (a frame holds it; locals that do not live
// at once may share a slot), plus what a function it calls on every path through it needs
// (a tail call: the larger of the two, as its frame may replace the caller's). Calls made on
// some paths only, recursion, and callees another definition may replace at link time are
// left out: a lower bound. For an entry with an instrumented copy, the smaller of the copy's
// and the original's, as a launch of one thread runs the original.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_RECORDSIMULATORSTACK_H
#define KERNEL_PASSES_RECORDSIMULATORSTACK_H

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class RecordSimulatorStackPass : public llvm::PassInfoMixin<RecordSimulatorStackPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_RECORDSIMULATORSTACK_H
