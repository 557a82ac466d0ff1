// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LibraryEntries.cpp - GPU entries instantiated by the library -------===//

#include "LibraryEntries.h"
#include "KernelDiagnostics.h"
#include "StdlibLookup.h"

#include "KernelAnnotations.h"

#include "clang/AST/APValue.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

#include <optional>
#include <string>

using namespace clang;

namespace kernel {
namespace plugin {

// The value of the constexpr static data member `Member` of `Record`, instantiated if need
// be; null when there is none.
static const APValue *evaluateStaticMember(Sema &S, CXXRecordDecl *Record, llvm::StringRef Member) {
  DeclContextLookupResult Found = Record->lookup(&S.Context.Idents.get(Member));
  auto *Var = Found.empty() ? nullptr : dyn_cast<VarDecl>(Found.front());
  if (!Var)
    return nullptr;
  if (!Var->getInit() && Var->getInstantiatedFromStaticDataMember())
    S.InstantiateVariableDefinition(Var->getLocation(), Var);
  if (!Var->getInit() || Var->getInit()->isValueDependent())
    return nullptr;
  return Var->evaluateValue();
}

// The text of `static constexpr static_text<N> Member` of `Record`.
static std::optional<std::string> readStaticText(Sema &S, CXXRecordDecl *Record,
                                                 llvm::StringRef Member) {
  const APValue *Value = evaluateStaticMember(S, Record, Member);
  if (!Value)
    return std::nullopt;
  return textOfCharacterStruct(*Value);
}

// The value of `static constexpr <integer> Member` of `Record`, if it has one.
static std::optional<uint64_t> readStaticInteger(Sema &S, CXXRecordDecl *Record,
                                                 llvm::StringRef Member) {
  const APValue *Value = evaluateStaticMember(S, Record, Member);
  if (!Value || !Value->isInt() || Value->getInt().isNegative())
    return std::nullopt;
  return Value->getInt().getZExtValue();
}

// The functions an entry's argument type names as template arguments (the steps' loops,
// the reduction's function), found through the nested specializations.
static void collectFunctions(const TemplateArgument &Arg,
                             llvm::SmallPtrSetImpl<FunctionDecl *> &Seen,
                             llvm::SmallVectorImpl<FunctionDecl *> &Out) {
  switch (Arg.getKind()) {
  case TemplateArgument::Declaration:
    if (auto *FD = dyn_cast<FunctionDecl>(Arg.getAsDecl()))
      if (Seen.insert(FD).second)
        Out.push_back(FD);
    return;
  case TemplateArgument::Pack:
    for (const TemplateArgument &A : Arg.pack_elements())
      collectFunctions(A, Seen, Out);
    return;
  case TemplateArgument::Type:
    if (auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
            Arg.getAsType()->getAsCXXRecordDecl())) {
      // A program's keys are the expression's nodes, whose ufunc types list every loop of
      // each ufunc; the steps name the loops that run.
      if (Spec->getName() == "map_node")
        return;
      for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
        collectFunctions(A, Seen, Out);
    }
    return;
  default: return;
  }
}

void markLibraryEntries(Sema &S, std::vector<GpuRoot> &Roots) {
  ASTContext &Ctx = S.Context;
  const SourceManager &SM = S.getSourceManager();
  std::string MainFile;
  if (OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID()))
    MainFile = llvm::sys::path::filename(Main->getName()).str();

  const struct {
    const char *Template;
    kernel_entry_kind Kind;
  } Entries[] = {{"fused_kernel", KERNEL_ENTRY_FUSED},
                 {"fused_reduce_kernel", KERNEL_ENTRY_FUSED_REDUCE},
                 {"algorithm_kernel", KERNEL_ENTRY_ALGORITHM}};
  for (const auto &E : Entries) {
    FunctionTemplateDecl *Template = lookupFunctionTemplate(S, {"kernel", "detail"}, E.Template);
    if (!Template)
      continue;
    for (FunctionDecl *Spec : Template->specializations()) {
      if (!Spec->isDefined() || Spec->hasAttr<AnnotateAttr>() || Spec->getNumParams() != 1)
        continue;
      const TemplateArgumentList *Args = Spec->getTemplateSpecializationArgs();
      if (!Args || Args->size() != 1 || Args->get(0).getKind() != TemplateArgument::Type)
        continue;
      auto *Record = Args->get(0).getAsType()->getAsCXXRecordDecl();
      if (!Record)
        continue;
      std::optional<std::string> Name = readStaticText(S, Record, "kernel_name");
      std::optional<std::string> Signature = readStaticText(S, Record, "kernel_signature");
      if (!Name || !Signature) {
        S.Diag(Spec->getPointOfInstantiation(),
               diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::EntryNotInstantiated))
            << E.Template << Spec << "its argument does not name the expression it computes";
        continue;
      }

      passes::EntryAnnotation A;
      A.Kind = E.Kind;
      A.Name = *Name;
      A.Signature = *Signature;
      A.Location = MainFile;
      QualType Params = Spec->getParamDecl(0)->getType().getNonReferenceType();
      A.ParamSize = Ctx.getTypeSizeInChars(Params).getQuantity();
      A.ParamAlign = Ctx.getTypeAlignInChars(Params).getQuantity();
      // An algorithm step laid out for blocks other than the default's (algorithm_kernel.h).
      A.MaxThreads = readStaticInteger(S, Record, "block_threads").value_or(0);
      A.MinBlocks = A.MaxThreads ? readStaticInteger(S, Record, "blocks_per_sm").value_or(0) : 0;
      if (A.ParamSize > passes::EntryAnnotation::MaxParamSize) {
        S.Diag(
            Spec->getPointOfInstantiation(),
            E.Kind == KERNEL_ENTRY_ALGORITHM
                ? diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::GpuParameterBlock)
                : diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::FusedParameterBlock))
            << ("'" + *Name + "'") << static_cast<unsigned>(A.ParamSize)
            << static_cast<unsigned>(passes::EntryAnnotation::MaxParamSize);
        continue;
      }
      Spec->addAttr(UsedAttr::CreateImplicit(Ctx));
      Spec->addAttr(AnnotateAttr::CreateImplicit(Ctx, A.encode(), nullptr, 0));
      // The entry's own code is the library's; what the expression adds are its functions.
      llvm::SmallPtrSet<FunctionDecl *, 8> Seen;
      llvm::SmallVector<FunctionDecl *, 8> Functions;
      collectFunctions(Args->get(0), Seen, Functions);
      for (FunctionDecl *F : Functions)
        if (const FunctionDecl *Def = F->getDefinition())
          Roots.push_back({const_cast<FunctionDecl *>(Def), nullptr, *Name, Spec});
    }
  }
}

} // namespace plugin
} // namespace kernel
