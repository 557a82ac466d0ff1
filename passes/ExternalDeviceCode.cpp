//===- ExternalDeviceCode.cpp - CUDA-C functions kernels call -------------===//

#include "ExternalDeviceCode.h"
#include "ContentHash.h"
#include "DeviceEntries.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {
constexpr StringRef DeclareDevicePrefix = "kernel.declare_device\x1f";
constexpr StringRef LinkPrefix = "kernel.link\x1f";
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

SmallVector<ExternalFunction, 4> collectExternalFunctions(Module &M) {
  SmallVector<ExternalFunction, 4> Functions;
  forEachFunctionAnnotation(M, [&](Function &F, StringRef Text) {
    SmallVector<StringRef, 4> Fields;
    if (!F.isDeclaration() || !Text.consume_front(DeclareDevicePrefix))
      return;
    Text.split(Fields, '\x1f');
    if (Fields.size() == 3)
      Functions.push_back({&F, Fields[0] == "numba", Fields[1].str(), Fields[2].str()});
  });
  llvm::sort(Functions, [](const ExternalFunction &A, const ExternalFunction &B) {
    return A.HostDeclaration->getName() < B.HostDeclaration->getName();
  });
  Functions.erase(std::unique(Functions.begin(), Functions.end(),
                              [](const ExternalFunction &A, const ExternalFunction &B) {
                                return A.HostDeclaration == B.HostDeclaration;
                              }),
                  Functions.end());
  return Functions;
}

std::vector<LinkInput> collectLinkInputs(Module &M, ArrayRef<std::string> ExtraFiles, DeviceDiagnostics &Diags) {
  // (path to read, name to show)
  std::vector<std::pair<std::string, std::string>> Files;
  forEachFunctionAnnotation(M, [&](Function &, StringRef Text) {
    SmallVector<StringRef, 2> Fields;
    if (!Text.consume_front(LinkPrefix))
      return;
    Text.split(Fields, '\x1f');
    if (Fields.size() == 2)
      Files.emplace_back(Fields[0].str(), Fields[1].str());
  });
  for (const std::string &F : ExtraFiles)
    Files.emplace_back(F, sys::path::filename(F).str());

  std::vector<LinkInput> Inputs;
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
      Inputs.push_back(std::move(In));
  }
  llvm::sort(Inputs, [](const LinkInput &A, const LinkInput &B) {
    return std::tie(A.Name, A.Hash) < std::tie(B.Name, B.Hash);
  });
  return Inputs;
}

} // namespace passes
} // namespace kernel
