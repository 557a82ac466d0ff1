// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LinkDependencies.cpp - Embedded device code as dependencies --------===//

#include "LinkDependencies.h"

#include "kernel/detail/device_code_files.h"

#include "clang/Basic/FileManager.h"
#include "clang/Lex/PPCallbacks.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>

using namespace clang;

namespace kernel {
namespace plugin {

namespace {

class LinkDependencyReporter : public PPCallbacks {
public:
  using Attributes = std::shared_ptr<const std::vector<std::pair<std::string, std::string>>>;
  LinkDependencyReporter(Preprocessor &PP, Attributes Attributed, std::vector<std::string> Files,
                         PPCallbacks *Collectors)
      : PP(PP), Attributed(std::move(Attributed)), Files(std::move(Files)), Collectors(Collectors) {
  }

  void EndOfMainFile() override {
    for (const auto &[Path, Written] : *Attributed)
      Files.push_back(Path);
    for (const std::string &Path : Files) {
      report(Path);
      if (!llvm::StringRef(Path).ends_with(".cu"))
        continue;
      std::optional<std::string> Source = read(Path);
      if (!Source)
        continue;
      auto ReadHeader = [&](const std::string &Header) -> std::optional<std::string> {
        std::optional<std::string> Text = read(Header);
        if (Text)
          report(Header);
        return Text;
      };
      std::string Whole, Error;
      kernel::detail::with_quoted_includes(Path, *Source, ReadHeader, Whole, Error);
    }
  }

private:
  // As an #embed of the file: the dependency collectors list it.
  void report(const std::string &Path) {
    if (OptionalFileEntryRef File = PP.getFileManager().getOptionalFileRef(Path))
      Collectors->HasEmbed(SourceLocation(), Path, /*IsAngled=*/false, File);
  }

  static std::optional<std::string> read(const std::string &Path) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
        llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return std::nullopt;
    return (*Buffer)->getBuffer().str();
  }

  Preprocessor &PP;
  Attributes Attributed;
  std::vector<std::string> Files;
  PPCallbacks *Collectors;
};

} // namespace

void reportLinkDependencies(
    Preprocessor &PP,
    std::shared_ptr<const std::vector<std::pair<std::string, std::string>>> Attributes,
    std::vector<std::string> CommandLineFiles) {
  // Without -MD and the like there is no one to tell.
  PPCallbacks *Collectors = PP.getPPCallbacks();
  if (!Collectors)
    return;
  PP.addPPCallbacks(std::make_unique<LinkDependencyReporter>(
      PP, std::move(Attributes), std::move(CommandLineFiles), Collectors));
}

} // namespace plugin
} // namespace kernel
