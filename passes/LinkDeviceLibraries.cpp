// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LinkDeviceLibraries.cpp - Bitcode libraries of GPU code ------------===//

#include "LinkDeviceLibraries.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {
// Generated at build time from devicert/devicert.c (passes/BUILD).
#include "passes/devicert_bitcode.inc"
} // namespace

std::string findLibdevice(StringRef Explicit, std::string &Searched) {
  SmallVector<std::string, 4> Candidates;
  if (!Explicit.empty()) {
    Candidates.push_back(Explicit.str());
  } else {
    for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
      if (std::optional<std::string> Root = sys::Process::GetEnv(Var))
        Candidates.push_back(*Root + "/nvvm/libdevice/libdevice.10.bc");
    Candidates.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  }
  for (const std::string &C : Candidates) {
    if (sys::fs::exists(C))
      return C;
    Searched += (Searched.empty() ? "" : ", ") + C;
  }
  return std::string();
}

std::unique_ptr<Module> loadLibdevice(LLVMContext &Ctx, StringRef Path, DeviceDiagnostics &Diags) {
  SMDiagnostic Err;
  std::unique_ptr<Module> M = getLazyIRFileModule(Path, Err, Ctx);
  if (!M)
    Diags.error("cannot read libdevice '" + Path + "': " + Err.getMessage());
  return M;
}

std::unique_ptr<Module> loadDeviceRuntime(LLVMContext &Ctx, DeviceDiagnostics &Diags) {
  MemoryBufferRef Buffer(
      StringRef(reinterpret_cast<const char *>(devicert_bc), sizeof(devicert_bc)),
      "kernel-devicert.bc");
  Expected<std::unique_ptr<Module>> M = parseBitcodeFile(Buffer, Ctx);
  if (!M) {
    Diags.error("the embedded device runtime is unreadable: " + toString(M.takeError()));
    return nullptr;
  }
  return std::move(*M);
}

void linkNeeded(Module &M, std::unique_ptr<Module> Library, DeviceDiagnostics &Diags) {
  for (Function &F : *Library) {
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
  }
  // libdevice says nvptx64-nvidia-gpulibs; agree with the module to link into.
  Library->setTargetTriple(M.getTargetTriple());
  Library->setDataLayout(M.getDataLayout());
  std::string Name = Library->getModuleIdentifier();
  if (Linker::linkModules(M, std::move(Library), Linker::LinkOnlyNeeded))
    Diags.error("linking '" + Name + "' into the GPU module failed");
}

void LibdeviceSource::load(LLVMContext &Ctx, DeviceDiagnostics &Diags) {
  if (Attempted)
    return;
  Attempted = true;
  std::string Path = findLibdevice(ExplicitPath, Searched);
  if (!Path.empty())
    Libdevice = loadLibdevice(Ctx, Path, Diags);
  Loaded = Libdevice != nullptr;
}

const Module *LibdeviceSource::get(LLVMContext &Ctx, DeviceDiagnostics &Diags) {
  load(Ctx, Diags);
  return Libdevice.get();
}

std::unique_ptr<Module> LibdeviceSource::take(LLVMContext &Ctx, DeviceDiagnostics &Diags) {
  load(Ctx, Diags);
  return std::move(Libdevice);
}

std::string LibdeviceSource::missingHint(LLVMContext &Ctx, DeviceDiagnostics &Diags) {
  load(Ctx, Diags);
  if (Loaded)
    return std::string();
  return "; the GPU math functions come from libdevice, which was not found (looked for " +
         Searched + "): install the CUDA toolkit or pass -fplugin-arg-kernel-libdevice=PATH";
}

} // namespace passes
} // namespace kernel
