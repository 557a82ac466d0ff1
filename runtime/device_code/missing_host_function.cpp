// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The host fallback of a declared CUDA-C device function (passes/CreateHostFallbacks.cpp):
// called when a kernel that uses one runs on the CPU targets or the simulator and the
// program has no host implementation of it.
#include <string>

#include "kernel/errors.h"
#include "simulator/simulator.h"

extern "C" [[noreturn]] void __kernel_missing_host_function(const char *signature, const char *location,
                                                            const char *abi) {
  const auto describe = [&] {
    return "'" + std::string(signature) + "' is CUDA-C device code (kernel::declare_device" +
           (std::string(abi) == "numba" ? "(\"numba\")" : "") + " at " + location +
           ") and runs only on the cuda target; to run it on cpu, parallel or the simulator, define '" + signature +
           "' in a C++ source file of the program as its host implementation (with Bazel, in the target's srcs, or "
           "in a cc_library with alwayslink = True and linkstatic = True)";
  };
  // On the simulator the fiber is abandoned: no message may be left alive in this frame.
  if (kernel::runtime::sim::sim_thread *t = kernel::runtime::sim::current_sim_thread()) t->fail(describe);
  throw kernel::error(describe());
}
