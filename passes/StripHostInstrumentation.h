// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- StripHostInstrumentation.h - Host-only checks out of GPU code -*- C++ -*-===//
//
// The device module is a copy of the host's IR taken before its optimisation, so it carries
// what clang's instrumentation flags put in for the host: -fprofile-instr-generate's
// llvm.instrprof.* intrinsics, -fsanitize=cfi's llvm.type.test, -fsanitize=undefined's calls
// to __ubsan_handle_* and -fsanitize=function's reads of a callee's signature words before
// its address, -fsanitize-coverage's __sanitizer_cov_* calls. NVPTX selects none of
// them and no GPU library defines the runtimes they call ("Cannot select", or an undefined
// reference when the GPU first links). The host keeps its instrumentation; the GPU code is
// compiled as without the flags: the intrinsics and calls are removed (a type test is true;
// a sanitizer check that does not recover, -fno-sanitize-recover, becomes a trap), and the
// globals only they used go with them.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_STRIPHOSTINSTRUMENTATION_H
#define KERNEL_PASSES_STRIPHOSTINSTRUMENTATION_H

#include "llvm/IR/PassManager.h"

namespace kernel {
namespace passes {

class StripHostInstrumentationPass : public llvm::PassInfoMixin<StripHostInstrumentationPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_STRIPHOSTINSTRUMENTATION_H
