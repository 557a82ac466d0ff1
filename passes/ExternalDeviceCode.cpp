// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ExternalDeviceCode.cpp - CUDA-C functions kernels call -------------===//

#include "ExternalDeviceCode.h"
#include "ContentHash.h"
#include "DeviceEntries.h"
#include "KernelAnnotations.h"

#include "kernel/detail/device_code_files.h"
#include "kernel/detail/link_inputs.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace kernel {
namespace passes {

std::string linkInputKind(StringRef Path) {
  const StringRef Extension = sys::path::extension(Path);
  const kernel::detail::link_format_info *Format = kernel::detail::link_format_for_extension(
      std::string_view(Extension.data(), Extension.size()));
  return Format ? std::string(Format->name) : std::string();
}

SmallVector<ExternalFunction, 4> collectExternalFunctions(Module &M) {
  SmallVector<ExternalFunction, 4> Functions;
  forEachFunctionAnnotation(M, [&](Function &F, StringRef Text) {
    if (!F.isDeclaration())
      return;
    if (std::optional<DeclareDeviceAnnotation> A = DeclareDeviceAnnotation::decode(Text))
      Functions.push_back(
          {&F, A->NumbaConvention, std::move(A->Signature), std::move(A->Location)});
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

std::vector<LinkInput>
collectLinkInputs(Module &M, ArrayRef<std::string> ExtraFiles,
                  ArrayRef<std::pair<std::string, std::string>> AttributeFiles,
                  DeviceDiagnostics &Diags) {
  // (path to read, name to show)
  std::vector<std::pair<std::string, std::string>> Files;
  forEachFunctionAnnotation(M, [&](Function &, StringRef Text) {
    if (std::optional<LinkAnnotation> A = LinkAnnotation::decode(Text))
      Files.emplace_back(std::move(A->Path), std::move(A->Written));
  });
  Files.insert(Files.end(), AttributeFiles.begin(), AttributeFiles.end());
  for (const std::string &F : ExtraFiles)
    Files.emplace_back(F, sys::path::filename(F).str());

  std::vector<LinkInput> Inputs;
  StringSet<> Seen, Read;
  for (const auto &[Path, Name] : Files) {
    if (!Read.insert(Path).second)
      continue;
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer) {
      Diags.error("cannot read the device code '" + Path +
                  "' to embed: " + Buffer.getError().message());
      continue;
    }
    LinkInput In;
    In.Name = Name;
    In.Kind = linkInputKind(Path);
    In.Bytes = (*Buffer)->getBuffer().str();
    In.Hash = contentHash({StringRef(In.Kind), StringRef(In.Bytes)});
    if (In.Kind.empty()) {
      Diags.error(kernel::detail::not_linkable_message(Path));
      continue;
    }
    const kernel::detail::link_format Format = kernel::detail::link_format_named(In.Kind)->format;
    if (Format == kernel::detail::link_format::cuda) {
      // Its quoted includes go into the program with it: they are read now, as the build
      // sees them, not wherever and whenever NVRTC would compile it.
      std::vector<std::string> Missing;
      auto ReadHeader = [&](const std::string &Header) -> std::optional<std::string> {
        ErrorOr<std::unique_ptr<MemoryBuffer>> Text =
            MemoryBuffer::getFile(Header, /*IsText=*/false, /*RequiresNullTerminator=*/false);
        if (!Text) {
          Missing.push_back(Header);
          return std::nullopt;
        }
        return (*Text)->getBuffer().str();
      };
      std::string Whole, Error;
      if (!kernel::detail::with_quoted_includes(Path, In.Bytes, ReadHeader, Whole, Error)) {
        Diags.error("cannot embed the device code '" + Path + "': " + Error);
        continue;
      }
      // The line stays for NVRTC, which has no file system of the build's: under an #if
      // that is false it is harmless, else the program fails on a GPU, when the module is
      // built. A build sandbox that was not given the header is the usual cause.
      for (const std::string &Header : Missing)
        Diags.warning("the device code '" + Path + "' includes '" + Header +
                      "', which is not there to embed with it: NVRTC will fail on that line at run "
                      "time unless an #if leaves it out (with Bazel, list the header in the "
                      "target's device_srcs)");
      In.Bytes = std::move(Whole);
      In.Hash = contentHash({StringRef(In.Kind), StringRef(In.Bytes)});
    } else if (std::string Why = kernel::detail::device_code_damage(Format, In.Bytes);
               !Why.empty()) {
      Diags.error("cannot embed the device code '" + Path + "' as " + In.Kind + ": " + Why);
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
