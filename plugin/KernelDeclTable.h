// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelDeclTable.h - Functions carrying kernel attributes --*- C++ -*-===//
//
// What the attribute handlers learned about each annotated function (its kind and parsed
// signatures with where they were written), kept for the AST consumer, which instantiates
// the GPU entries once the function is defined and checks the code when the translation
// unit is complete. One table per compilation, found through the ASTContext because the
// attribute handlers are process-wide singletons that only see Sema.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_KERNELDECLTABLE_H
#define KERNEL_PLUGIN_KERNELDECLTABLE_H

#include "SignatureParser.h"

#include "kernel/detail/module_abi.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kernel {
namespace plugin {

enum class KernelAttrKind { Vectorize, Guvectorize, Reduce, Jit, Device };

/// "kernel::vectorize", "kernel::jit", "kernel::device".
llvm::StringRef attrSpelling(KernelAttrKind K);
/// The spelling without the scope: "vectorize", "jit", "device".
llvm::StringRef attrName(KernelAttrKind K);

/// The kind of GPU entry the plugin instantiates for a function with this attribute
/// (kernel/detail/module_abi.h); std::nullopt for kernel::device, which has none.
std::optional<kernel_entry_kind> entryKindFor(KernelAttrKind K);

/// A signature as written in an attribute argument (Literal is null for one derived from
/// the C++ types).
struct WrittenSignature {
  Signature Sig;
  const clang::StringLiteral *Literal = nullptr;
};

struct AnnotatedFunction {
  clang::FunctionDecl *Decl = nullptr; ///< the annotated declaration (templated for templates)
  KernelAttrKind Kind = KernelAttrKind::Device;
  clang::SourceLocation AttrLoc;
  llvm::SmallVector<WrittenSignature, 2> Signatures;
  /// kernel::guvectorize: the layout string and where it was written.
  std::optional<GufuncLayout> Layout;
  const clang::StringLiteral *LayoutLiteral = nullptr;
  /// The return type is deduced from the body: the C++ type is checked once it is defined.
  bool TypeCheckDeferred = false;
  bool Processed = false;
};

class KernelDeclTable {
public:
  /// The table of the compilation that owns `Ctx`, or null when the plugin's consumer is not
  /// part of it (the attributes are then only checked).
  static KernelDeclTable *forContext(const clang::ASTContext &Ctx);

  explicit KernelDeclTable(const clang::ASTContext &Ctx);
  ~KernelDeclTable();
  KernelDeclTable(const KernelDeclTable &) = delete;
  KernelDeclTable &operator=(const KernelDeclTable &) = delete;

  AnnotatedFunction *find(const clang::FunctionDecl *FD) const;
  AnnotatedFunction &add(AnnotatedFunction F);

  /// Functions in the order their attributes were seen.
  const std::vector<std::unique_ptr<AnnotatedFunction>> &functions() const { return Functions; }

  /// Declarations of external device functions ([[kernel::declare_device]]), checked at
  /// the end of the translation unit for a body that may come after the attribute.
  void addDeviceDeclaration(const clang::FunctionDecl *FD) { DeviceDeclarations.push_back(FD); }
  llvm::ArrayRef<const clang::FunctionDecl *> deviceDeclarations() const {
    return DeviceDeclarations;
  }

  /// Files [[kernel::link]] names, as (path, as written), in the order seen. Shared, as the
  /// offload pass and the dependency report read them after the table may be gone.
  using LinkFileList = std::vector<std::pair<std::string, std::string>>;
  /// `InMainFile`: the attribute is in the source file itself, whose own declarations the
  /// offload pass links whether or not they are called (an anchor for the file); a header's
  /// count only where the module calls them, as their annotations are then emitted.
  void addLinkFile(std::string Path, std::string Written, bool InMainFile) {
    if (InMainFile)
      MainFileLinks->emplace_back(Path, Written);
    AllLinks->emplace_back(std::move(Path), std::move(Written));
  }
  /// Every file named, for the dependency report.
  std::shared_ptr<const LinkFileList> allLinkFiles() const { return AllLinks; }
  /// Those the source file itself names, for the offload pass.
  std::shared_ptr<const LinkFileList> mainFileLinkFiles() const { return MainFileLinks; }

private:
  const clang::ASTContext &Ctx;
  std::vector<std::unique_ptr<AnnotatedFunction>> Functions;
  llvm::DenseMap<const clang::Decl *, AnnotatedFunction *> ByDecl;
  llvm::SmallVector<const clang::FunctionDecl *, 4> DeviceDeclarations;
  std::shared_ptr<LinkFileList> AllLinks = std::make_shared<LinkFileList>();
  std::shared_ptr<LinkFileList> MainFileLinks = std::make_shared<LinkFileList>();
};

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_KERNELDECLTABLE_H
