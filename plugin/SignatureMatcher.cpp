// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- SignatureMatcher.cpp - Signatures against C++ types ----------------===//

#include "SignatureMatcher.h"
#include "StdlibLookup.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace kernel {
namespace plugin {

static std::optional<ScalarKind> integerKind(ASTContext &Ctx, QualType T) {
  bool Signed = T->isSignedIntegerType();
  switch (Ctx.getTypeSize(T)) {
  case 8: return Signed ? ScalarKind::Int8 : ScalarKind::UInt8;
  case 16: return Signed ? ScalarKind::Int16 : ScalarKind::UInt16;
  case 32: return Signed ? ScalarKind::Int32 : ScalarKind::UInt32;
  case 64: return Signed ? ScalarKind::Int64 : ScalarKind::UInt64;
  default: return std::nullopt;
  }
}

static std::optional<ScalarKind> scalarKindOf(ASTContext &Ctx, QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *BT = T->getAs<BuiltinType>()) {
    if (BT->getKind() == BuiltinType::Bool)
      return ScalarKind::Boolean;
    if (BT->getKind() == BuiltinType::Float)
      return ScalarKind::Float32;
    if (BT->getKind() == BuiltinType::Double)
      return ScalarKind::Float64;
    if (BT->isInteger())
      return integerKind(Ctx, T);
    return std::nullopt;
  }
  if (const auto *CT = T->getAs<ComplexType>()) {
    std::optional<ScalarKind> E = scalarKindOf(Ctx, CT->getElementType());
    if (E == ScalarKind::Float32)
      return ScalarKind::Complex64;
    if (E == ScalarKind::Float64)
      return ScalarKind::Complex128;
    return std::nullopt;
  }
  if (const auto *Spec =
          dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl())) {
    if (Spec->isInStdNamespace() && Spec->getName() == "complex" &&
        Spec->getTemplateArgs().size() == 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type) {
      std::optional<ScalarKind> E = scalarKindOf(Ctx, Spec->getTemplateArgs()[0].getAsType());
      if (E == ScalarKind::Float32)
        return ScalarKind::Complex64;
      if (E == ScalarKind::Float64)
        return ScalarKind::Complex128;
    }
  }
  return std::nullopt;
}

std::optional<SignatureType> signatureTypeOf(ASTContext &Ctx, QualType T, bool IsParameter,
                                             std::string &Why) {
  if (IsParameter && T->isReferenceType()) {
    QualType Pointee = T->getPointeeType();
    if (!Pointee.isConstQualified() || T->isRValueReferenceType()) {
      Why = "'" + T.getAsString() +
            "' is a non-const reference; parameters of GPU entry points are passed by value "
            "(or const reference)";
      return std::nullopt;
    }
    T = Pointee;
  }
  SignatureType Result;
  if (T->isVoidType())
    return Result;
  if (std::optional<ScalarKind> K = scalarKindOf(Ctx, T)) {
    Result.TypeKind = SignatureType::Kind::Scalar;
    Result.Element = *K;
    return Result;
  }
  if (const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
          T.getCanonicalType()->getAsCXXRecordDecl())) {
    const auto *NS = dyn_cast<NamespaceDecl>(Spec->getDeclContext());
    if (Spec->getName() == "array_view" && NS && NS->getName() == "kernel" &&
        Spec->getTemplateArgs().size() == 2) {
      const TemplateArgument &Elem = Spec->getTemplateArgs()[0];
      const TemplateArgument &Rank = Spec->getTemplateArgs()[1];
      std::optional<ScalarKind> K;
      if (Elem.getKind() == TemplateArgument::Type)
        K = scalarKindOf(Ctx, Elem.getAsType());
      if (K && Rank.getKind() == TemplateArgument::Integral) {
        Result.TypeKind = SignatureType::Kind::Array;
        Result.Element = *K;
        Result.Rank = static_cast<unsigned>(Rank.getAsIntegral().getZExtValue());
        return Result;
      }
    }
  }
  if (const auto *BT = T->getAs<BuiltinType>()) {
    if (BT->getKind() == BuiltinType::LongDouble) {
      Why = "'long double' has no GPU type; use double";
      return std::nullopt;
    }
  }
  Why = "'" + T.getAsString() + "' has no signature type";
  return std::nullopt;
}

bool sameSignatureType(const SignatureType &A, const SignatureType &B) {
  if (A.TypeKind != B.TypeKind)
    return false;
  if (A.isVoid())
    return true;
  if (A.Element != B.Element)
    return false;
  return !A.isArray() || A.Rank == B.Rank;
}

bool functionMatchesSignature(ASTContext &Ctx, const FunctionDecl *FD, const Signature &Sig,
                              std::string &Why, unsigned &TypeIndex) {
  if (Sig.Params.size() != FD->getNumParams()) {
    TypeIndex = 0;
    Why = "the signature has " + std::to_string(Sig.Params.size()) + " parameter" +
          (Sig.Params.size() == 1 ? "" : "s") + " but '" + FD->getNameAsString() + "' has " +
          std::to_string(FD->getNumParams());
    return false;
  }
  std::string TypeWhy;
  auto Check = [&](QualType T, const SignatureType &Expected, bool IsParam, unsigned Index,
                   const std::string &What) {
    std::optional<SignatureType> Actual = signatureTypeOf(Ctx, T, IsParam, TypeWhy);
    if (Actual && sameSignatureType(*Actual, Expected))
      return true;
    TypeIndex = Index;
    Why = What + " is '" + T.getAsString() + "' but the signature says " + Expected.str();
    if (!Actual)
      Why += " (" + TypeWhy + ")";
    return false;
  };
  if (Sig.ResultWritten || !FD->getReturnType()->isVoidType())
    if (!Check(FD->getReturnType(), Sig.Result, false, 0, "the return type"))
      return false;
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (!Check(FD->getParamDecl(I)->getType(), Sig.Params[I], true, I + 1,
               "parameter " + std::to_string(I + 1)))
      return false;
  return true;
}

std::optional<SignatureType> gufuncOperandType(ASTContext &Ctx, QualType T, bool IsOutput,
                                               std::string &Why) {
  if (IsOutput && T->isLValueReferenceType() && !T->getPointeeType().isConstQualified()) {
    // A scalar output, "()": written through the reference.
    std::optional<SignatureType> S = signatureTypeOf(Ctx, T->getPointeeType(), false, Why);
    if (S && S->isScalar())
      return S;
    Why = "'" + T.getAsString() + "': outputs by reference are scalars (\"()\")";
    return std::nullopt;
  }
  std::optional<SignatureType> S = signatureTypeOf(Ctx, T, /*IsParameter=*/true, Why);
  if (!S)
    return std::nullopt;
  if (IsOutput && S->isScalar()) {
    Why = "'" + T.getAsString() +
          "' is passed by value, so the function cannot write it; a scalar output "
          "is a non-const reference";
    return std::nullopt;
  }
  if (IsOutput && S->isArray()) {
    const auto *Spec = cast<ClassTemplateSpecializationDecl>(
        T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
    if (Spec->getTemplateArgs()[0].getAsType().isConstQualified()) {
      Why = "'" + T.getAsString() + "' is a view of const elements; an output must be writable";
      return std::nullopt;
    }
  }
  return S;
}

bool functionMatchesLayout(ASTContext &Ctx, const FunctionDecl *FD, const GufuncLayout &Layout,
                           const Signature *Sig, std::string &Why, unsigned &Operand) {
  if (FD->getNumParams() != Layout.size()) {
    Operand = 0;
    Why = "the layout has " + std::to_string(Layout.size()) + " operands but '" +
          FD->getNameAsString() + "' has " + std::to_string(FD->getNumParams()) + " parameters";
    return false;
  }
  if (!FD->getReturnType()->isVoidType()) {
    Operand = 0;
    Why =
        "a kernel::guvectorize function returns void and writes its outputs through its parameters";
    return false;
  }
  if (Sig && Sig->Params.size() != FD->getNumParams()) {
    Operand = 0;
    Why = "the signature has " + std::to_string(Sig->Params.size()) +
          " parameters but the layout has " + std::to_string(Layout.size()) + " operands";
    return false;
  }
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    Operand = I;
    const bool IsOutput = I >= Layout.Inputs.size();
    const unsigned CoreRank = Layout.operand(I).Dims.size();
    std::string TypeWhy;
    const QualType T = FD->getParamDecl(I)->getType();
    std::optional<SignatureType> S = gufuncOperandType(Ctx, T, IsOutput, TypeWhy);
    const std::string What = std::string(IsOutput ? "output" : "input") + " " +
                             std::to_string(IsOutput ? I - Layout.Inputs.size() + 1 : I + 1) +
                             " (parameter " + std::to_string(I + 1) + ")";
    if (!S) {
      Why = What + ": " + TypeWhy;
      return false;
    }
    const unsigned Rank = S->isArray() ? S->Rank : 0;
    if (Rank != CoreRank) {
      Why = What + " is '" + T.getAsString() + "', with " + std::to_string(Rank) +
            " dimensions, but the layout gives it " + std::to_string(CoreRank) + " core dimensions";
      return false;
    }
    if (Sig) {
      const SignatureType &Expected = Sig->Params[I];
      // Numba spells a scalar output as a one-element array: accept that too.
      const bool ScalarOutputAsArray = IsOutput && Rank == 0 && Expected.isArray() &&
                                       Expected.Rank == 1 && Expected.Element == S->Element;
      if (!sameSignatureType(*S, Expected) && !ScalarOutputAsArray) {
        Why = What + " is '" + T.getAsString() + "' but the signature says " + Expected.str();
        return false;
      }
    }
  }
  return true;
}

std::optional<Signature> deriveSignature(ASTContext &Ctx, const FunctionDecl *FD,
                                         std::string &Why) {
  Signature Sig;
  std::string TypeWhy;
  std::optional<SignatureType> R = signatureTypeOf(Ctx, FD->getReturnType(), false, TypeWhy);
  if (!R) {
    Why = "the return type " + TypeWhy;
    return std::nullopt;
  }
  Sig.Result = *R;
  Sig.ResultWritten = true;
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    std::optional<SignatureType> P =
        signatureTypeOf(Ctx, FD->getParamDecl(I)->getType(), true, TypeWhy);
    if (!P) {
      Why = "parameter " + std::to_string(I + 1) + ": " + TypeWhy;
      return std::nullopt;
    }
    Sig.Params.push_back(*P);
  }
  return Sig;
}

static QualType builtinTypeOf(ASTContext &Ctx, ScalarKind K) {
  switch (K) {
  case ScalarKind::Boolean: return Ctx.BoolTy;
  case ScalarKind::Int8: return Ctx.SignedCharTy;
  case ScalarKind::Int16: return Ctx.ShortTy;
  case ScalarKind::Int32: return Ctx.IntTy;
  case ScalarKind::Int64: return Ctx.LongTy;
  case ScalarKind::UInt8: return Ctx.UnsignedCharTy;
  case ScalarKind::UInt16: return Ctx.UnsignedShortTy;
  case ScalarKind::UInt32: return Ctx.UnsignedIntTy;
  case ScalarKind::UInt64: return Ctx.UnsignedLongTy;
  case ScalarKind::Float32: return Ctx.FloatTy;
  case ScalarKind::Float64: return Ctx.DoubleTy;
  case ScalarKind::Complex64:
  case ScalarKind::Complex128: break;
  }
  return QualType();
}

QualType cxxTypeOf(Sema &S, const SignatureType &T, SourceLocation Loc, std::string &Why,
                   bool ConstElements) {
  ASTContext &Ctx = S.Context;
  if (T.isVoid())
    return Ctx.VoidTy;
  QualType Element;
  if (T.Element == ScalarKind::Complex64 || T.Element == ScalarKind::Complex128) {
    ClassTemplateDecl *Complex = lookupClassTemplate(S, {"std"}, "complex");
    if (!Complex) {
      Why = "complex types need std::complex: include <complex>";
      return QualType();
    }
    QualType Part = T.Element == ScalarKind::Complex64 ? Ctx.FloatTy : Ctx.DoubleTy;
    Element = specializeClassTemplate(S, Complex, {TemplateArgument(Part)}, Loc);
  } else {
    Element = builtinTypeOf(Ctx, T.Element);
  }
  if (Element.isNull() || !T.isArray())
    return Element;
  ClassTemplateDecl *View = lookupClassTemplate(S, {"kernel"}, "array_view");
  if (!View) {
    Why = "array types need kernel::array_view: include <kernel/kernel.h>";
    return QualType();
  }
  llvm::APSInt Rank(llvm::APInt(Ctx.getTypeSize(Ctx.getSizeType()), T.Rank), /*isUnsigned=*/true);
  if (ConstElements)
    Element.addConst();
  return specializeClassTemplate(
      S, View, {TemplateArgument(Element), TemplateArgument(Ctx, Rank, Ctx.getSizeType())}, Loc);
}

} // namespace plugin
} // namespace kernel
