// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelAttributes.cpp - [[kernel::vectorize]], [[kernel::jit]], [[kernel::device]] -===//
//
// The attribute handlers: they check where an attribute is written and what its signature
// strings say, check non-template functions against their signatures right away, and
// record the function in the compilation's KernelDeclTable for the AST consumer.
//
//===----------------------------------------------------------------------===//

#include "KernelAttrScope.h"
#include "KernelDeclTable.h"
#include "KernelDiagnostics.h"
#include "SignatureMatcher.h"
#include "SignatureParser.h"

#include "KernelAnnotations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/ParsedAttrInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace kernel {
namespace plugin {
namespace {

/// Reports the error `Format` at `Loc`.
template <unsigned N>
Sema::SemaDiagnosticBuilder error(Sema &S, SourceLocation Loc, const char (&Format)[N]) {
  return S.Diag(Loc, diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, Format));
}

class KernelAttrInfo : public ParsedAttrInfo {
public:
  KernelAttrInfo(KernelAttrKind Kind, const Spelling (&Names)[2]) : Kind(Kind) {
    OptArgs = 15;
    Spellings = Names;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr, const Decl *D) const override {
    if (!isKernelScope(Attr))
      return true; // reported as unknown by the handler
    if (isa<FunctionDecl>(D) || isa<FunctionTemplateDecl>(D))
      return true;
    S.Diag(Attr.getLoc(),
           diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::NotAFunction))
        << attrSpelling(Kind);
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &Attr) const override {
    DiagnosticsEngine &Diags = S.getDiagnostics();
    if (warnIfNotKernelScope(S, Attr))
      return AttributeNotApplied;
    FunctionDecl *FD = D->getAsFunction();
    if (!FD)
      return AttributeNotApplied;

    KernelDeclTable *Table = KernelDeclTable::forContext(S.Context);
    // A second kind of attribute on the function is the first thing wrong with it.
    if (AnnotatedFunction *Existing = Table ? Table->find(FD) : nullptr;
        Existing && Existing->Kind != Kind) {
      S.Diag(Attr.getLoc(), diag::id(Diags, DiagnosticsEngine::Error, diag::ConflictingAttributes))
          << attrSpelling(Kind) << attrSpelling(Existing->Kind) << FD;
      return AttributeNotApplied;
    }

    AnnotatedFunction Info;
    Info.Decl = FD;
    Info.Kind = Kind;
    Info.AttrLoc = Attr.getLoc();
    if (!readSignatures(S, Attr, Info))
      return AttributeNotApplied;
    if (!checkFunction(S, FD, Info))
      return AttributeNotApplied;

    FD->addAttr(
        AnnotateAttr::CreateImplicit(S.Context, annotationFor(Info), nullptr, 0, Attr.getRange()));
    if (Table) {
      if (Table->find(FD))
        return AttributeApplied; // a redeclaration repeating the attribute
      Table->add(std::move(Info));
    }
    return AttributeApplied;
  }

private:
  // The annotation left on the function: its kind and the canonical signatures. The pass
  // keeps kernel::device functions by it; for the others it shows in the IR what was
  // checked (entries carry their own annotation).
  static std::string annotationFor(const AnnotatedFunction &Info) {
    passes::AttributeAnnotation A{attrName(Info.Kind).str(), {}};
    for (const WrittenSignature &W : Info.Signatures)
      A.Details.push_back(W.Sig.str());
    if (Info.Layout)
      A.Details.push_back(Info.Layout->str());
    return A.encode();
  }

  bool readSignatures(Sema &S, const ParsedAttr &Attr, AnnotatedFunction &Info) const {
    DiagnosticsEngine &Diags = S.getDiagnostics();
    bool Ok = true;
    for (unsigned I = 0; I < Attr.getNumArgs(); ++I) {
      // A bare identifier arrives as an IdentifierLoc, not an expression.
      if (Attr.isArgIdent(I)) {
        S.Diag(Attr.getArgAsIdent(I)->Loc,
               diag::id(Diags, DiagnosticsEngine::Error, diag::SignatureNotString))
            << attrSpelling(Kind);
        Ok = false;
        continue;
      }
      Expr *E = Attr.getArgAsExpr(I);
      const auto *Literal = dyn_cast_or_null<StringLiteral>(E ? E->IgnoreParenImpCasts() : nullptr);
      if (!Literal) {
        S.Diag(E ? E->getExprLoc() : Attr.getLoc(),
               diag::id(Diags, DiagnosticsEngine::Error, diag::SignatureNotString))
            << attrSpelling(Kind);
        Ok = false;
        continue;
      }
      if (!Literal->isOrdinary()) {
        S.Diag(Literal->getBeginLoc(),
               diag::id(Diags, DiagnosticsEngine::Error, diag::SignatureNotOrdinaryString))
            << attrSpelling(Kind);
        Ok = false;
        continue;
      }
      SignatureError Error;
      if (Kind == KernelAttrKind::Guvectorize && looksLikeLayout(Literal->getString())) {
        if (Info.Layout) {
          S.Diag(Literal->getBeginLoc(),
                 diag::id(Diags, DiagnosticsEngine::Error, diag::SecondLayout));
          Ok = false;
          continue;
        }
        std::optional<GufuncLayout> Layout = parseLayout(Literal->getString(), Error);
        if (!Layout) {
          S.Diag(byteLocation(S, Literal, Error.Offset),
                 diag::id(Diags, DiagnosticsEngine::Error, diag::MalformedLayout))
              << Error.Message;
          Ok = false;
          continue;
        }
        Info.Layout = std::move(*Layout);
        Info.LayoutLiteral = Literal;
        continue;
      }
      std::optional<Signature> Sig = parseSignature(Literal->getString(), Error);
      if (!Sig) {
        S.Diag(byteLocation(S, Literal, Error.Offset),
               diag::id(Diags, DiagnosticsEngine::Error, diag::MalformedSignature))
            << attrSpelling(Kind) << Error.Message;
        Ok = false;
        continue;
      }
      Info.Signatures.push_back({std::move(*Sig), Literal});
    }
    return Ok;
  }

  // The attribute's rules, one family at a time: where the function is declared, what its
  // written signatures say, then whether its C++ type agrees with them. A family that fails
  // ends the check, so that one mistake is not reported again by the next family.
  bool checkFunction(Sema &S, FunctionDecl *FD, AnnotatedFunction &Info) const {
    if (!checkDeclaration(S, FD, Info) || !checkSignaturesForKind(S, Info))
      return false;
    const bool IsTemplate = FD->getDescribedFunctionTemplate() != nullptr;
    if (!IsTemplate && !checkCxxTypeForKind(S, FD, Info))
      return false;
    if (Kind == KernelAttrKind::Reduce && !IsTemplate && !checkReduceType(S, FD, Info))
      return false;
    if (Kind == KernelAttrKind::Guvectorize && !Info.Layout) {
      error(S, Info.AttrLoc, diag::GuvectorizeNeedsLayout);
      return false;
    }
    if (IsTemplate)
      return checkTemplateSignatures(S, FD, Info);
    if (Kind == KernelAttrKind::Guvectorize)
      return checkTypeAgainstLayout(S, FD, Info);
    return checkTypeAgainstSignatures(S, FD, Info);
  }

  // Where the attribute may be written: free and static member functions, not variadic, not
  // members of class templates (kernel::device also takes non-static members).
  bool checkDeclaration(Sema &S, FunctionDecl *FD, const AnnotatedFunction &Info) const {
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
        MD && !MD->isStatic() && Kind != KernelAttrKind::Device) {
      error(S, Info.AttrLoc, diag::NonStaticMember) << attrSpelling(Kind) << FD;
      return false;
    }
    if (FD->isVariadic()) {
      error(S, Info.AttrLoc, diag::VariadicFunction) << attrSpelling(Kind) << FD;
      return false;
    }
    if (FD->isConsteval()) {
      error(S, Info.AttrLoc, diag::ConstevalFunction) << attrSpelling(Kind) << FD;
      return false;
    }
    if (FD->isMain()) {
      error(S, Info.AttrLoc, diag::OnMain) << attrSpelling(Kind);
      return false;
    }
    if (!FD->getDescribedFunctionTemplate() && FD->getDeclContext()->isDependentContext()) {
      error(S, Info.AttrLoc, diag::InClassTemplate) << attrSpelling(Kind);
      return false;
    }
    return true;
  }

  // What the C++ type of a non-template function must be for this attribute, checked before
  // the signatures are matched so that the library's templates never see a function they
  // cannot call (their errors would point into the headers).
  bool checkCxxTypeForKind(Sema &S, FunctionDecl *FD, const AnnotatedFunction &Info) const {
    switch (Kind) {
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

  // A kernel returns nothing and its arguments are copied to the GPU: each parameter is a
  // value the launch can copy byte for byte, or a const reference to one.
  static bool checkJitType(Sema &S, FunctionDecl *FD, const AnnotatedFunction &Info) {
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

  // What each written signature may say for this attribute; every signature is checked.
  bool checkSignaturesForKind(Sema &S, const AnnotatedFunction &Info) const {
    bool Ok = true;
    for (const WrittenSignature &W : Info.Signatures)
      Ok = checkSignatureForKind(S, W) && Ok;
    return Ok;
  }

  bool checkSignatureForKind(Sema &S, const WrittenSignature &W) const {
    switch (Kind) {
    case KernelAttrKind::Vectorize: return checkVectorizeSignature(S, W);
    case KernelAttrKind::Reduce: return checkReduceSignature(S, W);
    case KernelAttrKind::Guvectorize: return checkReturnsVoid(S, W, diag::GuvectorizeReturnsVoid);
    case KernelAttrKind::Jit: return checkReturnsVoid(S, W, diag::JitReturnsVoid);
    case KernelAttrKind::Device: return true;
    }
    return true;
  }

  // Kernels and gufuncs write their results through their array arguments.
  template <unsigned N>
  static bool checkReturnsVoid(Sema &S, const WrittenSignature &W, const char (&Format)[N]) {
    const Signature &Sig = W.Sig;
    if (Sig.Result.isVoid())
      return true;
    error(S, byteLocation(S, W.Literal, Sig.Result.Begin), Format) << Sig.str() << Sig.Result.str();
    return false;
  }

  // A reduction combines two values of its result type: T(T, T), T not bool (the warp
  // shuffles of the tree move 32- and 64-bit values).
  static bool checkReduceSignature(Sema &S, const WrittenSignature &W) {
    const Signature &Sig = W.Sig;
    if (Sig.Result.isScalar() && Sig.Result.Element == ScalarKind::Boolean) {
      error(S, byteLocation(S, W.Literal, Sig.Result.Begin), diag::ReduceBoolSignature)
          << Sig.str();
      return false;
    }
    if (Sig.Result.isScalar() && Sig.Params.size() == 2 &&
        sameSignatureType(Sig.Params[0], Sig.Result) &&
        sameSignatureType(Sig.Params[1], Sig.Result))
      return true;
    error(S, byteLocation(S, W.Literal, 0), diag::ReduceSignature) << Sig.str();
    return false;
  }

  // A ufunc loop returns its result and takes and returns scalars: each array is reported.
  static bool checkVectorizeSignature(Sema &S, const WrittenSignature &W) {
    const Signature &Sig = W.Sig;
    if (Sig.Result.isVoid()) {
      error(S, byteLocation(S, W.Literal, 0), diag::VectorizeNeedsResult) << Sig.str();
      return false;
    }
    bool Ok = true;
    auto RequireScalar = [&](const SignatureType &T) {
      if (!T.isArray())
        return;
      error(S, byteLocation(S, W.Literal, T.Begin), diag::VectorizeNeedsScalars) << T.str();
      Ok = false;
    };
    RequireScalar(Sig.Result);
    for (const SignatureType &P : Sig.Params)
      RequireScalar(P);
    return Ok;
  }

  // T f(T, T), T a scalar: checked on the C++ type, which the signatures must match too.
  static bool checkReduceType(Sema &S, const FunctionDecl *FD, const AnnotatedFunction &Info) {
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

  // A template is instantiated with each of its signatures once it is defined, so it needs
  // at least one (kernel::device templates are instantiated by their callers).
  bool checkTemplateSignatures(Sema &S, FunctionDecl *FD, const AnnotatedFunction &Info) const {
    if (Info.Signatures.empty() && Kind != KernelAttrKind::Device) {
      error(S, Info.AttrLoc, diag::TemplateNeedsSignature) << attrSpelling(Kind) << FD;
      return false;
    }
    return true;
  }

  // A gufunc's parameters against its layout, and against each of its signatures.
  static bool checkTypeAgainstLayout(Sema &S, FunctionDecl *FD, const AnnotatedFunction &Info) {
    auto CheckLayout = [&](const Signature *Sig) {
      std::string Why;
      unsigned Operand = 0;
      if (functionMatchesLayout(S.Context, FD, *Info.Layout, Sig, Why, Operand))
        return true;
      const GufuncLayout::Operand *Op =
          Operand < Info.Layout->size() ? &Info.Layout->operand(Operand) : nullptr;
      error(S, byteLocation(S, Info.LayoutLiteral, Op ? Op->Begin : 0), diag::LayoutMismatch)
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

  // The C++ types against each written signature; without one, the signature derived from
  // the C++ types is recorded.
  bool checkTypeAgainstSignatures(Sema &S, FunctionDecl *FD, AnnotatedFunction &Info) const {
    bool Ok = true;
    for (const WrittenSignature &W : Info.Signatures) {
      std::string Why;
      unsigned TypeIndex = 0;
      if (functionMatchesSignature(S.Context, FD, W.Sig, Why, TypeIndex))
        continue;
      const SignatureType &T = TypeIndex == 0 ? W.Sig.Result : W.Sig.Params[TypeIndex - 1];
      unsigned Offset = (TypeIndex == 0 && !W.Sig.ResultWritten) ? 0 : T.Begin;
      error(S, byteLocation(S, W.Literal, Offset), diag::SignatureMismatch)
          << W.Sig.str() << FD << Why;
      Ok = false;
    }
    if (Ok && Info.Signatures.empty() && Kind != KernelAttrKind::Device)
      return recordDerivedSignature(S, FD, Info);
    return Ok;
  }

  // Like Numba's lazy compilation, but at compile time: the C++ types are the signature.
  bool recordDerivedSignature(Sema &S, FunctionDecl *FD, AnnotatedFunction &Info) const {
    std::string Why;
    if (std::optional<Signature> Derived = deriveSignature(S.Context, FD, Why)) {
      // An array parameter makes a signature no ufunc call can match: said here, at the
      // attribute, as for a written one.
      if (Kind == KernelAttrKind::Vectorize)
        for (const SignatureType &T : Derived->Params)
          if (T.isArray()) {
            error(S, Info.AttrLoc, diag::VectorizeNeedsScalars) << T.str();
            return false;
          }
      Info.Signatures.push_back({std::move(*Derived), nullptr});
      return true;
    }
    if (Kind == KernelAttrKind::Vectorize) {
      error(S, Info.AttrLoc, diag::CannotDeriveSignature) << attrSpelling(Kind) << FD << Why;
      return false;
    }
    // A jit kernel may take plain structs, which signatures cannot name: it then has no
    // written signature and is described by its C++ parameter types.
    return true;
  }

  static SourceLocation byteLocation(Sema &S, const StringLiteral *Literal, unsigned Offset) {
    if (!Literal)
      return SourceLocation();
    return Literal->getLocationOfByte(Offset, S.getSourceManager(), S.getLangOpts(),
                                      S.Context.getTargetInfo());
  }

  KernelAttrKind Kind;
};

constexpr ParsedAttrInfo::Spelling VectorizeSpellings[] = {
    {ParsedAttr::AS_CXX11, "kernel::vectorize"}, {ParsedAttr::AS_CXX11, "vectorize"}};
constexpr ParsedAttrInfo::Spelling GuvectorizeSpellings[] = {
    {ParsedAttr::AS_CXX11, "kernel::guvectorize"}, {ParsedAttr::AS_CXX11, "guvectorize"}};
constexpr ParsedAttrInfo::Spelling ReduceSpellings[] = {{ParsedAttr::AS_CXX11, "kernel::reduce"},
                                                        {ParsedAttr::AS_CXX11, "reduce"}};
constexpr ParsedAttrInfo::Spelling JitSpellings[] = {{ParsedAttr::AS_CXX11, "kernel::jit"},
                                                     {ParsedAttr::AS_CXX11, "jit"}};
constexpr ParsedAttrInfo::Spelling DeviceSpellings[] = {{ParsedAttr::AS_CXX11, "kernel::device"},
                                                        {ParsedAttr::AS_CXX11, "device"}};

struct VectorizeAttrInfo : KernelAttrInfo {
  VectorizeAttrInfo() : KernelAttrInfo(KernelAttrKind::Vectorize, VectorizeSpellings) {}
};
struct GuvectorizeAttrInfo : KernelAttrInfo {
  GuvectorizeAttrInfo() : KernelAttrInfo(KernelAttrKind::Guvectorize, GuvectorizeSpellings) {}
};
struct ReduceAttrInfo : KernelAttrInfo {
  ReduceAttrInfo() : KernelAttrInfo(KernelAttrKind::Reduce, ReduceSpellings) {}
};
struct JitAttrInfo : KernelAttrInfo {
  JitAttrInfo() : KernelAttrInfo(KernelAttrKind::Jit, JitSpellings) {}
};
struct DeviceAttrInfo : KernelAttrInfo {
  DeviceAttrInfo() : KernelAttrInfo(KernelAttrKind::Device, DeviceSpellings) {}
};

ParsedAttrInfoRegistry::Add<VectorizeAttrInfo> RegisterVectorize("kernel-vectorize",
                                                                 "[[kernel::vectorize]]");
ParsedAttrInfoRegistry::Add<GuvectorizeAttrInfo> RegisterGuvectorize("kernel-guvectorize",
                                                                     "[[kernel::guvectorize]]");
ParsedAttrInfoRegistry::Add<ReduceAttrInfo> RegisterReduce("kernel-reduce", "[[kernel::reduce]]");
ParsedAttrInfoRegistry::Add<JitAttrInfo> RegisterJit("kernel-jit", "[[kernel::jit]]");
ParsedAttrInfoRegistry::Add<DeviceAttrInfo> RegisterDevice("kernel-device", "[[kernel::device]]");

} // namespace
} // namespace plugin
} // namespace kernel
