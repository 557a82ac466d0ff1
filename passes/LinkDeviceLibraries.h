//===- LinkDeviceLibraries.h - Bitcode libraries of GPU code -----*- C++ -*-===//
//
// GPU modules are linked with two bitcode libraries, taking only the functions they use:
//  - the device runtime (devicert/), built with the plugin and embedded in it: what host
//    IR expects from compiler-rt and libm that libdevice lacks (complex arithmetic and the
//    C99 complex functions in the x86-64 calling convention host IR uses, assert);
//  - libdevice from the CUDA toolkit, for the math functions.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_LINKDEVICELIBRARIES_H
#define KERNEL_PASSES_LINKDEVICELIBRARIES_H

#include "DeviceDiagnostics.h"

#include "llvm/IR/Module.h"

#include <memory>
#include <string>

namespace kernel {
namespace passes {

/// Where libdevice is: `Explicit` if given, else the first that exists of
/// $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (nvvm/libdevice/libdevice.10.bc). Empty if
/// none; `Searched` then lists what was tried.
std::string findLibdevice(llvm::StringRef Explicit, std::string &Searched);

/// libdevice, loaded lazily so that linking reads only the functions used.
std::unique_ptr<llvm::Module> loadLibdevice(llvm::LLVMContext &Ctx, llvm::StringRef Path,
                                            DeviceDiagnostics &Diags);

/// The device runtime embedded in the plugin.
std::unique_ptr<llvm::Module> loadDeviceRuntime(llvm::LLVMContext &Ctx, DeviceDiagnostics &Diags);

/// Links the parts of `Library` that `M` uses into `M`.
void linkNeeded(llvm::Module &M, std::unique_ptr<llvm::Module> Library, DeviceDiagnostics &Diags);

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LINKDEVICELIBRARIES_H
