// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelAttributes.cpp - [[kernel::vectorize]], [[kernel::jit]], [[kernel::device]] -===//
//
// The attribute handlers: they check where an attribute is written and what its signature
// strings say, check non-template functions against their signatures right away, and
// record the function in the compilation's KernelDeclTable for the AST consumer.
//
//===----------------------------------------------------------------------===//

#include "FunctionTypeCheck.h"
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

using diag::error;

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
          S.Diag(signatureLocation(S, Literal, Error.Offset),
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
        S.Diag(signatureLocation(S, Literal, Error.Offset),
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
    if (Kind == KernelAttrKind::Guvectorize && !Info.Layout) {
      error(S, Info.AttrLoc, diag::GuvectorizeNeedsLayout);
      return false;
    }
    if (FD->getDescribedFunctionTemplate())
      return checkTemplateSignatures(S, FD, Info);
    // `auto f(...)`: the type is known once the body is parsed; the consumer checks it when
    // the function is defined.
    if (FD->getReturnType()->isUndeducedType()) {
      Info.TypeCheckDeferred = true;
      return true;
    }
    return checkFunctionType(S, FD, Info);
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
    error(S, signatureLocation(S, W.Literal, Sig.Result.Begin), Format)
        << Sig.str() << Sig.Result.str();
    return false;
  }

  // A reduction combines two values of its result type: T(T, T), T not bool (the warp
  // shuffles of the tree move 32- and 64-bit values).
  static bool checkReduceSignature(Sema &S, const WrittenSignature &W) {
    const Signature &Sig = W.Sig;
    if (Sig.Result.isScalar() && Sig.Result.Element == ScalarKind::Boolean) {
      error(S, signatureLocation(S, W.Literal, Sig.Result.Begin), diag::ReduceBoolSignature)
          << Sig.str();
      return false;
    }
    if (Sig.Result.isScalar() && Sig.Params.size() == 2 &&
        sameSignatureType(Sig.Params[0], Sig.Result) &&
        sameSignatureType(Sig.Params[1], Sig.Result))
      return true;
    error(S, signatureLocation(S, W.Literal, 0), diag::ReduceSignature) << Sig.str();
    return false;
  }

  // A ufunc loop returns its result and takes and returns scalars: each array is reported.
  static bool checkVectorizeSignature(Sema &S, const WrittenSignature &W) {
    const Signature &Sig = W.Sig;
    if (Sig.Result.isVoid()) {
      error(S, signatureLocation(S, W.Literal, 0), diag::VectorizeNeedsResult) << Sig.str();
      return false;
    }
    bool Ok = true;
    auto RequireScalar = [&](const SignatureType &T) {
      if (!T.isArray())
        return;
      error(S, signatureLocation(S, W.Literal, T.Begin), diag::VectorizeNeedsScalars) << T.str();
      Ok = false;
    };
    RequireScalar(Sig.Result);
    for (const SignatureType &P : Sig.Params)
      RequireScalar(P);
    return Ok;
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
