// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelDeclTable.cpp - Functions carrying kernel attributes ---------===//

#include "KernelDeclTable.h"

#include "llvm/ADT/DenseMap.h"

#include <mutex>

using namespace clang;

namespace kernel {
namespace plugin {

StringRef attrSpelling(KernelAttrKind K) {
  switch (K) {
  case KernelAttrKind::Vectorize: return "kernel::vectorize";
  case KernelAttrKind::Guvectorize: return "kernel::guvectorize";
  case KernelAttrKind::Reduce: return "kernel::reduce";
  case KernelAttrKind::Jit: return "kernel::jit";
  case KernelAttrKind::Device: return "kernel::device";
  }
  return "kernel::?";
}

StringRef attrName(KernelAttrKind K) {
  return attrSpelling(K).drop_front(StringRef("kernel::").size());
}

std::optional<kernel_entry_kind> entryKindFor(KernelAttrKind K) {
  switch (K) {
  case KernelAttrKind::Vectorize: return KERNEL_ENTRY_UFUNC;
  case KernelAttrKind::Guvectorize: return KERNEL_ENTRY_GUFUNC;
  case KernelAttrKind::Reduce: return KERNEL_ENTRY_REDUCE;
  case KernelAttrKind::Jit: return KERNEL_ENTRY_JIT;
  case KernelAttrKind::Device: return std::nullopt;
  }
  return std::nullopt;
}

// Tables of the compilations running in this process (normally one), by ASTContext.
static std::mutex TablesMutex;
static llvm::DenseMap<const ASTContext *, KernelDeclTable *> &tables() {
  static llvm::DenseMap<const ASTContext *, KernelDeclTable *> Tables;
  return Tables;
}

KernelDeclTable *KernelDeclTable::forContext(const ASTContext &Ctx) {
  std::lock_guard<std::mutex> Lock(TablesMutex);
  return tables().lookup(&Ctx);
}

KernelDeclTable::KernelDeclTable(const ASTContext &Ctx) : Ctx(Ctx) {
  std::lock_guard<std::mutex> Lock(TablesMutex);
  tables()[&Ctx] = this;
}

KernelDeclTable::~KernelDeclTable() {
  std::lock_guard<std::mutex> Lock(TablesMutex);
  tables().erase(&Ctx);
}

AnnotatedFunction *KernelDeclTable::find(const FunctionDecl *FD) const {
  return ByDecl.lookup(FD->getCanonicalDecl());
}

AnnotatedFunction &KernelDeclTable::add(AnnotatedFunction F) {
  Functions.push_back(std::make_unique<AnnotatedFunction>(std::move(F)));
  AnnotatedFunction *Added = Functions.back().get();
  ByDecl[Added->Decl->getCanonicalDecl()] = Added;
  return *Added;
}

} // namespace plugin
} // namespace kernel
