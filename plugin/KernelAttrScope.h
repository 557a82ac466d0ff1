// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelAttrScope.h - The kernel:: attribute scope ----------*- C++ -*-===//
//
// Clang 19 matches plugin attributes on their unscoped name, so each kernel attribute is
// registered both as `kernel::name` and `name`, and its handler checks the scope itself.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_KERNELATTRSCOPE_H
#define KERNEL_PLUGIN_KERNELATTRSCOPE_H

#include "KernelDiagnostics.h"

#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

namespace kernel {
namespace plugin {

inline bool isKernelScope(const clang::ParsedAttr &Attr) {
  return Attr.getScopeName() && Attr.getScopeName()->getName() == "kernel";
}

/// Warns that an attribute spelled like a kernel attribute but outside the kernel:: scope
/// is ignored; returns whether it was outside.
inline bool warnIfNotKernelScope(clang::Sema &S, const clang::ParsedAttr &Attr) {
  if (isKernelScope(Attr))
    return false;
  std::string Written =
      (Attr.getScopeName() ? Attr.getScopeName()->getName().str() + "::" : std::string()) +
      Attr.getAttrName()->getName().str();
  S.Diag(Attr.getLoc(),
         diag::id(S.getDiagnostics(), clang::DiagnosticsEngine::Warning, diag::UnknownScope))
      << Written << Attr.getAttrName()->getName();
  return true;
}

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_KERNELATTRSCOPE_H
