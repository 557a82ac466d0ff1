// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelOffload.cpp - GPU code from the host compile -----------------===//

#include "KernelOffload.h"
#include "ContentHash.h"
#include "CreateHostFallbacks.h"
#include "CreateKernelEntries.h"
#include "DeviceCodeAnalysis.h"
#include "DeviceEntries.h"
#include "EmbedDeviceImages.h"
#include "ExternalDeviceCode.h"
#include "ExtractDeviceModule.h"
#include "InstrumentForSimulator.h"
#include "KeepDivisionTraps.h"
#include "LinkDeviceLibraries.h"
#include "LinkDeviceRuntime.h"
#include "LinkLibdevice.h"
#include "LowerAtomicOrderings.h"
#include "LowerKernelIntrinsics.h"
#include "LowerNumbaDeviceCalls.h"
#include "LowerPrintf.h"
#include "MapMathToLibdevice.h"
#include "ModuleAbiTypes.h"
#include "PTXCodeGen.h"
#include "RetargetToNVPTX.h"
#include "StripHostInstrumentation.h"
#include "VerifyDeviceModule.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

struct CompiledImages {
  std::vector<DeviceImage> Images;
  std::vector<std::string> OptimizedIR; ///< per image, when the inspect directory is set
  /// Each kernel's static shared memory, the least of any architecture's: the simulator
  /// refuses a launch a GPU could run by none of them.
  StringMap<uint64_t> StaticSharedBytes;
};

// The GPU module: a copy of the host module, which the device pipeline reduces to the GPU
// code and prepares for code generation. Null after an error.
// `Symbols` describes the host's device code, `Reached` what it reaches.
std::unique_ptr<Module> prepareDeviceModule(Module &Host, const DeviceSymbols &Symbols,
                                            const SmallPtrSetImpl<const GlobalValue *> &Reached,
                                            const OffloadOptions &Options,
                                            DeviceDiagnostics &Diags) {
  std::optional<DataLayout> Layout = nvptxDataLayout(Diags);
  if (!Layout)
    return nullptr;
  // ExtractDeviceModule would remove what the device code does not reach: not copying it
  // saves cloning the whole host module. The copy has the annotations but not the strings
  // they point to, so it is told what its device code is.
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> Device =
      CloneModule(Host, VMap, [&](const GlobalValue *GV) { return Reached.contains(GV); });
  recordDeviceSymbols(*Device, Symbols);

  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  registerKernelAnalyses(MAM);
  ModulePassManager MPM = buildDevicePipeline(Options, std::move(Layout), &Diags);
  MPM.run(*Device, MAM);
  if (Diags.failed())
    return nullptr;
  eraseDeviceSymbols(*Device);
  return Device;
}

// PTX for each architecture; std::nullopt after an error.
std::optional<CompiledImages>
compileForEachArch(const Module &Device, const OffloadOptions &Options, DeviceDiagnostics &Diags) {
  CompiledImages Result;
  const bool KeepIR = !Options.InspectDir.empty();
  for (const std::string &Arch : Options.Archs) {
    std::optional<CompiledModule> Compiled =
        emitPTX(Device, Arch, Options.PTXFeatures, KeepIR, Diags);
    if (!Compiled)
      return std::nullopt;
    Result.Images.push_back({Arch, std::move(Compiled->PTX)});
    for (const auto &[Kernel, Bytes] : Compiled->StaticSharedBytes) {
      auto [Known, New] = Result.StaticSharedBytes.try_emplace(Kernel, Bytes);
      if (!New)
        Known->second = std::min(Known->second, Bytes);
    }
    Result.OptimizedIR.push_back(std::move(Compiled->OptimizedIR));
  }
  return Result;
}

// The module's identity: its PTX, its entries, the functions it links at run time and the
// files they come from.
std::string moduleHash(ArrayRef<DeviceImage> Images, const DeviceCode &Code,
                       const ExternalDeviceCode &External) {
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
    ExternalKeys.push_back(F.HostDeclaration->getName().str() +
                           (F.NumbaConvention ? "\nnumba" : "\nc"));
  for (const std::string &K : ExternalKeys)
    Parts.push_back(K);
  for (const LinkInput &In : External.Inputs)
    Parts.push_back(In.Hash);
  return contentHash(Parts);
}

// A comment line names the module in the PTX itself, so that PTX extracted from a binary
// says which registration it belongs to.
void labelImages(MutableArrayRef<DeviceImage> Images, StringRef Hash) {
  for (DeviceImage &Img : Images)
    Img.PTX = "// kernel-module hash=" + Hash.str() + " arch=" + Img.Arch + "\n" + Img.PTX;
}

void writeInspection(StringRef Dir, const Module &Host, StringRef Hash,
                     const CompiledImages &Compiled, const DeviceCode &Code,
                     DeviceDiagnostics &Diags) {
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
  for (size_t I = 0; I < Compiled.Images.size(); ++I) {
    const DeviceImage &Img = Compiled.Images[I];
    Write(Stem + "." + Img.Arch + ".ptx", Img.PTX);
    Write(Stem + "." + Img.Arch + ".ll", Compiled.OptimizedIR[I]);
  }
  std::string List;
  for (const DeviceEntry &E : Code.Entries)
    List += E.Info.Name + "\t" + E.Info.Signature + "\t" + E.Info.kindName() + "\t" +
            E.Info.Location + "\t" + E.HostFunction->getName().str() + "\n";
  Write(Stem + ".kernels", List);
}

} // namespace

void registerKernelAnalyses(ModuleAnalysisManager &MAM) {
  MAM.registerPass([] { return DeviceCodeAnalysis(); });
}

ModulePassManager buildDevicePipeline(const OffloadOptions &Options,
                                      std::optional<DataLayout> Layout, DeviceDiagnostics *Diags) {
  auto Libdevice = std::make_shared<LibdeviceSource>(Options.LibdevicePath);
  ModulePassManager MPM;
  MPM.addPass(ExtractDeviceModulePass());
  MPM.addPass(Layout ? RetargetToNVPTXPass(std::move(*Layout)) : RetargetToNVPTXPass());
  MPM.addPass(StripHostInstrumentationPass());
  MPM.addPass(LinkDeviceRuntimePass(Diags));
  MPM.addPass(LowerKernelIntrinsicsPass(Diags));
  MPM.addPass(LowerAtomicOrderingsPass());
  MPM.addPass(LowerPrintfPass());
  MPM.addPass(MapMathToLibdevicePass(Libdevice, Diags));
  MPM.addPass(LinkLibdevicePass(Libdevice, Diags));
  MPM.addPass(CreateKernelEntriesPass(Diags));
  MPM.addPass(LowerNumbaDeviceCallsPass(Diags));
  MPM.addPass(VerifyDeviceModulePass(Libdevice, Diags));
  return MPM;
}

PreservedAnalyses KernelOffloadPass::run(Module &M, ModuleAnalysisManager &) {
  DeviceCode Code = collectDeviceCode(M);
  ExternalDeviceCode External{collectExternalFunctions(M), {}};
  if (Code.empty()) {
    // Host code may still call a declared CUDA-C function: it gets the fallback that
    // reports the missing host implementation. There is no module to link files into.
    if (External.Functions.empty())
      return PreservedAnalyses::all();
    createHostFallbacks(M, External.Functions);
    return PreservedAnalyses::none();
  }
  DeviceDiagnostics Diags(M.getContext());
  // The runtime reads the descriptors with the C layout this plugin was built with; a host
  // that lays them out otherwise (a 32-bit target) would register garbage.
  if (std::string Why = moduleAbiMismatch(M.getContext(), M.getDataLayout()); !Why.empty()) {
    Diags.error("GPU code cannot be embedded for the target '" + M.getTargetTriple() +
                "': its data layout does not match the runtime's module ABI (" + Why + ")");
    return PreservedAnalyses::all();
  }
  External.Inputs = collectLinkInputs(M, Options.LinkFiles, Options.LinkAttributeFiles, Diags);

  // What the device code reaches: copied to the GPU module, and in the host the code whose
  // divisions keep their traps (the host module is the same until then).
  const DeviceSymbols Symbols = describeDeviceCode(M);
  const SmallPtrSet<const GlobalValue *, 32> Reached = reachableFromDeviceCode(M, Symbols);
  std::unique_ptr<Module> Device = prepareDeviceModule(M, Symbols, Reached, Options, Diags);
  if (!Device)
    return PreservedAnalyses::all();
  std::optional<CompiledImages> Compiled = compileForEachArch(*Device, Options, Diags);
  if (!Compiled)
    return PreservedAnalyses::all();
  std::string Hash = moduleHash(Compiled->Images, Code, External);
  labelImages(Compiled->Images, Hash);
  if (!Options.InspectDir.empty())
    writeInspection(Options.InspectDir, M, Hash, *Compiled, Code, Diags);

  // The GPU's code is compiled; the host's copies of it (the CPU targets', the simulator's)
  // keep their divisions, which trap.
  keepDivisionTraps(M, Reached);
  embedDeviceImages(M, Compiled->Images, Code, External, Hash, Compiled->StaticSharedBytes,
                    instrumentForSimulator(M, Code));
  createHostFallbacks(M, External.Functions);
  return PreservedAnalyses::none();
}

} // namespace passes
} // namespace kernel
