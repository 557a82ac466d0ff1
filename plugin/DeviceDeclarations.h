// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceDeclarations.h - External device functions ---------*- C++ -*-===//
//
// [[kernel::declare_device]] declares a CUDA-C device function that kernels call;
// [[kernel::link]] names the device code that defines it. See DeviceDeclarations.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_DEVICEDECLARATIONS_H
#define KERNEL_PLUGIN_DEVICEDECLARATIONS_H

#include "clang/AST/Decl.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace kernel {
namespace plugin {

/// Whether `Path` names a kind of device code nvJitLink (or NVRTC, for .cu) takes.
bool isLinkableFile(llvm::StringRef Path);

/// Adds a tree that mirrors the source tree (a build's generated files), in which a relative
/// [[kernel::link]] path is looked for after the naming file's own directory.
void addLinkRoot(llvm::StringRef Dir);

/// Whether `FD` or a redeclaration carries [[kernel::declare_device]]: GPU code may call it
/// although its body is not visible.
bool isDeclaredDevice(const clang::FunctionDecl *FD);

/// Reports declared device functions that were given a body after all.
void checkDeviceDeclarations(clang::Sema &S,
                             llvm::ArrayRef<const clang::FunctionDecl *> Declarations);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_DEVICEDECLARATIONS_H
