// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- InstrumentForSimulator.h - Race checks for simulated kernels -*- C++ -*-===//
//
// The simulator runs a kernel's host copy. To find data races it must see every memory
// access the kernel makes, so for each GPU entry this pass adds to the host module an
// instrumented copy of the entry and of everything it calls: before each plain load and
// store (and memcpy/memset) it calls __kernel_sim_access(address, bytes, is_write, needed,
// where), `needed` being the alignment the GPU's access needs (the width NVPTX gives it:
// the IR's alignment, at most the size and 16 bytes), so that an access that faults on a GPU
// for its address fails in the simulator too. Atomic operations (and volatile accesses of a
// word, which a GPU makes as relaxed atomics) race only with plain ones: they are how threads
// synchronise; __kernel_sim_atomic_access(address, bytes, kind, where)
// checks that they are aligned to their size and tells the simulator whether they read (1),
// write (2) or both (3), and whether they are volatile (8: the other threads of the block
// make theirs first, as a warp's lanes make one together, which the old warp-synchronous
// code counts on), and __kernel_sim_atomic_done(address) follows those that read: a
// fence then an atomic that writes orders what came before for a thread whose atomic reads
// it after (the simulator's race checks follow this across blocks). Accesses to a
// function's own stack are not either: they are private to its thread; nor are those to
// the host's global variables, which are not device memory, nor an entry's reads of its
// parameters, which are the same for every thread and read-only. At the back-edges of loops
// that may wait for another thread (with an atomic or volatile access, or a call) it calls
// __kernel_sim_yield(), where the simulator may switch to another thread of the block, so
// that threads spinning on each other's flags finish. Conversions of floating-point values
// to integers give what a GPU's give where C++ leaves them undefined (out of range, NaN):
// saturated, NaN to 0 (to the sign bit alone for 64-bit integers and from doubles), at the
// width NVPTX converts at; and shifts by the integer's width or more give a GPU's 0 (the sign
// alone for an arithmetic right shift), not the host's shift by the amount's low bits.
//
// A simulated thread runs on a small stack with a guard below it. The functions GPU code
// reaches (the originals too, which a launch of one thread runs, and so the host code they
// are inlined into) probe every page of a large frame as they grow it, so that a local array
// larger than the guard faults there instead of landing in memory beyond it; only frames of
// more than a page pay. RecordSimulatorStack tells the simulator the stack they need.
//
// The copies serve only the simulator (the registration names them); ordinary host code
// keeps calling the uninstrumented functions. The offload pass calls
// instrumentForSimulator for the copies to register; InstrumentForSimulatorPass is the same
// on the entries the module's annotations name, for opt.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_INSTRUMENTFORSIMULATOR_H
#define KERNEL_PASSES_INSTRUMENTFORSIMULATOR_H

#include "DeviceEntries.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

/// Adds the instrumented copies to `Host`; returns, for each entry's host function, its copy.
llvm::DenseMap<llvm::Function *, llvm::Function *> instrumentForSimulator(llvm::Module &Host,
                                                                          const DeviceCode &Code);

class InstrumentForSimulatorPass : public llvm::PassInfoMixin<InstrumentForSimulatorPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_INSTRUMENTFORSIMULATOR_H
