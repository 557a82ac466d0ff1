// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- StdlibLookup.h - Finding library declarations from the plugin -*- C++ -*-===//
//
// The plugin instantiates templates of the kernel headers (kernel::detail::ufunc_kernel)
// and of the C++ library (std::complex); these helpers find them by qualified name, the
// way a `kernel::detail::ufunc_kernel` written in source would be found.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_STDLIBLOOKUP_H
#define KERNEL_PLUGIN_STDLIBLOOKUP_H

#include "clang/AST/APValue.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/TemplateBase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace clang {
class Sema;
} // namespace clang

namespace kernel {
namespace plugin {

/// The declaration `Namespaces::Name` (e.g. {"kernel", "detail"}, "ufunc_kernel"), looked
/// up as qualified name lookup would (inline namespaces included); null if not declared.
clang::NamedDecl *lookupQualified(clang::Sema &S, llvm::ArrayRef<llvm::StringRef> Namespaces,
                                  llvm::StringRef Name);

clang::ClassTemplateDecl *lookupClassTemplate(clang::Sema &S,
                                              llvm::ArrayRef<llvm::StringRef> Namespaces,
                                              llvm::StringRef Name);

clang::FunctionTemplateDecl *lookupFunctionTemplate(clang::Sema &S,
                                                    llvm::ArrayRef<llvm::StringRef> Namespaces,
                                                    llvm::StringRef Name);

/// The type `Template<Args...>`; type and integral arguments are supported.
clang::QualType specializeClassTemplate(clang::Sema &S, clang::ClassTemplateDecl *Template,
                                        llvm::ArrayRef<clang::TemplateArgument> Args,
                                        clang::SourceLocation Loc);

/// The text held by a constant of a struct whose first field is a character array, up to its
/// first NUL (kernel::detail::fixed_string, kernel::detail::static_text); std::nullopt for a
/// value of another shape.
std::optional<std::string> textOfCharacterStruct(const clang::APValue &Value);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_STDLIBLOOKUP_H
