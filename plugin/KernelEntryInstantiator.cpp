// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelEntryInstantiator.cpp - GPU entries for annotated functions --===//

#include "KernelEntryInstantiator.h"
#include "KernelDiagnostics.h"
#include "SignatureMatcher.h"
#include "StdlibLookup.h"

#include "KernelAnnotations.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/TemplateDeduction.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace clang;

namespace kernel {
namespace plugin {

static std::string displayName(const FunctionDecl *FD) {
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  FD->getNameForDiagnostic(OS, FD->getASTContext().getPrintingPolicy(), /*Qualified=*/true);
  return OS.str();
}

// What a jit kernel without a signature is shown as: its C++ parameter types.
static std::string describeCxxSignature(const FunctionDecl *FD) {
  std::string S = "void(";
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    if (I)
      S += ", ";
    S += FD->getParamDecl(I)->getType().getAsString(FD->getASTContext().getPrintingPolicy());
  }
  return S + ")";
}

// A gufunc is shown with its layout: "void(float32[:], float32[:], float32) (n),(n)->()".
static std::string displaySignature(const std::string &Sig, const AnnotatedFunction &F) {
  return F.Layout ? Sig + " " + F.Layout->str() : Sig;
}

SourceLocation KernelEntryInstantiator::signatureLocation(const WrittenSignature &W,
                                                          const AnnotatedFunction &F) const {
  if (!W.Literal)
    return F.AttrLoc;
  return W.Literal->getBeginLoc();
}

void KernelEntryInstantiator::instantiate(const AnnotatedFunction &F, std::vector<GpuRoot> &Roots) {
  FunctionDecl *FD = F.Decl;
  if (FD->getDescribedFunctionTemplate()) {
    for (const WrittenSignature &W : F.Signatures) {
      FunctionDecl *Spec = specialize(F, W);
      if (!Spec)
        continue;
      Roots.push_back({Spec, &F, W.Sig.str()});
      if (F.Kind != KernelAttrKind::Device)
        instantiateEntry(Spec, F, displaySignature(W.Sig.str(), F), &W.Sig);
    }
    return;
  }
  FunctionDecl *Def = FD->getDefinition();
  if (!Def)
    return;
  std::string Sig = displaySignature(
      F.Signatures.empty() ? describeCxxSignature(Def) : F.Signatures.front().Sig.str(), F);
  Roots.push_back({Def, &F, Sig});
  if (F.Kind != KernelAttrKind::Device)
    instantiateEntry(Def, F, Sig, F.Signatures.empty() ? nullptr : &F.Signatures.front().Sig);
}

// Whether `P` is declared as a view of const elements (array_view<const T>, or a const
// reference to one): the first argument of its template names a const type.
static bool declaresConstElements(const ParmVarDecl *P) {
  // Canonical, so that an alias (template <class T> using input = array_view<const T>) is seen
  // through.
  const auto *Spec =
      P->getType().getNonReferenceType().getCanonicalType()->getAs<TemplateSpecializationType>();
  if (!Spec)
    return false;
  ArrayRef<TemplateArgument> Args = Spec->template_arguments();
  return !Args.empty() && Args[0].getKind() == TemplateArgument::Type &&
         Args[0].getAsType().isConstQualified();
}

FunctionDecl *KernelEntryInstantiator::specialize(const AnnotatedFunction &F,
                                                  const WrittenSignature &W) {
  ASTContext &Ctx = S.Context;
  DiagnosticsEngine &Diags = S.getDiagnostics();
  FunctionTemplateDecl *Template = F.Decl->getDescribedFunctionTemplate();
  SourceLocation Loc = signatureLocation(W, F);
  auto Fail = [&](const std::string &Why) -> FunctionDecl * {
    S.Diag(Loc, diag::id(Diags, DiagnosticsEngine::Error, diag::SignatureDoesNotInstantiate))
        << W.Sig.str() << Template << Why;
    return nullptr;
  };

  // Deduce as for a call with arguments of the signature's types, so that parameters taken
  // by const reference instantiate as well as those taken by value. A gufunc's inputs are
  // tried as views of const elements first (an input of a deduced type `A` has always been
  // one). Other arrays are first views of const elements where the template declares them
  // so (array_view<const T> in, array_view<T> out), then as written, then all const.
  enum class Constness { AsDeclared, Inputs, None, All };
  const bool Gufunc = F.Kind == KernelAttrKind::Guvectorize;
  const SmallVector<Constness, 3> Attempts =
      Gufunc ? SmallVector<Constness, 3>{Constness::Inputs, Constness::None}
             : SmallVector<Constness, 3>{Constness::AsDeclared, Constness::None, Constness::All};
  const FunctionDecl *Pattern = Template->getTemplatedDecl();
  FunctionDecl *Spec = nullptr;
  std::unique_ptr<sema::TemplateDeductionInfo> Info;
  TemplateDeductionResult R = TemplateDeductionResult::Invalid;
  for (Constness C : Attempts) {
    SmallVector<Expr *, 4> Args;
    for (unsigned I = 0; I < W.Sig.Params.size(); ++I) {
      const bool Const = C == Constness::All ||
                         (C == Constness::Inputs && F.Layout && I < F.Layout->Inputs.size()) ||
                         (C == Constness::AsDeclared && I < Pattern->getNumParams() &&
                          declaresConstElements(Pattern->getParamDecl(I)));
      std::string Why;
      QualType T = cxxTypeOf(S, W.Sig.Params[I], Loc, Why, Const);
      if (T.isNull())
        return Fail(Why);
      // Lvalues, so that parameters taken by reference (a gufunc's scalar outputs) deduce too.
      Args.push_back(new (Ctx) OpaqueValueExpr(Loc, T, VK_LValue));
    }
    Spec = nullptr;
    Info = std::make_unique<sema::TemplateDeductionInfo>(Loc);
    R = S.DeduceTemplateArguments(Template, /*ExplicitTemplateArgs=*/nullptr, Args, Spec, *Info,
                                  /*PartialOverloading=*/false,
                                  /*AggregateDeductionCandidate=*/false, QualType(),
                                  Expr::Classification(), [](ArrayRef<QualType>) { return false; });
    if (R == TemplateDeductionResult::Success && Spec)
      break;
  }
  if (R != TemplateDeductionResult::Success || !Spec) {
    std::string Why = "template argument deduction failed";
    const NamedDecl *Param = nullptr;
    if (auto *TP = Info->Param.dyn_cast<TemplateTypeParmDecl *>())
      Param = TP;
    if (R == TemplateDeductionResult::Inconsistent && Param)
      Why += ": conflicting types for '" + Param->getNameAsString() + "' ('" +
             Info->FirstArg.getAsType().getAsString() + "' and '" +
             Info->SecondArg.getAsType().getAsString() + "')";
    else if (R == TemplateDeductionResult::TooManyArguments ||
             R == TemplateDeductionResult::TooFewArguments)
      Why += ": the signature has " + std::to_string(W.Sig.Params.size()) + " parameter" +
             (W.Sig.Params.size() == 1 ? "" : "s");
    else if (R == TemplateDeductionResult::Incomplete)
      Why += ": a template parameter is not used by the parameter types";
    return Fail(Why);
  }
  if (Spec->getReturnType()->isUndeducedType() && S.DeduceReturnType(Spec, Loc))
    return Fail("its return type could not be deduced");
  std::string Why;
  unsigned TypeIndex = 0;
  const bool Matches = F.Kind == KernelAttrKind::Guvectorize
                           ? functionMatchesLayout(Ctx, Spec, *F.Layout, &W.Sig, Why, TypeIndex)
                           : functionMatchesSignature(Ctx, Spec, W.Sig, Why, TypeIndex);
  if (!Matches)
    return Fail("'" + displayName(Spec) + "': " + Why);

  // Compiled for the host too, so that the CPU targets and the simulator have it.
  Spec->addAttr(UsedAttr::CreateImplicit(Ctx));
  S.MarkFunctionReferenced(Loc, Spec);
  return Spec;
}

void KernelEntryInstantiator::instantiateEntry(FunctionDecl *Fn, const AnnotatedFunction &F,
                                               const std::string &Shown,
                                               const Signature *Declared) {
  ASTContext &Ctx = S.Context;
  DiagnosticsEngine &Diags = S.getDiagnostics();
  SourceLocation Loc = F.AttrLoc;
  const std::optional<kernel_entry_kind> Kind = entryKindFor(F.Kind);
  if (!Kind)
    return;
  // kernel::detail::ufunc_kernel<&f>, jit_kernel<&f> ...: named after the kind.
  const std::string EntryName = std::string(passes::entryKindName(*Kind)) + "_kernel";
  FunctionTemplateDecl *Entry = lookupFunctionTemplate(S, {"kernel", "detail"}, EntryName);
  if (!Entry) {
    S.Diag(Loc, diag::id(Diags, DiagnosticsEngine::Error, diag::MissingHeader))
        << attrSpelling(F.Kind) << Fn;
    return;
  }

  ExprResult Ref = S.BuildDeclRefExpr(Fn, Fn->getType(), VK_LValue, Loc);
  if (Ref.isInvalid())
    return;
  ExprResult Address = S.CreateBuiltinUnaryOp(Loc, UO_AddrOf, Ref.get());
  if (Address.isInvalid())
    return;
  TemplateArgumentListInfo Explicit(Loc, Loc);
  Explicit.addArgument(TemplateArgumentLoc(TemplateArgument(Address.get()), Address.get()));
  FunctionDecl *Spec = nullptr;
  sema::TemplateDeductionInfo Info(Loc);
  // The header and the plugin disagree about the entry template: say so rather than leave the
  // function without an entry that the runtime would miss at the first call.
  auto Fail = [&](const char *Why) {
    S.Diag(Loc, diag::id(Diags, DiagnosticsEngine::Error, diag::EntryNotInstantiated))
        << EntryName << Fn << Why;
  };
  if (S.DeduceTemplateArguments(Entry, &Explicit, Spec, Info) != TemplateDeductionResult::Success ||
      !Spec)
    return Fail("the template does not take the function's address as its template argument");
  if (Spec->getNumParams() != 1)
    return Fail("the entry does not take exactly one parameter block");

  QualType Params = Spec->getParamDecl(0)->getType().getNonReferenceType();
  if (S.RequireCompleteType(Loc, Params,
                            diag::id(Diags, DiagnosticsEngine::Error, diag::MissingHeader)))
    return;

  passes::EntryAnnotation A;
  A.Kind = *Kind;
  A.Name = displayName(Fn);
  A.Signature = Shown;
  // Without a signature, its C++ types declare no order: 'A' for each parameter (not ""
  // either, which a launch takes for an entry not registered yet and looks up again).
  A.ArrayOrders = Declared ? Declared->arrayOrders() : std::string(Fn->getNumParams(), 'A');
  PresumedLoc P = S.getSourceManager().getPresumedLoc(Fn->getLocation());
  if (P.isValid())
    A.Location =
        llvm::sys::path::filename(P.getFilename()).str() + ":" + std::to_string(P.getLine());
  A.ParamSize = Ctx.getTypeSizeInChars(Params).getQuantity();
  A.ParamAlign = Ctx.getTypeAlignInChars(Params).getQuantity();
  if (A.ParamSize > passes::EntryAnnotation::MaxParamSize) {
    S.Diag(Fn->getLocation(), diag::id(Diags, DiagnosticsEngine::Error, diag::GpuParameterBlock))
        << Fn << static_cast<unsigned>(A.ParamSize)
        << static_cast<unsigned>(passes::EntryAnnotation::MaxParamSize);
    return;
  }

  Spec->addAttr(UsedAttr::CreateImplicit(Ctx));
  Spec->addAttr(AnnotateAttr::CreateImplicit(Ctx, A.encode(), nullptr, 0));
  S.MarkFunctionReferenced(Loc, Spec);
}

} // namespace plugin
} // namespace kernel
