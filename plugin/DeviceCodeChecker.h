// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceCodeChecker.h - Rejects code a GPU cannot run ------*- C++ -*-===//
//
// Walks an annotated function and everything it calls (in this translation unit) and
// reports, at the user's source line, what cannot run on a GPU: exceptions, virtual calls
// and polymorphic objects, RTTI, inline assembly, non-constant globals, `long double` and
// other x86-only types and builtins, heap allocation, indirect calls, and calls to
// functions whose bodies are not visible. Each report ends with the chain of calls that
// led there from the annotated function.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_DEVICECODECHECKER_H
#define KERNEL_PLUGIN_DEVICECODECHECKER_H

#include "KernelEntryInstantiator.h"

#include "clang/AST/Decl.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang {
class Sema;
} // namespace clang

namespace kernel {
namespace plugin {

class DeviceCodeChecker {
public:
  explicit DeviceCodeChecker(clang::Sema &S) : S(S) {}

  /// Checks `Root` and its callees. Functions shared by several roots are checked once.
  void check(const GpuRoot &Root);

  /// Reports a problem at `Loc` inside `In` (a function reached from a root), with an
  /// optional explaining note, followed by the call chain back to the root. Returns false
  /// if the location was already reported.
  bool report(clang::SourceLocation Loc, const clang::FunctionDecl *In, unsigned DiagID,
              llvm::function_ref<void(const clang::DiagnosticBuilder &)> Args,
              unsigned ExplanationID = 0);

  /// Queues `Callee`, called from `Caller` at `Loc`, for checking.
  void reach(const clang::FunctionDecl *Callee, const clang::FunctionDecl *Caller,
             clang::SourceLocation Loc);

  clang::Sema &sema() { return S; }

private:
  struct CallSite {
    const clang::FunctionDecl *Caller;
    clang::SourceLocation Loc;
  };

  void checkBody(const clang::FunctionDecl *FD);

  clang::Sema &S;
  const GpuRoot *CurrentRoot = nullptr;
  llvm::DenseMap<const clang::FunctionDecl *, CallSite> ReachedFrom;
  llvm::DenseMap<const clang::FunctionDecl *, const GpuRoot *> RootOf;
  llvm::DenseSet<const clang::FunctionDecl *> Checked;
  llvm::SmallVector<const clang::FunctionDecl *, 16> Worklist;
  llvm::DenseSet<clang::SourceLocation::UIntTy> Reported;
};

} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_DEVICECODECHECKER_H
