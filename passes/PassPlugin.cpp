// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- PassPlugin.cpp - The kernel passes for opt ----------------------------===//
//
// `opt -load-pass-plugin=libkernel_passes.so -passes=NAME` runs the offload pass
// (kernel-offload) on a host module, or any one of its steps on a module at that stage, for
// testing them on IR without the clang plugin:
//
//   kernel-extract-device-module   host module -> its GPU code (ExtractDeviceModule)
//   kernel-retarget-nvptx          -> NVPTX triple, layout and attributes (RetargetToNVPTX)
//   kernel-strip-host-instrumentation
//                                  - profiling, CFI, sanitizer checks (StripHostInstrumentation)
//   kernel-link-device-runtime     + the embedded device runtime (LinkDeviceRuntime)
//   kernel-lower-intrinsics        kernel hooks -> NVVM intrinsics (LowerKernelIntrinsics)
//   kernel-lower-printf            printf -> vprintf (LowerPrintf)
//   kernel-map-math                libm and math intrinsics -> libdevice (MapMathToLibdevice)
//   kernel-link-libdevice          + the libdevice functions used (LinkLibdevice)
//   kernel-create-entries          + the PTX kernels (CreateKernelEntries)
//   kernel-lower-numba-calls       Numba-convention calls (LowerNumbaDeviceCalls)
//   kernel-verify-device           the last checks (VerifyDeviceModule)
//   kernel-device-pipeline         all of the above, in the offload pass's order
//   kernel-keep-division-traps     host module, its device code's divisions kept
//   (KeepDivisionTraps) kernel-instrument-simulator    host module + race-checked entry copies
//   (InstrumentForSimulator) kernel-host-fallbacks          host module + CUDA-C function fallbacks
//   (CreateHostFallbacks) print<kernel-device-code>      prints DeviceCodeAnalysis to stderr
//
// Options come from -kernel-arch and -kernel-libdevice.
//
//===----------------------------------------------------------------------===//

#include "CreateHostFallbacks.h"
#include "CreateKernelEntries.h"
#include "DeviceCodeAnalysis.h"
#include "ExtractDeviceModule.h"
#include "InstrumentForSimulator.h"
#include "KeepDivisionTraps.h"
#include "KernelOffload.h"
#include "LinkDeviceRuntime.h"
#include "LinkLibdevice.h"
#include "LowerAtomicOrderings.h"
#include "LowerKernelIntrinsics.h"
#include "LowerNumbaDeviceCalls.h"
#include "LowerPrintf.h"
#include "MapMathToLibdevice.h"
#include "RecordSimulatorStack.h"
#include "RetargetToNVPTX.h"
#include "StripHostInstrumentation.h"
#include "VerifyDeviceModule.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;
using namespace kernel::passes;

static cl::opt<std::string> KernelArch("kernel-arch", cl::init("sm_75,sm_90"),
                                       cl::desc("GPU architectures to emit PTX for"));
static cl::opt<std::string> KernelLibdevice("kernel-libdevice", cl::init(""),
                                            cl::desc("libdevice bitcode file"));

static OffloadOptions optionsFromCommandLine() {
  OffloadOptions Options;
  Options.Archs.clear();
  SmallVector<StringRef, 4> Archs;
  StringRef(KernelArch).split(Archs, ',', -1, false);
  for (StringRef A : Archs)
    Options.Archs.push_back(A.str());
  Options.LibdevicePath = KernelLibdevice;
  return Options;
}

static bool addPassNamed(StringRef Name, ModulePassManager &MPM) {
  auto Libdevice = [] { return std::make_shared<LibdeviceSource>(KernelLibdevice); };
  if (Name == "kernel-offload")
    MPM.addPass(KernelOffloadPass(optionsFromCommandLine()));
  else if (Name == "kernel-device-pipeline")
    MPM.addPass(buildDevicePipeline(optionsFromCommandLine(), std::nullopt, nullptr));
  else if (Name == "kernel-extract-device-module")
    MPM.addPass(ExtractDeviceModulePass());
  else if (Name == "kernel-retarget-nvptx")
    MPM.addPass(RetargetToNVPTXPass());
  else if (Name == "kernel-strip-host-instrumentation")
    MPM.addPass(StripHostInstrumentationPass());
  else if (Name == "kernel-link-device-runtime")
    MPM.addPass(LinkDeviceRuntimePass());
  else if (Name == "kernel-lower-intrinsics")
    MPM.addPass(LowerKernelIntrinsicsPass());
  else if (Name == "kernel-lower-atomic-orderings")
    MPM.addPass(LowerAtomicOrderingsPass());
  else if (Name == "kernel-lower-printf")
    MPM.addPass(LowerPrintfPass());
  else if (Name == "kernel-map-math")
    MPM.addPass(MapMathToLibdevicePass(Libdevice()));
  else if (Name == "kernel-link-libdevice")
    MPM.addPass(LinkLibdevicePass(Libdevice()));
  else if (Name == "kernel-create-entries")
    MPM.addPass(CreateKernelEntriesPass());
  else if (Name == "kernel-lower-numba-calls")
    MPM.addPass(LowerNumbaDeviceCallsPass());
  else if (Name == "kernel-verify-device")
    MPM.addPass(VerifyDeviceModulePass(Libdevice()));
  else if (Name == "kernel-keep-division-traps")
    MPM.addPass(KeepDivisionTrapsPass());
  else if (Name == "kernel-instrument-simulator")
    MPM.addPass(InstrumentForSimulatorPass());
  else if (Name == "kernel-simulator-stack")
    MPM.addPass(RecordSimulatorStackPass());
  else if (Name == "kernel-host-fallbacks")
    MPM.addPass(CreateHostFallbacksPass());
  else if (Name == "print<kernel-device-code>")
    MPM.addPass(DeviceCodePrinterPass(errs()));
  else
    return false;
  return true;
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "kernel-passes", "1", [](PassBuilder &PB) {
            PB.registerAnalysisRegistrationCallback(
                [](ModuleAnalysisManager &MAM) { registerKernelAnalyses(MAM); });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
                  return addPassNamed(Name, MPM);
                });
          }};
}
