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
    S.Diag(Attr.getLoc(), diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::NotAFunction))
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

    AnnotatedFunction Info;
    Info.Decl = FD;
    Info.Kind = Kind;
    Info.AttrLoc = Attr.getLoc();
    if (!readSignatures(S, Attr, Info))
      return AttributeNotApplied;
    if (!checkFunction(S, FD, Info))
      return AttributeNotApplied;

    FD->addAttr(AnnotateAttr::CreateImplicit(S.Context, annotationFor(Info), nullptr, 0,
                                             Attr.getRange()));
    if (KernelDeclTable *Table = KernelDeclTable::forContext(S.Context)) {
      if (AnnotatedFunction *Existing = Table->find(FD)) {
        if (Existing->Kind != Kind) {
          S.Diag(Attr.getLoc(),
                 diag::id(Diags, DiagnosticsEngine::Error, diag::ConflictingAttributes))
              << attrSpelling(Kind) << attrSpelling(Existing->Kind) << FD;
          return AttributeNotApplied;
        }
        return AttributeApplied; // a redeclaration repeating the attribute
      }
      Table->add(std::move(Info));
    }
    return AttributeApplied;
  }

private:
  // The annotation left on the function: its kind and the canonical signatures. The pass
  // does not need it (entries carry their own), but it shows in the IR what was checked.
  static std::string annotationFor(const AnnotatedFunction &Info) {
    std::string A = "kernel." + attrSpelling(Info.Kind).drop_front(8).str();
    for (const WrittenSignature &W : Info.Signatures)
      A += "\x1f" + W.Sig.str();
    if (Info.Layout)
      A += "\x1f" + Info.Layout->str();
    return A;
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
          S.Diag(Literal->getBeginLoc(), diag::id(Diags, DiagnosticsEngine::Error, diag::SecondLayout));
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

  bool checkFunction(Sema &S, FunctionDecl *FD, AnnotatedFunction &Info) const {
    DiagnosticsEngine &Diags = S.getDiagnostics();
    auto Error = [&](SourceLocation Loc, const auto &Format) {
      return S.Diag(Loc, diag::id(Diags, DiagnosticsEngine::Error, Format));
    };
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
        MD && !MD->isStatic() && Kind != KernelAttrKind::Device) {
      Error(Info.AttrLoc, diag::NonStaticMember) << attrSpelling(Kind) << FD;
      return false;
    }
    if (FD->isVariadic()) {
      Error(Info.AttrLoc, diag::VariadicFunction) << attrSpelling(Kind) << FD;
      return false;
    }
    const bool IsTemplate = FD->getDescribedFunctionTemplate() != nullptr;
    if (!IsTemplate && FD->getDeclContext()->isDependentContext()) {
      Error(Info.AttrLoc, diag::InClassTemplate) << attrSpelling(Kind);
      return false;
    }

    bool Ok = true;
    for (const WrittenSignature &W : Info.Signatures) {
      const Signature &Sig = W.Sig;
      if (Kind == KernelAttrKind::Vectorize) {
        if (Sig.Result.isVoid()) {
          Error(byteLocation(S, W.Literal, 0), diag::VectorizeNeedsResult) << Sig.str();
          Ok = false;
          continue;
        }
        auto RequireScalar = [&](const SignatureType &T) {
          if (!T.isArray())
            return;
          Error(byteLocation(S, W.Literal, T.Begin), diag::VectorizeNeedsScalars) << T.str();
          Ok = false;
        };
        RequireScalar(Sig.Result);
        for (const SignatureType &P : Sig.Params)
          RequireScalar(P);
      }
      if (Kind == KernelAttrKind::Reduce &&
          !(Sig.Result.isScalar() && Sig.Params.size() == 2 && sameSignatureType(Sig.Params[0], Sig.Result) &&
            sameSignatureType(Sig.Params[1], Sig.Result))) {
        Error(byteLocation(S, W.Literal, 0), diag::ReduceSignature) << Sig.str();
        Ok = false;
      }
      if (Kind == KernelAttrKind::Guvectorize && !Sig.Result.isVoid()) {
        Error(byteLocation(S, W.Literal, Sig.Result.Begin), diag::GuvectorizeReturnsVoid)
            << Sig.str() << Sig.Result.str();
        Ok = false;
      }
      if (Kind == KernelAttrKind::Jit && !Sig.Result.isVoid()) {
        Error(byteLocation(S, W.Literal, Sig.Result.Begin), diag::JitReturnsVoid)
            << Sig.str() << Sig.Result.str();
        Ok = false;
      }
    }
    if (!Ok)
      return false;

    if (Kind == KernelAttrKind::Reduce) {
      // T f(T, T), T a scalar: checked on the C++ type, which the signatures must match too.
      auto Shape = [&](const FunctionDecl *Fn) {
        std::string Why;
        std::optional<SignatureType> R = signatureTypeOf(S.Context, Fn->getReturnType(), false, Why);
        bool Ok = Fn->getNumParams() == 2 && R && R->isScalar();
        for (unsigned I = 0; Ok && I < 2; ++I) {
          std::optional<SignatureType> P = signatureTypeOf(S.Context, Fn->getParamDecl(I)->getType(), true, Why);
          Ok = P && sameSignatureType(*P, *R);
        }
        return Ok;
      };
      if (!IsTemplate && !Shape(FD)) {
        std::string Type;
        llvm::raw_string_ostream OS(Type);
        FD->getType().print(OS, S.Context.getPrintingPolicy());
        Error(Info.AttrLoc, diag::ReduceShape) << FD->getNameAsString() << OS.str();
        return false;
      }
    }
    if (Kind == KernelAttrKind::Guvectorize) {
      if (!Info.Layout) {
        Error(Info.AttrLoc, diag::GuvectorizeNeedsLayout);
        return false;
      }
      if (IsTemplate) {
        if (Info.Signatures.empty()) {
          Error(Info.AttrLoc, diag::TemplateNeedsSignature) << attrSpelling(Kind) << FD;
          return false;
        }
        return true;
      }
      auto CheckLayout = [&](const Signature *Sig) {
        std::string Why;
        unsigned Operand = 0;
        if (functionMatchesLayout(S.Context, FD, *Info.Layout, Sig, Why, Operand))
          return true;
        const GufuncLayout::Operand *Op = Operand < Info.Layout->size() ? &Info.Layout->operand(Operand) : nullptr;
        Error(byteLocation(S, Info.LayoutLiteral, Op ? Op->Begin : 0), diag::LayoutMismatch)
            << Info.Layout->str() << FD << Why;
        return false;
      };
      if (Info.Signatures.empty())
        return CheckLayout(nullptr);
      for (const WrittenSignature &W : Info.Signatures)
        Ok = CheckLayout(&W.Sig) && Ok;
      return Ok;
    }

    if (IsTemplate) {
      // Each signature instantiates the template; that happens once it is defined.
      if (Info.Signatures.empty() && Kind != KernelAttrKind::Device) {
        Error(Info.AttrLoc, diag::TemplateNeedsSignature) << attrSpelling(Kind) << FD;
        return false;
      }
      return true;
    }

    for (const WrittenSignature &W : Info.Signatures) {
      std::string Why;
      unsigned TypeIndex = 0;
      if (!functionMatchesSignature(S.Context, FD, W.Sig, Why, TypeIndex)) {
        const SignatureType &T = TypeIndex == 0 ? W.Sig.Result : W.Sig.Params[TypeIndex - 1];
        unsigned Offset = (TypeIndex == 0 && !W.Sig.ResultWritten) ? 0 : T.Begin;
        Error(byteLocation(S, W.Literal, Offset), diag::SignatureMismatch) << W.Sig.str() << FD << Why;
        Ok = false;
      }
    }
    if (Ok && Info.Signatures.empty() && Kind != KernelAttrKind::Device) {
      // Like Numba's lazy compilation, but at compile time: the C++ types are the signature.
      std::string Why;
      if (std::optional<Signature> Derived = deriveSignature(S.Context, FD, Why)) {
        Info.Signatures.push_back({std::move(*Derived), nullptr});
      } else if (Kind == KernelAttrKind::Vectorize) {
        Error(Info.AttrLoc, diag::CannotDeriveSignature) << attrSpelling(Kind) << FD << Why;
        Ok = false;
      }
      // A jit kernel may take plain structs, which signatures cannot name: it then has no
      // written signature and is described by its C++ parameter types.
    }
    return Ok;
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
constexpr ParsedAttrInfo::Spelling DeviceSpellings[] = {
    {ParsedAttr::AS_CXX11, "kernel::device"}, {ParsedAttr::AS_CXX11, "device"}};

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
