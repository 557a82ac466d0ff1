//===- ExternalDeviceCode.cpp - CUDA-C functions kernels call -------------===//

#include "ExternalDeviceCode.h"
#include "ContentHash.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

constexpr StringRef DeclareDevicePrefix = "kernel.declare_device\x1f";
constexpr StringRef LinkPrefix = "kernel.link\x1f";

StringRef annotationText(const Constant *C) {
  const auto *GV = dyn_cast<GlobalVariable>(C->stripPointerCasts());
  if (!GV || !GV->hasInitializer())
    return StringRef();
  const auto *Data = dyn_cast<ConstantDataSequential>(GV->getInitializer());
  return Data && Data->isCString() ? Data->getAsCString() : StringRef();
}

} // namespace

std::string linkInputKind(StringRef Path) {
  return StringSwitch<std::string>(sys::path::extension(Path))
      .Case(".o", "object")
      .Case(".a", "library")
      .Case(".ptx", "ptx")
      .Case(".cubin", "cubin")
      .Case(".fatbin", "fatbin")
      .Case(".ltoir", "ltoir")
      .Case(".cu", "cuda")
      .Default("");
}

ExternalDeviceCode collectExternalDeviceCode(Module &M, ArrayRef<std::string> ExtraFiles,
                                             DeviceDiagnostics &Diags) {
  ExternalDeviceCode Code;
  // (path to read, name to show), in a deterministic order.
  std::vector<std::pair<std::string, std::string>> Files;
  if (GlobalVariable *Annotations = M.getGlobalVariable("llvm.global.annotations");
      Annotations && Annotations->hasInitializer())
    if (const auto *List = dyn_cast<ConstantArray>(Annotations->getInitializer()))
      for (const Use &U : List->operands()) {
        const auto *Item = dyn_cast<ConstantStruct>(U.get());
        if (!Item || Item->getNumOperands() < 2)
          continue;
        auto *F = dyn_cast<Function>(Item->getOperand(0)->stripPointerCasts());
        StringRef Text = annotationText(Item->getOperand(1));
        if (!F)
          continue;
        SmallVector<StringRef, 4> Fields;
        if (Text.starts_with(DeclareDevicePrefix)) {
          Text.drop_front(DeclareDevicePrefix.size()).split(Fields, '\x1f');
          if (Fields.size() == 3 && F->isDeclaration())
            Code.Functions.push_back({F, Fields[0] == "numba", Fields[1].str(), Fields[2].str()});
        } else if (Text.starts_with(LinkPrefix)) {
          Text.drop_front(LinkPrefix.size()).split(Fields, '\x1f');
          if (Fields.size() == 2)
            Files.emplace_back(Fields[0].str(), Fields[1].str());
        }
      }
  for (const std::string &F : ExtraFiles)
    Files.emplace_back(F, sys::path::filename(F).str());
  llvm::sort(Code.Functions, [](const ExternalFunction &A, const ExternalFunction &B) {
    return A.HostDeclaration->getName() < B.HostDeclaration->getName();
  });
  Code.Functions.erase(std::unique(Code.Functions.begin(), Code.Functions.end(),
                                   [](const ExternalFunction &A, const ExternalFunction &B) {
                                     return A.HostDeclaration == B.HostDeclaration;
                                   }),
                       Code.Functions.end());

  StringSet<> Seen;
  for (const auto &[Path, Name] : Files) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer) {
      Diags.error("cannot read the device code '" + Path + "' to embed: " + Buffer.getError().message());
      continue;
    }
    LinkInput In;
    In.Name = Name;
    In.Kind = linkInputKind(Path);
    In.Bytes = (*Buffer)->getBuffer().str();
    In.Hash = contentHash({StringRef(In.Kind), StringRef(In.Bytes)});
    if (In.Kind.empty()) {
      Diags.error("'" + Path + "' is not device code nvJitLink can link");
      continue;
    }
    if (Seen.insert(In.Hash).second)
      Code.Inputs.push_back(std::move(In));
  }
  llvm::sort(Code.Inputs, [](const LinkInput &A, const LinkInput &B) {
    return std::tie(A.Name, A.Hash) < std::tie(B.Name, B.Hash);
  });
  return Code;
}

} // namespace passes
} // namespace kernel
