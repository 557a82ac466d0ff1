// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- FunctionTypeCheck.cpp - An annotated function's C++ type -----------===//

#include "FunctionTypeCheck.h"

#include "KernelDiagnostics.h"
#include "SignatureMatcher.h"

#include "clang/AST/ASTContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace kernel {
namespace plugin {
namespace {

using diag::error;

// A kernel returns nothing and its arguments are copied to the GPU: each parameter is a
// value the launch can copy byte for byte, or a const reference to one.
bool checkJitType(Sema &S, FunctionDecl *FD, const AnnotatedFunction &Info) {
  bool Ok = true;
  if (QualType R = FD->getReturnType(); !R->isVoidType() && !R->isDependentType()) {
    error(S, Info.AttrLoc, diag::JitReturnsValue) << FD << R;
    Ok = false;
  }
  for (const ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType();
    if (T->isDependentType())
      continue;
    if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified()) {
      error(S, P->getLocation(), diag::JitParamByReference) << P << FD << T;
      Ok = false;
      continue;
    }
    QualType Value = T.getNonReferenceType().getUnqualifiedType();
    if (!S.isCompleteType(P->getLocation(), Value) || Value.isTriviallyCopyableType(S.Context))
      continue;
    error(S, P->getLocation(), diag::JitParamNotCopyable) << P << FD << Value;
    Ok = false;
  }
  return Ok;
}

// What the C++ type of a non-template function must be for this attribute, checked before
// the signatures are matched so that the library's templates never see a function they
// cannot call (their errors would point into the headers).
bool checkCxxTypeForKind(Sema &S, FunctionDecl *FD, const AnnotatedFunction &Info) {
  switch (Info.Kind) {
  case KernelAttrKind::Vectorize:
    if (FD->getNumParams() == 0) {
      error(S, Info.AttrLoc, diag::VectorizeNeedsArguments) << FD;
      return false;
    }
    if (FD->getReturnType()->isVoidType()) {
      error(S, Info.AttrLoc, diag::VectorizeReturnsVoid) << FD;
      return false;
    }
    return true;
  case KernelAttrKind::Reduce:
    if (FD->getReturnType()->isBooleanType()) {
      error(S, Info.AttrLoc, diag::ReduceBool) << FD;
      return false;
    }
    return true;
  case KernelAttrKind::Jit: return checkJitType(S, FD, Info);
  case KernelAttrKind::Guvectorize:
  case KernelAttrKind::Device: return true;
  }
  return true;
}

// T f(T, T), T a scalar: checked on the C++ type, which the signatures must match too.
bool checkReduceType(Sema &S, const FunctionDecl *FD, const AnnotatedFunction &Info) {
  std::string Why;
  std::optional<SignatureType> R = signatureTypeOf(S.Context, FD->getReturnType(), false, Why);
  bool Ok = FD->getNumParams() == 2 && R && R->isScalar();
  for (unsigned I = 0; Ok && I < 2; ++I) {
    std::optional<SignatureType> P =
        signatureTypeOf(S.Context, FD->getParamDecl(I)->getType(), true, Why);
    Ok = P && sameSignatureType(*P, *R);
  }
  if (Ok)
    return true;
  // The shape is right but the type is no dtype: say that, not that the shape is wrong.
  const QualType Result = FD->getReturnType();
  if (FD->getNumParams() == 2 && !Result->isVoidType() && !R &&
      llvm::all_of(FD->parameters(), [&](const ParmVarDecl *P) {
        return S.Context.hasSameUnqualifiedType(P->getType().getNonReferenceType(), Result);
      })) {
    error(S, Info.AttrLoc, diag::ReduceNotScalar)
        << FD->getNameAsString() << Result.getAsString(S.Context.getPrintingPolicy());
    return false;
  }
  std::string Type;
  llvm::raw_string_ostream OS(Type);
  FD->getType().print(OS, S.Context.getPrintingPolicy());
  error(S, Info.AttrLoc, diag::ReduceShape) << FD->getNameAsString() << OS.str();
  return false;
}

// A gufunc's parameters against its layout, and against each of its signatures.
bool checkTypeAgainstLayout(Sema &S, FunctionDecl *FD, const AnnotatedFunction &Info) {
  auto CheckLayout = [&](const Signature *Sig) {
    std::string Why;
    unsigned Operand = 0;
    if (functionMatchesLayout(S.Context, FD, *Info.Layout, Sig, Why, Operand))
      return true;
    const GufuncLayout::Operand *Op =
        Operand < Info.Layout->size() ? &Info.Layout->operand(Operand) : nullptr;
    error(S, signatureLocation(S, Info.LayoutLiteral, Op ? Op->Begin : 0), diag::LayoutMismatch)
        << Info.Layout->str() << FD << Why;
    return false;
  };
  if (Info.Signatures.empty())
    return CheckLayout(nullptr);
  bool Ok = true;
  for (const WrittenSignature &W : Info.Signatures)
    Ok = CheckLayout(&W.Sig) && Ok;
  return Ok;
}

// Like Numba's lazy compilation, but at compile time: the C++ types are the signature.
bool recordDerivedSignature(Sema &S, FunctionDecl *FD, AnnotatedFunction &Info) {
  std::string Why;
  if (std::optional<Signature> Derived = deriveSignature(S.Context, FD, Why)) {
    // An array parameter makes a signature no ufunc call can match: said here, at the
    // attribute, as for a written one.
    if (Info.Kind == KernelAttrKind::Vectorize)
      for (const SignatureType &T : Derived->Params)
        if (T.isArray()) {
          error(S, Info.AttrLoc, diag::VectorizeNeedsScalars) << T.str();
          return false;
        }
    Info.Signatures.push_back({std::move(*Derived), nullptr});
    return true;
  }
  if (Info.Kind == KernelAttrKind::Vectorize) {
    error(S, Info.AttrLoc, diag::CannotDeriveSignature) << attrSpelling(Info.Kind) << FD << Why;
    return false;
  }
  // A jit kernel may take plain structs, which signatures cannot name: it then has no
  // written signature and is described by its C++ parameter types.
  return true;
}

// The C++ types against each written signature; without one, the signature derived from
// the C++ types is recorded.
bool checkTypeAgainstSignatures(Sema &S, FunctionDecl *FD, AnnotatedFunction &Info) {
  bool Ok = true;
  for (const WrittenSignature &W : Info.Signatures) {
    std::string Why;
    unsigned TypeIndex = 0;
    if (functionMatchesSignature(S.Context, FD, W.Sig, Why, TypeIndex))
      continue;
    const SignatureType &T = TypeIndex == 0 ? W.Sig.Result : W.Sig.Params[TypeIndex - 1];
    unsigned Offset = (TypeIndex == 0 && !W.Sig.ResultWritten) ? 0 : T.Begin;
    error(S, signatureLocation(S, W.Literal, Offset), diag::SignatureMismatch)
        << W.Sig.str() << FD << Why;
    Ok = false;
  }
  if (Ok && Info.Signatures.empty() && Info.Kind != KernelAttrKind::Device)
    return recordDerivedSignature(S, FD, Info);
  return Ok;
}

} // namespace

bool checkFunctionType(Sema &S, FunctionDecl *FD, AnnotatedFunction &Info) {
  if (!checkCxxTypeForKind(S, FD, Info))
    return false;
  if (Info.Kind == KernelAttrKind::Reduce && !checkReduceType(S, FD, Info))
    return false;
  if (Info.Kind == KernelAttrKind::Guvectorize)
    return checkTypeAgainstLayout(S, FD, Info);
  return checkTypeAgainstSignatures(S, FD, Info);
}

SourceLocation signatureLocation(Sema &S, const StringLiteral *Literal, unsigned Offset) {
  if (!Literal)
    return SourceLocation();
  return Literal->getLocationOfByte(Offset, S.getSourceManager(), S.getLangOpts(),
                                    S.Context.getTargetInfo());
}

} // namespace plugin
} // namespace kernel
