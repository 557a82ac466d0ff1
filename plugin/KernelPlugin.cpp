// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelPlugin.cpp - The kernel plugin for clang -----------------------===//
//
// `clang++ -fplugin=kernel_plugin.so` is the whole interface: the plugin runs before the
// main action, defines __KERNEL_PLUGIN__, installs the attribute handlers, instantiates the
// GPU entries as annotated functions are defined, checks the GPU code when the translation
// unit is complete, and adds the offload pass (passes/) to the start of the optimisation
// pipeline of the same compile.
//
// Arguments (-fplugin-arg-kernel-NAME=VALUE):
//   arch=sm_75,sm_90   architectures to emit PTX for
//   libdevice=PATH     libdevice bitcode (default: from the CUDA toolkit)
//   inspect=DIR        write each module's PTX and kernel list to DIR
//   link=FILE          device code (.o, .a, .ptx, .cubin, .fatbin, .ltoir, .cu) to embed
//                      and link with every module of this translation unit; repeatable
//   link-root=DIR      a tree mirroring the sources' (generated files) in which relative
//                      [[kernel::link]] paths are looked for too; repeatable
//
//===----------------------------------------------------------------------===//

#include "DeviceCodeChecker.h"
#include "DeviceDeclarations.h"
#include "FunctionTypeCheck.h"
#include "GufuncLayouts.h"
#include "KernelDeclTable.h"
#include "KernelDiagnostics.h"
#include "KernelEntryInstantiator.h"
#include "LibraryEntries.h"
#include "LinkDependencies.h"
#include "UnlistedSpecializations.h"

#include "KernelOffload.h"
#include "OffloadOptions.h"
#include "RecordSimulatorStack.h"

#include "kernel/detail/link_inputs.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaConsumer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Passes/PassBuilder.h"

using namespace clang;

namespace kernel {
namespace plugin {
namespace {

class KernelConsumer : public SemaConsumer {
public:
  explicit KernelConsumer(const ASTContext &Ctx) : Table(Ctx) {}

  void InitializeSema(Sema &S) override { TheSema = &S; }
  const KernelDeclTable &table() const { return Table; }
  void ForgetSema() override { TheSema = nullptr; }

  bool HandleTopLevelDecl(DeclGroupRef) override {
    instantiateDefinedFunctions();
    return true;
  }

  void HandleTranslationUnit(ASTContext &) override {
    if (!TheSema)
      return;
    checkDeviceDeclarations(*TheSema, Table.deviceDeclarations());
    markLibraryEntries(*TheSema, Roots);
    checkUnlistedSpecializations(*TheSema, Table, Roots);
    checkGufuncLayouts(*TheSema, Table);
    DeviceCodeChecker Checker(*TheSema);
    for (const GpuRoot &Root : Roots)
      Checker.check(Root);
  }

private:
  // Entries are instantiated between top-level declarations, once the annotated function
  // has been defined: Sema is then in a clean state, and the instantiations it queues are
  // completed, with the rest, at the end of the translation unit.
  void instantiateDefinedFunctions() {
    // Instantiations of templates the function uses are handed over as top-level declarations
    // too; inside one, a diagnostic would carry that instantiation's notes, which say nothing
    // about the attribute. The function's own declaration follows.
    if (!TheSema || !TheSema->CodeSynthesisContexts.empty())
      return;
    KernelEntryInstantiator Instantiator(*TheSema);
    for (const std::unique_ptr<AnnotatedFunction> &F : Table.functions()) {
      if (F->Processed)
        continue;
      // A redeclaration is merged with the earlier ones after its attributes are read; the
      // function keeps the entry of its first attribute.
      if (const AnnotatedFunction *First = firstAnnotation(*F)) {
        F->Processed = true;
        checkRedeclaredAttribute(*First, *F);
        continue;
      }
      if (!F->Decl->isDefined())
        continue;
      F->Processed = true;
      // `= delete` is parsed after the attribute, so it is checked here.
      if (F->Decl->isDeleted()) {
        diag::error(*TheSema, F->AttrLoc, diag::DeletedFunction)
            << attrSpelling(F->Kind) << F->Decl;
        continue;
      }
      if (F->TypeCheckDeferred) {
        // Clang has said why a return type could not be deduced.
        if (F->Decl->getReturnType()->isUndeducedType() ||
            !checkFunctionType(*TheSema, F->Decl, *F))
          continue;
      }
      Instantiator.instantiate(*F, Roots);
    }
  }

  /// The earliest entry for another declaration of `F`'s function, if any.
  const AnnotatedFunction *firstAnnotation(const AnnotatedFunction &F) const {
    if (!F.Decl->getPreviousDecl())
      return nullptr;
    const Decl *Canonical = F.Decl->getCanonicalDecl();
    for (const std::unique_ptr<AnnotatedFunction> &Other : Table.functions()) {
      if (Other.get() == &F)
        return nullptr;
      if (Other->Decl->getCanonicalDecl() == Canonical)
        return Other.get();
    }
    return nullptr;
  }

  /// A second declaration's attribute must repeat the first: the same kind and, where it
  /// writes them, the same signatures.
  void checkRedeclaredAttribute(const AnnotatedFunction &First, const AnnotatedFunction &F) {
    auto NoteFirst = [&] {
      TheSema->Diag(First.AttrLoc, diag::id(TheSema->getDiagnostics(), DiagnosticsEngine::Note,
                                            diag::NoteEarlierAttribute))
          << attrSpelling(First.Kind);
    };
    if (First.Kind != F.Kind) {
      diag::error(*TheSema, F.AttrLoc, diag::ConflictingAttributes)
          << attrSpelling(F.Kind) << attrSpelling(First.Kind) << F.Decl;
      NoteFirst();
      return;
    }
    const bool Writes = F.Layout || llvm::any_of(F.Signatures, [](const WrittenSignature &W) {
                          return W.Literal != nullptr;
                        });
    // A first `auto` function not yet (or not successfully) checked has no signature to
    // compare with.
    if (!Writes || (!First.Layout && First.Signatures.empty()))
      return;
    const std::string Said = writtenAttribute(F), Earlier = writtenAttribute(First);
    if (Said == Earlier)
      return;
    diag::error(*TheSema, F.AttrLoc, diag::RedeclaredSignatures)
        << attrSpelling(F.Kind) << F.Decl << Said << Earlier;
    NoteFirst();
  }

  /// The attribute's arguments as canonical strings: "layout; sig, sig".
  static std::string writtenAttribute(const AnnotatedFunction &F) {
    std::string Text = F.Layout ? F.Layout->str() : std::string();
    for (const WrittenSignature &W : F.Signatures) {
      if (!Text.empty())
        Text += ", ";
      Text += W.Sig.str();
    }
    return Text;
  }

  KernelDeclTable Table;
  Sema *TheSema = nullptr;
  std::vector<GpuRoot> Roots;
};

class KernelPluginAction : public PluginASTAction {
public:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    Preprocessor &PP = CI.getPreprocessor();
    // First: the predefines end with the -include files (and a precompiled header's),
    // which must see it.
    PP.setPredefines("#define __KERNEL_PLUGIN__ 1\n" + PP.getPredefines());
    passes::OffloadOptions Opts = Options;
    auto Consumer = std::make_unique<KernelConsumer>(CI.getASTContext());
    std::shared_ptr<const KernelDeclTable::LinkFileList> Linked =
        Consumer->table().mainFileLinkFiles();
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back([Opts, Linked](llvm::PassBuilder &PB) {
      PB.registerPipelineStartEPCallback(
          [Opts, Linked](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
            // The pipeline is built once the translation unit is parsed: the list is whole.
            passes::OffloadOptions WithAttributes = Opts;
            WithAttributes.LinkAttributeFiles = *Linked;
            MPM.addPass(passes::KernelOffloadPass(std::move(WithAttributes)));
          });
      // Once the host code is optimised, the frames the simulator's threads will need.
      PB.registerOptimizerLastEPCallback([](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
        MPM.addPass(passes::RecordSimulatorStackPass());
      });
    });
    reportLinkDependencies(PP, Consumer->table().allLinkFiles(), Options.LinkFiles);
    return Consumer;
  }

  bool ParseArgs(const CompilerInstance &CI, const std::vector<std::string> &Args) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    for (const std::string &Arg : Args) {
      auto [Name, Value] = StringRef(Arg).split('=');
      const bool Known = Name == "arch" || Name == "libdevice" || Name == "inspect" ||
                         Name == "link" || Name == "link-root";
      if (Known && Value.trim().empty()) {
        D.Report(
            D.getCustomDiagID(DiagnosticsEngine::Error,
                              "kernel plugin: '%0' needs a value (-fplugin-arg-kernel-%0=...)"))
            << Name;
        return false;
      }
      if (Name == "arch" && !Value.empty()) {
        Options.Archs.clear();
        SmallVector<StringRef, 4> Archs;
        Value.split(Archs, ',', -1, /*KeepEmpty=*/false);
        for (StringRef A : Archs) {
          unsigned Number = 0;
          if (!A.starts_with("sm_") || A.drop_front(3).getAsInteger(10, Number) || Number < 75) {
            D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                       "kernel plugin: '%0' is not a GPU architecture this "
                                       "toolkit supports (sm_75 or newer, e.g. sm_90)"))
                << A;
            return false;
          }
          // What LLVM 19's NVPTX backend emits PTX 7.8 for. Newer GPUs run the sm_90 PTX,
          // which their driver compiles for them; PTX for them would not assemble.
          if (Number != 75 && Number != 80 && Number != 86 && Number != 87 && Number != 89 &&
              Number != 90) {
            D.Report(D.getCustomDiagID(
                DiagnosticsEngine::Error,
                "kernel plugin: '%0' is not an architecture this compiler emits PTX for (sm_75, "
                "sm_80, sm_86, sm_87, sm_89 and sm_90, PTX ISA 7.8); GPUs newer than sm_90 run "
                "the sm_90 PTX, which the driver compiles for them"))
                << A;
            return false;
          }
          Options.Archs.push_back(A.str());
        }
      } else if (Name == "libdevice" && !Value.empty()) {
        Options.LibdevicePath = Value.str();
      } else if (Name == "inspect" && !Value.empty()) {
        Options.InspectDir = Value.str();
      } else if (Name == "link" && !Value.empty()) {
        if (!isLinkableFile(Value)) {
          D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "kernel plugin: %0"))
              << kernel::detail::not_linkable_message(std::string_view(Value.data(), Value.size()));
          return false;
        }
        Options.LinkFiles.push_back(Value.str());
      } else if (Name == "link-root" && !Value.empty()) {
        addLinkRoot(Value);
      } else {
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                   "kernel plugin: unknown argument '%0'; expected arch=LIST, "
                                   "libdevice=PATH, inspect=DIR, link=FILE or link-root=DIR"))
            << Arg;
        return false;
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  passes::OffloadOptions Options;
};

FrontendPluginRegistry::Add<KernelPluginAction>
    RegisterKernelPlugin("kernel", "GPU, multicore and vectorized code from annotated C++");

} // namespace
} // namespace plugin
} // namespace kernel
