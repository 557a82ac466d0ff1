// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ExternalDeviceCode.h - CUDA-C functions kernels call ------*- C++ -*-===//
//
// What the plugin's [[kernel::declare_device]] and [[kernel::link]] annotations (and the
// link=FILE plugin argument) say about device code that is not compiled here: the
// declared functions with their calling convention, and the files to embed and hand to
// nvJitLink at run time.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PASSES_EXTERNALDEVICECODE_H
#define KERNEL_PASSES_EXTERNALDEVICECODE_H

#include "DeviceDiagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace kernel {
namespace passes {

struct ExternalFunction {
  llvm::Function *HostDeclaration; ///< in the host module
  bool NumbaConvention = false;    ///< int f(T *result, args...) returning a status
  std::string Signature;           ///< "int bar(int, int)", as declared in C++
  std::string Location;            ///< "foo.cpp:12"
};

struct LinkInput {
  std::string Name;  ///< as the user wrote it: shown in errors
  std::string Kind;  ///< "object", "library", "ptx", "cubin", "fatbin", "ltoir", "cuda"
  std::string Bytes; ///< the file's contents, embedded in the program
  std::string Hash;  ///< content hash: part of the module's identity and the cache key
};

struct ExternalDeviceCode {
  llvm::SmallVector<ExternalFunction, 4> Functions;
  std::vector<LinkInput> Inputs; ///< deduplicated by content
};

/// The functions of `M` declared with [[kernel::declare_device]], by name.
llvm::SmallVector<ExternalFunction, 4> collectExternalFunctions(llvm::Module &M);

/// The files named by [[kernel::link]] in `M`, by `AttributeFiles` (path, as written: the
/// attributes of declarations the module may not hold) and by `ExtraFiles`, read and
/// deduplicated by content; unreadable files are reported through `Diags`.
std::vector<LinkInput>
collectLinkInputs(llvm::Module &M, llvm::ArrayRef<std::string> ExtraFiles,
                  llvm::ArrayRef<std::pair<std::string, std::string>> AttributeFiles,
                  DeviceDiagnostics &Diags);

/// The nvJitLink input kind of a file, from its extension ("" when none fits).
std::string linkInputKind(llvm::StringRef Path);

/// Name of the device global in which a Numba-convention call records a non-zero status,
/// as (index of the function + 1) << 32 | status; the runtime reads it after the kernel.
inline constexpr const char StatusGlobalName[] = "__kernel_device_status";

} // namespace passes
} // namespace kernel

#endif // KERNEL_PASSES_EXTERNALDEVICECODE_H
