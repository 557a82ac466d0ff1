// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- MapMathToLibdevice.cpp - C and C++ math on the GPU -----------------===//

#include "MapMathToLibdevice.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace kernel {
namespace passes {

namespace {

/// LLVM math intrinsics the NVPTX backend cannot lower, by their C library name.
std::optional<StringRef> libmNameOfIntrinsic(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::sin: return StringRef("sin");
  case Intrinsic::cos: return StringRef("cos");
  case Intrinsic::tan: return StringRef("tan");
  case Intrinsic::asin: return StringRef("asin");
  case Intrinsic::acos: return StringRef("acos");
  case Intrinsic::atan: return StringRef("atan");
  case Intrinsic::sinh: return StringRef("sinh");
  case Intrinsic::cosh: return StringRef("cosh");
  case Intrinsic::tanh: return StringRef("tanh");
  case Intrinsic::exp: return StringRef("exp");
  case Intrinsic::exp2: return StringRef("exp2");
  case Intrinsic::exp10: return StringRef("exp10");
  case Intrinsic::log: return StringRef("log");
  case Intrinsic::log2: return StringRef("log2");
  case Intrinsic::log10: return StringRef("log10");
  case Intrinsic::pow: return StringRef("pow");
  case Intrinsic::powi: return StringRef("powi");
  case Intrinsic::ldexp: return StringRef("ldexp");
  default: return std::nullopt;
  }
}

/// C library functions PTX implements natively, as the LLVM intrinsic that lowers to it.
std::optional<Intrinsic::ID> nativeIntrinsicOf(StringRef Name) {
  if (Name.ends_with("f") && Name != "erf" && Name != "modf")
    Name = Name.drop_back();
  return StringSwitch<std::optional<Intrinsic::ID>>(Name)
      .Case("sqrt", Intrinsic::sqrt)
      .Case("fabs", Intrinsic::fabs)
      .Case("fma", Intrinsic::fma)
      .Case("floor", Intrinsic::floor)
      .Case("ceil", Intrinsic::ceil)
      .Case("trunc", Intrinsic::trunc)
      .Case("rint", Intrinsic::rint)
      .Case("nearbyint", Intrinsic::nearbyint)
      .Case("copysign", Intrinsic::copysign)
      .Case("fmin", Intrinsic::minnum)
      .Case("fmax", Intrinsic::maxnum)
      .Default(std::nullopt);
}

bool isFloatOrDouble(Type *T) { return T->isFloatTy() || T->isDoubleTy(); }

/// Rounding to a 64-bit integer (std::lround, std::llrint ...: `long` is 64 bits on the host
/// and the GPU alike), whose intrinsics return an integer: libdevice's llround and llrint.
std::optional<std::string> roundToIntegerOf(Intrinsic::ID ID, FunctionType *FT) {
  if (FT->getNumParams() != 1 || !isFloatOrDouble(FT->getParamType(0)) ||
      !FT->getReturnType()->isIntegerTy(64))
    return std::nullopt;
  const char *Base = nullptr;
  switch (ID) {
  case Intrinsic::lround:
  case Intrinsic::llround: Base = "__nv_llround"; break;
  case Intrinsic::lrint:
  case Intrinsic::llrint: Base = "__nv_llrint"; break;
  default: return std::nullopt;
  }
  return std::string(Base) + (FT->getParamType(0)->isFloatTy() ? "f" : "");
}

/// The libdevice function for a C library name where the names differ: the `long` roundings
/// are libdevice's `long long` ones.
std::string libdeviceNameOf(StringRef Name) {
  return StringSwitch<std::string>(Name)
      .Case("lround", "__nv_llround")
      .Case("lroundf", "__nv_llroundf")
      .Case("lrint", "__nv_llrint")
      .Case("lrintf", "__nv_llrintf")
      .Default("__nv_" + Name.str());
}

// 'a', 'b', each name once.
std::string quotedNames(ArrayRef<std::string> Names) {
  std::string S;
  for (const std::string &N : Names)
    if (S.find("'" + N + "'") == std::string::npos)
      S += (S.empty() ? "'" : ", '") + N + "'";
  return S;
}

} // namespace

PreservedAnalyses MapMathToLibdevicePass::run(Module &M, ModuleAnalysisManager &) {
  DeviceDiagnostics Own(M.getContext());
  DeviceDiagnostics &D = Diags ? *Diags : Own;
  const Module *Lib = Libdevice->get(M.getContext(), D);
  // Math intrinsics that were called but could not be mapped (libdevice missing or lacking
  // them), and libm names whose type differs from libdevice's.
  std::vector<std::string> Unmapped;
  bool Changed = false;

  for (Function &F : llvm::make_early_inc_range(M)) {
    if (!F.isDeclaration() || F.use_empty())
      continue;
    FunctionType *FT = F.getFunctionType();
    Function *Replacement = nullptr;
    std::string Wanted;

    if (F.isIntrinsic()) {
      if (std::optional<std::string> Rounding = roundToIntegerOf(F.getIntrinsicID(), FT)) {
        Wanted = *Rounding;
      } else {
        std::optional<StringRef> Base = libmNameOfIntrinsic(F.getIntrinsicID());
        if (!Base || !isFloatOrDouble(FT->getReturnType()))
          continue;
        Wanted = "__nv_" + Base->str() + (FT->getReturnType()->isFloatTy() ? "f" : "");
      }
    } else {
      // A declaration with C linkage named like a libm function: C++ functions have
      // mangled names, so this is the C library's, and the type check below confirms it.
      StringRef Name = F.getName();
      if (Name.starts_with("_Z") || Name.starts_with("llvm.") || Name.starts_with("__nv_"))
        continue;
      if (std::optional<Intrinsic::ID> Native = nativeIntrinsicOf(Name);
          Native && isFloatOrDouble(FT->getReturnType())) {
        Replacement = Intrinsic::getDeclaration(&M, *Native, {FT->getReturnType()});
      } else {
        Wanted = libdeviceNameOf(Name);
      }
    }

    if (!Replacement) {
      const Function *Implementation = Lib ? Lib->getFunction(Wanted) : nullptr;
      if (!Implementation) {
        // An intrinsic must be mapped; any other name may simply not be math, and is left
        // to VerifyDeviceModule if nothing else defines it.
        if (F.isIntrinsic())
          Unmapped.push_back(F.getName().str());
        continue;
      }
      FunctionCallee Callee = M.getOrInsertFunction(Wanted, Implementation->getFunctionType(),
                                                    Implementation->getAttributes());
      Replacement = cast<Function>(Callee.getCallee());
    }
    if (Replacement->getFunctionType() != FT) {
      Unmapped.push_back(F.getName().str());
      continue;
    }
    F.replaceAllUsesWith(Replacement);
    F.eraseFromParent();
    Changed = true;
  }
  if (!Unmapped.empty())
    D.error("no GPU version of the math functions " + quotedNames(Unmapped) +
            Libdevice->missingHint(M.getContext(), D));
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace passes
} // namespace kernel
