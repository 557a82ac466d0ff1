// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceDeclarations.cpp - [[kernel::declare_device]], [[kernel::link]] -===//
//
// Declarations of CUDA-C device functions that kernels call, and the device code that
// defines them:
//
//   [[kernel::declare_device]] extern "C" int bar(int a, int b);          // C ABI
//   [[kernel::declare_device("numba")]] extern "C" int bar(int a, int b);  // int bar(int *ret,
//   int, int)
//   [[kernel::link("bar.o")]]                                             // relative to this file
//
// A relative path is looked for as #include "..." looks for a header: beside the file that
// names it, then in the include path; before the include path, in each link root given to the
// plugin (link-root=DIR) at the file's own directory, because a build that generates files
// into a tree of its own mirrors the source tree there (Bazel's bazel-out/.../bin), so that a
// generated file is named as a source file beside it would be.
//
// The handlers check what the plugin can see of the calling convention and leave
// `annotate` strings that the offload pass reads from the IR: "kernel.declare_device" with
// the convention, the C++ signature and the location on the declaration, and "kernel.link"
// with the resolved path and the path as written for each file. The body check waits for
// the end of the translation unit (a definition may follow the declaration).
//
//===----------------------------------------------------------------------===//

#include "DeviceDeclarations.h"
#include "KernelAttrScope.h"
#include "KernelDeclTable.h"
#include "KernelDiagnostics.h"

#include "ExternalDeviceCode.h"
#include "KernelAnnotations.h"

#include "kernel/detail/device_code_files.h"
#include "kernel/detail/link_inputs.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/ParsedAttrInfo.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <utility>

using namespace clang;

namespace kernel {
namespace plugin {

namespace {

// The plugin's arguments are parsed before the first attribute is. Translation units
// compiled in one process (clang++ -c a.cpp b.cpp) share the roots; they have the same
// command line, so each adds the same ones (addLinkRoot keeps one of each).
std::vector<std::string> &linkRoots() {
  static std::vector<std::string> Roots;
  return Roots;
}

/// Where [[kernel::link("Written")]] in `FromFile` is: empty if nowhere. `Tried` gets the
/// first place looked at, for the diagnostic.
std::string findLinkFile(Sema &S, StringRef Written, StringRef FromFile, std::string &Tried) {
  if (llvm::sys::path::is_absolute(Written)) {
    Tried = Written.str();
    return llvm::sys::fs::is_regular_file(Written) ? Tried : std::string();
  }
  const StringRef FromDir = llvm::sys::path::parent_path(FromFile);
  const auto Existing = [&](StringRef Dir, StringRef Under) -> std::string {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, Under, Written);
    if (Tried.empty())
      Tried = Path.str().str();
    return llvm::sys::fs::is_regular_file(Path) ? Path.str().str() : std::string();
  };
  if (std::string Found = Existing(FromDir, ""); !Found.empty())
    return Found;
  if (!llvm::sys::path::is_absolute(FromDir))
    for (const std::string &Root : linkRoots())
      if (std::string Found = Existing(Root, FromDir); !Found.empty())
        return Found;
  const HeaderSearch &Headers = S.getPreprocessor().getHeaderSearchInfo();
  for (const DirectoryLookup &Lookup : Headers.search_dir_range())
    if (const OptionalDirectoryEntryRef Dir = Lookup.getDirRef())
      if (std::string Found = Existing(Dir->getName(), ""); !Found.empty())
        return Found;
  return std::string();
}

using LinkFileVerdict = std::optional<std::pair<std::string, std::string>>;

/// Why the file at `Path` cannot be linked as what its extension says, with that kind
/// ("cubin", "ptx"); std::nullopt where nothing is found wrong. CUDA-C is NVRTC's to judge.
LinkFileVerdict checkLinkFile(StringRef Path) {
  const std::string Extension = llvm::sys::path::extension(Path).str();
  const kernel::detail::link_format_info *Format =
      kernel::detail::link_format_for_extension(Extension);
  if (!Format || Format->format == kernel::detail::link_format::cuda)
    return std::nullopt;
  const std::string Kind(Format->name);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Bytes =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Bytes)
    return std::make_pair(Kind, "it cannot be read: " + Bytes.getError().message());
  std::string Why = kernel::detail::device_code_damage(
      Format->format, std::string_view((*Bytes)->getBufferStart(), (*Bytes)->getBufferSize()));
  if (Why.empty())
    return std::nullopt;
  return std::make_pair(Kind, std::move(Why));
}

/// checkLinkFile, once per version of a file: a library every declaration names (a fat binary
/// decompressed to be checked) is read once, not once per declaration. Keyed by the file's
/// time and size too, for a process that compiles more than once (clangd).
LinkFileVerdict linkFileDamage(StringRef Path) {
  static llvm::StringMap<LinkFileVerdict> Checked;
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status))
    return checkLinkFile(Path);
  const std::string Key =
      Path.str() + "\n" +
      std::to_string(Status.getLastModificationTime().time_since_epoch().count()) + "\n" +
      std::to_string(Status.getSize());
  auto [It, Inserted] = Checked.try_emplace(Key);
  if (Inserted)
    It->second = checkLinkFile(Path);
  return It->second;
}

/// Whether the file at `Path`, undamaged, names `Symbol` as a variable (nvJitLink crashes
/// linking it with a call of the function of that name); once per version of the file and name.
bool linkFileNamesVariable(StringRef Path, StringRef Symbol) {
  const std::string Extension = llvm::sys::path::extension(Path).str();
  const kernel::detail::link_format_info *Format =
      kernel::detail::link_format_for_extension(Extension);
  // CUDA-C is compiled by NVRTC when the program first links; the runtime reads its PTX then.
  if (!Format || Format->format == kernel::detail::link_format::cuda || Symbol.empty())
    return false;
  static llvm::StringMap<bool> Checked;
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status))
    return false;
  const std::string Key =
      Path.str() + "\n" +
      std::to_string(Status.getLastModificationTime().time_since_epoch().count()) + "\n" +
      std::to_string(Status.getSize()) + "\n" + Symbol.str();
  auto [It, Inserted] = Checked.try_emplace(Key, false);
  if (Inserted) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Bytes =
        llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    It->second =
        Bytes &&
        kernel::detail::names_variable(
            Format->format, std::string_view((*Bytes)->getBufferStart(), (*Bytes)->getBufferSize()),
            std::string_view(Symbol.data(), Symbol.size()));
  }
  return It->second;
}

const StringLiteral *stringArgument(const ParsedAttr &Attr, unsigned I) {
  if (Attr.isArgIdent(I))
    return nullptr;
  Expr *E = Attr.getArgAsExpr(I);
  const auto *Literal = dyn_cast_or_null<StringLiteral>(E ? E->IgnoreParenImpCasts() : nullptr);
  return Literal && Literal->isOrdinary() ? Literal : nullptr;
}

SourceLocation argumentLoc(const ParsedAttr &Attr, unsigned I) {
  if (Attr.isArgIdent(I))
    return Attr.getArgAsIdent(I)->Loc;
  Expr *E = Attr.getArgAsExpr(I);
  return E ? E->getExprLoc() : Attr.getLoc();
}

/// Types that pass the same way in the host's and the device's C ABI, as scalars in
/// registers: what a C++ declaration and a CUDA-C definition agree on.
bool isDevicePassable(QualType T) {
  T = T.getCanonicalType();
  if (T->isPointerType())
    return true;
  if (T->isEnumeralType() || T->isBooleanType())
    return true;
  if (const auto *BT = T->getAs<BuiltinType>())
    return (BT->isInteger() || BT->isFloatingPoint()) && BT->getKind() != BuiltinType::LongDouble &&
           BT->getKind() != BuiltinType::Float128 && BT->getKind() != BuiltinType::Ibm128 &&
           BT->getKind() != BuiltinType::Int128 && BT->getKind() != BuiltinType::UInt128;
  return false;
}

std::string printed(const ASTContext &Ctx, QualType T) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  T.print(OS, Ctx.getPrintingPolicy());
  return S;
}

/// "int bar(int, int)": how messages and the host fallback name the function.
std::string cxxSignature(const ASTContext &Ctx, const FunctionDecl *FD, bool SkipFirst = false) {
  // Qualified: a definition of the same name in another namespace is another function.
  std::string S = printed(Ctx, FD->getReturnType()) + " " + FD->getQualifiedNameAsString() + "(";
  for (unsigned I = SkipFirst ? 1 : 0; I < FD->getNumParams(); ++I)
    S += (I > (SkipFirst ? 1u : 0u) ? ", " : "") + printed(Ctx, FD->getParamDecl(I)->getType());
  return S + ")";
}

std::string locationString(const SourceManager &SM, SourceLocation Loc) {
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return "<unknown>";
  return llvm::sys::path::filename(P.getFilename()).str() + ":" + std::to_string(P.getLine());
}

class DeclareDeviceAttrInfo : public ParsedAttrInfo {
public:
  DeclareDeviceAttrInfo() {
    OptArgs = 1;
    static constexpr Spelling Names[] = {{ParsedAttr::AS_CXX11, "kernel::declare_device"},
                                         {ParsedAttr::AS_CXX11, "declare_device"}};
    Spellings = Names;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr, const Decl *D) const override {
    if (!isKernelScope(Attr) || isa<FunctionDecl>(D))
      return true;
    if (isa<FunctionTemplateDecl>(D)) {
      S.Diag(Attr.getLoc(),
             diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::DeclareDeviceTemplate))
          << cast<NamedDecl>(D);
      return false;
    }
    S.Diag(Attr.getLoc(),
           diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::NotAFunction))
        << "kernel::declare_device";
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &Attr) const override {
    if (warnIfNotKernelScope(S, Attr))
      return AttributeNotApplied;
    auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD)
      return AttributeNotApplied;
    DiagnosticsEngine &Diags = S.getDiagnostics();
    auto Error = [&](SourceLocation Loc, const auto &Format) {
      return S.Diag(Loc, diag::id(Diags, DiagnosticsEngine::Error, Format));
    };

    StringRef Abi = "c";
    if (Attr.getNumArgs() == 1) {
      const StringLiteral *Literal = stringArgument(Attr, 0);
      if (!Literal || (Literal->getString() != "c" && Literal->getString() != "numba")) {
        Error(argumentLoc(Attr, 0), diag::DeclareDeviceAbi);
        return AttributeNotApplied;
      }
      Abi = Literal->getString();
    }
    if (FD->getTemplatedKind() != FunctionDecl::TK_NonTemplate) {
      Error(Attr.getLoc(), diag::DeclareDeviceTemplate) << FD;
      return AttributeNotApplied;
    }
    if (isa<CXXMethodDecl>(FD)) {
      Error(Attr.getLoc(), diag::DeclareDeviceMember) << FD;
      return AttributeNotApplied;
    }
    if (FD->isVariadic()) {
      Error(Attr.getLoc(), diag::DeclareDeviceVariadic) << FD;
      return AttributeNotApplied;
    }
    const bool Numba = Abi == "numba";
    const char *Convention = Numba ? "the Numba" : "the C";
    bool Ok = true;
    for (const ParmVarDecl *P : FD->parameters())
      if (!isDevicePassable(P->getType())) {
        Error(P->getLocation(), diag::DeclareDeviceParam)
            << P << FD << printed(S.Context, P->getType()) << Convention;
        Ok = false;
      }
    QualType Result = FD->getReturnType();
    if (!Result->isVoidType() && !isDevicePassable(Result)) {
      Error(FD->getLocation(), diag::DeclareDeviceResult)
          << FD << printed(S.Context, Result) << Convention;
      Ok = false;
    }
    if (Ok && Numba) {
      if (Result->isVoidType()) {
        Error(FD->getLocation(), diag::NumbaNeedsResult) << FD;
        Ok = false;
      } else if (!FD->isExternC()) {
        Error(FD->getLocation(), diag::NumbaNeedsExternC) << FD;
        Ok = false;
      } else if (FD->getNumParams() > 0) {
        // int bar(int *retval, int a, int b) is the CUDA-C definition's signature, not how
        // kernels call it: what the user may have copied from the .cu file. Only a warning:
        // float load(float *p, int i) is a valid declaration of the same shape, and a copied
        // signature has a parameter too many, which the link reports.
        QualType First = FD->getParamDecl(0)->getType().getCanonicalType();
        if (First->isPointerType() && !First->getPointeeType().isConstQualified() &&
            S.Context.hasSameUnqualifiedType(First->getPointeeType(), Result.getCanonicalType()))
          S.Diag(FD->getParamDecl(0)->getLocation(),
                 diag::id(Diags, DiagnosticsEngine::Warning, diag::NumbaResultPointer))
              << FD << cxxSignature(S.Context, FD, /*SkipFirst=*/true);
      }
    }
    if (!Ok)
      return AttributeNotApplied;

    const passes::DeclareDeviceAnnotation Annotation{
        Numba, cxxSignature(S.Context, FD),
        locationString(S.getSourceManager(), FD->getLocation())};
    FD->addAttr(
        AnnotateAttr::CreateImplicit(S.Context, Annotation.encode(), nullptr, 0, Attr.getRange()));
    if (KernelDeclTable *Table = KernelDeclTable::forContext(S.Context))
      Table->addDeviceDeclaration(FD);
    return AttributeApplied;
  }
};

class LinkAttrInfo : public ParsedAttrInfo {
public:
  LinkAttrInfo() {
    OptArgs = 15;
    static constexpr Spelling Names[] = {{ParsedAttr::AS_CXX11, "kernel::link"},
                                         {ParsedAttr::AS_CXX11, "link"}};
    Spellings = Names;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr, const Decl *D) const override {
    if (!isKernelScope(Attr) || isa<FunctionDecl>(D) || isa<FunctionTemplateDecl>(D))
      return true;
    S.Diag(Attr.getLoc(),
           diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::NotAFunction))
        << "kernel::link";
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &Attr) const override {
    if (warnIfNotKernelScope(S, Attr))
      return AttributeNotApplied;
    FunctionDecl *FD = D->getAsFunction();
    if (!FD)
      return AttributeNotApplied;
    DiagnosticsEngine &Diags = S.getDiagnostics();
    const SourceManager &SM = S.getSourceManager();
    if (Attr.getNumArgs() == 0) {
      S.Diag(Attr.getLoc(), diag::id(Diags, DiagnosticsEngine::Error, diag::LinkNotString));
      return AttributeNotApplied;
    }
    bool Ok = true;
    for (unsigned I = 0; I < Attr.getNumArgs(); ++I) {
      const StringLiteral *Literal = stringArgument(Attr, I);
      if (!Literal) {
        S.Diag(argumentLoc(Attr, I),
               diag::id(Diags, DiagnosticsEngine::Error, diag::LinkNotString));
        Ok = false;
        continue;
      }
      StringRef Written = Literal->getString();
      if (!isLinkableFile(Written)) {
        S.Diag(Literal->getBeginLoc(),
               diag::id(Diags, DiagnosticsEngine::Error, diag::LinkFileKind))
            << kernel::detail::not_linkable_message(
                   std::string_view(Written.data(), Written.size()));
        Ok = false;
        continue;
      }
      const PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Literal->getBeginLoc()));
      std::string Tried;
      const std::string Path =
          findLinkFile(S, Written, P.isValid() ? P.getFilename() : StringRef(), Tried);
      if (Path.empty()) {
        S.Diag(Literal->getBeginLoc(),
               diag::id(Diags, DiagnosticsEngine::Error, diag::LinkFileMissing))
            << Written << Tried << !llvm::sys::path::is_absolute(Written);
        Ok = false;
        continue;
      }
      // A damaged or mislabelled file is said here, at its attribute: the pass that embeds it
      // has no line to show.
      if (const auto Why = linkFileDamage(Path)) {
        S.Diag(Literal->getBeginLoc(),
               diag::id(Diags, DiagnosticsEngine::Error, diag::LinkFileDamaged))
            << Written << Why->first << Why->second;
        Ok = false;
        continue;
      }
      const passes::LinkAnnotation Annotation{Path, Written.str()};
      FD->addAttr(AnnotateAttr::CreateImplicit(S.Context, Annotation.encode(), nullptr, 0,
                                               Attr.getRange()));
      // Also recorded outside the function: one nothing calls is not emitted, and its
      // annotation would be lost with it.
      if (KernelDeclTable *Table = KernelDeclTable::forContext(S.Context))
        Table->addLinkFile(Path, Written.str(),
                           SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())));
    }
    return Ok ? AttributeApplied : AttributeNotApplied;
  }
};

ParsedAttrInfoRegistry::Add<DeclareDeviceAttrInfo>
    RegisterDeclareDevice("kernel-declare-device", "[[kernel::declare_device]]");
ParsedAttrInfoRegistry::Add<LinkAttrInfo> RegisterLink("kernel-link", "[[kernel::link]]");

} // namespace

bool isLinkableFile(llvm::StringRef Path) { return !passes::linkInputKind(Path).empty(); }

void addLinkRoot(llvm::StringRef Dir) {
  if (!llvm::is_contained(linkRoots(), Dir))
    linkRoots().push_back(Dir.str());
}

bool isDeclaredDevice(const FunctionDecl *FD) {
  for (const FunctionDecl *R : FD->redecls())
    for (const auto *A : R->specific_attrs<AnnotateAttr>())
      if (passes::DeclareDeviceAnnotation::decode(A->getAnnotation()))
        return true;
  return false;
}

void checkDeviceDeclarations(Sema &S, llvm::ArrayRef<const FunctionDecl *> Declarations) {
  for (const FunctionDecl *FD : Declarations) {
    if (const FunctionDecl *Def = FD->getDefinition())
      S.Diag(Def->getLocation(),
             diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::DeclareDeviceBody))
          << Def;
    // Its symbol would be local to this file: neither the CUDA-C code nor a host
    // implementation elsewhere could ever define it. Known once its redeclarations are merged
    // (static before the attribute's); extern "C" in an unnamed namespace is external.
    else if (!FD->isExternallyVisible())
      S.Diag(FD->getLocation(),
             diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::DeclareDeviceInternal))
          << FD;
    // A file its kernel::link attributes name that holds a variable of its name: nvJitLink
    // crashes linking the two. Checked here, once the declarations are merged, whatever the
    // order of the attributes. (A C++-linkage declaration's symbol is mangled: no variable of
    // the file is named as it.)
    if (!FD->isExternC() || !FD->getIdentifier())
      continue;
    for (const FunctionDecl *R : FD->redecls())
      for (const auto *A : R->specific_attrs<AnnotateAttr>())
        if (const auto Link = passes::LinkAnnotation::decode(A->getAnnotation()))
          if (linkFileNamesVariable(Link->Path, FD->getName()))
            S.Diag(A->getLocation(),
                   diag::id(S.getDiagnostics(), DiagnosticsEngine::Error, diag::LinkFileVariable))
                << Link->Written << FD->getName() << FD;
  }
}

} // namespace plugin
} // namespace kernel
