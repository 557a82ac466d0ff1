// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- UnlistedSpecializations.cpp - Library uses of unsigned instances ---===//

#include "UnlistedSpecializations.h"

#include "KernelDeclTable.h"
#include "KernelDiagnostics.h"
#include "StdlibLookup.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <string>

using namespace clang;

namespace kernel {
namespace plugin {

// The functions among a callable's template arguments (`auto... F`).
static void collectFunctionArguments(const TemplateArgument &Arg,
                                     llvm::SmallVectorImpl<FunctionDecl *> &Out) {
  if (Arg.getKind() == TemplateArgument::Pack) {
    for (const TemplateArgument &A : Arg.pack_elements())
      collectFunctionArguments(A, Out);
  } else if (Arg.getKind() == TemplateArgument::Declaration) {
    if (auto *FD = dyn_cast<FunctionDecl>(Arg.getAsDecl()))
      Out.push_back(FD);
  }
}

static std::string signatureList(const AnnotatedFunction &F) {
  std::string List;
  for (const WrittenSignature &W : F.Signatures)
    List += (List.empty() ? "'" : ", '") + W.Sig.str() + "'";
  return List;
}

void checkUnlistedSpecializations(Sema &S, const KernelDeclTable &Table,
                                  llvm::ArrayRef<GpuRoot> Roots) {
  llvm::SmallPtrSet<const FunctionDecl *, 16> Signed;
  for (const GpuRoot &R : Roots)
    if (R.Origin)
      Signed.insert(R.Fn->getCanonicalDecl());
  llvm::SmallPtrSet<const FunctionDecl *, 8> Reported;
  for (const char *Callable : {"ufunc", "reduce", "gufunc", "launcher"}) {
    ClassTemplateDecl *Template = lookupClassTemplate(S, {"kernel"}, Callable);
    if (!Template)
      continue;
    for (ClassTemplateSpecializationDecl *Spec : Template->specializations()) {
      llvm::SmallVector<FunctionDecl *, 4> Functions;
      for (const TemplateArgument &A : Spec->getTemplateArgs().asArray())
        collectFunctionArguments(A, Functions);
      for (FunctionDecl *FD : Functions) {
        FunctionTemplateDecl *Primary = FD->getPrimaryTemplate();
        const AnnotatedFunction *F = Primary ? Table.find(Primary->getTemplatedDecl()) : nullptr;
        if (!F || F->Kind == KernelAttrKind::Device || Signed.contains(FD->getCanonicalDecl()) ||
            !Reported.insert(FD->getCanonicalDecl()).second)
          continue;
        // Where the user's code named it (its address taken as a template argument); the
        // callable's own instantiation may be in the library (kernel::launch returns a launcher).
        SourceLocation Loc = FD->getPointOfInstantiation();
        if (Loc.isInvalid())
          Loc = Spec->getPointOfInstantiation();
        S.Diag(Loc,
               diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::UnlistedSpecialization))
            << FD << attrSpelling(F->Kind) << signatureList(*F);
        S.Diag(F->AttrLoc, diag::id(S.getDiagnostics(), DiagnosticsEngine::Note,
                                    diag::UnlistedSpecializationSignatures))
            << attrSpelling(F->Kind);
      }
    }
  }
}

} // namespace plugin
} // namespace kernel
