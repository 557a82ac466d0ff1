// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- GufuncLayouts.cpp - A gufunc's layout against its functions' -------===//

#include "GufuncLayouts.h"

#include "KernelDeclTable.h"
#include "KernelDiagnostics.h"
#include "StdlibLookup.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

using namespace clang;

namespace kernel {
namespace plugin {

// The layout with its dimension names replaced by their order of first use, so that two
// layouts compare equal when they bind the same operands' dimensions together:
// "(m,n),(n)->(m)" and "(r,c),(c)->(r)" are both "(0,1),(1)->(0)".
static std::string shapeOf(const GufuncLayout &L) {
  llvm::StringMap<unsigned> Order;
  std::string Shape;
  for (unsigned I = 0; I < L.size(); ++I) {
    if (I == L.Inputs.size())
      Shape += "->";
    else if (I)
      Shape += ",";
    Shape += "(";
    const GufuncLayout::Operand &Op = L.operand(I);
    for (unsigned D = 0; D < Op.Dims.size(); ++D) {
      Shape += D ? "," : "";
      Shape += std::to_string(Order.try_emplace(Op.Dims[D], Order.size()).first->second);
    }
    Shape += ")";
  }
  return Shape;
}

void checkGufuncLayouts(Sema &S, const KernelDeclTable &Table) {
  ClassTemplateDecl *Template = lookupClassTemplate(S, {"kernel"}, "gufunc");
  if (!Template)
    return;
  for (ClassTemplateSpecializationDecl *Spec : Template->specializations()) {
    const SourceLocation Loc = Spec->getPointOfInstantiation();
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Loc.isInvalid() || Args.size() != 2 || Args[1].getKind() != TemplateArgument::Pack)
      continue;
    // The layout, a constant of class type: the template parameter object holding it.
    const APValue *Value = nullptr;
    if (Args[0].getKind() == TemplateArgument::Declaration) {
      if (auto *Object = dyn_cast<TemplateParamObjectDecl>(Args[0].getAsDecl()))
        Value = &Object->getValue();
    } else if (Args[0].getKind() == TemplateArgument::StructuralValue) {
      Value = &Args[0].getAsStructuralValue();
    }
    std::optional<std::string> Text = Value ? textOfCharacterStruct(*Value) : std::nullopt;
    if (!Text)
      continue;
    // A layout that does not parse is the library's static_assert to report.
    SignatureError Ignored;
    std::optional<GufuncLayout> Given = parseLayout(*Text, Ignored);
    if (!Given)
      continue;
    const std::string GivenShape = shapeOf(*Given);
    for (const TemplateArgument &A : Args[1].pack_elements()) {
      if (A.getKind() != TemplateArgument::Declaration)
        continue;
      auto *FD = dyn_cast<FunctionDecl>(A.getAsDecl());
      if (!FD)
        continue;
      FunctionTemplateDecl *Primary = FD->getPrimaryTemplate();
      const AnnotatedFunction *F = Table.find(Primary ? Primary->getTemplatedDecl() : FD);
      if (!F || F->Kind != KernelAttrKind::Guvectorize || !F->Layout ||
          shapeOf(*F->Layout) == GivenShape)
        continue;
      diag::error(S, Loc, diag::GufuncLayoutMismatch) << *Text << F->Layout->str() << FD;
      S.Diag(F->LayoutLiteral ? F->LayoutLiteral->getBeginLoc() : F->AttrLoc,
             diag::id(S.getDiagnostics(), DiagnosticsEngine::Note,
                      diag::UnlistedSpecializationSignatures))
          << attrSpelling(F->Kind);
    }
  }
}

} // namespace plugin
} // namespace kernel
