// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- SignatureMatcher.h - Signatures against C++ types --------*- C++ -*-===//
//
// Relates the types of a signature string to C++ types: float32 is `float`, int64 is any
// 64-bit signed integer, complex64 is `std::complex<float>`, `float32[:, :]` is
// `kernel::array_view<float, 2>` (or of `const float`). Used to check a non-template
// function against its signatures, to derive a signature when none is written, and to
// build the argument types that instantiate a function template for a signature.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_SIGNATUREMATCHER_H
#define KERNEL_PLUGIN_SIGNATUREMATCHER_H

#include "SignatureParser.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Type.h"

#include <optional>
#include <string>

namespace clang {
class Sema;
} // namespace clang

namespace kernel {
namespace plugin {

/// The signature type of C++ type `T`, if it has one. Parameters may be passed by value or
/// by const reference. On failure `Why` says what is wrong with the type.
std::optional<SignatureType> signatureTypeOf(clang::ASTContext &Ctx, clang::QualType T,
                                             bool IsParameter, std::string &Why);

/// True when two signature types describe the same values (array layouts are checked when
/// the kernel is launched, since C++ views carry their strides at run time).
bool sameSignatureType(const SignatureType &A, const SignatureType &B);

/// Checks function `FD` against `Sig`. On mismatch returns false, with `Why` explaining and
/// `TypeIndex` naming the offending type: 0 for the result, I + 1 for parameter I.
bool functionMatchesSignature(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                              const Signature &Sig, std::string &Why, unsigned &TypeIndex);

/// The signature of `FD` derived from its C++ types, or std::nullopt with `Why`.
std::optional<Signature> deriveSignature(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                                         std::string &Why);

/// The signature type of a gufunc operand's C++ parameter type: inputs are arrays or scalars
/// (by value or const reference); outputs are arrays or, for "()", scalars by non-const
/// reference (`float &out`).
std::optional<SignatureType> gufuncOperandType(clang::ASTContext &Ctx, clang::QualType T,
                                               bool IsOutput, std::string &Why);

/// Checks `FD`'s parameters against `Layout` (one parameter per operand, ranks equal to the
/// core dimensions, outputs writable) and, when written, `Sig`. On mismatch returns false
/// with `Why` and the offending operand in `Operand`.
bool functionMatchesLayout(clang::ASTContext &Ctx, const clang::FunctionDecl *FD,
                           const GufuncLayout &Layout, const Signature *Sig, std::string &Why,
                           unsigned &Operand);

/// The C++ type of a signature type (for instantiating templates), or a null type with
/// `Why` when the header that defines it (<complex>, <kernel/kernel.h>) is not included.
/// Arrays are views of const elements when `ConstElements` is set.
clang::QualType cxxTypeOf(clang::Sema &S, const SignatureType &T, clang::SourceLocation Loc,
                          std::string &Why, bool ConstElements = false);

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_SIGNATUREMATCHER_H
