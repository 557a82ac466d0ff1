//===- KernelOffload.cpp - GPU code from the host compile -----------------===//

#include "KernelOffload.h"
#include "ContentHash.h"
#include "CreateHostFallbacks.h"
#include "CreateKernelEntries.h"
#include "DeviceDiagnostics.h"
#include "DeviceEntries.h"
#include "EmbedDeviceImages.h"
#include "ExtractDeviceModule.h"
#include "ExternalDeviceCode.h"
#include "InstrumentForSimulator.h"
#include "LinkDeviceLibraries.h"
#include "LowerKernelIntrinsics.h"
#include "LowerNumbaDeviceCalls.h"
#include "LowerPrintf.h"
#include "MapMathToLibdevice.h"
#include "PTXCodeGen.h"
#include "RetargetToNVPTX.h"
#include "VerifyDeviceModule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

// Library functions are built for some target CPU; in a module compiled for several
// architectures that would stop them being inlined.
void dropTargetAttributes(Module &M) {
  for (Function &F : M) {
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
  }
}

std::string joinNames(ArrayRef<std::string> Names) {
  std::string S;
  for (const std::string &N : Names)
    if (S.find("'" + N + "'") == std::string::npos)
      S += (S.empty() ? "'" : ", '") + N + "'";
  return S;
}

void writeInspection(StringRef Dir, const Module &Host, StringRef Hash,
                     ArrayRef<DeviceImage> Images, ArrayRef<std::string> OptimizedIR,
                     const DeviceCode &Code, DeviceDiagnostics &Diags) {
  if (std::error_code EC = sys::fs::create_directories(Dir)) {
    Diags.error("cannot create the inspect directory '" + Dir + "': " + EC.message());
    return;
  }
  std::string Stem =
      (sys::path::filename(Host.getSourceFileName()) + "." + Hash.take_front(8)).str();
  auto Write = [&](StringRef Name, StringRef Text) {
    SmallString<256> Path(Dir);
    sys::path::append(Path, Name);
    std::error_code EC;
    raw_fd_ostream OS(Path, EC, sys::fs::OF_Text);
    if (EC) {
      Diags.error("cannot write '" + Path + "': " + EC.message());
      return;
    }
    OS << Text;
  };
  for (size_t I = 0; I < Images.size(); ++I) {
    Write(Stem + "." + Images[I].Arch + ".ptx", Images[I].PTX);
    Write(Stem + "." + Images[I].Arch + ".ll", OptimizedIR[I]);
  }
  std::string List;
  for (const DeviceEntry &E : Code.Entries)
    List += E.Info.Name + "\t" + E.Info.Signature + "\t" +
            E.Info.kindName() + "\t" + E.Info.Location + "\t" +
            E.HostFunction->getName().str() + "\n";
  Write(Stem + ".kernels", List);
}

} // namespace

PreservedAnalyses KernelOffloadPass::run(Module &M, ModuleAnalysisManager &) {
  DeviceCode Code = collectDeviceCode(M);
  LLVMContext &Ctx = M.getContext();
  DeviceDiagnostics Diags(Ctx);
  ExternalDeviceCode External{collectExternalFunctions(M), {}};
  if (Code.empty()) {
    // Host code may still call a declared CUDA-C function: it gets the fallback that
    // reports the missing host implementation. There is no module to link files into.
    if (External.Functions.empty())
      return PreservedAnalyses::all();
    createHostFallbacks(M, External.Functions);
    return PreservedAnalyses::none();
  }
  External.Inputs = collectLinkInputs(M, Options.LinkFiles, Diags);
  std::optional<DataLayout> Layout = nvptxDataLayout(Diags);
  if (!Layout)
    return PreservedAnalyses::all();

  SmallVector<const GlobalValue *, 8> Roots;
  for (const DeviceEntry &E : Code.Entries)
    Roots.push_back(E.HostFunction);
  for (const Function *F : Code.DeviceFunctions)
    Roots.push_back(F);
  std::unique_ptr<Module> Device = extractDeviceModule(M, Roots);
  ModuleAnalysisManager DeviceAM;

  RetargetToNVPTXPass(*Layout).run(*Device, DeviceAM);
  if (std::unique_ptr<Module> Runtime = loadDeviceRuntime(Ctx, Diags)) {
    dropTargetAttributes(*Runtime);
    linkNeeded(*Device, std::move(Runtime), Diags);
  }
  LowerKernelIntrinsicsPass().run(*Device, DeviceAM);
  LowerPrintfPass().run(*Device, DeviceAM);

  std::string Searched;
  std::string LibdevicePath = findLibdevice(Options.LibdevicePath, Searched);
  std::unique_ptr<Module> Libdevice;
  if (!LibdevicePath.empty())
    Libdevice = loadLibdevice(Ctx, LibdevicePath, Diags);
  MapMathToLibdevicePass MapMath(Libdevice.get());
  MapMath.run(*Device, DeviceAM);
  const std::string LibdeviceHint =
      Libdevice ? std::string()
                : "; the GPU math functions come from libdevice, which was not found (looked for " +
                      Searched + "): install the CUDA toolkit or pass "
                                 "-fplugin-arg-kernel-libdevice=PATH";
  if (!MapMath.unmapped().empty())
    Diags.error("no GPU version of the math functions " + joinNames(MapMath.unmapped()) +
                LibdeviceHint);
  if (Libdevice) {
    dropTargetAttributes(*Libdevice);
    linkNeeded(*Device, std::move(Libdevice), Diags);
  }
  // Denormals are kept, as nvcc does by default; libdevice asks through NVVMReflect.
  Device->addModuleFlag(Module::Override, "nvvm-reflect-ftz", uint32_t(0));

  CreateKernelEntriesPass(Code, Diags).run(*Device, DeviceAM);
  std::vector<std::string> ExternalSymbols, NumbaSymbols;
  for (const ExternalFunction &F : External.Functions) {
    ExternalSymbols.push_back(F.HostDeclaration->getName().str());
    NumbaSymbols.push_back(F.NumbaConvention ? ExternalSymbols.back() : std::string());
  }
  LowerNumbaDeviceCallsPass(NumbaSymbols).run(*Device, DeviceAM);
  VerifyDeviceModulePass(Diags, LibdeviceHint, ExternalSymbols).run(*Device, DeviceAM);
  if (Diags.failed())
    return PreservedAnalyses::all();

  std::vector<DeviceImage> Images;
  std::vector<std::string> OptimizedIR;
  const bool KeepIR = !Options.InspectDir.empty();
  for (const std::string &Arch : Options.Archs) {
    std::optional<CompiledModule> Compiled =
        emitPTX(*Device, Arch, Options.PTXFeatures, KeepIR, Diags);
    if (!Compiled)
      return PreservedAnalyses::all();
    Images.push_back({Arch, std::move(Compiled->PTX)});
    OptimizedIR.push_back(std::move(Compiled->OptimizedIR));
  }

  SmallVector<StringRef, 16> Parts;
  for (const DeviceImage &Img : Images) {
    Parts.push_back(Img.Arch);
    Parts.push_back(Img.PTX);
  }
  std::vector<std::string> EntryKeys;
  for (const DeviceEntry &E : Code.Entries)
    EntryKeys.push_back(E.HostFunction->getName().str() + "\n" + E.Info.Name + "\n" +
                        E.Info.Signature + "\n" + std::to_string(static_cast<int>(E.Info.Kind)));
  for (const std::string &K : EntryKeys)
    Parts.push_back(K);
  std::vector<std::string> ExternalKeys;
  for (const ExternalFunction &F : External.Functions)
    ExternalKeys.push_back(F.HostDeclaration->getName().str() + (F.NumbaConvention ? "\nnumba" : "\nc"));
  for (const std::string &K : ExternalKeys)
    Parts.push_back(K);
  for (const LinkInput &In : External.Inputs)
    Parts.push_back(In.Hash);
  std::string Hash = contentHash(Parts);

  // A comment line names the module in the PTX itself, so that PTX extracted from a
  // binary says which registration it belongs to.
  for (DeviceImage &Img : Images)
    Img.PTX = "// kernel-module hash=" + Hash + " arch=" + Img.Arch + "\n" + Img.PTX;

  if (!Options.InspectDir.empty())
    writeInspection(Options.InspectDir, M, Hash, Images, OptimizedIR, Code, Diags);
  embedDeviceImages(M, Images, Code, External, Hash, instrumentForSimulator(M, Code));
  createHostFallbacks(M, External.Functions);
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
