// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- FunctionTypeCheck.h - An annotated function's C++ type --*- C++ -*-===//
//
// The checks of a non-template annotated function's C++ type against its attribute and
// signatures. They run when the attribute is read, or, for a return type deduced from the
// body (`auto f(...)`), once the function is defined and the type is known.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_FUNCTIONTYPECHECK_H
#define KERNEL_PLUGIN_FUNCTIONTYPECHECK_H

#include "KernelDeclTable.h"

#include "clang/Sema/Sema.h"

namespace kernel {
namespace plugin {

/// Checks `FD`'s parameter and return types against what `Info.Kind` requires and against
/// each written signature (or the layout of a gufunc); without a written signature, records
/// the one its C++ types give. Reports each mismatch; returns whether there was none.
bool checkFunctionType(clang::Sema &S, clang::FunctionDecl *FD, AnnotatedFunction &Info);

/// Where byte `Offset` of a signature string was written; invalid for a derived signature.
clang::SourceLocation signatureLocation(clang::Sema &S, const clang::StringLiteral *Literal,
                                        unsigned Offset);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_FUNCTIONTYPECHECK_H
