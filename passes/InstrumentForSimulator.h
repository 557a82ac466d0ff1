// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- InstrumentForSimulator.h - Race checks for simulated kernels -*- C++ -*-===//
//
// The simulator runs a kernel's host copy. To find data races it must see every memory
// access the kernel makes, so for each GPU entry this pass adds to the host module an
// instrumented copy of the entry and of everything it calls: before each plain load and
// store (and memcpy/memset) it calls __kernel_sim_access(address, bytes, is_write, where).
// Atomic operations are not instrumented: they are how threads synchronise. Accesses to a
// function's own stack are not either: they are private to its thread; nor are those to
// the host's global variables, which are not device memory, nor an entry's reads of its
// parameters, which are the same for every thread and read-only. At the back-edges of loops
// that may wait for another thread (with an atomic or volatile access, or a call) it calls
// __kernel_sim_yield(), where the simulator may switch to another thread of the block, so
// that threads spinning on each other's flags finish.
//
// A simulated thread runs on a small stack with a guard below it. The copies probe every
// page of a large frame as they grow it, so that a local array larger than the guard
// faults there instead of landing in memory beyond it; and each entry gets the stack its
// threads need at least (its largest local arrays, along the calls made on every path),
// so that the simulator can refuse a launch that cannot fit before any thread runs.
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

/// An entry's instrumented copy, as the simulator is told of it.
struct SimulatorEntry {
  llvm::Function *Copy = nullptr;
  /// Bytes of stack every thread of the entry needs, at least; a lower bound, never more
  /// than a thread that runs needs.
  uint64_t MinStackBytes = 0;
};

/// Adds the instrumented copies to `Host`; returns them for each entry's host function.
llvm::DenseMap<llvm::Function *, SimulatorEntry> instrumentForSimulator(llvm::Module &Host,
                                                                        const DeviceCode &Code);

class InstrumentForSimulatorPass : public llvm::PassInfoMixin<InstrumentForSimulatorPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_INSTRUMENTFORSIMULATOR_H
