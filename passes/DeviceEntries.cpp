// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceEntries.cpp - Finding what to compile for the GPU ------------===//

#include "DeviceEntries.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"

using namespace llvm;

namespace kernel {
namespace passes {

static StringRef annotationString(const Constant *C) {
  const auto *GV = dyn_cast<GlobalVariable>(C->stripPointerCasts());
  if (!GV || !GV->hasInitializer())
    return StringRef();
  const auto *Data = dyn_cast<ConstantDataSequential>(GV->getInitializer());
  if (!Data || !Data->isCString())
    return StringRef();
  return Data->getAsCString();
}

void forEachFunctionAnnotation(Module &M, function_ref<void(Function &, StringRef)> Visit) {
  GlobalVariable *Annotations = M.getGlobalVariable("llvm.global.annotations");
  if (!Annotations || !Annotations->hasInitializer())
    return;
  const auto *List = dyn_cast<ConstantArray>(Annotations->getInitializer());
  if (!List)
    return;
  for (const Use &U : List->operands()) {
    const auto *Item = dyn_cast<ConstantStruct>(U.get());
    if (!Item || Item->getNumOperands() < 2)
      continue;
    if (auto *F = dyn_cast<Function>(Item->getOperand(0)->stripPointerCasts()))
      Visit(*F, annotationString(Item->getOperand(1)));
  }
}

std::string ptxSymbolName(StringRef HostName) {
  static constexpr char Hex[] = "0123456789abcdef";
  std::string Name;
  Name.reserve(HostName.size());
  for (const unsigned char C : HostName) {
    if (C < 0x80) {
      Name += static_cast<char>(C);
    } else {
      Name += '$';
      Name += Hex[C >> 4];
      Name += Hex[C & 15];
    }
  }
  return Name;
}

DeviceCode collectDeviceCode(Module &M) {
  DeviceCode Code;
  forEachFunctionAnnotation(M, [&](Function &F, StringRef Text) {
    if (F.isDeclaration())
      return;
    if (std::optional<EntryAnnotation> Entry = EntryAnnotation::decode(Text)) {
      Code.Entries.push_back({&F, std::move(*Entry)});
    } else if (AttributeAnnotation::decode(Text, "device")) {
      Code.DeviceFunctions.push_back(&F);
    }
  });
  // Annotation order follows emission order; sorting keeps the output independent of it.
  llvm::sort(Code.Entries, [](const DeviceEntry &A, const DeviceEntry &B) {
    return A.HostFunction->getName() < B.HostFunction->getName();
  });
  llvm::sort(Code.DeviceFunctions,
             [](const Function *A, const Function *B) { return A->getName() < B->getName(); });
  Code.DeviceFunctions.erase(std::unique(Code.DeviceFunctions.begin(), Code.DeviceFunctions.end()),
                             Code.DeviceFunctions.end());
  return Code;
}

} // namespace passes
} // namespace kernel
