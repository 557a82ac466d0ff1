// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceCodeChecker.cpp - Rejects code a GPU cannot run --------------===//

#include "DeviceCodeChecker.h"
#include "DeviceDeclarations.h"
#include "KernelDiagnostics.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <utility>

using namespace clang;

namespace kernel {
namespace plugin {
namespace {

/// The C library functions GPU code may call: the pass maps the math functions to
/// libdevice and the memory functions to LLVM intrinsics.
bool isGpuLibraryFunction(ASTContext &Ctx, unsigned BuiltinID, StringRef Name) {
  StringRef Header = Ctx.BuiltinInfo.getHeaderName(BuiltinID);
  if (Header == "math.h" || Header == "complex.h")
    return true;
  if (Header == "string.h")
    return Name == "memcpy" || Name == "memmove" || Name == "memset";
  if (Header == "stdlib.h")
    return Name == "abs" || Name == "labs" || Name == "llabs";
  if (Header == "stdio.h")
    return Name == "printf"; // vprintf on the GPU
  return false;
}

/// Functions GPU code may call without a body: the kernel hooks the pass lowers
/// (__kernel_tid_x ...) and the C library functions the device runtime implements.
bool isProvidedOnDevice(const FunctionDecl *FD) {
  if (isDeclaredDevice(FD))
    return true; // from the user's CUDA-C device code, linked at run time
  if (!FD->isExternC() || !FD->getIdentifier())
    return false;
  StringRef Name = FD->getName();
  // GNU math functions (declared by glibc's math.h, not compiler builtins) that libdevice
  // implements: the pass maps them as it maps the standard ones.
  static constexpr StringRef GnuMath[] = {"sincos",    "sincosf", "sincospi",
                                          "sincospif", "exp10",   "exp10f"};
  return Name.starts_with("__kernel_") || Name == "__assert_fail" ||
         llvm::is_contained(GnuMath, Name);
}

bool isConstantGlobal(const VarDecl *VD) {
  if (VD->isConstexpr())
    return true;
  return VD->getType().isConstQualified() && VD->hasConstantInitialization();
}

/// The constant global an object expression is part of (`g`, `g.part`, `g[i]`), or null.
const VarDecl *constantGlobalObject(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(E); ME && !ME->isArrow())
      E = ME->getBase();
    else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      E = AS->getBase();
    else
      break;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (VD->hasGlobalStorage() && isConstantGlobal(VD))
        return VD;
  return nullptr;
}

using VisitedGlobals = llvm::SmallPtrSet<const VarDecl *, 8>;
const VarDecl *mutableGlobalIn(const APValue &V, VisitedGlobals &Visited);

/// A non-constant global that the constant `VD` (a reference, a pointer, a struct holding
/// one) leads to: the GPU has its own copy of that global, which the host never sees, so
/// reaching it through a constant is as wrong as naming it. Each constant is looked into once
/// (tables of pointers into themselves would otherwise be walked again and again).
const VarDecl *mutableGlobalReachedFrom(const VarDecl *VD, VisitedGlobals &Visited) {
  if (!Visited.insert(VD).second || !VD->hasGlobalStorage() || !VD->getInit() ||
      VD->getInit()->isValueDependent())
    return nullptr;
  const APValue *V = VD->evaluateValue();
  return V ? mutableGlobalIn(*V, Visited) : nullptr;
}
const VarDecl *mutableGlobalReachedFrom(const VarDecl *VD) {
  VisitedGlobals Visited;
  return mutableGlobalReachedFrom(VD, Visited);
}

const VarDecl *mutableGlobalIn(const APValue &V, VisitedGlobals &Visited) {
  switch (V.getKind()) {
  case APValue::LValue:
    if (const auto *Target =
            dyn_cast_or_null<VarDecl>(V.getLValueBase().dyn_cast<const ValueDecl *>())) {
      if (Target->hasGlobalStorage() && !isConstantGlobal(Target) &&
          Target->getTLSKind() == VarDecl::TLS_None)
        return Target;
      return mutableGlobalReachedFrom(Target, Visited);
    }
    return nullptr;
  case APValue::Struct:
    for (unsigned I = 0; I < V.getStructNumBases(); ++I)
      if (const VarDecl *Found = mutableGlobalIn(V.getStructBase(I), Visited))
        return Found;
    for (unsigned I = 0; I < V.getStructNumFields(); ++I)
      if (const VarDecl *Found = mutableGlobalIn(V.getStructField(I), Visited))
        return Found;
    return nullptr;
  case APValue::Union: return mutableGlobalIn(V.getUnionValue(), Visited);
  case APValue::Array:
    for (unsigned I = 0; I < V.getArrayInitializedElts(); ++I)
      if (const VarDecl *Found = mutableGlobalIn(V.getArrayInitializedElt(I), Visited))
        return Found;
    return V.hasArrayFiller() ? mutableGlobalIn(V.getArrayFiller(), Visited) : nullptr;
  default: return nullptr;
  }
}

/// Types no GPU has: x87 `long double` and the 128-bit float formats.
const char *hostOnlyType(QualType T) {
  if (const auto *BT = T->getAs<BuiltinType>()) {
    switch (BT->getKind()) {
    case BuiltinType::LongDouble: return "long double";
    case BuiltinType::Float128: return "__float128";
    case BuiltinType::Ibm128: return "__ibm128";
    default: return nullptr;
    }
  }
  return nullptr;
}

/// Integers wider than 64 bits (__int128, _BitInt(N > 64), enums based on them): the NVPTX
/// backend has no library for some of their operations (conversions to and from floating
/// point) and fails without a source location, so they are rejected wherever GPU code uses them.
bool isWideInteger(const ASTContext &Ctx, QualType T) {
  return T->isIntegralOrEnumerationType() && !T->isDependentType() && Ctx.getIntWidth(T) > 64;
}

class BodyVisitor : public RecursiveASTVisitor<BodyVisitor> {
public:
  BodyVisitor(DeviceCodeChecker &Checker, const FunctionDecl *FD)
      : Checker(Checker), FD(FD), Ctx(FD->getASTContext()), Diags(Checker.sema().getDiagnostics()) {
  }

  bool shouldVisitImplicitCode() const { return true; }
  bool shouldVisitTemplateInstantiations() const { return true; }

  /// Checks what runs when `FD` is called: member initializers and the body, not the
  /// signature (a noexcept(...) or decltype there is never evaluated).
  void traverseFunction() {
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        TraverseStmt(Init->getInit());
    if (const auto *Dtor = dyn_cast<CXXDestructorDecl>(FD))
      checkMemberDestructors(Dtor);
    TraverseStmt(FD->getBody());
  }

  // Unevaluated operands do not run on the device.
  bool TraverseTypeLoc(TypeLoc) { return true; }
  bool TraverseUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *) { return true; }
  bool TraverseCXXNoexceptExpr(CXXNoexceptExpr *) { return true; }
  bool TraverseRequiresExpr(RequiresExpr *) { return true; }
  bool TraverseConceptSpecializationExpr(ConceptSpecializationExpr *) { return true; }

  // A generic lambda's body here is its template, with calls not yet resolved to a function
  // (that is not an indirect call). What runs are its instantiations, checked as the
  // functions its callers reach; only the captures are evaluated here.
  bool TraverseLambdaExpr(LambdaExpr *E) {
    if (!E->getLambdaClass()->isGenericLambda())
      return RecursiveASTVisitor::TraverseLambdaExpr(E);
    for (Expr *Init : E->capture_inits())
      if (Init)
        TraverseStmt(Init);
    return true;
  }

  bool VisitCallExpr(CallExpr *E) {
    // Clang has reported why the call is invalid; it has no callee to judge.
    if (E->containsErrors())
      return true;
    const FunctionDecl *Callee = E->getDirectCallee();
    if (!Callee) {
      if (isa<CXXPseudoDestructorExpr>(E->getCallee()->IgnoreParens()))
        return true;
      report(E->getExprLoc(), diag::GpuIndirectCall);
      return true;
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      const CXXMethodDecl *MD = Member->getMethodDecl();
      if (const CXXRecordDecl *RD = MD ? MD->getParent() : nullptr;
          RD && RD->hasDefinition() && RD->hasMutableFields() && !MD->isStatic())
        if (const auto *ME = dyn_cast<MemberExpr>(Member->getCallee()->IgnoreParens());
            ME && !ME->isArrow())
          reportMutableInConstant(ME->getBase(), E->getExprLoc());
      if (MD && MD->isVirtual()) {
        const auto *ME = dyn_cast<MemberExpr>(Member->getCallee()->IgnoreParens());
        bool Static =
            ME && (ME->hasQualifier() || MD->getDevirtualizedMethod(ME->getBase(), false));
        if (!Static) {
          report(E->getExprLoc(), diag::GpuVirtualCall,
                 [&](const DiagnosticBuilder &B) { B << MD; });
          return true;
        }
      }
    }
    if (Callee->isVariadic() && Callee->getBuiltinID())
      checkObjectsThroughEllipsis(E, Callee);
    handleCallee(Callee, E->getExprLoc());
    return true;
  }

  // printf's `...` takes a class object as its bytes (kernel::threadIdx.x is one): what the
  // GPU prints is then garbage, where CUDA's threadIdx.x is a number.
  void checkObjectsThroughEllipsis(const CallExpr *E, const FunctionDecl *Callee) {
    for (unsigned I = Callee->getNumParams(); I < E->getNumArgs(); ++I) {
      const Expr *Arg = E->getArg(I)->IgnoreImpCasts();
      if (!Arg->getType()->isRecordType())
        continue;
      report(Arg->getExprLoc(), diag::GpuObjectThroughEllipsis,
             [&](const DiagnosticBuilder &B) { B << I + 1 << Callee << Arg->getType(); });
    }
  }

  // `if constexpr` and `if consteval` branches that are never generated do not run on the
  // device; only the init-statement and the branch kept are checked.
  bool TraverseIfStmt(IfStmt *S) {
    if (S->isConsteval()) {
      Stmt *AtRunTime = S->isNegatedConsteval() ? S->getThen() : S->getElse();
      return !AtRunTime || TraverseStmt(AtRunTime);
    }
    if (S->isConstexpr())
      if (std::optional<Stmt *> Kept = S->getNondiscardedCase(Ctx)) {
        if (S->getInit() && !TraverseStmt(S->getInit()))
          return false;
        return !*Kept || TraverseStmt(*Kept);
      }
    return RecursiveASTVisitor::TraverseIfStmt(S);
  }

  // Objects the code makes are destroyed in it, however they were made (aggregates and
  // brace-initialised temporaries have no constructor call).
  bool VisitCXXBindTemporaryExpr(CXXBindTemporaryExpr *E) {
    checkDestruction(E->getType(), E->getExprLoc());
    return true;
  }
  bool VisitMaterializeTemporaryExpr(MaterializeTemporaryExpr *E) {
    checkDestruction(E->getType(), E->getExprLoc());
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    const CXXConstructorDecl *Ctor = E->getConstructor();
    const CXXRecordDecl *RD = Ctor->getParent();
    if (RD->isDynamicClass()) {
      report(E->getExprLoc(), diag::GpuPolymorphicObject,
             [&](const DiagnosticBuilder &B) { B << RD; });
      return true;
    }
    if (!Ctor->isTrivial())
      handleCallee(Ctor, E->getExprLoc());
    checkDestruction(E->getType(), E->getExprLoc());
    return true;
  }

  bool VisitCXXNewExpr(CXXNewExpr *E) {
    const FunctionDecl *New = E->getOperatorNew();
    if (New && New->isReservedGlobalPlacementOperator())
      return true; // placement new constructs in memory the code already has
    report(E->getBeginLoc(), diag::GpuNew);
    return true;
  }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) {
    report(E->getBeginLoc(), diag::GpuDelete);
    return true;
  }
  bool VisitCXXThrowExpr(CXXThrowExpr *E) {
    report(E->getThrowLoc(), diag::GpuThrow);
    return true;
  }
  bool VisitCXXTryStmt(CXXTryStmt *S) {
    report(S->getTryLoc(), diag::GpuTry);
    return true;
  }
  bool VisitCXXTypeidExpr(CXXTypeidExpr *E) {
    report(E->getBeginLoc(), diag::GpuTypeid);
    return true;
  }
  bool VisitCXXDynamicCastExpr(CXXDynamicCastExpr *E) {
    if (E->getCastKind() == CK_Dynamic)
      report(E->getBeginLoc(), diag::GpuDynamicCast);
    return true;
  }
  // Once per function: a table of label addresses has one per entry.
  bool VisitAddrLabelExpr(AddrLabelExpr *E) {
    if (!std::exchange(ReportedComputedGoto, true))
      report(E->getAmpAmpLoc(), diag::GpuComputedGoto);
    return true;
  }
  bool VisitIndirectGotoStmt(IndirectGotoStmt *S) {
    if (!std::exchange(ReportedComputedGoto, true))
      report(S->getGotoLoc(), diag::GpuComputedGoto);
    return true;
  }
  // std::atomic_ref, std::atomic and the __atomic builtins: NVPTX has no atomics of other
  // sizes, and the library calls LLVM would make of them have no GPU implementation.
  bool VisitAtomicExpr(AtomicExpr *E) {
    const QualType T = E->getValueType();
    if (T.isNull() || T->isDependentType() || T->isIncompleteType())
      return true;
    const int64_t Bytes = Ctx.getTypeSizeInChars(T).getQuantity();
    if (Bytes != 1 && Bytes != 2 && Bytes != 4 && Bytes != 8)
      report(E->getBuiltinLoc(), diag::GpuAtomicSize, [&](const DiagnosticBuilder &B) {
        B << T.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy()) << Bytes;
      });
    return true;
  }
  bool VisitGCCAsmStmt(GCCAsmStmt *S) {
    report(S->getAsmLoc(), diag::GpuInlineAsm);
    return true;
  }
  bool VisitMSAsmStmt(MSAsmStmt *S) {
    report(S->getAsmLoc(), diag::GpuInlineAsm);
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *VD = dyn_cast<VarDecl>(E->getDecl()))
      checkVariable(VD, E->getLocation(), E->isNonOdrUse());
    return true;
  }
  // A static data member named through an object (`obj.s`, `p->s`, `this->s`) is the global
  // all the same.
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *VD = dyn_cast<VarDecl>(E->getMemberDecl()))
      checkVariable(VD, E->getMemberLoc(), E->isNonOdrUse());
    // A mutable member of a constant global can be written (a const member function may, as
    // well): the GPU's copy of the object would drift from the host's.
    if (const auto *Field = dyn_cast<FieldDecl>(E->getMemberDecl()); Field && Field->isMutable())
      reportMutableInConstant(E->isArrow() ? nullptr : E->getBase(), E->getMemberLoc());
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (VD->isStaticLocal() && !isConstantGlobal(VD))
      report(VD->getLocation(), diag::GpuStaticLocal, [&](const DiagnosticBuilder &B) { B << VD; });
    if (Ctx.getAsVariableArrayType(VD->getType()))
      report(VD->getLocation(), diag::GpuVariableLengthArray,
             [&](const DiagnosticBuilder &B) { B << VD; });
    checkType(VD->getType(), VD->getLocation());
    // A local object is destroyed at the end of its scope (parameters by the caller).
    if (VD->hasLocalStorage() && !isa<ParmVarDecl>(VD))
      checkDestruction(VD->getType(), VD->getLocation());
    return true;
  }

  bool VisitExpr(Expr *E) {
    checkType(E->getType(), E->getExprLoc());
    return true;
  }

private:
  void reportMutableInConstant(const Expr *Object, SourceLocation Loc) {
    if (const VarDecl *VD = Object ? constantGlobalObject(Object) : nullptr)
      report(Loc, diag::GpuMutableGlobal, [&](const DiagnosticBuilder &B) { B << VD; });
  }

  // The destructor that destroys an object (or the elements of an array) of type `T`, if it
  // does anything: references and dependent types destroy nothing here.
  void checkDestruction(QualType T, SourceLocation Loc) {
    if (T.isNull() || T->isDependentType() || T->isReferenceType())
      return;
    if (const CXXRecordDecl *RD = T->getBaseElementTypeUnsafe()->getAsCXXRecordDecl())
      if (RD->hasDefinition())
        if (const CXXDestructorDecl *D = RD->getDestructor(); D && !D->isTrivial())
          handleCallee(D, Loc);
  }

  void checkVariable(const VarDecl *VD, SourceLocation Loc, NonOdrUseReason NonOdrUse) {
    if (NonOdrUse == NOUR_Unevaluated)
      return;
    // A constant reference or pointer to a non-constant global reaches that global, also where
    // the access is folded (a reference usable in constant expressions is not odr-used).
    if (VD->hasGlobalStorage() && (isConstantGlobal(VD) || VD->getType()->isReferenceType()))
      if (const VarDecl *Target = mutableGlobalReachedFrom(VD)) {
        report(Loc, diag::GpuMutableGlobalThrough,
               [&](const DiagnosticBuilder &B) { B << Target << VD; });
        return;
      }
    // Unevaluated operands (sizeof, decltype) and constants folded at compile time do not
    // touch the variable at run time.
    if (NonOdrUse != NOUR_None || VD->isStaticLocal())
      return;
    // The kernel headers' own hooks (__kernel_simulating) are replaced by the pass.
    if (VD->isExternC() && VD->getIdentifier() && VD->getName().starts_with("__kernel_"))
      return;
    if (VD->getTLSKind() != VarDecl::TLS_None)
      report(Loc, diag::GpuThreadLocal, [&](const DiagnosticBuilder &B) { B << VD; });
    else if (VD->hasGlobalStorage() && !isConstantGlobal(VD))
      report(Loc, diag::GpuMutableGlobal, [&](const DiagnosticBuilder &B) { B << VD; });
  }

  // A destructor also destroys the members and bases it does not name.
  void checkMemberDestructors(const CXXDestructorDecl *Dtor) {
    const CXXRecordDecl *RD = Dtor->getParent();
    for (const FieldDecl *Field : RD->fields())
      checkDestruction(Field->getType(), Dtor->getLocation());
    for (const CXXBaseSpecifier &Base : RD->bases())
      checkDestruction(Base.getType(), Dtor->getLocation());
  }

  void checkType(QualType T, SourceLocation Loc) {
    if (ReportedType || T.isNull())
      return;
    T = Ctx.getBaseElementType(T).getCanonicalType();
    if (const auto *CT = T->getAs<ComplexType>())
      T = CT->getElementType();
    // Once per function: an expression of such a type has many subexpressions of it.
    if (isWideInteger(Ctx, T)) {
      ReportedType = true;
      report(Loc, diag::GpuWideInteger, [&](const DiagnosticBuilder &B) { B << T; });
      return;
    }
    const char *Name = hostOnlyType(T);
    if (!Name)
      return;
    ReportedType = true;
    if (StringRef(Name) == "long double")
      report(Loc, diag::GpuLongDouble);
    else
      report(Loc, diag::GpuHostOnlyType, [&](const DiagnosticBuilder &B) { B << Name; });
  }

  void handleCallee(const FunctionDecl *Callee, SourceLocation Loc) {
    if (unsigned ID = Callee->getBuiltinID()) {
      // Builtins of every target that NVPTX cannot select: stack memory sized at run time,
      // the thread pointer, frames and return addresses.
      switch (ID) {
      case Builtin::BIalloca:
      case Builtin::BI__builtin_alloca:
      case Builtin::BI__builtin_alloca_uninitialized:
      case Builtin::BI__builtin_alloca_with_align:
      case Builtin::BI__builtin_alloca_with_align_uninitialized:
      case Builtin::BI__builtin_thread_pointer:
      case Builtin::BI__builtin_frame_address:
      case Builtin::BI__builtin_return_address:
      case Builtin::BI__builtin_extract_return_addr:
      case Builtin::BI__builtin_setjmp:
      case Builtin::BI__builtin_longjmp:
      case Builtin::BI__builtin___clear_cache:
        report(Loc, diag::GpuUnsupportedBuiltin, [&](const DiagnosticBuilder &B) { B << Callee; });
        return;
      // Target-independent builtins in clang's tables, but questions about the x86 CPU.
      case Builtin::BI__builtin_cpu_init:
      case Builtin::BI__builtin_cpu_is:
      case Builtin::BI__builtin_cpu_supports:
        report(Loc, diag::GpuHostOnlyBuiltin, [&](const DiagnosticBuilder &B) { B << Callee; });
        return;
      default: break;
      }
      if (Ctx.BuiltinInfo.isTSBuiltin(ID)) {
        report(Loc, diag::GpuHostOnlyBuiltin, [&](const DiagnosticBuilder &B) { B << Callee; });
        return;
      }
      // std::move, std::forward, std::addressof ... are library builtins too, folded by
      // the compiler; only C library functions need a GPU implementation.
      if (Ctx.BuiltinInfo.isPredefinedLibFunction(ID) && !Callee->isInStdNamespace() &&
          !isGpuLibraryFunction(Ctx, ID, Callee->getName())) {
        report(Loc, diag::GpuLibraryCall, [&](const DiagnosticBuilder &B) { B << Callee; });
        return;
      }
      return; // compiler builtins and math: the pass lowers them
    }
    if (isProvidedOnDevice(Callee))
      return;
    if (Callee->isMultiVersion()) {
      report(Loc, diag::GpuMultiVersion, [&](const DiagnosticBuilder &B) { B << Callee; });
      return;
    }
    // The host's va_list would stay in the GPU code (printf, a builtin, is lowered above).
    if (Callee->isVariadic()) {
      report(Loc, diag::GpuVariadicCall, [&](const DiagnosticBuilder &B) { B << Callee; });
      return;
    }
    const FunctionDecl *Definition = nullptr;
    // An extern template's explicit instantiation declaration: clang emits the body it has
    // (which the GPU code needs) only to inline it (available_externally), so not without
    // optimisation nor for a noinline function, as CodeGen's shouldEmitFunction decides.
    const bool ExternTemplate =
        Callee->getTemplateSpecializationKind() == TSK_ExplicitInstantiationDeclaration;
    const bool BodyEmitted =
        !ExternTemplate || (!Callee->hasAttr<NoInlineAttr>() &&
                            (Ctx.getLangOpts().Optimize || Callee->hasAttr<AlwaysInlineAttr>()));
    if (!Callee->hasBody(Definition) || !BodyEmitted) {
      if (Callee->isTrivial() || (Callee->isDefaulted() && BodyEmitted))
        return;
      // A template whose instantiation failed has lost its body; the error that made it
      // fail was reported and says why.
      if (Callee->isInvalidDecl() ||
          (Callee->getTemplateSpecializationKind() == TSK_ImplicitInstantiation &&
           Callee->getTemplateInstantiationPattern() &&
           Callee->getTemplateInstantiationPattern()->hasBody() && Diags.hasErrorOccurred()))
        return;
      bool Throws = Callee->isInStdNamespace() && Callee->getIdentifier() &&
                    Callee->getName().starts_with("__throw_");
      unsigned Explanation = 0;
      if (Throws)
        Explanation = diag::id(Diags, DiagnosticsEngine::Note, diag::NoteThrowingLibrary);
      else if (ExternTemplate)
        Explanation = diag::id(Diags, DiagnosticsEngine::Note, diag::NoteExternTemplate);
      report(
          Loc, diag::GpuUndefinedCallee, [&](const DiagnosticBuilder &B) { B << Callee; },
          Explanation);
      return;
    }
    Checker.reach(Definition, FD, Loc);
  }

  template <unsigned N>
  void report(SourceLocation Loc, const char (&Format)[N],
              llvm::function_ref<void(const DiagnosticBuilder &)> Args = nullptr,
              unsigned ExplanationID = 0) {
    Checker.report(Loc, FD, diag::id(Diags, DiagnosticsEngine::Error, Format), Args, ExplanationID);
  }

  DeviceCodeChecker &Checker;
  const FunctionDecl *FD;
  ASTContext &Ctx;
  DiagnosticsEngine &Diags;
  bool ReportedType = false;
  bool ReportedComputedGoto = false;
};

} // namespace

void DeviceCodeChecker::check(const GpuRoot &Root) {
  CurrentRoot = &Root;
  if (Checked.insert(Root.Fn).second) {
    RootOf[Root.Fn] = &Root;
    Worklist.push_back(Root.Fn);
  }
  while (!Worklist.empty())
    checkBody(Worklist.pop_back_val());
  CurrentRoot = nullptr;
}

void DeviceCodeChecker::reach(const FunctionDecl *Callee, const FunctionDecl *Caller,
                              SourceLocation Loc) {
  if (!Checked.insert(Callee).second)
    return;
  ReachedFrom[Callee] = {Caller, Loc};
  RootOf[Callee] = CurrentRoot;
  Worklist.push_back(Callee);
}

void DeviceCodeChecker::checkBody(const FunctionDecl *FD) {
  BodyVisitor(*this, FD).traverseFunction();
}

bool DeviceCodeChecker::report(SourceLocation Loc, const FunctionDecl *In, unsigned DiagID,
                               llvm::function_ref<void(const DiagnosticBuilder &)> Args,
                               unsigned ExplanationID) {
  if (!Reported.insert(Loc.getRawEncoding()).second)
    return false;
  DiagnosticsEngine &Diags = S.getDiagnostics();
  {
    DiagnosticBuilder B = Diags.Report(Loc, DiagID);
    if (Args)
      Args(B);
  }
  if (ExplanationID)
    Diags.Report(Loc, ExplanationID);
  const FunctionDecl *F = In;
  for (auto It = ReachedFrom.find(F); It != ReachedFrom.end(); It = ReachedFrom.find(F)) {
    Diags.Report(It->second.Loc, diag::id(Diags, DiagnosticsEngine::Note, diag::NoteCalledFrom))
        << F << It->second.Caller;
    F = It->second.Caller;
  }
  if (const GpuRoot *Root = RootOf.lookup(F)) {
    if (Root->Origin)
      Diags.Report(Root->Origin->AttrLoc,
                   diag::id(Diags, DiagnosticsEngine::Note, diag::NoteCompiledForGpu))
          << Root->Fn << attrSpelling(Root->Origin->Kind);
    else if (Root->LibraryEntry->getName() == "algorithm_kernel")
      Diags.Report(Root->LibraryEntry->getPointOfInstantiation(),
                   diag::id(Diags, DiagnosticsEngine::Note, diag::NoteCompiledForGpuAlgorithm))
          << Root->Fn << Root->Signature;
    else // a fused expression: its kernel is instantiated where it is materialised
      Diags.Report(Root->LibraryEntry->getPointOfInstantiation(),
                   diag::id(Diags, DiagnosticsEngine::Note, diag::NoteCompiledForGpuFused))
          << Root->Fn << Root->Signature;
  }
  return true;
}

} // namespace plugin
} // namespace kernel
