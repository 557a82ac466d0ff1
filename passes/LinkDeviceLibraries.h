// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LinkDeviceLibraries.h - Bitcode libraries of GPU code -----*- C++ -*-===//
//
// GPU modules are linked with two bitcode libraries, taking only the functions they use:
//  - the device runtime (devicert/), built with the plugin and embedded in it: what host
//    IR expects from compiler-rt and libm that libdevice lacks (complex arithmetic and the
//    C99 complex functions in the x86-64 calling convention host IR uses, assert);
//  - libdevice from the CUDA toolkit, for the math functions.
// LinkDeviceRuntime and LinkLibdevice are the passes that link them.
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

/// Links the parts of `Library` that `M` uses into `M`, without the target CPU and features
/// the library was built for: in a module compiled for several architectures they would
/// stop its functions being inlined.
void linkNeeded(llvm::Module &M, std::unique_ptr<llvm::Module> Library, DeviceDiagnostics &Diags);

/// libdevice for the passes of one pipeline, found and loaded (lazily) once, when first
/// needed: MapMathToLibdevice looks functions up in it, LinkLibdevice then links it, and
/// VerifyDeviceModule says in its errors when it was missing.
class LibdeviceSource {
public:
  /// `ExplicitPath` as for findLibdevice.
  explicit LibdeviceSource(std::string ExplicitPath) : ExplicitPath(std::move(ExplicitPath)) {}

  /// libdevice, or null when it was not found or cannot be read (reported through `Diags`).
  const llvm::Module *get(llvm::LLVMContext &Ctx, DeviceDiagnostics &Diags);
  /// Hands libdevice over for linking; null as for get(), and once it was taken.
  std::unique_ptr<llvm::Module> take(llvm::LLVMContext &Ctx, DeviceDiagnostics &Diags);
  /// Empty when libdevice was loaded; else what errors about functions without a GPU
  /// version add: where libdevice was looked for and how to provide it.
  std::string missingHint(llvm::LLVMContext &Ctx, DeviceDiagnostics &Diags);

private:
  void load(llvm::LLVMContext &Ctx, DeviceDiagnostics &Diags);

  std::string ExplicitPath;
  bool Attempted = false;
  bool Loaded = false;
  std::string Searched;
  std::unique_ptr<llvm::Module> Libdevice;
};

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_LINKDEVICELIBRARIES_H
