// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- StdlibLookup.cpp - Finding library declarations from the plugin ----===//

#include "StdlibLookup.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace kernel {
namespace plugin {

static NamedDecl *lookupIn(Sema &S, DeclContext *DC, StringRef Name, Sema::LookupNameKind Kind) {
  LookupResult R(S, DeclarationName(&S.Context.Idents.get(Name)), SourceLocation(), Kind);
  if (!S.LookupQualifiedName(R, DC) || R.empty() || R.isAmbiguous())
    return nullptr;
  // A namespace is found once per redeclaration; any of them is the namespace.
  return (*R.begin())->getUnderlyingDecl();
}

NamedDecl *lookupQualified(Sema &S, ArrayRef<StringRef> Namespaces, StringRef Name) {
  DeclContext *DC = S.Context.getTranslationUnitDecl();
  for (StringRef NS : Namespaces) {
    auto *Found =
        dyn_cast_or_null<NamespaceDecl>(lookupIn(S, DC, NS, Sema::LookupNestedNameSpecifierName));
    if (!Found)
      return nullptr;
    DC = Found;
  }
  return lookupIn(S, DC, Name, Sema::LookupOrdinaryName);
}

ClassTemplateDecl *lookupClassTemplate(Sema &S, ArrayRef<StringRef> Namespaces, StringRef Name) {
  return dyn_cast_or_null<ClassTemplateDecl>(lookupQualified(S, Namespaces, Name));
}

FunctionTemplateDecl *lookupFunctionTemplate(Sema &S, ArrayRef<StringRef> Namespaces,
                                             StringRef Name) {
  return dyn_cast_or_null<FunctionTemplateDecl>(lookupQualified(S, Namespaces, Name));
}

QualType specializeClassTemplate(Sema &S, ClassTemplateDecl *Template,
                                 ArrayRef<TemplateArgument> Args, SourceLocation Loc) {
  ASTContext &Ctx = S.Context;
  TemplateArgumentListInfo List(Loc, Loc);
  for (const TemplateArgument &A : Args) {
    if (A.getKind() == TemplateArgument::Type) {
      List.addArgument(TemplateArgumentLoc(A, Ctx.getTrivialTypeSourceInfo(A.getAsType(), Loc)));
    } else {
      Expr *E = IntegerLiteral::Create(Ctx, A.getAsIntegral(), A.getIntegralType(), Loc);
      List.addArgument(TemplateArgumentLoc(TemplateArgument(E), E));
    }
  }
  return S.CheckTemplateIdType(TemplateName(Template), Loc, List);
}

std::optional<std::string> textOfCharacterStruct(const APValue &Value) {
  if (!Value.isStruct() || Value.getStructNumFields() < 1)
    return std::nullopt;
  const APValue &Chars = Value.getStructField(0);
  if (!Chars.isArray())
    return std::nullopt;
  std::string Text;
  for (unsigned I = 0; I < Chars.getArraySize(); ++I) {
    const APValue &C = I < Chars.getArrayInitializedElts() ? Chars.getArrayInitializedElt(I)
                                                           : Chars.getArrayFiller();
    if (!C.isInt() || C.getInt().isZero())
      break;
    Text += static_cast<char>(C.getInt().getExtValue());
  }
  return Text;
}

} // namespace plugin
} // namespace kernel
