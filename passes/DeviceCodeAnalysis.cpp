// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- DeviceCodeAnalysis.cpp - What a module holds for the GPU -----------===//

#include "DeviceCodeAnalysis.h"
#include "DeviceEntries.h"
#include "ExternalDeviceCode.h"

#include "llvm/IR/Metadata.h"

using namespace llvm;

namespace kernel {
namespace passes {

AnalysisKey DeviceCodeAnalysis::Key;

// Each operand of kernel.device_code is !{!"<symbol>", !"<annotation string>"}.
namespace {

StringRef stringOperand(const MDNode &Node, unsigned I) {
  if (I >= Node.getNumOperands())
    return StringRef();
  if (const auto *S = dyn_cast_or_null<MDString>(Node.getOperand(I)))
    return S->getString();
  return StringRef();
}

DeviceSymbols fromMetadata(const NamedMDNode &Record) {
  DeviceSymbols Symbols;
  for (const MDNode *Node : Record.operands()) {
    std::string Symbol = stringOperand(*Node, 0).str();
    StringRef Text = stringOperand(*Node, 1);
    if (std::optional<EntryAnnotation> Entry = EntryAnnotation::decode(Text))
      Symbols.Entries.push_back({std::move(Symbol), std::move(*Entry)});
    else if (std::optional<DeclareDeviceAnnotation> External =
                 DeclareDeviceAnnotation::decode(Text))
      Symbols.Externals.push_back({std::move(Symbol), std::move(*External)});
    else if (AttributeAnnotation::decode(Text, "device"))
      Symbols.DeviceFunctions.push_back(std::move(Symbol));
  }
  return Symbols;
}

DeviceSymbols fromAnnotations(Module &M) {
  DeviceSymbols Symbols;
  DeviceCode Code = collectDeviceCode(M);
  for (DeviceEntry &E : Code.Entries)
    Symbols.Entries.push_back({E.HostFunction->getName().str(), std::move(E.Info)});
  for (const Function *F : Code.DeviceFunctions)
    Symbols.DeviceFunctions.push_back(F->getName().str());
  for (ExternalFunction &F : collectExternalFunctions(M))
    Symbols.Externals.push_back({F.HostDeclaration->getName().str(),
                                 DeclareDeviceAnnotation{F.NumbaConvention, std::move(F.Signature),
                                                         std::move(F.Location)}});
  return Symbols;
}

} // namespace

void recordDeviceSymbols(Module &M, const DeviceSymbols &Symbols) {
  eraseDeviceSymbols(M);
  LLVMContext &Ctx = M.getContext();
  NamedMDNode *Record = M.getOrInsertNamedMetadata(DeviceSymbolsMetadataName);
  auto Add = [&](StringRef Symbol, StringRef Annotation) {
    Record->addOperand(
        MDNode::get(Ctx, {MDString::get(Ctx, Symbol), MDString::get(Ctx, Annotation)}));
  };
  for (const DeviceSymbols::Entry &E : Symbols.Entries)
    Add(E.Symbol, E.Info.encode());
  for (const std::string &F : Symbols.DeviceFunctions)
    Add(F, AttributeAnnotation{"device", {}}.encode());
  for (const DeviceSymbols::External &F : Symbols.Externals)
    Add(F.Symbol, F.Info.encode());
}

void eraseDeviceSymbols(Module &M) {
  if (NamedMDNode *Record = M.getNamedMetadata(DeviceSymbolsMetadataName))
    M.eraseNamedMetadata(Record);
}

DeviceSymbols describeDeviceCode(Module &M) {
  if (const NamedMDNode *Record = M.getNamedMetadata(DeviceSymbolsMetadataName))
    return fromMetadata(*Record);
  return fromAnnotations(M);
}

PreservedAnalyses DeviceCodePrinterPass::run(Module &M, ModuleAnalysisManager &AM) {
  const DeviceSymbols &Code = AM.getResult<DeviceCodeAnalysis>(M);
  for (const DeviceSymbols::Entry &E : Code.Entries)
    OS << "entry " << E.Symbol << " " << E.Info.kindName() << " '" << E.Info.Name << "' '"
       << E.Info.Signature << "' params " << E.Info.ParamSize << " align " << E.Info.ParamAlign
       << "\n";
  for (const std::string &F : Code.DeviceFunctions)
    OS << "device " << F << "\n";
  for (const DeviceSymbols::External &F : Code.Externals)
    OS << "external " << F.Symbol << " " << (F.Info.NumbaConvention ? "numba" : "c") << " '"
       << F.Info.Signature << "'\n";
  return PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
